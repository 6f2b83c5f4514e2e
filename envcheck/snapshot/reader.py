"""Where raw captures come from: the live machine or a snapshot (contract §1).

A *key* is a snapshot file name; a source maps each key to a :class:`Capture` whose text is
exactly the file's content. Live probing and replay therefore share every parser.
"""

from __future__ import annotations

import errno
import os
from typing import Any, Dict, Optional, Tuple

from envcheck.errors import SnapshotError
from envcheck.capture import LAST_LINE_CUT
from envcheck.parse.captures import cut_last_line, load_json, load_json_object, strip_controls, strip_runner_prefix
from envcheck.proc import NOT_FOUND, OK, UNREADABLE, Capture

__all__ = ["KEYS", "CONTRACT_KEYS", "VENDOR_KEYS", "OTHER_VENDOR_TOOL_KEYS", "KFD_KEYS", "READ_ONLY_KEYS", "Source", "SnapshotSource", "open_snapshot", "SNAPSHOT_SCHEMA"]

SNAPSHOT_SCHEMA = "envcheck/snapshot/1"

#: Files of contract §1, in the order they are described there.
CONTRACT_KEYS = (
    "meta.json", "nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt",
    "sys-module-nvidia-version.txt", "proc-version.txt", "libcuda.json", "nvml.json", "nvcc.txt",
    "cuda-version.json", "cuda-version.txt", "ldconfig.txt", "cudnn_version.h", "libraries.txt",
    "environ.json", "python.json", "packages.json", "torch.json", "tensorflow.json", "os-release.txt",
)
#: envcheck's own additions (optional like all others): Requires-Dist of the framework
#: distributions, container hints, and how each capture went (not found / failed / timed out).
EXTRA_KEYS = ("requires.json", "container.json", "captures.json")
#: KFD topology nodes copied into ``kfd-topology/N/{name,properties}`` (contract §9); at most this many nodes
KFD_NODES = 32
KFD_KEYS = tuple(f"kfd-topology/{n}/{f}" for n in range(KFD_NODES) for f in ("name", "properties"))
#: Files of contract §9 (AMD ROCm, Intel XPU, Apple MPS, NVIDIA Jetson), every one optional.
VENDOR_KEYS = (
    "rocm-smi.txt", "rocm-smi-product.txt", "rocm-smi-driver.txt", "rocm-smi.json", "amd-smi.txt", "amd-smi-version.txt",
    "amd-smi-version.json", "amd-smi-list.txt", "amd-smi-list.json", "amd-smi-static.txt", "amd-smi-static.json",
    "rocminfo.txt", "rocm-agent-enumerator.txt", "hipconfig.txt", "hipinfo.txt", "rocm-version.txt",
    "sys-module-amdgpu-version.txt", "devices.json", "pci-gpus.json", "xpu-smi-discovery.txt", "sycl-ls.txt",
    "clinfo.txt", "sw-vers.txt", "system-profiler-displays.txt", "system-profiler-displays.json",
    "tegra-release.txt", "jetson-release.txt",
) + KFD_KEYS
KEYS = CONTRACT_KEYS + EXTRA_KEYS + VENDOR_KEYS
#: files read where a snapshot holds them but that ``envcheck snapshot`` does not write: their absence is never
#: "not captured". None since amd-smi's default view (``amd-smi.txt``) and hipInfo (``hipinfo.txt``) are captured too
#: (contract §9); kept for the readers that exclude them
READ_ONLY_KEYS: Tuple[str, ...] = ()
#: the §9 tool outputs only an AMD / Intel / Apple machine has (clinfo lists NVIDIA's OpenCL too; device nodes, PCI
#: devices and the KFD topology are facts of any machine; the Tegra files are NVIDIA's)
#: (a read-only key is never "not captured", so whether it was there is not known from a report)
OTHER_VENDOR_TOOL_KEYS = tuple(k for k in VENDOR_KEYS if k not in (
    "clinfo.txt", "devices.json", "pci-gpus.json", "tegra-release.txt", "jetson-release.txt") and k not in KFD_KEYS
    and k not in READ_ONLY_KEYS)

