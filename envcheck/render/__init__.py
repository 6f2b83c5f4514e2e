"""Renderers: the only modules (with cli.py) that turn results into text."""
