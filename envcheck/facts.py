"""Flat facts: the names of errors.toml's ``[[fact]]`` rows (driver, driver_cuda, cc, gpu, python, torch, ...) read
from a contract §2-shaped report. A leaf: explain computes with them and the explain renderer shows them, and
neither has to import the other for it."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = ["flat_facts"]


def flat_facts(report: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """Contract §4 ``facts`` (the shape of §2: driver, gpus, python, frameworks) -> flat facts."""
    out: Dict[str, str] = {}
    if not isinstance(report, dict):
        return out
    drv = report.get("driver") or {}
    if isinstance(drv, dict):
        if drv.get("version"):
            out["driver"] = str(drv["version"])
        if drv.get("cuda"):
            out["driver_cuda"] = str(drv["cuda"])
    gpus = report.get("gpus") or []
    if isinstance(gpus, list) and gpus and isinstance(gpus[0], dict):
        if gpus[0].get("compute_capability"):
            out["cc"] = str(gpus[0]["compute_capability"])
        if gpus[0].get("name"):
            out["gpu"] = str(gpus[0]["name"])
    py = report.get("python") or {}
    if isinstance(py, dict) and py.get("version"):
        out["python"] = str(py["version"])
    for name, fw in (report.get("frameworks") or {}).items():
        if isinstance(fw, dict) and fw.get("version"):
            out[str(name)] = str(fw["version"])
            if name == "torch" and fw.get("cuda"):
                out["torch_cuda"] = str(fw["cuda"])
    assumed = (report.get("assumed") or {}).get("torch") if isinstance(report.get("assumed"), dict) else None
    if isinstance(assumed, dict) and assumed.get("cuda") and "torch_cuda" not in out:
        # an assumption, said as one (pypi29): PyPI's default build of the release
        out["torch_cuda_assumed"] = f"{assumed['cuda']} ({assumed.get('if') or 'assumed'}: {assumed.get('said') or ''})"
    return out
