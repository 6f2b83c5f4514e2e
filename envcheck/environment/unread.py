"""The small captures present whose reader read nothing from them (docs/contract.md §1: a form not recognised is
unknown, said so with the file and its first line; never a failure, never a default)."""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from envcheck.capture import OK
from envcheck.environment._common import Caps
from envcheck.model import UnreadCapture
from envcheck.parse.cuda_version import parse_version_json, parse_version_txt
from envcheck.parse.cudnn_header import parse_cudnn_header
from envcheck.parse.ldconfig import is_listing
from envcheck.parse.nvcc import parse_nvcc
from envcheck.parse.proc_driver import parse_proc_driver_version, parse_sys_module_version
from envcheck.parse.small_forms import describe_unread, first_line

__all__ = ["unread_captures", "SMALL_READERS"]

def _tegra_release(text: str) -> object:
    from envcheck.parse.tegra import parse_tegra_release  # lazy: only a Jetson's snapshot holds the file

    return parse_tegra_release(text)


def _jetson_release(text: str) -> object:
    from envcheck.parse.tegra import parse_jetson_release

    return parse_jetson_release(text)


#: each small capture and whether its reader reads something from a text
SMALL_READERS: Tuple[Tuple[str, Callable[[str], object]], ...] = (
    ("nvcc.txt", parse_nvcc),
    ("cuda-version.json", parse_version_json),
    ("cuda-version.txt", parse_version_txt),
    ("cudnn_version.h", parse_cudnn_header),
    ("proc-driver-version.txt", parse_proc_driver_version),
    ("sys-module-nvidia-version.txt", parse_sys_module_version),
    ("ldconfig.txt", is_listing),
    ("tegra-release.txt", _tegra_release),
    ("jetson-release.txt", _jetson_release),
)


def unread_captures(c: Caps) -> Tuple[UnreadCapture, ...]:
    """One :class:`UnreadCapture` per small capture that holds text (not blank) its reader read nothing from."""
    out: List[UnreadCapture] = []
    for key, read in SMALL_READERS:
        cap = c.cap(key)
        text: Optional[str] = cap.text if cap.status == OK else None  # a failed run is a probe problem already
        if text is None or not text.strip() or read(text):
            continue
        out.append(UnreadCapture(key=key, first_line=first_line(text), form=describe_unread(text)))
    return tuple(out)
