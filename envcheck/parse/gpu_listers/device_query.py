"""CUDA samples' ``deviceQuery`` (Runtime API) and ``deviceQueryDrv`` (Driver API), every version, pasted where
nvidia-smi's output goes.

The lines are the samples' own ``printf`` formats (NVIDIA/cuda-samples Samples/1_Utilities/deviceQuery/deviceQuery.cpp
and deviceQueryDrv; the GPU Computing SDK's deviceQuery of CUDA 2.x-3.x before them):

* the count: "Detected %d CUDA Capable device(s)"; "There are no available device(s) that support CUDA"; the SDK's
  "There is 1 device supporting CUDA" / "There are %d devices supporting CUDA" / "There is no device supporting CUDA";
* a device: 'Device %d: "%s"';
* the driver's CUDA (cudaDriverGetVersion / cuDriverGetVersion: the highest CUDA the driver supports, the same fact
  as nvidia-smi's "CUDA Version"): "CUDA Driver Version / Runtime Version          %d.%d / %d.%d" (CUDA 4 on),
  deviceQueryDrv's "CUDA Driver Version:                           %d.%d", the SDK's "CUDA Driver Version: %d.%d"
  printed as ``v/1000, v%100`` ("3.0", "2.30": CUDA 2.3), the closing "deviceQuery, CUDA Driver = CUDART, CUDA Driver
  Version = %d.%d, CUDA Runtime Version = %d.%d, NumDevs = %d";
* the compute capability: "CUDA Capability Major/Minor version number:    %d.%d", the SDK's "CUDA Capability Major
  revision number: %d" and "... Minor revision number: %d";
* the memory: "Total amount of global memory:                 %.0f MBytes (%llu bytes)", the SDK's "%u bytes";
* a failure: "cudaGetDeviceCount returned %d" then "-> %s" (the CUDA error string) and "Result = FAIL": nothing is
  read from it (error 35 is printed as much for a missing driver as for an old one), and the report says so.

The CUDA runtime version is the sample binary's own (statically linked cudart), not the machine's toolkit: not read.
No driver version is printed: unknown."""

from __future__ import annotations

import re
from typing import Dict, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, mib, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "deviceQuery"

_COUNT = re.compile(r"^Detected (\d{1,4}) CUDA Capable device\(s\)")
_NONE = re.compile(r"^There (?:are no available device\(s\) that support|is no device supporting) CUDA")
_SDK_COUNT = re.compile(r"^There (?:is|are) (\d{1,4}) devices? supporting CUDA")
_DEVICE = re.compile(r'^Device (\d{1,4}) ?: "([^"\n]{1,160})"')
_DRV_RT = re.compile(r"^CUDA Driver Version / Runtime Version[ \t]+(\d{1,2})\.(\d{1,2})[ \t]*/")
_DRV = re.compile(r"^CUDA Driver Version:[ \t]+(\d{1,2})\.(\d{1,2})[ \t]*$")
_SUMMARY = re.compile(r"deviceQuery(?:Drv)?, CUDA Driver = CUDART, CUDA Driver Version = (\d{1,2})\.(\d{1,2}),"
                      r"(?:[^,\n]{0,80},)? NumDevs = (\d{1,4})")
_CC = re.compile(r"^CUDA Capability Major/Minor version number:[ \t]+(\d{1,2})\.(\d{1,2})[ \t]*$")
_CC_PART = re.compile(r"^CUDA Capability (Major|Minor) revision number:[ \t]+(\d{1,2})[ \t]*$")
_MEM = re.compile(r"^Total amount of global memory:[ \t]+(\d{1,20}) (MBytes|bytes)\b")
_TITLE = re.compile(r"CUDA Device Query \((?:Runtime|Driver) API\)")
_FAIL = re.compile(r"^cudaGetDeviceCount returned (\d{1,5})[ \t]*$")


