"""``envcheck fix`` for AMD ROCm, Intel XPU, Apple MPS and NVIDIA Jetson machines (contract §5, §9).

The same ``envcheck/plan/1`` document; ``variant`` names the build (``rocm6.2``, ``xpu``, ``mps``,
``jetson``). Unlike uv's ``--torch-backend=auto`` and torchruntime, which pick an index from the vendor
alone, the ROCm plan only picks a build whose gfx list contains every GPU's target (the ISA-family
``HSA_OVERRIDE_GFX_VERSION`` is offered only as a labelled workaround when no build has the target), and
one inside the kernel driver's tested window where that window is known. Only torch (with torchvision /
torchaudio) is planned for these machines; other frameworks are named as not planned.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from envcheck.engine.builds import NO_CPU_BUILD, release_pythons
from envcheck.engine.vendors import (amd_driver_window, build_kind, jetson_indexes, machine_vendor, macos_at_least,
                                     macos_wheel_ok, mps_conda_line, mps_gpuless_mac, mps_min_macos)
from envcheck.matrix import Matrix
from envcheck.model import Environment
from envcheck.versions import cuda_tuple, spec_contains, version_tuple

__all__ = ["vendor_plan", "is_vendor_machine"]

PLAN_SCHEMA = "envcheck/plan/1"


def is_vendor_machine(env: Environment) -> Optional[str]:
    """"amd" | "intel" | "apple" | "jetson" when ``fix`` plans with this module, else ``None``."""
    if env.accel.l4t:
        return "jetson"
    v = machine_vendor(env)
    return v if v in ("amd", "intel", "apple") else None


def _spec_ok(spec: Any, version: str) -> bool:
    return spec_contains(spec, version)


def _doc(satisfiable: bool, reason: Optional[str], packages: List[Dict[str, Any]], pip: List[str], uv: List[str],
         conda: List[str], env: Dict[str, str], notes: List[str], lifts: List[Dict[str, str]],
         target: Dict[str, Any]) -> Dict[str, Any]:
    return {"schema": PLAN_SCHEMA, "satisfiable": satisfiable, "reason": reason, "packages": packages,
            "driver": {"required_min": None, "upgrade_needed": False},
            "commands": {"pip": pip, "uv": uv, "conda": conda} if satisfiable else {"pip": [], "uv": [], "conda": []},
            "env": env, "target": target, "checks": {}, "notes": notes, "lifts": lifts, "alternatives": [],
            "split": []}


def _companions(matrix: Matrix, release: str, wanted: List[str]) -> List[Tuple[str, str]]:
    rel = matrix.torch_release(release) or {}
    return [(c, str(rel[c])) for c in ("torchvision", "torchaudio") if c in wanted and rel.get(c)]


def _pip_line(pkgs: List[Tuple[str, str]], index: Optional[str]) -> str:
    line = "python -m pip install " + " ".join(f"{n}=={v}" for n, v in pkgs)
    return line + (f" --index-url {index}" if index else "")


def _uv_line(pkgs: List[Tuple[str, str]], backend: Optional[str], index: Optional[str]) -> str:
    line = "uv pip install " + " ".join(f"{n}=={v}" for n, v in pkgs)
    if backend:
        return line + f" --torch-backend={backend}"
    return line + (f" --index-url {index}" if index else "")


def _releases(matrix: Matrix) -> List[str]:
    vs = [str(r.get("version")) for r in matrix.rows("torch", "release") if r.get("version")]
    return sorted(vs, key=lambda v: version_tuple(v) or (), reverse=True)


def _lifts(others: List[str]) -> str:
    """What lifts a plan of frameworks envcheck does not plan on this machine: --cpu only where one has a CPU build."""
    if all(n in NO_CPU_BUILD for n in others):
        return "want torch; " + "; ".join(NO_CPU_BUILD[n] for n in others)
    return "plan the CPU builds with --cpu, or want torch"


def vendor_plan(env: Environment, matrix: Matrix, wants: List[Any], kind: str) -> Dict[str, Any]:
    names = [w.name for w in wants] or ["torch"]
    others = [n for n in names if n not in ("torch", "torchvision", "torchaudio")]
    spec = next((w.spec for w in wants if w.name == "torch"), None)
    notes: List[str] = []
    if others:
        notes.append(f"not planned on this machine: {', '.join(others)} (envcheck plans torch for AMD, Intel, Apple "
                     "and Jetson machines)")
    target = {"vendor": kind, "gpus": [g.name or g.gfx or g.device_id for g in env.accel.gpus],
              "python": env.python.minor,
              "platform": f"{env.python.platform}-{env.python.machine}" if env.python.platform and env.python.machine
              else env.python.platform}
    if not any(n in ("torch", "torchvision", "torchaudio") for n in names):
        return _doc(False, f"envcheck plans torch on this {kind} machine; {', '.join(others)} is not planned here", [],
                    [], [], [], {}, notes, [{"constraint": "framework", "action": _lifts(others)}], target)
    fn = {"amd": _amd_plan, "intel": _intel_plan, "apple": _apple_plan, "jetson": _jetson_plan}[kind]
    doc = fn(env, matrix, spec, names, notes, target)
    if doc.get("satisfiable") and not env.python.minor and kind != "jetson":
        # as the CUDA plans say it: the release's wheels were chosen without the Python they must fit
        doc["notes"].append("unverified: the Python version is unknown (give --python X.Y, or --interpreter PYTHON): "
                            "check that the release has wheels for it")
    return doc


def _wanted_release(spec: Any, release: str) -> bool:
    return spec is None or _spec_ok(spec, release)


def _python_ok(matrix: Matrix, release: str, py: Optional[str], platform: Optional[str] = None) -> Optional[bool]:
    """Whether torch ``release`` has wheels for Python ``py`` on ``platform`` (its own list of the matrix where the row
    has one: engine.builds.release_pythons; ``None``: Linux's), ``None`` where either is unknown."""
    pys = release_pythons(matrix.torch_release(release) or {}, platform)
    if not py or not pys:
        return None
    return py in pys


# -- AMD --------------------------------------------------------------------------------------------------
def _covers(r: Dict[str, Any], gl: List[str]) -> bool:
    """Compiled in, and with rocBLAS kernels (gfx900 / gfx906 are compiled into the ROCm 6.4+ wheels, whose
    bundled rocBLAS lacks them)."""
    return all(g in (r.get("gfx") or []) and g not in (r.get("rocblas_missing") or []) for g in gl)


def _in_window(r: Dict[str, Any], window: Optional[List[str]]) -> Optional[bool]:
    if window is None:
        return None
    t = cuda_tuple(str(r.get("rocm", "")))
    return bool(t and f"{t[0]}.{t[1]}" in window)


class _AmdFit:
    """The ROCm builds of the wanted releases (newest first) that fit a set of gfx targets, the driver window and
    the Python."""

    def __init__(self, matrix: Matrix, rows: List[Dict[str, Any]], window: Optional[List[str]], py: Optional[str]):
        self.matrix, self.rows, self.window, self.py = matrix, rows, window, py

    def __call__(self, gl: List[str]) -> List[Dict[str, Any]]:
        return [r for r in self.rows if _covers(r, gl) and _in_window(r, self.window) is not False
                and _python_ok(self.matrix, r["release"], self.py) is not False]


def _amd_override(matrix: Matrix, gfxs: List[str], fitting: _AmdFit) -> Tuple[List[Dict[str, Any]], Dict[str, str],
                                                                                Optional[str]]:
    """The labelled workaround, for every GPU at once: an ISA-family override the matrix records as working, to a
    target some build has (one value: the variable applies to every GPU of the process)."""
    acts: Dict[str, Tuple[str, str]] = {}
    for g in gfxs:
        for o in matrix.hsa_override(g):
            if o.get("works") is True and o.get("acts_as"):
                acts[g] = (str(o["acts_as"]), str(o["value"]))
    values = {acts[g][1] for g in gfxs if g in acts}
    if len(acts) != len(gfxs) or len(values) != 1:
        return [], {}, None
    fits = fitting([acts[g][0] for g in gfxs])
    if not fits:
        return [], {}, None
    value = values.pop()
    return fits, {"HSA_OVERRIDE_GFX_VERSION": value}, (
        f"no PyTorch ROCm build is compiled for {', '.join(gfxs)}; this plan uses the unofficial workaround "
        f"HSA_OVERRIDE_GFX_VERSION={value} (same ISA family, reported to work; not supported by AMD)")


def _amd_hide(env: Environment, gfxs: List[str], fitting: _AmdFit) -> Tuple[List[Dict[str, Any]], Dict[str, str],
                                                                            Optional[str]]:
    """Some GPUs natively: plan for them and hide the others."""
    for keep in sorted((tuple(x for x in gfxs if x != drop) for drop in gfxs), key=len, reverse=True):
        fits = fitting(list(keep))
        if fits:
            idx = [str(g.index) for g in env.accel.gpus if g.gfx in keep and g.index is not None]
            hidden = sorted({g.gfx or "?" for g in env.accel.gpus if g.gfx not in keep})
            # HIP may number the GPUs otherwise than rocm-smi / rocminfo: a gfx1030 + gfx1036 machine's
            # HIP_VISIBLE_DEVICES=0 kept the iGPU (a public deployment note, find_string id 66750402897)
            return fits, {"HIP_VISIBLE_DEVICES": ",".join(idx)}, (
                f"no build is compiled for {', '.join(hidden)}: this plan uses {', '.join(keep)} only and hides the "
                "rest with HIP_VISIBLE_DEVICES (numbered as the captures list the GPUs; HIP can number them otherwise: "
                "check that `python -c \"import torch; print(torch.cuda.get_device_name(0))\"` names the kept GPU)")
    return [], {}, None


def _amd_unsatisfiable(matrix: Matrix, rows: List[Dict[str, Any]], gfxs: List[str], window: Optional[List[str]],
                       py: Optional[str], notes: List[str]) -> Tuple[str, List[Dict[str, str]]]:
    """Why no build fits, and what would lift it."""
    lifts: List[Dict[str, str]] = []
    with_gfx = [r for r in rows if _covers(r, gfxs)]
    if with_gfx and window is not None and not any(_in_window(r, window) for r in with_gfx):
        r = with_gfx[0]
        lifts.append({"constraint": "driver", "action": f"upgrade the amdgpu kernel driver to one tested with ROCm "
                      f"{r.get('rocm')} ({', '.join(matrix.rocm_kmd_releases_for(str(r.get('rocm')))[:3])})"})
        return (f"the builds compiled for {', '.join(gfxs)} (newest: torch {r['release']} {r['variant']}) need a "
                f"ROCm user space outside the kernel driver's tested window ({', '.join(window)})"), lifts
    if with_gfx:
        pys = (matrix.torch_release(str(with_gfx[0]["release"])) or {}).get("python") or []
        lifts.append({"constraint": "python", "action": "use a Python the release supports"
                      + (f" (torch {with_gfx[0]['release']}: {', '.join(pys)})" if pys else "")})
        return f"no build compiled for {', '.join(gfxs)} has wheels for Python {py}", lifts
    for keep in (tuple(x for x in gfxs if x != drop) for drop in gfxs if len(gfxs) > 1):
        # the plan that hides a GPU no build has (see _amd_hide) failed only on the Python: say that, not "no build
        # is compiled for these targets"
        sub = [r for r in rows if _covers(r, list(keep)) and _in_window(r, window) is not False]
        if sub and py and not any(_python_ok(matrix, str(r["release"]), py) is not False for r in sub):
            pys = (matrix.torch_release(str(sub[0]["release"])) or {}).get("python") or []
            lifts.append({"constraint": "python", "action": "use a Python the release supports"
                          + (f" (torch {sub[0]['release']}: {', '.join(pys)})" if pys else "")})
            hidden = ", ".join(g for g in gfxs if g not in keep)
            return (f"no build compiled for {', '.join(keep)} has wheels for Python {py} (and none is compiled for "
                    f"{hidden})"), lifts
    unknown = [r for r in rows if not r.get("gfx")]
    elsewhere = False
    if not with_gfx:
        # the wanted releases lack the target, another release has it: say which (uv / torchruntime pick an index
        # without checking the GPU's target against the build); per GPU when no build has them all
        others = [r for r in matrix.rows("rocm", "torch_variant")
                  if "linux-x86_64" in (r.get("platforms") or ["linux-x86_64"]) and r not in rows]
        for gl in [gfxs] + ([[g] for g in gfxs] if len(gfxs) > 1 else []):
            have = [r for r in others if _covers(r, gl)]
            if not have:
                continue
            r = max(have, key=lambda x: (version_tuple(str(x["release"])) or (),
                                         version_tuple(str(x.get("rocm", ""))) or ()))
            lifts.append({"constraint": "release", "action": (f"for {gl[0]} alone: " if gl is not gfxs else "")
                          + f"want torch {r['release']} ({r['variant']}), whose PyTorch-index ROCm build is compiled "
                          f"for {', '.join(gl)}"})
            elsewhere = True
            if gl is gfxs:
                break
    for g in gfxs:
        for o in matrix.hsa_override(g):
            if o.get("works") is True:
                lifts.append({"constraint": "arch", "action": f"for {g} alone: the unofficial workaround "
                              f"HSA_OVERRIDE_GFX_VERSION={o['value']} (acts as {o.get('acts_as')}; not supported by AMD)"})
                break
            if o.get("works") is False:
                notes.append(f"not a way out: HSA_OVERRIDE_GFX_VERSION={o['value']} is reported to crash on {g} "
                             f"(acts as {o.get('acts_as')}, another ISA family)")
    lifts.append({"constraint": "arch", "action": "a build from AMD (repo.radeon.com) or TheRock for this GPU "
                  "family, or building torch with PYTORCH_ROCM_ARCH=" + ";".join(gfxs)})
    return (f"no PyTorch-index ROCm build {'of the wanted torch ' if elsewhere else ''}in the matrix is compiled "
            f"for {', '.join(gfxs)}"
            + (f" (the matrix does not know the targets of {len(unknown)} newer build(s))" if unknown else "")), lifts


def _amd_notes(matrix: Matrix, rel: str, window: Optional[List[str]]) -> List[str]:
    from envcheck.engine.vendors import newer_builds_without_targets

    notes = []
    newer_unknown = newer_builds_without_targets(matrix, rel)
    if newer_unknown:
        span = list(dict.fromkeys(str(x["release"]) for x in newer_unknown))
        releases = span[0] if len(span) == 1 else f"{span[0]} .. {span[-1]}"
        notes.append(f"torch {rel} is the newest build whose target list envcheck knows to hold the GPU's target; the "
                     f"targets of {len(newer_unknown)} newer build(s) (torch {releases}) are not in the "
                     "matrix (a newer one may hold it too; with one installed, `envcheck status --deep` checks its own list)")
    if window is None:
        notes.append("the amdgpu kernel driver's ROCm release is unknown, so its tested window was not checked "
                     "(capture /sys/module/amdgpu/version and /opt/rocm/.info/version)")
    notes.append("PyTorch-index ROCm wheels bundle their ROCm user space: only the amdgpu kernel driver and the gfx "
                 "target matter on the host")
    notes.append("conda: no conda-forge ROCm build of torch; use pip inside the conda env")
    return notes


def _amd_windows(matrix: Matrix, notes: List[str], target: Dict[str, Any]) -> Dict[str, Any]:
    """A Windows Python (hipInfo of the HIP SDK, say): every PyTorch-index ROCm build in the matrix is Linux's
    (compat_matrix/rocm.toml ``platforms``); AMD's own Windows wheels are the way there."""
    if any("windows-x86_64" in (r.get("platforms") or []) for r in matrix.rows("rocm", "torch_variant")):
        notes.append("the matrix lists a Windows ROCm build of PyTorch's index: not planned here yet")
    win = next((r for r in matrix.rows("rocm", "wheel_source") if r.get("name") == "amd-radeon-windows"), None)
    lifts = [{"constraint": "platform", "action": "AMD's own PyTorch wheels for Windows"
              + (f" ({win['index_url_prefix']}, with their ROCm runtime wheels: {win['source']})" if win else "")
              + ", for a GPU AMD lists for them; or a Linux machine"}]
    return _doc(False, "PyTorch's ROCm wheels (download.pytorch.org/whl/rocmX.Y) are built for Linux only and this "
                "Python is Windows'", [], [], [], [], {}, notes, lifts, target)


#: AMD tools and captures that exist on Linux only (the KFD, its sysfs topology, /sys/bus/pci, ROCm's Linux tools)
_LINUX_ONLY_AMD_TOOLS = frozenset({"rocminfo", "rocm-smi", "kfd topology", "pci"})


def _amd_platform(env: Environment) -> Optional[str]:
    """"windows" / "linux" for an AMD machine, from python.json or from captures only Linux has; None: unknown
    (hipInfo alone runs on the Windows HIP SDK and on Linux's TheRock alike)."""
    plat = (env.python.platform or "").lower()
    if plat.startswith("win"):
        return "windows"
    if plat.startswith("linux"):
        return "linux"
    a = env.accel
    if _LINUX_ONLY_AMD_TOOLS & set(a.tools) or a.amdgpu or a.device_nodes or env.host.wsl or env.host.os_name:
        return "linux"
    return None


def _amd_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
              target: Dict[str, Any]) -> Dict[str, Any]:
    platform = _amd_platform(env)
    if platform == "windows":  # before anything Linux's: no PyTorch ROCm wheel installs there
        return _amd_windows(matrix, notes, target)
    before = list(notes)
    doc = _amd_linux_plan(env, matrix, spec, names, notes, target)
    if platform == "linux" or not doc.get("satisfiable"):
        return doc
    # the platform is not known: the Linux plan is what would run on Linux, never assumed to be this machine's
    said = "; ".join(doc["commands"]["pip"]) + "".join(f"; with {k}={v}" for k, v in doc["env"].items())
    win = next((r for r in matrix.rows("rocm", "wheel_source") if r.get("name") == "amd-radeon-windows"), None)
    lifts = [{"constraint": "platform", "action": f"on Linux: {said} (give python.json, or run `envcheck fix` on that "
              "machine, to plan for it)"},
             {"constraint": "platform", "action": "on Windows: AMD's own PyTorch wheels for Windows"
              + (f" ({win['index_url_prefix']}: {win['source']})" if win else "") + ", for a GPU AMD lists for them"}]
    return _doc(False, "the platform is not known (no python.json, and no capture only Linux has): PyTorch's ROCm "
                "wheels (download.pytorch.org/whl/rocmX.Y) install on Linux only", [], [], [], [], {},
                before + [f"on Linux: {n}" for n in doc["notes"][len(before):]], lifts, target)


