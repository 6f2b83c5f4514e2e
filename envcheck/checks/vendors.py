"""AMD ROCm / Intel XPU / Apple MPS findings (contract §9): the rules live in :mod:`envcheck.engine.vendors`."""

from __future__ import annotations

from typing import List

from envcheck.checks import Context
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding

__all__ = ["check_vendors", "VENDOR_IDS"]

#: the ids of contract §9's table that these checks emit (besides §3's driver-too-old, gpu-arch-unsupported,
#: framework-cpu-only and envcheck's not-checked)
VENDOR_IDS = ("device-permission", "framework-vendor-mismatch", "mps-os-too-old", "python-arch-mismatch",
              "xpu-level-zero-missing")


def check_vendors(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    from envcheck.engine.vendors import vendor_findings

    return vendor_findings(env, matrix)