def detect(text: Optional[str]) -> bool:
    """Is the text deviceQuery's output (or part of it)?"""
    if not text:
        return False
    if _TITLE.search(text) or "deviceQuery, CUDA Driver = CUDART" in text:
        return True
    lines = plain_lines(text)
    device = any(_DEVICE.match(ln) for ln in lines)
    return any(_COUNT.match(ln) or _FAIL.match(ln) or (device and (_DRV_RT.match(ln) or _CC.match(ln)
                                                                    or _CC_PART.match(ln))) for ln in lines)


def _cuda(major: str, minor: str, sdk: bool) -> str:
    """The driver's CUDA as "major.minor"; the SDK printed ``v%100`` as the minor ("2.30" is CUDA 2.3)."""
    m = int(minor)
    return f"{int(major)}.{m // 10 if sdk and len(minor) == 2 else m}"


class _Read:
    """The facts as the lines go by (one pass)."""

    def __init__(self) -> None:
        self.devices: Dict[int, Dict[str, object]] = {}
        self.current: Optional[int] = None
        self.count: Optional[int] = None
        self.cuda: Optional[str] = None
        self.failed: Optional[str] = None

    def device_line(self, ln: str) -> bool:
        m = _DEVICE.match(ln)
        if m:
            self.current = int(m.group(1))
            self.devices.setdefault(self.current, {"name": m.group(2).strip()})
            return True
        dev = self.devices.get(self.current) if self.current is not None else None
        if dev is None:
            return False
        cc, part, mem = _CC.match(ln), _CC_PART.match(ln), _MEM.match(ln)
        if cc:
            dev["cc"] = f"{int(cc.group(1))}.{int(cc.group(2))}"
        elif part:
            dev[part.group(1)] = int(part.group(2))
        elif mem:
            dev["mem"] = mib(mem.group(1), mem.group(2))
        return bool(cc or part or mem)

    def line(self, ln: str) -> None:
        if self.device_line(ln):
            return
        count, sdk, summary = _COUNT.match(ln), _SDK_COUNT.match(ln), _SUMMARY.search(ln)
        drv_rt, drv, fail = _DRV_RT.match(ln), _DRV.match(ln), _FAIL.match(ln)
        if count or sdk:
            self.count = int((count or sdk).group(1))  # type: ignore[union-attr]
        elif _NONE.match(ln):
            self.count = 0
        elif summary:
            self.cuda = self.cuda or _cuda(summary.group(1), summary.group(2), False)
            self.count = int(summary.group(3)) if self.count is None else self.count
        elif drv_rt or drv:
            m = drv_rt or drv
            self.cuda = self.cuda or _cuda(m.group(1), m.group(2), drv is not None)  # type: ignore[union-attr]
        elif fail:
            self.failed = ln


def _gpu(idx: int, dev: Dict[str, object]) -> ListedGpu:
    cc = dev.get("cc")
    if cc is None and "Major" in dev and "Minor" in dev:
        cc = f"{dev['Major']}.{dev['Minor']}"
    mem = dev.get("mem")
    return ListedGpu(index=idx, name=str(dev.get("name") or "") or None, memory_mib=mem if isinstance(mem, int) else None,
                     compute_capability=str(cc) if cc is not None else None)


def read(text: Optional[str]) -> Optional[Listed]:
    """The facts of a deviceQuery text (the driver's CUDA, the GPUs with memory and compute capability; the list
    is whole when the count printed matches the devices shown), or None when the text is not deviceQuery's."""
    if not text or not detect(text):
        return None
    r = _Read()
    for ln in plain_lines(text):
        r.line(ln)
    gpus = tuple(_gpu(i, r.devices[i]) for i in sorted(r.devices)[:1024])
    complete = (r.count is not None and [g.index for g in gpus] == list(range(r.count))) if gpus else None
    note = None
    if not gpus and r.failed:
        note = (f"a failed CUDA samples `deviceQuery` run ({r.failed!r}): it lists no GPU and does not show whether "
                "a driver is there or which one")
    elif not gpus and r.cuda is None:
        note = "CUDA samples' `deviceQuery` output with no device and no CUDA driver version in it"
    return Listed(form=FORM, cuda_version=r.cuda, gpus=gpus, complete=complete,
                  driver_loaded=bool(gpus) or r.cuda is not None, note=note)
