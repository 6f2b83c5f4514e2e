"""Framework log lines that state a fact of the machine (the text may hold no report at all):

* torch's ``NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch
  installation`` and ``The current PyTorch install supports CUDA capabilities sm_37 ...``: a GPU with its compute
  capability, torch's arch list;
* TensorFlow's ``Created device ... device: 0, name: NVIDIA GeForce RTX 3080 Ti, pci bus id: 0000:01:00.0, compute
  capability: 8.6``;
* XLA's ``Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4``; JAX's ``Found cuDNN version
  8600, but JAX was built against version 8902`` and ``Found CUDA version 12010, but JAX was built against version 12020``;
* torch's ``The NVIDIA driver on your system is too old (found version 10010)``;
* xformers' ``PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)`` (or ``PyTorch 2.0.1 (you have
  2.1.0+cu121)``) and ``Python  3.8.18 (you have 3.8.5)``: the torch and the Python in use;
* torch's ``If you want to use the NVIDIA GeForce RTX 5070 Ti GPU with PyTorch, please check the instructions``: a GPU;
* the extension builders' ``Installed CUDA version 12.1 does not match the version torch was compiled with 11.8``
  and torch.utils.cpp_extension's ``... mismatches the version that was used to compile PyTorch (11.7)``: the CUDA
  of the torch in use (the toolkit's version is the toolkit's, not a fact of the build);
* torchvision's / torchaudio's ``Detected that PyTorch and torchvision were compiled with different CUDA versions.
  PyTorch has CUDA Version=11.7 and ...``: the CUDA of the torch in use;
* Paddle's ``Please NOTE: device: 0, GPU Compute Capability: 7.5, Driver API Version: 11.2, Runtime API Version:
  11.2`` and ``device: 0, cuDNN Version: 8.1.``.

A line that a sentence opens by putting it in the past ("In previous version i had this error: ...") states nothing of
the machine now. The lines are matched by the knowledge base's own patterns (compat_matrix/errors.toml, their named groups), which
live above this layer: ``explain`` hands a line reader down (:func:`envcheck.explain.logfacts.line_reader`) and
:func:`bind` makes it a reader of the registry. This module holds no pattern of its own; unbound (``read_report``
without a line reader) it reads nothing. :func:`facts_from_captures` turns a line's named captures into facts:
only what the sentence itself makes certain.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, remember, text_of

__all__ = ["NAME", "detect", "read", "bind", "facts_from_captures", "LineReader", "NO_GPU_RULES", "NO_DEVICE_RULES", "no_gpu_line"]

NAME = "log lines"
#: a sentence that opens the line by putting the log text after it in the past ("In previous version i had this error:
#: runtimeerror: detected that pytorch and torchvision were compiled with different cuda versions. pytorch has cuda
#: version=11.7 ...", kohya_ss#1046): what that text states is not the machine's now
_PAST_PREFIX = re.compile(r"(?i)^(?:in\s{1,2}(?:the\s{1,2}|a\s{1,2})?(?:previous|older|earlier|last)\s{1,2}(?:version|release|build)s?"
                          r"|previously|earlier|in\s{1,2}the\s{1,2}past|before(?:\s{1,2}(?:that|this|the\s{1,2}update))?"
                          r"|i\s{1,2}used\s{1,2}to)\b[^:]{0,80}:")
#: one line -> the named captures of each pattern it matched (with "rule": the pattern's name), or None
LineReader = Callable[[str], Optional[List[Dict[str, str]]]]
Facts = List[Fact]


def _cc(caps: Dict[str, str]) -> Optional[str]:
    if caps.get("cc"):
        return caps["cc"]
    if caps.get("cc_major") and caps.get("cc_minor"):
        return f"{int(caps['cc_major'])}.{int(caps['cc_minor'])}"
    sm = "".join(ch for ch in caps.get("sm", "") if ch.isdigit())
    return f"{int(sm[:-1])}.{sm[-1]}" if len(sm) >= 2 else None


def _gpu(caps: Dict[str, str], line: str) -> Facts:
    name = gpu_name(caps.get("value", ""))
    cc = _cc(caps)
    if not name:
        return []
    idx = caps.get("index")
    out = [Fact("gpu", (int(idx), name, cc, None), line) if idx is not None and idx.isdigit()
           else Fact("gpu.named", (name, cc), line), Fact("seen:gpu", line, line), Fact("logged", True, line)]
    if caps.get("arch_list"):
        out.append(Fact("torch.arch_list", tuple(caps["arch_list"].split()), line))
    return out


def _tf_tree(line: str) -> bool:
    """A log line printed from TensorFlow's own tree ("... tensorflow/stream_executor/cuda/cuda_dnn.cc:...")."""
    for tree in ("tensorflow/stream_executor/", "tensorflow/core/"):
        if line.startswith(tree) or any(f"{sep}{tree}" in line for sep in (" ", "]", "\t")):
            return True
    return False


