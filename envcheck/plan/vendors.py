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

from envcheck.engine.vendors import build_kind, machine_vendor, macos_at_least, mps_min_macos
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
                    [], [], [], {}, notes, [{"constraint": "framework", "action": "plan the CPU builds with --cpu, or "
                                             "want torch"}], target)
    fn = {"amd": _amd_plan, "intel": _intel_plan, "apple": _apple_plan, "jetson": _jetson_plan}[kind]
    return fn(env, matrix, spec, names, notes, target)


def _wanted_release(spec: Any, release: str) -> bool:
    return spec is None or _spec_ok(spec, release)


def _python_ok(matrix: Matrix, release: str, py: Optional[str]) -> Optional[bool]:
    rel = matrix.torch_release(release) or {}
    pys = rel.get("python")
    if not py or not pys:
        return None
    return py in pys


# -- AMD --------------------------------------------------------------------------------------------------
def _amd_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
              target: Dict[str, Any]) -> Dict[str, Any]:
    a = env.accel
    gfxs = sorted({g.gfx for g in a.gpus if g.gfx})
    lifts: List[Dict[str, str]] = []
    if not gfxs:
        return _doc(False, "the AMD GPU's gfx target is unknown, so no ROCm build can be chosen for it", [], [], [], [],
                    {}, notes, [{"constraint": "arch", "action": "capture `rocminfo` or the KFD topology "
                                 "(`envcheck snapshot`), or read it with `rocm_agent_enumerator`"}], target)
    window = None
    if a.rocm_version and a.amdgpu_source and not a.amdgpu_source.startswith("in-tree"):
        window = matrix.rocm_kernel_window(a.rocm_version)
    rows = [r for r in matrix.rows("rocm", "torch_variant")
            if "linux-x86_64" in (r.get("platforms") or ["linux-x86_64"]) and _wanted_release(spec, str(r["release"]))]
    if not rows:
        return _doc(False, "no PyTorch ROCm build in the matrix matches the wanted torch", [], [], [], [], {}, notes,
                    [{"constraint": "release", "action": "want another torch release (ROCm builds exist from 1.13 on)"}],
                    target)
    rows.sort(key=lambda r: (version_tuple(str(r["release"])) or (), version_tuple(str(r.get("rocm", ""))) or ()),
              reverse=True)

    def covers(r: Dict[str, Any], gl: List[str]) -> bool:
        # compiled in, and with rocBLAS kernels (gfx900 / gfx906 are compiled into the ROCm 6.4+ wheels, whose
        # bundled rocBLAS lacks them)
        return all(g in (r.get("gfx") or []) and g not in (r.get("rocblas_missing") or []) for g in gl)

    def in_window(r: Dict[str, Any]) -> Optional[bool]:
        if window is None:
            return None
        t = cuda_tuple(str(r.get("rocm", "")))
        return bool(t and f"{t[0]}.{t[1]}" in window)

    py = env.python.minor

    def fitting(gl: List[str]) -> List[Dict[str, Any]]:
        return [r for r in rows if covers(r, gl) and in_window(r) is not False
                and _python_ok(matrix, r["release"], py) is not False]

    fits = fitting(gfxs)
    env_vars: Dict[str, str] = {}
    override_note = None
    if not fits:
        # the labelled workaround, for every GPU at once: an ISA-family override the matrix records as working,
        # to a target some build has (one value: the variable applies to every GPU of the process)
        acts: Dict[str, Tuple[str, str]] = {}
        for g in gfxs:
            for o in matrix.hsa_override(g):
                if o.get("works") is True and o.get("acts_as"):
                    acts[g] = (str(o["acts_as"]), str(o["value"]))
        values = {acts[g][1] for g in gfxs if g in acts}
        if len(acts) == len(gfxs) and len(values) == 1:
            fits = fitting([acts[g][0] for g in gfxs])
            if fits:
                env_vars["HSA_OVERRIDE_GFX_VERSION"] = values.pop()
                override_note = (f"no PyTorch ROCm build is compiled for {', '.join(gfxs)}; this plan uses the "
                                 f"unofficial workaround HSA_OVERRIDE_GFX_VERSION={env_vars['HSA_OVERRIDE_GFX_VERSION']}"
                                 " (same ISA family, reported to work; not supported by AMD)")
    if not fits and len(gfxs) > 1:
        # some GPUs natively: plan for them and hide the others
        for keep in sorted((tuple(x for x in gfxs if x != drop) for drop in gfxs), key=len, reverse=True):
            fits = fitting(list(keep))
            if fits:
                idx = [str(g.index) for g in a.gpus if g.gfx in keep and g.index is not None]
                hidden = [g for g in a.gpus if g.gfx not in keep]
                env_vars["HIP_VISIBLE_DEVICES"] = ",".join(idx)
                override_note = (f"no build is compiled for {', '.join(sorted({g.gfx or '?' for g in hidden}))}: this plan "
                                 f"uses {', '.join(keep)} only and hides the rest with HIP_VISIBLE_DEVICES")
                break
    if not fits:
        with_gfx = [r for r in rows if covers(r, gfxs)]
        if with_gfx and window is not None:
            r = with_gfx[0]
            reason = (f"the builds compiled for {', '.join(gfxs)} (newest: torch {r['release']} {r['variant']}) need a "
                      f"ROCm user space outside the kernel driver's tested window ({', '.join(window)})")
            lifts.append({"constraint": "driver", "action": f"upgrade the amdgpu kernel driver to one tested with ROCm "
                          f"{r.get('rocm')} ({', '.join(matrix.rocm_kmd_releases_for(str(r.get('rocm')))[:3])})"})
        elif with_gfx:
            reason = f"no build compiled for {', '.join(gfxs)} has wheels for Python {py}"
            lifts.append({"constraint": "python", "action": "use a Python the release supports"})
        else:
            unknown = [r for r in rows if not r.get("gfx")]
            works = {g: o for g in gfxs for o in matrix.hsa_override(g) if o.get("works") is True}
            for g, o in works.items():
                lifts.append({"constraint": "arch", "action": f"for {g} alone: the unofficial workaround "
                              f"HSA_OVERRIDE_GFX_VERSION={o['value']} (acts as {o.get('acts_as')}; not supported by AMD)"})
            reason = (f"no PyTorch-index ROCm build in the matrix is compiled for {', '.join(gfxs)}"
                      + (f" (the matrix does not know the targets of {len(unknown)} newer build(s))" if unknown else ""))
            lifts.append({"constraint": "arch", "action": "a build from AMD (repo.radeon.com) or TheRock for this GPU "
                          "family, or building torch with PYTORCH_ROCM_ARCH=" + ";".join(gfxs)})
        return _doc(False, reason, [], [], [], [], {}, notes, lifts, target)
    r = fits[0]
    rel, var, url = str(r["release"]), str(r["variant"]), str(r.get("index_url") or "")
    pkgs = [("torch", rel)] + _companions(matrix, rel, names)
    if override_note:
        notes.append(override_note)
    from envcheck.engine.vendors import newer_builds_without_targets

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
    packages = [{"name": n, "version": v, "variant": var, "index_url": url} for n, v in pkgs]
    return _doc(True, None, packages, [_pip_line(pkgs, url)], [_uv_line(pkgs, var, url)], [],
                env_vars, notes + ["conda: no conda-forge ROCm build of torch; use pip inside the conda env"], lifts,
                target)


