"""Report-level causes that a bug report's *text* shows without any environment report in it (issue 20): pure
functions over the text's facts (``envcheck explain --json``'s ``facts``) and its evidence lines (the paste readers'
``seen:`` lines), each returning the finding ``status`` would give for those facts, or ``None``.

* :func:`hidden_gpu`: ``CUDA_VISIBLE_DEVICES`` set in the text (``export CUDA_VISIBLE_DEVICES=1``,
  ``os.environ["CUDA_VISIBLE_DEVICES"] = "7"``, ``CUDA_VISIBLE_DEVICES="" python ...``) to a value that lists no
  GPU 0 (empty, ``-1``, only indices >= 1), beside a failure to see any GPU: CUDA numbers the GPUs it lists from 0,
  so on a machine with fewer GPUs than the index none is visible (CUDA C Programming Guide, "CUDA Environment
  Variables": CUDA_VISIBLE_DEVICES). A value that lists GPU 0 hides nothing on a machine with a GPU: no finding
  (the paste reader :func:`~envcheck.paste.readers.prose_facts.visible_devices_hide` keeps only values that hide it).
* :func:`compat_on_unsupported_gpu`: the CUDA forward-compatibility package (``cuda-compat-12-4``, the
  ``/usr/local/cuda/compat`` libcuda) named beside a GPU that NVIDIA's forward-compatibility list does not cover
  (GeForce and other consumer GPUs: NVIDIA's CUDA Compatibility guide, "Forward Compatibility": data-center GPUs,
  select NGC Server Ready RTX SKUs and Jetson only; the matrix's ``[[forward_compat]]`` rows decide, as for a
  snapshot in :mod:`envcheck.engine`), and a GPU failure in the text.
* :func:`driver_below_build`: a driver version a sentence states (with its dots) below the lowest driver the
  torch build's CUDA (its ``+cuXXX`` label) runs on (:func:`envcheck.engine.rules.driver_need`, on the lower of
  the Linux and Windows floors where the OS is not known), beside a GPU failure in the text.

Each is said only with the text's own evidence; an unknown fact decides nothing (None). The causes a text's sentences
show for a CPU-only build, a driver too old and a GPU the build's CUDA cannot target are
:mod:`envcheck.engine.prose_causes`' (merged after these); what they say of a non-NVIDIA machine (an AMD GPU said
unsupported, an x86_64 Python on Apple silicon, a CUDA-only package there) :mod:`envcheck.engine.vendors_prose`'.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from envcheck.engine import cudnn_prose, prose_causes, rules, vendors_prose
from envcheck.model import Finding, Severity
from envcheck.versions import DriverVersion

__all__ = ["hidden_gpu", "compat_on_unsupported_gpu", "driver_below_build", "findings"]

_SOURCE_CVD = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
_SOURCE_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/index.html#forward-compatibility"


def hidden_gpu(lines: Dict[str, str]) -> Optional[Finding]:
    """``CUDA_VISIBLE_DEVICES`` hides GPU 0 (evidence ``cvd-hides``: "value | the line") and the text shows no GPU
    was visible (``no-gpu-seen``: torch's "No CUDA GPUs are available", CUDA's "no CUDA-capable device is detected",
    ``is_available()`` printed False on that line)."""
    said, failed = lines.get("cvd-hides"), lines.get("no-gpu-seen")
    if not said or not failed or " | " not in said:
        return None
    value, line = said.split(" | ", 1)
    shown = "empty" if value.strip().strip("\"'") == "" else repr(value.strip().strip("\"'"))
    return Finding(
        "no-gpu-visible", Severity.ERROR,
        f"CUDA_VISIBLE_DEVICES is set to {shown} in the text: CUDA numbers only the GPUs it lists, from 0, so a value "
        "without GPU 0 (empty, -1, or an index the machine does not have) leaves no GPU visible to the program.",
        "Set CUDA_VISIBLE_DEVICES to GPUs this machine has (`export CUDA_VISIBLE_DEVICES=0` on a one-GPU machine; "
        "`nvidia-smi -L` lists them), or remove the line that sets it (in the script or its launcher) before "
        "CUDA is first used.",
        f"{line[:200]} | {failed[:200]}", "gpu")


def _segment(matrix: Any, name: str) -> Optional[str]:
    row = matrix.gpu(name) if matrix is not None else None
    return str(row["segment"]) if row and row.get("segment") else None


def compat_on_unsupported_gpu(matrix: Any, lines: Dict[str, str], gpu_names: Sequence[str],
                              failed: bool) -> Optional[Finding]:
    """The forward-compatibility package named (evidence ``cuda-compat``) beside a GPU NVIDIA's list leaves out."""
    said = lines.get("cuda-compat")
    names = [n for n in dict.fromkeys(gpu_names) if n]
    if not said or not names or not failed or matrix is None:
        return None
    ok, why, _ = rules.forward_compat(matrix, [(n, _segment(matrix, n)) for n in names])
    if ok is not False:
        return None
    return Finding(
        "forward-compat-unsupported", Severity.ERROR,
        f"The text uses the CUDA forward-compatibility package, but {why}: on this GPU the compat libcuda fails every "
        "CUDA call (CUDA error 804, \"forward compatibility was attempted on non supported HW\").",
        "Remove the cuda-compat package (or take its folder off LD_LIBRARY_PATH / the container's ld.so.conf) and "
        "install a driver whose CUDA version is at least the build's; or use an image built for the host's driver.",
        f"{said[:200]} | GPU: {', '.join(names)[:120]} ({_SOURCE_COMPAT})", "driver")


