"""Fitting text to the terminal's width: the public face of :mod:`envcheck.render._width` for the CLI."""

from envcheck.render._width import DEFAULT_WIDTH, MIN_WIDTH, fit, shorten_middle

__all__ = ["fit", "shorten_middle", "DEFAULT_WIDTH", "MIN_WIDTH"]
