"""Text and Markdown renderings of an explain report (``envcheck/explain/1``). Return strings."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

from envcheck.render import clean

__all__ = ["render_explain_text", "render_explain_markdown", "MARKER"]

#: the first line of every Markdown comment (a bot finds and updates its own comment by it)
MARKER = "<!-- envcheck-explain -->"

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
    # the input's name on the header line: a newline in a file name cannot start a line of its own
    where = "".join(c if c.isprintable() else "?" for c in str(rep.get("input") or "the log"))
    scanned = rep.get("lines_scanned")
    head = f"envcheck explain: {len(ms)} known failure(s) in {where}"
    if scanned is not None:
        head += f" ({scanned} lines)"
    out = [st(head, "bold") + f"; {_origin(rep)}", ""]
    for note in rep.get("notes") or []:
        out.append(st("note: " + "".join(c if c.isprintable() else "?" for c in str(note)), "dim"))
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
            out.append(st(f"   probably a consequence of [{m['explained_by']}], read on or near its line", "dim"))
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


_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_FACT_NAMES = (("gpu", "GPU"), ("cc", "compute capability"), ("driver", "driver"), ("driver_cuda", "driver's CUDA"),
               ("cuda", "CUDA runtime"), ("torch", "PyTorch"), ("torch_cuda", "PyTorch built with CUDA"),
               ("torch_cuda_assumed", "PyTorch built with CUDA (assumed)"),
               ("tensorflow", "TensorFlow"), ("jax", "JAX"), ("python", "Python"))
_CAPTURE_NAMES = (("lib", "library"), ("lib_family", "library family"), ("cuda_major", "CUDA major of the library"),
                  ("cudnn_major", "cuDNN major of the library"), ("compiled", "compiled with cuDNN"),
                  ("loaded", "cuDNN loaded"), ("sm", "GPU architecture sm"), ("arch_list", "build's architectures"),
                  ("min_cc", "minimum compute capability"), ("driver_cuda", "driver supports CUDA up to"),
                  ("ptx_isa", "PTX ISA"), ("ptxas_isa", "ptxas supports ISA"), ("toolkit", "nvcc CUDA"),
                  ("torch_cuda", "PyTorch's CUDA"), ("requested", "requested"), ("status", "status"),
                  ("requirement", "pinned requirement"), ("installed", "installed"))


def _clean(s: Any) -> str:
    """Untrusted text (a log from an issue) made safe for Markdown: no control or bidi characters."""
    return _CTRL.sub("", str(s))


def _code(s: Any) -> str:
    """Inline code that no backtick in ``s`` can break out of, and that no @mention or link escapes."""
    t = _clean(s).replace("\n", " ")
    run = max((len(m) for m in re.findall(r"`+", t)), default=0)
    fence = "`" * (run + 1)
    pad = " " if t.startswith("`") or t.endswith("`") or not t else ""
    return f"{fence}{pad}{t}{pad}{fence}"


def _block(lines: List[str]) -> List[str]:
    body = [_clean(x) for x in lines]
    run = max((len(m) for x in body for m in re.findall(r"`+", x)), default=0)
    fence = "`" * max(3, run + 1)
    return [fence + "text", *body, fence]


def _md(s: Any) -> str:
    """A line of the comment outside a code block: a fix may quote the pasted text (a thread's resolution, a report's
    finding), so nothing in it becomes a link, an image, HTML or a mention; the code spans of the knowledge base's
    texts are kept (render.text's one Markdown escaping)."""
    from envcheck.render.text import md_text as md_line

    return md_line(_clean(s))


def _facts_lines(rep: Dict[str, Any], top: Dict[str, Any]) -> List[str]:
    from envcheck.facts import flat_facts

    facts = dict(rep.get("log_facts") or {})
    facts.update(flat_facts(rep.get("facts")))  # an environment report in the text (contract §4 `facts`)
    out = [f"- {label}: {_code(facts[k])}" for k, label in _FACT_NAMES if facts.get(k)]
    caps = top.get("captures") or {}
    out += [f"- {label}: {_code(caps[k])}" for k, label in _CAPTURE_NAMES if caps.get(k)]
    return out


#: the parts of an explain report that quote the user's text (masked before they are posted); a fix may quote it too
#: (a thread's resolution: "From the pasted report: ... \"Solved by ...\"")
_QUOTED = ("evidence", "log_facts", "facts", "captures", "notes", "fixes")


def _masked(x: Any) -> Any:
    from envcheck.snapshot.redact import mask_secrets

    if isinstance(x, str):
        return mask_secrets(x)
    if isinstance(x, dict):
        return {k: _masked(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_masked(v) for v in x]
    return x


def _mask_quoted(rep: Dict[str, Any]) -> Dict[str, Any]:
    """The report with the secrets of what it quotes masked (a token in a pip URL, ``?token=``): it is posted."""
    out = {k: _masked(v) if k in _QUOTED else v for k, v in rep.items()}
    out["matches"] = [{k: _masked(v) if k in _QUOTED else v for k, v in m.items()} for m in rep.get("matches") or []]
    return out


def render_explain_markdown(rep: Dict[str, Any]) -> str:
    """A comment ready to post on an issue: the most likely cause, the evidence lines quoted, the facts
    read from the text, the fix and the dead ends; the other matches folded below. Secrets in what it quotes
    (URL credentials, token parameters, well-known token formats) are masked."""
    rep = _mask_quoted(clean(rep))  # no terminal control sequences from untrusted text, no secret to post
    ms = rep.get("matches") or []
    out = [MARKER]
    if not ms:
        out += ["### envcheck explain: no known CUDA / cuDNN / driver failure recognised", "",
                "Nothing in this text matches a known GPU-stack failure. If the problem is about the GPU, "
                "please add the full error output and `envcheck status --markdown` (or `python -m "
                "torch.utils.collect_env`) from the failing machine.", ""]
        return "\n".join(out) + "\n"
    top = ms[0]
    out += [f"### envcheck explain: {_md(top['title'])} (`{top['id']}`)", ""]
    where = f"line {top['line_no']}" if top.get("line_no") else "the text"
    count = f", seen {top['count']} times" if top.get("count", 1) > 1 else ""
    out += [f"**Evidence** ({where} of the text{count}):", ""] + _block([top["evidence"]]) + [""]
    if top.get("explained_by"):
        out += [f"_This follows a `{top['explained_by']}` failure read on or near its line._", ""]
    facts = _facts_lines(rep, top)
    if facts:
        out += ["**Facts read from the text**", ""] + facts + [""]
    out += ["**Fix**", ""]
    out += [f"{j}. {_md(f)}" for j, f in enumerate(top.get("fixes") or [], 1)]
    if top.get("dead_ends"):
        out += ["", "**Dead ends** (tried often, do not help)", ""] + [f"- {_md(d)}" for d in top["dead_ends"]]
    if top.get("source"):
        out += ["", f"Reference: {_clean(top['source'])}"]
    out.append("")
    if len(ms) > 1:
        out += [f"<details><summary>Also recognised ({len(ms) - 1})</summary>", ""]
        for m in ms[1:]:
            line = f"line {m['line_no']}" if m.get("line_no") else "context"
            extra = f" (probably a consequence of `{m['explained_by']}`)" if m.get("explained_by") else ""
            out.append(f"- `{m['id']}`: {_md(m['title'])}{extra}; {line}: {_code(m['evidence'])}")
            if m.get("fixes"):
                out.append(f"  - Fix: {_md(m['fixes'][0])}")
        out += ["", "</details>", ""]
    for note in rep.get("notes") or []:
        out.append(f"> note: {_md(note)}")
    out.append(f"<sub>envcheck explain, {_origin(rep)}. The cause is recognised from the wording of the log; "
               "check the fix against your setup.</sub>")
    return "\n".join(out) + "\n"