def _amd_linux_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                    target: Dict[str, Any]) -> Dict[str, Any]:
    a = env.accel
    gfxs = sorted({g.gfx for g in a.gpus if g.gfx})
    if not gfxs:
        return _doc(False, "the AMD GPU's gfx target is unknown, so no ROCm build can be chosen for it", [], [], [], [],
                    {}, notes, [{"constraint": "arch", "action": "capture `rocminfo` or the KFD topology "
                                 "(`envcheck snapshot`), or read it with `rocm_agent_enumerator`"}], target)
    window, _driver = amd_driver_window(matrix, a)
    rows = [r for r in matrix.rows("rocm", "torch_variant")
            if "linux-x86_64" in (r.get("platforms") or ["linux-x86_64"]) and _wanted_release(spec, str(r["release"]))]
    if not rows:
        return _doc(False, "no PyTorch ROCm build in the matrix matches the wanted torch", [], [], [], [], {}, notes,
                    [{"constraint": "release", "action": "want another torch release (ROCm builds exist from 1.13 on)"}],
                    target)
    rows.sort(key=lambda r: (version_tuple(str(r["release"])) or (), version_tuple(str(r.get("rocm", ""))) or ()),
              reverse=True)
    fitting = _AmdFit(matrix, rows, window, env.python.minor)
    fits = fitting(gfxs)
    env_vars: Dict[str, str] = {}
    override_note: Optional[str] = None
    if not fits:
        fits, env_vars, override_note = _amd_override(matrix, gfxs, fitting)
    if not fits and len(gfxs) > 1:
        fits, env_vars, override_note = _amd_hide(env, gfxs, fitting)
    if not fits:
        reason, lifts = _amd_unsatisfiable(matrix, rows, gfxs, window, env.python.minor, notes)
        return _doc(False, reason, [], [], [], [], {}, notes, lifts, target)
    r = fits[0]
    rel, var, url = str(r["release"]), str(r["variant"]), str(r.get("index_url") or "")
    pkgs = [("torch", rel)] + _companions(matrix, rel, names)
    if override_note:
        notes.append(override_note)
    packages = [{"name": n, "version": v, "variant": var, "index_url": url} for n, v in pkgs]
    return _doc(True, None, packages, [_pip_line(pkgs, url)], [_uv_line(pkgs, var, url)], [],
                env_vars, notes + _amd_notes(matrix, rel, window), [], target)


