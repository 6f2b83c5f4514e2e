"""Render a fleet summary (contract §7) as text or Markdown."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List

from envcheck.fleet.summarize import compact_hostlist, verdict_ok
from envcheck.render import clean

__all__ = ["render_fleet_text", "render_fleet_markdown", "safe", "escape"]

Style = Callable[[str, str], str]

#: fingerprint fields shown in the group table, with short labels
_SHOWN = (("driver.version", "driver"), ("driver.cuda", "driver CUDA"), ("toolkit.version", "toolkit"),
          ("cudnn", "cuDNN"), ("python.version", "python"), ("gpus", "GPUs"))
#: failing nodes listed one per line in text (the rest by count)
MAX_NODE_LINES = 50
#: every C0 control (newline, carriage return and tab too: one value is one line), DEL, C1, the
#: line/paragraph separators and the bidi overrides and isolates
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
#: what Markdown gives a meaning to inside a line (emphasis, links, HTML, headings, tables, entities)
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>#!~|{}&]")


def escape(text: Any, markdown: bool = False) -> str:
    """The one escaping of untrusted report text (host names, values, reasons, fix texts) for both
    renderings: control characters (a newline included) shown as ``\\xNN`` / ``\\uNNNN``, so a value
    stays on its line and never drives the terminal; for Markdown, every character Markdown gives a
    meaning to backslash-escaped and ``@`` followed by a zero-width space (``@&#8203;``, no mention)."""
    s = text if isinstance(text, str) else str(text)
    s = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                     else f"\\u{ord(m.group()):04x}", s)
    if markdown:
        s = _MD_SPECIAL.sub(lambda m: "\\" + m.group(), s).replace("@", "@&#8203;")
    return s


def safe(text: Any) -> str:
    """:func:`escape` for text output."""
    return escape(text)


def _code(text: Any) -> str:
    """An untrusted value as a Markdown code span (nothing inside is Markdown, no mention, no link):
    controls escaped, a backtick shown as ``'``, ``|`` escaped for the table."""
    return "`" + escape(text).replace("`", "'").replace("|", "\\|") + "`"


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
            _, rest = k.split(".", 1)
            name, _, attr = rest.rpartition(".")
            fws.setdefault(name, {})[attr] = v
    for name, attrs in sorted(fws.items()):
        if attrs.get("version") == "absent":
            continue
        extra = ", ".join(f"{a} {attrs[a]}" for a in ("cuda", "cudnn") if attrs.get(a) not in (None, "null"))
        parts.append(f"{name} {attrs.get('version')}" + (f" ({extra})" if extra else ""))
    return " | ".join(parts)


def _headline(s: Dict[str, Any]) -> str:
    parts = [f"{s['nodes']} node(s)", f"{len(s['failing'])} failing", f"{len(s['differences'])} field(s) differ",
             f"{len(s['groups'])} stack(s)", f"{len(s['unreadable'])} unreadable"]
    if "missing" in s:
        parts.append(f"{len(s['missing'])} missing")
    if "stale" in s:
        parts.append(f"{len(s['stale'])} stale")
    return ", ".join(parts)


def _fix_line(ff: Dict[str, Any]) -> str:
    fix = ff.get("fix") or ff.get("message") or ""
    return f"fix first: [{ff['id']}] ({ff['severity']}, {ff['count']} node(s)) {fix}".rstrip()


def _problems(s: Dict[str, Any]) -> List[str]:
    """Why the verdict is NOT OK, in words."""
    out = []
    if s["failing"]:
        out.append(f"{len(s['failing'])} node(s) fail")
    if s["differences"]:
        out.append(f"{len(s['differences'])} field(s) differ")
    if s["unreadable"]:
        out.append(f"{len(s['unreadable'])} input(s) could not be read")
    if s.get("missing"):
        out.append(f"{len(s['missing'])} expected node(s) never reported")
    if s.get("stale"):
        out.append(f"{len(s['stale'])} report(s) are stale")
    return out


def render_fleet_text(s: Dict[str, Any], st: Style = _plain, max_values: int = 8) -> str:
    s = clean(s)  # no terminal control sequences from untrusted text
    lines: List[str] = [st(f"envcheck fleet: {_headline(s)}", "bold"), ""]
    for section in (_text_groups(s, st), _text_differences(s, st, max_values), _text_findings(s, st)):
        if section:
            lines += section + [""]
    lines += _text_failing(s, st) + _text_absent(s, st) + _text_unreadable(s, st)
    if verdict_ok(s):
        lines.append(st("OK: every node has the same stack and passes.", "ok"))
    elif s["nodes"]:
        lines.append(st("NOT OK: " + ", ".join(_problems(s)) + ".", "error"))
    return "\n".join(lines).rstrip("\n") + "\n"


def _kind(severity: str) -> str:
    return severity if severity in ("error", "warning") else "info"


def _text_groups(s: Dict[str, Any], st: Style) -> List[str]:
    if not s["groups"]:
        return []
    lines = [st("Stacks (fingerprint -> nodes)", "bold")]
    for i, g in enumerate(s["groups"], 1):
        bad = f", {len(g['failing'])} failing" if g["failing"] else ""
        lines.append(f"  #{i} [{g['fingerprint_id']}] {g['count']} node(s){bad}: {safe(g['nodes_compact'])}")
        lines.append(st(f"      {safe(_describe(g['fingerprint']))}", "dim"))
        ff = g.get("fix_first")
        if ff:
            lines.append(st(f"      {safe(_fix_line(ff))}", _kind(ff["severity"])))
    return lines


