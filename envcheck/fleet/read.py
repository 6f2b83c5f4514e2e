"""Read status reports for a fleet summary (contract §7): files, folders, archives and stdin.

Bounded by construction, whatever the input:

* **Streaming.** Every input is read in chunks and decoded one JSON document at a time
  (concatenated documents — ``cat reports/*.json`` — or one per line); a document is reduced at once
  to the few fields a summary needs (:func:`compact`) and, per node, only the newest report is kept.
  Memory grows with the number of nodes, not with the bytes read.
* **Caps.** One document may hold :data:`MAX_DOC_BYTES`; one run reads at most ``max_bytes``
  (default :data:`MAX_TOTAL_BYTES`, uncompressed archive members included); an archive may hold
  :data:`MAX_ARCHIVE_MEMBERS` entries; folders are walked iteratively, :data:`MAX_FOLDER_DEPTH` deep.
* **Archive bombs.** Reports are kilobytes: an archive member larger than :data:`MAX_MEMBER_BYTES`
  stops the archive at its header (it is never inflated), and once an archive has unpacked more than
  :data:`RATIO_FLOOR` bytes, unpacking more than :data:`MAX_RATIO` times the compressed bytes read
  stops it too; either is listed as unreadable with its reason (what was read before it is kept).
  A compressed archive therefore costs about its own size, whatever it claims to hold.
* **Nesting.** A document nested deeper than :data:`MAX_JSON_DEPTH` (``'[' * 100000``) is refused
  by a scan of its brackets *before* it is decoded (:func:`nesting_depth`), so the decoder's recursion
  is never reached.
* **Only regular files.** Files are opened ``O_NONBLOCK`` (a FIFO never blocks) and checked with
  ``fstat``; inside folders symbolic links are not followed (``O_NOFOLLOW``). A FIFO, device, socket,
  link (loops included) or over-deep folder is listed in ``unreadable`` with the reason — never
  skipped silently, never hung on.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Tuple

from envcheck.safe_io import file_kind

__all__ = ["Node", "Inputs", "Reader", "read_inputs", "compact", "parse_created", "is_future", "nesting_depth",
           "MAX_DOC_BYTES", "MAX_TOTAL_BYTES", "MAX_JSON_DEPTH", "MAX_FOLDER_DEPTH", "MAX_ARCHIVE_MEMBERS",
           "MAX_MEMBER_BYTES", "MAX_RATIO"]

MAX_DOC_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
MAX_JSON_DEPTH = 64  # a status report nests 4 deep
MAX_FOLDER_DEPTH = 32
MAX_ARCHIVE_MEMBERS = 200_000
#: an archive member over this size is refused at its header (a report is a few kilobytes)
MAX_MEMBER_BYTES = 16 * 1024 * 1024
#: unpacked / compressed bytes of an archive, checked once it has unpacked RATIO_FLOOR bytes (6,000
#: near-identical pretty-printed reports in a .tar.gz measured 82:1; a gzip bomb of zeros is ~1000:1)
MAX_RATIO = 200
RATIO_FLOOR = 8 * 1024 * 1024
CHUNK = 1 << 20
MAX_DUPLICATES_LISTED = 20
REPORT_EXTS = (".json", ".jsonl", ".ndjson")
ARCHIVE_EXTS = (".tar", ".tar.gz", ".tgz")
_REPORT_SCHEMA_PREFIX = "envcheck/report/"
#: snapshot files that are not JSON: their presence marks a folder as a snapshot
_SNAPSHOT_TEXT_KEYS = ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "nvcc.txt",
                       "ldconfig.txt", "sys-module-nvidia-version.txt", "libraries.txt")


@dataclass
class Node:
    name: str  # the report's hostname, else the file name
    report: Dict[str, Any]  # compact (see :func:`compact`)
    origin: str  # where it was read
    created: Optional[float]  # the report's creation time (Unix seconds), None when absent or unreadable


@dataclass
class Inputs:
    nodes: Dict[str, Node] = field(default_factory=dict)  # newest report per node name
    unreadable: List[Tuple[str, str]] = field(default_factory=list)  # (input, reason)
    duplicates: Dict[str, List[str]] = field(default_factory=dict)  # node -> origins of older reports (some)
    duplicate_counts: Dict[str, int] = field(default_factory=dict)  # node -> how many older reports
    bytes_read: int = 0
    documents: int = 0


# -- JSON, bounded -------------------------------------------------------------------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(r"[^\[\]{}]+")
_PAIRS = re.compile(r"\[\]|\{\}")


def nesting_depth(text: str, limit: int = MAX_JSON_DEPTH) -> int:
    """How deeply the brackets of the JSON ``text`` nest, counted without recursion and in C-speed
    passes (strings removed, then innermost pairs peeled one level per pass); stops counting past
    ``limit`` (returns ``limit + 1``). Unbalanced brackets count as open levels."""
    skel = _BRACKETS.sub("", _STRING.sub("", text))
    depth = 0
    while skel:
        if depth > limit:
            return limit + 1
        peeled = _PAIRS.sub("", skel)
        if len(peeled) == len(skel):  # nothing left to peel: what remains is unbalanced
            opens = peeled.count("[") + peeled.count("{")
            return min(depth + max(opens, 1), limit + 1)
        skel = peeled
        depth += 1
    return depth


#: how far in the future a report's 'created' may lie (clock drift between nodes) and still be believed
FUTURE_SKEW_S = 3600.0


def is_future(created: Optional[float], now: Optional[float] = None) -> bool:
    """Whether a creation time lies further in the future than clocks drift."""
    import time

    return created is not None and created > (time.time() if now is None else now) + FUTURE_SKEW_S


def _rank(created: Optional[float]) -> float:
    return float("-inf") if created is None or is_future(created) else created


#: ISO-8601 as other tools write it (Go's RFC 3339 nanoseconds, .NET's 7-digit fractions, the basic form, a comma
#: before the fraction): read here rather than by ``datetime.fromisoformat``, which before Python 3.11 reads only
#: what ``isoformat()`` writes (3 or 6 fraction digits), so the same report's time would depend on the Python
_ISO = re.compile(r"(\d{4})-?(\d\d)-?(\d\d)(?:[Tt ](\d\d)(?::?(\d\d)(?::?(\d\d)(?:[.,](\d{1,12}))?)?)?)?"
                  r"\s*(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)?")


def parse_created(value: Any) -> Optional[float]:
    """An ISO-8601 time (``2024-06-01T12:00:00Z``, ``...+02:00``, ``...123456789Z``; no zone = UTC) as Unix
    seconds; None for anything else. The same answer on every Python envcheck supports."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40:
        return None
    m = _ISO.fullmatch(value.strip())
    if m is None:
        return None
    y, mo, d, hh, mi, ss, frac, _z, sign, oh, om = m.groups()
    try:
        tz = timezone.utc if not sign else timezone((-1 if sign == "-" else 1)
                                                     * timedelta(hours=int(oh), minutes=int(om or 0)))
        t = datetime(int(y), int(mo), int(d), int(hh or 0), int(mi or 0), int(ss or 0),
                     int((frac or "0")[:6].ljust(6, "0")), tzinfo=tz)
        return t.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


