"""Pure parsers: captured text in, typed values out.

Each function takes exactly the text of a snapshot file (contract §1) and never raises on any
input: unknown or garbled content gives ``None`` / empty results.
"""
