"""explain on an AMD / Intel / Apple machine (contract §9): a cause's NVIDIA-only fixes and dead ends are left out."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.model import Environment

__all__ = ["drop_nvidia_only", "VENDOR_FIX_WORD", "vendor_fix_rows"]


#: the words by which a framework-vendor-mismatch fix (errors.toml) names the vendor it is for
VENDOR_FIX_WORD = {"amd": "amd gpu", "intel": "intel gpu", "apple": "macos builds"}


def vendor_fix_rows(texts: List[str], vendor: Optional[str]) -> List[int]:
    """The indexes of the fix texts for ``vendor``'s machine (its ROCm fix on AMD, its XPU fix on Intel, its MPS fix on
    a Mac); every index when the vendor is unknown or none of the texts names it."""
    word = VENDOR_FIX_WORD.get(vendor or "", "")
    keep = [i for i, t in enumerate(texts) if word and word in t.lower()]
    return keep or list(range(len(texts)))


#: a dead end that holds for a GPU with memory of its own only: on a Mac the GPU's memory is the unified memory, so
#: "more system RAM" is exactly more GPU memory there (vlogs21o: MPS "Invalid buffer size" / "MPS backend out of memory")
_DISCRETE_MEMORY_ONLY = re.compile(r"\bMore system RAM\b")

_NVIDIA_ONLY = re.compile(r"\b(CUDA|cu1\d{1,2}|sm_\d+|NVIDIA|nvidia-smi|nvcc|cuDNN|compute capability|libcuda|libcudart|"
                          r"libcudnn|nvidia-[a-z-]{2,40}-cu1\d|nvidia/cu\w{1,10}|nvidia|nouveau|cuBLAS|CUBLAS_\w+|"
                          r"cublas\w*|NVRM|nvrm|Xid|RmInitAdapter)\b")


def drop_nvidia_only(matches: List[Any], env: Optional[Environment], facts: Optional[Dict[str, str]] = None) -> None:
    """Contract §9: on a machine whose accelerator is AMD, Intel or Apple - or, from the text alone, for a log that
    shows only such a stack - a cause's NVIDIA-only fixes and dead ends (CUDA wheels, compute capabilities,
    nvidia-smi) are left out; envcheck's own machine fixes stay."""
    from envcheck.engine.vendors import (device_node_vendor, gpus_all_other_vendor, log_shows_nvidia, log_stack_vendor,
                                         log_vendor, machine_vendor)
    from envcheck.engine.verdicts import context_shows_amd, fixes_per_vendor

    # from the text alone: its HIP / XPU / MPS facts, else the GPU vendor its lines show (an AMD GPU, MIOpen at work)
    vendor = machine_vendor(env) if env is not None else None
    if vendor is None:  # no machine, or one whose accelerator is not known (a pasted pip list): the log's own
        vendor = log_stack_vendor(facts) or log_vendor(facts)
    elif vendor == "nvidia" and env is not None and gpus_all_other_vendor(env.gpus):
        # a pasted "GPU:" line read as the machine's GPU that names an AMD / Intel / Apple one (no NVIDIA driver
        # seen): the log's own vendor speaks, not that reading
        vendor = log_stack_vendor(facts) or log_vendor(facts) or vendor
    if env is None and vendor is None and not (facts or {}).get("cc") and matches and all(
            m.captures.get("gfx") or m.captures.get("lib_family") == "rocm" or m.vendor == "amd"
            for m in matches):
        vendor = "amd"  # every cause the log shows names an AMD GPU target or a ROCm library
    if env is None and vendor is None and matches and len({m.vendor for m in matches}) == 1:
        vendor = matches[0].vendor or vendor  # every cause is one vendor's own failure line (errors.toml ``vendor``)
    if env is None and vendor is None and (facts or {}).get("intel_gpu_named") and not log_shows_nvidia(facts):
        vendor = "intel"  # (dml38) the text names an Intel Arc GPU and no NVIDIA one: an Arc under DirectML, say
    if env is None and vendor is None and any(context_shows_amd(m.id, m.signature) for m in matches):
        vendor = "amd"  # the log shows its AMD host (ROCm / AMD Radeon above the failure, no NVIDIA GPU named)
    if vendor is None and matches and any(device_node_vendor(m.captures.get("node")) == "amd" for m in matches):
        vendor = "amd"  # ROCm's device node (/dev/kfd) failed to open: not an NVIDIA stack
    if env is not None and env.accel.l4t:
        _drop_server_only(matches, env)
    if vendor not in ("amd", "intel", "apple"):
        _drop_amd_only_dead_ends(matches, vendor)
        _node_advice(matches, vendor)
        return
    _vendor_titles(matches)
    for m in matches:
        try:
            srcs = list(m.fix_sources) + [""] * (len(m.fixes) - len(m.fix_sources))
            whens = list(m.fix_whens) + [""] * (len(m.fixes) - len(m.fix_whens))
            keep = [i for i, t in enumerate(m.fixes) if srcs[i] == "envcheck" or not _NVIDIA_ONLY.search(t)]
            if fixes_per_vendor(m.id):  # its fix for this vendor, not the other vendors' ones
                mine = set(vendor_fix_rows([m.fixes[i] for i in keep], vendor))
                keep = [i for n, i in enumerate(keep) if n in mine or srcs[i] == "envcheck"]
            if len(keep) != len(m.fixes):
                name = {"amd": "AMD (ROCm)", "intel": "Intel (XPU)", "apple": "Apple (MPS)"}[vendor]
                m.fixes = [m.fixes[i] for i in keep] or [
                    f"This machine's accelerator is {name}: this cause's NVIDIA fixes do not apply here; "
                    "`envcheck status` and `envcheck fix` check its own stack."]
                m.fix_sources = [srcs[i] for i in keep] or ["envcheck"]
                m.fix_whens = [whens[i] for i in keep] or [""]
            m.dead_ends = [t for t in m.dead_ends if not _NVIDIA_ONLY.search(t)
                           and not (vendor == "apple" and _DISCRETE_MEMORY_ONLY.search(t))]
        except Exception as exc:  # noqa: BLE001 - a match of an odd shape keeps what it had: noted
            m.notes.append(f"envcheck could not sort out this cause's NVIDIA-only fixes: {type(exc).__name__}: {exc}")
            continue


