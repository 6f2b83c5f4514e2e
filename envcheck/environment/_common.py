"""Shared helpers of the environment builders: the capture accessor and small value checks."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Protocol, Tuple

from envcheck.capture import LAST_LINE_CUT, NOT_FOUND, OK, Capture

__all__ = ["Caps", "s", "short3"]

#: captures whose rows each stand alone (nvidia-smi's --query-gpu CSV: one GPU a row)
_ROWS_STAND_ALONE = frozenset({"nvidia-smi-query.csv"})


class Caps:
    """The captures of one source, read by key; collects the notes the builders add."""

    def __init__(self, caps: Dict[str, Capture]):
        self._caps = caps
        self.notes: List[str] = []

    def cap(self, key: str) -> Capture:
        return self._caps.get(key) or Capture(NOT_FOUND, detail=f"{key}: not captured", captured=False)

    def text(self, key: str) -> Optional[str]:
        c = self.cap(key)
        if not c.has_text or c.text is None:
            return None
        if c.cut_off:
            # a capture cut off (the program printed more than the probe keeps): its head gives no fact (a flooding
            # nvcc's first line is no toolkit), except a listing whose every row stands alone, read up to its last
            # whole row (the GPU cap's not-checked note says the rest was not read: contract §1)
            return c.text[:c.text.rfind("\n") + 1] if key in _ROWS_STAND_ALONE else None
        if c.status == OK and LAST_LINE_CUT in c.detail:
            self.note(f"not-checked: {c.detail}")
        return c.text

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def s(v: Any) -> Optional[str]:
    """``v`` when it is a string, else ``None`` (JSON values from captures are untrusted)."""
    return v if isinstance(v, str) else None


def short3(v: Optional[str]) -> Optional[str]:
    """"9.1.0.70" -> "9.1.0" (at most three dotted parts, local label dropped)."""
    if not v:
        return None
    parts = v.split("+")[0].split(".")
    return ".".join(parts[:3])


class MatrixFacts(Protocol):
    """What the environment builders read from the compatibility matrix (:class:`envcheck.matrix.Matrix` is one).

    The environment layer sits below the matrix (see docs/architecture.md): it takes the matrix as this
    interface, passed in by the caller, and never imports :mod:`envcheck.matrix`."""

    def driver_highest_cuda(self, driver: Any, windows: bool = False) -> Tuple[Optional[str], str]: ...

    def gpu(self, name: Optional[str]) -> Optional[Dict[str, Any]]: ...

    def amd_device_gfx(self, device_id: Optional[str]) -> Optional[Dict[str, Any]]: ...

    def amd_gfx_family(self, gfx: Optional[str]) -> Optional[str]: ...

    def torch_variant(self, version: str, variant: Optional[str]) -> Optional[Dict[str, Any]]: ...

    def tf_release(self, version: str) -> Optional[Dict[str, Any]]: ...

    def onnxruntime_releases(self, version: str) -> List[Dict[str, Any]]: ...
