"""Read a log of any size line by line, in bounded memory.

A line longer than ``MAX_LINE`` characters is never held whole: its first ``HEAD`` and last
``TAIL`` characters are kept (error messages sit at the start of a line, or at its end after a
progress bar) and joined with `` … ``. ``\\r`` ends a line too (tqdm progress bars). Bytes that
are not UTF-8 are replaced, NUL bytes dropped; a UTF-16 byte-order mark switches the decoding.
"""

from __future__ import annotations

import codecs
import io
from typing import BinaryIO, Iterator

__all__ = ["iter_lines", "MAX_LINE", "HEAD", "TAIL"]

MAX_LINE = 16384
HEAD = 8192
TAIL = 8192
_CHUNK = 65536


def _decoder_for(prefix: bytes) -> codecs.IncrementalDecoder:
    if prefix.startswith(codecs.BOM_UTF16_LE) or prefix.startswith(codecs.BOM_UTF16_BE):
        return codecs.getincrementaldecoder("utf-16")(errors="replace")
    return codecs.getincrementaldecoder("utf-8-sig")(errors="replace")


def iter_lines(stream: BinaryIO) -> Iterator[str]:
    """Yield the lines of a binary stream (without line ends), each at most ``MAX_LINE`` + 3 chars."""
    first = stream.read(_CHUNK)
    if not first:
        return
    dec = _decoder_for(first[:4])
    head = io.StringIO()  # the current line, while short
    head_len = 0
    tail = ""  # for a long line: its last TAIL chars
    long_line = False

    def flush() -> str:
        nonlocal head, head_len, tail, long_line
        text = head.getvalue()
        if long_line:
            text = text[:HEAD] + " … " + tail[-TAIL:]
        head = io.StringIO()
        head_len = 0
        tail = ""
        long_line = False
        return text.replace("\x00", "")

    def feed(text: str) -> Iterator[str]:
        nonlocal head_len, tail, long_line
        start = 0
        n = len(text)
        while start < n:
            # next line end: \n or \r (a \r\n pair gives one empty extra line, skipped by callers)
            i_n = text.find("\n", start)
            i_r = text.find("\r", start)
            ends = [i for i in (i_n, i_r) if i >= 0]
            end = min(ends) if ends else -1
            piece = text[start:] if end < 0 else text[start:end]
            if long_line:
                tail = (tail + piece)[-TAIL:]
            elif head_len + len(piece) > MAX_LINE:
                room = HEAD - head_len
                if room > 0:
                    head.write(piece[:room])
                    head_len += room
                long_line = True
                tail = piece[-TAIL:]
            else:
                head.write(piece)
                head_len += len(piece)
            if end < 0:
                break
            yield flush()
            if text.startswith("\r\n", end):
                end += 1
            start = end + 1

    chunk = first
    pending_cr = False
    while chunk:
        text = dec.decode(chunk)
        if pending_cr and text.startswith("\n"):
            text = text[1:]
        pending_cr = text.endswith("\r")
        yield from feed(text)
        chunk = stream.read(_CHUNK)
    rest = dec.decode(b"", final=True)
    if rest:
        yield from feed(rest)
    if head_len or long_line:
        yield flush()
