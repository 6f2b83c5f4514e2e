"""A container started without GPU access, seen only from inside (issue 20's family): ``docker run`` with no GPU
option and, from inside that container, a failure to reach a GPU; or a GPU image and nvidia-smi missing there. A
daemon can default to the nvidia runtime, so the option's absence alone says nothing: the failure must be shown.
"""

from __future__ import annotations

from typing import Optional

from envcheck.engine.textclaims import TextClaims
from envcheck.model import Environment, Finding, Severity

__all__ = ["DOCKER_GPUS_FIX", "container_without_gpus", "started_with_gpus"]

#: the fix for a container started without GPUs (the NVIDIA Container Toolkit's own wording of the option)
DOCKER_GPUS_FIX = ("Start the container with the GPUs: `docker run --gpus all ...` (the NVIDIA Container Toolkit installed on "
                   "the host; the driver and nvidia-smi come from the host), or `--runtime=nvidia` with "
                   "NVIDIA_VISIBLE_DEVICES=all; nothing CUDA needs to be installed in the image for the driver.")


def container_without_gpus(env: Optional[Environment], claims: TextClaims, text_only: bool = False) -> Optional[Finding]:
    """``no-gpu-visible`` for a container started without GPUs (see the module docstring), where something shows the
    container was meant to use a GPU: the host's GPUs (the report's nvidia-smi), a GPU image, or the CUDA toolkit in
    it. A framework shown running on a GPU contradicts it. ``text_only`` (no report in the text: no host GPUs to go
    by): only nvidia-smi missing inside says it - "CUDA available: False" in a container with nothing showing the
    host's GPUs may as well be a machine with no GPU at all."""
    run = claims.container
    if run is None or claims.gpu_works or (text_only and not run.smi_missing):
        return None
    gpus = env.gpus if env is not None else []
    toolkit = env.toolkit.version if env is not None else None
    if gpus:
        names = ", ".join(dict.fromkeys(str(g.name) for g in gpus if g.name))
        host = f"while the host lists {len(gpus)} NVIDIA GPU(s){': ' + names if names else ''}"
    elif run.gpu_image is None and toolkit is None:
        return None  # nothing shows the container was meant to use a GPU
    else:
        host = (f"although its image is a GPU one ({run.gpu_image})" if run.gpu_image
                else f"although the image holds the CUDA {toolkit} toolkit (nvcc)")
    how = ("(`docker run` with no --gpus/--runtime=nvidia) and finds none" if run.docker_run
           else "(nvidia-smi, which the NVIDIA Container Toolkit mounts into every container it gives GPUs, is missing "
                "there)")
    return Finding("no-gpu-visible", Severity.ERROR, f"The container was started without GPUs {how}, {host}.",
                   DOCKER_GPUS_FIX, run.line, "gpu")


def started_with_gpus(claims: TextClaims) -> bool:
    """The text shows the container started with GPUs (``docker run --gpus all ...``): an image's banner saying it sees
    no driver (NGC's "The NVIDIA Driver was not detected", printed under WSL2 with the GPU working) shows no container
    without GPU access."""
    return bool(claims.docker_gpus)
