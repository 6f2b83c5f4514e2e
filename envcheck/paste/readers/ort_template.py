"""ONNX Runtime's issue templates and its packages named in a report.

* the old template (microsoft/onnxruntime .github/ISSUE_TEMPLATE, 2019-2022; e.g. microsoft/onnxruntime#6183,
  #9302): ``- ONNX Runtime installed from (source or binary): pip`` and ``- ONNX Runtime version: 1.6.0``; its
  ``- CUDA/cuDNN version: 10.1`` is the reporter's claim, read by :mod:`~envcheck.paste.readers.tf_template` (the
  template was TensorFlow's);
* the issue form (2022-): ``### ONNX Runtime Version or Commit ID`` and ``### ONNX Runtime Installation`` headings
  with the answer on a later line (microsoft/onnxruntime#19292: "onnxrumtime 1.16.2", "Released Package");
* the issue form's ``### Execution Provider Library Version`` with its answer ("CUDA 12.4", "cuda 12.6, cudnn 9.3,
  jetpack 6.1": microsoft/onnxruntime#22809, #22930): the reporter's claim of the CUDA / cuDNN the provider uses (facts
  ``claims``, read as the TensorFlow template's CUDA/cuDNN field is: an answer naming neither, "TensorRT 8.6", is not
  read);
* (jetson35) the issue form's ``### Execution Provider`` answer naming CUDA or TensorRT (evidence ``ort-gpu-wanted``: the
  GPU build is wanted) and its ``### ONNX Runtime Installation`` answer "Released Package" (evidence ``ort-released``:
  one of Microsoft's released packages, none of which has a Jetson CUDA build: engine.prose_causes.ort_jetson_release);
* a sentence saying which ONNX Runtime packages are installed: "I had installed both onnxruntime and onnxruntime-gpu"
  (#6183).

Facts: ``ort.version`` (ONNX Runtime's version as the template states it), ``ort.package`` (the distribution the text
names: ``onnxruntime-gpu`` / ``onnxruntime``, or ``both``), ``seen:ort-from-source`` (built from source: the
requirements table of the released packages does not describe it). ``pip list`` / ``pip show`` rows of the two
packages are :mod:`~envcheck.paste.readers.packages`'.
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import KV, Fact, Line, Partial, listed, next_value, partial, text_of
from envcheck.paste.readers.fields import claim

__all__ = ["NAME", "detect", "read"]

NAME = "onnxruntime template"
Facts = List[Fact]

#: the old template's two ONNX Runtime fields
_KEYS = re.compile(r"(?i)^onnx ?runtime (version|installed from(?: \(source or binary\))?)$")
#: the issue form's headings
_HEADING = re.compile(r"(?i)^#{2,4}\s*(?:onnx ?runtime (version or commit id|installation)|execution provider (library "
                      r"version)|(execution provider))\s*$")
#: the issue form's Execution Provider answer naming a GPU provider ("CUDA", "TensorRT", "'CUDA', 'TensorRT'"; jetson35)
_GPU_EP = re.compile(r"(?i)(?<![a-z])(?:cuda|tensorrt)(?![a-z])")
#: the package named before a version: PyPI's ("onnxruntime-gpu 1.16.2", "onnxrumtime 1.16.2") or NuGet's
#: ("Microsoft.ML.OnnxRuntime.Gpu 1.14.1", microsoft/onnxruntime#15250: the same release's C# package; it names no
#: PyPI package)
_PKG = r"(?:onnx\w{0,12}(?:-gpu)?|microsoft\.ml\.onnxruntime(?:\.[a-z]{2,12}){0,2})"
#: a version, with the package named before it, or alone ("1.6.0")
_VERSION = re.compile(r"(?i)^(?:(?P<pkg>" + _PKG + r")(?:\s{1,3}|==))?v?(?P<v>1\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])")
#: "onnxruntime-gpu==1.9.0" inside the installed-from answer ("pip, binary (onnxruntime-gpu==1.9.0)")
_PINNED = re.compile(r"(?i)(?<![\w-])(onnxruntime(?:-gpu)?)==(1\.\d{1,2}\.\d{1,2})(?![\w.])")
#: "I had installed both onnxruntime and onnxruntime-gpu" (either order)
_BOTH = re.compile(r"(?i)\binstalled both (?:`?onnxruntime`? and `?onnxruntime-gpu`?|`?onnxruntime-gpu`? and "
                   r"`?onnxruntime`?)(?![\w-])")


def detect(c: Line) -> int:
    km = c.km
    if km and _KEYS.match(km.group("key").strip()):
        return 1
    if _HEADING.match(c.s):
        j = next_value(c.lines, c.i)
        if j < len(c.lines) and not c.lines[j].strip().startswith("#"):
            return j + 1 - c.i
    if "installed both" in c.low and _BOTH.search(c.s):
        return 1
    return 0


#: a release archive of GitHub's ONNX Runtime releases named as the version ("onnxruntime-win-x64-cuda12-1.17.1",
#: microsoft/onnxruntime#20223; "onnxruntime-linux-x64-gpu-1.16.3"): a GPU build where it says gpu / cudaNN
_ARCHIVE = re.compile(r"(?i)^onnxruntime-(?:win|linux|osx)-(?:x64|x86|arm64|aarch64)(?P<gpu>-gpu)?(?P<cuda>-cuda1\d)?"
                      r"-(?P<v>1\.\d{1,2}\.\d{1,2})(?:\.(?:zip|tgz))?$")


def _version(val: str, line: str) -> Facts:
    v = val.strip().strip("`* ")
    am = _ARCHIVE.match(v)
    if am:
        gpu = [Fact("ort.package", "onnxruntime-gpu", line)] if am.group("gpu") or am.group("cuda") else []
        return [Fact("ort.version", am.group("v"), line), Fact("format", NAME, line)] + gpu
    m = _VERSION.match(v)
    if not m or listed(re.sub(r"(?i)^" + _PKG + r"(?:\s{1,3}|==)", "", v)):
        return []  # "1.17.1, 1.16.3" (tried), "1.17.1 -> 1.18.0" (changed): which one is installed is not said
    out = [Fact("ort.version", m.group("v"), line), Fact("format", NAME, line)]
    pkg = (m.group("pkg") or "").lower()
    if pkg in ("onnxruntime", "onnxruntime-gpu"):
        out.append(Fact("ort.package", pkg, line))
    return out


def _installed_from(val: str, line: str) -> Facts:
    low = val.lower()
    out = [Fact("format", NAME, line)]
    if "source" in low and "binary" not in low:
        out.append(Fact("seen:ort-from-source", line, line))
    pm = _PINNED.search(val)
    if pm:
        out += [Fact("ort.package", pm.group(1).lower(), line), Fact("ort.version", pm.group(2), line)]
    return out


def read(lines: Sequence[str]) -> Partial:
    s = text_of(lines[0]) if lines else ""
    km = KV.match(s)
    if km and _KEYS.match(km.group("key").strip()):
        field = _KEYS.match(km.group("key").strip()).group(1).lower()  # type: ignore[union-attr]
        val = km.group("val")
        return partial(NAME, _version(val, s) if field == "version" else _installed_from(val, s))
    hm = _HEADING.match(s)
    if hm and len(lines) > 1:
        later = text_of(lines[-1])
        if hm.group(2):  # "Execution Provider Library Version": the CUDA / cuDNN the reporter says the provider uses
            return partial(NAME, claim(later, later) if re.search(r"(?i)cuda|cudnn", later) else [])
        if hm.group(3):  # "Execution Provider": the provider the reporter runs; CUDA / TensorRT is the GPU build wanted
            return partial(NAME, [Fact("seen:ort-gpu-wanted", later, later)] if _GPU_EP.search(later) else [])
        if hm.group(1).lower() == "installation":
            if "source" in later.lower():
                return partial(NAME, _installed_from(later, later))
            # (jetson35) Microsoft's released packages (PyPI, NuGet, the release archives): on a Jetson none has CUDA
            return partial(NAME, [Fact("seen:ort-released", later, later)] if "released package" in later.lower()
                           else [])
        return partial(NAME, _version(later, later))
    if _BOTH.search(s):
        return partial(NAME, [Fact("ort.package", "both", s)])
    return partial(NAME, [])