# -- Intel ------------------------------------------------------------------------------------------------
def _xpu_aot_notes(env: Environment, matrix: Matrix, rel: str, wanted: List[str]) -> List[str]:
    """Whether the planned XPU wheel has ahead-of-time kernels for each Intel GPU (else: JIT at first use), and the
    newest wanted release whose wheel has them."""
    from envcheck.engine.vendors import intel_gpu_group, xpu_aot_verdict, xpu_windows

    windows = xpu_windows(env)
    out: List[str] = []
    for g in dict.fromkeys((g.device_id, g.name) for g in env.accel.gpus if g.vendor == "intel"):
        gpu = next(x for x in env.accel.gpus if (x.device_id, x.name) == g)
        ok, why = xpu_aot_verdict(matrix, rel, gpu, windows)
        label = gpu.name or gpu.device_id or "the Intel GPU"
        if ok is None:
            hint = ("capture its PCI device id with `xpu-smi discovery` or `lspci -nn`"
                    if windows is not None or intel_gpu_group(matrix, gpu) is None else
                    "run `envcheck fix` on that machine, or give a snapshot with python.json (its platform)")
            out.append(f"whether torch {rel}'s XPU wheel has ahead-of-time kernels for {label} was not checked ({why}; "
                       f"{hint})")
        elif ok is False:
            alt = next((w for w in wanted if xpu_aot_verdict(matrix, w, gpu, windows)[0]), None)
            newest = next((str(r["release"]) for r in sorted(matrix.rows("xpu", "torch_xpu"), reverse=True,
                                                             key=lambda r: version_tuple(str(r["release"])) or ())
                           if xpu_aot_verdict(matrix, str(r["release"]), gpu, windows)[0]), None)
            out.append(f"torch {rel}'s XPU wheel has no ahead-of-time kernels for {label} ({why}): the driver "
                       "JIT-compiles them at first use, so the first run is slow"
                       + (f"; torch {alt}'s wheel has them" if alt else
                          f"; no wanted torch XPU wheel has them (torch {newest}'s has)" if newest else
                          "; no torch XPU wheel in the matrix has them"))
    return out


