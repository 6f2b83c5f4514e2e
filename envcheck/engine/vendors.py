"""The rules for AMD ROCm, Intel XPU and Apple MPS builds (contract §9), in one place.

Each rule takes facts (an :class:`~envcheck.model.Environment`) and the matrix, and answers with
findings. Matrix values come only from ``compat_matrix/{rocm,xpu,mps}.toml`` through the matrix's
accessors; a missing table value is ``not-checked`` (with what to supply), never a guess.

* **vendor** — a build's vendor against the machine's accelerator (``framework-vendor-mismatch``).
* **gfx** — each AMD GPU's target against the targets the ROCm build was compiled for (the installed build's
  own ``torch.cuda.get_arch_list()`` where ``--deep`` read it, else the matrix); ``HSA_OVERRIDE_GFX_VERSION``
  is offered only as a labelled, unofficial workaround and only inside the ISA family the matrix records as
  working (``gpu-arch-unsupported``).
* **kernel driver** — the ROCm user space the build brings (PyTorch-index wheels bundle it) against the
  window of user spaces the host's amdgpu kernel driver was tested with (``driver-too-old``).
* **devices** — ``/dev/kfd`` and ``/dev/dri/renderD*`` exist and can be opened (``device-permission``).
* **MPS** — macOS against the torch release's MPS minimum (``mps-os-too-old``), and the Python's
  architecture on Apple silicon (``python-arch-mismatch``).
* **Level Zero** — an Intel GPU that only OpenCL sees (``xpu-level-zero-missing``).
"""

from __future__ import annotations

import functools

import re
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck import lazyre
from envcheck.engine.rules import no_cpu_fallback
from envcheck.environment.vendors import machine_vendor
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Framework, Gpu, Severity
from envcheck.parse.gfx import gfx_family, normalize_gfx
from envcheck.versions import cuda_tuple, version_tuple

__all__ = ["build_kind", "cuda_check_on_amd", "intel_mac_torch_note", "own_gfx", "machine_vendor", "mps_os_meets", "vendor_findings", "gfx_verdict", "rocm_variants_for_gfx", "recast_cause", "cpu_reading_void", "log_vendor", "log_says_no_nvidia", "log_directml", "log_stack_vendor", "log_intel_stack", "log_intel_gpu", "gpus_all_other_vendor", "log_vendor_advice", "log_shows_nvidia", "context_holds",
           "cuda_check_speaks", "jetpack_ptxas_notice", "SAYS",
           "gfx_fix_lines",
           "vendor_mismatch_advice", "other_vendor_builds_only", "library_cause", "rocm_build_elsewhere",
           "builds_vendor", "newer_builds_without_targets",
           "mps_min_macos", "kernel_window", "NOT_CHECKED", "UNDECIDED", "text_machine_facts"]

NOT_CHECKED = "not-checked"


def build_kind(fw: Framework) -> Optional[str]:
    """"cuda" | "rocm" | "xpu" | "mps" | "cpu" | None (unknown) for an installed build."""
    if fw.rocm or fw.hip:
        return "rocm"
    if fw.xpu:
        return "xpu"
    if fw.cuda or fw.cuda_major:
        return "cuda"
    if fw.mps and fw.mps.get("built"):
        return "mps"
    if fw.cpu_only:
        return "cpu"
    return None


def builds_vendor(env: Environment) -> Optional[str]:
    """"amd" | "intel" | "apple" when every installed GPU framework build is that vendor's (ROCm, XPU, MPS) and the
    machine's own accelerator was not seen: what the builds are for. ``None`` otherwise (a CUDA build among them,
    builds of two vendors, no GPU build, or an accelerator already seen)."""
    if machine_vendor(env) is not None:
        return None
    kinds = {build_kind(fw) or "" for fw in env.frameworks.values() if fw.name in ("torch", "tensorflow", "jax")}
    gpu = kinds & {"cuda", "rocm", "xpu", "mps"}
    if len(gpu) != 1 or "cuda" in gpu:
        return None
    return {"rocm": "amd", "xpu": "intel", "mps": "apple"}[gpu.pop()]


def other_vendor_builds_only(env: Environment) -> bool:
    """The installed GPU frameworks are all ROCm, XPU or MPS builds (none a CUDA one): the machine is meant for that
    vendor's accelerator, so a missing NVIDIA driver is nothing to report (contract §9: no NVIDIA-only message)."""
    kinds = [build_kind(fw) for fw in env.frameworks.values() if fw.name in ("torch", "tensorflow", "jax")]
    gpu = [k for k in kinds if k in ("cuda", "rocm", "xpu", "mps")]
    return bool(gpu) and "cuda" not in gpu


def _label(fw: Framework) -> str:
    return f"{fw.distribution or fw.name} {fw.version or '(unknown version)'}"


def _base(v: Optional[str]) -> str:
    return (v or "").split("+", 1)[0]


def _variant(fw: Framework) -> Optional[str]:
    """``rocm6.2`` / ``rocm5.4.2`` from the ``+rocm...`` label (else from the HIP version's major.minor)."""
    m = re.search(r"\+(rocm\d+\.\d+(?:\.\d+)?)", fw.version or "")
    if m:
        return m.group(1)
    return f"rocm{fw.rocm}" if fw.rocm else None


def _nc(what: str, supply: str, component: str) -> Finding:
    return Finding(NOT_CHECKED, Severity.INFO, f"Not checked: {what}.", supply, None, component)


# -- vendor -------------------------------------------------------------------------------------------------
def _names(gpus: Sequence[Gpu]) -> str:
    return ", ".join(dict.fromkeys(g.name or g.gfx or g.device_id or "?" for g in gpus)) or "none listed"


def _intel_compute(env: Environment) -> bool:
    """An Intel GPU a compute stack has seen (Level Zero, xpu-smi), not only a display device on the PCI bus."""
    return bool(env.accel.level_zero_gpus) or any(g.source and g.source.startswith("xpu-smi")
                                                  for g in env.accel.gpus)


#: what a CUDA build that goes on on the CPU does where no NVIDIA GPU answers (the others: engine.rules.no_cpu_fallback)
_NO_CUDA_DEVICE = {
    "torch": "it runs on the CPU only (torch.cuda.is_available() is False, 'Torch not compiled with CUDA enabled' / "
             "'Found no NVIDIA driver').",
    "": "it finds no CUDA device and runs on the CPU only.",
}


def _vendor_mismatch(env: Environment, fw: Framework, kind: str, vendor: str) -> Optional[Finding]:
    gpus = env.accel.gpus
    if kind == "cuda" and vendor in ("amd", "intel", "apple"):
        what = {"amd": "AMD GPU(s)", "intel": "Intel GPU(s)", "apple": "Apple GPU"}[vendor]
        use = {"amd": "a ROCm build (`envcheck fix` picks the rocmX.Y variant for the GPU's gfx target)",
               "intel": "an XPU build (`pip install torch --index-url https://download.pytorch.org/whl/xpu`)",
               "apple": "the default macOS wheel (`pip install torch`), which has MPS"}[vendor]
        # an Intel GPU known only from the PCI bus may be an old iGPU no XPU build supports: a note, not an error
        sev = Severity.ERROR if vendor != "intel" or env.accel.level_zero_gpus else (
            Severity.WARNING if _intel_compute(env) else Severity.INFO)
        fix = f"Install {use}."
        stuck = no_cpu_fallback(fw.name, env.host.env)
        if fw.name != "torch":  # `envcheck fix` plans torch's vendor builds; the others' are their projects'
            fix = (f"Use {fw.name}'s build for {what.split(' ')[0]}'s GPUs where its project publishes one (`envcheck "
                   "fix` plans torch's), or " + ("use NumPy on the CPU (CuPy's arrays need a GPU)." if fw.name ==
                                                 "cupy" else f"run {fw.name} on the CPU" + (" (JAX_PLATFORMS=cpu)." if stuck else ".")))
        return Finding("framework-vendor-mismatch", sev,
                       f"{_label(fw)} is a CUDA build, but this machine's accelerator is {what} ({_names(gpus)}) and "
                       "no NVIDIA GPU is seen: " + (f"it cannot run here: {stuck}." if stuck else
                                                    _NO_CUDA_DEVICE.get(fw.name, _NO_CUDA_DEVICE[""])),
                       fix, f"{fw.name}.cuda = {fw.cuda or fw.cuda_major}; accelerator: {vendor}", fw.name)
    # a machine with GPUs of two vendors (an NVIDIA GPU beside an AMD / Intel one): a build for the other vendor's GPU
    # that the machine has is no mismatch
    has = {g.vendor for g in gpus}
    if kind == "rocm" and vendor != "amd" and "amd" not in has:
        return Finding("framework-vendor-mismatch", Severity.ERROR,
                       f"{_label(fw)} is a ROCm (AMD) build, but this machine's accelerator is "
                       f"{vendor.upper() if vendor == 'amd' else vendor.capitalize()}'s: it cannot use it.",
                       "Install the build for this machine's GPU (`envcheck fix`).",
                       f"{fw.name}.hip = {fw.hip or fw.rocm}; accelerator: {vendor}", fw.name)
    if kind == "xpu" and vendor != "intel" and not ("intel" in has and env.accel.level_zero_gpus):
        return Finding("framework-vendor-mismatch", Severity.ERROR,
                       f"{_label(fw)} is an Intel XPU build, but this machine's accelerator is {vendor.capitalize()}'s:"
                       " the xpu device is not there.", "Install the build for this machine's GPU (`envcheck fix`).",
                       f"{fw.name}.xpu; accelerator: {vendor}", fw.name)
    return None


# -- gfx --------------------------------------------------------------------------------------------------
def _targets(matrix: Matrix, fw: Framework) -> Tuple[Optional[List[str]], str]:
    """The gfx targets of the installed ROCm build: its own list (``--deep``), else the matrix's."""
    own = [normalize_gfx(a) for a in (fw.arch_list or ())]
    own_g = [g for g in own if g]
    if own_g:
        return own_g, "torch.cuda.get_arch_list() of the installed build"
    variant = _variant(fw)
    if fw.version:
        t = matrix.rocm_gfx_targets(_base(fw.version), variant)
        if t:
            return [g for g in (normalize_gfx(x) for x in t) if g], f"envcheck matrix (torch {_base(fw.version)} {variant})"
    pre = _prerelease_targets(matrix, fw)
    if pre is not None:
        return pre[0], pre[2]
    return None, ""


_PRERELEASE = re.compile(r"(\d{1,3}\.\d{1,3}\.\d{1,3})\.?(?:dev|a|b|rc)\d{1,12}")


def _prerelease_targets(matrix: Matrix, fw: Framework) -> Optional[Tuple[List[str], List[str], str]]:
    """A nightly / pre-release ROCm build (``2.7.0.dev20250123+rocm6.3``) publishes no target list of its own. What
    is certain from the matrix: the targets of the release it leads to and of the release before it, over all their
    ROCm variants. Returns (the targets in either, the targets in both, source); a GPU target in neither is in no
    build around the nightly, one in both is in every one; anything between is unknown. None when the matrix
    holds no list for the release or none before it."""
    m = _PRERELEASE.fullmatch(_base(fw.version))
    if not m:
        return None
    rel = m.group(1)
    rows = [r for r in matrix.rows("rocm", "torch_variant") if r.get("gfx")]
    this = [r for r in rows if str(r.get("release")) == rel]
    key = version_tuple(rel) or ()
    older = sorted({str(r.get("release")) for r in rows if (version_tuple(str(r.get("release"))) or ()) < key},
                   key=lambda x: version_tuple(x) or ())
    if not this or not older:
        return None
    lists = [{g for g in (normalize_gfx(x) for x in r.get("gfx") or []) if g}
             for r in this + [r for r in rows if str(r.get("release")) == older[-1]]]
    either = sorted(set().union(*lists))
    both = sorted(set.intersection(*lists))
    return either, both, (f"envcheck matrix: the PyTorch-index ROCm wheels of {rel} and {older[-1]} (a nightly or "
                          "pre-release publishes no target list of its own)")


def _override_rows(matrix: Matrix, gfx: str) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    rows = matrix.hsa_override(gfx)
    return [r for r in rows if r.get("works") is True], [r for r in rows if r.get("works") is False]


def _hsa_value_target(value: Optional[str]) -> Optional[str]:
    """``HSA_OVERRIDE_GFX_VERSION=10.3.0`` -> ``gfx1030`` (major.minor.stepping, stepping in hex)."""
    m = re.fullmatch(r"\s*(\d{1,2})\.(\d)\.(\d{1,2})\s*", value or "")
    if not m or int(m.group(3)) > 15:
        return None
    return f"gfx{int(m.group(1))}{int(m.group(2))}{int(m.group(3)):x}"