def _cudnn(caps: Dict[str, str], line: str) -> Facts:
    if not (caps.get("loaded") and caps.get("compiled")):
        return []
    if caps.get("reports") == "jax-cudnn":
        fw = "jax"
    else:  # the source path names the framework: TensorFlow's own tree, or jaxlib's vendored copy of it
        fw = "jax" if "external/org_tensorflow/" in line else "tensorflow" if _tf_tree(line) else "xla"
    return [Fact("cudnn_loaded", caps["loaded"], line), Fact(f"built.{fw}.cudnn", caps["compiled"], line),
            Fact("logged", True, line)]


def _paddle(caps: Dict[str, str], line: str) -> Facts:
    """Paddle's "device: N, GPU Compute Capability: X.Y, Driver API Version: A.B, Runtime API Version: C.D" (the GPU's
    name is not printed) and "device: N, cuDNN Version: E.F.": the runtime and cuDNN Paddle loaded."""
    idx = caps.get("index", "")
    if not idx.isdigit():
        return []
    if caps.get("rule") == "paddle_cudnn":
        return [Fact("paddle.cudnn", caps["value"], line), Fact("logged", True, line)] if caps.get("value") else []
    out = [Fact("paddle.cuda", caps["value"], line), Fact("logged", True, line)] if caps.get("value") else []
    cc = _cc(caps)
    if cc:
        out += [Fact("gpu", (int(idx), None, cc, None), line), Fact("seen:gpu", line, line)]
    if caps.get("driver_cuda"):
        out.append(Fact("driver_cuda", caps["driver_cuda"], line))
    return out


#: what a line read by explain's line reader says (its signature's ``reports``, errors.toml; the captures carry it):
#: no GPU visible to the process (the CUDA runtime's "no CUDA-capable device is detected" / cudaErrorNoDevice, torch's
#: "No CUDA GPUs are available", the driver API's CUDA_ERROR_NO_DEVICE) and no driver reachable (torch's "Found no
#: NVIDIA driver on your system"): no fact of the machine by themselves; the prose evidence of no GPU seen
#: (:mod:`~envcheck.paste.readers.prose_facts`) and the failure inside a container started without GPUs
#: (:func:`envcheck.paste.readers.observe.docker`) take them from here
NO_DEVICE_RULES = frozenset({"no-device"})
NO_GPU_RULES = NO_DEVICE_RULES | {"no-driver"}


def no_gpu_line(reader: Optional[LineReader], line: str, rules: "frozenset[str]" = NO_GPU_RULES) -> bool:
    """Whether ``reader`` (explain's line reader) reads ``line`` by a signature whose ``reports`` is one of ``rules`` (no
    GPU reached: :data:`NO_GPU_RULES`); False without a reader."""
    if reader is None or len(line) > MAXLINE:
        return False
    return any(c.get("reports") in rules for c in reader(line) or [])