def _intel_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                target: Dict[str, Any]) -> Dict[str, Any]:
    from envcheck.engine.vendors import xpu_windows

    win = xpu_windows(env)
    # the platform unknown (no python.json): a release both platforms have wheels of, never Linux by default
    plats = ["linux-x86_64", "windows-x86_64"] if win is None else ["windows-x86_64" if win else "linux-x86_64"]
    plat = plats[0] if len(plats) == 1 else "Linux and Windows (the platform is unknown)"
    wanted = [r for r in matrix.rows("xpu", "torch_xpu")
              if all(p in (r.get("platforms") or []) for p in plats) and _wanted_release(spec, str(r["release"]))]
    wanted.sort(key=lambda r: version_tuple(str(r["release"])) or (), reverse=True)
    one = plats[0] if len(plats) == 1 else None  # Windows' Python list on Windows; unknown platform: Linux's
    rows = [r for r in wanted if _python_ok(matrix, str(r["release"]), env.python.minor, one) is not False]
    if not rows and wanted:
        pys = release_pythons(matrix.torch_release(str(wanted[0]["release"])) or {}, one)
        return _doc(False, f"no wanted PyTorch XPU build has wheels for Python {env.python.minor}", [], [], [], [], {},
                    notes, [{"constraint": "python", "action": f"use a Python torch {wanted[0]['release']} has wheels "
                             f"for ({', '.join(pys)})"}], target)
    if not rows:
        return _doc(False, f"no PyTorch XPU build for {plat} matches the wanted torch (XPU builds exist from 2.5 on)",
                    [], [], [], [], {}, notes, [{"constraint": "release", "action": "want torch>=2.5"}], target)
    r = rows[0]
    rel, url = str(r["release"]), str(r.get("index_url") or "https://download.pytorch.org/whl/xpu")
    pkgs = [("torch", rel)] + _companions(matrix, rel, names)
    a = env.accel
    if a.level_zero_gpus is not None and not a.level_zero_gpus:
        notes.append("Level Zero sees no GPU here: install the Level Zero loader and Intel GPU driver first, or "
                     "torch.xpu.is_available() stays False")
    if r.get("gpus"):
        notes.append(f"torch {rel} XPU targets: {', '.join(r['gpus'])}")
    notes.extend(_xpu_aot_notes(env, matrix, rel, [str(x["release"]) for x in rows]))
    packages = [{"name": n, "version": v, "variant": "xpu", "index_url": url} for n, v in pkgs]
    notes.append("conda: no conda-forge XPU build of torch (its pytorch-cpu-feedstock builds CPU and CUDA variants only); "
                 "use pip inside the conda env")
    return _doc(True, None, packages, [_pip_line(pkgs, url)], [_uv_line(pkgs, "xpu", url)], [], {}, notes, [], target)