#: keys ``envcheck snapshot`` began to write later (vendors21l) -> an older key behind the same gate (the AMD tools run
#: only where the amdgpu module or /dev/kfd exists): an older snapshot's record of the one stands for the other
_SAME_GATE = {"amd-smi.txt": "amd-smi-static.txt", "hipinfo.txt": "hipconfig.txt"}

_MAX_FILE = 16 * 1024 * 1024
#: All files of one snapshot together, and all bytes an archive may unpack to (headers and skipped
#: members included): a gzip of zeros cannot make envcheck decompress gigabytes.
MAX_TOTAL = 48 * 1024 * 1024
MAX_UNPACKED = 64 * 1024 * 1024
MAX_MEMBERS = 4096
#: Per-file limits (bytes, lines), far above any real capture; a file over them is "unreadable" (the
#: report says so) rather than parsed at a cost of seconds and gigabytes.
_SMALL = (64 * 1024, 2000)
LIMITS: Dict[str, Tuple[Any, ...]] = {
    "meta.json": _SMALL, "proc-driver-version.txt": _SMALL, "sys-module-nvidia-version.txt": _SMALL,
    "proc-version.txt": _SMALL, "libcuda.json": _SMALL, "nvcc.txt": _SMALL, "cuda-version.txt": _SMALL,
    "python.json": _SMALL, "os-release.txt": _SMALL, "container.json": _SMALL, "tegra-release.txt": _SMALL,
    "nvidia-smi.txt": (2 * 1024 * 1024, 20000), "nvidia-smi-query.csv": (256 * 1024, 1025),
    "nvml.json": (1024 * 1024, 20000), "cuda-version.json": (1024 * 1024, 50000),
    "cudnn_version.h": (1024 * 1024, 20000), "ldconfig.txt": (4 * 1024 * 1024, 20000),
    "libraries.txt": (1024 * 1024, 5000), "environ.json": (4 * 1024 * 1024, 100000),
    "packages.json": (4 * 1024 * 1024, 100000), "torch.json": (1024 * 1024, 50000),
    "tensorflow.json": (1024 * 1024, 50000), "requires.json": (4 * 1024 * 1024, 100000),
    "captures.json": (1024 * 1024, 50000),
}


def _over_limit(key: str, data: bytes) -> Optional[str]:
    """Why ``data`` is too much for ``key`` (bytes or lines), else ``None``."""
    max_bytes, max_lines = LIMITS.get(key, (_MAX_FILE, 100000))
    if len(data) > max_bytes:
        return f"{key}: larger than {max_bytes} bytes, far more than a real capture; not read"
    if data.count(b"\n", 0, max_bytes) > max_lines:
        return f"{key}: more than {max_lines} lines, far more than a real capture; not read"
    return None


class Source:
    """A mapping from snapshot key to :class:`Capture`."""

    live = False
    description = ""

    def get(self, key: str) -> Capture:  # pragma: no cover - interface
        raise NotImplementedError

    def text(self, key: str) -> Optional[str]:
        c = self.get(key)
        return c.text if c.has_text else None

    def all(self) -> Dict[str, Capture]:
        return {k: self.get(k) for k in KEYS}


