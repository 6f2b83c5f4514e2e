"""``glxinfo`` (mesa-demos: ``-B``, ``| grep -i opengl``, ``| grep version``) where NVIDIA's own OpenGL driver renders.
Its strings are the driver's (the GLX vendor library libGLX_nvidia.so / libnvidia-glcore.so of that driver):

    OpenGL vendor string: NVIDIA Corporation
    OpenGL renderer string: NVIDIA GeForce RTX 2060/PCIe/SSE2        (the GPU; "/integrated" on a Jetson)
    OpenGL core profile version string: 4.6.0 NVIDIA 535.179          (the OpenGL version, then the driver's)
    OpenGL version string: 4.6.0 NVIDIA 535.179
    OpenGL ES profile version string: OpenGL ES 3.2 NVIDIA 535.179

The version after "NVIDIA" is the user-space driver's; NVIDIA's GLX only renders through its kernel module of the
same version, so the driver is loaded. The renderer is the one GPU rendering that X screen (never the whole list);
the CUDA the driver supports is not named. Mesa's renderers (llvmpipe, nouveau's "NV1xx", zink's "zink Vulkan ...")
are not NVIDIA's driver: a text whose vendor string is not NVIDIA's and that names no NVIDIA version is not read."""

from __future__ import annotations

import re
from typing import Optional, Tuple

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "glxinfo"

# "OpenGL core profile version string: 4.6.0 NVIDIA 535.179", "OpenGL ES profile version string: OpenGL ES 3.2 NVIDIA
# 535.179" (a bold Markdown line "**OpenGL ... 460.91.03** <--- comment" too: the marks are dropped first)
_VERSION = re.compile(r"^OpenGL (?:core profile |ES profile )?version string:[ \t]{0,8}(?:OpenGL ES[ \t]{1,4})?"
                      r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?[ \t]{1,8}NVIDIA[ \t]{1,8}(\d{2,3}\.\d{1,3}(?:\.\d{1,3})?)\b")
_VENDOR = re.compile(r"^OpenGL vendor string:[ \t]{0,16}NVIDIA Corporation[ \t]*$")
# "OpenGL renderer string: GeForce GTX 1060 6GB/PCIe/SSE2" (the name, then "/" and the bus and CPU extensions)
_RENDERER = re.compile(r"^OpenGL renderer string:[ \t]{0,16}([^/\n]{2,120}?)[ \t]*(?:/|$)")


def _plain(line: str) -> str:
    return line.replace("**", "").replace("\\_", "_").strip()


def _scan(text: str) -> Tuple[Optional[str], bool, Optional[str]]:
    """(the driver version, whether the vendor string is NVIDIA's, the first renderer) of the text."""
    version = renderer = None
    vendor = False
    for raw in plain_lines(text):
        if "OpenGL" not in raw:
            continue
        ln = _plain(raw)
        m = _VERSION.match(ln)
        if m and version is None:
            version = m.group(1)
            continue
        if _VENDOR.match(ln):
            vendor = True
            continue
        r = _RENDERER.match(ln)
        if r and renderer is None:
            renderer = r.group(1).strip()
    return version, vendor, renderer


def detect(text: Optional[str]) -> bool:
    if not text or "OpenGL" not in text:
        return False
    version, vendor, _ = _scan(text)
    return version is not None or vendor


def read(text: Optional[str]) -> Optional[Listed]:
    """The NVIDIA driver's version and the GPU that renders; None when no NVIDIA OpenGL driver speaks in the text."""
    if not text or "OpenGL" not in text:
        return None
    version, vendor, renderer = _scan(text)
    if version is None and not vendor:
        return None
    gpus = (ListedGpu(index=0, name=renderer),) if renderer else ()
    return Listed(form=FORM, driver_version=version, gpus=gpus, complete=False if gpus else None, driver_loaded=True,
                  note="`glxinfo` (NVIDIA's OpenGL driver): it names the driver's version and the one GPU that renders "
                       "the X screen, not the whole GPU list nor the CUDA the driver supports")
