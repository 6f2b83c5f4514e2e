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

    return [driver.check_smi_form, driver.check_unread_captures, driver.check_nvml_unknown, driver.check_no_driver, driver.check_library_mismatch, driver.check_no_gpu_visible,
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

def run_checks(env: Environment, matrix: Matrix, ctx: Context = Context()) -> List[Finding]:
    """All findings, errors first, without duplicates."""
    out: List[Finding] = []
    seen = set()
    for check in _checks():
        for f in check(env, matrix, ctx):
            key = (f.id, f.message)
            if key not in seen:
                seen.add(key)
                out.append(f)
    out.sort(key=lambda f: f.severity.rank)
    return out

