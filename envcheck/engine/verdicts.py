"""The verdicts on explain's log-line matches: which cause a matched line names on the evidence at hand, which match
the text contradicts (dropped: the cause is left unknown, not stated falsely), which it recasts as another cause.

explain reads the lines and maps them to matches (a cause id, the wording's ``says`` of errors.toml, its captures);
it asks these functions by that id and applies the answer, and orders and words what is left (one home per rule:
tests/test_code_rules.py ``test_explain_decides_no_new_verdict_by_cause_id``). Each function delegates to the engine
rule that holds the knowledge (engine.rules, engine.vendors, engine.cpubuild, engine.builds, engine.stack).
"""

from __future__ import annotations

from typing import Any, Collection, Mapping, Sequence

__all__ = ["cuda_probe_where_mps_ran", "pip_release_found"]


def cuda_probe_where_mps_ran(cause: str, says: Sequence[str], causes: Collection[str]) -> bool:
    """Whether a "this torch has no CUDA" line (``says`` ``no-cuda-in-build``) read on a Mac as CUDA asked of a macOS
    build (``framework-vendor-mismatch``) is contradicted by the log's other ``causes``: the MPS backend itself failed on
    an operator (``mps-op-unsupported``), so the program ran on MPS and the CUDA line was a probe it caught (the Stable
    Diffusion web UI's "Warning: caught exception 'Torch not compiled with CUDA enabled', memory monitor disabled" at
    every start on a Mac, AUTOMATIC1111/stable-diffusion-webui#1212), not the failure."""
    return cause == "framework-vendor-mismatch" and "no-cuda-in-build" in says and "mps-op-unsupported" in causes


#: pip's lines read as "no build for this Python" (python-unsupported): its "Could not find a version ..." /
#: "No matching distribution" line, and its "Ignored the following versions that require a different python version"
#: line (printed with the failure, for every package the run looked at): their wordings' ``says`` (errors.toml)
_PIP_PYTHON = "pip-python-line"


def pip_release_found(cause: str, says: Sequence[str], captures: Mapping[str, Any]) -> bool:
    """Whether pip's "Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: ...,
    2.1.2)" read as "no build for this Python" (python-unsupported) is contradicted by the versions pip found for this
    interpreter: they list the pinned release itself (capture ``release_found``: a ``+cu118`` label is only on PyTorch's
    own index, never on PyPI), so a build for this Python exists and pip's lines say nothing of the Python."""
    return cause == "python-unsupported" and _PIP_PYTHON in says and bool(captures.get("release_found"))
