"""``tf.sysconfig.get_build_info()`` as printed: TensorFlow's own record of how the installed build was made
(tensorflow/tools/build_info/gen_build_info.py writes it into ``tensorflow/python/platform/build_info.py``):
``OrderedDict([('cpu_compiler', ...), ('cuda_compute_capabilities', ['sm_35', ..., 'compute_80']), ('cuda_version',
'11.2'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])``,
or a plain dict (``{'cpu_compiler': ..., 'cuda_version': '12.3', ...}``); native Windows builds write the versions
as their DLL suffixes (``'cuda_version': '64_112'``, ``'cudnn_version': '64_8'``). A CPU build (tensorflow-intel /
tensorflow-cpu, and every native-Windows build from 2.11) prints ``'is_cuda_build': False`` and no CUDA keys.

Read into ``tf.build.*`` (the snapshot's ``tensorflow.json`` keys ``is_cuda_build``, ``cuda_version``,
``cudnn_version``: :mod:`envcheck.paste.report` writes that capture, so the engine judges the build as it judges a
snapshot's) and ``built.tensorflow.cuda`` / ``.cudnn`` (the facts). One printed line; a line cut before a key leaves
that key unknown.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read", "windows_suffix"]

NAME = "tf.sysconfig.get_build_info"

_PAIR = re.compile(r"""['"](?P<k>is_cuda_build|is_rocm_build|cuda_version|cudnn_version)['"]\s{0,3}[,:]\s{0,3}"""
                   r"""(?P<v>True|False|['"][\w.]{0,20}['"])""")


def windows_suffix(v: str) -> Optional[str]:
    """``64_112`` -> ``11.2``, ``64_100`` -> ``10.0``, ``64_8`` -> ``8`` (a Windows build's DLL suffix); a plain
    ``11.2`` / ``8`` as it is."""
    if not v.startswith("64_"):
        return v if re.match(r"^\d{1,2}(?:\.\d{1,3}){0,2}$", v) else None
    d = v[3:]
    if not d.isdigit():
        return None
    if len(d) == 1:
        return d
    return f"{d[:-1]}.{d[-1]}" if len(d) in (2, 3) else None


def detect(c: Line) -> int:
    if "cuda" not in c.low or ("is_cuda_build" not in c.low and "cpu_compiler" not in c.low):
        return 0
    return 1 if _PAIR.search(c.s) else 0


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    out: List[Fact] = [Fact("format", NAME, s), Fact("seen:tensorflow", s[:300], s)]
    for m in _PAIR.finditer(s[:4000]):
        key, raw = m.group("k"), m.group("v").strip("'\"")
        if key in ("is_cuda_build", "is_rocm_build"):
            out.append(Fact(f"tf.build.{key}", raw == "True", s))
            continue
        v = windows_suffix(raw)
        if v:
            out.append(Fact(f"tf.build.{key}", v, s))
            short = v if key == "cudnn_version" else ".".join(v.split(".")[:2])
            out.append(Fact(f"built.tensorflow.{'cudnn' if key == 'cudnn_version' else 'cuda'}", short, s))
    return partial(NAME, out)