class SnapshotSource(Source):
    """Replays a snapshot directory or ``.tar.gz``: reads only those files, nothing live."""

    def __init__(self, files: Dict[str, Optional[bytes]], description: str):
        self._files = files
        self.description = description
        self._captures: Dict[str, Dict[str, Any]] = {}
        raw = files.get("captures.json")
        if raw and not _over_limit("captures.json", raw):
            data = load_json_object(raw.decode("utf-8", errors="replace"))
            if data:
                self._captures = {k: v for k, v in data.items() if isinstance(v, dict)}

    def _gate_skipped(self, key: str) -> bool:
        """``key`` is one an older ``envcheck snapshot`` did not know (no captures.json entry), run behind the same
        gate as a tool that snapshot recorded as skipped for want of amdgpu and /dev/kfd: it would have been skipped
        too (on Linux; hipInfo on Windows has no such gate, so a Windows snapshot says nothing of it)."""
        sibling = _SAME_GATE.get(key)
        info = self._captures.get(sibling or "", {})
        detail = info.get("detail")
        if not (isinstance(detail, str) and info.get("status") == NOT_FOUND and "skipped, no amdgpu" in detail):
            return False
        py = load_json_object((self._files.get("python.json") or b"").decode("utf-8", errors="replace")) or {}
        return key != "hipinfo.txt" or py.get("platform") not in ("win32", "cygwin", None)

    def get(self, key: str) -> Capture:
        data = self._files.get(key)
        info = self._captures.get(key, {})
        # where the capture came from on the original machine (nvcc's path names the toolkit root)
        o, st, de = info.get("origin"), info.get("status"), info.get("detail")
        origin: str = o if isinstance(o, str) else f"{self.description}/{key}"
        status: Optional[str] = st if isinstance(st, str) else None
        detail: str = de if isinstance(de, str) else ""
        if data is None:
            if status in ("timed-out", "unreadable", "not-found", "failed"):
                return Capture(status, detail=detail or f"{key}: {status} when the snapshot was taken",
                               origin=origin)
            if self._captures and key in KFD_KEYS:
                return Capture(NOT_FOUND, detail=f"{key}: not in the snapshot", origin=origin)
            if self._captures and key not in self._captures and self._gate_skipped(key):
                return Capture(NOT_FOUND, detail=f"{key}: skipped, no amdgpu kernel module and no /dev/kfd (as "
                               f"{_SAME_GATE[key]} in this snapshot)", origin=origin)
            # neither the file nor a captures.json entry: a snapshot made by hand (or by an envcheck that did
            # not know this file) never looked for it, so what it would say is unknown (contract §1)
            return Capture(NOT_FOUND, detail=f"{key}: not captured (not in the snapshot)", origin=origin,
                           captured=False)
        too_much = _over_limit(key, data)
        if too_much:
            return Capture(UNREADABLE, detail=too_much, origin=origin)
        text = _decode(data)
        if not key.endswith(".json"):  # colour codes, NULs: no value of a capture holds one
            text = strip_controls(text)
        if key.endswith(".txt"):  # a tool's output pasted from a cluster runner: the label on every line dropped
            text = strip_runner_prefix(text)
        if not key.endswith(".json"):  # a text cut inside its last line: that line's value may be cut short
            text, cut = cut_last_line(text)
            if cut is not None and status != "failed":
                detail = (f"{key} {LAST_LINE_CUT} (no line break after {cut.strip()[-80:]!r}: the text was cut there); "
                          "that line was not read, and a list it ends is not taken as whole")
        if status == "failed":
            return Capture("failed", text=text, detail=detail, origin=origin)
        return Capture(OK, text=text, detail=detail, origin=origin)


def _decode(data: bytes) -> str:
    """A capture's text: UTF-8, or UTF-16 where a byte order mark says so (Windows PowerShell's `>` and
    `Out-File` write UTF-16LE with one); a UTF-8 BOM (`Out-File -Encoding utf8`, Notepad) is dropped."""
    import codecs

    if data.startswith(codecs.BOM_UTF16_LE) or data.startswith(codecs.BOM_UTF16_BE):
        return data.decode("utf-16", errors="replace")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode("utf-8", errors="replace")


