"""Render the ``envcheck matrix`` documents (matrix-table/1, matrix-query/1, matrix-why/1 and the
status document) as text for a terminal; their JSON is the document itself."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

from envcheck.render import clean_text

__all__ = ["render_table_text", "render_query_text", "render_why_text", "render_status_text", "table"]

Style = Callable[[str, str], str]

#: table name -> the columns shown as text
TABLE_COLUMNS = {
    "cuda": ["version", "min_driver_linux", "min_driver_windows"],
    "drivers": ["branch", "highest_cuda", "first_driver_linux"],
    "gpus": ["name", "compute_capability", "architecture", "segment"],
    "torch": ["releases", "variant", "cuda", "cudnn", "compute_capabilities"],
    "tensorflow": ["version", "python", "cuda", "cudnn", "compute_capabilities"],
    "cudnn": ["version", "cuda", "min_compute_capability", "layout"],
    "jax": ["jax", "jaxlib", "cuda_plugins", "cuda", "cudnn_min", "python", "compute_capabilities_cuda12",
            "compute_capabilities_cuda13"],
    "cupy": ["distribution", "version", "cuda_major", "cuda_min", "python", "cuda_libraries"],
    "onnxruntime": ["versions", "feed", "cuda", "cuda_major", "cudnn_major", "extras"],
    "rocm": ["release", "variant", "gfx", "gfx_source"],
    "xpu": ["release", "platforms", "aot", "aot_windows"],
    "xpu-aot": ["target", "compiles_for", "serves"],
    "intel-gpus": ["group", "config", "device_ids"],
}

BUILD_COLUMNS = ["version", "variant", "cuda", "driver_min", "driver_full", "python", "cudnn",
                 "compute_capabilities", "ptx"]


def _plain(text: str, _kind: str) -> str:
    return text


def _clean(text: Any) -> str:
    """Untrusted text (a URL, a server's error) without raw control characters for the terminal."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in str(text))


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, list):
        if v and isinstance(v[0], dict):
            return ", ".join(f"{d.get('major')}.x {d.get('min', '')}-{d.get('max', '')}" for d in v)
        return " ".join(str(x) for x in v) if len(v) <= 12 else " ".join(str(x) for x in v[:3]) + f" ... ({len(v)})"
    return str(v)


def table(rows: List[Dict[str, Any]], cols: List[str], st: Style = _plain) -> str:
    cells = [[_clean(_cell(r.get(c))) for c in cols] for r in rows]
    widths = [min(max([len(c)] + [len(x[i]) for x in cells]), 60) for i, c in enumerate(cols)]
    out = [st("  ".join(c.upper().ljust(w) for c, w in zip(cols, widths)).rstrip(), "bold")]
    for x in cells:
        out.append("  ".join(v[:60].ljust(w) for v, w in zip(x, widths)).rstrip())
    return "\n".join(out) + "\n"


def render_table_text(doc: Dict[str, Any], st: Style = _plain) -> str:
    rows = doc["rows"]
    return (table(rows, TABLE_COLUMNS[doc["table"]], st)
            + st(f"({len(rows)} rows; matrix {_clean(doc['matrix'])}; sources: --json)", "dim") + "\n")


def _none_matches(doc: Dict[str, Any]) -> str:
    out = f"no build in the matrix matches {_clean(repr(doc['requirement']))}\n"
    if doc.get("note"):
        out += f"note: {clean_text(doc['note'])}\n"
    return out


def render_query_text(doc: Dict[str, Any], st: Style = _plain) -> str:
    if not doc["builds"]:
        return _none_matches(doc)
    return table(doc["builds"], BUILD_COLUMNS, st)


_WORDS = {"runs": ("RUNS", "ok"), "does-not-run": ("DOES NOT RUN", "error"), "unknown": ("UNKNOWN", "warning")}


def render_why_text(doc: Dict[str, Any], st: Style = _plain) -> str:
    if not doc["results"]:
        return _none_matches(doc)
    out: List[str] = []
    for r in doc["results"]:
        bd = r["build"]
        word, kind = _WORDS.get(r["verdict"], (str(r["verdict"]).upper(), "info"))
        head = clean_text(f"{bd['framework']} {bd['version']} {bd.get('variant') or ''}: ")
        out.append(head + st(word, kind))
        out += [f"    {clean_text(line)}" for line in r["reasons"]]  # they quote the snapshot's facts
    if doc.get("driver_advice_text"):
        out.append(st("no build runs on this driver: " + clean_text(doc["driver_advice_text"]), "bold"))
    return "\n".join(out) + "\n"


def render_status_text(info: Dict[str, Any], st: Style = _plain) -> str:
    out = [st(f"active matrix: {info['kind']} {info['version']}", "bold")]
    if info.get("updated"):
        out.append(f"  age:        {info['age_days']} day(s) (oldest table updated {info['updated']})")
    newest = info.get("newest")
    if isinstance(newest, dict):
        out.append("  newest known: " + ", ".join(f"{k} {_clean(v)}" for k, v in newest.items() if v))
    out.append(f"  origin:     {_clean(info['source'])}")
    if info["kind"] == "updated":
        out.append(f"  signed by:  {info['signed_by']} ({_clean(info['key_origin'])})")
        out.append(f"  installed:  {info['installed']}; expires {info['expires']}")
    keys = ", ".join(info["trusted_keys"]) or "none"
    out.append(f"  trusted signing keys: {keys}"
               + (f" + the keys of {_clean(info['test_keys'])}" if info["test_keys"] else ""))
    out.append(f"  directory:  {info['directory']}")
    out += [f"  {t:<11} updated {d}" for t, d in info["tables"].items()]
    out.append(f"update cache: {info['cache']}")
    if "update_source" in info:
        src = info["update_source"]
        out.append(f"update source: {_clean(src)}" if src else
                   "update source: none configured (envcheck has no published address yet): `envcheck matrix "
                   "update --from URL|FILE` installs a signed bundle you were given")
    return "\n".join(out) + "\n"
