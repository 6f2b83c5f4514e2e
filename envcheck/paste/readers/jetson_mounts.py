"""The CUDA / cuDNN / TensorRT libraries a container shows empty or lacking (issue 20, session 24 jetctr41). This module
only reads: each is evidence, and whether it makes a cause is decided in
:func:`envcheck.engine.jetson_prose.container_mounts`.

On JetPack 4 (L4T R32) - and on later images that still expect host files - NVIDIA's container runtime mounts the
host's CUDA, cuDNN and TensorRT into an l4t-based container from the CSV files under
/etc/nvidia-container-runtime/host-files-for-container.d (cuda.csv, cudnn.csv, tensorrt.csv, l4t.csv). The image holds
only empty files at those paths; a container started without the runtime (no ``--runtime nvidia``, Docker's default
runtime not nvidia, a ``docker build``), or on a host whose CSV files or libraries are missing, sees the empty files or
nothing: "libnvinfer.so.7: file too short" (dusty-nv/jetson-inference#1061, #1733), ldconfig's "File
/usr/lib/aarch64-linux-gnu/libcudnn.so.8 is empty, not checked." (NVIDIA-ISAAC-ROS/isaac_ros_dnn_inference#17), an
``ls -l`` row of size 0 (NVIDIA/nvidia-docker#1775), or the reporter's sentence that the image has no cuDNN
(dusty-nv/jetson-containers#10, idavis/jetson-containers#25, NVIDIA/nvidia-container-runtime#173).

* ``lib-empty:<library>`` (``<library> | line``): a CUDA-stack library (cuDNN, the CUDA runtime and math libraries,
  TensorRT's libnvinfer and parsers) shown empty: ldconfig's "is empty, not checked", the loader's "file too short", an
  ``ls -l`` row of size 0. The user's own library ("/models/libmyplugins.so: file too short", wang-xinyu/tensorrtx#1229)
  and the driver's libcuda are not read.
* ``lib-lacking-said-cudnn`` / ``lib-lacking-said-cuda`` (the line): a sentence saying cuDNN, or the CUDA / TensorRT
  libraries, are not in the image or container ("this image doesn't have cudnn", "Unable to find Cudnn in ...", "many
  of the CUDA libraries are missing", "there is no libcudnn ... in /usr/include", "can not find any libcudnn8
  libraries").
* ``container-named`` (the line): a container or image named (docker, a container, an l4t image's name, nvcr.io).
* ``driver-lib-empty:<library>`` (``<path> | line``; session 25, jetson42): a driver-side library shown empty in the
  same three forms - the driver's libcuda.so / libcuda.so.1 (an x86 image's placeholder that NVIDIA's container runtime
  mounts the host driver's library over: "ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short" in a
  container started with plain ``docker run``, Thinklab-SJTU/R3Det_Tensorflow#78; a project image saved with the 0-byte
  file, warmshao/FasterLivePortrait#37, #9), a library of L4T's driver under ``/tegra/`` ("tegra/libnvsocsys.so: file
  too short", dusty-nv/jetson-containers#253) and L4T's own NVIDIA GStreamer plugins (``gstreamer-1.0/libgstnv*.so:
  file too short``, dusty-nv/jetson-containers#625), which the runtime mounts from a Jetson host. Another library
  that is empty ("/usr/local/tbb-2019_U8/lib/libtbb.so: file too short", NingMingHao/Yolov8TensorrtRos#2) is not read;
  nor (attack54) ldconfig's "File .../tegra/libcuda.so is empty, not checked." for a driver-side library: apt's
  libc-bin trigger or a build's ldconfig lists the image's placeholders wherever the GPU is not mounted, with nothing
  loading them (a Jetson user asking how to run a GUI from the container, dusty-nv/jetson-containers#36); the loader's
  "file too short" and an ``ls -l`` row of size 0 are read.

Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

#: a CUDA-stack library's file name (cuDNN and its sublibraries, the CUDA runtime and math libraries, TensorRT's)
_LIB = (r"lib(?:cudnn\w{0,24}|cudart|cublas(?:Lt)?|cufft\w{0,6}|curand|cusolver\w{0,6}|cusparse\w{0,6}|nvrtc\w{0,12}"
        r"|nvToolsExt|npp\w{1,8}|nvinfer\w{0,24}|nvonnxparser|nvparsers)\.so(?:\.\d{1,6}){0,4}")
#: ldconfig's "File /usr/lib/aarch64-linux-gnu/libcudnn.so.8 is empty, not checked."
_LDCONFIG_EMPTY = re.compile(r"(?i)\bFile\s{1,3}(?:/[\w.+-]{1,80}){0,8}/(?P<lib>" + _LIB + r") is empty, not checked")
#: the loader's "error while loading shared libraries: /usr/lib/aarch64-linux-gnu/libnvinfer.so.7: file too short"
#: (the title's form without the colon: dusty-nv/jetson-inference#1733)
_TOO_SHORT = re.compile(r"(?i)(?<![\w.+-])(?P<lib>" + _LIB + r"):?\s{1,3}file too short")
#: an ``ls -l`` row of a regular file of size 0: "-rw-r--r-- 1 root root 0 Oct 19  2020 /usr/lib/.../libcudnn.so.8.0.0"
_LS_EMPTY = re.compile(r"^-[rwxsStT-]{9}[.+@]?\s{1,4}\d{1,4}\s{1,4}\S{1,32}\s{1,4}\S{1,32}\s{1,4}0\s{1,4}[A-Za-z]{3}"
                       r"\s{1,3}\d{1,2}\s{1,3}(?:\d{4}|\d{1,2}:\d{2})\s{1,3}(?:\S{0,200}/)?(?P<lib>" + _LIB + r")\s*$")
#: a driver-side library: the driver's libcuda, a library of L4T's driver (under /tegra/), L4T's NVIDIA GStreamer
#: plugins (libgstnv*.so, also where a wrapped paste cut its path); the path is kept (a /tegra/ library is one by its
#: folder)
_DRV = (r"(?<![\w.+-])(?P<path>/?(?:[\w.+-]{1,80}/){0,9}(?P<lib>libcuda\.so(?:\.\d{1,6}){0,4}"
        r"|tegra/lib[\w.+-]{1,60}?\.so(?:\.\w{1,12}){0,4}|libgstnv\w{1,40}\.so))")
_DRV_TOO_SHORT = re.compile(r"(?i)" + _DRV + r":?\s{1,3}file too short")
_DRV_LS_EMPTY = re.compile(r"^-[rwxsStT-]{9}[.+@]?\s{1,4}\d{1,4}\s{1,4}\S{1,32}\s{1,4}\S{1,32}\s{1,4}0\s{1,4}[A-Za-z]{3}"
                           r"\s{1,3}\d{1,2}\s{1,3}(?:\d{4}|\d{1,2}:\d{2})\s{1,3}" + _DRV + r"\s*$")
#: what a sentence says is not in the image / container: cuDNN, or the CUDA / TensorRT libraries
_WHAT = (r"(?P<what>lib(?:cudnn|cublas|cudart|curand|nvinfer)\w{0,20}(?:\.so[\d.]{0,12})?|cudnn|cuda libraries"
         r"|cuda/cudnn|tensorrt)")
_SAID = re.compile(
    r"(?i)(?:\b(?:doesn\x27t|does not|don\x27t|do not|didn\x27t|did not)\s{1,3}(?:seem to\s{1,3})?(?:have|has|contain|"
    r"include|find|see)|\b(?:can\s?not|can\x27t|unable to|couldn\x27t|could not|not able to)\s{1,3}(?:find|see|locate)"
    r"|\bthere\s{1,3}(?:is|are)\s{1,3}no)\s{1,3}(?:any\s{1,3})?(?:the\s{1,3})?[`*_]{0,2}" + _WHAT + r"(?![\w-])"
    r"|\b(?:many of the|the|all)\s{1,3}[`*_]{0,2}(?P<what2>cuda libraries|cudnn libraries)[`*_]{0,2}\s{1,3}(?:are|were)"
    r"\s{1,3}(?:\w{1,10}\s{1,3})?missing")
#: a container or an image named
_CONTAINER = re.compile(r"(?i)\bdocker\b|\bcontainers?\b|(?<![\w-])l4t[-:]|nvcr\.io/|\bimage name\b")


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    out: List[Fact] = []
    if "file too short" in low or "not checked" in low or (s[:1] == "-" and " 0 " in s):
        m = (_TOO_SHORT.search(s) if "file too short" in low else _LDCONFIG_EMPTY.search(s) if "not checked" in low
             else _LS_EMPTY.match(s))
        if m:
            lib = m.group("lib")
            out.append(Fact("seen:lib-empty:" + lib.lower(), f"{lib} | {s}", s))
        elif "cuda" in low or "tegra/" in low or "libgstnv" in low:
            d = (_DRV_TOO_SHORT.search(s) if "file too short" in low else None if "not checked" in low
                 else _DRV_LS_EMPTY.match(s))  # (attack54) ldconfig's listing of the placeholders is not read
            if d:
                lib = d.group("lib").lower()
                path = d.group("path")
                out.append(Fact("seen:driver-lib-empty:" + lib, f"{path} | {s}", s))
    if ("cudnn" in low or "cuda" in low or "tensorrt" in low or "nvinfer" in low) and (
            "n't" in low or "not" in low or " no " in low or "missing" in low or "unable" in low):
        m = _SAID.search(s)
        if m:
            what = (m.group("what") or m.group("what2") or "").lower()
            kind = "cudnn" if "cudnn" in what and "cuda/" not in what else "cuda"
            out.append(Fact("seen:lib-lacking-said-" + kind, s, s))
    if ("docker" in low or "container" in low or "l4t" in low or "nvcr.io" in low or "image" in low) and \
            _CONTAINER.search(s):
        out.append(Fact("seen:container-named", s, s))
    return out
