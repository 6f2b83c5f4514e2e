"""Planning overrides (``UV_CUDA_DRIVER_VERSION``, ``CONDA_OVERRIDE_CUDA``) and container hints
that change or explain the driver facts."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict

from envcheck.capture import NOT_FOUND
from envcheck.environment._common import Caps, MatrixFacts
from envcheck.model import Driver, DriverVersion, cuda_tuple

__all__ = ["apply_overrides"]


def apply_overrides(driver: Driver, env: Dict[str, str], c: Caps, matrix: MatrixFacts) -> Driver:
    version, vsource, cuda, csource = driver.version, driver.source, driver.cuda, driver.cuda_source
    override = None
    uv_over = env.get("UV_CUDA_DRIVER_VERSION")
    conda_over = env.get("CONDA_OVERRIDE_CUDA")
    if uv_over is not None and DriverVersion.parse(uv_over):
        version, vsource, override = DriverVersion.parse(uv_over), "UV_CUDA_DRIVER_VERSION", "UV_CUDA_DRIVER_VERSION"
        assert version is not None
        derived, how = matrix.driver_highest_cuda(version)
        cuda, csource = derived, f"envcheck matrix ({how})" if derived else None
        c.note(f"Driver facts taken from UV_CUDA_DRIVER_VERSION={uv_over} (planning override), "
               "not from this machine.")
    elif uv_over is not None:
        c.note(f"UV_CUDA_DRIVER_VERSION={uv_over!r} is not a driver version; ignored.")
    if conda_over is not None:
        t = cuda_tuple(conda_over)
        if conda_over.strip() == "":
            cuda, csource, override = None, "CONDA_OVERRIDE_CUDA", "CONDA_OVERRIDE_CUDA"
            c.note("CONDA_OVERRIDE_CUDA is set to the empty string: planning for a machine without CUDA.")
        elif t:
            cuda, csource = f"{t[0]}.{t[1]}", "CONDA_OVERRIDE_CUDA"
            override = (override + "+CONDA_OVERRIDE_CUDA") if override else "CONDA_OVERRIDE_CUDA"
            c.note(f"The driver's CUDA is taken from CONDA_OVERRIDE_CUDA={conda_over} (planning override), "
                   "not from this machine.")
        else:
            c.note(f"CONDA_OVERRIDE_CUDA={conda_over!r} is not a CUDA version; ignored.")

    caps_env = env.get("NVIDIA_DRIVER_CAPABILITIES")
    if caps_env is not None and c.cap("nvidia-smi.txt").status == NOT_FOUND:
        capset = {x.strip() for x in caps_env.split(",")}
        if not capset & {"utility", "all"}:
            c.note(f"NVIDIA_DRIVER_CAPABILITIES={caps_env!r} lacks 'utility', so the container runtime did not "
                   "mount nvidia-smi / NVML; add 'utility' (or use 'all') to see the driver and GPUs.")
    if override is None:
        return driver
    return replace(driver, version=version, source=vsource, cuda=cuda, cuda_source=csource, override=override)
