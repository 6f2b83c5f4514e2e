"""A :class:`~envcheck.plan.resolve.Plan` as contract JSON (§5), install commands, and the files of
``envcheck fix --write-env``: ``requirements.txt``, ``environment.yml`` and ``envcheck.env``.

Pure functions: they return data and text; the CLI prints and :mod:`envcheck.safe_io` writes.
"""

from __future__ import annotations

import shlex
from typing import Any, Dict, List, Optional

from envcheck.plan.resolve import PLAN_SCHEMA, Plan

__all__ = ["plan_dict", "plan_groups", "pip_commands", "uv_commands", "conda_commands", "requirements_txt", "environment_yml",
           "env_file", "requirement_line"]

PYPI = "https://pypi.org/simple"


def _q(s: str) -> str:
    return shlex.quote(s)


def requirement_line(pkg: Dict[str, Any], local: bool = False) -> str:
    """``name[extras]==version``; with the local build tag (``+cu111``) where the wheel comes from a
    find-links page (which lists every build of a version), or where ``local`` asks for it."""
    extras = f"[{','.join(pkg['extras'])}]" if pkg.get("extras") else ""
    tag = f"+{pkg['variant']}" if (local or pkg.get("find_links")) and pkg.get("variant") and \
        pkg["name"] in ("torch", "torchvision", "torchaudio") else ""
    return f"{pkg['name']}{extras}=={pkg['version']}{tag}"


def plan_groups(plan: Plan) -> List[Dict[str, Any]]:
    """Packages grouped by the index they come from, in install order (torch before tensorflow)."""
    groups: List[Dict[str, Any]] = []
    for pkg in plan.packages():
        url, links = pkg.get("index_url"), pkg.get("find_links")
        for g in groups:
            if g["index_url"] == url and g["find_links"] == links:
                g["packages"].append(pkg)
                break
        else:
            groups.append({"index_url": url, "find_links": links, "packages": [pkg]})
    return groups


def _install_commands(plan: Plan, prefix: str) -> List[str]:
    out = []
    for g in plan_groups(plan):
        cmd = prefix + " " + " ".join(_q(requirement_line(p)) for p in g["packages"])
        if g["index_url"]:
            cmd += f" --index-url {g['index_url']}"
        if g["find_links"]:
            cmd += f" --find-links {g['find_links']}"
        out.append(cmd)
    return out


def pip_commands(plan: Plan, python: str = "python") -> List[str]:
    return _install_commands(plan, f"{python} -m pip install")


def uv_commands(plan: Plan) -> List[str]:
    return _install_commands(plan, "uv pip install")


def _cuda_version_pin(plan: Plan) -> Optional[str]:
    """conda-forge's ``cuda-version`` pin: the builds' CUDA major, capped at what the driver runs fully (the
    engine's :func:`~envcheck.engine.rules.conda_cuda_version`)."""
    from envcheck.engine.rules import conda_cuda_version

    return conda_cuda_version([b.cuda for b in plan.builds if b.cuda], plan.target.driver_cuda if plan.target else None)


def conda_commands(plan: Plan) -> List[str]:
    """conda-forge packages (pytorch, tensorflow, jax) with the build string selecting CUDA builds."""
    specs: List[str] = []
    gpu = any(b.cuda for b in plan.builds)
    if any(pkg["name"] == "onnxruntime-gpu" for pkg in plan.packages()):
        return []
    if any(b.cuda and b.no_conda_cuda for b in plan.builds):
        return []  # conda-forge has no CUDA build of that release (torch 1.0-1.7, TensorFlow 1.x / 2.0): none to name  # envcheck's matrix has no conda row for ONNX Runtime's CUDA builds: no command rather than a wrong one
    for pkg in plan.packages():
        name, v = pkg["name"], pkg["version"]
        cpu = pkg.get("variant") == "cpu"
        if name == "torch":
            specs.append(f"pytorch={v}=" + ("cpu*" if cpu else "cuda*"))
        elif name in ("torchvision", "torchaudio"):
            specs.append(f"{name}={v}")
        elif name in ("tensorflow", "tensorflow-gpu"):
            specs.append(f"tensorflow={v}=" + ("cpu*" if cpu else "cuda*"))
        elif name == "jax":
            specs.append(f"jax={v}")
        elif name == "jaxlib":
            specs.append(f"jaxlib={v}=" + ("cpu*" if cpu else "cuda*"))
        elif name.startswith("cupy-cuda"):
            specs.append(f"cupy={v}")  # conda-forge's one cupy package; cuda-version below selects the CUDA
    pin = _cuda_version_pin(plan) if gpu else None
    if pin:
        specs.append(pin)
    py = plan.target.python if plan.target else None
    head = "conda install -c conda-forge --override-channels"
    if py:
        specs.insert(0, f"python={py}")
    return [head + " " + " ".join(_q(s) for s in specs)] if specs else []


