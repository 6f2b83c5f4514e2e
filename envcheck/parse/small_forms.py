"""What a small capture of a snapshot holds when its own reader read nothing from it (``nvcc.txt``,
``cuda-version.txt`` / ``.json``, ``cudnn_version.h``, ``proc-driver-version.txt``, ``sys-module-nvidia-version.txt``,
``ldconfig.txt``; docs/contract.md §1): a form envcheck recognises but does not take as that file's fact (``modinfo
nvidia``, a kernel log line, a Jetson's module line, another tool's output pasted in nvidia-smi's place: nvcc, the
toolkit's version.txt, ``nvidia-smi -h`` / ``dmon`` / ``pmon`` / ``topo -m`` / ``vgpu``, tegrastats, ``dpkg -l``'s driver
package; a shell's "not found"), or ``None`` (a form not recognised).
Either way the file's fact is unknown, and the report says so (a ``not-checked`` note), never a failure."""

from __future__ import annotations

import re
from typing import Optional

from envcheck import lazyre

__all__ = ["describe_unread", "first_line"]

# modinfo nvidia:  "filename:       /lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko"  "version:        550.120"
_MODINFO_FILE = lazyre.compile(r"^[ \t>$#]*filename:[ \t]+\S*/nvidia\.ko(?:\.[a-z]{1,4})?[ \t]*$", re.M)
_MODINFO_VERSION = lazyre.compile(r"^[ \t>]*version:[ \t]+(\d+(?:\.\d+){1,3})[ \t]*$", re.M)
# the kernel log as the module loads: "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."
_DMESG = lazyre.compile(r"NVRM: loading NVIDIA UNIX [^\n]{0,60}?Kernel Module(?: for [\w-]{1,20})?[ \t]+(\d+(?:\.\d+){1,3})\b")
# a Jetson's module (L4T): "NVRM version: NVIDIA UNIX Kernel Module for aarch64  34.1.1  Release Build  (buildbrain@...)"
# (L4T 35: "NVIDIA UNIX Open Kernel Module for aarch64  35.3.1", nixGL#139)
_TEGRA = lazyre.compile(r"NVRM version: NVIDIA UNIX (?:Open )?Kernel Module for ([\w-]{1,20})[ \t]+(\d{1,2}(?:\.\d+){1,3})\b")
# a shell or the OS saying the command / file is not there
_NOT_FOUND = lazyre.compile(r"command not found|Command '[^'\n]{1,40}' not found|: not found$|No such file or directory|"
                            r"is not recognized as an internal or external command|cannot find the path", re.M)


# Other tools' outputs users paste in nvidia-smi's place (each pattern anchored on the tool's own fixed text, one bounded
# search each): what the text is and why it is not the file's fact. "{0}" in a description is the pattern's group 1.
_OTHER_TOOLS = (
    # nvcc --version's last lines: "Cuda compilation tools, release 12.2, V12.2.140"
    (lazyre.compile(r"^[ \t>$#]*Cuda compilation tools, release (\d{1,2}\.\d{1,2})\b", re.M),
     "`nvcc --version` (the CUDA toolkit {0}): the toolkit, not the driver (nvcc.txt is its file)"),
    # the toolkit's version.txt: "CUDA Version 10.2.89" (no colon: nvidia-smi's field has one)
    (lazyre.compile(r"^[ \t>$#]*CUDA Version (\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)[ \t]*$", re.M),
     "the toolkit's version.txt (CUDA {0}): the toolkit, not the driver (cuda-version.txt is its file)"),
    # nvidia-smi dmon / pmon: "# gpu   pwr  gtemp  mtemp    sm   mem ..." / "# gpu        pid  type    sm   mem ..."
    (lazyre.compile(r"^[ \t]*#[ \t]*gpu[ \t]+(pwr|sm|pid|rxpci|fb|mclk)\b", re.M),
     "`nvidia-smi dmon` / `pmon` samples (first column {0}): nvidia-smi answered, but they name neither the driver "
     "version nor the GPUs"),
    # nvidia-smi topo -m: "\tGPU0\tGPU1\t...\tCPU Affinity\tNUMA Affinity"
    (lazyre.compile(r"^[^\n]{0,40}\bGPU0\b[^\n]{0,400}?\b(CPU Affinity)\b", re.M),
     "`nvidia-smi topo -m` (the GPUs' links, {0}): it names neither the driver version nor the GPUs"),
    # nvidia-smi -h / --help: "NVIDIA System Management Interface -- v535.104.05" (the binary's version; it answers
    # without a driver)
    (lazyre.compile(r"NVIDIA System Management Interface -- v(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b"),
     "`nvidia-smi -h` (the help of nvidia-smi {0}): the installed tool's version, which needs no loaded driver; it "
     "names no GPU"),
    # nvidia-smi vgpu on a GPU without vGPU support
    (lazyre.compile(r"(No supported devices in vGPU mode)"),
     "`nvidia-smi vgpu`'s answer ({0}): no GPU runs in vGPU mode; the driver version and the GPUs are not named"),
    # a Jetson's tegrastats line: "RAM 2198/3964MB (lfb 1x2MB) SWAP ... GR3D_FREQ 0%@76 ..." (lfb: the largest free
    # block, tegrastats' own field)
    (lazyre.compile(r"\bRAM \d{1,7}/\d{1,7}MB \((lfb) \d{1,6}x\d{1,6}[KM]B\)"),
     "a Jetson's `tegrastats` line: no L4T release, driver or GPU name"),
    # dpkg -l's row of the driver metapackage: "ii  nvidia-driver-550   550.107.02-0ubuntu0~gpu22.04.1   amd64 ..."
    (lazyre.compile(r"^[ \t>#]*ii[ \t]{1,8}nvidia-driver-\d{3}(?:-[a-z]{1,10})?(?::[a-z0-9]{1,10})?[ \t]{1,80}"
                    r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)", re.M),
     "`dpkg -l`'s nvidia-driver package {0}: installed, which is not necessarily the driver loaded"),
)


def _other_tool(text: str) -> Optional[str]:
    for rx, description in _OTHER_TOOLS:
        m = rx.search(text)
        if m:
            return description.format(m.group(1))
    return None


def first_line(text: str) -> str:
    """The first non-blank line, cut to 120 characters (for the note's evidence)."""
    for line in text.splitlines()[:10000]:
        if line.strip():
            return line.strip()[:120]
    return ""


def describe_unread(text: Optional[str]) -> Optional[str]:
    """A short description of a form recognised but not read as the file's fact, or ``None``."""
    if not text:
        return None
    if _MODINFO_FILE.search(text):
        m = _MODINFO_VERSION.search(text)
        ver = f" version {m.group(1)}" if m else ""
        return (f"`modinfo nvidia`: the module file on disk{ver}, which is not necessarily the module loaded (after a "
                "driver upgrade without a reboot the two differ)")
    m = _TEGRA.search(text)
    if m:
        return (f"a Jetson's kernel module line ({m.group(1)}): {m.group(2)} is its L4T release, not a driver "
                "branch")
    m = _DMESG.search(text)
    if m:
        return f"a kernel log line: module {m.group(1)} was loaded at that boot, which need not be the running one"
    other = _other_tool(text[:262144])
    if other:
        return other
    m = _NOT_FOUND.search(text)
    if m:
        line = next((ln.strip() for ln in text.splitlines() if m.group(0) in ln), m.group(0))
        return f"an error, not the output: {line[:120]!r}"
    return None
