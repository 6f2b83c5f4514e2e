"""Render the ``envcheck smoke`` result (envcheck/smoke/1) for a terminal."""

from __future__ import annotations

from typing import Any, Callable, Dict, List
from envcheck.render import clean

__all__ = ["render_smoke"]

Style = Callable[[str, str], str]


def _plain(text: str, _kind: str) -> str:
    return text


def _indent(text: str, prefix: str) -> List[str]:
    return [prefix + line for line in str(text).splitlines()]


def render_smoke(doc: Dict[str, Any], st: Style = _plain) -> str:
    doc = clean(doc)  # no terminal control sequences from untrusted text
    lines: List[str] = []
    for fw in doc.get("frameworks", []):
        head = f"{fw['name']} {fw.get('version') or '(not imported)'}"
        where = fw.get("device") or "-"
        if fw.get("gpus"):
            where += " - " + ", ".join(fw["gpus"])
        lines.append(st(head, "bold") + f"  on {where}")
        for note in fw.get("notes", []):
            lines.append("  " + st("note: ", "info") + note)
        for step in fw.get("steps", []):
            verdict = st("PASS", "ok") if step["passed"] else st("FAIL", "error")
            secs = step.get("seconds")
            secs_text = f"{secs:7.3f} s" if isinstance(secs, (int, float)) else "      ? s"
            lines.append(f"  {verdict}  {step['name']:<11}{secs_text}  {step.get('detail') or ''}".rstrip())
            if not step["passed"] and step.get("error"):
                err_lines = str(step["error"]).splitlines()
                if len(err_lines) > 30:
                    err_lines = err_lines[:5] + ["..."] + err_lines[-24:]
                lines += _indent("\n".join(err_lines), "        ")
                for d in step.get("diagnosis", []):
                    lines.append("        " + st(f"diagnosis [{d.get('id')}]", "warning") + f" {d.get('title') or ''}")
                    for fix in (d.get("fixes") or [])[:3]:
                        lines += _indent(fix, "          fix: ")
        if fw.get("crashed"):
            lines.append("  " + st(f"the child process crashed ({fw['crashed']})", "error"))
        elif fw.get("timed_out"):
            lines.append("  " + st("the child process hung and was killed", "error"))
        lines.append("")
    n = len(doc.get("frameworks", []))
    failed = [fw["name"] for fw in doc.get("frameworks", []) if not fw.get("passed")]
    if failed:
        lines.append(st(f"FAILED: {', '.join(failed)} ({len(failed)} of {n} framework(s)).", "error"))
    else:
        lines.append(st(f"OK: {n} framework(s) passed.", "ok"))
    return "\n".join(lines) + "\n"
