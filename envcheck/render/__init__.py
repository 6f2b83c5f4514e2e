"""Renderers: the only modules (with cli.py) that turn results into text.

Text that came from outside (snapshot files, logs, paths, GPU names) may hold terminal control
sequences: clearing the screen, setting the title, writing the clipboard (OSC 52). Every text and
Markdown renderer therefore passes its document through :func:`clean` first, and the CLI passes any
other untrusted message through :func:`clean_text`; JSON keeps every string exact but is made valid
UTF-8 by :func:`json_text` (lone surrogates replaced).
"""

from __future__ import annotations

from typing import Any
from envcheck import lazyre

__all__ = ["clean", "clean_text", "json_text", "CONTROL"]

#: C0 controls but tab and newline, DEL, C1 controls (0x9b is an 8-bit CSI), the bidi overrides and
#: isolates (text that reads differently than it is), and lone surrogates (undecodable bytes).
CONTROL = lazyre.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def clean_text(text: Any) -> str:
    """``text`` as a string with every control character shown as ``?``."""
    s = text if isinstance(text, str) else str(text)
    if s.isascii() and s.isprintable():  # (most texts: none of CONTROL's characters is printable ASCII)
        return s
    return CONTROL.sub("?", s) if CONTROL.search(s) else s


def clean(doc: Any, _depth: int = 0) -> Any:
    """A copy of a JSON-like document whose strings (keys too) are :func:`clean_text`-ed."""
    if isinstance(doc, str):
        return clean_text(doc)
    if _depth > 200:  # documents come from load_json (depth <= 64); never recurse without end
        return None
    if isinstance(doc, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean(v, _depth + 1) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [clean(v, _depth + 1) for v in doc]
    return doc


_SURROGATE = lazyre.compile("[\ud800-\udfff]")


def _fix_surrogates(doc: Any, depth: int = 0) -> Any:
    if isinstance(doc, str):
        return _SURROGATE.sub("\ufffd", doc)
    if depth > 200:
        return None
    if isinstance(doc, dict):
        return {_fix_surrogates(k, depth + 1): _fix_surrogates(v, depth + 1) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_fix_surrogates(v, depth + 1) for v in doc]
    return doc


def json_text(doc: Any, indent: Any = 2) -> str:
    """``json.dumps(doc, indent=indent)`` that strict parsers accept: a lone surrogate (an undecodable
    byte of a path, a ``\\ud800`` escape in a snapshot) becomes U+FFFD; everything else is exact."""
    import json

    from envcheck.schemas import validate_if_asked

    validate_if_asked(doc)
    out = json.dumps(doc, indent=indent)
    if "\\ud" in out and _SURROGATE.search(json.dumps(doc, ensure_ascii=False)):
        out = json.dumps(_fix_surrogates(doc), indent=indent)
    return out
