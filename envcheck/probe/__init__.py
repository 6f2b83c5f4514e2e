"""Live probing: the only package that touches the running machine.

Everything here returns raw captures (:class:`~envcheck.proc.Capture`) whose text is exactly
what a snapshot file holds; parsing happens in :mod:`envcheck.parse`.
"""
