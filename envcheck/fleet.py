"""Summarize many status reports (contract §7): group nodes by stack fingerprint, list what differs
and which nodes fail. Pure functions; reading inputs never raises on bad data (it is listed in
``unreadable`` with a reason).

Inputs: report files (``envcheck status --json``: one JSON document, or JSON lines), folders
(searched recursively for ``*.json``; a folder holding a snapshot's ``meta.json`` is a snapshot),
``-`` (JSON lines on stdin), ``.tar`` / ``.tar.gz`` / ``.tgz`` archives of reports or of snapshot
folders. A snapshot becomes a report through envcheck's own pipeline (``open_snapshot`` ->
``collect`` -> ``run_checks`` -> ``build_report``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tarfile
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

__all__ = ["FLEET_SCHEMA", "Node", "Inputs", "read_inputs", "read_jsonl", "summarize", "fingerprint_fields",
           "compact_hostlist", "natural_key", "exit_status"]

FLEET_SCHEMA = "envcheck/fleet/1"
MAX_REPORT_BYTES = 16 * 1024 * 1024
_REPORT_SCHEMA_PREFIX = "envcheck/report/"
#: snapshot files that are not JSON: their presence marks a folder as a snapshot
_SNAPSHOT_TEXT_KEYS = ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "nvcc.txt",
                       "ldconfig.txt", "sys-module-nvidia-version.txt", "libraries.txt")


@dataclass
class Node:
    name: str  # the report's hostname, else the file name
    report: Dict[str, Any]
    origin: str  # where it was read


@dataclass
class Inputs:
    nodes: List[Node] = field(default_factory=list)
    unreadable: List[Tuple[str, str]] = field(default_factory=list)  # (name, reason)


# -- reading ----------------------------------------------------------------------------------

def _validate(doc: Any) -> Optional[str]:
    """Why ``doc`` is not a status report (``None`` when it is one)."""
    if not isinstance(doc, dict):
        return f"not a JSON object (a {type(doc).__name__})"
    schema = doc.get("schema")
    if not isinstance(schema, str) or not schema.startswith(_REPORT_SCHEMA_PREFIX):
        return f"not an envcheck status report (schema {schema!r})"
    if not isinstance(doc.get("ok"), bool):
        return "the report has no boolean 'ok'"
    return None


def _default_name(origin: str) -> str:
    base = os.path.basename(origin.rstrip("/")) or origin
    for ext in (".json", ".jsonl"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def _add(out: Inputs, doc: Any, origin: str) -> None:
    why = _validate(doc)
    if why:
        out.unreadable.append((origin, why))
        return
    host = doc.get("hostname")
    name = host if isinstance(host, str) and host.strip() else _default_name(origin)
    out.nodes.append(Node(name.strip(), doc, origin))


def _decode(data: bytes, origin: str) -> Tuple[Optional[str], Optional[str]]:
    if not data.strip():
        return None, "empty file"
    if b"\0" in data[:8192]:
        return None, "binary data, not JSON"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"


def _json_error(exc: ValueError, text: str = "") -> str:
    msg = str(exc)
    pos = getattr(exc, "pos", None)
    if msg.startswith("Unterminated") or (isinstance(pos, int) and text and pos >= len(text.rstrip()) - 1):
        return f"truncated JSON ({msg})"
    return f"malformed JSON ({msg})"


def read_jsonl(text: str, origin: str, out: Inputs) -> None:
    """One report per line (blank lines skipped); a whole pretty-printed document is accepted too."""
    stripped = text.strip()
    if not stripped:
        out.unreadable.append((origin, "no input"))
        return
    if stripped[0] in "{[":
        try:
            doc = json.loads(stripped)
        except ValueError:
            doc = None
        else:
            for i, d in enumerate(doc if isinstance(doc, list) else [doc]):
                _add(out, d, origin if not isinstance(doc, list) else f"{origin}[{i}]")
            return
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except ValueError as exc:
            out.unreadable.append((f"{origin}:{no}", _json_error(exc, line)))
            continue
        _add(out, d, f"{origin}:{no}")


def _read_report_bytes(data: bytes, origin: str, out: Inputs) -> None:
    text, why = _decode(data, origin)
    if text is None:
        out.unreadable.append((origin, why or "unreadable"))
        return
    try:
        doc = json.loads(text)
    except ValueError as exc:
        # JSON lines? Only when the first line is a whole object by itself.
        first = next((ln for ln in text.splitlines() if ln.strip()), "")
        try:
            json.loads(first)
        except ValueError:
            out.unreadable.append((origin, _json_error(exc, text)))
            return
        read_jsonl(text, origin, out)
        return
    _add(out, doc, origin)


def _read_file(path: str, origin: str, out: Inputs) -> None:
    try:
        size = os.path.getsize(path)
        if size > MAX_REPORT_BYTES:
            out.unreadable.append((origin, f"larger than {MAX_REPORT_BYTES} bytes"))
            return
        with open(path, "rb") as fh:
            data = fh.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        out.unreadable.append((origin, f"cannot read: {exc.strerror or exc}"))
        return
    _read_report_bytes(data, origin, out)


def _is_snapshot_files(names: Iterable[str], meta: Optional[bytes]) -> bool:
    names = set(names)
    if meta is not None:
        try:
            m = json.loads(meta.decode("utf-8", errors="replace"))
        except ValueError:
            m = None
        if isinstance(m, dict) and isinstance(m.get("schema"), str) and m["schema"].startswith("envcheck/snapshot"):
            return True
    return any(k in names for k in _SNAPSHOT_TEXT_KEYS)


class _Pipeline:
    """Turns snapshots into reports with envcheck's own pipeline (the matrix is loaded once)."""

    def __init__(self) -> None:
        self._matrix = None

    def report(self, source) -> Dict[str, Any]:
        from envcheck.checks import Context, run_checks
        from envcheck.environment import collect
        from envcheck.matrix import load_matrix
        from envcheck.render.report import build_report

        if self._matrix is None:
            self._matrix = load_matrix()
        env = collect(source, self._matrix)
        findings = run_checks(env, self._matrix, Context())
        return build_report(env, findings, matrix_origin=self._matrix.origin)