def plan_dict(plan: Plan) -> Dict[str, Any]:
    """Contract §5 (``envcheck/plan/1``), plus envcheck's own keys."""
    d: Dict[str, Any] = {
        "schema": PLAN_SCHEMA,
        "satisfiable": plan.satisfiable,
        "reason": plan.reason,
        "packages": [_pkg_out(p) for p in plan.packages()],
        "driver": {"required_min": str(plan.required_driver) if plan.required_driver else None,
                   "upgrade_needed": plan.upgrade_needed},
        "commands": {"pip": pip_commands(plan), "uv": uv_commands(plan), "conda": conda_commands(plan)}
        if plan.builds else {"pip": [], "uv": [], "conda": []},
        "env": dict(plan.env),
        "target": plan.target.to_dict() if plan.target else None,
        "checks": {v.build.label: v.lines for v in plan.verdicts},
        "notes": list(dict.fromkeys(plan.notes)),
        "lifts": plan.lifts,
        "alternatives": [dict(plan_dict(p), label=label) for label, p in plan.alternatives],
        "split": [plan_dict(p) for p in plan.split],
    }
    return d


def _pkg_out(p: Dict[str, Any]) -> Dict[str, Any]:
    out = {"name": p["name"], "version": p["version"], "variant": p["variant"], "index_url": p["index_url"]}
    if p.get("find_links"):
        out["find_links"] = p["find_links"]
    if p.get("extras"):
        out["extras"] = list(p["extras"])
    if p.get("cuda"):
        out["cuda"] = p["cuda"]
    if p.get("cudnn"):
        out["cudnn"] = p["cudnn"]
    return out


def _header(plan: Plan, comment: str = "#") -> List[str]:
    t = plan.target
    lines = [f"{comment} written by `envcheck fix --write-env`"]
    if t is not None:
        gpus = ", ".join(t.gpu_names) or "none"
        lines.append(f"{comment} for: driver {t.driver or 'unknown'} (CUDA {t.driver_cuda or '?'}), GPUs: {gpus}, "
                     f"Python {t.python or '?'}, {t.platform if t.platform_known else 'platform unknown'}")
    if plan.required_driver:
        lines.append(f"{comment} needs NVIDIA driver >= {plan.required_driver}")
    return lines


def requirements_txt(plan: Plan) -> str:
    """pip requirements: exact pins; a PyTorch index as an extra index with local version tags, so that
    PyPI still serves everything else and the pin names one build."""
    lines = _header(plan)
    extra = [g["index_url"] for g in plan_groups(plan) if g["index_url"]]
    for url in dict.fromkeys(extra):
        lines.append(f"--extra-index-url {url}")
    for links in dict.fromkeys(g["find_links"] for g in plan_groups(plan) if g["find_links"]):
        lines.append(f"--find-links {links}")
    for p in plan.packages():
        # the local version tag download.pytorch.org gives these wheels names the one build
        lines.append(requirement_line(p, local=bool(p.get("index_url"))))
    return "\n".join(lines) + "\n"


def environment_yml(plan: Plan, name: str = "envcheck") -> str:
    """A conda environment: Python from conda-forge, the plan's exact pip builds under ``pip:``."""
    lines = _header(plan)
    lines += [f"name: {name}", "channels:", "  - conda-forge", "dependencies:"]
    if plan.target and plan.target.python:
        lines.append(f"  - python={plan.target.python}")
    lines.append("  - pip")
    lines.append("  - pip:")
    for url in dict.fromkeys(g["index_url"] for g in plan_groups(plan) if g["index_url"]):
        lines.append(f"    - --extra-index-url {url}")
    for links in dict.fromkeys(g["find_links"] for g in plan_groups(plan) if g["find_links"]):
        lines.append(f"    - --find-links {links}")
    for p in plan.packages():
        lines.append(f"    - {requirement_line(p, local=bool(p.get('index_url')))}")
    if plan.env:
        lines.append("variables:")
        for k, v in plan.env.items():
            lines.append(f"  {k}: {_yaml_str(v.replace('${VIRTUAL_ENV}', '${CONDA_PREFIX}'))}")
    return "\n".join(lines) + "\n"


def _yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def env_file(plan: Plan) -> str:
    """Shell exports the plan needs (``. ./envcheck.env`` after activating the venv)."""
    lines = _header(plan)
    lines.append("# source it after activating the environment:  . ./envcheck.env")
    if not plan.env:
        lines.append("# this plan needs no environment variables")
    for k, v in plan.env.items():
        # double quotes: ${VIRTUAL_ENV} and ${LD_LIBRARY_PATH} expand when the file is sourced
        lines.append(f'export {k}="{v}"')
    return "\n".join(lines) + "\n"