#: one copy of each string value kept (versions, finding messages and fixes repeat on every node of a
#: fleet): per node only what differs costs memory. Started again when full (bounded).
_SHARED: Dict[str, str] = {}
_SHARED_MAX = 1 << 16


def _share(v: str) -> str:
    got = _SHARED.get(v)
    if got is not None:
        return got
    if len(_SHARED) >= _SHARED_MAX:
        _SHARED.clear()
    _SHARED[v] = v
    return v


def _str(v: Any, limit: int = 4096) -> Optional[str]:
    return _share(v[:limit]) if type(v) is str else None


def _scalar(v: Any) -> Any:
    """A string (cut to 4096 characters), number or None: never a container."""
    t = type(v)
    if t is str:
        return _share(v[:4096])
    return v if t is int or t is float else None


def compact(doc: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of a report (§2) a summary uses, as flat strings/numbers: what is kept per node.
    Anything else in the report — however large or deeply nested — is dropped here."""
    g = doc.get
    d, t, p = g("driver"), g("toolkit"), g("python")
    d = d if type(d) is dict else {}
    t = t if type(t) is dict else {}
    p = p if type(p) is dict else {}
    rep: Dict[str, Any] = {
        "hostname": _str(g("hostname"), 255),
        "ok": g("ok") is True,
        "created": _str(g("created"), 64),
        "envcheck": _str(g("envcheck"), 64),
        "matrix_version": _str(g("matrix_version"), 64),
        "matrix": _str(g("matrix"), 128),
        "driver": {"version": _scalar(d.get("version")), "cuda": _scalar(d.get("cuda"))},
        "toolkit": {"version": _scalar(t.get("version")), "nvcc": _scalar(t.get("nvcc"))},
        "python": {"version": _scalar(p.get("version"))},
    }
    gpus = g("gpus")
    rep["gpus"] = [{"name": _str(x.get("name"), 256)} for x in gpus[:1024] if type(x) is dict] \
        if type(gpus) is list else None
    cudnn = g("cudnn")
    rep["cudnn"] = [{"version": _str(c.get("version"), 64)} for c in cudnn[:256] if type(c) is dict] \
        if type(cudnn) is list else None
    nc = g("not_captured")
    if not rep["cudnn"] and type(nc) is list and "ldconfig.txt" in nc and "libraries.txt" in nc:
        rep["cudnn"] = None  # a snapshot without the library scans: its cuDNN copies are unknown, not none
    fws: Dict[str, Any] = {}
    raw_fws = g("frameworks")
    if type(raw_fws) is dict:
        for name, fw in list(raw_fws.items())[:64]:
            if type(name) is str and type(fw) is dict:
                fws[name[:64]] = {"version": _scalar(fw.get("version")), "cuda": _scalar(fw.get("cuda")),
                                  "cudnn": _scalar(fw.get("cudnn"))}
    rep["frameworks"] = fws
    findings = []
    raw = g("findings")
    if type(raw) is list:
        for f in raw[:256]:
            if type(f) is dict and type(f.get("id")) is str:
                findings.append({"id": f["id"][:128], "severity": _str(f.get("severity"), 32) or "unknown",
                                 "message": _str(f.get("message")), "fix": _str(f.get("fix"))})
    rep["findings"] = findings
    return rep


def _validate(doc: Any) -> Optional[str]:
    """Why ``doc`` is not a status report (``None`` when it is one)."""
    if type(doc) is not dict:
        return f"not a JSON object (a {type(doc).__name__})"
    schema = doc.get("schema")
    if not isinstance(schema, str) or not schema.startswith(_REPORT_SCHEMA_PREFIX):
        s = repr(schema)
        return f"not an envcheck status report (schema {s[:80]})"
    if not isinstance(doc.get("ok"), bool):
        return "the report has no boolean 'ok'"
    return None


def default_name(origin: str) -> str:
    base = origin.rstrip("/")
    if ":" in os.path.basename(base):  # "reports.jsonl:17" -> "reports.jsonl"
        base = base.rsplit(":", 1)[0]
    base = os.path.basename(base.rstrip("/")) or origin
    for ext in REPORT_EXTS:
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


# -- the reader ----------------------------------------------------------------------------------

_WS = re.compile(r"[ \t\r\n\ufeff]*")
#: where a document may start again after a malformed one: a line starting with '{' or '[',
#: or an object whose first key is "schema" (reports are written that way)
_RESYNC = re.compile(r'\n[{\[]|\{\s*"schema"\s*:')
#: what an incomplete value may end with (a cut number or literal)
_TAIL_TOKEN = re.compile(r'[-+0-9.eEtrufalsn]*\s*$')


class _Budget(Exception):
    """The run's byte limit was reached."""


class _Bomb(Exception):
    """An archive unpacks to far more than it holds (see :class:`_Counted`)."""


class _Counted:
    """A file object that counts the (compressed) bytes read from it and, on every read, compares
    them with what the tar stream has unpacked so far (``stream.pos``): past :data:`RATIO_FLOOR`,
    more than :data:`MAX_RATIO` times as much stops the archive. tarfile reads 10 KiB of compressed
    data at a time, so at most one such read's worth (10 MiB at gzip's own limit) is ever inflated
    past the cap."""

    def __init__(self, fh: IO[bytes]):
        self.fh = fh
        self.read_bytes = 0
        self.stream: Any = None

    def read(self, n: int = -1) -> bytes:
        self._check()
        data = self.fh.read(n)
        self.read_bytes += len(data)
        return data

    def _check(self) -> None:
        unpacked = getattr(self.stream, "pos", 0) or 0
        if unpacked > RATIO_FLOOR and unpacked > MAX_RATIO * max(self.read_bytes, 1):
            raise _Bomb(f"it unpacks to more than {MAX_RATIO} times its compressed size ({unpacked} bytes from "
                        f"{self.read_bytes}): an archive bomb, not reports; the rest was not read")


class _DocStream:
    """The JSON documents of one byte stream, read in :data:`CHUNK` steps: (label, document, None) or
    (label, None, why it is not a report). Binary or non-UTF-8 bytes become U+FFFD: the document holding
    them fails to decode and is listed as binary data, and reading goes on at the next document (`cat` of
    a folder with a stray file). Linear: a document is decoded again only once twice as much text
    follows it, read text is dropped, and line numbers are counted once."""

    def __init__(self, read: Callable[[int], bytes], origin: str, stop_on_binary: bool,
                 take: Callable[[int], None]):
        self.read, self.origin, self.stop_on_binary, self.take = read, origin, stop_on_binary, take
        self.decoder = json.JSONDecoder()
        self.utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.need = 0  # decode again only once this many characters follow pos (no quadratic retries)
        self.count = 0  # documents met (good or bad)
        self.total = 0
        self.skipping = False  # after an over-long document: drop text until a document starts again
        self.cur_line, self.cur_pos = 1, 0  # line number at buf[cur_pos]; advanced incrementally

    def label(self, at: int) -> str:
        if at > self.cur_pos:
            self.cur_line += self.buf.count("\n", self.cur_pos, at)
            self.cur_pos = at
        return f"{self.origin}:{self.cur_line}"

    def first_label(self) -> str:
        return self.origin if self.count == 1 else self.label(self.pos)

    def _drop(self, keep: int) -> None:
        """Forget the text before ``keep`` (its lines counted first)."""
        self.label(keep)
        self.buf, self.pos, self.cur_pos = self.buf[keep:], 0, 0

    def _fill(self) -> bool:
        """Read the next chunk (or note the end); False when the stream is binary and reading stops."""
        data = self.read(CHUNK)
        if not data:
            self.eof = True
            self.buf += self.utf8.decode(b"", final=True)
            return True
        self.take(len(data))
        if self.total == 0 and self.stop_on_binary and b"\0" in data[:8192]:
            return False
        self.total += len(data)
        text = self.utf8.decode(data).replace("\0", "\ufffd")
        if self.pos > 0 and self.pos >= len(self.buf) // 2:  # drop what was read
            self._drop(self.pos)
        self.buf += text
        return True

    def _resync(self) -> bool:
        """While skipping: move to where a document starts again; False at the end of the stream."""
        r = _RESYNC.search(self.buf, self.pos)
        if r is None:
            if self.eof:
                return False
            self._drop(max(self.pos, len(self.buf) - 64))
            self.need = len(self.buf) - self.pos + 1
            return True
        self.pos = r.start() + (1 if self.buf[r.start()] == "\n" else 0)
        self.skipping = False
        return True

    def _why(self, err: str) -> Tuple[str, Optional["re.Match[str]"]]:
        """The reason a document at pos is not read, and where the next one starts (None: not seen)."""
        buf, pos = self.buf, self.pos
        if err == "incomplete":
            err = (f"a document longer than {MAX_DOC_BYTES} bytes" if len(buf) - pos > MAX_DOC_BYTES
                   else "truncated JSON (the input ends inside a document)")
        r = _RESYNC.search(buf, pos + 1)
        if "\ufffd" in buf[pos:r.start() if r is not None else pos + 65536]:
            err = "binary data or text that is not UTF-8, not JSON"
        elif r is not None and err.startswith("malformed") and \
                _decode_one(self.decoder, buf[pos:r.start()].rstrip(), 0)[2] == "incomplete":
            err = "truncated JSON (cut off where the next document starts)"
        return err, r

    def documents(self) -> Iterator[Tuple[str, Any, Optional[str]]]:
        while True:
            if not self.eof and (self.pos >= len(self.buf) or len(self.buf) - self.pos < self.need):
                if not self._fill():
                    yield self.origin, None, "binary data, not JSON"
                    return
                continue
            m = _WS.match(self.buf, self.pos)
            if m:
                self.pos = m.end()
            if self.skipping:
                if not self._resync():
                    return
                continue
            if self.pos >= len(self.buf):
                if self.eof:
                    if self.count == 0:
                        yield self.origin, None, ("empty file" if self.total == 0
                                                  else "no JSON document (only blank space)")
                    return
                continue
            end, doc, err = _decode_one(self.decoder, self.buf, self.pos)
            if err == "incomplete" and not self.eof and len(self.buf) - self.pos <= MAX_DOC_BYTES:
                # read on (doubling), try again
                self.need = min(2 * (len(self.buf) - self.pos) + CHUNK, MAX_DOC_BYTES + 1)
                continue
            self.count += 1
            if err is None and end - self.pos > MAX_DOC_BYTES:
                err, doc = f"a document longer than {MAX_DOC_BYTES} bytes", None
            if err is None:
                yield self.first_label(), doc, None
                self.pos, self.need = end, 0
                continue
            err, r = self._why(err)
            yield self.first_label(), None, err
            if r is not None:
                self.pos = r.start() + (1 if self.buf[r.start()] == "\n" else 0)
            else:
                self.pos = len(self.buf)
                self.skipping = not self.eof
            self.need = 0


class Reader:
    """Collects reports into :class:`Inputs` (newest per node), reading each input in bounded steps."""

    def __init__(self, max_bytes: int = MAX_TOTAL_BYTES, snapshots: bool = True):
        self.out = Inputs()
        self.max_bytes = max_bytes
        self.snapshots = snapshots
        self._pipe: Optional[_Pipeline] = None
        self._exhausted = False

    # -- results -------------------------------------------------------------------------------
    def bad(self, origin: str, why: str) -> None:
        self.out.unreadable.append((origin, why))

    def add(self, doc: Any, origin: str) -> None:
        why = _validate(doc)
        if why:
            self.bad(origin, why)
            return
        rep = compact(doc)
        host = rep.get("hostname")
        name = host.strip() if isinstance(host, str) and host.strip() else default_name(origin)
        rep["hostname"] = name
        node = Node(name, rep, origin, parse_created(rep.get("created")))
        self.out.documents += 1
        old = self.out.nodes.get(name)
        if old is not None:
            # the newest report of a node wins; a report without a time, or with one further in the future
            # than clocks drift (a wrong clock or a forged report), is older than any with a plausible one;
            # equal times: the one read later
            newer = _rank(node.created) >= _rank(old.created)
            keep, drop = (node, old) if newer else (old, node)
            dropped = self.out.duplicates.setdefault(name, [])
            if len(dropped) < MAX_DUPLICATES_LISTED:
                dropped.append(drop.origin)
            self.out.duplicate_counts[name] = self.out.duplicate_counts.get(name, 0) + 1
            node = keep
        self.out.nodes[name] = node

    # -- byte budget ---------------------------------------------------------------------------
    def _take(self, n: int) -> None:
        self.out.bytes_read += n
        if self.out.bytes_read > self.max_bytes:
            self._exhausted = True
            raise _Budget()

    def budget_left(self) -> bool:
        return not self._exhausted

    # -- streams ---------------------------------------------------------------------------------
    def read_stream(self, read: Callable[[int], bytes], origin: str, stop_on_binary: bool = False) -> None:
        """Every JSON document of a byte stream (concatenated or one per line; a top-level list of
        reports is accepted too). A malformed document is listed as ``origin:LINE`` (``origin`` when
        it is the input's only document) and reading goes on at the next document."""
        try:
            for label, doc, why in self._documents(read, origin, stop_on_binary):
                if why is not None:
                    self.bad(label, why)
                elif isinstance(doc, list) and doc and all(isinstance(d, dict) for d in doc):
                    for i, d in enumerate(doc):
                        self.add(d, f"{label}[{i}]")
                else:
                    self.add(doc, label)
        except _Budget:
            self.bad(origin, f"the run's input limit ({self.max_bytes} bytes) was reached here; "
                             "the rest was not read (raise it with --max-bytes)")

    def _documents(self, read: Callable[[int], bytes], origin: str, stop_on_binary: bool
                   ) -> Iterator[Tuple[str, Any, Optional[str]]]:
        return _DocStream(read, origin, stop_on_binary, self._take).documents()

    # -- files -----------------------------------------------------------------------------------
    def read_file(self, path: str, origin: str, *, follow: bool) -> None:
        try:
            fd = open_regular(path, follow=follow)
        except OSError as exc:
            self.bad(origin, describe(exc))
            return
        with os.fdopen(fd, "rb", buffering=0) as fh:
            if path.endswith(ARCHIVE_EXTS) or _is_archive(fh):
                self.read_archive(fh, origin)
            else:
                self.read_stream(fh.read, origin, stop_on_binary=True)  # a binary file: not read through

    def read_path(self, path: str) -> None:
        """A path named on the command line: a file (links followed), a folder or an archive."""
        if not self.budget_left():
            self.bad(path, "not read: the run's input limit was reached before it")
            return
        try:
            st = os.stat(path)
        except OSError as exc:
            try:
                os.lstat(path)
                self.bad(path, "a symbolic link loop" if exc.errno == errno.ELOOP
                         else "a symbolic link to a missing file" if isinstance(exc, FileNotFoundError)
                         else describe(exc))
            except OSError:
                self.bad(path, "no such file or folder" if isinstance(exc, FileNotFoundError) else describe(exc))
            return
        if stat.S_ISDIR(st.st_mode):
            before = len(self.out.unreadable) + self.out.documents + len(self.out.nodes)
            self.walk(path)
            if len(self.out.unreadable) + self.out.documents + len(self.out.nodes) == before:
                self.bad(path, "folder holds no *.json report")
        elif stat.S_ISREG(st.st_mode):
            self.read_file(path, path, follow=True)
        else:
            hint = "; pipe it to `envcheck fleet summarize -` instead" if stat.S_ISFIFO(st.st_mode) else ""
            self.bad(path, f"is {file_kind(st.st_mode)}, not a regular file{hint}")

    def walk(self, root: str) -> None:
        """Folders, iteratively (no recursion), at most :data:`MAX_FOLDER_DEPTH` deep; links are not
        followed; a folder holding a snapshot is checked as one node."""
        stack: List[Tuple[str, str, int]] = [(root, root, 0)]
        while stack:
            path, origin, depth = stack.pop()
            if not self.budget_left():
                self.bad(origin, "not read: the run's input limit was reached before it")
                continue
            try:
                with os.scandir(path) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.bad(origin, f"cannot list folder: {describe(exc)}")
                continue
            names = [e.name for e in entries]
            if self.snapshots and _dir_is_snapshot(path, names):
                self._snapshot_dir(path, origin)
                continue
            subdirs: List[Tuple[str, str, int]] = []
            for e in entries:
                sub = origin.rstrip("/") + "/" + e.name
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError as exc:
                    self.bad(sub, describe(exc))
                    continue
                mode = st.st_mode
                if stat.S_ISDIR(mode):
                    if depth + 1 > MAX_FOLDER_DEPTH:
                        self.bad(sub, f"nested more than {MAX_FOLDER_DEPTH} folders deep; not read")
                    else:
                        subdirs.append((e.path, sub, depth + 1))
                elif stat.S_ISLNK(mode):
                    self.bad(sub, "a symbolic link; links inside a folder are not followed "
                                  "(name its target on the command line)")
                elif not stat.S_ISREG(mode):
                    if e.name.endswith(REPORT_EXTS + ARCHIVE_EXTS):
                        self.bad(sub, f"is {file_kind(mode)}, not a regular file")
                elif e.name.endswith(REPORT_EXTS + ARCHIVE_EXTS):
                    if not self.budget_left():
                        self.bad(sub, "not read: the run's input limit was reached before it")
                        continue
                    self.read_file(e.path, sub, follow=False)
            stack.extend(reversed(subdirs))  # depth first, in name order

    # -- snapshots -------------------------------------------------------------------------------
    def pipeline(self) -> "_Pipeline":
        if self._pipe is None:
            self._pipe = _Pipeline()
        return self._pipe

    def _snapshot_dir(self, path: str, origin: str) -> None:
        from envcheck.errors import EnvcheckError
        from envcheck.snapshot import open_snapshot

        try:
            rep = self.pipeline().report(open_snapshot(path))
        except (EnvcheckError, OSError, ValueError, RecursionError) as exc:
            self.bad(origin, f"unreadable snapshot: {exc}")
            return
        if not rep.get("hostname"):
            rep["hostname"] = default_name(origin)
        self.add(rep, origin)

    # -- archives --------------------------------------------------------------------------------
    def read_archive(self, fh: IO[bytes], origin: str) -> None:
        import tarfile

        from envcheck.snapshot import KEYS, SnapshotSource

        groups: Dict[str, Dict[str, bytes]] = {}
        order: List[str] = []
        members = 0
        counted = _Counted(fh)
        try:
            with tarfile.open(fileobj=counted, mode="r|*") as tf:  # type: ignore[call-overload]
                counted.stream = tf.fileobj
                for m in tf:
                    members += 1
                    tf.members = []  # stream mode keeps every header otherwise
                    self._take(512)
                    if members > MAX_ARCHIVE_MEMBERS:
                        self.bad(origin, f"more than {MAX_ARCHIVE_MEMBERS} entries; the rest was not read")
                        break
                    if m.size > MAX_MEMBER_BYTES:
                        # refused at its header: skipping it would unpack all of it (100 MB of zeros
                        # in a 100 KB .tar.gz)
                        self.bad(f"{origin}:{m.name}", f"larger than {MAX_MEMBER_BYTES} bytes ({m.size}), the cap "
                                 "for an archive member (reports are kilobytes); the rest of the archive was not read")
                        break
                    d, base = os.path.split(m.name)
                    where = f"{origin}:{m.name}"
                    looks = base.endswith(REPORT_EXTS) or base in KEYS
                    if not m.isfile():
                        if looks and (m.issym() or m.islnk() or m.isfifo() or m.isdev()):
                            self.bad(where, "a link or special file inside the archive; not followed")
                        continue
                    if not looks or m.size > MAX_DOC_BYTES:
                        # skipped, but a compressed stream is still unpacked through it: it counts
                        # (5 GB of zeros in a 5 MB .tar.gz stops here, at its header, not after minutes)
                        self._take(m.size)
                        if looks:
                            self.bad(where, f"larger than {MAX_DOC_BYTES} bytes")
                        continue
                    src = tf.extractfile(m)
                    if src is None:
                        continue
                    if base in KEYS and self.snapshots:
                        self._take(m.size)
                        if d not in groups:
                            groups[d] = {}
                            order.append(d)
                        groups[d][base] = src.read(MAX_DOC_BYTES + 1)
                    else:
                        self.read_stream(src.read, where)
        except _Budget:
            self.bad(origin, f"the run's input limit ({self.max_bytes} bytes) was reached in this archive; "
                             "the rest was not read (raise it with --max-bytes)")
        except _Bomb as exc:
            self.bad(origin, str(exc))
        except (tarfile.TarError, OSError, EOFError, ValueError, RecursionError) as exc:
            self.bad(origin, f"cannot read archive: {exc}")
        for d in order:
            files = groups[d]
            where = f"{origin}:{d}" if d else origin
            if _is_snapshot_files(files, files.get("meta.json")):
                snap = {k: v for k, v in files.items() if k in KEYS}
                try:
                    rep = self.pipeline().report(SnapshotSource(snap, description=where))  # type: ignore[arg-type]
                except Exception as exc:  # noqa: BLE001 - one bad node never stops the summary
                    self.bad(where, f"unreadable snapshot: {exc}")
                    continue
                if not rep.get("hostname"):
                    rep["hostname"] = default_name(d or origin)
                self.add(rep, where)
                continue
            for base in sorted(files):
                if base.endswith(REPORT_EXTS):
                    self.read_stream(bytes_reader(files[base]), f"{origin}:{os.path.join(d, base)}")


def _decode_one(decoder: json.JSONDecoder, buf: str, pos: int) -> Tuple[int, Any, Optional[str]]:
    """(end, value, None) for the document at ``pos``; (pos, None, "incomplete") when the text so far
    is a valid prefix; (pos, None, reason) when it is malformed or nested too deeply."""
    try:
        doc, end = decoder.raw_decode(buf, pos)
    except RecursionError:
        return pos, None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    except ValueError as exc:
        msg = str(exc).split(":", 1)[0]
        at = getattr(exc, "pos", pos)
        if msg.startswith("Unterminated string") or (isinstance(at, int) and _TAIL_TOKEN.fullmatch(buf, at)):
            return pos, None, "incomplete"
        return pos, None, f"malformed JSON ({getattr(exc, 'msg', exc)})"
    # deeper than a report nests (but within the decoder's guard): refused before anything walks it;
    # the full count only when there are enough brackets to nest that deep at all
    if isinstance(doc, (dict, list)) and buf.count("[", pos, end) + buf.count("{", pos, end) > MAX_JSON_DEPTH \
            and nesting_depth(buf[pos:end]) > MAX_JSON_DEPTH:
        return end, None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    return end, doc, None


def bytes_reader(data: bytes) -> Callable[[int], bytes]:
    """A ``read(n)`` over ``data``."""
    view = memoryview(data)
    at = 0

    def read(n: int) -> bytes:
        nonlocal at
        chunk = bytes(view[at:at + n])
        at += len(chunk)
        return chunk

    return read


def describe(exc: BaseException) -> str:
    if isinstance(exc, PermissionError):
        return "cannot read: permission denied"
    if isinstance(exc, FileNotFoundError):
        return "no such file or folder"
    if isinstance(exc, OSError):
        if exc.errno == errno.ELOOP:
            return "a symbolic link (a loop, or not followed here)"
        return exc.strerror or str(exc)
    return str(exc)


class _NotRegular(OSError):
    pass


def open_regular(path: str, *, follow: bool) -> int:
    """A read-only descriptor of the regular file ``path``: ``O_NONBLOCK`` (a FIFO swapped in never
    blocks), ``O_NOFOLLOW`` unless ``follow``, checked again with ``fstat`` after the open."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _NotRegular(errno.EINVAL, f"is {file_kind(st.st_mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_archive(fh: IO[bytes]) -> bool:
    """gzip magic or a POSIX/GNU tar header (``ustar`` at offset 257); the file position is kept."""
    try:
        head = os.pread(fh.fileno(), 265, 0)
    except (OSError, AttributeError):
        return False
    return head[:2] == b"\x1f\x8b" or head[257:262] == b"ustar"


def _is_snapshot_files(names: Any, meta: Optional[bytes]) -> bool:
    names = set(names)
    if meta is not None and len(meta) <= 65536:
        text = meta.decode("utf-8", errors="replace")
        m = None
        if nesting_depth(text) <= MAX_JSON_DEPTH:
            try:
                m = json.loads(text)
            except ValueError:
                m = None
        if isinstance(m, dict) and isinstance(m.get("schema"), str) and m["schema"].startswith("envcheck/snapshot"):
            return True
    return any(k in names for k in _SNAPSHOT_TEXT_KEYS)


def _dir_is_snapshot(path: str, names: List[str]) -> bool:
    meta = None
    if "meta.json" in names:
        try:
            fd = open_regular(os.path.join(path, "meta.json"), follow=False)
            with os.fdopen(fd, "rb", buffering=0) as fh:
                meta = fh.read(65536)
        except OSError:
            meta = None
    return _is_snapshot_files(names, meta)


class _Pipeline:
    """Turns snapshots into reports with envcheck's own pipeline (the matrix is loaded once)."""

    def __init__(self) -> None:
        self._matrix: Any = None

    def report(self, source: Any) -> Dict[str, Any]:
        from envcheck.checks.pipeline import build_status
        from envcheck.matrix import load_matrix

        if self._matrix is None:
            self._matrix = load_matrix()
        return dict(build_status(source, self._matrix).document)


def read_inputs(paths: List[str], stdin: Optional[IO[bytes]] = None, *, max_bytes: int = MAX_TOTAL_BYTES,
                stdin_text: Optional[str] = None) -> Inputs:
    """Read every report behind ``paths`` (``-`` is ``stdin``, a binary stream, or ``stdin_text``)."""
    r = Reader(max_bytes=max_bytes)
    for p in paths:
        if p == "-":
            if stdin_text is not None:
                r.read_stream(bytes_reader(stdin_text.encode("utf-8", "surrogateescape")), "stdin")
            elif stdin is not None:
                reader = getattr(stdin, "read1", None) or stdin.read
                r.read_stream(reader, "stdin")
            else:
                r.bad("stdin", "no input")
        else:
            r.read_path(p)
    return r.out