# -- Intel ------------------------------------------------------------------------------------------------
def _intel_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                target: Dict[str, Any]) -> Dict[str, Any]:
    plat = "windows-x86_64" if (env.python.platform or "").startswith("win") else "linux-x86_64"
    rows = [r for r in matrix.rows("xpu", "torch_xpu")
            if plat in (r.get("platforms") or []) and _wanted_release(spec, str(r["release"]))
            and _python_ok(matrix, str(r["release"]), env.python.minor) is not False]
    rows.sort(key=lambda r: version_tuple(str(r["release"])) or (), reverse=True)
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
    packages = [{"name": n, "version": v, "variant": "xpu", "index_url": url} for n, v in pkgs]
    return _doc(True, None, packages, [_pip_line(pkgs, url)], [_uv_line(pkgs, "xpu", url)], [], {}, notes, [], target)


# -- Apple ------------------------------------------------------------------------------------------------
def _apple_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                target: Dict[str, Any]) -> Dict[str, Any]:
    a = env.accel
    lifts: List[Dict[str, str]] = []
    if a.apple_silicon and ((env.python.machine or "").lower() == "x86_64" or a.translated):
        return _doc(False, "this Python is x86_64 under Rosetta 2: no arm64 wheels and no MPS", [], [], [], [], {},
                    notes, [{"constraint": "python", "action": "use an arm64 Python (python.org universal2, Homebrew in "
                             "/opt/homebrew, Miniforge arm64)"}], target)
    mac = a.mac_version
    if not mac:
        return _doc(False, "the macOS version is unknown, so the torch release whose MPS runs here cannot be chosen",
                    [], [], [], [], {}, notes, [{"constraint": "platform", "action": "capture `sw_vers`"}], target)
    for rel in _releases(matrix):
        if not _wanted_release(spec, rel) or _python_ok(matrix, rel, env.python.minor) is False:
            continue
        need, _ = mps_min_macos(matrix, rel)
        if need is None:
            continue
        if macos_at_least(mac, need):
            pkgs = [("torch", rel)] + _companions(matrix, rel, names)
            packages = [{"name": n, "version": v, "variant": "mps", "index_url": None} for n, v in pkgs]
            notes.append(f"torch {rel}'s MPS needs macOS {need}; this Mac runs {mac}")
            return _doc(True, None, packages, [_pip_line(pkgs, None)], [_uv_line(pkgs, None, None)], [], {}, notes,
                        lifts, target)
    newest = next((r for r in _releases(matrix) if _wanted_release(spec, r)), None)
    need = mps_min_macos(matrix, newest)[0] if newest else None
    return _doc(False, f"no wanted torch release has MPS on macOS {mac}", [], [], [], [], {}, notes,
                [{"constraint": "platform", "action": f"upgrade macOS to {need} or newer" if need else "upgrade macOS"}],
                target)


# -- Jetson -----------------------------------------------------------------------------------------------
def _jetson_plan(env: Environment, matrix: Matrix, spec: Any, names: List[str], notes: List[str],
                 target: Dict[str, Any]) -> Dict[str, Any]:
    l4t = env.accel.l4t
    jp = matrix.jetpack(l4t) or matrix.jetpack(env.accel.jetpack)
    if not jp:
        return _doc(False, f"L4T {l4t} is not in the matrix's JetPack table", [], [], [], [], {}, notes,
                    [{"constraint": "platform", "action": "see NVIDIA's 'PyTorch for Jetson' page for this JetPack"}],
                    target)
    jv = str(jp["version"])
    mm = ".".join(jv.split(".")[:2])
    idx = [r for r in matrix.jetson_wheel_indexes() if r.get("runs_on_jetson") and mm in (r.get("jetpack") or [])]
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