# -- Apple ------------------------------------------------------------------------------------------------
def _apple_cpu_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                    target: Dict[str, Any], arch: Optional[str], mac: str) -> Dict[str, Any]:
    """An Intel Mac whose GPUs are all Intel's: MPS has no GPU there (engine.vendors.mps_gpuless_mac), so the plan is
    the newest wanted torch whose wheel installs on this macOS, run on the CPU; macOS's MPS floor does not apply."""
    notes.append("MPS will not be available on this Mac: PyTorch's MPS backend skips Intel's integrated GPUs, and its "
                 "GPUs are Intel's (" + ", ".join(g.name or "?" for g in mps_gpuless_mac(env)) + "): torch runs on "
                 "the CPU")
    for rel in _releases(matrix):
        if (_wanted_release(spec, rel) and _python_ok(matrix, rel, env.python.minor) is not False
                and macos_wheel_ok(matrix, rel, arch, mac) is not False and mps_min_macos(matrix, rel)[0]):
            pkgs = [("torch", rel)] + _companions(matrix, rel, names)
            packages = [{"name": n, "version": v, "variant": "cpu", "index_url": None} for n, v in pkgs]
            if arch == "x86_64":
                notes.append("PyPI has macOS x86_64 (Intel Mac) torch wheels up to 2.2 only")
            return _doc(True, None, packages, [_pip_line(pkgs, None)], [_uv_line(pkgs, None, None)], [], {}, notes,
                        [], target)
    return _doc(False, f"no wanted torch release has a wheel for macOS {mac} ({arch or 'architecture unknown'})",
                [], [], [], [], {}, notes, [{"constraint": "release", "action": "want another torch release"}], target)


