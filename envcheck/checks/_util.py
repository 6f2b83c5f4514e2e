"""Small helpers shared by the checks."""

from __future__ import annotations

from typing import Optional

from envcheck.engine.builds import cuda_builds as cuda_builds  # the rule is the engine's; checks name it
from envcheck.matrix import Matrix
from envcheck.model import Environment, Framework, cuda_tuple


def label(fw: Framework) -> str:
    return f"{fw.distribution or fw.name} {fw.version or '(unknown version)'}"


def cuda_major(fw: Framework) -> Optional[int]:
    t = cuda_tuple(fw.cuda)
    if t:
        return t[0]
    if fw.cuda_major:
        return fw.cuda_major
    m = fw.build_info.get("cuda_major")
    return m if isinstance(m, int) else None


def suggest_build(env: Environment, matrix: Matrix, fw: Framework) -> Optional[str]:
    """The install command of a build of the same release (else of any release) that runs here, as
    ``envcheck fix`` would choose it (the same resolver and engine); ``None`` when none fits."""
    from envcheck.errors import UsageError
    from envcheck.plan.output import pip_commands
    from envcheck.plan.resolve import parse_wants, resolve, target_from_env

    if fw.name not in ("torch", "tensorflow", "jax", "cupy"):
        return None
    target = target_from_env(env, matrix)
    base = (fw.version or "").split("+", 1)[0]
    for want in ([f"{fw.name}=={base}"] if base else []) + [fw.name]:
        try:
            plan = resolve(matrix, target, parse_wants([want]))
        except UsageError:  # a version pip would not accept as a requirement: no suggestion for it
            continue
        if plan.satisfiable and plan.builds and plan.builds[0].gpu:
            cmds = [c.replace("python -m pip install", "pip install", 1) for c in pip_commands(plan)]
            return " && ".join(cmds) or None
    return None


def driver_advice_text(env: Environment, matrix: Matrix, fw: Framework) -> Optional[str]:
    """When no build of ``fw``'s framework runs on this driver: the smallest driver upgrade that runs one and the
    newest build's floor, as one sentence (engine/advice.py decides both); ``None`` otherwise."""
    from envcheck.engine import machine_from_env
    from envcheck.engine.advice import driver_advice

    if fw.name not in ("torch", "tensorflow", "jax", "cupy"):
        return None
    from envcheck.errors import UsageError

    try:
        machine = machine_from_env(env, matrix)
    except UsageError:  # a fact machine_from_env cannot read (it names it in its own finding): no advice
        return None
    advice = driver_advice(matrix, machine, fw.name)
    if advice is None:
        return None
    py = f" for Python {machine.python}" if machine.python else ""
    if advice.same:
        return (f"Every {fw.name} build{py} here needs a driver >= {advice.smallest} "
                f"({advice.newest_build.label} is the newest).")
    return (f"No {fw.name} build{py} runs on this driver: the smallest upgrade that runs one is >= {advice.smallest} "
            f"({advice.smallest_build.label}); the newest build, {advice.newest_build.label}, needs >= "
            f"{advice.newest}.")
