"""Driver advice: when the driver is older than every build of a framework that fits the rest of the machine
(Python, platform, GPU), name both the smallest driver upgrade that gives a working build and the driver floor
of the newest build. ``fix``, ``status`` and ``explain`` all take it from here.

Example: driver 418 on a Python 3.11 machine: torch 2.15.0 (cu132) needs >= 580, but torch 2.7.1 (cu118) already
runs on >= 450.80.02; saying only ">= 580" costs more than it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from envcheck.engine import Machine, Verdict, evaluate
from envcheck.engine.builds import Build, jax_builds, tensorflow_builds, torch_builds, version_key
from envcheck.matrix import Matrix
from envcheck.versions import DriverVersion

__all__ = ["DriverAdvice", "advice_from_verdicts", "driver_advice"]


@dataclass
class DriverAdvice:
    smallest: DriverVersion  # the lowest driver on which some build fits
    smallest_build: Build  # the newest build that runs on ``smallest``
    newest: DriverVersion  # the floor of the newest build
    newest_build: Build

    @property
    def same(self) -> bool:
        return self.smallest == self.newest

    def sentence(self, current: Optional[DriverVersion] = None) -> str:
        """One sentence: both upgrades (or one, when they are the same driver)."""
        frm = f" from {current}" if current is not None else ""
        if self.same:
            return f"upgrade the NVIDIA driver{frm} to >= {self.smallest} ({self.newest_build.label} runs there)"
        return (f"upgrade the NVIDIA driver{frm} to >= {self.smallest}, the smallest upgrade that runs a build "
                f"({self.smallest_build.label}); the newest build, {self.newest_build.label}, needs >= {self.newest}")

    def to_dict(self) -> Dict[str, Any]:
        return {"smallest_min": str(self.smallest), "smallest_build": self.smallest_build.label,
                "newest_min": str(self.newest), "newest_build": self.newest_build.label}


def advice_from_verdicts(verdicts: Sequence[Verdict]) -> Optional[DriverAdvice]:
    """From the verdicts of one framework's builds on one machine: ``None`` when some build already runs, or
    when no build is held back by the driver alone (a driver that no longer supports the GPU is not advice)."""
    if any(v.ok for v in verdicts):
        return None
    only = [v for v in verdicts if set(v.failed) == {"driver"} and not v.never and v.driver_max is None
            and v.required_driver is not None]
    if not only:
        return None
    low = min(v.required_driver for v in only if v.required_driver is not None)
    at_low = [v for v in only if v.required_driver == low]
    small = max(at_low, key=lambda v: (version_key(v.build.version), v.build.pypi_default))
    new = max(only, key=lambda v: (version_key(v.build.version), -(v.required_driver or low).major,
                                   v.build.pypi_default))
    assert small.required_driver is not None and new.required_driver is not None
    return DriverAdvice(smallest=small.required_driver, smallest_build=small.build, newest=new.required_driver,
                        newest_build=new.build)


def _builds(matrix: Matrix, framework: str, platform: str) -> List[Build]:
    if framework == "torch":
        return torch_builds(matrix, platform)
    if framework == "tensorflow":
        return tensorflow_builds(matrix, platform)
    if framework == "jax":
        return jax_builds(matrix, platform)
    if framework == "cupy":
        from envcheck.engine.cupy import cupy_builds

        return cupy_builds(matrix, platform)
    return []


def driver_advice(matrix: Matrix, machine: Machine, framework: str) -> Optional[DriverAdvice]:
    """The advice for ``framework`` on ``machine`` (every build the matrix knows for it)."""
    if machine.driver is None:
        return None
    return advice_from_verdicts([evaluate(matrix, b, machine) for b in _builds(matrix, framework, machine.platform)])