def _floor(matrix: Any, cuda: str) -> Optional[DriverVersion]:
    needs = [rules.driver_need(matrix, cuda, windows=w, ptx_needed=False) for w in (False, True)]
    known = [n for n in needs if n is not None]
    return min(known, key=lambda d: d.key) if known else None


def driver_below_build(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """A driver a sentence of the text states (evidence ``driver-prose``, the same one the facts carry: no report of
    the text names another) below the lowest one the torch build's CUDA runs on."""
    drv = ((facts.get("driver") or {}).get("version")) if isinstance(facts.get("driver"), dict) else None
    torch = ((facts.get("frameworks") or {}).get("torch")) or {}
    cuda = torch.get("cuda") if isinstance(torch, dict) else None
    if not failed or not drv or not cuda or matrix is None or lines.get("driver-prose") != str(drv):
        return None  # a report's driver is judged by the report's own checks, with the GPU and the build in view
    have = DriverVersion.parse(str(drv))
    need = _floor(matrix, str(cuda))
    if have is None or need is None or have.key >= need.key:
        return None
    return Finding(
        "driver-too-old", Severity.ERROR,
        f"The driver the text states ({drv}) is older than the lowest driver that runs a CUDA {cuda} build "
        f"({need}): torch {torch.get('version')} cannot initialise CUDA with it.",
        f"Install an NVIDIA driver {need} or newer, or a torch build for an older CUDA that driver {drv} runs "
        "(`envcheck fix --want torch` lists them).",
        f"driver {drv}; torch {torch.get('version')} (CUDA {cuda})", "driver")


def findings(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool,
             gpu_ran: Optional[str] = None, no_build: Optional[str] = None) -> List[Finding]:
    """Every finding of this module for one text, best first (``failed``: the text shows a GPU failure; ``gpu_ran``: a
    log line only a GPU build prints while running, see :func:`envcheck.engine.prose_causes.findings`; ``no_build``:
    pip's line finding no build of a package, ``package | line``, :func:`envcheck.explain.rank.no_build`)."""
    gpus = [str(g["name"]) for g in (facts.get("gpus") or []) if isinstance(g, dict) and g.get("name")]
    gpus += [n for n in (lines.get("gpu-prose") or "").split("|") if n]
    out = [hidden_gpu(lines), compat_on_unsupported_gpu(matrix, lines, gpus, failed),
           driver_below_build(matrix, facts, lines, failed)]
    if out[2] is None:  # the build's CUDA unknown: PyPI's default build of the release, where pip installed it
        from envcheck.engine.pypibuild import prose_driver_too_old

        out.append(prose_driver_too_old(matrix, facts, lines, failed))
    found = [f for f in out if f is not None]
    found += [f for f in vendors_prose.findings(matrix, facts, lines) if f.id not in {g.id for g in found}]
    taken = {f.id for f in found}
    found += [f for f in prose_causes.findings(matrix, facts, lines, failed, gpu_ran, no_build) if f.id not in taken]
    taken = {f.id for f in found}
    return found + [f for f in cudnn_prose.findings(facts, lines) if f.id not in taken]
