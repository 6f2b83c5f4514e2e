"""The small captures present whose reader read nothing from them (docs/contract.md §1: a form not recognised is
unknown, said so with the file and its first line; never a failure, never a default)."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable, List, Optional, Tuple

from envcheck.capture import OK
from envcheck.environment._common import Caps
from envcheck.model import UnreadCapture
from envcheck.parse.captures import parse_os_release
from envcheck.parse.cuda_version import parse_version_json, parse_version_txt
from envcheck.parse.cudnn_header import parse_cudnn_header
from envcheck.parse.ldconfig import is_listing
from envcheck.parse.nvcc import parse_nvcc
from envcheck.parse.nvidia_smi import parse_query_csv
from envcheck.parse.proc_driver import parse_proc_driver_version, parse_sys_module_version
from envcheck.parse.small_forms import describe_unread, first_line

__all__ = ["unread_captures", "SMALL_READERS", "VENDOR_READERS"]

def _tegra_release(text: str) -> object:
    from envcheck.parse.tegra import parse_tegra_release  # lazy: only a Jetson's snapshot holds the file

    return parse_tegra_release(text)


def _jetson_release(text: str) -> object:
    from envcheck.parse.tegra import parse_jetson_release

    return parse_jetson_release(text)


#: each small capture and whether its reader reads something from a text
SMALL_READERS: Tuple[Tuple[str, Callable[[str], object]], ...] = (
    ("nvcc.txt", parse_nvcc),
    ("cuda-version.json", parse_version_json),
    ("cuda-version.txt", parse_version_txt),
    ("cudnn_version.h", parse_cudnn_header),
    ("proc-driver-version.txt", parse_proc_driver_version),
    ("sys-module-nvidia-version.txt", parse_sys_module_version),
    ("ldconfig.txt", is_listing),
    ("tegra-release.txt", _tegra_release),
    ("jetson-release.txt", _jetson_release),
    ("nvidia-smi-query.csv", lambda t: _query_read(t)),
    ("proc-version.txt", lambda t: "Linux version" in t[:262144] or "Microsoft" in t[:262144]),
    ("os-release.txt", lambda t: bool(parse_os_release(t))),
)


def _query_read(text: str) -> bool:
    """The CSV listed GPUs, or holds an nvidia-smi error envcheck knows (its state is read: "No devices were found",
    the driver unreachable); another text ("other") is not read."""
    q = parse_query_csv(text)
    return bool(q.gpus) or q.error not in (None, "other")


def _reads(module: str, *readers: str) -> Callable[[str], object]:
    """Does any of ``envcheck.parse.<module>.<reader>`` read something from a text (imported on first use: an NVIDIA
    machine's snapshot never imports AMD's or Intel's readers, issue 24)."""
    def read(text: str) -> object:
        mod = import_module("envcheck.parse." + module)
        return any(_said(getattr(mod, r)(text)) for r in readers)
    return read


def _said(value: Any) -> bool:
    """A reader's answer holds a fact: a non-empty list or string, or an object with a field set."""
    if value is None or isinstance(value, (str, list, tuple, dict)):
        return bool(value)
    fields = [v for k, v in vars(value).items() if not k.startswith("_") and not isinstance(v, bool)]
    return any(bool(v) for v in fields) or bool(getattr(value, "recognised", False))


def _agent_targets(text: str) -> object:
    from envcheck.parse.gfx import normalize_gfx

    return any(normalize_gfx(ln.strip()) for ln in text.splitlines()[:256])


def _clinfo(text: str) -> object:
    """clinfo answered: its platform count or a platform's lines (a machine whose OpenCL lists no GPU is read too)."""
    return "Number of platforms" in text[:262144] or "Platform Name" in text[:262144] or _reads(
        "intel", "parse_clinfo", "clinfo_amd_gpus", "clinfo_apple_gpus", "clinfo_amd_gpu_platform", "intel_small_bar")(text)


#: the §9 captures (AMD, Intel, Apple) whose reader reads one form each: a text none of their readers reads anything
#: from (a shell's "command not found", `cat`'s "No such file or directory", another tool's output, a form not known)
#: is said unknown like the small captures above (rocm-smi's and rocminfo's own notes say theirs; amd-smi static's too)
VENDOR_READERS: Tuple[Tuple[str, Callable[[str], object]], ...] = (
    ("rocm-smi-driver.txt", _reads("rocm_smi", "parse_rocm_smi_driver")),
    ("amd-smi.txt", _reads("amd_smi", "parse_amd_smi_default", "parse_amd_smi_version")),
    ("amd-smi-version.txt", _reads("amd_smi", "parse_amd_smi_version")),
    ("amd-smi-version.json", _reads("amd_smi", "parse_amd_smi_version")),
    ("amd-smi-list.txt", _reads("amd_smi", "parse_amd_smi_list")),
    ("amd-smi-list.json", _reads("amd_smi", "parse_amd_smi_list")),
    ("rocm-agent-enumerator.txt", _agent_targets),
    ("hipconfig.txt", _reads("hipconfig", "parse_hipconfig")),
    ("hipinfo.txt", _reads("hipinfo", "parse_hipinfo")),
    ("rocm-version.txt", _reads("kfd", "parse_rocm_version_file")),
    ("sys-module-amdgpu-version.txt", _reads("kfd", "parse_amdgpu_version")),
    ("xpu-smi-discovery.txt", _reads("intel", "parse_xpu_smi")),
    ("sycl-ls.txt", _reads("intel", "parse_sycl_ls", "sycl_ls_amd_gpus", "intel_small_bar")),
    ("clinfo.txt", _clinfo),
    ("sw-vers.txt", _reads("macos", "parse_sw_vers")),
    ("system-profiler-displays.txt", _reads("macos", "parse_system_profiler")),
    ("system-profiler-displays.json", _reads("macos", "parse_system_profiler")),
)


def unread_captures(c: Caps) -> Tuple[UnreadCapture, ...]:
    """One :class:`UnreadCapture` per small capture that holds text (not blank) its reader read nothing from."""
    out: List[UnreadCapture] = []
    for key, read in SMALL_READERS + VENDOR_READERS:
        cap = c.cap(key)
        text: Optional[str] = cap.text if cap.status == OK else None  # a failed run is a probe problem already
        if text is None or not text.strip() or read(text):
            continue
        out.append(UnreadCapture(key=key, first_line=first_line(text), form=describe_unread(text)))
    return tuple(out)
