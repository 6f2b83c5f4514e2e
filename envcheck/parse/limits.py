"""The one cap on how many GPUs envcheck reads from one capture (contract §1: :data:`MAX_GPUS`).

A real machine has at most a few dozen GPUs (64 GPU partitions of eight MI300X in CPX mode, 7 MIG
instances each of 16 GPUs); a capture that lists more (a hostile or corrupted nvidia-smi / rocm-smi /
amd-smi / rocminfo / clinfo / xpu-smi / system_profiler output or nvml.json with 200,000 cards) is read up to its
first :data:`MAX_GPUS` GPUs, so that everything after the parsers (the GPU table of the matrix looked up
per GPU, the checks, the report) is bounded. Every GPU-listing parser is wrapped in :func:`gpu_list`;
the status report says when the cap was reached (``checks`` adds a ``not-checked`` finding), so that
nothing is cut silently.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, TypeVar

__all__ = ["MAX_GPUS", "gpu_list", "capped"]

#: the most GPUs (or GPU faults) read from one capture
MAX_GPUS = 1024

F = TypeVar("F", bound=Callable[..., Any])


def capped(result: Any) -> Any:
    """``result`` with its GPU lists cut to :data:`MAX_GPUS`: a list itself, a JSON object's ``gpus``, or an
    object's ``gpus`` / ``faults`` / ``devices`` lists. A cut nvidia-smi table is no longer the whole list (``gpus_complete``
    False)."""
    if isinstance(result, list):
        return result[:MAX_GPUS] if len(result) > MAX_GPUS else result
    if isinstance(result, dict):  # a JSON capture (nvml.json: {"gpus": [...]})
        gpus = result.get("gpus")
        return dict(result, gpus=gpus[:MAX_GPUS]) if isinstance(gpus, list) and len(gpus) > MAX_GPUS else result
    if isinstance(result, tuple) and result and isinstance(result[0], list):  # (nodes, extra)
        return (capped(result[0]),) + result[1:]
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        return result
    cut = {f: getattr(result, f)[:MAX_GPUS] for f in ("gpus", "faults", "devices")
           if isinstance(getattr(result, f, None), list) and len(getattr(result, f)) > MAX_GPUS}
    if not cut:
        return result
    if getattr(result, "gpus_complete", None) is True:
        cut["gpus_complete"] = False
    return dataclasses.replace(result, **cut)


def gpu_list(parse: F) -> F:
    """Wrap a parser whose result lists GPUs: its result is :func:`capped`."""
    @functools.wraps(parse)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return capped(parse(*args, **kwargs))

    return wrapper  # type: ignore[return-value]