def _snapshot_dir(path: str, origin: str, out: Inputs, pipe: _Pipeline) -> None:
    from envcheck.errors import EnvcheckError
    from envcheck.snapshot import open_snapshot

    try:
        rep = pipe.report(open_snapshot(path))
    except EnvcheckError as exc:
        out.unreadable.append((origin, f"unreadable snapshot: {exc}"))
        return
    if not rep.get("hostname"):
        rep["hostname"] = _default_name(origin)
    _add(out, rep, origin)


def _dir_is_snapshot(path: str, names: List[str]) -> bool:
    meta = None
    if "meta.json" in names:
        try:
            with open(os.path.join(path, "meta.json"), "rb") as fh:
                meta = fh.read(65536)
        except OSError:
            meta = None
    return _is_snapshot_files(names, meta)


def _walk(path: str, origin: str, out: Inputs, pipe: _Pipeline) -> None:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as exc:
        out.unreadable.append((origin, f"cannot list folder: {exc.strerror or exc}"))
        return
    names = [e.name for e in entries]
    if _dir_is_snapshot(path, names):
        _snapshot_dir(path, origin, out, pipe)
        return
    for e in entries:
        sub = origin.rstrip("/") + "/" + e.name
        try:
            is_dir = e.is_dir(follow_symlinks=False)
            is_file = e.is_file()
        except OSError:
            continue
        if is_dir:
            _walk(e.path, sub, out, pipe)
        elif is_file and e.name.endswith((".json", ".jsonl")):
            _read_file(e.path, sub, out)
        elif is_file and e.name.endswith((".tar", ".tar.gz", ".tgz")):
            _read_tar(e.path, sub, out, pipe)


def _read_tar(path: str, origin: str, out: Inputs, pipe: _Pipeline) -> None:
    from envcheck.snapshot import KEYS, SnapshotSource

    groups: Dict[str, Dict[str, bytes]] = {}
    order: List[str] = []
    try:
        with tarfile.open(path, "r:*") as tf:
            for m in tf:
                if not m.isfile():
                    continue
                if m.size > MAX_REPORT_BYTES:
                    out.unreadable.append((f"{origin}:{m.name}", f"larger than {MAX_REPORT_BYTES} bytes"))
                    continue
                d, base = os.path.split(m.name)
                if not (base.endswith((".json", ".jsonl")) or base in KEYS):
                    continue
                fh = tf.extractfile(m)
                if fh is None:
                    continue
                if d not in groups:
                    groups[d] = {}
                    order.append(d)
                groups[d][base] = fh.read()
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        out.unreadable.append((origin, f"cannot read archive: {exc}"))
        return
    for d in order:
        files = groups[d]
        where = f"{origin}:{d}" if d else origin
        if _is_snapshot_files(files, files.get("meta.json")):
            snap = {k: v for k, v in files.items() if k in KEYS}
            try:
                rep = pipe.report(SnapshotSource(snap, description=where))  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001 - one bad node never stops the summary
                out.unreadable.append((where, f"unreadable snapshot: {exc}"))
                continue
            if not rep.get("hostname"):
                rep["hostname"] = _default_name(d or origin)
            _add(out, rep, where)
            continue
        for base in sorted(files):
            _read_report_bytes(files[base], f"{origin}:{os.path.join(d, base)}", out)


