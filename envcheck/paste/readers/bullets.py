"""Hand-written environment bullets (``- **PyTorch version**: 2.5.1``, the old PyTorch template's ``- PyTorch
Version (e.g., 1.0): 1.3``, ``- NVIDIA driver version: 535.161.07``, ``NVIDIA driver's version:384.130``, ``- GPU: 3x RTX
A6000``, OpenCV's issue template ``- NVIDIA driver => Driver Version: 440.33.01``), and a keyless bullet
that is nothing but an NVIDIA GPU's name inside a list of bullets (ComfyUI's "Other" section as people fill it:
``- NVIDIA GeForce GTX 1080 Ti`` / ``- Windows 10`` / ``- 2.8.0+cu128``)."""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers import fields
from envcheck.paste.readers.base import KV, Fact, Line, Partial, partial, remembered, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "environment bullets"

#: a bullet whose whole value is an NVIDIA GPU's marketing name: a brand word, then a model with a digit
_GPU_ONLY = re.compile(r"^[-*\u2022]\s{1,3}(?P<name>(?:NVIDIA\s)?(?:GeForce\s)?(?:RTX|GTX|GT|Tesla|Quadro|TITAN)\s"
                       r"(?:[A-Z]{0,2}\d{1,4}[A-Za-z]{0,3})(?:\s(?:Ti|SUPER|Super|Laptop GPU|Ada Generation|\d{1,3}GB))?"
                       r"|NVIDIA\s[AHLB]\d{1,3}[A-Za-z0-9-]{0,12}|NVIDIA\sRTX\sA\d{3,4})\s*$")
_BULLET = re.compile(r"^[-*\u2022]\s")
#: the driver's version under a possessive key, which no ``key: value`` form reads ("NVIDIA driver's version:384.130")
_POSSESSIVE_DRIVER = re.compile(r"^(?:[-*\u2022]\s{1,3})?(?:nvidia\s{1,3})?(?:gpu\s{1,3})?driver's\s{1,3}version\s{0,3}"
                                r"[:\uff1a]\s{0,3}(?P<val>\d{3}\.\d{2,3}(?:\.\d{2,3})?)\s*$", re.I)
#: OpenCV's issue template ("##### System information (version)" / ``- OpenCV => 4.3.0`` / ``- Operating System /
#: Platform => Ubuntu 18.04``), whose key and value are parted by ``=>``, as people fill in more keys the same way
#: (``- NVIDIA driver => Driver Version: 440.33.01``: opencv/opencv's .github/ISSUE_TEMPLATE, NVIDIA/nvidia-docker#1294)
_ARROW = re.compile(r"^[-*\u2022]\s{1,3}(?P<key>[A-Za-z][A-Za-z0-9 _/().-]{1,40}?)\s{1,3}=>\s{1,3}(?P<val>\S.{0,120}?)\s*$")


@remembered  # (a pure function of the line, asked by detect, read and the advice check)
def _facts(s: str) -> List[Fact]:
    km = KV.match(s)
    if km:
        return fields.bullet_field(km.group("key"), km.group("val"), s)
    am = _ARROW.match(s)
    if am:
        return fields.bullet_field(am.group("key"), am.group("val"), s)
    pm = _POSSESSIVE_DRIVER.match(s)
    return fields.bullet_field("driver version", pm.group("val"), s) if pm else []


def _gpu_bullet(c: Line) -> List[Fact]:
    """A keyless GPU bullet, only inside a list (a bullet right above or below it): a sentence's GPU is not read."""
    m = _GPU_ONLY.match(c.s)
    if not m:
        return []
    near = [text_of(c.lines[k]) for k in (c.i - 1, c.i + 1) if 0 <= k < len(c.lines)]
    if not any(_BULLET.match(n) for n in near):
        return []
    return [Fact("gpu", (0, m.group("name"), None, None), c.s), Fact("seen:gpu", c.s, c.s),
            Fact("format", NAME, c.s)]


def detect(c: Line) -> int:
    if not (_facts(c.s) or _gpu_bullet(c)):
        return 0
    # a list introduced as advice ("The README recommends:", "Your versions should be:"): no facts (attack35)
    from envcheck.paste.readers.bare_versions import introduced_as_not_mine

    return 0 if introduced_as_not_mine(c, _facts, advice_only=True) else 1


def read(lines: Sequence[str]) -> Partial:
    if not lines:
        return partial(NAME, [])
    s = text_of(lines[0])
    got = _facts(s)
    if not got and _GPU_ONLY.match(s):
        m = _GPU_ONLY.match(s)
        got = [Fact("gpu", (0, m.group("name"), None, None), s), Fact("seen:gpu", s, s), Fact("format", NAME, s)] if m else []
    return partial(NAME, got)
