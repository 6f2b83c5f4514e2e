"""The ``envcheck/plan/1`` document for an Environment: the one home of what ``envcheck fix`` and the
Python API (:func:`envcheck.api.plan`) plan. An AMD / Intel / Apple / Jetson machine gets its vendor's
builds (contract §9); every other machine the CUDA / CPU resolver's plan."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from envcheck.plan.resolve import Plan


def plan_document(env: Any, matrix: Any, wants: Iterable[str] = (), *, cpu: bool = False,
                  require_gpu: bool = False, python: Optional[str] = None, driver: Optional[str] = None,
                  ccs: Iterable[str] = (), gpus: Iterable[str] = (),
                  platform: Optional[str] = None) -> Tuple[Dict[str, Any], Optional[Plan], Optional[str]]:
    """``(document, plan, vendor)``: ``plan`` is the resolver's Plan (None for a vendor machine's plan),
    ``vendor`` the kind of vendor machine (``"amd"``, ``"intel"``, ``"apple"``, ``"jetson"``) or None.
    ``wants`` are PEP 508 requirements; none means the frameworks installed now."""
    from envcheck.plan.output import plan_dict
    from envcheck.plan.resolve import parse_wants, resolve, target_from_env, wants_from_env
    from envcheck.plan.vendors import is_vendor_machine, vendor_plan

    wants = list(wants)
    ccs, gpus = list(ccs), list(gpus)
    want_list = parse_wants(wants) if wants else wants_from_env(env)
    if not want_list and not env.captured("packages.json", "torch.json", "tensorflow.json"):
        from envcheck.errors import UsageError

        # a snapshot made by hand without a package list: what is installed is not known, not "nothing"
        raise UsageError("nothing to plan: this snapshot holds no package list (packages.json, torch.json), so which "
                         "frameworks are installed is not known; name one with --want (e.g. --want torch)")
    kind = None if (cpu or driver or ccs or gpus or platform) else is_vendor_machine(env)
    if kind is not None:
        if python:
            # --python describes the Python the plan is for, on a vendor machine too (its wheels must fit it)
            from dataclasses import replace

            from envcheck.errors import UsageError
            from envcheck.versions import cuda_tuple

            t = cuda_tuple(python)
            if t is None or "." not in python:
                raise UsageError(f"not a Python version: {python!r} (expected X.Y)")
            env = replace(env, python=replace(env.python, version=f"{t[0]}.{t[1]}"))
        doc: Dict[str, Any] = vendor_plan(env, matrix, want_list, kind)
        return doc, None, kind
    target = target_from_env(env, matrix, python=python, driver=driver, ccs=ccs, gpus=gpus, platform=platform)
    plan = resolve(matrix, target, want_list, cpu=cpu, require_gpu=require_gpu)
    out: Dict[str, Any] = plan_dict(plan)
    return out, plan, None


def plan_for(want: Union[str, Iterable[str]] = (), *, snapshot: Optional[str] = None, cpu: bool = False,
             require_gpu: bool = False, python: Optional[str] = None, driver: Optional[str] = None,
             gpu: Union[str, Iterable[str]] = (), compute_capability: Union[str, Iterable[str]] = (),
             platform: Optional[str] = None, interpreter: Optional[str] = None) -> Dict[str, Any]:
    """The ``envcheck/plan/1`` document for ``want`` (PEP 508 requirements such as ``"torch==2.5.*"``;
    none: the frameworks installed now), as ``envcheck fix --json`` prints it (the Python API's
    ``envcheck.plan``), for this machine, a ``snapshot``, or a machine described by ``driver`` / ``gpu`` /
    ``compute_capability`` / ``python`` / ``platform`` (the options of ``envcheck fix``)."""
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix
    from envcheck.probe.open import open_source

    def _list(v: Union[str, Iterable[str]]) -> List[str]:
        return [v] if isinstance(v, str) else list(v)

    matrix = load_matrix()
    env = collect(open_source(snapshot, interpreter=interpreter), matrix)
    doc, _plan, _kind = plan_document(env, matrix, _list(want), cpu=cpu, require_gpu=require_gpu, python=python,
                                      driver=driver, ccs=_list(compute_capability), gpus=_list(gpu),
                                      platform=platform)
    return doc


__all__: List[str] = ["plan_document", "plan_for"]
