"""AMD ROCm / Intel XPU / Apple MPS findings (contract §9): the rules live in :mod:`envcheck.engine.vendors`;
this check adds the concrete install command ``envcheck fix`` would print to a vendor mismatch."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional

from envcheck.checks import Context
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding

__all__ = ["check_vendors", "VENDOR_IDS"]

#: the ids of contract §9's table that these checks emit (besides §3's driver-too-old, gpu-arch-unsupported,
#: framework-cpu-only and envcheck's not-checked)
VENDOR_IDS = ("device-permission", "framework-vendor-mismatch", "mps-os-too-old", "python-arch-mismatch",
              "xpu-level-zero-missing")


def _plan_command(env: Environment, matrix: Matrix) -> Optional[str]:
    """The pip command of the torch build ``envcheck fix`` plans for this machine, if one fits."""
    from envcheck.plan.resolve import parse_wants
    from envcheck.plan.vendors import is_vendor_machine, vendor_plan

    kind = is_vendor_machine(env)
    if kind is None:
        return None
    from envcheck.errors import UsageError

    try:
        plan = vendor_plan(env, matrix, parse_wants(["torch"]), kind)
    except UsageError:  # nothing to plan from what is installed: no suggestion (the finding stands without one)
        return None
    cmds = plan["commands"]["pip"] if plan.get("satisfiable") else []
    if not cmds:
        return None
    env_vars = plan.get("env") or {}
    envs = " ".join(f"{k}={v}" for k, v in env_vars.items())
    cmd = (envs + " " if envs else "") + str(cmds[-1]).replace("python -m pip install", "pip install", 1)
    if "HSA_OVERRIDE_GFX_VERSION" in env_vars:
        cmd += "` (HSA_OVERRIDE_GFX_VERSION: an unofficial same-family workaround, not supported by AMD)`"
    return cmd


def check_vendors(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    from envcheck.engine.vendors import vendor_findings

    out = vendor_findings(env, matrix)
    for i, f in enumerate(out):
        if f.id == "framework-vendor-mismatch" and f.component == "torch":
            cmd = _plan_command(env, matrix)
            if cmd:
                out[i] = replace(f, fix=(f.fix or "") + f" For this machine: `{cmd}`.")
    return out