def _mac_platform(arch: Optional[str]) -> Optional[str]:
    """The platform whose Python list (engine.builds.release_pythons) a Mac of this architecture uses: arm64's or
    x86_64's; ``None`` (Linux's list) where the architecture is unknown."""
    a = (arch or "").lower()
    return "macos-arm64" if a in ("arm64", "aarch64") else "macos-x86_64" if a in ("x86_64", "amd64") else None


def _apple_candidates(matrix: Matrix, spec: Any, py: Optional[str], arch: Optional[str]) -> List[Tuple[str, str]]:
    """(release, the macOS its MPS needs), newest first: the wanted releases with MPS and a PyPI wheel for this
    Python and architecture on some macOS."""
    out = []
    for rel in _releases(matrix):
        plat = _mac_platform(arch)
        if not _wanted_release(spec, rel) or _python_ok(matrix, rel, py, plat) is False:
            continue
        need, _ = mps_min_macos(matrix, rel)
        if need is not None and macos_wheel_ok(matrix, rel, arch, "99.0") is not False:
            out.append((rel, need))
    return out


def _apple_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                target: Dict[str, Any]) -> Dict[str, Any]:
    a = env.accel
    if a.apple_silicon and ((env.python.machine or "").lower() == "x86_64" or a.translated):
        return _doc(False, "this Python is x86_64 under Rosetta 2: no arm64 wheels and no MPS", [], [], [], [], {},
                    notes, [{"constraint": "python", "action": "use an arm64 Python (python.org universal2, Homebrew in "
                             "/opt/homebrew, Miniforge arm64)"}], target)
    mac = a.mac_version
    if not mac:
        return _doc(False, "the macOS version is unknown, so the torch release whose MPS runs here cannot be chosen",
                    [], [], [], [], {}, notes, [{"constraint": "platform", "action": "capture `sw_vers`"}], target)
    machine = (env.python.machine or "").lower()
    arch: Optional[str] = ("x86_64" if machine == "x86_64" or a.apple_silicon is False else
                           "arm64" if machine in ("arm64", "aarch64") or a.apple_silicon else None)
    if arch is None:
        notes.append("the Python's architecture is unknown (capture python.json): on an Intel Mac (x86_64) PyPI's torch "
                     "wheels stop at 2.2")
    if mps_gpuless_mac(env):
        return _apple_cpu_plan(env, matrix, spec, names, notes, target, arch, mac)
    cands = _apple_candidates(matrix, spec, env.python.minor, arch)
    for rel, need in cands:
        if macos_at_least(mac, need) and macos_wheel_ok(matrix, rel, arch, mac) is not False:
            pkgs = [("torch", rel)] + _companions(matrix, rel, names)
            packages = [{"name": n, "version": v, "variant": "mps", "index_url": None} for n, v in pkgs]
            notes.append(f"torch {rel}'s MPS needs macOS {need}; this Mac runs {mac}")
            if arch == "x86_64":
                notes.append("PyPI has macOS x86_64 (Intel Mac) torch wheels up to 2.2 only")
            newer = [r for r, _ in cands[:[c[0] for c in cands].index(rel)]]  # cands: newest first
            if newer:
                notes.append(f"newer torch ({newer[0]}) needs a newer macOS here: its MPS or its wheels' platform tag "
                             "(macOS 14 from torch 2.12)")
            conda, why = mps_conda_line(matrix, rel, arch, env.python.minor)
            notes.append(why)
            return _doc(True, None, packages, [_pip_line(pkgs, None)], [_uv_line(pkgs, None, None)],
                        [conda] if conda else [], {}, notes, [], target)
    if not cands:
        why = (f"no wanted torch release has macOS {arch} wheels" + (f" for Python {env.python.minor}"
                                                                    if env.python.minor else ""))
        lifts = []
        any_py = _apple_candidates(matrix, spec, None, arch)
        if any_py:
            pys = release_pythons(matrix.torch_release(any_py[0][0]) or {}, _mac_platform(arch))
            lifts.append({"constraint": "python", "action": f"use a Python torch {any_py[0][0]} has wheels for "
                          f"({', '.join(pys)})"})
        lifts.append({"constraint": "release", "action": "use an Apple silicon Mac (PyPI has macOS x86_64 torch wheels "
                      "up to 2.2 only)" if arch == "x86_64" else "want another torch release"})
        return _doc(False, why, [], [], [], [], {}, notes, lifts, target)
    # the lowest macOS that would run a wanted release, and the newest release it would run
    low = min(cands, key=lambda c: version_tuple(c[1]) or ())
    best_for_low = next(r for r, n in cands if n == low[1])
    lifts = [{"constraint": "platform", "action": f"upgrade macOS to {low[1]} or newer (torch {best_for_low}); "
                                                  f"macOS {cands[0][1]}+ runs torch {cands[0][0]}"
              if low[1] != cands[0][1] else f"upgrade macOS to {low[1]} or newer"}]
    return _doc(False, f"no wanted torch release has MPS on macOS {mac}", [], [], [], [], {}, notes, lifts, target)


