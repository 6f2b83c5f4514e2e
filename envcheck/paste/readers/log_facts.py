"""Framework log lines that state a fact of the machine (the text may hold no report at all):

* torch's ``NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch
  installation. The current PyTorch install supports CUDA capabilities sm_37 ...`` (the arch list may be wrapped
  onto the next lines): a GPU with its compute capability, and torch's arch list;
* TensorFlow's ``Created device /job:localhost/.../device:GPU:0 with 10794 MB memory: -> device: 0, name: NVIDIA
  GeForce RTX 3080 Ti, pci bus id: 0000:01:00.0, compute capability: 8.6``;
* XLA's ``Loaded cuDNN version 8100`` and ``Loaded runtime CuDNN library: 8.6.0 but source was compiled with:
  8.9.4``; JAX's ``Found CUDA version 12010, but JAX was built against version 12020``;
* torch's ``The NVIDIA driver on your system is too old (found version 10010)``.

Only what the sentence itself makes certain is taken."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "log lines"
#: torch (torch/cuda/__init__.py _check_capability)
_TORCH_SM = re.compile(r"(?:UserWarning:\s*)?(?P<name>[A-Za-z][^:\n]{1,80}?) with CUDA capability sm_(?P<sm>\d{2,3})\s+is not "
                       r"compatible with the current PyTorch installation\.?(?:\s*The current PyTorch install supports "
                       r"CUDA capabilities (?P<archs>(?:\s*(?:sm|compute)_\d{2,3}a?)+)\.?)?")
#: its next line when the warning is wrapped
_TORCH_ARCHS = re.compile(r"^The current PyTorch install supports CUDA capabilities (?P<archs>(?:\s*(?:sm|compute)_\d{2,3}a?)+)\.?")
#: TensorFlow (gpu_device.cc)
_TF_DEVICE = re.compile(r"Created (?:TensorFlow )?device .{0,120}?device: (?P<idx>\d{1,3}), name: (?P<name>[^,\n]{1,80}), "
                        r"pci bus id: [\w:.]{1,20}, compute capability: (?P<cc>\d{1,2}\.\d)")
_LOADED_CUDNN = re.compile(r"\bLoaded cuDNN version (?P<v>\d{4,6})\b")
_CUDNN_RUNTIME = re.compile(r"Loaded runtime CuDNN library: (?P<rt>\d+\.\d+\.\d+)(?: \(\d+\))? but source was compiled "
                            r"with: (?P<src>\d+\.\d+\.\d+)", re.I)
_JAX_FOUND = re.compile(r"Found (?P<what>CUDA|cuDNN) version (?P<found>\d{4,6}), but JAX was built against version "
                        r"(?P<built>\d{4,6})")
_TORCH_OLD_DRIVER = re.compile(r"The NVIDIA driver on your system is too old \(found version (?P<v>\d{4,6})\)")
Facts = List[Fact]


def _torch_sm(s: str) -> Optional[Facts]:
    m = _TORCH_SM.search(s)
    if not m:
        return None
    sm = m.group("sm")
    out = [Fact("gpu.named", (gpu_name(m.group("name").strip()), f"{int(sm[:-1])}.{sm[-1]}"), s),
           Fact("seen:gpu", s, s), Fact("logged", True, s)]
    if m.group("archs"):
        out.append(Fact("torch.arch_list", tuple(m.group("archs").split()), s))
    return out


def _tf_device(s: str) -> Optional[Facts]:
    m = _TF_DEVICE.search(s)
    if not m:
        return None
    return [Fact("gpu", (int(m.group("idx")), gpu_name(m.group("name")), m.group("cc"), None), s),
            Fact("seen:gpu", s, s), Fact("logged", True, s)]


def _cudnn(s: str) -> Optional[Facts]:
    from envcheck.parse.versions import cuda_from_int, cudnn_from_int

    m = _CUDNN_RUNTIME.search(s)
    if m:
        # the source path names the framework: TensorFlow's own tree, or jaxlib's vendored copy of it
        fw = "jax" if "external/org_tensorflow/" in s else "tensorflow" if re.search(
            r"(?:^|[\s\]])tensorflow/(?:stream_executor|core)/", s) else "xla"
        return [Fact("cudnn_loaded", m.group("rt"), s), Fact(f"built.{fw}.cudnn", m.group("src"), s),
                Fact("logged", True, s)]
    m = _LOADED_CUDNN.search(s)
    if m:
        v = cudnn_from_int(int(m.group("v")))
        return [Fact("cudnn_loaded", v, s), Fact("logged", True, s)] if v else None
    m = _JAX_FOUND.search(s)
    if m:
        conv = cuda_from_int if m.group("what") == "CUDA" else cudnn_from_int
        found, built = conv(int(m.group("found"))), conv(int(m.group("built")))
        if not (found and built):
            return []
        out = [Fact(f"built.jax.{m.group('what').lower()}", built, s), Fact("logged", True, s)]
        return out + ([Fact("cudnn_loaded", found, s)] if m.group("what") == "cuDNN" else [])
    return None


def _old_driver(s: str) -> Optional[Facts]:
    from envcheck.parse.versions import cuda_from_int

    m = _TORCH_OLD_DRIVER.search(s)
    if not m:
        return None
    v = cuda_from_int(int(m.group("v")))
    return [Fact("driver_cuda", v, s), Fact("seen:driver", s, s), Fact("logged", True, s)] if v else None


def _facts(s: str) -> Optional[Facts]:
    if len(s) > MAXLINE:
        return None
    for reader in (_torch_sm, _tf_device, _cudnn, _old_driver):
        got = reader(s)
        if got is not None:
            return got
    return None


def detect(c: Line) -> int:
    if _facts(c.s) is None:
        return 0
    if _TORCH_SM.search(c.s) and not _TORCH_SM.search(c.s).group("archs"):  # type: ignore[union-attr]
        # the arch list wrapped onto one of the next lines
        for j in range(c.i + 1, min(len(c.lines), c.i + 4)):
            if _TORCH_ARCHS.match(text_of(c.lines[j])):
                return j + 1 - c.i
    return 1


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    out = _facts(text_of(lines[0])) or []
    for ln in lines[1:]:
        m = _TORCH_ARCHS.match(text_of(ln))
        if m:
            out.append(Fact("torch.arch_list", tuple(m.group("archs").split()), ln))
    return partial(NAME, out)