def read_inputs(paths: List[str], stdin_text: Optional[str] = None) -> Inputs:
    """Read every report behind ``paths`` (``-`` means ``stdin_text``)."""
    out = Inputs()
    pipe = _Pipeline()
    for p in paths:
        if p == "-":
            read_jsonl(stdin_text or "", "stdin", out)
        elif os.path.isdir(p):
            before = len(out.nodes) + len(out.unreadable)
            _walk(p, p, out, pipe)
            if len(out.nodes) + len(out.unreadable) == before:
                out.unreadable.append((p, "folder holds no *.json report"))
        elif os.path.isfile(p):
            if p.endswith((".tar", ".tar.gz", ".tgz")) or tarfile.is_tarfile(p):
                _read_tar(p, p, out, pipe)
            else:
                _read_file(p, p, out)
        elif os.path.lexists(p):
            out.unreadable.append((p, "neither a file nor a folder"))
        else:
            out.unreadable.append((p, "no such file or folder"))
    return out


# -- summarizing ------------------------------------------------------------------------------

def _s(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _gpus_value(gpus: Any) -> str:
    if not isinstance(gpus, list) or not gpus:
        return "none"
    counts: Dict[str, int] = {}
    for g in gpus:
        name = _get(g, "name") if isinstance(g, dict) else None
        n = name if isinstance(name, str) else "unknown"
        counts[n] = counts.get(n, 0) + 1
    return ", ".join(f"{c}x {n}" for n, c in sorted(counts.items()))


def _cudnn_value(copies: Any) -> str:
    if not isinstance(copies, list) or not copies:
        return "none"
    vs = sorted({_s(_get(c, "version")) for c in copies if isinstance(c, dict)})
    return ", ".join(vs) if vs else "none"


def fingerprint_fields(rep: Dict[str, Any], frameworks: Iterable[str]) -> Dict[str, str]:
    """The stack of one node: the §2 fields compared across nodes, as strings (``null`` for unknown)."""
    f = {
        "driver.version": _s(_get(rep, "driver", "version")),
        "driver.cuda": _s(_get(rep, "driver", "cuda")),
        "gpus": _gpus_value(rep.get("gpus")),
        "toolkit.version": _s(_get(rep, "toolkit", "version")),
        "toolkit.nvcc": _s(_get(rep, "toolkit", "nvcc")),
        "cudnn": _cudnn_value(rep.get("cudnn")),
        "python.version": _s(_get(rep, "python", "version")),
    }
    fws = rep.get("frameworks") if isinstance(rep.get("frameworks"), dict) else {}
    for name in frameworks:
        fw = fws.get(name)
        for k in ("version", "cuda", "cudnn"):
            f[f"frameworks.{name}.{k}"] = _s(_get(fw, k)) if isinstance(fw, dict) else "absent"
    return f


def natural_key(name: str) -> Tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


_TAIL_NUM = re.compile(r"^(.*?)(\d+)$")


def compact_hostlist(names: Iterable[str]) -> str:
    """Slurm-style abbreviation: node01..node63 -> ``node[01-63]``; ``a1, a2, a4, b`` -> ``a[1-2,4],b``."""
    by_prefix: Dict[str, List[str]] = {}
    plain: List[str] = []
    for n in sorted(set(names), key=natural_key):
        m = _TAIL_NUM.match(n)
        if m:
            by_prefix.setdefault(m.group(1), []).append(m.group(2))
        else:
            plain.append(n)
    parts: List[Tuple[Tuple, str]] = []
    for prefix, nums in by_prefix.items():
        nums.sort(key=lambda s: (int(s), len(s)))
        ranges: List[List[str]] = []
        for s in nums:
            if ranges:
                last = ranges[-1][-1]
                same_width = len(s) == len(last) or not (s.startswith("0") or last.startswith("0"))
                if int(s) == int(last) + 1 and same_width:
                    ranges[-1].append(s)
                    continue
            ranges.append([s])
        if len(nums) == 1:
            parts.append((natural_key(prefix + nums[0]), prefix + nums[0]))
            continue
        body = ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in ranges)
        parts.append((natural_key(prefix + nums[0]), f"{prefix}[{body}]"))
    parts += [(natural_key(n), n) for n in plain]
    return ",".join(p for _, p in sorted(parts, key=lambda x: x[0]))


