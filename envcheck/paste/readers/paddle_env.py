"""Paddle's environment summary (``python tools/summary_env.py``, which Paddle's issue template asks for under
"版本&环境信息 Version & Environment Information"): between two ``****`` rules,

    Paddle version: 2.4.2
    Paddle With CUDA: True
    OS: ubuntu 18.04 / GCC version / Clang version / CMake version / Libc version / Python version: 3.8.16
    CUDA version: 11.2.142
    Build cuda_11.2.r11.2/compiler.29558016_0
    cuDNN version: 8.1.1
    Nvidia driver version: 440.33.01
    Nvidia driver List:
    GPU 0: Tesla P40

``CUDA version`` and its ``Build`` line are the end of ``nvcc --version`` (the toolkit, not Paddle's CUDA);
``cuDNN version`` is the system's cuDNN header (``None.None.None`` when not found), not a fact of the wheel and not
read; ``Paddle With CUDA: True`` makes the version the GPU wheel's (``paddlepaddle-gpu``)."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import Fact, Line, Partial, first_version, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "paddle summary_env"
#: ``key: value``; the value (at most 200 characters, trailing blanks apart) is cut by :func:`_kv`, not by a lazy
#: ``.{0,200}?`` before ``\s*$`` (quadratic in a line of blanks; review25)
_KV = re.compile(r"^(?P<key>[A-Za-z][A-Za-z ]{1,30}?)\s{0,3}:\s{0,3}(?P<val>.*)$")


def _kv(s: str) -> Optional[Tuple[str, str]]:
    m = _KV.match(s)
    if m is None:
        return None
    val = m.group("val").rstrip()
    return (m.group("key"), val) if len(val) <= 200 else None


_GPU = re.compile(r"^GPU\s{0,2}(?P<idx>\d{1,3})\s{0,2}:\s{0,3}(?P<name>\S.{0,120}?)\s*$")
_BUILD = re.compile(r"^Build cuda_(\d+)\.(\d+)")
MAX = 64


def detect(c: Line) -> int:
    if not c.s.startswith("Paddle version:"):
        return 0
    nxt = text_of(c.lines[c.i + 1]) if c.i + 1 < len(c.lines) else ""
    if not nxt.startswith("Paddle With CUDA:"):
        return 0
    j = c.i + 1
    while j < len(c.lines) and j - c.i < MAX and not text_of(c.lines[j]).startswith("****"):
        j += 1
    return j - c.i


def _field(key: str, val: str, ln: str, gpu_wheel: Optional[bool]) -> List[Fact]:
    k = key.strip().lower()
    if k == "paddle version" and re.match(r"^\d+\.\d+", val):
        name = "paddlepaddle-gpu" if gpu_wheel else "paddlepaddle" if gpu_wheel is False else None
        return [Fact("package", (name, val, None), ln)] if name else []
    if k == "python version":
        v = first_version(val)
        return [Fact("python", v, ln)] if v else []
    if k == "nvidia driver version" and re.fullmatch(r"\d{3}\.\d{1,3}(?:\.\d{1,3})?", val):
        return [Fact("driver", val, ln), Fact("seen:driver", ln.strip()[:300], ln)]
    return []


def read(lines: Sequence[str]) -> Partial:
    out: List[Fact] = [Fact("format", NAME, lines[0] if lines else "")]
    texts = [text_of(ln) for ln in lines]
    gpu_wheel = next((t.split(":", 1)[1].strip().lower() == "true" for t in texts if t.startswith("Paddle With CUDA:")),
                     None)
    for i, (s, ln) in enumerate(zip(texts, lines)):
        g = _GPU.match(s)
        if g:
            out += [Fact("gpu", (int(g.group("idx")), g.group("name"), None, None), ln), Fact("seen:gpu", s, ln)]
            continue
        m = _kv(s)
        if m and m[0].strip().lower() == "cuda version":
            nv = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", m[1])
            build = _BUILD.match(texts[i + 1]) if i + 1 < len(texts) else None
            if nv and build and build.groups() == nv.groups()[:2]:
                out.append(Fact("nvcc!", f"Cuda compilation tools, release {nv.group(1)}.{nv.group(2)}, "
                                         f"V{m[1]}\n", ln))
        elif m:
            out += _field(m[0], m[1], ln, gpu_wheel)
    return partial(NAME, out)
