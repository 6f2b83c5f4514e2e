"""The cuDNN causes a thread's sentences show (issue 20, session 22 cudnn36): pure functions over the evidence lines
of :mod:`envcheck.paste.readers.prose_cudnn` and the text's facts, each returning the finding or ``None``.

The two ids are split as docs/contract.md §3 and the acceptance24 README set them: a cuDNN of the build's major that
does not load (none installed, not configured, another major) is ``cudnn-missing``; a loaded cuDNN of the same major
with another minor is ``cudnn-version-mismatch``. The majors compared are the ones the text states; where it states
no version for one side, a needed major alone (``cudnn8``) is a major the machine lacks, and a needed minor
(``8.5``) one the machine's same-major cuDNN is below; nothing is decided from a version the text does not give.

* :func:`built_run`: the cuDNN a build was compiled with against the one it runs with (``cudnn-built-run``; a sentence
  that does not name cuDNN counts only under an issue title naming it and where the sentence names no CUDA).
* :func:`said_old`: the cuDNN said too old for the build (``cudnn-said-old``), the machine's version from the same
  line or else the text's own cuDNN claim (an issue template's "CUDA/cuDNN version", "cudnn: 8.2.4").
* :func:`not_set_up`: cuDNN said not installed or not configured (``cudnn-not-set-up``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import Finding, Severity

__all__ = ["built_run", "said_old", "not_set_up", "findings"]

_FIX_MISSING = ("Install the cuDNN release of the major the build was made for (the framework's install page names it; "
                "for a pip torch or TensorFlow, the nvidia-cudnn wheel it depends on), and make it the one the loader "
                "finds (LD_LIBRARY_PATH / PATH); or install the build made for the cuDNN the machine has. "
                "`envcheck status` names both sides.")
_FIX_MISMATCH = ("Install the cuDNN minor the build was compiled with, or a newer one of the same major, and make it "
                 "the one loaded first (one copy on LD_LIBRARY_PATH / PATH; in conda, the env's cudnn package); or "
                 "install a build compiled for the cuDNN the machine has.")


def _major(v: str) -> str:
    return v.split(".", 1)[0]


def _key(v: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in v.split(".") if p.isdigit())


def _cause(need: str, have: str) -> Optional[str]:
    """The id for a needed and a machine's cuDNN version (either may be empty)."""
    if need and have:
        if need == have:
            return None
        return "cudnn-version-mismatch" if _major(need) == _major(have) else "cudnn-missing"
    if need:
        return "cudnn-version-mismatch" if "." in need else "cudnn-missing"
    return None


def _finding(cause: str, message: str, evidence: str) -> Finding:
    return Finding(cause, Severity.ERROR, message, _FIX_MISMATCH if cause == "cudnn-version-mismatch" else _FIX_MISSING,
                   evidence[:200], "cudnn")


def built_run(lines: Dict[str, str]) -> Optional[Finding]:
    value = lines.get("cudnn-built-run")
    if not value:
        return None
    parts = value.split(" | ", 3)
    if len(parts) < 4:
        return None
    built, run, named, line = parts
    if named != "cudnn" and (named or not lines.get("cudnn-title")):
        return None
    cause = _cause(built, run)
    if cause is None:
        return None
    said = (f"the build was compiled with cuDNN {built} and the machine loads {run}: "
            + ("the same major with an older minor, which the build's check refuses (a cuDNN of that major and an "
               "equal or higher minor is needed)" if cause == "cudnn-version-mismatch" and _key(run) < _key(built)
               else "another minor of the same major" if cause == "cudnn-version-mismatch"
               else "another major, whose libraries the build cannot use"))
    return _finding(cause, f"The text says {said} (\"{line[:140]}\").", line)


def said_old(facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    value = lines.get("cudnn-said-old")
    if not value:
        return None
    parts = value.split(" | ", 2)
    if len(parts) < 3:
        return None
    need, have, line = parts
    if not have:
        claims = facts.get("claims")
        have = str(claims.get("cudnn") or "") if isinstance(claims, dict) else ""
    cause = _cause(need, have)
    if cause is None:
        return None
    mine = f" (the machine's: {have})" if have else ""
    return _finding(cause, f"The text says the cuDNN is too old for the build, which needs cuDNN {need}{mine}: "
                    + ("a cuDNN of that major is not there to load." if cause == "cudnn-missing"
                       else "the machine's cuDNN has the major but an older minor than the build was compiled with.")
                    + f" (\"{line[:140]}\")", line)


def not_set_up(lines: Dict[str, str]) -> Optional[Finding]:
    line = lines.get("cudnn-not-set-up")
    if not line:
        return None
    return _finding("cudnn-missing", f"The text says cuDNN is not installed or not configured (\"{line[:140]}\"): the "
                    "framework loads cuDNN when a cuDNN operator first runs, so the GPU may work until then and "
                    "fail there (a checker such as Paddle's run_check fails at once).", line)


def findings(facts: Dict[str, Any], lines: Dict[str, str]) -> List[Finding]:
    """Every finding of this module for one text, best first; one per id."""
    out: List[Finding] = []
    for f in (built_run(lines), said_old(facts, lines), not_set_up(lines)):
        if f is not None and f.id not in {g.id for g in out}:
            out.append(f)
    return out