def _unique_names(nodes: List[Node]) -> List[str]:
    seen: Dict[str, int] = {}
    out = []
    for n in nodes:
        c = seen.get(n.name, 0) + 1
        seen[n.name] = c
        out.append(n.name if c == 1 else f"{n.name}#{c}")
    return out


def summarize(inputs: Inputs) -> Dict[str, Any]:
    """The fleet summary (contract §7 plus ``groups``, ``findings`` and reasons)."""
    names = _unique_names(inputs.nodes)
    frameworks = sorted({k for n in inputs.nodes for k in (n.report.get("frameworks") or {})
                         if isinstance(n.report.get("frameworks"), dict)})
    stacks = [fingerprint_fields(n.report, frameworks) for n in inputs.nodes]
    order = sorted(range(len(names)), key=lambda i: natural_key(names[i]))

    failing = [names[i] for i in order if inputs.nodes[i].report.get("ok") is False]
    fields: List[str] = list(stacks[0]) if stacks else []
    differences = []
    for fld in fields:
        values: Dict[str, List[str]] = {}
        for i in order:
            values.setdefault(stacks[i][fld], []).append(names[i])
        if len(values) > 1:
            ranked = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            differences.append({"field": fld, "values": dict(ranked),
                                "counts": {k: len(v) for k, v in ranked}})

    groups_map: Dict[Tuple, List[int]] = {}
    for i in order:
        key = tuple(stacks[i].items())
        groups_map.setdefault(key, []).append(i)
    groups = []
    for key, idx in sorted(groups_map.items(), key=lambda kv: (-len(kv[1]), natural_key(names[kv[1][0]]))):
        fp = dict(key)
        digest = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:10]
        members = [names[i] for i in idx]
        groups.append({"fingerprint_id": digest, "fingerprint": fp, "count": len(members), "nodes": members,
                       "nodes_compact": compact_hostlist(members),
                       "failing": [names[i] for i in idx if inputs.nodes[i].report.get("ok") is False]})

    by_finding: Dict[Tuple[str, str], List[str]] = {}
    for i in order:
        for f in inputs.nodes[i].report.get("findings") or []:
            if isinstance(f, dict) and isinstance(f.get("id"), str):
                by_finding.setdefault((f["id"], _s(f.get("severity"))), [])
                lst = by_finding[(f["id"], _s(f.get("severity")))]
                if not lst or lst[-1] != names[i]:
                    lst.append(names[i])
    sev_rank = {"error": 0, "warning": 1, "info": 2}
    findings = [{"id": fid, "severity": sev, "count": len(ns), "nodes": ns, "nodes_compact": compact_hostlist(ns)}
                for (fid, sev), ns in sorted(by_finding.items(), key=lambda kv: (sev_rank.get(kv[0][1], 3),
                                                                                  -len(kv[1]), kv[0][0]))]
    return {
        "schema": FLEET_SCHEMA,
        "nodes": len(names),
        "failing": failing,
        "unreadable": [u for u, _ in inputs.unreadable],
        "differences": differences,
        "groups": groups,
        "findings": findings,
        "unreadable_reasons": [{"input": u, "reason": why} for u, why in inputs.unreadable],
        # several reports named the same host (re-runs?): the later ones are named NAME#2, NAME#3, ...
        "duplicate_hostnames": sorted({n.name for n, u in zip(inputs.nodes, names) if u != n.name},
                                      key=natural_key),
    }


def exit_status(summary: Dict[str, Any]) -> int:
    """§7: 0 when no node fails and nothing differs, 1 otherwise, 2 when nothing could be read."""
    if summary["nodes"] == 0:
        return 2
    return 1 if summary["failing"] or summary["differences"] else 0
