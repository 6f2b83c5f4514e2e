"""What nvidia-smi / NVML print when they fail ("NVIDIA-SMI has failed because it couldn't communicate with the
NVIDIA driver", "Failed to initialize NVML: Driver/library version mismatch", "No devices were found", "Unable to
determine the device handle for GPU 0000:0B:00.0: Unknown Error"): the paste's ``nvidia-smi.txt`` is that text,
marked as a failed command when no table is pasted too. Which lines those are, and their state, is
:mod:`envcheck.parse.nvidia_smi`'s (``failure_line``, ``classify_error``): this reader holds no wording of its own."""

from __future__ import annotations

from typing import Sequence

from envcheck.parse.nvidia_smi import failure_line
from envcheck.paste.readers.base import Fact, Line, Partial, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "nvidia-smi error"


def _quotes(s: str) -> str:
    return s.replace("\u2018", "'").replace("\u2019", "'")


def detect(c: Line) -> int:
    return 1 if failure_line(_quotes(c.low)) else 0


def read(lines: Sequence[str]) -> Partial:
    s = _quotes(text_of(lines[0]).strip('"')) if lines else ""
    return partial(NAME, [Fact("format", "nvidia-smi", s), Fact("smi_failed", True, s), Fact("smi", s + "\n", s),
                          Fact("seen:nvidia-smi", s, s)])