#: a device node or group of AMD's / Intel's compute stacks, never NVIDIA's (whose CUDA opens /dev/nvidia*): ROCm's
#: /dev/kfd, the DRM render nodes, the render group that owns them
_OTHER_NODES = re.compile(r"(?i)/dev/kfd\b|/dev/dri\b|\brender\s{1,2}(?:group|node)|-G\s{1,2}render\b|\bgroups?\s{1,2}`?render\b")
#: NVIDIA's device nodes and the library that opens them (NVML - also inside a name: pynvml, NVMLError_NoPermission,
#: netdata's "nv pynvml could not be initialized Insufficient Permissions", attack39 -, nvidia-smi, the container
#: toolkit, a Jetson's nvmap)
_NVIDIA_NODES = re.compile(r"(?i)/dev/nvidia|nvml|nvidia-smi|nvidia-container|nvidia-ctk|nvmap|nvhost|\bnvrm")


def _node_advice(matches: List[Any], vendor: Optional[str]) -> None:
    """A ``device-permission`` cause on an NVIDIA or unknown machine gives the advice of the nodes its evidence names:
    where it names only AMD's or Intel's (a thread's "adding users to the render group solves my issue") and the
    vendor is not known, the NVIDIA-only fixes and dead ends (/dev/nvidia*, nvidia-smi as root) are left out (contract
    §9); where the machine is NVIDIA's, or the evidence names NVIDIA's nodes (NVML, /dev/nvidia*) and none of the
    others, the fix for AMD's and Intel's render nodes is."""
    for m in matches:
        if getattr(m, "id", "") != "device-permission":
            continue
        evidence = str(getattr(m, "evidence", "") or "")
        other, nvidia = bool(_OTHER_NODES.search(evidence)), bool(_NVIDIA_NODES.search(evidence))
        srcs = list(m.fix_sources) + [""] * (len(m.fixes) - len(m.fix_sources))
        whens = list(m.fix_whens) + [""] * (len(m.fixes) - len(m.fix_whens))
        if vendor is None and other and not nvidia:
            keep = [i for i, t in enumerate(m.fixes) if srcs[i] == "envcheck" or not _NVIDIA_ONLY.search(t)]
            m.dead_ends = [t for t in m.dead_ends if not _NVIDIA_ONLY.search(t)]
        elif vendor == "nvidia" or (nvidia and not other):
            keep = [i for i, t in enumerate(m.fixes) if srcs[i] == "envcheck" or _NVIDIA_NODES.search(t)
                    or not _OTHER_NODES.search(t)]
        else:
            continue
        m.fixes, m.fix_sources, m.fix_whens = [m.fixes[i] for i in keep], [srcs[i] for i in keep], [whens[i] for i in keep]


def _vendor_titles(matches: List[Any]) -> None:
    """On an AMD / Intel / Apple machine or log, a cause whose title names NVIDIA's stack ("The NVIDIA driver is loaded
    but did not bring the GPU up") is said with its errors.toml ``vendor_title`` instead (contract §9: no NVIDIA-only
    message on another vendor's machine); a cause without one keeps its title."""
    from envcheck.explain.kb import load_kb

    try:
        causes = load_kb().causes
    except Exception as exc:  # noqa: BLE001 - the titles stay as they are: noted on each match that names NVIDIA
        for m in matches:
            if "NVIDIA" in str(getattr(m, "title", "")):
                m.notes.append(f"envcheck could not read this cause's title for this vendor: {type(exc).__name__}: {exc}")
        return
    for m in matches:
        cause = causes.get(getattr(m, "id", ""))
        title = str(getattr(m, "title", ""))
        if cause is not None and cause.vendor_title and ("NVIDIA" in title or "cuBLAS" in title):
            m.title = cause.vendor_title


