"""Recognise CUDA / cuDNN / NVIDIA shared libraries by file name (``libraries.txt``, ldconfig paths)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import List, Optional, Tuple
from envcheck import lazyre

__all__ = ["LibFile", "parse_library_path", "parse_libraries_txt", "FAMILIES"]

#: library families envcheck tracks; the key is the file-name stem after "lib"
FAMILIES = {
    "cudnn": "cudnn", "cudart": "cudart", "cublas": "cublas", "cublasLt": "cublas", "cuda": "cuda",
    "nvidia-ml": "nvidia-ml", "nvrtc": "nvrtc", "cufft": "cufft", "curand": "curand", "cusparse": "cusparse",
    "cusolver": "cusolver", "nccl": "nccl", "nvJitLink": "nvjitlink", "cupti": "cupti",
}

# libcudnn.so.8 / libcudnn.so.8.9.2 / libcudnn_ops_infer.so.8 / libcudnn_engines_precompiled.so.9
# libcudart.so.12 / libcudart.so.11.0 (soname of CUDA 11) / libcudart.so.10.1 / libcudart.so.12.1.105
# libcudart-9335f6a2.so.12 (torch/lib, auditwheel-mangled) / libnvidia-ml.so.535.104.05 / libcuda.so.1
_NAME = lazyre.compile(
    r"^lib(?P<stem>cudnn(?:_[a-z0-9_]+)?|cudart|cublasLt|cublas|cuda|nvidia-ml|nvrtc|cufft|curand|cusparse"
    r"|cusolver|nccl|nvJitLink|cupti)(?:-[0-9a-f]{8})?\.so(?P<ver>(?:\.\d+)*)$"
)

#: how every name _NAME matches begins (each stem starts "cu", "nv" or "nccl")
_STARTS = ("libcu", "libnv", "libnccl")


@dataclass(frozen=True)
class LibFile:
    """A CUDA / cuDNN / NVIDIA library file recognised by its name."""

    path: str
    family: str  # "cudnn", "cudart", "cublas", ...
    name: str  # file name
    component: str  # "cudnn_ops_infer", "cudnn", "cudart", ...
    suffix: Tuple[int, ...]  # the numbers after ".so": (8,) or (8, 9, 2) or ()

    @property
    def directory(self) -> str:
        return posixpath.dirname(self.path)

    @property
    def major(self) -> Optional[int]:
        if self.family in ("cuda", "nvidia-ml"):
            return None  # libcuda.so.1: the soname number is not a CUDA major
        return self.suffix[0] if self.suffix else None

    @property
    def version(self) -> Optional[str]:
        """The full version carried by the file name, when it carries one.

        ``libcudnn.so.8.9.2`` -> "8.9.2"; ``libcudart.so.12.1.105`` -> "12.1.105";
        ``libnvidia-ml.so.535.104.05`` -> "535.104.05"; bare sonames (``.so.8``, ``.so.11.0``) -> None.
        """
        # the numbers as the file name spells them (keeps the "05" of "535.104.05")
        text = self.name.rpartition(".so.")[2] if self.suffix else ""
        if self.family in ("cuda", "nvidia-ml"):
            return text if len(self.suffix) >= 2 else None
        if len(self.suffix) >= 3:
            return text
        return None


def parse_library_path(path: str) -> Optional[LibFile]:
    """A :class:`LibFile` when ``path``'s file name is a tracked NVIDIA library, else ``None``."""
    stripped = path.strip()
    name = stripped[stripped.rfind("/") + 1:]  # posixpath.basename, without its calls (~1,000 paths a status run)
    if not name.startswith(_STARTS):  # most of an ldconfig cache: no pattern call for them
        return None
    m = _NAME.match(name)
    if not m:
        return None
    stem = m.group("stem")
    family = "cudnn" if stem.startswith("cudnn") else FAMILIES.get(stem)
    if family is None:
        return None
    ver = m.group("ver")
    try:
        suffix = tuple(int(x) for x in ver.split(".")[1:]) if ver else ()
    except ValueError:
        return None
    if len(suffix) > 6:
        return None
    return LibFile(path=path.strip(), family=family, name=name, component=stem, suffix=suffix)


def parse_libraries_txt(text: Optional[str]) -> List[str]:
    """The absolute paths listed one per line (blank lines and relative paths ignored)."""
    if not text:
        return []
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("/")]
