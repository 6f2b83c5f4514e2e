"""What a text *shows* about the machine it came from, beside the facts of its Environment: a small typed record
that explain fills from the lines of a pasted report or a log (``explain.rank.claims_from_lines``), so that the
engine's report rules (:mod:`envcheck.engine.report`, :mod:`envcheck.engine.cpubuild`,
:mod:`envcheck.engine.container`, :func:`envcheck.engine.claims.tf_claim_finding`) decide from typed values and
never read text themselves. Every field is the line that shows it (the evidence quoted), or None / empty: not
shown. Nothing here is a default: a field the text does not show stays unset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = ["TextClaims", "TorchWheel", "ContainerRun"]


@dataclass(frozen=True)
class TorchWheel:
    """A torch wheel pip fetched, as the text names it (``torch-2.3.1-cp310-cp310-win_amd64.whl``)."""

    version: str  # as in the file name, local label included ("2.3.1", "2.3.1+cu121", "2.3.1%2Bcu121")
    platform_tag: str  # the wheel's platform tag ("win_amd64", "manylinux1_x86_64", "macosx_11_0_arm64")
    from_pypi: bool  # pip printed no URL (PyPI's own file) or a PyPI (mirror) URL
    shown: str  # how to name the file in a message (the file, or its platform tag for a long line)
    line: str  # the line that shows it


@dataclass(frozen=True)
class ContainerRun:
    """A container started without a GPU option, and a line from inside it showing no GPU."""

    line: str  # "the docker run line (or the GPU image) | the failure line"
    docker_run: bool  # the first part is a ``docker run`` command (else a GPU image named by its tag, or a prompt)
    smi_missing: bool  # the failure line is nvidia-smi missing (mounted into every container given GPUs)
    gpu_image: Optional[str] = None  # the GPU image the first part names (nvidia/cuda:..., nvcr.io/..., ...:...-gpu)


@dataclass(frozen=True)
class TextClaims:
    """What the text shows (see the module docstring). ``imports``: (framework, line) of each framework the program
    imports, in the order torch, tensorflow, jax."""

    gpu_intent: Optional[str] = None  # the program asks for the GPU (device='cuda', .cuda(), "Which accelerator: GPU")
    gpu_fails: Optional[str] = None  # a framework shown failing to reach the GPU
    gpu_works: Optional[str] = None  # a framework shown running on a GPU ("Is CUDA available: True")
    cuda_available: Optional[bool] = None  # collect_env's "Is CUDA available": True / False, None: not shown
    cuda_available_line: Optional[str] = None
    ext_build: Optional[str] = None  # a CUDA extension compiled from source
    find_links: Optional[str] = None  # pip pointed at a find-links page
    torch_printed: Optional[str] = None  # a report line that printed torch.__version__ (not a package listing)
    torch_wheel: Optional[TorchWheel] = None
    container: Optional[ContainerRun] = None  # a container started without GPUs, seen from inside
    docker_gpus: Optional[str] = None  # a ``docker run`` line that gives the container GPUs
    cuda_claim: Optional[str] = None  # the reporter's claimed CUDA (TensorFlow template's field)
    ort_from_source: Optional[str] = None  # ONNX Runtime's template says it was built from source
    cudnn_claim: Optional[str] = None  # the reporter's claimed cuDNN (the same field, or a typed "cuDNN: 8.0.4" line)
    tf_from_source: Optional[str] = None  # TensorFlow built from source (the template says so)
    imports: Tuple[Tuple[str, str], ...] = ()
    ort_cpu_providers: Optional[str] = None  # ONNX Runtime's available providers printed without a GPU provider
    ort_gpu_wanted: Optional[str] = None  # a line naming onnxruntime-gpu or its CUDAExecutionProvider
    zluda: Optional[str] = None  # the text says ZLUDA is in use (a CUDA build then runs on an AMD GPU through it)
    no_gpu_said: Optional[str] = None  # the reporter says the machine has no (NVIDIA) GPU ("I don't have a GPU")
    torch_pip: Optional[str] = None  # torch installed with pip (a ``pip install torch`` line, the template's field)
    torch_index: Optional[str] = None  # that pip line names its own index (--index-url / --extra-index-url / -i)
    torch_conda: Optional[str] = None  # torch installed with conda (or from source), as the text shows
