"""Where a framework's CUDA / cuDNN build versions hide when the framework itself was not asked.

Each function reads one kind of evidence and normalises it (contract §2: every CUDA version is
``major.minor``; cuDNN ``major.minor.patch`` or fewer parts where only those are known):

* :func:`cuda_major_minor` - "10.0.130" (``torch.version.cuda`` of old builds) -> "10.0"
* :func:`cuda_from_local_label` - the ``+cu128`` / ``+cuda110`` / ``+cuda12.cudnn89`` local version label
* :func:`cuda_from_conda_build` - a conda build string (``py3.10_cuda11.8_cudnn8.7.0_0``, ``cuda120py311h...``)
* :func:`cuda_from_nvidia_pins` - the pinned ``nvidia-cuda-runtime-cu12==12.4.127`` wheel of the metadata
* :func:`cudnn_from_nvidia_pins` - the pinned ``nvidia-cudnn-cu12==9.1.0.70`` wheel
* :func:`cudnn_from_int` / :func:`cudnn_to_int` - ``torch.backends.cudnn.version()`` / ``CUDNN_VERSION`` integers
* :func:`cuda_from_int` - ``CUDA_VERSION`` / ``cudaDriverGetVersion`` integers

These are the one home of the integer encodings (tests/test_code_rules.py fails on a second copy of their arithmetic
in envcheck/paste, parse, explain, engine or checks).

None of them raises; unknown or garbled input gives ``None``.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Optional, Tuple
from envcheck import lazyre

__all__ = ["cuda_major_minor", "cuda_from_local_label", "cuda_from_conda_build", "cuda_from_nvidia_pins",
           "cudnn_from_nvidia_pins", "cudnn_from_int", "cudnn_to_int", "cudnn_digits", "cudnn_short", "cuda_from_int",
           "LocalLabel", "cupy_dist_cuda"]


def cuda_major_minor(v: Any) -> Optional[str]:
    """"12.1" / "10.0.130" / "12" / " 11.8 " -> "12.1" / "10.0" / "12.0" / "11.8"; ``None`` otherwise."""
    if not isinstance(v, str):
        return None
    m = re.match(r"^\s*(\d{1,3})(?:\.(\d{1,3}))?(?:\.\d{1,6}){0,2}\s*$", v)
    if not m:
        return None
    return f"{int(m.group(1))}.{int(m.group(2) or 0)}"


def small_int(text: Optional[str], max_digits: int = 12) -> Optional[int]:
    """The integer an ASCII digit run spells, or None: not digits, a non-ASCII digit (``²``), or longer than
    ``max_digits`` (a count, an index or a size in MiB has a few digits; a hostile run of thousands would
    make ``int()`` raise or cost quadratic time)."""
    if text is None:
        return None
    t = text.strip()
    if not t or len(t) > max_digits or not (t.isascii() and t.isdigit()):
        return None
    return int(t)


def cuda_from_int(v: Any) -> Optional[str]:
    """12040 -> "12.4", 9020 -> "9.2" (the CUDA_VERSION integer encoding: 1000*major + 10*minor, as CUDA's
    cuda.h defines it and ``cudaDriverGetVersion`` / ``cudaRuntimeGetVersion`` return it); None outside 1000-99999."""
    if isinstance(v, int) and not isinstance(v, bool) and 1000 <= v < 100000:
        return f"{v // 1000}.{(v % 1000) // 10}"
    return None


#: cuDNN's ``CUDNN_VERSION`` integer: ``CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL`` up to cuDNN 8
#: (cudnn.h of 7.x, cudnn_version.h of 8.x: Minerallka/cudnn-missed-files-for-cuda-11.4@55a96dcb5213adbd86da8c9361cf820c
#: 576bea4c:include/cudnn_version.h, cuDNN 8.2.1), ``CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL`` from
#: cuDNN 9 on (zspace/system.cuda-12.6@b3d92c837713411301ae5df45b0c7758df7d931e:include/cudnn_version.h, cuDNN 9.6.0);
#: tests/data/captures20k/cudnn-h-7.5.0-bare-command-fenced.txt and cudnn-h-9.2.0-cudnn-v-star-sample-output.txt quote
#: both defines. A number of five digits or more is therefore a cuDNN 9+ one (cuDNN 8's largest, 8.9.99, is 9099).
_CUDNN_NEW_FORMULA = 9  # the first cuDNN major of the 10000 factor
_CUDNN_FACTOR_OLD, _CUDNN_FACTOR_NEW = 1000, 10000


def cudnn_from_int(v: Any) -> Optional[str]:
    """``torch.backends.cudnn.version()`` / ``CUDNN_VERSION``: 8902 -> "8.9.2", 7501 -> "7.5.1" (cuDNN < 9),
    90100 -> "9.1.0" (cuDNN >= 9); a dotted string is kept (at most three parts)."""
    if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 10_000_000:
        factor = _CUDNN_FACTOR_NEW if v >= _CUDNN_FACTOR_NEW else _CUDNN_FACTOR_OLD
        return f"{v // factor}.{(v % factor) // 100}.{v % 100}"
    if isinstance(v, str):
        return cudnn_short(v)
    return None


def cudnn_from_torch_print(v: Optional[str]) -> Optional[str]:
    """The cuDNN release of the ``CuDNN`` item of torch's ``PyTorch built with:`` block (``torch.__config__.show()``,
    OpenMMLab's / lmdeploy's check_env): torch prints ``CUDNN_VERSION`` as ``v / 1000``, ``v / 100 % 10``, ``v % 100``,
    right for cuDNN 8 ("8.9.7") while cuDNN 9's 90100 comes out "90.1", 90501 "90.5.1", 91002 "91.0.2"
    (InternLM/lmdeploy#4049, #3825): that printing undone, "9.1.0", "9.5.1", "9.10.2" (pastes40). ``None`` for any
    other text (a cuDNN 8 item is read as printed)."""
    parts = (v or "").strip().split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isascii() and p.isdigit() and len(p) <= 2 for p in parts):
        return None
    major, minor, patch = int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) == 3 else 0
    if not 90 <= major <= 99 or minor > 9:
        return None
    return cudnn_from_int(major * _CUDNN_FACTOR_OLD + minor * 100 + patch)


def cudnn_digits(text: Optional[str], min_digits: int = 3) -> Optional[str]:
    """A cuDNN version integer as a text prints it ("8907", "90100") -> "8.9.7" / "9.1.0"; None unless ``text`` is
    ``min_digits`` to 6 ASCII digits."""
    t = (text or "").strip()
    if not (min_digits <= len(t) <= 6 and t.isascii() and t.isdigit()):
        return None
    return cudnn_from_int(int(t))


def cudnn_to_int(version: Any) -> Optional[int]:
    """The ``CUDNN_VERSION`` integer of a dotted cuDNN version ("8.9.7" -> 8907, "9.1.0" -> 90100, "8.9" -> 8900):
    what ``torch.backends.cudnn.version()`` would have printed; None where ``version`` is no dotted number."""
    short = cudnn_short(version) if isinstance(version, str) else None
    if not short:
        return None
    parts = [int(x) for x in short.split(".")] + [0, 0]
    factor = _CUDNN_FACTOR_NEW if parts[0] >= _CUDNN_NEW_FORMULA else _CUDNN_FACTOR_OLD
    return parts[0] * factor + parts[1] * 100 + parts[2]


def cudnn_short(v: Any) -> Optional[str]:
    """"9.1.0.70" -> "9.1.0"; "8.9" -> "8.9"; "9" -> "9"; anything else -> ``None``."""
    if not isinstance(v, str):
        return None
    t = v.strip().split("+")[0]
    if not re.match(r"^\d{1,3}(\.\d{1,6}){0,5}$", t):
        return None
    return ".".join(str(int(p)) for p in t.split(".")[:3])


def _digits_cuda(d: str) -> Optional[str]:
    """"128" -> "12.8", "92" -> "9.2", "110" -> "11.0" (the last digit is the minor)."""
    if not d.isdigit() or not 2 <= len(d) <= 4:
        return None
    major, minor = int(d[:-1]), int(d[-1])
    return f"{major}.{minor}" if 7 <= major <= 99 else None


class LocalLabel:
    """What a local version label says: ``kind`` is "cuda", "cpu", "rocm", "xpu" or ``None``;
    ``cuda`` major.minor where the label spells it; ``cuda_major`` where only the major is there
    (jaxlib ``+cuda12.cudnn89``); ``cudnn`` likewise ("8.9")."""

    __slots__ = ("label", "kind", "cuda", "cuda_major", "cudnn")

    def __init__(self, label: str, kind: Optional[str] = None, cuda: Optional[str] = None,
                 cuda_major: Optional[int] = None, cudnn: Optional[str] = None):
        self.label, self.kind, self.cuda, self.cuda_major, self.cudnn = label, kind, cuda, cuda_major, cudnn

    def __repr__(self) -> str:
        return (f"LocalLabel({self.label!r}, kind={self.kind!r}, cuda={self.cuda!r}, cuda_major={self.cuda_major!r}, "
                f"cudnn={self.cudnn!r})")


def cuda_from_local_label(version: Any) -> Optional[LocalLabel]:
    """The local label of a version string, read. ``None`` without a ``+label``.

    torch: ``2.7.1+cu128`` (12.8), ``1.2.0+cu92`` (9.2), ``2.5.1+cpu``, ``2.4.0+rocm6.1``, ``2.7.0+xpu``;
    torch "with.pypi.cudnn" builds ``1.13.0+cu117.with.pypi.cudnn``; jaxlib ``0.1.52+cuda110`` (11.0),
    ``0.4.12+cuda12.cudnn89`` (major 12, cuDNN 8.9), ``0.3.25+cuda11.cudnn805`` (cuDNN 8.0.5).
    """
    if not isinstance(version, str) or "+" not in version or len(version) > 200:
        return None
    label = version.split("+", 1)[1].strip()
    low = label.lower()
    m = re.match(r"^cu(\d{2,4})(?:$|[._-])", low)
    if m:
        cuda = _digits_cuda(m.group(1))
        return LocalLabel(label, "cuda", cuda, int(cuda.split(".")[0]) if cuda else None)
    m = re.match(r"^cuda(\d{1,4})(?:\.cudnn(\d{2,4}))?(?:$|[._-])", low)
    if m:
        d = m.group(1)
        cuda, major = None, None
        if len(d) >= 3:
            cuda = _digits_cuda(d)
            major = int(cuda.split(".")[0]) if cuda else None
        elif d.isdigit():
            major = int(d)
        cudnn = None
        if m.group(2):
            c = m.group(2)
            cudnn = f"{c[0]}.{c[1]}" if len(c) == 2 else f"{c[0]}.{c[1]}.{c[2:]}" if len(c) >= 3 else None
        return LocalLabel(label, "cuda", cuda, major, cudnn)
    if low.startswith("cpu"):
        return LocalLabel(label, "cpu")
    if low.startswith("rocm"):
        return LocalLabel(label, "rocm")
    if low.startswith("xpu"):
        return LocalLabel(label, "xpu")
    return LocalLabel(label)


def cuda_from_conda_build(build: Any) -> Optional[Tuple[str, Optional[str]]]:
    """(CUDA major.minor, cuDNN or None) from a conda build string, or ``None`` for CPU / unknown builds.

    pytorch channel ``py3.10_cuda11.8_cudnn8.7.0_0``; conda-forge ``cuda120_py311h...`` /
    ``cuda118py310h...`` / ``cuda112py39h...``; old pytorch ``py3.7_cuda10.1.243_cudnn7.6.3_0``.
    A ``cpu``/``cuda_`` prefix without digits gives ``None``.
    """
    if not isinstance(build, str) or len(build) > 200:
        return None
    low = build.lower()
    m = re.search(r"(?:^|[_-])cuda[_]?(\d{1,2})\.(\d{1,2})(?:\.\d+)?(?=$|[_-])", low)
    cuda = None
    if m:
        cuda = f"{int(m.group(1))}.{int(m.group(2))}"
    else:
        m = re.search(r"(?:^|[_-])cuda(\d{2,3})(?=$|[_-]|py)", low)
        if m:
            cuda = _digits_cuda(m.group(1))
    if cuda is None:
        return None
    cm = re.search(r"(?:^|_)cudnn(\d{1,2}(?:\.\d{1,3}){0,2})(?=$|_)", low)
    return cuda, (cudnn_short(cm.group(1)) if cm else None)


_PIN = lazyre.compile(r"^\s*==\s*(\d{1,3}(?:\.\d{1,6}){1,4})\s*$")


def _pinned(spec: Any) -> Optional[str]:
    if not isinstance(spec, str):
        return None
    m = _PIN.match(spec)
    return m.group(1) if m else None


# torch / tensorflow[and-cuda] / jax-cuda12-plugin pin the CUDA runtime wheel:
#   nvidia-cuda-runtime-cu12==12.4.127, nvidia-cuda-runtime-cu11==11.7.99, nvidia-cuda-runtime==13.0.96 (CUDA 13)
_RUNTIME = lazyre.compile(r"^nvidia-cuda-runtime(?:-cu(\d{2}))?$")
_CUDNN = lazyre.compile(r"^nvidia-cudnn(?:-cu(\d{2}))?$")


def cuda_from_nvidia_pins(pins: Dict[str, str]) -> Optional[Tuple[str, str]]:
    """(CUDA major.minor, the pin as written "nvidia-cuda-runtime-cu12==12.4.127") from
    ``{distribution: specifier}``; only exact ``==`` pins count (a ``>=`` floor says nothing
    about the build)."""
    for name in sorted(pins):
        m = _RUNTIME.match(name)
        v = _pinned(pins[name])
        if not m or not v:
            continue
        cuda = cuda_major_minor(v)
        if cuda and (m.group(1) is None or cuda.split(".")[0] == m.group(1)):
            return cuda, f"{name}=={v}"
    return None


def cudnn_from_nvidia_pins(pins: Dict[str, str]) -> Optional[Tuple[str, str]]:
    """(cuDNN major.minor.patch, the pin as written) from an exact ``nvidia-cudnn-cu12==9.1.0.70`` pin."""
    for name in sorted(pins):
        if not _CUDNN.match(name):
            continue
        v = _pinned(pins[name])
        if v and cudnn_short(v):
            return cudnn_short(v) or "", f"{name}=={v}"
    return None


def paddle_cuda_from_version(version: Optional[str]) -> Optional[str]:
    """The CUDA of a PaddlePaddle 2.x+ GPU wheel's ``.postNNN`` label: "2.5.2.post120" -> "12.0", "2.6.1.post112" ->
    "11.2", "2.0.0.post101" -> "10.1", "2.0.0.post90" -> "9.0". Paddle 1.x's labels (post97, post107, post87) name the
    CUDA major and the cuDNN major: not read. None when there is no such label."""
    if ".post" not in (version or ""):  # the pattern's own text: no compile for a version without it (issue 24)
        return None
    m = re.match(r"^\s*(\d+)\.\d+(?:\.\d+)?\.post(\d{2,3})\s*$", version or "")
    if not m or int(m.group(1)) < 2:
        return None
    d = m.group(2)
    return f"{int(d[:-1])}.{d[-1]}"


#: a CuPy CUDA wheel's distribution name: cupy-cuda12x (a major: CuPy 10+), cupy-cuda117 / cupy-cuda92 (one minor, up to
#: CuPy 12)
_CUPY_DIST = re.compile(r"^cupy-cuda(\d{1,2}?)(\d|x)$")


def cupy_dist_cuda(name: str) -> Optional[Tuple[int, Optional[str]]]:
    """(CUDA major, CUDA minor version or None for a per-major ``...x`` wheel) of a CuPy distribution name:
    ``cupy-cuda12x`` -> (12, None), ``cupy-cuda117`` -> (11, "11.7"), ``cupy-cuda92`` -> (9, "9.2"); None for another
    name (``cupy``, ``cupy-rocm-5-0``)."""
    m = _CUPY_DIST.match((name or "").lower().replace("_", "-"))
    if not m:
        return None
    major = int(m.group(1))
    return major, None if m.group(2) == "x" else f"{major}.{m.group(2)}"
