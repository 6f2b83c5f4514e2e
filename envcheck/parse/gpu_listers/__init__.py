"""Readers of the GPU listers other than nvidia-smi that users put where nvidia-smi's output goes (a snapshot's
``nvidia-smi.txt``, contract §1): one module per form, each with ``FORM`` (the name the report's
``driver.nvidia_smi_form`` gives it), ``detect(text) -> bool`` and ``read(text) -> Optional[Listed]`` (pure, one
pass over the lines: linear). :data:`READERS` is the registry, in the order asked (a form whose lines another one
shares is asked after it: ``nvidia-container-cli info`` before the ``/proc`` information files, which lack its
"Device Index"), and the kernel module's ``/proc/driver/nvidia/version`` before them (it reads the cards /
information files pasted below it itself). :func:`envcheck.parse.nvidia_smi.parse_smi` asks them after nvidia-smi's own forms (a paste holding
the nvidia-smi table too is read as the table). Adding a form is one new module here, its place in
:data:`READERS`, and its tests."""

from __future__ import annotations

from typing import Optional, Protocol, Tuple

from envcheck.parse.gpu_listers import container_cli, dcgmi, debugdump, device_query, glxinfo, gpustat, lshw, lspci, \
    proc_gpus, proc_version
from envcheck.parse.gpu_listers.common import Listed, ListedGpu

__all__ = ["READERS", "FORMS", "Listed", "ListedGpu", "read_listing"]


class Reader(Protocol):
    FORM: str

    def detect(self, text: Optional[str]) -> bool: ...

    def read(self, text: Optional[str]) -> Optional[Listed]: ...


READERS: Tuple[Reader, ...] = (device_query, container_cli, dcgmi, debugdump, gpustat, proc_version, proc_gpus, glxinfo,
                               lshw, lspci)
FORMS: Tuple[str, ...] = tuple(r.FORM for r in READERS)


def read_listing(text: str) -> Optional[Listed]:
    """The first reader's reading of the text, or None when no lister's form is in it."""
    for reader in READERS:
        got = reader.read(text)
        if got is not None:
            return got
    return None