# -- Jetson -----------------------------------------------------------------------------------------------
def _jetson_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                 target: Dict[str, Any]) -> Dict[str, Any]:
    l4t = env.accel.l4t
    jp, idx = jetson_indexes(matrix, l4t, env.accel.jetpack)  # the engine's answer, as `matrix why` gives it
    if not jp:
        return _doc(False, f"L4T {l4t} is not in the matrix's JetPack table", [], [], [], [], {}, notes,
                    [{"constraint": "platform", "action": "see NVIDIA's 'PyTorch for Jetson' page for this JetPack"}],
                    target)
    jv = str(jp["version"])
    mm = ".".join(jv.split(".")[:2])
    target["jetpack"] = jv
    if not idx:
        return _doc(False, f"no Jetson wheel index in the matrix serves JetPack {jv}", [], [], [], [], {}, notes,
                    [{"constraint": "platform", "action": "upgrade JetPack, or build torch on the device"}], target)
    r = idx[-1]
    url = str(r["index_url"])
    notes.append(f"JetPack {jv} (L4T {l4t}): PyPI's aarch64 CUDA wheels are built for server aarch64 (SBSA) and do "
                 "not run on a Jetson; use NVIDIA's Jetson wheels")
    packages = [{"name": "torch", "version": None, "variant": "jetson", "index_url": url}]
    if url.endswith("/jp/"):
        notes.append(f"pick the torch wheel for JetPack {jv} under {url}v{mm.replace('.', '')}/pytorch/")
        return _doc(True, None, packages, [f"# download the JetPack {jv} torch wheel from {url}"], [], [], {}, notes,
                    [], target)
    return _doc(True, None, packages, [f"python -m pip install torch --index-url {url}"],
                [f"uv pip install torch --index-url {url}"], [], {}, notes, [], target)


def installed_kinds(env: Environment) -> List[str]:
    return [k for k in (build_kind(fw) for fw in env.frameworks.values()) if k]
