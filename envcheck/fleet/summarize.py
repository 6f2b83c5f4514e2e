"""Summarize the reports of many nodes (contract §7): what differs, which nodes fail, which never
reported (``--expect``) or reported too long ago (``--max-age``), grouped by stack fingerprint with one
"fix first" line per group. Pure functions over :class:`envcheck.fleet.read.Inputs`.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any, Dict, Iterable, List, Optional, Tuple

from envcheck.errors import UsageError
from envcheck.fleet.read import Inputs, Node, is_future

__all__ = ["FLEET_SCHEMA", "summarize", "fingerprint_fields", "compact_hostlist", "expand_hostlist",
           "natural_key", "exit_status", "verdict_ok", "parse_age", "MAX_EXPECTED"]

FLEET_SCHEMA = "envcheck/fleet/1"
MAX_EXPECTED = 1_000_000
_SEV_RANK = {"error": 0, "warning": 1, "info": 2}


# -- --expect / --max-age ---------------------------------------------------------------------

def _split_top(text: str) -> List[str]:
    """Split on commas (and blanks) outside brackets: ``a[1-3,5],b07`` -> ``["a[1-3,5]", "b07"]``."""
    parts: List[str] = []
    cur: List[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise UsageError(f"--expect: nested brackets in {text!r}")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise UsageError(f"--expect: ']' without '[' in {text!r}")
        if (ch == "," or ch.isspace()) and depth == 0:  # Slurm also separates by blanks
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise UsageError(f"--expect: '[' without ']' in {text!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
_NAME_CHARS = re.compile(r"^[A-Za-z0-9._\-\[\],]*$")


def _expand_one(pattern: str, budget: int) -> List[str]:
    out = [""]
    for m in re.finditer(r"\[([^\]]*)\]|([^\[]+)", pattern):
        if m.group(2) is not None:
            out = [o + m.group(2) for o in out]
            continue
        items: List[str] = []
        for part in m.group(1).split(","):
            r = _RANGE.match(part.strip())
            if not r:
                raise UsageError(f"--expect: {part!r} in {pattern!r} is not a number or a range like 01-64")
            lo, hi = r.group(1), r.group(2) if r.group(2) is not None else r.group(1)
            if int(hi) < int(lo):
                raise UsageError(f"--expect: the range {part!r} in {pattern!r} runs backwards")
            if int(hi) - int(lo) + 1 > budget:
                raise UsageError(f"--expect: more than {MAX_EXPECTED} node names")
            width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
            items += [str(i).zfill(width) for i in range(int(lo), int(hi) + 1)]
        if len(out) * len(items) > budget:
            raise UsageError(f"--expect: more than {MAX_EXPECTED} node names")
        out = [o + i for o in out for i in items]
    return out


def expand_hostlist(text: str) -> List[str]:
    """A Slurm-style host list as names: ``node[01-64]``, ``a[1-3,5],b07``, ``r[1-2]-n[01-02]``
    (as ``scontrol show hostnames`` prints them; zero padding follows the range's lower bound).
    :class:`UsageError` (exit 2) for malformed lists or more than :data:`MAX_EXPECTED` names."""
    if not _NAME_CHARS.match(re.sub(r"\s", "", text)):
        bad = sorted({c for c in text if not _NAME_CHARS.match(c)})
        raise UsageError(f"--expect: {text!r} holds characters a host list cannot ({''.join(bad)!r})")
    names: List[str] = []
    seen = set()
    for part in _split_top(text):
        for n in _expand_one(part, MAX_EXPECTED - len(names)):
            if n not in seen:
                seen.add(n)
                names.append(n)
    return names


_AGE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw]?)", re.I)
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_age(text: str) -> float:
    """``90m``, ``2h``, ``1d``, ``1h30m``, ``3600`` (seconds) -> seconds; :class:`UsageError` otherwise."""
    t = text.strip().lower()
    pos, total, parts = 0, 0.0, 0
    while pos < len(t):
        m = _AGE.match(t, pos)
        if not m or m.end() == pos:
            raise UsageError(f"--max-age: {text!r} is not a duration (e.g. 3600, 90m, 2h, 1d)")
        total += float(m.group(1)) * _UNIT[m.group(2)]
        parts += 1
        pos = m.end()
        while pos < len(t) and t[pos] == " ":
            pos += 1
    if parts == 0 or total <= 0 or total > 10 * 365 * 86400:
        raise UsageError(f"--max-age: {text!r} is not a duration between 1 second and 10 years")
    return total


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
    if gpus is None:  # contract §2: no GPU listing was captured (unknown), not "none"
        return "null"
    if not isinstance(gpus, list) or not gpus:
        return "none"
    counts: Dict[str, int] = {}
    for g in gpus:
        name = _get(g, "name") if isinstance(g, dict) else None
        gfx = _get(g, "gfx") if isinstance(g, dict) else None  # contract §9: an AMD GPU is told by its target
        n = name if isinstance(name, str) else gfx if isinstance(gfx, str) else "unknown"
        counts[n] = counts.get(n, 0) + 1
    return ", ".join(f"{c}x {n}" for n, c in sorted(counts.items()))


def _cudnn_value(copies: Any) -> str:
    if copies is None:  # no library scan was captured (fleet.read.compact): unknown, not "none"
        return "null"
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
    for key in ("version", "amdgpu"):  # contract §9: an AMD node's user space and kernel driver
        f[f"rocm.{key}"] = _s(_get(rep, "rocm", key))
    raw = rep.get("frameworks")
    fws: Dict[str, Any] = raw if isinstance(raw, dict) else {}
    for name in frameworks:
        fw = fws.get(name)
        for k in ("version", "cuda", "cudnn"):
            f[f"frameworks.{name}.{k}"] = _s(_get(fw, k)) if isinstance(fw, dict) else "absent"
    return f


def natural_key(name: str) -> Tuple[Any, ...]:
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
    parts: List[Tuple[Tuple[Any, ...], str]] = []
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


def _fix_first(idx: List[int], nodes: List[Node], names: List[str]) -> Optional[Dict[str, Any]]:
    """The finding to fix first in a group: the most severe, then the one on most of its nodes, then
    the first reported; with its fix and the nodes it concerns."""
    seen: Dict[Tuple[str, str], Dict[str, Any]] = {}
    order = 0
    for i in idx:
        for f in nodes[i].report["findings"]:
            key = (f["id"], f["severity"])
            e = seen.get(key)
            if e is None:
                e = seen[key] = {"id": f["id"], "severity": f["severity"], "fix": f.get("fix"),
                                 "message": f.get("message"), "nodes": [], "_order": order}
                order += 1
            if not e["nodes"] or e["nodes"][-1] != names[i]:
                e["nodes"].append(names[i])
            if not e["fix"] and f.get("fix"):
                e["fix"] = f["fix"]
    if not seen:
        return None
    best = min(seen.values(), key=lambda e: (_SEV_RANK.get(e["severity"], 3), -len(e["nodes"]), e["_order"]))
    best.pop("_order")
    best["count"] = len(best["nodes"])
    best["nodes_compact"] = compact_hostlist(best["nodes"])
    return best


def _iso(t: Optional[float]) -> Optional[str]:
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def summarize(inputs: Inputs, *, expect: Optional[List[str]] = None, max_age: Optional[float] = None,
              now: Optional[float] = None) -> Dict[str, Any]:
    """The fleet summary: contract §7 (``schema``, ``nodes``, ``failing``, ``unreadable``,
    ``differences``; ``missing`` with ``expect``, ``stale`` with ``max_age``) plus ``groups`` (each
    with its ``fix_first``), ``findings``, ``per_node``, ``versions``, ``duplicates`` and reasons."""
    now = time.time() if now is None else now
    nodes = sorted(inputs.nodes.values(), key=lambda n: natural_key(n.name))
    names = [n.name for n in nodes]
    frameworks = sorted({k for n in nodes for k in n.report["frameworks"]})
    stacks = [fingerprint_fields(n.report, frameworks) for n in nodes]
    order = list(range(len(nodes)))

    failing = [names[i] for i in order if not nodes[i].report["ok"]]
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

    groups_map: Dict[Tuple[Any, ...], List[int]] = {}
    for i in order:
        groups_map.setdefault(tuple(stacks[i].items()), []).append(i)
    groups = []
    for key, idx in sorted(groups_map.items(), key=lambda kv: (-len(kv[1]), natural_key(names[kv[1][0]]))):
        fp = dict(key)
        digest = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:10]
        members = [names[i] for i in idx]
        groups.append({"fingerprint_id": digest, "fingerprint": fp, "count": len(members), "nodes": members,
                       "nodes_compact": compact_hostlist(members),
                       "failing": [names[i] for i in idx if not nodes[i].report["ok"]],
                       "fix_first": _fix_first(idx, nodes, names)})

    by_finding: Dict[Tuple[str, str], List[str]] = {}
    for i in order:
        for f in nodes[i].report["findings"]:
            lst = by_finding.setdefault((f["id"], f["severity"]), [])
            if not lst or lst[-1] != names[i]:
                lst.append(names[i])
    findings = [{"id": fid, "severity": sev, "count": len(ns), "nodes": ns, "nodes_compact": compact_hostlist(ns)}
                for (fid, sev), ns in sorted(by_finding.items(), key=lambda kv: (_SEV_RANK.get(kv[0][1], 3),
                                                                                  -len(kv[1]), kv[0][0]))]
    per_node = {}
    for i in order:
        n = nodes[i]
        per_node[names[i]] = {
            "ok": n.report["ok"], "created": n.report.get("created"), "origin": n.origin,
            "findings": [{"id": f["id"], "severity": f["severity"], "message": f["message"], "fix": f["fix"]}
                         for f in n.report["findings"]]}
    versions: Dict[str, Dict[str, List[str]]] = {"envcheck": {}, "matrix": {}}
    for i in order:
        rep = nodes[i].report
        mv = rep.get("matrix_version") or rep.get("matrix")
        versions["envcheck"].setdefault(rep.get("envcheck") or "null", []).append(names[i])
        versions["matrix"].setdefault(mv or "null", []).append(names[i])

    out: Dict[str, Any] = {
        "schema": FLEET_SCHEMA,
        "nodes": len(names),
        "failing": failing,
        "unreadable": [u for u, _ in inputs.unreadable],
        "differences": differences,
    }
    if expect is not None:
        have = set(names)
        out["missing"] = sorted((n for n in dict.fromkeys(expect) if n not in have), key=natural_key)
        wanted = set(expect)
        out["unexpected"] = [n for n in names if n not in wanted]
    if max_age is not None:
        stale, stale_reasons = [], []
        for i in order:
            t = nodes[i].created
            if t is None:
                why = "the report has no readable creation time ('created')"
            elif is_future(t, now):
                why = f"its creation time {_iso(t)} is in the future: a wrong clock or a forged report"
            elif now - t > max_age:
                why = f"made {_age_text(now - t)} ago, at {_iso(t)}"
            else:
                continue
            stale.append(names[i])
            stale_reasons.append({"node": names[i], "reason": why})
        out["stale"] = stale
        out["stale_reasons"] = stale_reasons
        out["max_age_seconds"] = max_age
    out.update({
        "groups": groups,
        "findings": findings,
        "per_node": per_node,
        "versions": {k: dict(sorted(v.items(), key=lambda kv: (-len(kv[1]), kv[0]))) for k, v in versions.items()},
        "unreadable_reasons": [{"input": u, "reason": why} for u, why in inputs.unreadable],
        # several reports of one node: the newest (by 'created') counts, the others are listed here
        "duplicates": [{"node": n, "kept": inputs.nodes[n].origin, "dropped": inputs.duplicates[n],
                        "dropped_count": inputs.duplicate_counts.get(n, len(inputs.duplicates[n]))}
                       for n in sorted(inputs.duplicates, key=natural_key)],
        "duplicate_hostnames": sorted(inputs.duplicates, key=natural_key),
        "bytes_read": inputs.bytes_read,
    })
    return out


def _age_text(seconds: float) -> str:
    s = int(seconds)
    if s >= 2 * 86400:
        return f"{s // 86400}d {s % 86400 // 3600}h"
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60}m"
    if s >= 60:
        return f"{s // 60}m"
    return f"{s}s"


def verdict_ok(summary: Dict[str, Any]) -> bool:
    """True when the fleet is fine: nodes were read, none fails, nothing differs, every input was
    readable, no expected node is missing and no report is stale."""
    return bool(summary["nodes"]) and not (summary["failing"] or summary["differences"] or summary["unreadable"]
                                           or summary.get("missing") or summary.get("stale"))


def exit_status(summary: Dict[str, Any]) -> int:
    """§7: 2 when nothing could be read; 0 when the fleet is fine (:func:`verdict_ok`); 1 otherwise
    (a failing node, a difference, an unreadable input, a missing or stale node)."""
    if summary["nodes"] == 0:
        return 2
    return 0 if verdict_ok(summary) else 1
