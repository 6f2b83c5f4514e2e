"""Checks: facts + matrix -> findings. Each check is ``fn(env, matrix, ctx) -> list[Finding]``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List

from envcheck.checks._util import cuda_builds, cuda_major, driver_advice_text, label
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding

__all__ = ["Context", "run_checks", "FINDING_IDS", "EXTRA_IDS", "cuda_builds", "cuda_major", "driver_advice_text", "label"]


@dataclass(frozen=True)
class Context:
    """What the caller tells the checks about the machine's role."""

    require_gpu: bool = False  # a GPU is expected here (entrypoints): missing driver/GPU become errors


def _checks() -> List[Callable[[Environment, Matrix, Context], List[Finding]]]:
    from envcheck.checks import builds, driver, frameworks, libraries, staleness, vendors

    return [driver.check_smi_form, driver.check_unread_captures, driver.check_nvml_unknown, driver.check_stub_libcuda, driver.check_user_space_missing, driver.check_no_driver, driver.check_library_mismatch, driver.check_no_gpu_visible,
            driver.check_forward_compat, driver.check_faulty_gpus, driver.check_gpu_cap, builds.check_installed_builds, libraries.check_runtime_libraries,
            libraries.check_cudnn_version, libraries.check_duplicates, frameworks.check_cpu_only,
            frameworks.check_conflict, frameworks.check_toolkit, frameworks.check_known_bad,
            staleness.check_matrix_stale, vendors.check_vendors]


#: every id a check may emit (a test asserts each is in the contract's list)
FINDING_IDS = (
    "no-gpu-driver", "driver-library-mismatch", "driver-too-old", "no-gpu-visible", "cuda-runtime-missing",
    "cudnn-missing", "cudnn-version-mismatch", "cuda-toolkit-mismatch", "gpu-arch-unsupported",
    "framework-cpu-only", "python-unsupported", "duplicate-libraries", "framework-conflict",
    "forward-compat-unsupported", "known-bad-combination", "matrix-stale", "gpu-not-initialized", "gpu-fault",
    # contract §9 (device-permission: NVIDIA's NVML "Unknown Error" too)
    "device-permission", "framework-vendor-mismatch", "mps-os-too-old", "python-arch-mismatch",
    "xpu-level-zero-missing",
)

#: ids of envcheck's own beyond contract §3 ("more may be added"): a check that could not decide says so
EXTRA_IDS = ("not-checked",)

#: the checks that speak of NVIDIA's driver and GPUs only (checks.driver; check_gpu_cap counts every vendor's GPUs)
_NVIDIA_ONLY = ("check_smi_form", "check_nvml_unknown", "check_stub_libcuda", "check_user_space_missing", "check_no_driver", "check_library_mismatch",
                "check_no_gpu_visible", "check_forward_compat", "check_faulty_gpus")


def run_checks(env: Environment, matrix: Matrix, ctx: Context = Context()) -> List[Finding]:
    """All findings, errors first, without duplicates. On an AMD / Intel / Apple machine (contract §9) what the
    NVIDIA checks find (a leftover or broken nvidia-smi beside the AMD GPUs) has the component ``nvidia``: the
    machine's own rows (``rocm``, ``gpu``: its AMD GPUs) do not take the NVIDIA driver's verdict."""
    out: List[Finding] = []
    seen = set()
    other = env.accel.vendor in ("amd", "intel", "apple")
    for check in _checks():
        nvidia_only = other and check.__name__ in _NVIDIA_ONLY
        for f in check(env, matrix, ctx):
            if nvidia_only and f.component in ("driver", "gpu"):
                f = Finding(f.id, f.severity, f.message, f.fix, f.evidence, "nvidia")
            key = (f.id, f.message)
            if key not in seen:
                seen.add(key)
                out.append(f)
    out.sort(key=lambda f: f.severity.rank)
    return out

