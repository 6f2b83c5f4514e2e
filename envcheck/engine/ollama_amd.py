"""Ollama leaving an AMD GPU unused because its ROCm build has no code for the GPU's gfx target (amd42): the cause of
"not detected", "runs 100% on CPU", "isn't supported by Ollama" on an RX 580 (gfx803), a 780M (gfx1103), an RX 6600
(gfx1032), decided from the targets Ollama's own ROCm build is compiled for, by release and platform
(compat_matrix/rocm.toml ``[[ollama_rocm]]``, read at each release tag), and the evidence
:mod:`envcheck.paste.readers.ollama_amd` keeps. Pure; unknown decides nothing.

* The GPU: the gfx targets the text names for it, an AMD GPU of the text's reports (its gfx, or its PCI device id's
  ``[[device_gfx]]`` row), an AMD model a sentence names that the matrix resolves exactly (``amd_gfx_of_name``).
* The release: the one the text states; where it states none (or one no row covers), the newest release of the
  thread's date (its first author line), else the newest release the table holds.
* The platform: the bug form's OS or the one platform the text's words name; unknown: every platform's row must lack
  the GPU.
* Not where the text says /dev/kfd or /dev/dri does not exist, nor where Ollama's Linux discovery says it skips its
  gfx check for HSA_OVERRIDE_GFX_VERSION, nor on the tracker of a community build compiled for more targets
  (likelovewant/ollama-for-amd) (attack54): the table's list does not decide there.
* Not where the text names an NVIDIA GPU (an AMD iGPU beside a GeForce: Ollama's CUDA runner is the one meant).

Where every row considered lacks each GPU the text names: ``gpu-arch-unsupported``, with the first release whose
build lists it (a newer release covers it: the fix is to update), or none. Where a row lists one of them - a newer
release than the thread's, or a supported GPU beside an unsupported one - nothing is said: the build has its code, so
the GPU's being left unused has another cause. The table's lists are the build's targets; Windows also checks the
bundled rocBLAS's own list at run time, so a listed GPU may still be refused there: that is left unsaid.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from envcheck.model import Finding, Severity
from envcheck.versions import version_tuple

__all__ = ["gpu_gfx", "known_gfx", "rows_for", "ollama_target_missing"]

_PLATFORMS = ("linux", "windows")


def _split(value: Optional[str]) -> Tuple[str, str]:
    got = (value or "").split(" | ", 1)
    return (got[0].strip(), got[1].strip()) if len(got) == 2 else (got[0].strip(), "")


def _norm(gfx: Any) -> str:
    return str(gfx or "").split(":", 1)[0].strip().lower()


def gpu_gfx(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> List[Tuple[str, str]]:
    """The text's AMD GPUs as ``(gfx, how it was named)``: named targets, the reports' AMD GPUs, resolved models."""
    out: List[Tuple[str, str]] = [(g, g) for g in (lines.get("ollama-gfx") or "").split() if g]
    for g in facts.get("gpus") or []:
        if not isinstance(g, dict) or str(g.get("vendor") or "").lower() != "amd":
            continue
        gfx = _norm(g.get("gfx"))
        if not gfx and g.get("device_id") and hasattr(matrix, "amd_device_gfx"):
            row = matrix.amd_device_gfx(str(g["device_id"]))
            gfx = _norm(row.get("gfx")) if row else ""
        if not gfx and g.get("name") and hasattr(matrix, "amd_gfx_of_name"):
            gfx = _norm(matrix.amd_gfx_of_name(str(g["name"])))
        if gfx:
            out.append((gfx, str(g.get("name") or g.get("device_id") or gfx)))
    for name in (lines.get("ollama-amd-model") or "").split(" | "):
        gfx = _norm(matrix.amd_gfx_of_name(name)) if name and hasattr(matrix, "amd_gfx_of_name") else ""
        if gfx:
            out.append((gfx, name))
    seen: Dict[str, str] = {}
    for gfx, how in out:
        seen.setdefault(gfx, how)
    return list(seen.items())


#: the tables of compat_matrix/rocm.toml whose rows name real gfx targets (by their ``gfx`` key or list)
_GFX_TABLES = ("gfx_family", "gpu_arch_spec", "device_gfx", "amd_model_gfx", "ollama_rocm")


def known_gfx(matrix: Any) -> FrozenSet[str]:
    """Every gfx target some table of the matrix names (the ISA families, ROCm's spec table, the PCI ids, the models,
    Ollama's build lists): a target outside it is unknown, not unsupported."""
    out: Set[str] = set()
    for table in _GFX_TABLES:
        for r in matrix.rows("rocm", table):
            got = r.get("gfx")
            out.update(_norm(g) for g in (got if isinstance(got, list) else [got]) if g)
    return frozenset(out)


def _covers(row: Dict[str, Any], version: Tuple[int, ...]) -> bool:
    lo, hi = version_tuple(str(row.get("since"))), version_tuple(str(row.get("until")))
    return bool(lo and hi and lo <= version <= hi)


def rows_for(matrix: Any, platform: Optional[str], version: Optional[str],
             date: Optional[str]) -> Tuple[List[Dict[str, Any]], str]:
    """The ``[[ollama_rocm]]`` rows of the text's Ollama (one per platform considered) and how the release was chosen
    (``stated``, ``date``, ``newest``); no rows where the table holds none for a platform considered."""
    rows = [r for r in matrix.rows("rocm", "ollama_rocm") if r.get("platform") in _PLATFORMS]
    plats = [platform] if platform in _PLATFORMS else list(_PLATFORMS)
    want = version_tuple(version) if version else None
    picked: List[Dict[str, Any]] = []
    how = "stated"
    for p in plats:
        mine = [r for r in rows if r.get("platform") == p]
        got = [r for r in mine if want and _covers(r, want)]
        if not got:
            how = "date" if date else "newest"
            dated = [r for r in mine if not date or str(r.get("date") or "9999") <= date]
            got = [max(dated, key=lambda r: version_tuple(str(r.get("since"))) or ())] if dated else []
        picked += got[:1]
    return (picked if len(picked) == len(plats) else []), how


def _first_listing(matrix: Any, gfx: str, platforms: Sequence[str]) -> Optional[Dict[str, Any]]:
    rows = [r for r in matrix.rows("rocm", "ollama_rocm")
            if r.get("platform") in platforms and gfx in (_norm(g) for g in r.get("gfx") or [])]
    return min(rows, key=lambda r: version_tuple(str(r.get("since"))) or ()) if rows else None


def _fix(matrix: Any, gpus: List[Tuple[str, str]], plats: Sequence[str], rows: List[Dict[str, Any]]) -> str:
    later = [(g, _first_listing(matrix, g, plats)) for g, _ in gpus]
    newer = [(g, r) for g, r in later if r is not None
             and all((version_tuple(str(r.get("since"))) or ()) > (version_tuple(str(x.get("until"))) or ()) for x in rows)]
    if newer:
        g, r = newer[0]
        return (f"Update Ollama: its ROCm build lists {g} from release {r.get('since')} on ({r.get('platform')}; "
                f"{r.get('source')}). Otherwise use Ollama's Vulkan backend, or on Linux set HSA_OVERRIDE_GFX_VERSION "
                "for the Ollama service to a listed target of the GPU's own ISA family (unofficial; it crashes across "
                "families).")
    older = [(g, r) for g, r in later if r is not None]
    if older:
        g, r = older[0]
        return (f"Ollama's ROCm build listed {g} in earlier releases (from {r.get('since')}, {r.get('platform')}; "
                f"{r.get('source')}) and no longer does: use such a release, Ollama's Vulkan backend, or on Linux "
                "HSA_OVERRIDE_GFX_VERSION for the Ollama service set to a listed target of the GPU's own ISA family "
                "(unofficial; it crashes across families).")
    return ("No Ollama release of the table lists this GPU's gfx target for this platform: use Ollama's Vulkan backend "
            "(or a llama.cpp build for the GPU), on Linux HSA_OVERRIDE_GFX_VERSION set for the Ollama service to a listed "
            "target of the GPU's own ISA family (unofficial; it crashes across families), or a community build of Ollama "
            "compiled for the target.")


def ollama_target_missing(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """The module's rule: ``gpu-arch-unsupported`` where the Ollama build the text runs has no code for its AMD GPU."""
    said = lines.get("ollama-gpu-unused")
    if not said or matrix is None:
        return None
    from envcheck.engine.vendors_prose import nvidia_named

    if nvidia_named(facts, lines):
        return None  # an NVIDIA GPU in the text too: which GPU Ollama was to use is not the AMD one's to say
    platform = _split(lines.get("ollama-os"))[0] or None
    if lines.get("ollama-fork") or lines.get("ollama-nodes-missing") or (
            lines.get("ollama-override-taken") and platform != "windows"):
        # (attack54) the device nodes absent (ollama/ollama#17104: a 780M on Unraid without /dev/dri), or Ollama's Linux
        # discovery skipping its gfx check for HSA_OVERRIDE_GFX_VERSION: the build's list is not why the GPU is unused;
        # a community build's thread (likelovewant/ollama-for-amd#20): its targets are not the table's
        return None
    # a target no table of the matrix knows (a typo: "Strix halo (gfx1511)" for gfx1151, ollama/ollama#14921) is not
    # judged: its absence from Ollama's lists says nothing
    gpus = [(g, n) for g, n in gpu_gfx(matrix, facts, lines) if g in known_gfx(matrix)]
    if not gpus:
        return None
    version = _split(lines.get("ollama-version"))[0] or None
    rows, how = rows_for(matrix, platform, version, lines.get("text-date"))
    if not rows or any(g in (_norm(x) for x in r.get("gfx") or []) for g, _ in gpus for r in rows):
        return None
    plats = [str(r.get("platform")) for r in rows]
    which = {"stated": f"Ollama {version}", "date": f"the Ollama release of the thread's date ({lines.get('text-date')})",
             "newest": "the newest Ollama release the table holds"}[how]
    named = ", ".join(g if g == n else f"{n} ({g})" for g, n in gpus)
    listed = "; ".join(f"{r.get('platform')} v{r.get('since')}-v{r.get('until')}: {' '.join(r.get('gfx') or [])}"
                       for r in rows)
    return Finding(
        "gpu-arch-unsupported", Severity.ERROR,
        f"The AMD GPU the text names ({named}) is not among the gfx targets the ROCm build of {which} is compiled for "
        f"({listed}): Ollama finds no code for it and runs on the CPU ('amdgpu is not supported', 'no compatible amdgpu "
        "devices detected', or the GPU simply left unused).",
        _fix(matrix, gpus, plats, rows),
        f"{said[:160]} | {named} | {rows[0].get('source')}", "gpu")
