"""Names written once: package indexes and the folders of NVIDIA's pip wheels."""

from __future__ import annotations

__all__ = ["NVIDIA_LIB_DIRS", "PYTORCH_INDEX", "TORCH_FAMILY", "PROJECT_URL"]

#: this project's repository: the one place its address is written (the default source of
#: `envcheck matrix update` is derived from it, envcheck/matrix/download.py). Empty: no public address
#: exists yet. (The GitHub repository envcheck/envcheck is another project, a Rust `.env` linter: pointing
#: there would send users and `matrix update` to a stranger's releases.) Set it with the first release.
PROJECT_URL = ""

#: PyTorch's own wheel index; a variant's index is PYTORCH_INDEX + variant ("cu124", "cpu")
PYTORCH_INDEX = "https://download.pytorch.org/whl/"

TORCH_FAMILY = ("torch", "torchvision", "torchaudio")

#: torch wheels for a CUDA X.Y variant pin these NVIDIA wheels; their lib folders are what TensorFlow needs when
#: it shares them (site-packages/nvidia/<dir>/lib)
NVIDIA_LIB_DIRS = ("cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cudnn", "cufft", "curand", "cusolver",
                   "cusparse", "nccl", "nvjitlink")