def _read_dir(path: str) -> Dict[str, Optional[bytes]]:
    """The snapshot files of folder ``path``: only regular files, never a link, a FIFO or a device
    (each refused with a clear message), each at most ``_MAX_FILE`` bytes, all at most ``MAX_TOTAL``."""
    from envcheck.safe_io import describe_error, read_bytes

    try:
        dfd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot folder {path!r}: {describe_error(exc)}") from exc
    files: Dict[str, Optional[bytes]] = {}
    total = 0
    subdirs: Dict[str, Optional[int]] = {}
    try:
        for key in KEYS:
            p = os.path.join(path, key)
            try:
                folder, _, name = key.rpartition("/")
                fd = _subdir(dfd, folder, subdirs, path) if folder else dfd
                if fd is None:
                    continue
                data = read_bytes(name, _MAX_FILE, follow=False, dir_fd=fd)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise SnapshotError(f"cannot read snapshot file {p!r}: {describe_error(exc)}") from exc
            total += len(data)
            if total > MAX_TOTAL:
                raise SnapshotError(f"snapshot {path!r} holds more than {MAX_TOTAL} bytes; not a real snapshot")
            files[key] = data
    finally:
        for fd in subdirs.values():
            if fd is not None:
                os.close(fd)
        os.close(dfd)
    return files


def _subdir(dfd: int, folder: str, opened: Dict[str, Optional[int]], path: str) -> Optional[int]:
    """A descriptor of the snapshot's sub-folder ``folder`` (``kfd-topology/3``), each component opened
    with ``O_NOFOLLOW`` relative to its parent: a link anywhere on the way (``kfd-topology -> /sys/...``)
    is refused, so nothing outside the snapshot folder is ever read. ``None``: the folder is missing."""
    if folder in opened:
        return opened[folder]
    parent, _, name = folder.rpartition("/")
    pfd = _subdir(dfd, parent, opened, path) if parent else dfd
    fd: Optional[int] = None
    if pfd is not None:
        flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(name, flags, dir_fd=pfd)
        except FileNotFoundError:
            fd = None
        except OSError as exc:
            if os.path.islink(os.path.join(path, folder)):
                raise SnapshotError(f"snapshot folder {os.path.join(path, folder)!r} is a symbolic link; "
                                    "not following it out of the snapshot") from exc
            if exc.errno == errno.ENOTDIR:
                raise SnapshotError(f"{os.path.join(path, folder)!r} is not a folder") from exc
            raise SnapshotError(f"cannot read snapshot folder {os.path.join(path, folder)!r}: {exc.strerror}") from exc
    opened[folder] = fd
    return fd


class _Budget:
    """A read-only stream that raises :class:`SnapshotError` once more than ``limit`` bytes came out."""

    def __init__(self, raw: Any, limit: int, what: str) -> None:
        self.raw, self.limit, self.what, self.used = raw, limit, what, 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.limit + 1 - self.used
        data: bytes = self.raw.read(max(0, min(n, self.limit + 1 - self.used)))
        self.used += len(data)
        if self.used > self.limit:
            raise SnapshotError(f"{self.what} unpacks to more than {self.limit} bytes; not a real snapshot")
        return data


def _decompressor(fh: Any, path: str) -> Any:
    import bz2
    import gzip
    import lzma

    magic = fh.read(6)
    fh.seek(0)
    if magic[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=fh, mode="rb")
    if magic[:3] == b"BZh":
        return bz2.BZ2File(fh, mode="rb")
    if magic == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(fh, mode="rb")
    return fh


def _member_folder(name: str, base: str) -> str:
    """The folder of archive member ``name`` holding snapshot file ``base`` (``./`` and repeated ``/`` dropped)."""
    folder = name[: len(name) - len(base)] if name.endswith(base) else os.path.dirname(name)
    parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _shown(folder: str) -> str:
    return repr(folder + "/") if folder else "its top level"


