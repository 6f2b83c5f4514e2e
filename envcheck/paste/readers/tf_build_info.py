"""``tf.sysconfig.get_build_info()`` as printed: TensorFlow's own record of how the installed build was made
(tensorflow/tools/build_info/gen_build_info.py writes it into ``tensorflow/python/platform/build_info.py``):
``OrderedDict([('cpu_compiler', ...), ('cuda_compute_capabilities', ['sm_35', ..., 'compute_80']), ('cuda_version',
'11.2'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])``,
or a plain dict (``{'cpu_compiler': ..., 'cuda_version': '12.3', ...}``), on one line or pretty-printed over several
(conda-forge/tensorflow-feedstock#157 quotes one: ``('cuda_version', '11.2'),`` a line). A CPU build (tensorflow-intel
/ tensorflow-cpu, and every native-Windows build from 2.11) prints ``'is_cuda_build': False`` and no CUDA keys. A
version value that is not a plain dotted number is left unknown (native Windows builds print other forms, not
verified here).

Read into ``tf.build.*`` (the snapshot's ``tensorflow.json`` keys ``is_cuda_build``, ``cuda_version``,
``cudnn_version``: :mod:`envcheck.paste.report` writes that capture, so the engine judges the build as it judges a
snapshot's) and ``built.tensorflow.cuda`` / ``.cudnn`` (the facts). One printed line; a line cut before a key leaves
that key unknown.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "tf.sysconfig.get_build_info"

_PAIR = re.compile(r"""['"](?P<k>is_cuda_build|is_rocm_build|cuda_version|cudnn_version)['"]\s{0,3}[,:]\s{0,3}"""
                   r"""(?P<v>True|False|['"][\w.]{0,20}['"])""")


def _version(v: str) -> Optional[str]:
    """A plain ``11.2`` / ``12.3`` / ``8`` / ``8.9``; anything else (an unverified platform form) is not read."""
    return v if re.match(r"^\d{1,2}(?:\.\d{1,3}){0,2}$", v) else None


_START = re.compile(r"""(?:OrderedDict\(\[\(|\{)\s{0,3}['"]cpu_compiler['"]""")
#: a pretty-printed continuation line: ``('cuda_version', '11.2'),``, ``'sm_50',``, ``'compute_86']),``
_CONTINUED = re.compile(r"""^[(\['"]|^[\w.]{1,20}['"]?[,\]]""")
_MAXSPAN = 40  # lines of one pretty-printed dict (about 20 with every capability on its own line)


def detect(c: Line) -> int:
    if "cpu_compiler" not in c.low or not _START.search(c.s):
        return 0
    n = 1
    for k in range(min(_MAXSPAN, len(c.lines) - c.i)):
        t = text_of(c.lines[c.i + k])
        if k and not _CONTINUED.match(t):
            break  # a pretty-printed dict cut off: the lines read so far
        n = k + 1
        if t.endswith(("])", "}")):
            break
    return n


def read(lines: Sequence[str]) -> Partial:
    s = " ".join(text_of(x) for x in lines)[:8000]
    out: List[Fact] = [Fact("format", NAME, s), Fact("seen:tensorflow", s[:300], s)]
    for m in _PAIR.finditer(s):
        key, raw = m.group("k"), m.group("v").strip("'\"")
        if key in ("is_cuda_build", "is_rocm_build"):
            out.append(Fact(f"tf.build.{key}", raw == "True", s))
            continue
        v = _version(raw)
        if v:
            out.append(Fact(f"tf.build.{key}", v, s))
            short = v if key == "cudnn_version" else ".".join(v.split(".")[:2])
            out.append(Fact(f"built.tensorflow.{'cudnn' if key == 'cudnn_version' else 'cuda'}", short, s))
    return partial(NAME, out)