def own_gfx(matrix: Matrix, gpu: Gpu, override: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(the GPU's own gfx, why it differs from the reported one) under ``HSA_OVERRIDE_GFX_VERSION``.

    ROCm's thunk applies the override where it would take the target from its PCI device id table, so rocminfo,
    hipInfo and what runs on ROCr report the overridden target (an RX 6700 XT, 0x73df, as gfx1030 under 10.3.0).
    The own target comes only from that table (compat_matrix/rocm.toml ``[[device_gfx]]``); (reported, None) where the
    override is not set, is not what was reported, or the device id is unknown to the table."""
    acts = _hsa_value_target(override) if override else None
    if acts is None or gpu.gfx != acts or not gpu.device_id:
        return gpu.gfx, None
    row = matrix.amd_device_gfx(gpu.device_id)
    real = str(row.get("gfx")) if row and row.get("gfx") else None
    if real is None or real == acts:
        return gpu.gfx, None
    return real, (f"{gpu.source or 'the capture'} reports {acts} because HSA_OVERRIDE_GFX_VERSION={override} is set; "
                  f"device {gpu.device_id} is {real} ({row.get('codename') if row else '?'}) in ROCm's own device "
                  "table (libhsakmt's gfxip_lookup_table)")


def _override_unresolved(gpu: Gpu, override: Optional[str]) -> bool:
    """The override is set and ``gpu`` is reported as its target by a tool the override reaches, with no device id
    ROCm's table knows: its own target is unknown (the KFD node's ``gfx_target_version`` is the kernel's, unaffected)."""
    acts = _hsa_value_target(override) if override else None
    return acts is not None and gpu.gfx == acts and (gpu.source or "") != "kfd topology"


def gfx_verdict(matrix: Matrix, gfx: str, targets: Sequence[str], override: Optional[str]) -> Tuple[str, str]:
    """("ok" | "override" | "override-crosses" | "no", why) for one GPU target against a build's targets.

    ``HSA_OVERRIDE_GFX_VERSION`` applies to every GPU of the process: a natively supported GPU made to load
    another family's kernels faults too (an MI210 left with 10.3.0 set for a Radeon: memory access fault)."""
    acts = _hsa_value_target(override) if override else None
    if acts is None or acts == gfx:
        if gfx in targets:
            return "ok", f"{gfx} is compiled in"
        return "no", f"{gfx} is not among the build's targets ({' '.join(targets)})"
    works, _ = _override_rows(matrix, gfx)
    same = any(r.get("acts_as") == acts for r in works) or gfx_family(acts) == gfx_family(gfx)
    if not same:
        return "override-crosses", (f"HSA_OVERRIDE_GFX_VERSION={override} makes {gfx} load {acts} kernels, another "
                                    "ISA family: reported to end in memory access faults / crashes")
    if acts in targets:
        return "override", f"HSA_OVERRIDE_GFX_VERSION={override} makes {gfx} load {acts} kernels"
    return "no", (f"HSA_OVERRIDE_GFX_VERSION={override} makes {gfx} load {acts} kernels, and the build has neither "
                  f"({' '.join(targets)})")


def newer_builds_without_targets(matrix: Matrix, release: str) -> List[Dict[str, Any]]:
    """The PyTorch ROCm builds newer than ``release`` whose gfx target list the matrix does not hold, oldest first."""
    base = version_tuple(release) or ()
    rows = [r for r in matrix.rows("rocm", "torch_variant")
            if not r.get("gfx") and (version_tuple(str(r.get("release"))) or ()) > base]
    return sorted(rows, key=lambda r: version_tuple(str(r.get("release"))) or ())


def rocm_variants_for_gfx(matrix: Matrix, gfx: str, release: Optional[str] = None) -> List[Tuple[str, str, str]]:
    """(torch release, variant, index_url) of PyTorch ROCm builds whose gfx list contains ``gfx``, newest first;
    only ``release`` when given."""
    out = []
    for r in matrix.rows("rocm", "torch_variant"):
        if release and r.get("release") != release:
            continue
        gl = r.get("gfx") or []
        if gfx in gl and gfx not in (r.get("rocblas_missing") or []):
            out.append((str(r.get("release")), str(r.get("variant")), str(r.get("index_url") or "")))
    out.sort(key=lambda x: (version_tuple(x[0]) or (), version_tuple(x[1][4:]) or ()), reverse=True)
    return out


def _named_gfx(matrix: Matrix, g: Gpu) -> Gpu:
    """amd35: an AMD GPU known by its model name only (a pasted issue form's "W7900 Dual Slot", a report's "AMD Radeon
    RX 7900 XTX") with the target ROCm's GPU architecture table gives that exact model (compat_matrix/rocm.toml
    ``[[gpu_arch_spec]]``); unchanged where a tool printed the target or the table has no row of the model."""
    if g.gfx or not g.name or not hasattr(matrix, "amd_gfx_of_name"):
        return g
    gfx = matrix.amd_gfx_of_name(g.name)
    if not gfx:
        return g
    return replace(g, gfx=gfx, source=f"{g.source or 'the text'}'s model name, by ROCm's GPU architecture table")


def _gfx_findings(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    gpus = [g for g in env.accel.gpus if g.vendor == "amd"]
    if not gpus:
        return [_nc(f"whether {_label(fw)} has kernels for this machine's AMD GPU", "no AMD GPU target is known: "
                    "capture `rocminfo` or /sys/class/kfd/kfd/topology/nodes/*/properties (`envcheck snapshot`)",
                    fw.name)]
    targets, src = _targets(matrix, fw)
    if targets is None:
        return [_nc(f"the gfx targets {_label(fw)} was compiled for", "the matrix has no target list for this build; "
                    "`envcheck status --deep` reads torch.cuda.get_arch_list() from the installed build", fw.name)]
    override = env.host.env.get("HSA_OVERRIDE_GFX_VERSION")
    out: List[Finding] = []
    own = [(g, *own_gfx(matrix, g, override)) for g in gpus]
    for g, _real, why in own:
        if why is None and _override_unresolved(g, override):
            out.append(_nc(f"the own gfx target of {g.name or 'the AMD GPU'}", f"{g.source or 'the capture'} reports "
                           f"{g.gfx}, the target HSA_OVERRIDE_GFX_VERSION={override} sets, and no PCI device id in "
                           "ROCm's device table (gfx 10 and older) names its own: capture the KFD topology "
                           "(`envcheck snapshot`: /sys/class/kfd/kfd/topology/nodes/*/properties) or run rocminfo "
                           "without the variable", fw.name))
    gpus = [_named_gfx(matrix, replace(g, gfx=real)) for g, real, _ in own]
    real_why = {i: why for i, (_, _, why) in enumerate(own) if why}
    pre = _prerelease_targets(matrix, fw) if src.startswith("envcheck matrix: ") else None
    between = {g for g in (pre[0] if pre else [])} - set(pre[1] if pre else [])
    unknown = [g for g in gpus if not g.gfx]
    if any(g.gfx in between for g in gpus):
        out.append(_nc(f"whether {_label(fw)} has kernels for {_names([g for g in gpus if g.gfx in between])}",
                       "the builds around this nightly differ on its target; `envcheck status --deep` reads "
                       "torch.cuda.get_arch_list() from the installed build", fw.name))
    verdicts = [(g, *gfx_verdict(matrix, g.gfx, targets, override)) for g in gpus if g.gfx and g.gfx not in between]
    bad = [(g, why) for g, v, why in verdicts if v == "no"]
    crosses = [(g, why) for g, v, why in verdicts if v == "override-crosses"]
    good = [g for g, v, _ in verdicts if v in ("ok", "override")]
    for g, v, why in verdicts:
        real_note = real_why.get(gpus.index(g))
        if v == "override":
            out.append(Finding("gpu-arch-unsupported", Severity.INFO,
                               f"{g.name or g.gfx} ({g.gfx}) is not compiled into {_label(fw)}; it runs through the "
                               f"unofficial workaround {why}." + (f" Its own target: {real_note}." if real_note else ""),
                               "This is not supported by AMD; if kernels misbehave, use a build that includes "
                               f"{g.gfx} natively.", f"targets from {src}", fw.name))
    for g, why in crosses:
        real_note = real_why.get(gpus.index(g))
        out.append(Finding("gpu-arch-unsupported", Severity.ERROR,
                           f"{g.name or g.gfx} ({g.gfx}): {why}." + (f" Its own target: {real_note}." if real_note else ""),
                           "Unset HSA_OVERRIDE_GFX_VERSION for this GPU (per-GPU HSA_OVERRIDE_GFX_VERSION_<n> exists "
                           "since ROCm 6.2), or hide it with HIP_VISIBLE_DEVICES.", f"targets from {src}", fw.name))
    for g, why in bad:
        works, crashes = _override_rows(matrix, g.gfx or "")
        alt = rocm_variants_for_gfx(matrix, g.gfx or "")
        fixes = []
        if alt:
            rel, var, url = alt[0]
            fixes.append(f"install a build compiled for {g.gfx}: `pip install torch=={rel} --index-url {url}` "
                         f"(torch {rel} {var})")
        else:
            fixes.append(f"no PyTorch-index ROCm build in the matrix is compiled for {g.gfx}")
        for r in works:
            if r.get("acts_as") in targets:
                fixes.append(f"unofficial workaround (not supported by AMD; same ISA family {r.get('family', '')}): "
                             f"`export HSA_OVERRIDE_GFX_VERSION={r['value']}` (makes it load {r.get('acts_as')} kernels; "
                             f"reported to work: {r.get('source')})")
        for r in crashes:
            fixes.append(f"do not set HSA_OVERRIDE_GFX_VERSION={r['value']} for it: across ISA families it crashes "
                         f"({r.get('source')})")
        if good:
            fixes.append(f"or hide it from ROCm with HIP_VISIBLE_DEVICES so that only {_names(good)} is used")
        sev = Severity.WARNING if good else Severity.ERROR
        out.append(Finding("gpu-arch-unsupported", sev,
                           f"{_label(fw)} has no kernels for {g.name or 'GPU'} ({g.gfx}): {why}. Kernels fail with "
                           "'HIP error: invalid device function' / 'hipErrorNoBinaryForGpu'.",
                           "; ".join(fixes)[:1].upper() + "; ".join(fixes)[1:] + ".",
                           f"targets from {src}; gfx from {g.source or '?'}", fw.name))
    missing = matrix.rocm_rocblas_missing(_base(fw.version), _variant(fw)) if fw.version else []
    for g, v, _why in verdicts:
        if v != "ok" or g.gfx not in missing:
            continue
        alt = rocm_variants_for_gfx(matrix, g.gfx or "")
        fix = (f"Install a build whose rocBLAS has {g.gfx} kernels: `pip install torch=={alt[0][0]} --index-url "
               f"{alt[0][2]}` (torch {alt[0][0]} {alt[0][1]})" if alt else
               f"No PyTorch-index ROCm build in the matrix has rocBLAS kernels for {g.gfx}")
        usable = [x for x in good if x.gfx not in missing]
        if usable:
            fix += f"; or hide it with HIP_VISIBLE_DEVICES so that only {_names(usable)} is used"
        out.append(Finding("gpu-arch-unsupported", Severity.WARNING if usable else Severity.ERROR,
                           f"{_label(fw)} is compiled for {g.gfx}, but the rocBLAS it bundles (ROCm {fw.rocm or '?'}) "
                           f"has no kernels for it: matrix products on {g.name or g.gfx} abort with \"rocBLAS error: "
                           f"Cannot read .../TensileLibrary.dat ... for GPU arch : {g.gfx}\".",
                           fix + ".", f"rocBLAS contents from the matrix ({_base(fw.version)} {_variant(fw)})", fw.name))
    if unknown:
        out.append(_nc(f"the gfx target of {_names(unknown)}", "capture `rocminfo` or the KFD topology "
                       "(`envcheck snapshot`)", fw.name))
    return out


# -- kernel driver window ----------------------------------------------------------------------------------
def kernel_window(matrix: Matrix, host_rocm: Optional[str]) -> Optional[List[str]]:
    return matrix.rocm_kernel_window(host_rocm) if host_rocm else None


_DKMS_SOURCES = ("/sys/module/amdgpu/version", "amd-smi static", "amd-smi version", "rocm-smi --showdriverversion",
                 "rocminfo ('ROCk module version')")


def amd_driver_window(matrix: Matrix, accel: Any) -> Tuple[Optional[List[str]], Optional[str]]:
    """(the ROCm user-space series AMD tested the host's amdgpu kernel driver with, how that driver is named), or
    (None, None): an AMD GPU Driver 30.x known by its module version, else the DKMS driver of the host's ROCm release
    (up to 6.4, when the driver shipped with ROCm); never for the in-tree driver."""
    if accel.amdgpu_source not in _DKMS_SOURCES:
        return None, None
    row = matrix.amdgpu_driver_for_module(accel.amdgpu)
    if row and row.get("user_space"):
        return [str(v) for v in row["user_space"]], f"AMD GPU Driver {row['version']} (amdgpu {accel.amdgpu})"
    window = kernel_window(matrix, accel.rocm_version)
    if window is not None:
        return window, f"amdgpu {accel.amdgpu}, installed with ROCm {accel.rocm_version}"
    return None, None


def _driver_findings(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    a = env.accel
    want = fw.rocm
    if not want:
        return []
    dkms = a.amdgpu_source in _DKMS_SOURCES
    if a.amdgpu_source and a.amdgpu_source.startswith("in-tree"):
        return [_nc(f"the amdgpu kernel driver against ROCm {want} of {_label(fw)}", f"this host runs the {a.amdgpu_source}; "
                    "AMD's compatibility matrix covers only its own amdgpu-dkms driver (install it with amdgpu-install "
                    "if ROCm fails to start)", "driver")]
    window, driver = amd_driver_window(matrix, a)
    if window is not None:
        return _window_findings(matrix, fw, want, window, driver or "", a)
    if not (dkms and a.rocm_version):
        return [_nc(f"the amdgpu kernel driver against ROCm {want} of {_label(fw)}",
                    "the ROCm release of the amdgpu kernel driver is unknown: capture /sys/module/amdgpu/version and "
                    "/opt/rocm/.info/version (`envcheck snapshot`)", "driver")]
    if matrix.rocm_release(a.rocm_version) is not None:
        # ROCm 7.x: the amdgpu driver is released apart (AMD GPU Driver 30.10, 30.20, ...); the host's ROCm
        # release does not name the kernel driver's, and this module version is not one the matrix maps to a 30.x
        return [_nc(f"the amdgpu kernel driver against ROCm {want} of {_label(fw)}",
                    f"from ROCm 7.0 the amdgpu kernel driver is released apart from ROCm (AMD GPU Driver 30.x), so "
                    f"the host's ROCm {a.rocm_version} does not tell its kernel driver, and amdgpu {a.amdgpu} is not a "
                    "module version the matrix maps to a 30.x driver; compare `amd-smi version` with AMD's driver "
                    "support matrix", "driver")]
    return [_nc(f"the amdgpu kernel driver of ROCm {a.rocm_version} against ROCm {want}",
                f"ROCm {a.rocm_version} is not in the matrix's kernel-driver table", "driver")]


def _window_findings(matrix: Matrix, fw: Framework, want: str, window: List[str], driver: str,
                     a: Any) -> List[Finding]:
    if want in window:
        return []
    wt, newest = cuda_tuple(want), max(window, key=lambda v: cuda_tuple(v) or (0, 0))
    newer = bool(wt and (cuda_tuple(newest) or (0, 0)) < wt)
    kmd = matrix.rocm_kmd_releases_for(want) + [
        f"AMD GPU Driver {r['version']}" for r in matrix.rows("rocm", "amdgpu_driver") if want in (r.get("user_space") or [])]
    msg = (f"{_label(fw)} brings the ROCm {want} user space, but the amdgpu kernel driver here ({driver}) was tested "
           f"with user space {', '.join(window)} only.")
    fix = (f"Upgrade the amdgpu kernel driver (amdgpu-install / amdgpu-dkms) to one tested with {want}"
           + (f" ({', '.join(kmd[:4])})" if kmd else "") + f", or install a torch build for ROCm {newest}."
           if newer else f"Install a torch build for a ROCm in {', '.join(window)} (`envcheck fix`).")
    if not newer:
        return [Finding(NOT_CHECKED, Severity.INFO, msg + " (AMD tests each kernel driver with a window of user spaces; "
                        "an older one outside it is untested rather than known to fail.)", fix, None, "driver")]
    return [Finding("driver-too-old", Severity.WARNING, msg, fix,
                    f"amdgpu from {a.amdgpu_source}; host ROCm from {a.rocm_version_source}; window from the matrix "
                    "(ROCm compatibility matrix: KMD & user space)", "driver")]


# -- devices ----------------------------------------------------------------------------------------------
def _no_amd_gpu_read(env: Environment, needed: bool) -> Finding:
    """An AMD stack whose captures list no GPU: the amdgpu KFD driver is not loaded (rocminfo says so), or the
    GPUs are unknown."""
    tools = ", ".join(env.accel.tools) or "the ROCm version files"
    if env.accel.kfd_loaded is False:
        return Finding("no-gpu-driver", Severity.ERROR if needed else Severity.WARNING,
                       "rocminfo says the ROCk (amdgpu KFD) kernel driver is not loaded: ROCm sees no GPU. Either "
                       "the amdgpu module is missing or failed to load, or the machine has no GPU ROCm can use.",
                       "Load the amdgpu kernel driver (`sudo modprobe amdgpu`; install amdgpu-dkms with "
                       "`amdgpu-install --usecase=dkms` where the kernel has none) and check `dmesg | grep -i "
                       "amdgpu`; under WSL ROCm goes through AMD's WSL driver (`amdgpu-install --usecase=wsl,rocm`), "
                       "not this module.", "rocminfo: ROCk module is NOT loaded", "driver")
    return Finding(NOT_CHECKED, Severity.INFO,
                   f"AMD's ROCm stack answered ({tools}), but no GPU could be read from these captures: "
                   "the GPUs, their gfx targets and whether a build has them were not checked.",
                   "Add the output of `rocminfo` or `rocm-smi --showproductname` (or make a snapshot on the "
                   "machine with `envcheck snapshot DIR`, which copies the KFD topology).",
                   f"no GPU in {tools}", "gpu")


def _device_findings(env: Environment, needed: bool) -> List[Finding]:
    a = env.accel
    nodes = a.device_nodes
    if a.kfd_error:
        return [Finding("no-gpu-visible", Severity.ERROR if needed else Severity.WARNING,
                        f"The amdgpu kernel driver is loaded but /dev/kfd cannot be opened ({a.kfd_error}): ROCm sees "
                        "no GPU. Not a permission problem: the kernel's KFD rejected the device or the process.",
                        "Check `dmesg | grep -i kfd` ('not supported in kfd': a GPU ROCm does not support; 'PCI "
                        "rejects atomics': a gfx8 card needs PCIe atomics); in a container pass `--device=/dev/kfd "
                        "--device=/dev/dri` from a host whose amdgpu-dkms matches the container's ROCm.",
                        f"rocminfo: Unable to open /dev/kfd read-write: {a.kfd_error}", "gpu")]
    if not nodes and a.permission_text:
        fix = ("Start the container with `--group-add video --group-add render` (and `--device=/dev/kfd "
               "--device=/dev/dri`)" if env.host.container else "Add the user to the render and video groups "
               "(`sudo usermod -aG render,video $USER`) and log in again")
        return [Finding("device-permission", Severity.ERROR if needed else Severity.WARNING,
                        f"rocminfo says this user cannot use the GPU device nodes: {a.permission_text}", fix + ".",
                        "rocminfo", "gpu")]
    if not nodes:
        if needed:
            return [_nc("whether /dev/kfd and /dev/dri/renderD* can be opened", "capture devices.json "
                        "(`envcheck snapshot` on the machine)", "gpu")]
        return []
    kfd = next((n for n in nodes if n.path == "/dev/kfd"), None)
    renders = [n for n in nodes if n.path.startswith("/dev/dri/render")]
    groups = set(a.groups or ())
    in_container = bool(env.host.container)
    if kfd is not None and kfd.exists is False:
        if not (a.gpus or needed):
            return []
        fix = ("Start the container with `--device=/dev/kfd --device=/dev/dri --group-add video --group-add render`"
               if in_container else "Load the amdgpu kernel driver (`sudo modprobe amdgpu`; install amdgpu-dkms "
               "if the kernel has none) and check `dmesg | grep -i kfd`")
        return [Finding("device-permission", Severity.ERROR if needed else Severity.WARNING,
                        "/dev/kfd does not exist: ROCm cannot reach the GPU"
                        + (" (a container started without the AMD device nodes)." if in_container else "."),
                        fix + ".", "devices.json: /dev/kfd exists=false", "gpu")]
    closed = [n for n in ([kfd] if kfd else []) + renders if n.exists and (n.readable is False or n.writable is False)]
    if closed:
        miss = [g for g in ("render", "video") if a.groups is not None and g not in groups]
        fix = ("Add the user to the render and video groups (`sudo usermod -aG render,video $USER`) and log in "
               "again" if not in_container else "Start the container with `--group-add video --group-add render` "
               "(and `--device=/dev/kfd --device=/dev/dri`)")
        return [Finding("device-permission", Severity.ERROR if needed else Severity.WARNING,
                        f"{', '.join(n.path for n in closed)} exist(s) but this user cannot open them read-write"
                        + (f" (not in group {' / '.join(miss)})" if miss else "") + ": ROCm sees no GPU "
                        "(rocminfo: 'Unable to open /dev/kfd read-write'; torch.cuda.is_available() is False).",
                        fix + ".", "devices.json", "gpu")]
    return []


# -- device masks -----------------------------------------------------------------------------------------
def _mask_findings(env: Environment, vendor: str, needed: bool) -> List[Finding]:
    """A device mask that hides every GPU: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES empty or -1 (AMD);
    ONEAPI_DEVICE_SELECTOR without level_zero, or ZE_AFFINITY_MASK empty (Intel)."""
    e = env.host.env
    sev = Severity.ERROR if needed else Severity.WARNING
    if vendor == "amd":
        for name in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
            v = e.get(name)
            if v is not None and v.strip() in ("", "-1"):
                return [Finding("no-gpu-visible", sev, f"{name}={v!r} hides every AMD GPU from ROCm programs.",
                                f"Run `unset {name}`, or set it to the GPUs to use, e.g. `export {name}=0`.",
                                f"{name}={v!r}", "gpu")]
    if vendor == "intel":
        sel = e.get("ONEAPI_DEVICE_SELECTOR")
        if sel is not None and "level_zero" not in sel and "*:" not in sel and sel.strip() != "*":
            return [Finding("no-gpu-visible", sev, f"ONEAPI_DEVICE_SELECTOR={sel!r} selects no Level Zero device, "
                            "so PyTorch's XPU backend sees no GPU.", "Run `unset ONEAPI_DEVICE_SELECTOR`, or select "
                            "`level_zero:gpu`.", f"ONEAPI_DEVICE_SELECTOR={sel!r}", "gpu")]
        za = e.get("ZE_AFFINITY_MASK")
        if za is not None and za.strip() == "":
            return [Finding("no-gpu-visible", sev, "ZE_AFFINITY_MASK is set but empty: Level Zero exposes no device.",
                            "Run `unset ZE_AFFINITY_MASK`, or set it to the devices to use (`0`).",
                            "ZE_AFFINITY_MASK=''", "gpu")]
    return []


# -- MPS / Apple ------------------------------------------------------------------------------------------
def mps_min_macos(matrix: Matrix, torch_version: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(the macOS MPS needs for this torch release, what the release's error message says) from the matrix."""
    if not torch_version:
        return None, None
    row = matrix.mps_row(_base(torch_version))
    if not row:
        return None, None
    return (str(row["min_macos"]) if row.get("min_macos") else None,
            str(row["message_min_macos"]) if row.get("message_min_macos") else None)


def intel_mac_torch_note(matrix: Any) -> str:
    """" (the last torch with them is X)" from the matrix's macOS x86_64 wheel lists, or "" where it lists none."""
    from envcheck.engine.builds import last_release_for

    last = last_release_for(matrix, "macos-x86_64") if matrix is not None else None
    return f" (the last torch with them is {last})" if last else ""


def _apple_findings(env: Environment, matrix: Matrix, fw: Optional[Framework]) -> List[Finding]:
    a = env.accel
    out: List[Finding] = []
    py_arch = (env.python.machine or "").lower()
    if a.apple_silicon and (py_arch == "x86_64" or a.translated):
        out.append(Finding("python-arch-mismatch", Severity.ERROR if fw is not None else Severity.WARNING,
                           "This Python is an x86_64 build running under Rosetta 2 on Apple silicon: torch installs "
                           f"x86_64 wheels{intel_mac_torch_note(matrix)}, and MPS is unavailable to it.",
                           "Use an arm64 Python (python.org's universal2 installer, `brew install python` in /opt/homebrew, "
                           "or a Miniforge arm64 conda), then reinstall torch.",
                           f"python.json machine={env.python.machine}, proc_translated={a.translated}", "python"))
    if fw is None or build_kind(fw) not in ("mps", None):
        return out
    shown = mps_gpuless_mac(env)
    if shown:
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{_label(fw)} runs on the CPU only on this Mac: PyTorch's MPS backend skips Intel's "
                           f"integrated GPUs, and the GPUs system_profiler lists here are Intel's ({_names(shown)}), "
                           "so torch.backends.mps.is_available() is False whatever the macOS version.",
                           "Nothing to install fixes it: MPS needs Apple silicon or an AMD GPU (Apple's 'Accelerated "
                           "PyTorch training on Mac' requirements). Use the CPU, or a machine with a GPU.",
                           "system_profiler SPDisplaysDataType: " + _names(shown), "torch"))
        return out
    need, said = mps_min_macos(matrix, fw.version)
    mac = a.mac_version
    if not need:
        out.append(_nc(f"the macOS that MPS of {_label(fw)} needs", "the matrix has no MPS row for this release", "torch"))
        return out
    if not mac:
        out.append(_nc(f"macOS against MPS of {_label(fw)} (needs macOS {need})",
                       "the macOS version is unknown: capture `sw_vers` (`envcheck snapshot` on the Mac)", "torch"))
        return out
    mt, nt = version_tuple(mac), version_tuple(need)
    if mt and nt and mt < nt:
        note = (f" Its error message says 'supported on MacOS {said}+', which understates it." if said and said != need
                else "")
        out.append(Finding("mps-os-too-old", Severity.ERROR if a.apple_silicon is not False else Severity.WARNING,
                           f"{_label(fw)} needs macOS {need} or newer for MPS; this Mac runs macOS {mac}, so "
                           f"torch.backends.mps.is_available() is False.{note}",
                           _mps_os_fix(matrix, mt, need, mac) + _mps_gpu_caveat(env),
                           f"macOS {mac} from {a.mac_source}; minimum from the matrix",
                           "torch"))
    return out


def mps_gpuless_mac(env: Environment) -> List[Gpu]:
    """The GPUs of an Intel Mac whose GPUs (system_profiler's list) are all Intel's, where MPS has no GPU to run on:
    PyTorch's MPS device skips every low-power GPU ("exclude Intel GPUs", aten/src/ATen/mps/MPSDevice.mm since the
    first MPS release), so no macOS brings MPS there. Empty elsewhere (Apple silicon, an AMD GPU, GPUs unknown)."""
    a = env.accel
    shown = [g for g in a.gpus if (g.source or "").startswith("system_profiler")]
    return shown if a.apple_silicon is False and shown and all(g.vendor == "intel" for g in shown) else []


def _mps_gpu_caveat(env: Environment) -> str:
    """On an Intel Mac whose listed GPUs include no AMD one (an Intel iGPU beside an NVIDIA GeForce): whether MPS would
    run there after a macOS upgrade is not known (Apple's requirements name Apple silicon or AMD GPUs)."""
    a = env.accel
    shown = [g for g in a.gpus if (g.source or "").startswith("system_profiler")]
    if a.apple_silicon is not False or not shown or any(g.vendor == "amd" for g in shown):
        return ""
    other = [g for g in shown if g.vendor != "intel"]
    return (f" MPS also needs a GPU it supports (Apple's requirements: Apple silicon or an AMD GPU): whether this Mac's "
            f"{_names(other or shown)} is one is not known, so the upgrade may not bring MPS.")


def _mps_os_fix(matrix: Matrix, mac: Tuple[int, ...], need: str, said: str) -> str:
    """The fix of ``mps-os-too-old``: an older torch release only where one's MPS runs on this macOS."""
    floors = [t for t in (version_tuple(str(r.get("min_macos") or "")) for r in matrix.rows("mps", "mps")) if t]
    if floors and mac < min(floors):
        low = ".".join(str(x) for x in min(floors))
        return (f"Upgrade macOS to {need} or newer: no torch release has MPS on macOS {said} (the first needed macOS "
                f"{low}); until then torch runs on the CPU.")
    return (f"Upgrade macOS to {need} or newer, or install the last torch release whose MPS runs on macOS {said} "
            "(`envcheck fix`).")


# -- Intel ------------------------------------------------------------------------------------------------
def _intel_findings(env: Environment, fw: Optional[Framework]) -> List[Finding]:
    a = env.accel
    xpu = fw is not None and build_kind(fw) == "xpu"
    if a.level_zero_gpus is None:
        if xpu:
            return [_nc("whether Level Zero sees the Intel GPU", "capture `sycl-ls` (oneAPI) or `clinfo` "
                        "(`envcheck snapshot`)", "gpu")]
        return []
    if not a.level_zero_gpus and a.opencl_gpus:
        return [Finding("xpu-level-zero-missing", Severity.ERROR if xpu else Severity.WARNING,
                        f"The Intel GPU ({', '.join(a.opencl_gpus)}) is visible to OpenCL but not to Level Zero, which "
                        "PyTorch's XPU backend needs: torch.xpu.is_available() is False.",
                        "Install the Level Zero loader and GPU driver (Ubuntu: `sudo apt install libze1 libze-intel-gpu1` "
                        "or intel-level-zero-gpu from Intel's repository), then check `sycl-ls` lists "
                        "[level_zero:gpu].", "sycl-ls: no level_zero:gpu line", "gpu")]
    return []


# -- Intel XPU: the wheel's ahead-of-time targets ----------------------------------------------------------
def _pci_id(text: Optional[str]) -> Optional[str]:
    """"0x56A0" / "56a0" / "8086:56a0" -> "0x56a0"; None when it is not a 16-bit hex id."""
    m = re.fullmatch(r"(?:(?:0x)?8086:)?(?:0x)?([0-9a-fA-F]{4})", (text or "").strip())
    return f"0x{m.group(1).lower()}" if m else None


def _gpu_name_key(name: str) -> str:
    return re.sub(r"\((?:r|tm)\)|[^a-z0-9]+", " ", name.lower()).split("graphics")[0].strip()


def intel_gpu_group(matrix: Matrix, gpu: Gpu) -> Optional[str]:
    """The xpu.toml ``[[intel_gpu]]`` group of an Intel GPU: by its PCI device id; without one, by the name the driver
    gives it (or the id the name carries) when exactly one group has that name (iGPUs share "Intel(R) Graphics": no
    group). None: not known."""
    rows = matrix.rows("xpu", "intel_gpu")
    # the driver names a GPU it has no name for by its id: "Intel(R) Graphics [0xe20b]" (sycl-ls, a B580)
    named = re.search(r"\[(0x[0-9a-fA-F]{4})\]", gpu.name or "")
    did = _pci_id(gpu.device_id) or _pci_id(named.group(1) if named else None)
    if did:
        return next((str(r["group"]) for r in rows if did in (r.get("device_ids") or [])), None)
    if not gpu.name:
        return None
    key = _gpu_name_key(gpu.name)
    hits = {str(r["group"]) for r in rows for n in (r.get("names") or []) if key and _gpu_name_key(n) == key}
    return hits.pop() if len(hits) == 1 else None


def xpu_aot_coverage(matrix: Matrix, release: str, windows: bool) -> Optional[Tuple[List[str], List[str]]]:
    """(the AOT target names of torch ``release``'s XPU wheel on Linux / Windows, the ``[[intel_gpu]]`` groups they run
    on without JIT); None when the matrix lacks the wheel's targets or what one of them compiles for."""
    row = matrix.torch_xpu(release)
    targets = (row.get("aot_windows") if windows else row.get("aot")) if row else None
    if not targets:
        return None
    by = {str(r.get("target")): r for r in matrix.rows("xpu", "aot_target")}
    if any(t not in by for t in targets):
        return None
    return list(targets), sorted({str(g) for t in targets for g in (by[t].get("serves") or [])})


def xpu_windows(env: Environment) -> Optional[bool]:
    """Whether the XPU wheel is Windows' (True) or Linux' (False): the AOT lists differ; None where the platform is not
    known (no python.json), which is not taken for Linux."""
    plat = (env.python.platform or "").lower()
    return None if not plat else plat.startswith(("win", "cygwin"))


def xpu_aot_verdict(matrix: Matrix, release: str, gpu: Gpu, windows: Optional[bool]) -> Tuple[Optional[bool], str]:
    """Whether torch ``release``'s XPU wheel has ahead-of-time kernels for ``gpu`` (True), runs it through JIT
    compilation of its SPIR-V at first use (False), or None (unknown), with the words why. ``windows`` None (the
    platform unknown): a verdict only where the Linux and the Windows wheel agree."""
    if windows is None:
        lin, win = xpu_aot_verdict(matrix, release, gpu, False), xpu_aot_verdict(matrix, release, gpu, True)
        if lin[0] == win[0]:
            return lin[0], lin[1] + ("" if lin[0] is None else " (the Linux and the Windows wheel alike)")
        return None, (f"the platform is unknown, and torch {release}'s Linux and Windows XPU wheels differ for "
                      f"{gpu.name or gpu.device_id or 'the Intel GPU'}: Linux: {lin[1]}; Windows: {win[1]}")
    cov = xpu_aot_coverage(matrix, release, windows)
    if cov is None:
        return None, f"the AOT targets of torch {release}'s XPU wheel are not in the matrix"
    group = intel_gpu_group(matrix, gpu)
    if group is None:
        return None, (f"{gpu.name or 'the Intel GPU'} (PCI id {gpu.device_id or 'unknown'}) is not in the matrix's Intel "
                      "GPU table")
    targets, served = cov
    if group in served:
        return True, f"{group} is served by the AOT targets ({' '.join(targets)})"
    return False, f"{group} is not served by the wheel's AOT targets ({' '.join(targets)})"


def _xpu_aot_findings(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    gpus = [g for g in env.accel.gpus if g.vendor == "intel"]
    if not gpus or not fw.version:
        return []
    release = _base(fw.version)
    windows = xpu_windows(env)
    out: List[Finding] = []
    unknown: List[str] = []
    seen = set()
    for g in gpus:
        if (g.device_id, g.name) in seen:  # two cards of one model: one finding
            continue
        seen.add((g.device_id, g.name))
        ok, why = xpu_aot_verdict(matrix, release, g, windows)
        if ok is None:
            unknown.append(why)
        elif ok is False:
            better = next((r for r in sorted(matrix.rows("xpu", "torch_xpu"),
                                             key=lambda r: version_tuple(str(r.get("release"))) or (), reverse=True)
                           if xpu_aot_verdict(matrix, str(r.get("release")), g, windows)[0]), None)
            if better:
                fix = (f"Install a torch XPU release whose wheel has AOT kernels for it: `pip install "
                       f"torch=={better['release']} --index-url "
                       f"{better.get('index_url') or 'https://download.pytorch.org/whl/xpu'}` (`envcheck fix`).")
                runs = ("It still runs: the driver JIT-compiles the wheel's SPIR-V kernels at first use, which makes the "
                        "first call of each operator slow.")
            else:
                fix = "No torch XPU wheel in the matrix has AOT kernels for it: expect a slow first run of each operator."
                runs = ("No torch XPU release in the matrix targets this GPU: only the JIT path remains (the driver "
                        "compiles the wheel's SPIR-V at first use, slowly, where the GPU supports what a kernel needs).")
            out.append(Finding("gpu-arch-unsupported", Severity.WARNING,
                               f"{_label(fw)} has no ahead-of-time kernels for {g.name or 'the Intel GPU'}: {why}. "
                               + runs, fix,
                               f"AOT targets: compat_matrix/xpu.toml (torch_xpu, aot_target, intel_gpu); GPU "
                               f"{g.device_id or g.name} from {g.source or 'the captures'}", fw.name))
    if unknown:
        out.append(_nc(f"whether {_label(fw)} has ahead-of-time kernels for this Intel GPU ({'; '.join(unknown)})",
                       "capture the GPU's PCI device id (`xpu-smi discovery`, or `lspci -nn -d 8086:` via "
                       "`envcheck snapshot`)" + ("" if windows is not None else "; and the platform: run `envcheck "
                                                 "snapshot` with the Python that runs torch (python.json)"), fw.name))
    return out


# -- `envcheck matrix why` for the ROCm / XPU builds --------------------------------------------------------
def _why_doc(row: Dict[str, Any], lines: List[str], missing: List[str], no: bool, extra: Dict[str, Any]) -> Dict[str, Any]:
    verdict = "does-not-run" if no else "unknown" if missing else "runs"
    lines = lines + [f"unknown: {u}" for u in missing]
    build = {"framework": "torch", "version": str(row.get("release")), "variant": str(row.get("variant")),
             "index_url": row.get("index_url"), "source": row.get("source")}
    build.update(extra)
    return {"build": build, "verdict": verdict, "runs": {"runs": True, "does-not-run": False}.get(verdict),
            "reasons": lines, "missing": missing, "required_driver": None}


def _why_python(matrix: Matrix, release: str, python: Optional[str], lines: List[str], missing: List[str]) -> bool:
    """The Python lines of a vendor build, worded as `matrix why` words them for the CUDA builds; True: it fails."""
    pys = (matrix.torch_release(release) or {}).get("python") or []
    if not python:
        missing.append("the Python version is unknown (give --python X.Y, or --interpreter PYTHON)")
    elif pys and python not in pys:
        lines.append(f"python: NO - torch {release} has wheels for Python {', '.join(pys)}, not {python}")
        return True
    elif not pys:
        missing.append(f"Python {python} support of torch {release} is not in the matrix")
    else:
        lines.append(f"python {python}: ok")
    return False


def cuda_build_line(env: Environment) -> Optional[str]:
    """The `matrix why` line a CUDA build gets on a machine whose accelerator is AMD's, Intel's or Apple's."""
    vendor = machine_vendor(env)
    if vendor not in ("amd", "intel", "apple"):
        return None
    return f"vendor: NO - a CUDA build; this machine's accelerator is {vendor.upper() if vendor == 'amd' else vendor.capitalize()}'s"


def _why_rocm(env: Environment, matrix: Matrix, row: Dict[str, Any], python: Optional[str]) -> Dict[str, Any]:
    rel = str(row.get("release"))
    lines: List[str] = []
    missing: List[str] = []
    no = False
    gpus = [g for g in env.accel.gpus if g.vendor == "amd" and g.gfx]
    targets = row.get("gfx")
    if not gpus:
        missing.append("the AMD GPU's gfx target is unknown (capture rocminfo or the KFD topology: `envcheck snapshot`)")
    elif not targets:
        missing.append("the matrix holds no gfx target list for this build (with it installed, `envcheck status "
                       "--deep` reads its own)")
    else:
        override = env.host.env.get("HSA_OVERRIDE_GFX_VERSION")
        gone = set(row.get("rocblas_missing") or [])
        usable = 0
        for g in gpus:
            g = replace(g, gfx=own_gfx(matrix, g, override)[0])
            v, why = gfx_verdict(matrix, g.gfx or "", targets, override)
            if v in ("ok", "override") and g.gfx in gone:
                v, why = "no", f"its bundled rocBLAS has no kernels for {g.gfx}"
            usable += v in ("ok", "override")
            word = {"ok": "OK", "override": "OK (unofficial HSA_OVERRIDE_GFX_VERSION workaround)"}.get(v, "NO")
            lines.append(f"gfx: {word} - {g.name or 'GPU'} ({g.gfx}): {why}")
        if not usable:
            no = True
        elif usable < len(gpus):
            lines.append("gfx: the GPUs it has no kernels for fail; hide them with HIP_VISIBLE_DEVICES")
    window, driver = amd_driver_window(matrix, env.accel)
    rocm = cuda_tuple(str(row.get("rocm", "")))
    if window is None:
        lines.append("kernel driver: not checked - the amdgpu kernel driver's ROCm release is unknown (capture "
                     "/sys/module/amdgpu/version and /opt/rocm/.info/version)")
    elif rocm and f"{rocm[0]}.{rocm[1]}" not in window:
        no = True
        lines.append(f"kernel driver: NO - {driver} is tested with ROCm {', '.join(window)}, not {row.get('rocm')}")
    else:
        lines.append(f"kernel driver: OK - {driver} is tested with ROCm {row.get('rocm')}")
    no = _why_python(matrix, rel, python, lines, missing) or no
    return _why_doc(row, lines, missing, no, {"rocm": row.get("rocm"), "gfx": targets})


def _why_xpu(env: Environment, matrix: Matrix, row: Dict[str, Any], python: Optional[str],
             windows: bool) -> Dict[str, Any]:
    rel = str(row.get("release"))
    lines: List[str] = []
    missing: List[str] = []
    no = False
    a = env.accel
    if a.level_zero_gpus is None:
        lines.append("Level Zero: not checked - capture `sycl-ls` or `clinfo` (`envcheck snapshot`)")
    elif not a.level_zero_gpus:
        no = True
        lines.append("Level Zero: NO - no GPU is visible to Level Zero, which the XPU backend needs")
    else:
        lines.append(f"Level Zero: OK - {', '.join(a.level_zero_gpus)}")
    for g in dict.fromkeys((g.device_id, g.name) for g in a.gpus if g.vendor == "intel"):
        gpu = next(x for x in a.gpus if (x.device_id, x.name) == g)
        ok, why = xpu_aot_verdict(matrix, rel, gpu, windows)
        label = gpu.name or gpu.device_id or "Intel GPU"
        lines.append(f"AOT kernels: {'yes' if ok else 'no, JIT-compiled at first use (slow)' if ok is False else 'not checked'}"
                     f" - {label}: {why}")
    no = _why_python(matrix, rel, python, lines, missing) or no
    targets = row.get("aot_windows" if windows else "aot")
    return _why_doc(row, lines, missing, no, {"aot": targets})


def vendor_why(env: Environment, matrix: Matrix, releases: Sequence[str], python: Optional[str],
               platform: str) -> List[Dict[str, Any]]:
    """`envcheck matrix why` results (matrix-why/1 shape) for the PyTorch-index ROCm builds on an AMD machine, the
    XPU builds on an Intel one, the macOS (MPS) build on a Mac and NVIDIA's Jetson build on a Jetson, for the torch
    ``releases`` a requirement matched; [] on other machines."""
    vendor = machine_vendor(env)
    want = set(releases)
    if env.accel.l4t:  # a Jetson: NVIDIA's Jetson build for its JetPack
        return [_why_jetson(env, matrix, list(releases), python)]
    if vendor == "apple" or env.accel.mac_version:  # a Mac: the macOS (MPS) build of each release
        return [_why_mps(env, matrix, rel, python) for rel in releases]
    if vendor == "amd" and platform == "linux-x86_64":
        rows = [r for r in matrix.rows("rocm", "torch_variant") if str(r.get("release")) in want]
        return [_why_rocm(env, matrix, r, python) for r in rows]
    if vendor == "intel" and platform in ("linux-x86_64", "windows-x86_64"):
        rows = [r for r in matrix.rows("xpu", "torch_xpu") if str(r.get("release")) in want
                and platform in (r.get("platforms") or [])]
        return [_why_xpu(env, matrix, r, python, platform.startswith("windows")) for r in rows]
    return []


def _mac_arch(env: Environment) -> Tuple[Optional[str], bool]:
    """(the Python's macOS wheel architecture "arm64" | "x86_64" | None, whether it is x86_64 under Rosetta 2 on Apple
    silicon), as `envcheck fix` plans a Mac."""
    a = env.accel
    machine = (env.python.machine or "").lower()
    rosetta = bool(a.apple_silicon) and (machine == "x86_64" or bool(a.translated))
    arch = ("x86_64" if machine == "x86_64" or a.apple_silicon is False else
            "arm64" if machine in ("arm64", "aarch64") or a.apple_silicon else None)
    return arch, rosetta


def _why_mps(env: Environment, matrix: Matrix, release: str, python: Optional[str]) -> Dict[str, Any]:
    """`matrix why` for the macOS (MPS) build of one torch release on this Mac: the macOS against what the release's
    MPS needs (compat_matrix/mps.toml), the Python's architecture (Rosetta), PyPI's macOS wheels, the Python."""
    lines: List[str] = []
    missing: List[str] = []
    no = False
    mac = env.accel.mac_version
    arch, rosetta = _mac_arch(env)
    need, says = mps_min_macos(matrix, release)
    if rosetta:
        no = True
        lines.append("python: NO - an x86_64 Python under Rosetta 2 on Apple silicon: no MPS and no arm64 wheels "
                     "(python-arch-mismatch; use an arm64 Python)")
    if need is None:
        missing.append(f"the macOS that torch {release}'s MPS needs is not in the matrix (mps.toml)")
    elif not mac:
        missing.append("the macOS version is unknown (capture `sw_vers`: `envcheck snapshot` on the Mac)")
    elif macos_at_least(mac, need):
        lines.append(f"macOS {mac}: OK - torch {release}'s MPS needs macOS {need}")
    else:
        no = True
        lines.append(f"macOS: NO - torch {release}'s MPS needs macOS {need}, this Mac runs {mac}"
                     + (f" (the release's error message says {says}+)" if says and says != need else ""))
    wheel = macos_wheel_ok(matrix, release, arch, mac)
    if arch is None:
        missing.append("the Python's architecture is unknown (python.json: `envcheck snapshot` with that Python)")
    elif wheel is False:
        no = True
        lines.append(f"wheel: NO - PyPI has no torch {release} wheel for macOS {arch}" + (f" {mac}" if mac else ""))
    elif wheel:
        lines.append(f"wheel: OK - PyPI has torch {release} for macOS {arch}")
    no = _why_python(matrix, release, python, lines, missing) or no
    row = matrix.mps_row(_base(release)) or {}
    return _why_doc({"release": release, "variant": "mps", "index_url": None, "source": row.get("source")}, lines,
                    missing, no, {"min_macos": need})


def mps_conda_line(matrix: Matrix, release: str, arch: Optional[str], python: Optional[str] = None
                   ) -> Tuple[Optional[str], str]:
    """(the conda command installing torch ``release`` with MPS for a Mac of ``arch``, or None; why) from
    compat_matrix/mps.toml ``[[conda]]``: a channel whose build tests MPS, and only for a release not newer than the
    newest one read there (the channel may lag PyPI)."""
    rows = [r for r in matrix.rows("mps", "conda") if r.get("mps") and r.get("arch") == (arch or "")]
    if not rows:
        return None, (f"conda: no conda channel in the matrix builds torch with MPS for macOS {arch}; use pip inside "
                      "the conda env" if arch else "conda: the Python's architecture is unknown")
    r = rows[0]
    seen = str(r.get("version_seen") or "")
    t, s_, first = version_tuple(_base(release)), version_tuple(seen), version_tuple(str(r.get("since") or "0.0"))
    if t and first and t[:2] < first[:2]:
        return None, f"conda: {r['channel']}'s {r['package']} is tested with MPS from {r.get('since')} only; use pip"
    if not seen or not t or not s_ or t > s_:
        return None, (f"conda: {r['channel']}'s {r['package']} (MPS build, {r.get('source')}) was read up to {seen or '?'}"
                      f"; torch {release} may not be there yet: use pip inside the conda env, or want torch<={seen}")
    py = f"python={python} " if python else ""
    return (f"conda install -c {r['channel']} --override-channels {py}{r['package']}={_base(release)}",
            f"conda: {r['channel']}'s {r['package']} is built with MPS for macOS {arch} ({r.get('source')})")


def jetson_indexes(matrix: Matrix, l4t: Optional[str], jetpack: Optional[str]
                   ) -> Tuple[Optional[Dict[str, Any]], List[Dict[str, Any]]]:
    """(the JetPack row of this L4T / JetPack release, NVIDIA's Jetson wheel indexes that serve it) from
    compat_matrix/jetson.toml; (None, []) when the release is not in the matrix."""
    jp = (matrix.jetpack(l4t) if l4t else None) or (matrix.jetpack(jetpack) if jetpack else None)
    if not jp:
        return None, []
    mm = ".".join(str(jp["version"]).split(".")[:2])
    return jp, [r for r in matrix.jetson_wheel_indexes() if r.get("runs_on_jetson") and mm in (r.get("jetpack") or [])]


def jetson_cuda_line(env: Environment, matrix: Matrix) -> Optional[str]:
    """The `matrix why` line of a PyPI / download.pytorch.org CUDA build on a Jetson: built for server aarch64."""
    if not env.accel.l4t:
        return None
    sbsa = next((r for r in matrix.jetson_wheel_indexes() if r.get("runs_on_jetson") is False), None)
    return (f"jetson: NO - a Jetson (L4T {env.accel.l4t}): PyTorch's aarch64 CUDA wheels are built for server aarch64 "
            "(SBSA), not the Jetson's integrated GPU" + (f" ({sbsa.get('source')})" if sbsa else ""))


def _why_jetson(env: Environment, matrix: Matrix, releases: Sequence[str], python: Optional[str]) -> Dict[str, Any]:
    """`matrix why` for NVIDIA's Jetson build on a Jetson: the JetPack of its L4T release and the wheel index that
    serves it (compat_matrix/jetson.toml); which torch releases the index holds is not in the matrix (unknown)."""
    lines: List[str] = []
    missing: List[str] = []
    no = False
    a = env.accel
    jp, idx = jetson_indexes(matrix, a.l4t, a.jetpack)
    url = str(idx[-1]["index_url"]) if idx else None
    if jp is None:
        missing.append(f"L4T {a.l4t} is not in the matrix's JetPack table (jetson.toml)")
    else:
        jv = str(jp["version"])
        parts = [f"CUDA {jp['cuda']}" if jp.get("cuda") else "", f"cuDNN {jp['cudnn']}" if jp.get("cudnn") else ""]
        lines.append(f"JetPack {jv} (L4T {a.l4t})" + (f": {', '.join(p for p in parts if p)}" if any(parts) else ""))
        if not idx:
            no = True
            lines.append(f"index: NO - no Jetson wheel index in the matrix serves JetPack {jv}")
        else:
            lines.append(f"index: OK - NVIDIA's Jetson wheels for JetPack {jv}: {url}")
            if releases:
                missing.append(f"whether {url} holds torch {', '.join(releases)} (the matrix lists the index per "
                               "JetPack, not its releases)")
    rel = ", ".join(releases) if releases else "any"
    return _why_doc({"release": rel, "variant": "jetson", "index_url": url,
                     "source": idx[-1].get("source") if idx else (jp or {}).get("source")}, lines, missing, no,
                    {"jetpack": jp.get("version") if jp else None})


# -- Jetson -----------------------------------------------------------------------------------------------
def _jetson_findings(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    """A CUDA torch that is not one of NVIDIA's Jetson builds (their local label carries ``nv``: ``+nv23.05``,
    ``.nv24.08``) is a PyPI / download.pytorch.org aarch64 wheel, built for server aarch64 (SBSA)."""
    from envcheck.engine.builds import jetson_build

    if not env.accel.l4t:
        return []
    jp = matrix.jetpack(env.accel.l4t)
    jv = f"JetPack {jp['version']}" if jp else f"L4T {env.accel.l4t}"
    if build_kind(fw) == "cpu" and fw.cpu_only is True:  # every Jetson has an NVIDIA integrated GPU (L4T says Jetson)
        return [Finding("framework-cpu-only", Severity.WARNING,
                        f"{_label(fw)} is a CPU-only build, but this is a Jetson ({jv}), whose NVIDIA integrated GPU it "
                        "cannot use (PyPI's aarch64 torch wheels have no CUDA for a Jetson).",
                        "Install NVIDIA's Jetson build of torch for this JetPack (`envcheck fix` names the wheel index).",
                        f"{env.accel.l4t_source or 'tegra-release.txt'}: L4T {env.accel.l4t}; {fw.evidence}", fw.name)]
    if build_kind(fw) != "cuda" or jetson_build(fw.version):
        return []  # (a Jetson build: NVIDIA's "+nv23.05" / ".nv24.08", the community's "+l4t35.6")
    sbsa = next((r for r in matrix.jetson_wheel_indexes() if r.get("runs_on_jetson") is False), None)
    return [Finding("gpu-arch-unsupported", Severity.ERROR,
                    f"{_label(fw)} is a CUDA wheel for server aarch64 (SBSA), not for this Jetson ({jv}): its kernels "
                    "and CUDA libraries do not run on the Jetson's integrated GPU ('no kernel image is available').",
                    "Install NVIDIA's Jetson build of torch for this JetPack (`envcheck fix` names the wheel index).",
                    f"{env.accel.l4t_source or 'tegra-release.txt'}: L4T {env.accel.l4t}"
                    + (f"; {sbsa.get('source')}" if sbsa else ""), fw.name)]


# -- a framework that could not load its ROCm libraries (torch.json's deep_error) --------------------------------
_SO_LOAD = re.compile(r"([\w.+-]{1,120}\.so(?:\.\d{1,6}){0,4}):\s{0,3}cannot open shared object file")


def library_cause(matrix: Matrix, lib: str) -> Optional[str]:
    """The cause errors.toml's ``[[library]]`` rows give a library that cannot be loaded (``libamdhip64.so.6`` ->
    ``rocm-runtime-missing``); ``None`` for a library that is no part of the GPU stack."""
    name = lib.strip().lower().rsplit("/", 1)[-1]
    for row in (matrix.table("errors") or {}).get("library") or []:
        pat = row.get("pattern") if isinstance(row, dict) else None
        if isinstance(pat, str):
            try:
                if re.search(pat, name):
                    return str(row.get("cause") or "") or None
            except re.error:
                continue
    return None


def _runtime_load_findings(env: Environment, matrix: Matrix) -> List[Finding]:
    out: List[Finding] = []
    for fw in env.frameworks.values():
        err = str((fw.runtime or {}).get("deep_error") or "")
        head = err[:2000]
        # the pattern's own words first: no compile and no search for the usual empty deep_error (issue 24)
        m = _SO_LOAD.search(head) if "cannot open shared object file" in head else None
        if not m or library_cause(matrix, m.group(1)) != "rocm-runtime-missing":
            continue
        out.append(Finding("rocm-runtime-missing", Severity.ERROR,
                           f"{_label(fw)} cannot be imported: the ROCm library {m.group(1)} cannot be loaded.",
                           "PyTorch's own ROCm wheels carry their ROCm libraries: reinstall the build from "
                           "download.pytorch.org/whl/rocmX.Y (`envcheck fix`); a build that links the system ROCm "
                           "needs the ROCm release it was built for, with its lib folder on the loader's path.",
                           f"{fw.name}.json deep_error: {err[:300]}", fw.name))
    return out


# -- all --------------------------------------------------------------------------------------------------
def vendor_findings(env: Environment, matrix: Matrix) -> List[Finding]:
    """Every §9 finding for this machine and its installed frameworks."""
    vendor = machine_vendor(env)
    out: List[Finding] = _runtime_load_findings(env, matrix)
    torch = env.frameworks.get("torch")
    fws = [fw for fw in env.frameworks.values() if fw.name in ("torch", "tensorflow", "jax")]
    cupy = env.frameworks.get("cupy")
    if cupy is not None and vendor and build_kind(cupy) == "cuda" and not any(g.vendor == "nvidia" for g in env.accel.gpus):
        f = _vendor_mismatch(env, cupy, "cuda", vendor)  # a cupy-cudaNNx wheel on an AMD / Intel / Apple machine
        if f:
            out.append(f)
    for fw in fws:
        kind = build_kind(fw)
        if kind in ("cuda", "rocm", "xpu") and vendor:
            f = _vendor_mismatch(env, fw, kind, vendor)
            if f:
                out.append(f)
                continue
        if kind == "rocm" and vendor == "amd" and fw.name == "torch":
            out.extend(_gfx_findings(env, matrix, fw))
            out.extend(_driver_findings(env, matrix, fw))
        if kind is None and fw.name == "torch" and fw.version and env.accel.gpus and (
                vendor == "amd" or (vendor == "intel" and _intel_compute(env))):
            # a version alone (a package list): a PyPI torch on Linux is a CUDA build, the vendor's carries
            # +rocmX.Y / +xpu - which one is installed is unknown, said, not passed over as fine
            gpu_build = "a ROCm (AMD)" if vendor == "amd" else "an XPU (Intel)"
            out.append(_nc(f"{_label(fw)}: whether this is {gpu_build} build, a CUDA build or a CPU build is not known "
                           f"(only its version was read), so whether it can use {_names(env.accel.gpus)} was not "
                           "checked", "Supply torch.json (`envcheck snapshot` on the machine), or check "
                           "`python -c 'import torch; print(torch.__version__, torch.version.hip, torch.version.cuda)'`"
                           if vendor == "amd" else "Supply torch.json (`envcheck snapshot` on the machine), or check "
                           "`python -c 'import torch; print(torch.__version__, torch.version.xpu)'`", fw.name))
        if kind == "cpu" and fw.name == "torch" and env.accel.gpus and (
                vendor == "amd" or (vendor == "intel" and _intel_compute(env))):
            out.append(Finding("framework-cpu-only", Severity.WARNING,
                               f"{_label(fw)} is a CPU-only build, but this machine has "
                               f"{'AMD' if vendor == 'amd' else 'Intel'} GPU(s): {_names(env.accel.gpus)}.",
                               "Install the GPU build (`envcheck fix`).", fw.evidence, fw.name))
    if vendor == "amd" and not env.accel.gpus:
        out.append(_no_amd_gpu_read(env, any(build_kind(fw) == "rocm" for fw in fws)))
    if torch is not None and env.accel.l4t:
        out.extend(_jetson_findings(env, matrix, torch))
    if (torch is not None and torch.version and vendor == "apple" and not (torch.mps or {}).get("built")
            and build_kind(torch) != "cuda" and matrix.mps_row(_base(torch.version)) is None
            and version_tuple(_base(torch.version))):
        first = min((str(r.get("since")) for r in matrix.rows("mps", "mps") if r.get("since")),
                    key=lambda v: version_tuple(v) or (), default=None)
        out.append(Finding("framework-cpu-only", Severity.WARNING,
                           f"{_label(torch)} has no MPS backend" + (f" (MPS came with torch {first})" if first else "")
                           + ": it runs on the CPU only on this Mac.", "Install a newer torch (`envcheck fix`).",
                           f"torch {torch.version}; MPS releases from the matrix", "torch"))
    if vendor in ("amd", "intel"):
        out.extend(_mask_findings(env, vendor, any(build_kind(fw) in ("rocm", "xpu") for fw in fws)))
    if vendor == "amd":
        needed = any(build_kind(fw) == "rocm" for fw in fws)
        out.extend(_device_findings(env, needed))
    if vendor == "intel":
        out.extend(_intel_findings(env, torch))
        if torch is not None and build_kind(torch) == "xpu":
            out.extend(_xpu_aot_findings(env, matrix, torch))
    if vendor == "apple" or env.accel.apple_silicon:
        out.extend(_apple_findings(env, matrix, torch))
    return out


def macos_wheel_ok(matrix: Matrix, torch_version: Optional[str], arch: Optional[str],
                   mac: Optional[str]) -> Optional[bool]:
    """Whether PyPI has a torch ``torch_version`` wheel that installs on macOS ``mac`` for ``arch`` ("arm64" |
    "x86_64"): False past the last x86_64 release, or below the macOS the arm64 wheels' platform tag needs; None
    where a fact is unknown (the matrix's ``[[macos_wheels]]``)."""
    t = cuda_tuple((torch_version or "").split("+", 1)[0])
    a = (arch or "").lower()
    a = "arm64" if a in ("arm64", "aarch64") else a
    if t is None or a not in ("arm64", "x86_64"):
        return None
    for r in matrix.macos_wheel_rows(a):
        since, until = cuda_tuple(str(r.get("since") or "0.0")), cuda_tuple(str(r.get("until") or "999.0"))
        if since is None or until is None:
            continue
        if t > until:
            return False
        if t >= since and r.get("min_macos"):
            ok = macos_at_least(mac, str(r["min_macos"]))
            if ok is not True:
                return ok
    return True


def macos_at_least(have: Optional[str], need: Optional[str]) -> Optional[bool]:
    """Whether macOS ``have`` ("14.5") is at least ``need`` ("12.3", what a torch release's MPS needs); None when
    either is unknown."""
    h, n = version_tuple(have), version_tuple(need)
    if not h or not n:
        return None
    width = max(len(h), len(n))
    return h + (0,) * (width - len(h)) >= n + (0,) * (width - len(n))


def mps_os_meets(matrix: Matrix, env: Environment, line_min: Optional[str]) -> bool:
    """Whether the macOS a report shows meets what MPS needs, so that a log line saying "The MPS backend is supported on
    MacOS X+" is no old-OS verdict for that machine: the macOS is at least the line's own minimum and the torch
    release's matrix minimum (a message can understate it: torch 2.5-2.8 say 12.3+ and need 13.0), or, the release
    unknown, the highest minimum of any release in the matrix. False when the macOS or the line's minimum is unknown."""
    mac = env.accel.mac_version
    if not mac or macos_at_least(mac, line_min) is not True:
        return False
    torch = env.frameworks.get("torch")
    need = mps_min_macos(matrix, torch.version)[0] if torch is not None and torch.version else None
    if need is None:
        mins = [str(r["min_macos"]) for r in matrix.rows("mps", "mps") if r.get("min_macos")]
        need = max(mins, key=lambda v: version_tuple(v) or ()) if mins else None
    return need is not None and macos_at_least(mac, need) is True


# -- explain: a log's cause read with the machine's facts ---------------------------------------------------
#: the log facts (compat_matrix/errors.toml ``[[fact]]`` names) that show an NVIDIA GPU: a model name, a compute
#: capability, the CUDA version nvidia-smi prints
_NVIDIA_LOG_FACTS = ("nvidia_gpu", "cc", "driver_cuda")


def log_vendor(facts: Optional[Dict[str, str]]) -> Optional[str]:
    """The GPU vendor a log itself shows, from the knowledge base's facts read off its lines: "amd" when it names an
    AMD GPU (``amd_gpu``: a Radeon / RX model, a gfx target, ROCm, an AMD fork's folder such as webui-amdgpu; not
    ZLUDA, whose name holds no prefilter anchor) and no NVIDIA one (``nvidia_gpu``, a compute capability,
    nvidia-smi's CUDA version); "apple" when it names a Mac (``apple_mac``: macOS / OS X, a
    MacBook, an M-series chip beside the word Mac) and neither an NVIDIA nor an AMD GPU (an Intel Mac's Radeon is
    the AMD case); else ``None`` (unknown, or several)."""
    f = facts or {}
    if any(f.get(k) for k in _NVIDIA_LOG_FACTS):
        return None
    if f.get("amd_gpu"):
        return "amd"
    if f.get("apple_mac") and not str(f["apple_mac"]).lower().endswith("address"):  # a network MAC address: no Mac
        return "apple"
    return None


#: a Python's platform that no Mac runs natively (a Mac's Python says "darwin")
_NOT_MAC_PLATFORMS = ("win32", "linux")
#: a log fact's value that says the fact is undecided: a fix's ``when`` naming it is neither true nor false (both a
#: Jetson's and a desktop's fixes stay where the text names both machines)
UNDECIDED = "?"
#: a Jetson module's name (an NVIDIA GPU a text names that is none of these is a desktop / server card)
#: (its integrated GPU by chip: GA10B Orin, GV11B Xavier, GP10B TX2, GM20B Nano / TX1, GB10B Thor; "Orin (nvgpu)")
_JETSON_GPU = re.compile(r"(?i)jetson|orin|xavier|tegra|\bnano\b|\btx[12]\b|thor|agx|\bnx\b|\bg[abmpv]\d{2}b\b|nvgpu")


#: an ``apple_mac`` fact read off the MPS device asked in code (errors.toml apple42: ``device = "mps"``,
#: ``torch.device("mps")``, ``.to("mps")``, ``--device mps``), not off a macOS home folder or a word of a Mac
_MPS_IN_CODE = re.compile(r"""[\x27"]mps\b|--device[= ]""")


def text_machine_facts(env: Optional[Environment], facts: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The log facts that may speak for the machine a pasted text came from: without the Mac a sentence names
    (``apple_mac``: "It works on my MacBook", "I also have a Mac") where the text shows a Windows or Linux Python (its
    ``text_platform``: a report's platform, a ``C:\\...\\site-packages`` path; or the report's own ``env`` read from
    the paste) - the machine that failed is that one, and "CUDA asked of a Mac" would be false there (attack35); nor the
    MPS device asked in code (:data:`_MPS_IN_CODE`) where the code asks torch whether MPS is there (``mps_checked``: a
    cross-platform choice of CUDA, MPS or the CPU, attack55).
    Other facts unchanged; this machine's or a snapshot's ``env`` says nothing of the text's machine.

    A Jetson named beside a desktop or server NVIDIA GPU ("This works on my Jetson Nano but fails on my desktop RTX
    3090", "I'm on a desktop RTX 3090, not a Jetson") leaves which machine failed undecided (``jetson`` =
    :data:`UNDECIDED`): the Jetson's fixes do not replace the desktop's (attack36: "flash that JetPack" alone for an
    RTX 3090)."""
    board = env is not None and bool(getattr(getattr(env, "accel", None), "l4t", None))  # the machine is a Jetson
    if facts and facts.get("jetson") and facts.get("jetson") != UNDECIDED and facts.get("nvidia_gpu") and not board \
            and not _JETSON_GPU.search(str(facts.get("nvidia_gpu"))):
        facts = {**facts, "jetson": UNDECIDED}
    if not facts or not facts.get("apple_mac"):
        return facts
    if facts.get("mps_checked") and _MPS_IN_CODE.search(str(facts["apple_mac"])):
        # the MPS device asked in code where the code asks torch whether MPS is there: a cross-platform device choice
        # (CUDA, else MPS, else the CPU) that runs on any machine, no Mac (attack55); a macOS home folder the text
        # also shows (``mac_home``, read after the code) still is
        facts = {k: v for k, v in facts.items() if k != "apple_mac"}
        if not facts.get("mac_home"):
            return facts
        facts["apple_mac"] = facts["mac_home"]
    shown = facts.get("text_platform") or (env.python.platform if env is not None and env.source == "paste" else None)
    if shown not in _NOT_MAC_PLATFORMS:
        return facts
    return {k: v for k, v in facts.items() if k != "apple_mac"}


def log_says_no_nvidia(facts: Optional[Dict[str, str]]) -> bool:
    """Whether the text's reporter says the machine has no NVIDIA GPU ("I don't have NVIDIA GPU": the knowledge base's
    ``no_nvidia_said``) and the log shows no NVIDIA fact (a GPU model, a compute capability, the driver's CUDA)."""
    f = facts or {}
    return bool(f.get("no_nvidia_said")) and not any(f.get(k) for k in _NVIDIA_LOG_FACTS)


def log_directml(facts: Optional[Dict[str, str]]) -> bool:
    """Whether the text shows a DirectML build at work (the knowledge base's ``directml``: the web UI's DirectML fork,
    torch-directml) and no NVIDIA fact. DirectML runs on Windows on the GPU's DirectX 12 driver; the forks are for AMD's
    and Intel's GPUs. Beside a CUDA build that finds no NVIDIA driver at all (``cuda-build-no-nvidia``) it shows a
    machine whose GPU is not NVIDIA's; alone it says nothing of the vendor (the fork runs on NVIDIA GPUs too)."""
    f = facts or {}
    said = str(f.get("directml") or "").lower()
    if re.match(r"(?:not|if|no longer|stopped|\w{1,8}n't) ", said):
        return False  # attack56: "not using DirectML", "if not using DirectML", "isn't on DirectML": none at work
    return bool(said) and not any(f.get(k) for k in _NVIDIA_LOG_FACTS)


def log_stack_vendor(facts: Optional[Dict[str, str]]) -> Optional[str]:
    """The vendor whose software stack a log itself shows (its ``hip`` / ``xpu`` / ``mps`` facts: a HIP error,
    rocBLAS, MIOpen, a Level Zero status, the MPS backend), when it shows exactly one and no NVIDIA fact (a compute
    capability, the driver's CUDA); else ``None``."""
    f = facts or {}
    kinds = {k for k in ("hip", "xpu", "mps") if f.get(k)}
    if len(kinds) != 1 or f.get("cc") or f.get("driver_cuda"):
        return None
    return {"hip": "amd", "xpu": "intel", "mps": "apple"}[kinds.pop()]


def device_node_vendor(node: Optional[str]) -> Optional[str]:
    """Whose compute stack a device node a log names belongs to: ``/dev/kfd`` is ROCm's kernel interface ("amd",
    never NVIDIA's, whose CUDA opens /dev/nvidia*); ``None`` for anything else or nothing."""
    return "amd" if node == "/dev/kfd" else None


#: a GPU name of another vendor than NVIDIA (a pasted lspci / device-name line a report reader took for the GPU)
#: (a model number with AMD's XT / XTX suffix - "7900xtx", "6600 XT" - is a Radeon: NVIDIA's models say Ti / SUPER)
#: (rocm30) also an AMD GPU named by its gfx target or as an Instinct part ("- GPU: MI50 (gfx906)",
#: ROCm/legacy-rocm-build#4625): no NVIDIA GPU is named either way
_OTHER_VENDOR_GPU = re.compile(r"\b(?:AMD|Radeon|Advanced Micro Devices|Intel(?:\(R\)|®)? Arc|Apple M\d)|"
                               r"(?<![RG]TX )(?<![RG]TX)\b\d{4} ?XTX?\b|"
                               r"\bgfx\d{3,4}[a-f]?\b|\bInstinct\b|\bMI\d{2,3}[AX]?\b", re.I)


def gpus_all_other_vendor(gpus: Sequence[Gpu]) -> bool:
    """Every GPU listed is named as another vendor's (AMD, Radeon, Intel Arc, Apple M-series); False for none."""
    return bool(gpus) and all(_OTHER_VENDOR_GPU.search(g.name or "") for g in gpus)


def log_intel_stack(facts: Optional[Dict[str, str]]) -> bool:
    """The log shows Intel's XPU stack and nothing of NVIDIA's or AMD's: a torch "+xpu" build named in it, or - where
    no build is named - the word XPU / a Level Zero status (``log_stack_vendor``). A CPU / CUDA / ROCm build named
    ("PyTorch version: 2.8.0+cpu") decides against it: collect_env prints "Is XPU available: False" everywhere."""
    f = facts or {}
    if log_shows_nvidia(f) or log_vendor(f) is not None:
        return False
    torch = str(f.get("torch") or "")
    if "+" in torch:
        return "+xpu" in torch
    return log_stack_vendor(f) == "intel"


@functools.lru_cache(maxsize=1)
def xpu_first_torch() -> str:
    """The first torch release with XPU wheels (compat_matrix/xpu.toml's ``torch_xpu`` rows: 2.5.0), as "2.5"; "2.5"
    is never written in the advice texts."""
    from envcheck.matrix import load_matrix

    got = sorted((version_tuple(str(r.get("release"))) or (99,), str(r.get("release")))
                 for r in load_matrix().rows("xpu", "torch_xpu"))
    return ".".join(got[0][1].split(".")[:2]) if got else "the first release with XPU wheels"


def log_intel_gpu(facts: Optional[Dict[str, str]]) -> bool:
    """The text's reporter says the machine's GPU is an Intel one ("I have Intel iRIS Graphics GPU", "I'm using a
    integrated Intel GPU(iris xe graphics)": ``intel_gpu_said``, read by paste/readers/prose_intel.py) and the text
    shows nothing of an NVIDIA or AMD GPU (no NVIDIA model, compute capability or nvidia-smi CUDA; no AMD GPU, Mac):
    CUDA asked there is asked of another vendor's GPU (lm-sys/FastChat#2105, Akegarasu/lora-scripts#101)."""
    f = facts or {}
    return bool(f.get("intel_gpu_said")) and not log_shows_nvidia(f) and log_vendor(f) is None


def log_shows_nvidia(facts: Optional[Dict[str, str]]) -> bool:
    """The log names an NVIDIA GPU (a model, a compute capability, nvidia-smi's CUDA version)."""
    return any((facts or {}).get(k) for k in _NVIDIA_LOG_FACTS)


def context_holds(cause_id: str, facts: Optional[Dict[str, str]]) -> bool:
    """Whether a context line of ``cause_id`` may explain the failures after it: the AMD host a line such as "ROCm"
    or "AMD Radeon" suggests (``framework-vendor-mismatch``) does not hold in a log that names an NVIDIA GPU - a
    CUDA failure there is NVIDIA's own (an iGPU's "AMD Radeon" beside the RTX, ROCm named in passing). A container
    started without GPUs (``no-gpu-visible``: "docker run ..." above a driver the process cannot find) does not hold
    where the log shows the GPUs were asked for (the fact ``docker_gpus``: --gpus, --runtime=nvidia, nvidia-docker):
    then a missing driver is the host's."""
    if cause_id == "no-gpu-visible":
        return not (facts or {}).get("docker_gpus")
    return not (cause_id == "framework-vendor-mismatch" and log_shows_nvidia(facts))


#: what a knowledge-base wording says that the vendor rules below read: errors.toml's signature attribute ``says``
#: ("|"-separated; the rules are keyed on it, never on a signature's name):
#:
#: * ``cuda-check-only``: a program's own start-up check that torch can use CUDA (torch.cuda.is_available()), said
#:   without why (the Stable Diffusion web UI's "Torch is not able to use GPU; add --skip-torch-cuda-test to
#:   COMMANDLINE_ARGS variable to disable this check", AUTOMATIC1111/stable-diffusion-webui modules/launch_utils.py; its
#:   AMD forks print it when started without their --use-directml / --use-zluda backend,
#:   lshqqytiger/stable-diffusion-webui-amdgpu#480);
#: * ``ptxas-floor-notice``: XLA's floor check "You are using ptxas X, which is older than Y" (stream_executor
#:   asm_compiler.cc), which a JetPack 4 Jetson prints on every run (see :func:`jetpack_ptxas_notice`);
#: * ``no-cuda-in-build``: "this torch has no usable CUDA", which a build for another vendor also prints;
#: * ``no-nvidia-driver``: CUDA's "driver version is insufficient" (cudaErrorInsufficientDriver, 35), which the CUDA
#:   runtime also returns where no NVIDIA driver is installed;
#: * ``cuda-build-no-nvidia``: "this CUDA build finds no usable NVIDIA driver" (torch's lazy init's "Found no NVIDIA
#:   driver on your system", "The NVIDIA driver on your system is too old (found version N)", CUDA's 35): what a CUDA
#:   build says on a machine whose only GPU is AMD's (pytorch/pytorch#126004: an RX 7900 XTX;
#:   lshqqytiger/stable-diffusion-webui-amdgpu-forge#65);
#: * ``no-amd-gpu-seen``: "the ROCm runtime sees no AMD GPU" (torch's "No HIP GPUs are available", HIP's
#:   hipErrorNoDevice, rocBLAS's "Could not initialize Tensile host: No devices found");
#: * ``mac-only``: a wording whose cause holds only on a Mac, named only where the text (or this machine) shows one and
#:   no NVIDIA GPU (mac30): a conda / pixi solver that finds no build of a CUDA-only package (pytorch-cuda, pytorch-gpu)
#:   - none exists for osx-arm64 / osx-64, a channel or pin problem elsewhere (rerun-io/prompt-da#2,
#:   guoyww/AnimateDiff#293) -; TensorFlow's "compiled to use AVX instructions, but these aren't available on your
#:   machine" - an x86_64 TensorFlow emulated on Apple silicon (an amd64 container, tensorflow/tensorflow#52972),
#:   an old CPU elsewhere (tensorflow/tensorflow#6896);
#: * ``apple-silicon-only``: a cause that holds on Apple silicon only, for a Python's process (an illegal instruction:
#:   an x86_64 Python under Rosetta 2 loading an AVX build); ``jetson-only`` / ``jetson-numpy-only``: on a Jetson only
#:   (the shell's bare "Killed"; numpy 1.19.5's illegal instruction where numpy is named); ``nvmap-beside-failure``:
#:   L4T's NvMap lines beside something that failed; ``no-nvidia-shown``: where no NVIDIA GPU is in play (the Level
#:   Zero loader's "0 Drivers Discovered", printed on a healthy NVIDIA machine too).
SAYS = ("cuda-check-only", "ptxas-floor-notice", "no-cuda-in-build", "no-nvidia-driver", "cuda-build-no-nvidia",
        "no-amd-gpu-seen", "mac-only", "apple-silicon-only", "jetson-only", "jetson-numpy-only",
        "nvmap-beside-failure", "no-nvidia-shown")

#: an Apple silicon Mac named in a log's ``apple_mac`` fact: its chip (M1 ... M5, "Apple M2 Max") or "Apple silicon"
_APPLE_SILICON = lazyre.compile(r"(?:^|[^\w])m[1-5](?:[^\w]|$)|silicon", re.I)


def cuda_check_speaks(says: Sequence[str], env: Optional[Environment], log_facts: Optional[Dict[str, str]]) -> bool:
    """Whether a match whose wording ``says`` (:data:`SAYS`) names a cause. A program's own "CUDA is not available"
    check (``cuda-check-only``) does where the log shows an AMD GPU or a Mac (:func:`log_vendor`), or Intel's XPU stack
    and nothing of NVIDIA's (:func:`log_intel_stack`) - CUDA asked of another vendor's GPU
    (``framework-vendor-mismatch``) - or, without such facts, where this machine's accelerator is AMD's, Apple's or an
    Intel GPU a compute stack sees. Elsewhere (an NVIDIA machine, or none known) the line alone does not say why CUDA
    is unavailable (a CPU build, no driver, a hidden GPU): no cause is named. Any other wording: True."""
    if "no-nvidia-shown" in says and (log_shows_nvidia(log_facts) or (env is not None and machine_vendor(env) == "nvidia")):
        # a wording that names its cause only where no NVIDIA GPU is in play (the Level Zero loader's "0 Drivers
        # Discovered" beside sycl-ls's CUDA backend on a GeForce: oneapi-src/level-zero#201, a healthy machine)
        return False
    if "nvmap-beside-failure" in says:
        # (jetson32) L4T's NvMap allocator lines speak only beside something that failed or was killed: alone they
        # are TensorRT's builder retrying smaller and succeeding
        return bool((log_facts or {}).get("failure_named"))
    if "jetson-only" in says or "jetson-numpy-only" in says:
        # (jetson32) a wording whose cause holds on a Jetson only (the shell's bare "Killed": the OOM killer, where the
        # GPU shares the RAM; numpy 1.19.5's illegal instruction: its OpenBLAS on the Jetson's ARMv8 cores, where the
        # text names numpy): the text names a Jetson (not one left undecided beside a desktop GPU), or this machine is one
        f = log_facts or {}
        if "jetson-numpy-only" in says and not f.get("numpy_named"):
            return False
        named = f.get("jetson")
        if named:
            return named != UNDECIDED
        if f.get("tegra_nvmap"):
            return True  # L4T's NvMap allocator lines: a Jetson's
        return env is not None and bool(getattr(getattr(env, "accel", None), "l4t", None)) and not log_shows_nvidia(f)
    if "apple-silicon-only" in says:
        # a wording whose cause holds on Apple silicon only (a process that died of an illegal instruction there is an
        # x86_64 one under Rosetta 2, which runs no AVX-512 and, before macOS 15, no AVX: an Intel Mac or a Linux box
        # that prints it lacks the instructions the build asks for, another cause): the log's chip, or this machine
        # ... and of a Python's process (the text names Python, or this machine has a framework installed: an x86_64
        # binary of another program, whisper-cli-rs#12, is no Python's)
        f = log_facts or {}
        python_fw = bool(f.get("python_named") or (env is not None and env.frameworks))
        if log_vendor(f) == "apple" or (f.get("apple_silicon") and not log_shows_nvidia(f) and not f.get("amd_gpu")):
            return python_fw and bool(f.get("apple_silicon") or _APPLE_SILICON.search(str(f.get("apple_mac", ""))))
        return python_fw and env is not None and not log_shows_nvidia(f) and machine_vendor(env) == "apple"
    if "mac-only" in says:
        # a wording whose cause holds on a Mac only: the log's Mac, or this machine
        if log_vendor(log_facts) == "apple":
            return True
        return env is not None and not log_shows_nvidia(log_facts) and machine_vendor(env) == "apple"
    if "cuda-check-only" not in says:
        return True
    if _rocm_torch_shown(env, log_facts):
        return False  # a ROCm torch that reaches no GPU: no CPU build, nor one to swap for a ROCm build (pastes21a)
    if log_zluda(log_facts):
        return False  # (vend32) ZLUDA runs the CUDA build on the AMD GPU on purpose: no build of the wrong vendor
    if (log_facts or {}).get("xpu_ready") and log_vendor(log_facts) is None and not log_shows_nvidia(log_facts):
        # (vendor41) the text shows torch's XPU backend reaching the Intel GPU ("torch.xpu.is_available() -> True",
        # collect_env's "Is XPU available: True"): the XPU build works, and a check that asks only for CUDA is the
        # program's own choice of device (utensils/comfyui-nix#56: a CUDA-only CPU-fallback patch), no build to swap
        return False
    if log_vendor(log_facts) in ("amd", "apple") or log_intel_stack(log_facts) or log_intel_gpu(log_facts):
        return True
    if env is None or log_shows_nvidia(log_facts):
        return False
    vendor = machine_vendor(env)
    return vendor in ("amd", "apple") or (vendor == "intel" and _intel_compute(env))


#: the L4T releases' CUDA is the only one a Jetson has before JetPack 5 (JetPack 4, L4T r32: CUDA 10.x; no newer CUDA
#: exists for those boards: jetson.toml ``[[fixed_cuda]]``), and NVIDIA's Jetson builds of TensorFlow / JAX are built
#: against it: XLA's floor check (``ptxas-floor-notice``) is printed on every such run


def jetpack_ptxas_notice(says: Sequence[str], captures: Dict[str, str], log_facts: Optional[Dict[str, str]],
                         matrix: Optional[Matrix] = None) -> bool:
    """A match of XLA's "ptxas X, which is older than Y" floor check in a log that shows a Jetson (the fact ``jetson``)
    with a ptxas of a CUDA major the board has only as its JetPack's own (jetson.toml ``[[fixed_cuda]]``: JetPack 4 and
    older): XLA's notice about the board's only toolkit, not a toolkit that differs from the framework's
    (``cuda-toolkit-mismatch`` would be false there). ``matrix`` None: the active matrix."""
    if "ptxas-floor-notice" not in says or not (log_facts or {}).get("jetson"):
        return False
    major = str(captures.get("ptxas") or "").split(".")[0]
    if not captures.get("min_toolkit") or not major.isdigit():
        return False
    if matrix is None:
        from envcheck.matrix import load_matrix

        matrix = load_matrix()
    return int(major) in {r.get("cuda_major") for r in matrix.rows("jetson", "fixed_cuda")}


#: an AMD GPU named by model or gfx target (not ROCm's name, a ROCm wheel's tag or MIOpen, which a ROCm build prints
#: wherever it runs)
_AMD_GPU_NAMED = re.compile(r"radeon|rx ?\d|gfx|amd \d", re.I)


def cuda_check_on_amd(says: Sequence[str], facts: Optional[Dict[str, str]]) -> bool:
    """PyTorch's CUDA capability check (``says`` ``cuda-cc-check``: "Found GPU%d %s which is of cuda capability %d.%d",
    "PyTorch no longer supports this GPU because it is too old") where the GPU it names is AMD's (a Radeon / RX model,
    a gfx target). PyTorch runs that check in CUDA builds only (torch/cuda/__init__.py: ``if torch.version.cuda is not
    None:  # on ROCm we don't want this check``); a ROCm build that still prints it (ROCm/pytorch#627: a source build of
    1.6.0a0 on an RX 480, gfx803, warned "cuda capability 3.0 ... too old" and then ran) compares HIP's stand-in
    numbers for a gfx target with CUDA's floor: the warning says nothing of the GPU's support, so it is no cause."""
    return "cuda-cc-check" in says and bool(_AMD_GPU_NAMED.search(str((facts or {}).get("gpu") or "")))


def _rocm_build_elsewhere(env: Optional[Environment], log_facts: Optional[Dict[str, str]]) -> Optional[str]:
    """A ROCm build that finds no AMD GPU where the log shows an NVIDIA GPU and names no AMD one, or on a machine whose
    accelerator is known to be another vendor's (NVIDIA, Intel, Apple): a build for another vendor
    (``framework-vendor-mismatch``), not a GPU hidden from the process. An AMD machine, or one whose vendor is not
    known, keeps the line's own cause."""
    f = log_facts or {}
    if log_shows_nvidia(f) and not _AMD_GPU_NAMED.search(str(f.get("amd_gpu") or "")):
        return "framework-vendor-mismatch"
    if env is None or machine_vendor(env) not in ("nvidia", "intel", "apple"):
        return None
    if any(g.vendor == "amd" for g in env.accel.gpus) or "0x1002" in env.accel.pci_vendors:
        return None  # an AMD GPU beside the other vendor's: the ROCm build may have missed that one
    return "framework-vendor-mismatch"


def rocm_build_elsewhere(env: Optional[Environment], log_facts: Optional[Dict[str, str]]) -> Tuple[str, str]:
    """For :func:`_rocm_build_elsewhere`'s verdict (a ROCm build that finds no AMD GPU, read as
    ``framework-vendor-mismatch``): (why it was read so, what the machine needs instead)."""
    f = log_facts or {}
    if log_shows_nvidia(f):
        gpu = f.get("nvidia_gpu")
        where, vendor = (f"the log shows an NVIDIA GPU ({gpu})" if gpu else "the log shows an NVIDIA GPU"), "nvidia"
    else:
        vendor = (machine_vendor(env) if env is not None else None) or "nvidia"
        where = f"this machine's accelerator is {_VENDOR_NAME.get(vendor, vendor)}'s"
    need = {"nvidia": "the CUDA build of torch for its NVIDIA GPU (`envcheck fix` on that machine picks the cuXXX "
                      "variant its driver and GPUs take)",
            "intel": "PyTorch's XPU build for its Intel GPU (`pip install torch --index-url "
                     "https://download.pytorch.org/whl/xpu`, torch >= " + xpu_first_torch() + ")",
            "apple": "PyPI's default macOS wheel, whose GPU device is 'mps' (Apple silicon)"}[vendor]
    note = (f"read as framework-vendor-mismatch: a ROCm (HIP) build found no AMD GPU and {where}; the line alone says "
            "no-gpu-visible")
    advice = (f"A ROCm (HIP) build of torch runs on AMD GPUs only, and {where} with no AMD GPU named: install {need} "
              "instead of the rocmX.Y build (a ROCm index URL or a '+rocm' wheel in the install command is the sign).")
    return note, advice


#: the vendors' names in the sentences above
_VENDOR_NAME = {"nvidia": "NVIDIA", "intel": "Intel", "apple": "Apple"}


def cpu_reading_void(cause_id: str, says: Sequence[str], env: Optional[Environment],
                     log_facts: Optional[Dict[str, str]] = None) -> bool:
    """A "this torch has no usable CUDA" line (``framework-cpu-only``, ``no-cuda-in-build``) where the torch the
    text shows is a ROCm build - the report's torch, or a ``+rocm`` wheel tag in the log (pastes21a: webui installed
    torch 2.0.1+rocm5.4.2 on an NVIDIA laptop whose AMD iGPU it saw, then "Torch is not able to use GPU"): a ROCm build
    that reaches no GPU is no CPU-only build, nor one to swap for a ROCm build; the line names no cause of its own."""
    return cause_id == "framework-cpu-only" and "no-cuda-in-build" in says and _rocm_torch_shown(env, log_facts)


def _rocm_torch_shown(env: Optional[Environment], log_facts: Optional[Dict[str, str]]) -> bool:
    """The torch the text shows is a ROCm build: the report's torch, or a ``+rocm`` wheel tag in the log."""
    torch = env.frameworks.get("torch") if env is not None else None
    amd = str((log_facts or {}).get("amd_gpu") or "").strip().lower()
    return (torch is not None and bool(torch.rocm)) or amd.startswith("+rocm")


#: the causes of a CUDA library that did not load (a CUDA build's own dependency)
_CUDA_LIBRARY_CAUSES = frozenset({"cuda-runtime-missing", "cudnn-missing"})


def log_zluda(facts: Optional[Dict[str, str]]) -> bool:
    """The log shows ZLUDA (a CUDA build run on an AMD GPU on purpose: its CUDA libraries are ZLUDA's own)."""
    return any("zluda" in str(v).lower() for v in (facts or {}).values())


def zluda_library_advice(cause_id: str, facts: Optional[Dict[str, str]]) -> Optional[str]:
    """For a CUDA library (cuBLAS, cuDNN, NVRTC ...) that did not load from a ZLUDA install (``log_zluda``: a DLL on a
    path through a folder named for ZLUDA): what to do there, where NVIDIA's CUDA packages are no fix. ZLUDA's
    installers copy its own stand-ins over torch's CUDA DLLs, and these load AMD's HIP SDK libraries (patientx/
    ComfyUI-Zluda#5: the HIP SDK's bin folder was not on PATH; #224: the HIP SDK add-on files were not copied).
    ``None``: not such a case."""
    if cause_id not in _CUDA_LIBRARY_CAUSES or not log_zluda(facts) or any((facts or {}).get(k)
                                                                           for k in _NVIDIA_LOG_FACTS):
        return None
    where = next((str(v) for v in (facts or {}).values() if "zluda" in str(v).lower()), "ZLUDA")
    return (f"The library that did not load is in a ZLUDA install ({where}): there the CUDA DLLs of torch are ZLUDA's "
            "own stand-ins, which run the CUDA build on an AMD GPU through AMD's HIP SDK, so NVIDIA's CUDA or cuDNN "
            "packages do not help. Such a DLL fails to load when the HIP SDK libraries it needs are not found: install "
            "the HIP SDK version that the ZLUDA build was made for (with the add-on files its install guide names for "
            "the GPU), make sure the HIP SDK's bin folder is on PATH and HIP_PATH names its folder, open a new console, "
            "and run the install's ZLUDA patch step again.")


def recast_cause(cause_id: str, says: Sequence[str], env: Optional[Environment],
                 log_facts: Optional[Dict[str, str]] = None) -> Optional[str]:
    """The cause a log line means on the machine it came from, where it differs from the line's own: "Torch not
    compiled with CUDA enabled" (framework-cpu-only) where the accelerator is AMD, or an Intel GPU a compute stack
    sees, is a build for another vendor (``framework-vendor-mismatch``, contract §9), not a plain CPU build to swap
    for a CUDA one. The log's own facts (:func:`log_vendor`) speak for the machine the log came from; without them
    this machine's (``env``). ``None``: the line's own cause stands."""
    if "cuda-build-no-nvidia" in says and (log_vendor(log_facts) == "amd" or log_says_no_nvidia(log_facts)
                                           or log_directml(log_facts) or log_intel_gpu(log_facts)):
        # the log shows an AMD GPU (or its reporter says no NVIDIA GPU, or a DirectML build at work): not NVIDIA's
        return "framework-vendor-mismatch"
    if cause_id == "driver-too-old" and "no-nvidia-driver" in says and log_intel_gpu(log_facts):
        return "framework-vendor-mismatch"  # CUDA's 35 where the reporter's only GPU is Intel's: no NVIDIA driver at all
    if cause_id == "driver-too-old" and "no-nvidia-driver" in says and env is not None:
        # CUDA's "driver version is insufficient" is also what its runtime says where there is no NVIDIA driver at
        # all: on a machine whose accelerator is AMD's (or an Intel GPU a compute stack sees), a CUDA build there
        vendor = machine_vendor(env)
        return "framework-vendor-mismatch" if vendor == "amd" or (vendor == "intel" and _intel_compute(env)) else None
    if cause_id == "no-gpu-visible" and "no-amd-gpu-seen" in says:
        return _rocm_build_elsewhere(env, log_facts)
    if cause_id in _CUDA_LIBRARY_CAUSES and log_vendor(log_facts) == "amd" and not log_zluda(log_facts):
        # a CUDA library (libcublas.so.9.0, libcudnn) that did not load, in a log that shows an AMD GPU and no NVIDIA
        # GPU: a CUDA build of the framework on another vendor's machine (ROCm/ROCm#442: tensorflow-gpu installed
        # beside ROCm on a Radeon; no CUDA install makes it use that GPU). Not on a Mac the text only names: a
        # template's unticked "[ ] macOS" or a loader message's "DYLD_LIBRARY_PATH on Mac OS" names one too
        return "framework-vendor-mismatch"
    if cause_id in _CUDA_LIBRARY_CAUSES and log_intel_gpu(log_facts) and not log_zluda(log_facts):
        # (vend32) the same where the reporter says the machine's GPU is an Intel one and the text names no NVIDIA or
        # AMD GPU: a CUDA library (onnxruntime-gpu's libcublasLt.so.11, a CUDA torch's libcudart) that did not load is a
        # CUDA build on an Intel machine (commaai/openpilot#31708: "like on my Intel GPU"), as CUDA's 35 is above
        return "framework-vendor-mismatch"
    if cause_id != "framework-cpu-only" or "no-cuda-in-build" not in says:
        return None
    if cpu_reading_void(cause_id, says, env, log_facts):
        return None  # a ROCm build that reaches no GPU: neither CPU-only nor one to swap for ROCm (explain drops it)
    if log_vendor(log_facts) in ("amd", "apple"):  # an AMD GPU, or a Mac: PyTorch's macOS builds have no CUDA
        return "framework-vendor-mismatch"
    if log_directml(log_facts):
        # r2amd: CUDA asked of a torch without CUDA where the text shows DirectML at work (the DirectML web UI fork,
        # torch-directml, the --directml option, "Should work with DirectML"): the DirectML setup's torch has no CUDA by
        # design and its GPU is reached through DirectX 12 (an AMD or Intel GPU; the fork switches itself to a CUDA torch
        # on an NVIDIA GPU), so the CUDA code path is the other vendor's, not a CPU build to swap for a CUDA one
        return "framework-vendor-mismatch"
    if log_intel_stack(log_facts) or log_intel_gpu(log_facts):
        return "framework-vendor-mismatch"  # CUDA asked where the log shows Intel's XPU stack (or the reporter's Intel
        # GPU) and nothing of NVIDIA's
    if env is None:
        return None
    vendor = machine_vendor(env)
    if vendor == "amd" or (vendor == "intel" and _intel_compute(env)):
        return "framework-vendor-mismatch"
    torch = env.frameworks.get("torch")
    if torch is not None and build_kind(torch) == "xpu":
        return "framework-vendor-mismatch"  # an XPU build asked for CUDA: Intel's build, not a CPU one to swap
    return None


def log_vendor_advice(facts: Optional[Dict[str, str]], says: Sequence[str] = (),
                      line_cause: Optional[str] = None) -> Optional[str]:
    """For a CUDA build (or code asking for CUDA) in a log that shows an AMD GPU or a Mac and no NVIDIA GPU: what it
    needs (``says``: what the line's knowledge-base wording says, :data:`SAYS`: whether the torch there is a CUDA
    build; ``line_cause``: the cause the line alone says, a CUDA library that did not load for one)."""
    vendor = log_vendor(facts)
    if line_cause in _CUDA_LIBRARY_CAUSES and vendor == "amd":
        return _cuda_library_advice(facts)
    if vendor == "amd" and "cuda-build-no-nvidia" in says:
        return (f"The log shows an AMD GPU ({(facts or {}).get('amd_gpu')}) and no NVIDIA GPU: this torch is a CUDA "
                "build, which runs only on NVIDIA GPUs: what it says of the driver (none found, too old) is what it says on "
                "a machine without NVIDIA's, and no driver install makes it use the AMD GPU. Install a ROCm build of "
                "torch (Linux; `envcheck fix` on that machine picks the rocmX.Y variant whose gfx target list holds "
                "the GPU), or use the program's own AMD option where it has one.")
    if vendor is None and "cuda-build-no-nvidia" in says and log_says_no_nvidia(facts):
        return (f"The report says the machine has no NVIDIA GPU (\"{(facts or {}).get('no_nvidia_said')}\"): this torch is "
                "a CUDA build, which runs only on NVIDIA GPUs, and what it says of the driver (none found, too old) is "
                "what it says on any machine without one; no driver install changes that. Install the build for the GPU "
                "the machine has (ROCm on Linux for AMD, the XPU build for Intel, the macOS build's MPS on a Mac) or the "
                "program's own option for it, or run on the CPU.")
    if vendor is None and "cuda-build-no-nvidia" in says and log_directml(facts):
        return (f"The log shows a DirectML build at work ({(facts or {}).get('directml')}) and this torch is a CUDA "
                "build that found no NVIDIA driver at all: the GPU DirectML runs on here is not NVIDIA's (AMD's or "
                "Intel's, through its DirectX 12 driver), and no driver install makes a CUDA build use it. Start the "
                "program on its DirectML backend (the DirectML web UI fork: its use-directml option, with two leading "
                "dashes, in COMMANDLINE_ARGS of webui-user.bat, and a fresh venv so that it installs torch-directml "
                "instead of the CUDA torch; ZLUDA is its other option on AMD GPUs), or install the build for that "
                "GPU (ROCm on Linux for AMD, PyTorch's XPU build for Intel).")
    if vendor is None and "no-cuda-in-build" in says and log_directml(facts):
        return (f"The log shows DirectML at work ({(facts or {}).get('directml')}) and code asking for CUDA "
                "(device='cuda', torch.cuda.*) of a torch built without it: a DirectML setup's torch has no CUDA, and "
                "the GPU it runs on (AMD's or Intel's, through its DirectX 12 driver) cannot run CUDA whatever torch is "
                "installed. Run the feature on the program's DirectML device (torch_directml.device(), shown as "
                "privateuseone) where it supports one, or use an extension or node that does not hard-code CUDA; on AMD "
                "GPUs ZLUDA (Windows) or a ROCm build of torch (Linux) are the other options.")
    if log_intel_stack(facts):
        return ("The log shows Intel's XPU stack and no NVIDIA GPU: code asking for CUDA (device='cuda', torch.cuda.*) "
                "cannot run on an Intel GPU, whatever torch is installed. Run it on the 'xpu' device with PyTorch's XPU "
                "build (torch >= " + xpu_first_torch() + " from the xpu index; the program's XPU / device option where it has one), "
                "or ask "
                "the program for XPU support where its CUDA calls are hard-coded.")
    if log_intel_gpu(facts):
        gpu = (facts or {}).get("intel_gpu_said")
        build = ("this torch is a CUDA build, which runs only on NVIDIA GPUs: what it says of the driver (none found, "
                 "too old) is what it says on any machine without one, and no NVIDIA driver or CUDA install makes it use "
                 "the Intel GPU. " if ("cuda-build-no-nvidia" in says or "no-nvidia-driver" in says) else
                 "code asking for CUDA (device='cuda', .cuda(), torch.cuda.*) cannot run on an Intel GPU, whatever torch "
                 "is installed, and a CUDA build of torch would not use it either. ")
        return (f"The text says the machine's GPU is an Intel one ({gpu}) and names no NVIDIA GPU: " + build
                + "Run on the CPU (the program's CPU / device option), or, where the program supports it and the GPU "
                "is one PyTorch's XPU build runs on (Intel Arc, Data Center GPU Max, Core Ultra's Arc graphics; an "
                "older Iris Xe / UHD iGPU may not be), install the XPU build (`pip install torch --index-url "
                "https://download.pytorch.org/whl/xpu`, torch >= " + xpu_first_torch() + ") and use the 'xpu' device.")
    if vendor == "apple":
        return (f"The log shows a Mac ({(facts or {}).get('apple_mac')}) and no NVIDIA GPU: PyTorch's macOS builds "
                "have no CUDA (pytorch.org offers CUDA builds for Linux and Windows only), so code asking for "
                "device='cuda' cannot run there; `envcheck status` on that Mac says whether its torch can use MPS.")
    if vendor != "amd":
        return None
    return (f"The log shows an AMD GPU ({(facts or {}).get('amd_gpu')}) and no NVIDIA GPU: this torch has no CUDA "
            "(and a CUDA build would not use an AMD GPU either). Install a ROCm build of torch (Linux; `envcheck fix` "
            "on that machine picks the rocmX.Y variant whose gfx target list holds the GPU).")


def _cuda_library_advice(facts: Optional[Dict[str, str]]) -> str:
    return (f"The log shows an AMD GPU ({(facts or {}).get('amd_gpu')}) and no NVIDIA GPU: the library that did not "
            "load is a CUDA library, so the framework installed is a CUDA build, which runs only on NVIDIA GPUs; no "
            "CUDA or cuDNN install makes it use the AMD GPU. Install the framework's ROCm build instead (Linux: "
            "torch's rocmX.Y wheels, tensorflow-rocm; `envcheck fix` on that machine picks the variant whose gfx "
            "target list holds the GPU).")


def vendor_mismatch_advice(env: Environment) -> Optional[str]:
    """For a CUDA build (or code asking for CUDA) on this machine: what its accelerator needs instead, or ``None``
    on an NVIDIA machine / one with no accelerator seen."""
    vendor = machine_vendor(env)
    if vendor not in ("amd", "intel"):
        return None
    what = {"amd": "AMD GPU(s)", "intel": "Intel GPU(s)"}[vendor]
    use = {"amd": "a ROCm build of torch (Linux; `envcheck fix` picks the rocmX.Y variant whose gfx target list holds "
                  "this GPU)",
           "intel": "an XPU build of torch (`pip install torch --index-url https://download.pytorch.org/whl/xpu`)"}[vendor]
    return (f"This machine's accelerator is {what} ({_names(env.accel.gpus)}) and no NVIDIA GPU is seen: a CUDA build of "
            f"torch runs on the CPU only here. Install {use}.")


#: a Windows path in a log line: a drive letter and a backslash ("C:\\Program Files\\AMD\\ROCm\\6.1\\bin", where the HIP
#: SDK installs; "D:\\venv\\Lib\\site-packages"), or a DLL a loader names
_WINDOWS_PATH = lazyre.compile(r"(?:^|[\s'\"(=\[])[A-Za-z]:\\[^\s\\]|\.dll\b", re.I)


def windows_text(text: Optional[str]) -> bool:
    """Whether a log line shows a Windows machine (a drive-letter path, a DLL): its ROCm is the HIP SDK's."""
    return bool(text) and _WINDOWS_PATH.search(text[:4000]) is not None  # type: ignore[index]


def gfx_fix_lines(matrix: Matrix, gfx: str, override: Optional[str] = None, windows: bool = False) -> List[str]:
    """What to install for an AMD GPU target a log names (rocBLAS 'for GPU arch : gfx1103', TensorFlow's
    'AMDGPU version : gfx1031'): the newest PyTorch-index ROCm build compiled for it, else that none is, with the
    same-family HSA_OVERRIDE_GFX_VERSION the matrix records as working (labelled unofficial) and the ones reported
    to crash. On Windows (``windows``: the HIP SDK's machine) no PyTorch-index ROCm wheel: they are Linux's only
    (compat_matrix/rocm.toml ``platforms``), so what exists there is said instead."""
    g = normalize_gfx(gfx)
    if g is None:
        return []
    out: List[str] = []
    alt = rocm_variants_for_gfx(matrix, g)
    if windows and not any("windows-x86_64" in (r.get("platforms") or []) for r in matrix.rows("rocm", "torch_variant")):
        win = next((r for r in matrix.rows("rocm", "wheel_source") if r.get("name") == "amd-radeon-windows"), None)
        out.append("This log is from Windows (the HIP SDK's ROCm): PyTorch's own ROCm wheels (download.pytorch.org/whl/"
                   "rocmX.Y) are built for Linux only, so none installs there"
                   + (f" (on Linux, torch {alt[0][0]} {alt[0][1]} is compiled for {g})" if alt else "")
                   + ". What lifts it: AMD's own PyTorch wheels for Windows"
                   + (f" ({win['index_url_prefix']}, with their ROCm runtime wheels: {win['source']})" if win else "")
                   + f", where AMD lists {g} for them; or run it on Linux.")
        return out
    if alt:
        rel, var, url = alt[0]
        out.append(f"pip install torch=={rel} --index-url {url}  (PyTorch {rel} {var} is compiled for {g}; "
                   "envcheck matrix)")
    else:
        known = sorted({str(r.get("release")) for r in matrix.rows("rocm", "torch_variant") if r.get("gfx")},
                       key=lambda v: version_tuple(v) or ())
        span = f" (torch {known[0]} to {known[-1]})" if known else ""
        out.append(f"No PyTorch-index ROCm build whose target list envcheck knows{span} is compiled for {g}: a build "
                   "for this GPU family from AMD (repo.radeon.com) or TheRock, or a source build with "
                   f"PYTORCH_ROCM_ARCH={g}, has it.")
    works, crashes = _override_rows(matrix, g)
    for r in works:
        out.append(f"Unofficial workaround (not supported by AMD; same ISA family {r.get('family', '')}): "
                   f"HSA_OVERRIDE_GFX_VERSION={r['value']} makes {g} load {r.get('acts_as')} kernels "
                   f"(reported to work: {r.get('source')}).")
    for r in crashes:
        out.append(f"Do not set HSA_OVERRIDE_GFX_VERSION={r['value']} for {g}: across ISA families it crashes "
                   f"({r.get('source')}).")
    acts = _hsa_value_target(override) if override else None
    if acts and acts != g and gfx_family(acts) != gfx_family(g):
        out.insert(0, f"HSA_OVERRIDE_GFX_VERSION={override} makes {g} load {acts} kernels, another ISA family: unset it.")
    return out
