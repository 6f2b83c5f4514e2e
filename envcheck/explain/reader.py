"""Read a log of any size line by line, in bounded memory.

A line longer than ``MAX_LINE`` characters is never held whole: its first ``HEAD`` and last
``TAIL`` characters are kept (error messages sit at the start of a line, or at its end after a
progress bar) and joined with `` … ``. ``\\r`` ends a line too (tqdm progress bars). Bytes that
are not UTF-8 are replaced, NUL bytes dropped; a UTF-16 byte-order mark switches the decoding.
"""

from __future__ import annotations

import codecs
import io
import re
from typing import BinaryIO, Iterator, List, Optional

__all__ = ["iter_lines", "unfold", "MAX_LINE", "HEAD", "TAIL"]

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


# --- lines a log collector folded into one: syslog's #012, a JSON-lines record's "\n" -------------------------------

#: rsyslog's escapes of control characters (``$EscapeControlCharactersOnReceive``, on by default): "#" and the
#: character's three octal digits; a multi-line message (a kernel oops, a Python traceback) lands on one line
_SYSLOG = (("#015#012", "\n"), ("#012", "\n"), ("#015", "\n"), ("#011", "\t"))
#: the field holding the printed text in a record of a JSON-lines log: Docker's json-file driver ("log"),
#: journald's ``-o json`` ("MESSAGE"), CloudWatch / most shippers ("message"), Loki's ``logcli -o jsonl`` ("line"),
#: Google Cloud Logging ("textPayload"), zap / logrus / bunyan ("msg")
_JSON_KEYS = ("log", "message", "MESSAGE", "msg", "line", "textPayload", "body")
_JSON_ESC = {"n": "\n", "r": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "b": "", "f": ""}


def _json_text(line: str) -> Optional[str]:
    """The printed text of one JSON-lines record (its message field, escapes undone), or None when ``line`` is not
    one. A record cut short (a truncated export, a line cut at MAX_LINE) keeps what it holds of the field."""
    import json

    try:
        rec = json.loads(line)
    except ValueError:
        rec = None
    if isinstance(rec, dict):
        for key in _JSON_KEYS:
            val = rec.get(key)
            if isinstance(val, str):
                return val
        return None
    m = _JSON_FIELD.search(line)
    if m is None:
        return None
    return _JSON_ESCAPE.sub(_unescape, m.group(1))


def _unescape(m: "re.Match[str]") -> str:
    e = m.group(0)[1:]
    if e[:1] == "u":
        try:
            return chr(int(e[1:], 16))
        except ValueError:  # pragma: no cover - the pattern takes four hex digits only
            return ""
    return _JSON_ESC.get(e, e)


_JSON_FIELD = re.compile(r'"(?:%s)"\s{0,4}:\s{0,4}"((?:[^"\\]|\\.){0,%d})' % ("|".join(_JSON_KEYS), MAX_LINE))
_JSON_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|.)')


def unfold(line: str) -> Optional[List[str]]:
    """The lines one log line holds when a log collector folded several into it, as they were printed: syslog's
    ``#012`` (``#011`` a tab), a JSON-lines record (Docker's json-file ``{"log":"...\\n","stream":"stderr"}``,
    journald/CloudWatch/Loki exports) whose message holds ``\\n`` and ``\\"`` escapes. None for a line that is
    neither (the common case, one substring test). Linear in the line's length; at most len(line) lines."""
    text: Optional[str] = None
    if line[:1] == "{" or line.lstrip()[:2] == '{"':
        text = _json_text(line.strip())
        if text is not None and "#01" in text:
            line = text
            text = None
    if text is None:
        if "#01" not in line:
            return None
        text = line
        for esc, ch in _SYSLOG:
            text = text.replace(esc, ch)
        if text == line:
            return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")