def facts_from_captures(caps: Dict[str, str], line: str) -> Facts:
    """The facts of one log line from the named captures of the knowledge-base pattern it matched."""
    rule, says = caps.get("rule"), caps.get("reports")
    if says in NO_GPU_RULES or rule == "cc_floor":  # read by observe.docker / prose_gpu, not as a log line's facts
        return []
    if rule == "gpu":
        return _gpu(caps, line)
    if rule in ("paddle_device", "paddle_cudnn"):
        return _paddle(caps, line)
    if says == "torch-arch-list" and caps.get("arch_list"):
        return [Fact("torch.arch_list", tuple(caps["arch_list"].split()), line), Fact("logged", True, line)]
    if says == "driver-cuda":
        return [Fact("driver_cuda", caps["driver_cuda"], line), Fact("seen:driver", line, line),
                Fact("logged", True, line)] if caps.get("driver_cuda") else []
    if says == "gpu-named":  # "If you want to use the NVIDIA GeForce RTX 5070 Ti GPU with PyTorch, ...", torch's
        # GPUTooOldForTriton "Found Tesla P100-PCIE-16GB which is too old ... your device is of CUDA capability 6.0": the
        # GPU the message names (with its capability)
        return _gpu(dict(caps, value=caps.get("gpu", ""), cc=caps.get("cc") or caps.get("device_cc", "")), line)
    if says == "torch-cuda":  # an extension builder's "the version torch was compiled with 11.8" / "... used to compile
        # PyTorch (12.1)" (the CUDA of the torch in use; its toolkit's is not the machine's), torchvision's "PyTorch has
        # CUDA Version=11.7 and torchvision has ...": torch's
        return [Fact("torch.cuda", caps["torch_cuda"], line), Fact("seen:torch", line, line),
                Fact("logged", True, line)] if caps.get("torch_cuda") else []
    if says == "torch-in-use":
        # xformers' "built for: PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.0+cpu)": the torch in use
        return [Fact("torch.version", caps["torch"], line), Fact("seen:torch", line, line),
                Fact("logged", True, line)] if caps.get("torch") else []
    if rule == "xformers_python":  # its "Python  3.8.18 (you have 3.8.5)": the Python in use
        return [Fact("python", caps["value"], line), Fact("logged", True, line)] if caps.get("value") else []
    if says == "jax-cuda":
        if "JAX was built" not in line or not caps.get("built_cuda"):
            return []
        return [Fact("built.jax.cuda", caps["built_cuda"], line), Fact("logged", True, line)]
    return _cudnn(caps, line)


class _Bound:
    """The log-line reader of the registry, bound to explain's line reader. TensorFlow's "Found device N with
    properties:" gives the index of the GPU its next line names (that line's own facts carry no index)."""

    NAME = NAME

    def __init__(self, reader: LineReader) -> None:
        self._reader = reader
        #: a line's text -> (the facts it states alone, the GPU index its "Found device N" gives or None, whether it
        #: matched gpu_found at all): a pure function of the text with this reader, asked by detect and read
        self._alone: Dict[str, Tuple[Facts, Optional[str], bool]] = {}

    def _caps(self, s: str) -> List[Dict[str, str]]:
        return (self._reader(s) or []) if len(s) <= MAXLINE and not _PAST_PREFIX.match(s) else []

    def _line(self, s: str) -> Tuple[Facts, Optional[str], bool]:
        got = self._alone.get(s)
        if got is None:
            caps = self._caps(s)
            found = next((c["value"] for c in caps if c.get("rule") == "gpu_found" and c.get("value", "").isdigit()),
                         None)
            got = remember(self._alone, s, ([f for c in caps for f in facts_from_captures(c, s)] if found is None
                                            else [], found, any(x.get("rule") == "gpu_found" for x in caps)))
        return got

    def _facts(self, lines: Sequence[str]) -> Facts:
        s = text_of(lines[0]) if lines else ""
        alone, found, _ = self._line(s)
        if found is not None and len(lines) > 1:
            nxt = text_of(lines[1])
            named = [dict(c, index=found) for c in self._caps(nxt) if c.get("rule") == "gpu" and "index" not in c]
            return [f for c in named for f in facts_from_captures(c, nxt)]
        if found is not None:  # (a "Found device N" line ending the text: its own facts, as before)
            return [f for c in self._caps(s) for f in facts_from_captures(c, s)]
        return list(alone)

    def detect(self, c: Line) -> int:
        span = 2 if c.i + 1 < len(c.lines) else 1
        if self._facts(c.lines[c.i:c.i + span]):
            return span if self._line(c.s)[2] else 1
        return 0

    def read(self, lines: Sequence[str]) -> Partial:
        return partial(NAME, self._facts(lines))


def bind(reader: LineReader) -> _Bound:
    """This reader, reading with ``reader`` (:func:`envcheck.explain.logfacts.line_reader`)."""
    return _Bound(reader)


def detect(c: Line) -> int:
    return 0  # unbound: no patterns of its own


def read(lines: Sequence[str]) -> Partial:
    return partial(NAME, [])