def _text_differences(s: Dict[str, Any], st: Style, max_values: int) -> List[str]:
    if not s["differences"]:
        return []
    lines = [st("Differences", "bold")]
    for d in s["differences"]:
        lines.append(f"  {safe(d['field'])}")
        vals = list(d["values"].items())
        for v, nodes in vals[:max_values]:
            lines.append(f"      {safe(v)}: {len(nodes)} node(s): {safe(compact_hostlist(nodes))}")
        if len(vals) > max_values:
            lines.append(f"      ... and {len(vals) - max_values} more value(s)")
    return lines


def _text_findings(s: Dict[str, Any], st: Style) -> List[str]:
    if not s["findings"]:
        return []
    return [st("Findings", "bold")] + [
        st(f"  {safe(f['severity']).upper():7} [{safe(f['id'])}] {f['count']} node(s): {safe(f['nodes_compact'])}",
           _kind(f["severity"])) for f in s["findings"]]


def _text_failing(s: Dict[str, Any], st: Style) -> List[str]:
    if not s["failing"]:
        return []
    per_node = s.get("per_node") or {}
    lines = [st(f"Failing: {safe(compact_hostlist(s['failing']))}", "error")]
    for n in s["failing"][:MAX_NODE_LINES]:
        errs = [f for f in (per_node.get(n) or {}).get("findings", []) if f["severity"] == "error"]
        lines.append(f"  {safe(n)}: " + "; ".join(safe(f"[{f['id']}] {f['message'] or ''}".rstrip()) for f in errs))
    if len(s["failing"]) > MAX_NODE_LINES:
        lines.append(f"  ... and {len(s['failing']) - MAX_NODE_LINES} more (see --json: per_node)")
    return lines


def _text_absent(s: Dict[str, Any], st: Style) -> List[str]:
    """Missing, stale and unexpected nodes."""
    lines = []
    if s.get("missing"):
        lines.append(st(f"Missing (expected, no report): {safe(compact_hostlist(s['missing']))}", "error"))
    if s.get("stale"):
        lines.append(st(f"Stale (older than --max-age): {safe(compact_hostlist(s['stale']))}", "warning"))
        for r in s.get("stale_reasons", [])[:MAX_NODE_LINES]:
            lines.append(f"  {safe(r['node'])}: {safe(r['reason'])}")
    if s.get("unexpected"):
        lines.append(st(f"Not in --expect: {safe(compact_hostlist(s['unexpected']))}", "dim"))
    return lines


def _text_unreadable(s: Dict[str, Any], st: Style) -> List[str]:
    if not s["unreadable"]:
        return []
    lines = [st("Unreadable", "warning")]
    for u in s["unreadable_reasons"][:50]:
        lines.append(f"  {safe(u['input'])}: {safe(u['reason'])}")
    if len(s["unreadable_reasons"]) > 50:
        lines.append(f"  ... and {len(s['unreadable_reasons']) - 50} more")
    return lines


def _md(text: Any) -> str:
    return escape(text, markdown=True)


def render_fleet_markdown(s: Dict[str, Any], max_values: int = 8) -> str:
    s = clean(s)  # no terminal control sequences from untrusted text
    verdict = "OK" if verdict_ok(s) else "NOT OK"
    out = [f"### envcheck fleet: {verdict}", "", _headline(s), ""]
    if s["groups"]:
        out += ["| # | fingerprint | nodes | failing | node list | stack | fix first |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        for i, g in enumerate(s["groups"], 1):
            ff = g.get("fix_first")
            fix = f"{_code(ff['id'])}: {_md(ff.get('fix') or ff.get('message') or '')}" if ff else ""
            out.append(f"| {i} | {_code(g['fingerprint_id'])} | {g['count']} | {len(g['failing'])} | "
                       f"{_code(g['nodes_compact'])} | {_md(_describe(g['fingerprint']))} | {fix} |")
        out.append("")
    if s["differences"]:
        out += ["#### Differences", "", "| field | value | nodes |", "| --- | --- | --- |"]
        for d in s["differences"]:
            for v, nodes in list(d["values"].items())[:max_values]:
                out.append(f"| {_code(d['field'])} | {_code(v)} | {len(nodes)}: {_code(compact_hostlist(nodes))} |")
        out.append("")
    if s["findings"]:
        out += ["#### Findings", "", "| severity | id | nodes |", "| --- | --- | --- |"]
        for f in s["findings"]:
            out.append(f"| {_md(f['severity'])} | {_code(f['id'])} | {f['count']}: {_code(f['nodes_compact'])} |")
        out.append("")
    if s.get("missing"):
        out += ["#### Missing (expected, no report)", "", _code(compact_hostlist(s["missing"])), ""]
    if s.get("stale"):
        out += ["#### Stale (older than --max-age)", ""]
        out += [f"- {_code(r['node'])}: {_md(r['reason'])}" for r in s.get("stale_reasons", [])[:MAX_NODE_LINES]]
        out.append("")
    if s["unreadable"]:
        out += ["#### Unreadable", ""]
        out += [f"- {_code(u['input'])}: {_md(u['reason'])}" for u in s["unreadable_reasons"][:50]]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
