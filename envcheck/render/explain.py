"""Text and Markdown renderings of an explain report (``envcheck/explain/1``). Return strings."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional
from envcheck.render import clean

__all__ = ["render_explain_text", "render_explain_markdown"]

Style = Callable[[str, str], str]


def _plain(text: str, _kind: str) -> str:
    return text


def _origin(rep: Dict[str, Any]) -> str:
    det = rep.get("detected")
    return f"machine facts from {det}" if det else "from the text alone"


def render_explain_text(rep: Dict[str, Any], style: Optional[Style] = None, max_dead_ends: int = 3) -> str:
    rep = clean(rep)  # no terminal control sequences from untrusted text
    st = style or _plain
    ms = rep.get("matches") or []
    where = rep.get("input") or "the log"
    scanned = rep.get("lines_scanned")
    head = f"envcheck explain: {len(ms)} known failure(s) in {where}"
    if scanned is not None:
        head += f" ({scanned} lines)"
    out = [st(head, "bold") + f"; {_origin(rep)}", ""]
    for note in rep.get("notes") or []:
        out.append(st(f"note: {note}", "dim"))
    if rep.get("notes"):
        out.append("")
    if not ms:
        out.append("No known CUDA / cuDNN / driver failure was recognised.")
        out.append("Run `envcheck status` to check the installation itself.")
        return "\n".join(out) + "\n"
    for i, m in enumerate(ms, 1):
        kind = "error" if i == 1 else "warning"
        out.append(st(f"{i}. [{m['id']}] {m['title']}", kind))
        line = f"line {m.get('line_no')}" if m.get("line_no") else "evidence"
        count = f" (seen {m['count']}x)" if m.get("count", 1) > 1 else ""
        out.append(f"   {line}{count}: {m['evidence']}")
        if m.get("explained_by"):
            out.append(st(f"   probably a consequence of [{m['explained_by']}] just above it", "dim"))
        facts = {k: v for k, v in (m.get("captures") or {}).items() if k not in ("wanted",)}
        if facts:
            out.append("   facts: " + ", ".join(f"{k}={v}" for k, v in facts.items()))
        out.append("   Fix:")
        for j, f in enumerate(m.get("fixes") or [], 1):
            out.append(f"     {j}. {f}")
        des = m.get("dead_ends") or []
        if des:
            out.append("   Dead ends (tried often, do not help):")
            for d in des[:max_dead_ends]:
                out.append(f"     - {d}")
            if len(des) > max_dead_ends:
                out.append(f"     (+{len(des) - max_dead_ends} more with --json)")
        if m.get("source"):
            out.append(st(f"   see: {m['source']}", "dim"))
        out.append("")
    return "\n".join(out)


def _md(s: Any) -> str:
    return str(s).replace("|", "\\|")


def render_explain_markdown(rep: Dict[str, Any]) -> str:
    rep = clean(rep)  # no terminal control sequences from untrusted text
    ms = rep.get("matches") or []
    out = [f"### envcheck explain: {len(ms)} known failure(s)", "", f"_{_origin(rep)}_", ""]
    for note in rep.get("notes") or []:
        out.append(f"> note: {note}")
    if not ms:
        out.append("No known CUDA / cuDNN / driver failure was recognised.")
        return "\n".join(out) + "\n"
    for i, m in enumerate(ms, 1):
        out.append(f"#### {i}. `{m['id']}`: {_md(m['title'])}")
        out.append("")
        out.append(f"Line {m.get('line_no')}:")
        out.append("")
        out.append("```")
        out.append(str(m["evidence"]).replace("```", "'''"))
        out.append("```")
        out.append("")
        out.append("**Fix**")
        out.append("")
        for j, f in enumerate(m.get("fixes") or [], 1):
            out.append(f"{j}. {_md(f)}")
        if m.get("dead_ends"):
            out.append("")
            out.append("**Dead ends**")
            out.append("")
            for d in m["dead_ends"]:
                out.append(f"- {_md(d)}")
        if m.get("source"):
            out.append("")
            out.append(f"Source: {m['source']}")
        out.append("")
    return "\n".join(out)
