"""Text rendering of a fix plan (``envcheck/plan/1`` dict)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional
from envcheck.render import clean

Style = Callable[[str, str], str]


def _plain(text: str, _kind: str) -> str:
    return text


def _pkgs(d: Dict[str, Any]) -> str:
    out = []
    for p in d.get("packages", []):
        extra = f"[{','.join(p['extras'])}]" if p.get("extras") else ""
        var = f" ({p['variant']})" if p.get("variant") else ""
        out.append(f"{p['name']}{extra}" + (f"=={p['version']}" if p.get("version") else "") + var)
    return ", ".join(out)


def _body(d: Dict[str, Any], st: Style, indent: str = "  ") -> List[str]:
    lines: List[str] = []
    if d.get("packages"):
        lines.append(f"{indent}{st('packages', 'bold')}: {_pkgs(d)}")
    drv = d.get("driver") or {}
    if drv.get("required_min"):
        up = drv.get("upgrade_needed")
        lines.append(f"{indent}{st('driver', 'bold')}: needs >= {drv['required_min']}"
                     + (st(" - upgrade needed", "error") if up else (" - ok here" if up is False else "")))
    for label, checks in (d.get("checks") or {}).items():
        for c in checks:
            kind = "error" if ": NO" in c else ("warning" if c.startswith("unverified") else "dim")
            lines.append(f"{indent}  {st(label, 'dim')}: {st(c, kind)}")
    cmds = d.get("commands") or {}
    if cmds.get("pip"):
        lines.append(f"{indent}{st('pip', 'bold')}:")
        lines += [f"{indent}  {c}" for c in cmds["pip"]]
    if cmds.get("uv"):
        lines.append(f"{indent}{st('uv', 'bold')}:")
        lines += [f"{indent}  {c}" for c in cmds["uv"]]
    if cmds.get("conda"):
        lines.append(f"{indent}{st('conda (conda-forge builds; versions may lag PyPI)', 'bold')}:")
        lines += [f"{indent}  {c}" for c in cmds["conda"]]
    if d.get("env"):
        lines.append(f"{indent}{st('environment', 'bold')}:")
        lines += [f'{indent}  export {k}="{v}"' for k, v in d["env"].items()]
    return lines


def render_plan_text(d: Dict[str, Any], style: Optional[Style] = None) -> str:
    d = clean(d)  # no terminal control sequences from untrusted text
    st = style or _plain
    t = d.get("target") or {}
    if t.get("vendor"):  # contract §9: an AMD / Intel / Apple / Jetson machine
        gp = ", ".join(str(g) for g in t.get("gpus") or [] if g) or "GPU unknown"
        lines = [st("envcheck fix", "bold") + f" - {t['vendor']} machine, {gp}, Python {t.get('python') or '?'}, "
                 f"{t.get('platform') or 'platform unknown'}"]
    else:
        lines = [st("envcheck fix", "bold") + f" - driver {t.get('driver') or 'unknown'}"
             f" (CUDA {t.get('driver_cuda') or '?'}), compute capability {', '.join(t.get('compute_capabilities') or []) or '?'},"
             f" Python {t.get('python') or '?'}, {t.get('platform') or 'platform unknown'}"]
    if d.get("satisfiable") and not d.get("packages"):
        lines.append(st("plan: nothing to install", "ok") + " (see the notes)")
    elif d.get("satisfiable"):
        lines.append(st("plan:", "ok"))
        lines += _body(d, st)
    else:
        lines.append(st("no plan fits: ", "error") + str(d.get("reason")))
        for lift in d.get("lifts") or []:
            lines.append(f"  {st('what lifts it', 'bold')}: {lift.get('action')}")
        for i, part in enumerate(d.get("split") or [], 1):
            lines.append(st(f"environment {i} of {len(d['split'])}:", "warning"))
            lines += _body(part, st, "    ")
        for alt in d.get("alternatives") or []:
            lines.append(st(f"alternative - {alt.get('label')}:", "warning"))
            lines += _body(alt, st, "    ")
    for n in d.get("notes") or []:
        lines.append(f"{st('note', 'info')}: {n}")
    return "\n".join(lines) + "\n"