#: advice for a server or desktop NVIDIA machine that cannot apply on a Jetson (L4T): PyPI's CUDA wheels (built for
#: x86_64 and server aarch64, not the Jetson's integrated GPU), the CUDA-variant torch / TensorFlow / JAX wheels,
#: NVIDIA's desktop driver downloads and distribution driver packages, a CUDA toolkit from apt (JetPack carries it)
_SERVER_ONLY = re.compile(r"nvidia-[a-z-]{2,40}-cu1\d|download\.pytorch\.org/whl/cu|--torch-backend=cu|"
                          r"tensorflow\[and-cuda\]|jax\[cuda|jax-cuda\d{2}-plugin|nvidia\.com/Download|ubuntu-drivers|"
                          r"nvidia-driver-\d|apt(?:-get)? install[^\n]{0,60}\bcuda|"
                          r"conda install[^\n]{0,80}\b(?:cudatoolkit|cudnn|cuda-(?:toolkit|version|runtime))", re.IGNORECASE)


def _drop_server_only(matches: List[Any], env: Environment) -> None:
    acc = env.accel
    drop_server_only(matches, f"L4T {acc.l4t}" + (f", JetPack {acc.jetpack}" if acc.jetpack else ""))


def drop_server_only(matches: List[Any], where: str) -> None:
    """On a Jetson (an L4T release is known, or the text names the board: ``where``) the fixes and dead ends that
    only a server / desktop NVIDIA machine can follow are left out, and what holds there is said once: JetPack
    carries CUDA, cuDNN and TensorRT; framework wheels come from NVIDIA's Jetson index."""
    line = (f"This machine is a Jetson ({where}): its CUDA, cuDNN and TensorRT come with JetPack (the "
            "`nvidia-jetpack` apt packages), its GPU driver with L4T, and PyPI's "
            "CUDA wheels (nvidia-*-cuNN, the cuXXX torch index) do not run on it: take framework wheels built for "
            "this JetPack from NVIDIA's Jetson index (`envcheck fix` names it).")
    for m in matches:
        try:
            srcs = list(m.fix_sources) + [""] * (len(m.fixes) - len(m.fix_sources))
            whens = list(m.fix_whens) + [""] * (len(m.fixes) - len(m.fix_whens))
            keep = [i for i, t in enumerate(m.fixes) if not _SERVER_ONLY.search(t)]
            if len(keep) != len(m.fixes):
                lead = [] if line in m.fixes else [line]  # a second pass (fixes a pasted report added) says it once
                m.fixes = lead + [m.fixes[i] for i in keep]
                m.fix_sources = ["envcheck"] * len(lead) + [srcs[i] for i in keep]
                m.fix_whens = [""] * len(lead) + [whens[i] for i in keep]
                m.machine = [t for t in (m.machine or []) if not _SERVER_ONLY.search(t)]
            dsrcs = list(getattr(m, "dead_end_sources", []) or [])
            dkeep = [i for i, t in enumerate(m.dead_ends) if not _SERVER_ONLY.search(t)]
            if len(dkeep) != len(m.dead_ends):
                m.dead_ends = [m.dead_ends[i] for i in dkeep]
                if len(dsrcs) >= len(dkeep):
                    m.dead_end_sources = [dsrcs[i] for i in dkeep if i < len(dsrcs)]
        except Exception as exc:  # noqa: BLE001 - a match of an odd shape keeps what it had: noted
            m.notes.append(f"envcheck could not sort out this cause's server-only fixes: {type(exc).__name__}: {exc}")


#: a dead end about AMD's ROCm stack (the harmless amdgpu.ids line of ROCm wheels): said on an AMD log only
_AMD_ONLY = re.compile(r"\b(?:ROCm|amdgpu|HIP|MIOpen|HSA_[A-Z_]{2,40})\b")
_AMD_SIGN = re.compile(r"\b(?:ROCm|amdgpu|HIP|hip[A-Z]\w{0,40}|MIOpen|HSA_[A-Z_]{2,40}|gfx\d{3,4}[a-z]?)\b")


def _drop_amd_only_dead_ends(matches: List[Any], vendor: Optional[str]) -> None:
    """The reverse of the NVIDIA-only rule: a cause shared by both vendors (gpu-arch-unsupported) lists ROCm's
    dead ends too; on an NVIDIA machine or log - or a match whose own line shows CUDA and nothing of AMD's - they
    are noise (\"the line 'amdgpu.ids: No such file' is harmless\" beside a CUDA "no kernel image" line)."""
    for m in matches:
        evidence = str(getattr(m, "evidence", "") or "")
        if vendor != "nvidia" and not (vendor is None and "cuda" in evidence.lower()
                                       and not _AMD_SIGN.search(evidence)):
            continue
        srcs = list(getattr(m, "dead_end_sources", []) or [])
        keep = [i for i, t in enumerate(m.dead_ends) if not _AMD_ONLY.search(t)]
        if len(keep) == len(m.dead_ends):
            continue
        m.dead_ends = [m.dead_ends[i] for i in keep]
        if len(srcs) >= max(keep, default=-1) + 1:
            m.dead_end_sources = [srcs[i] for i in keep]
