"""Render a fleet summary (contract §7) as text or Markdown."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

from envcheck.fleet import compact_hostlist
from envcheck.render import clean

__all__ = ["render_fleet_text", "render_fleet_markdown"]

Style = Callable[[str, str], str]

#: fingerprint fields shown in the group table, with short labels
_SHOWN = (("driver.version", "driver"), ("driver.cuda", "driver CUDA"), ("toolkit.version", "toolkit"),
          ("cudnn", "cuDNN"), ("python.version", "python"), ("gpus", "GPUs"))


def _plain(text: str, _kind: str) -> str:
    return text


def _describe(fp: Dict[str, str]) -> str:
    parts = []
    for key, label in _SHOWN:
        v = fp.get(key)
        if v is not None:
            parts.append(f"{label} {v}")
    fws: Dict[str, Dict[str, str]] = {}
    for k, v in fp.items():
        if k.startswith("frameworks."):
            _, name, attr = k.split(".", 2)
            fws.setdefault(name, {})[attr] = v
    for name, attrs in sorted(fws.items()):
        if attrs.get("version") == "absent":
            continue
        extra = ", ".join(f"{a} {attrs[a]}" for a in ("cuda", "cudnn") if attrs.get(a) not in (None, "null"))
        parts.append(f"{name} {attrs.get('version')}" + (f" ({extra})" if extra else ""))
    return " | ".join(parts)


def _headline(s: Dict[str, Any]) -> str:
    return (f"{s['nodes']} node(s), {len(s['failing'])} failing, {len(s['differences'])} field(s) differ, "
            f"{len(s['groups'])} stack(s), {len(s['unreadable'])} unreadable")


def render_fleet_text(s: Dict[str, Any], st: Style = _plain, max_values: int = 8) -> str:
    s = clean(s)  # no terminal control sequences from untrusted text
    lines: List[str] = [st(f"envcheck fleet: {_headline(s)}", "bold"), ""]
    if s["groups"]:
        lines.append(st("Stacks (fingerprint -> nodes)", "bold"))
        for i, g in enumerate(s["groups"], 1):
            bad = f", {len(g['failing'])} failing" if g["failing"] else ""
            lines.append(f"  #{i} [{g['fingerprint_id']}] {g['count']} node(s){bad}: {g['nodes_compact']}")
            lines.append(st(f"      {_describe(g['fingerprint'])}", "dim"))
        lines.append("")
    if s["differences"]:
        lines.append(st("Differences", "bold"))
        for d in s["differences"]:
            lines.append(f"  {d['field']}")
            vals = list(d["values"].items())
            for v, nodes in vals[:max_values]:
                lines.append(f"      {v}: {len(nodes)} node(s): {compact_hostlist(nodes)}")
            if len(vals) > max_values:
                lines.append(f"      ... and {len(vals) - max_values} more value(s)")
        lines.append("")
    if s["findings"]:
        lines.append(st("Findings", "bold"))
        for f in s["findings"]:
            kind = f["severity"] if f["severity"] in ("error", "warning") else "info"
            lines.append(st(f"  {f['severity'].upper():7} [{f['id']}] {f['count']} node(s): {f['nodes_compact']}",
                            kind))
        lines.append("")
    if s["failing"]:
        lines.append(st(f"Failing: {compact_hostlist(s['failing'])}", "error"))
    if s["unreadable"]:
        lines.append(st("Unreadable (skipped)", "warning"))
        for u in s["unreadable_reasons"][:50]:
            lines.append(f"  {u['input']}: {u['reason']}")
        if len(s["unreadable_reasons"]) > 50:
            lines.append(f"  ... and {len(s['unreadable_reasons']) - 50} more")
    if not s["failing"] and not s["differences"] and s["nodes"]:
        lines.append(st("OK: every node has the same stack and passes.", "ok"))
    return "\n".join(lines).rstrip("\n") + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_fleet_markdown(s: Dict[str, Any], max_values: int = 8) -> str:
    s = clean(s)  # no terminal control sequences from untrusted text
    verdict = "OK" if s["nodes"] and not s["failing"] and not s["differences"] else "NOT OK"
    out = [f"### envcheck fleet: {verdict}", "", _headline(s), ""]
    if s["groups"]:
        out += ["| # | fingerprint | nodes | failing | node list | stack |", "| --- | --- | --- | --- | --- | --- |"]
        for i, g in enumerate(s["groups"], 1):
            out.append(f"| {i} | `{g['fingerprint_id']}` | {g['count']} | {len(g['failing'])} | "
                       f"{_md(g['nodes_compact'])} | {_md(_describe(g['fingerprint']))} |")
        out.append("")
    if s["differences"]:
        out += ["#### Differences", "", "| field | value | nodes |", "| --- | --- | --- |"]
        for d in s["differences"]:
            for v, nodes in list(d["values"].items())[:max_values]:
                out.append(f"| `{d['field']}` | {_md(v)} | {len(nodes)}: {_md(compact_hostlist(nodes))} |")
        out.append("")
    if s["findings"]:
        out += ["#### Findings", "", "| severity | id | nodes |", "| --- | --- | --- |"]
        for f in s["findings"]:
            out.append(f"| {f['severity']} | `{f['id']}` | {f['count']}: {_md(f['nodes_compact'])} |")
        out.append("")
    if s["unreadable"]:
        out += ["#### Unreadable (skipped)", ""]
        out += [f"- `{u['input']}`: {_md(u['reason'])}" for u in s["unreadable_reasons"][:50]]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