def _read_tar(path: str) -> Dict[str, Optional[bytes]]:
    """The snapshot files of an archive, read as a stream: at most ``MAX_UNPACKED`` bytes are ever
    decompressed, at most ``MAX_MEMBERS`` members looked at, each kept file at most ``_MAX_FILE``."""
    import tarfile
    import zlib

    from envcheck.safe_io import describe_error, read_bytes

    try:
        read_bytes(path, 0)  # a regular file (not a FIFO swapped in), readable
        fh = open(path, "rb")
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot archive {path!r}: {describe_error(exc)}") from exc
    files: Dict[str, Optional[bytes]] = {}
    total = 0
    root: Optional[str] = None
    try:
        stream = _Budget(_decompressor(fh, path), MAX_UNPACKED, repr(path))
        with tarfile.open(fileobj=stream, mode="r|") as tf:  # type: ignore[call-overload]
            for n, member in enumerate(tf):
                if n >= MAX_MEMBERS:
                    raise SnapshotError(f"{path!r} has more than {MAX_MEMBERS} members; not a real snapshot")
                tf.members = []  # a stream needs no index: keep memory flat
                if not member.isfile():
                    continue
                base = os.path.basename(member.name)
                kfd = member.name.find("kfd-topology/")
                if kfd >= 0 and member.name[kfd:] in KFD_KEYS:
                    base = member.name[kfd:]
                if base not in KEYS:
                    continue
                # the folder the file lies in: one snapshot's files share it. An archive of several snapshots
                # (`tar czf all.tar.gz node1/ node2/`) is refused, never merged into one machine
                folder = _member_folder(member.name, base)
                if root is None:
                    root = folder
                elif folder != root:
                    raise SnapshotError(f"{path!r} holds more than one snapshot ({_shown(root)} and {_shown(folder)}):"
                                        " give one of them (unpack the archive and pass a folder)")
                if base in files:
                    raise SnapshotError(f"{path!r} holds {base} twice in {_shown(root)}; not a snapshot envcheck wrote")
                if member.size > _MAX_FILE:
                    raise SnapshotError(f"{path!r}: member {member.name!r} is larger than {_MAX_FILE} bytes")
                total += member.size
                if total > MAX_TOTAL:
                    raise SnapshotError(f"{path!r} holds more than {MAX_TOTAL} bytes of snapshot files")
                member_fh = tf.extractfile(member)
                if member_fh is not None:
                    files[base] = member_fh.read(_MAX_FILE + 1)
    except (tarfile.TarError, OSError, EOFError, ValueError, zlib.error) as exc:
        # a text file given as a snapshot is most often a pasted report (collect_env, nvidia-smi, pip list)
        raise SnapshotError(f"cannot read snapshot archive {path!r}: {exc} (a snapshot is a folder or a .tar.gz of "
                            "one; a pasted report - collect_env, nvidia-smi, pip list - is read by `envcheck explain "
                            "FILE`)") from exc
    finally:
        fh.close()
    return files


def open_snapshot(path: str) -> SnapshotSource:
    """Open a snapshot directory or archive; :class:`SnapshotError` (exit 2) when unusable."""
    if os.path.isdir(path):
        files = _read_dir(path)
    elif os.path.isfile(path):
        files = _read_tar(path)
    elif os.path.lexists(path):
        raise SnapshotError(f"snapshot {path!r} is neither a directory nor a file")
    else:
        raise SnapshotError(f"snapshot {path!r} does not exist")
    if not files:
        raise SnapshotError(f"{path!r} holds none of the snapshot files (meta.json, nvidia-smi.txt, ...)")
    meta = files.get("meta.json")
    if meta is not None:
        if _over_limit("meta.json", meta):
            raise SnapshotError(f"{path!r}: meta.json is far larger than a real one")
        m = load_json(meta.decode("utf-8", errors="replace"))
        if m is None:
            raise SnapshotError(f"{path!r}: meta.json is not valid JSON (or is nested too deeply)")
        schema = m.get("schema") if isinstance(m, dict) else None
        if isinstance(schema, str) and schema.split("/")[:2] != ["envcheck", "snapshot"]:
            raise SnapshotError(f"{path!r}: meta.json has an unknown schema {schema!r}")
    return SnapshotSource(files, description=path)
