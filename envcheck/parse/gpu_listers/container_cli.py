"""``nvidia-container-cli info`` (libnvidia-container, src/cli/info.c), also behind ``--load-kmods`` or ``-k -d
/dev/tty`` (whose debug lines are skipped): the driver block

    NVRM version:   440.64.00
    CUDA version:   10.2

then one block a GPU (``Device Index``, ``Device Minor``, ``Model``, ``Brand``, ``GPU UUID``, ``Bus Location``,
``Architecture``; the MIG devices under a GPU are indented ``MIG Device Index`` blocks, not GPUs). "NVRM version" is
the loaded kernel module's version, "CUDA version" the driver's CUDA (cuDriverGetVersion), "Architecture" the GPU's
compute capability. The tool answers only through a loaded driver (NVML)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from envcheck.parse.gpu_listers.common import Listed, ListedGpu, plain_lines

__all__ = ["FORM", "detect", "read"]

FORM = "nvidia-container-cli info"

_NVRM = re.compile(r"^NVRM version:[ \t]+(\d{2,4}(?:\.\d{1,4}){1,3})[ \t]*$")
_CUDA = re.compile(r"^CUDA version:[ \t]+(\d{1,2}\.\d{1,2})[ \t]*$")
_INDEX = re.compile(r"^Device Index:[ \t]+(\d{1,4})[ \t]*$")
_FIELD = re.compile(r"^(Model|GPU UUID|Bus Location|Architecture):[ \t]+(\S[^\n]{0,160}?)[ \t]*$")
_ARCH = re.compile(r"^\d{1,2}\.\d{1,2}$")
_UUID = re.compile(r"^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}$")
_ELIDED = ("...", "\u2026")


def detect(text: Optional[str]) -> bool:
    if not text:
        return False
    lines = plain_lines(text)
    return any(_NVRM.match(ln) for ln in lines) and any(_CUDA.match(ln) or _INDEX.match(ln) for ln in lines)


def _gpu(index: int, fields: Dict[str, Any]) -> ListedGpu:
    arch = fields.get("Architecture")
    uuid = fields.get("GPU UUID")
    return ListedGpu(index=index, name=fields.get("Model"), uuid=uuid if uuid and _UUID.match(uuid) else None,
                     compute_capability=arch if arch and _ARCH.match(arch) else None, bus_id=fields.get("Bus Location"))


def read(text: Optional[str]) -> Optional[Listed]:
    """The driver version, its CUDA and the GPUs; the list is whole when the last GPU block ends with its
    "Architecture" line and nothing was left out ("..."). None when the text is not this form."""
    if not text or not detect(text):
        return None
    driver = cuda = None
    blocks: List[Dict[str, Any]] = []
    elided = False
    for ln in plain_lines(text):
        nvrm, cu, idx, f = _NVRM.match(ln), _CUDA.match(ln), _INDEX.match(ln), _FIELD.match(ln)
        if nvrm:
            driver = driver or nvrm.group(1)
        elif cu:
            cuda = cuda or cu.group(1)
        elif idx and len(blocks) < 1024:
            blocks.append({"index": int(idx.group(1))})
        elif f and blocks:
            blocks[-1].setdefault(f.group(1), f.group(2))
        elided = elided or ln in _ELIDED
    gpus = tuple(_gpu(b["index"], b) for b in blocks)
    complete = (bool(blocks) and "Architecture" in blocks[-1] and not elided
                and [g.index for g in gpus] == list(range(len(gpus)))) if gpus else None
    return Listed(form=FORM, driver_version=driver, cuda_version=cuda, gpus=gpus, complete=complete,
                  driver_loaded=True)
