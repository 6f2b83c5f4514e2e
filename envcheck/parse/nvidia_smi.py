"""Parse the plain ``nvidia-smi`` table, its failure texts, and the ``--query-gpu`` CSV."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Set, Tuple
from envcheck import lazyre
from envcheck.parse import log_stamp
from envcheck.parse.versions import small_int
from envcheck.parse.limits import gpu_list

__all__ = ["FAILURE_WORDS", "failure_line", "SmiGpu", "SmiFault", "SmiTable", "QueryGpu", "SmiQuery", "parse_table", "parse_query_csv",
           "parse_smi", "parse_q", "parse_list", "parse_xml", "is_xml", "classify_error", "smi_state", "STATES", "FORMS",
           "LISTER_FORMS",
           "partial_listing", "nvlink_line", "clean_capture", "unprefix_table_line", "is_query_row", "VGPU_HOST", "HEADER_CUT"]

# Error kinds, shared with NVML's error strings.
NO_DRIVER = "no-driver"
LIB_MISMATCH = "driver-library-mismatch"
NO_DEVICES = "no-devices"
OTHER = "other"

#: What one nvidia-smi run says about the driver (``SmiTable.state`` / ``Driver.smi_state``):
#: "ok" (a table with the driver's header), "no-driver", "driver-library-mismatch", "no-devices"
#: ("No devices were found": zero GPUs), "faulty-gpu" (the driver answered but a GPU is broken: an
#: ``ERR!`` row, "Unable to determine the device handle", "GPU is lost"), "timed-out", "crashed"
#: (killed by a signal / "Segmentation fault"), "failed" (an error text envcheck does not classify).
FAULTY_GPU = "faulty-gpu"
TIMED_OUT = "timed-out"
CRASHED = "crashed"
FAILED = "failed"
#: "Failed to initialize NVML: Unknown Error": NVML is installed but could not open the GPU devices (inside a
#: container: the cgroup device rules were lost after a runtime/daemon reload; elsewhere: /dev/nvidia*
#: permissions). Not a missing driver. NVML's two other refusals of the devices are the same state: "Insufficient
#: Permissions" (NVML_ERROR_NO_PERMISSION: SELinux's container label, a user outside /dev/nvidia*'s group) and "GPU
#: access blocked by the operating system" (NVML_ERROR_OPERATING_SYSTEM: the OS / cgroups blocked the device).
NVML_UNKNOWN = "nvml-unknown-error"
STATES = ("ok", NO_DRIVER, LIB_MISMATCH, NO_DEVICES, FAULTY_GPU, NVML_UNKNOWN, TIMED_OUT, CRASHED, FAILED)

#: The form a capture was read as (``SmiTable.form``), decided by its content, never by the file name
FORM_TABLE = "table"  # the plain ``nvidia-smi`` table (Jetson's Tegra table included)
FORM_Q = "nvidia-smi -q"  # ``nvidia-smi -q`` / ``-a``, whole or in part (``-q -d MEMORY`` too)
FORM_L = "nvidia-smi -L"  # ``nvidia-smi -L``
FORM_CSV = "nvidia-smi --query-gpu"  # the CSV of ``--query-gpu ... --format=csv``
FORM_XML = "nvidia-smi -q -x"  # ``nvidia-smi -q -x`` (its XML), whole or cut
FORM_VERSION = "nvidia-smi --version"  # its "NVIDIA-SMI version : ..." block (drivers from 2024 on): no GPU list
FORM_ERROR = "error"  # an error text nvidia-smi / NVML prints
FORM_UNKNOWN = "unrecognised"  # none of the above: unknown, never a failure of nvidia-smi
FORMS = (FORM_TABLE, FORM_Q, FORM_L, FORM_CSV, FORM_XML, FORM_VERSION, FORM_ERROR, FORM_UNKNOWN)
#: the GPU listers other than nvidia-smi read from the same file (:data:`envcheck.parse.gpu_listers.FORMS`; kept
#: here too so that a layer above asks this module only)
LISTER_FORMS = ("deviceQuery", "nvidia-container-cli info", "dcgmi discovery", "nvidia-debugdump", "gpustat", "/proc/driver/nvidia/version",
                "/proc/driver/nvidia/gpus", "glxinfo", "lshw", "lspci")
# "NVIDIA-SMI version  : 610.57.04" (the first line of ``nvidia-smi --version``; -q has no such line)
_VERSION_BLOCK = lazyre.compile(r"^[ \t#>$]*NVIDIA-SMI version[ \t]*:[ \t]*\d", re.M)


@dataclass(frozen=True)
class SmiGpu:
    """One GPU as the plain ``nvidia-smi`` table (or ``-L`` / ``-q``) shows it."""

    index: int
    name: Optional[str]  # as printed (long names truncated with "..."); None where the row shows ERR!
    memory_total_mib: Optional[int] = None
    bus_id: Optional[str] = None
    mig_enabled: Optional[bool] = None
    fault: Optional[str] = None  # the row as printed when nvidia-smi shows ERR! instead of the name
    uuid: Optional[str] = None  # "GPU-..." (``-L``, ``-q``)
    compute_capability: Optional[str] = None  # only the ``--query-gpu`` CSV's ``compute_cap`` column states it


@dataclass(frozen=True)
class SmiFault:
    """A GPU nvidia-smi could not open: "Unable to determine the device handle for GPU 0000:0B:00.0:
    Unknown Error" (the driver answered; this one GPU is broken / fell off the bus)."""

    bus_id: Optional[str]
    text: str  # the line as printed


@dataclass(frozen=True)
class SmiTable:
    """What the plain table says. ``driver_version`` is the driver as printed ("535.104.05";
    under WSL2 this is the Windows driver, e.g. "512.15"); ``cuda_version`` the "CUDA Version"
    field (the highest CUDA the driver supports; absent before driver 410); ``error`` one of
    ``no-driver``, ``driver-library-mismatch``, ``no-devices``, ``other`` or ``None``."""

    smi_version: Optional[str] = None
    driver_version: Optional[str] = None
    cuda_version: Optional[str] = None
    gpus: List[SmiGpu] = field(default_factory=list)
    mig_devices: int = 0
    error: Optional[str] = None
    error_line: Optional[str] = None
    #: GPUs that could not be opened (device-handle errors); they are not in ``gpus``
    faults: List[SmiFault] = field(default_factory=list)
    #: True: ``gpus`` (plus ``faults``) is the whole list ("No devices were found" makes it a known zero);
    #: False: a fragment (a header without GPU rows, a GPU block cut off); None: no table at all
    gpus_complete: Optional[bool] = None
    #: one of :data:`STATES` (never "timed-out", which only the capture can say); None for empty text and
    #: for a form not recognised (unknown: nothing is said about nvidia-smi)
    state: Optional[str] = None
    #: one of :data:`FORMS` (:func:`parse_smi`); None for empty text
    form: Optional[str] = None
    #: the first line of a text whose form was not recognised (for the ``not-checked`` note)
    first_line: Optional[str] = None
    #: what the CUDA field printed where it printed no version ("N/A" on a vGPU host or a Jetson, "Not Found"
    #: in ``-q``, "ERR!" under WSL2): the driver's CUDA is unknown and must not be derived from its version
    cuda_unavailable: Optional[str] = None
    #: a GPU lister other than nvidia-smi (:mod:`envcheck.parse.gpu_listers`): what its form does not tell, said in
    #: the report's ``not-checked`` note (``lspci`` names no driver; a failed ``deviceQuery`` lists nothing)
    note: Optional[str] = None
    #: a GPU lister that answers only through a loaded driver listed GPUs (a driver is there)
    driver_loaded: bool = False
    #: the loaded kernel module's version and kind ("open" / "proprietary") where the text also holds the NVRM line of
    #: ``cat /proc/driver/nvidia/version`` (pasted beside nvidia-smi's output or error: "version mismatch" and the
    #: module that is loaded); None otherwise
    kernel_version: Optional[str] = None
    kernel_module: Optional[str] = None


# "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that
#  the latest NVIDIA driver is installed and running."
# "Failed to initialize NVML: Driver/library version mismatch"  (+ "NVML library version: 535.129")
# "No devices were found"
_ERRORS = [
    (lazyre.compile(r"couldn'?t communicate with the NVIDIA driver", re.I), NO_DRIVER),
    (lazyre.compile(r"couldn'?t find libnvidia-ml\.so", re.I), NO_DRIVER),
    (lazyre.compile(r"NVML Shared Library Not Found", re.I), NO_DRIVER),
    (lazyre.compile(r"Driver Not Loaded", re.I), NO_DRIVER),
    # Go programs (the k8s device plugin, HAMi, DCGM exporter) print NVML's return code by go-nvml's default names
    # when no NVML error string is at hand (NVIDIA/go-nvlib pkg/nvml/return.go, defaultErrorStringFunc):
    # "Failed to initialize NVML: ERROR_UNKNOWN" is nvmlInit's NVML_ERROR_UNKNOWN (999), the "Unknown Error" above
    (lazyre.compile(r"Failed to initialize NVML: ERROR_(?:DRIVER_NOT_LOADED|LIBRARY_NOT_FOUND)", re.I), NO_DRIVER),
    (lazyre.compile(r"Driver/library version mismatch", re.I), LIB_MISMATCH),
    # drv35: nvidia-smi's start-up failing on a function its own libnvidia-ml lacks (NVML_ERROR_FUNCTION_NOT_FOUND):
    # nvidia-smi and the NVML it loaded are of different driver releases (a stale libnvidia-ml link left by an older
    # driver after a yum update, NVIDIA/nvidia-docker#584), the same state as the mismatch above
    (lazyre.compile(r"Failed to initiali[sz]e NVML: Function Not Found", re.I), LIB_MISMATCH),
    # also nvidia-smi's answer quoted in a sentence: "GPU is currently unavailable in this shell (`nvidia-smi`: No
    # devices were found)" (a status note, heldout/acceptance18 captures)
    # and quoted after a sentence that names nvidia-smi: "`nvidia-smi` in those jobs is `No devices were found`" (a Slurm
    # job given no GPU, heldout/acceptance20 captures)
    (lazyre.compile(r"^[ \t]*No devices were found|nvidia-smi`?[:)]{1,2}[ \t]{0,3}No devices were found"
                    r"|nvidia-smi`?[^\n`\"']{0,80}[`\"']No devices were found[`\"'.]", re.I | re.M), NO_DEVICES),
    (lazyre.compile(r"Failed to initialize NVML: (?:Unknown Error|ERROR_UNKNOWN)", re.I), NVML_UNKNOWN),
    (lazyre.compile(r"Failed to initialize NVML: (?:Insufficient Permissions|GPU access blocked by the operating "
                    r"system|ERROR_NO_PERMISSION)", re.I), NVML_UNKNOWN),
    (lazyre.compile(r"Failed to initialize NVML", re.I), OTHER),
    (lazyre.compile(r"Unable to determine the device handle", re.I), OTHER),
    (lazyre.compile(r"GPU is lost", re.I), OTHER),
]


#: the words (lower case) that start each nvidia-smi / NVML failure text above, one per state (the first line of what
#: nvidia-smi prints instead of its table): a line holding one of them is nvidia-smi's error output, and
#: :func:`classify_error` names its state. The paste readers (``envcheck.paste.readers.smi_error``, ``collect_env``)
#: take a line as nvidia-smi's error output from here: one home for these wordings.
FAILURE_WORDS = ("nvidia-smi has failed", "failed to initialize nvml", "no devices were found",
                 "unable to determine the device handle", "couldn't communicate with the nvidia driver")


#: a Go program's log prefix before "failed to initialize nvml": the standard logger's "2021/08/27 23:03:50 " or klog's
#: "gpumanager.go:31] " (the k8s device plugin, AliyunContainerService/gpushare-device-plugin#36, NVIDIA/gpu-operator#250:
#: "Failed to initialize NVML: could not load NVML library." in the plugin's pod). That is the program's own NVML call in
#: its own container, not nvidia-smi's output: it says nothing of the host's driver or of an nvidia-smi there
_GO_LOGGED_NVML = lazyre.compile(r"(?:\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?|[\w.-]{1,80}\.go:\d{1,6}\])"
                                 r"[ \t]{1,4}failed to initiali[sz]e nvml")


def failure_line(low: str) -> bool:
    """Whether a line (lower-cased) is nvidia-smi's / NVML's error output (:data:`FAILURE_WORDS`); a Go program's
    logged NVML failure (:data:`_GO_LOGGED_NVML`) is not."""
    return any(w in low for w in FAILURE_WORDS) and not _GO_LOGGED_NVML.search(low)


def classify_error(text: str) -> "tuple[Optional[str], Optional[str]]":
    """(error kind, the line that says so) for an nvidia-smi / NVML failure text, else (None, None). A Go program's
    logged NVML failure (:data:`_GO_LOGGED_NVML`: the k8s device plugin's "2021/08/27 23:03:50 Failed to initialize
    NVML: could not load NVML library." in its pod) is not nvidia-smi's error: a capture holding only such lines is not
    read as nvidia-smi failing on the machine (attack39: a snapshot's nvidia-smi.txt holding the plugin's log was
    said to be nvidia-smi failing, "install the NVIDIA driver")."""
    for rx, kind in _ERRORS:
        pos = 0
        m = rx.search(text)
        while m:
            start = text.rfind("\n", pos, m.start()) + 1 or pos
            end = text.find("\n", m.end())
            end = end if end != -1 else len(text)
            line = text[start:end].strip()
            if not _GO_LOGGED_NVML.search(line[:400].lower()):
                return kind, line[:300]
            pos = end  # the next line holding this wording may be nvidia-smi's own (each line looked at once)
            m = rx.search(text, pos)
    return None, None


# | NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
# | NVIDIA-SMI 384.81                 Driver Version: 384.81                    |
# | NVIDIA-SMI 510.60.02    Driver Version: 512.15       CUDA Version: 11.6     |   (WSL2)
_HEADER_SMI = lazyre.compile(r"NVIDIA-SMI\s+(\d+(?:\.\d+){1,3})")
# R610+: "| NVIDIA-SMI 610.43.02   KMD Version: 610.43.02   CUDA UMD Version: 13.3   |"
# (not deviceQueryDrv's "CUDA Driver Version:   12.2", which is the driver's CUDA, not its version)
#: (nor another tool's "Driver Version:" line: dxdiag's Windows file version "9.18.13.1422", system_profiler's "EFI Driver
#: Version: 01.01.114" - an NVIDIA driver's version is "535.104.05", "384.81": three digits, then one or two parts)
_HEADER_DRIVER = lazyre.compile(r"(?<!CUDA )(?<!EFI )(?:Driver|KMD) Version:[ \t]*([1-9]\d{1,2}(?:\.\d{1,3}){1,2})(?![\d.])")
_HEADER_CUDA = lazyre.compile(r"CUDA (?:UMD )?Version:[ \t]*(\d+\.\d+)")
_HEADER_PLACEHOLDER = lazyre.compile(r"NVIDIA-SMI[ \t]+\d{2,3}\.[xX]{1,3}(?:\.[xX]{1,3})?[ \t]+Driver Version:[ \t]*\d{2,3}\.[xX]")
# "CUDA Version: N/A" (vGPU host, Jetson), "CUDA Version: ERR!" (WSL2 with a broken libcuda)
_HEADER_CUDA_NA = lazyre.compile(r"CUDA (?:UMD )?Version:[ \t]*(N/A|ERR!|Not Found)", re.I)
# a header narrowed by hand to fit a page ("|NVIDIA-SMI 580.105.08   Driver Ver:580.105.08   CUDA Ver: 13.0   |"): the
# two fields abbreviated, read on the NVIDIA-SMI line only (nowhere else is "Ver:" a driver's)
_HEADER_ABBR_DRIVER = lazyre.compile(r"\bDriver Ver:[ \t]*(\d+(?:\.\d+){1,3})")
_HEADER_ABBR_CUDA = lazyre.compile(r"\bCUDA Ver:[ \t]*(\d+\.\d+)")
_BUS_ID = lazyre.compile(r"\b[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\b")
# first cell of a GPU row: "   0  NVIDIA A100-SXM4-40GB          On  " (persistence On/Off; WDDM/TCC on Windows)
# (the trailing persistence / driver-model word is split off in code: a lazy name followed by optional
#  groups backtracks cubically on long cells)
# (the 2012 layout, drivers 2xx: "| 0.  GeForce GTX 550 Ti        | 0000:01:00.0  N/A    |", Markdown-escaped "0\.")
_GPU_CELL = lazyre.compile(r"^\s*(\d{1,3})(?:\\?\.)?\s+(\S(?:.*\S)?)\s*$")
_GPU_MODE = ("On", "Off", "WDDM", "TCC", "N/A")
# "1MiB /  81559MiB"; the 2012 layout wrote "577MB / 1023MB"
_MEM = lazyre.compile(r"(?<!\d)(\d+)\s*Mi?B\s*/\s*(\d+)\s*Mi?B")
_SEPARATOR = lazyre.compile(r"^\s*[+|][-=+|\s]*[+|]\s*$")
# Jetson's (Tegra) table: "|   0  Orin (nvgpu)                  N/A  | N/A              N/A |" (no bus id, no
# memory: "Not Supported"); one integrated GPU
_TEGRA_BUS = lazyre.compile(r"^\s*N/A\s+N/A\s*$")
_MIG_ROW = lazyre.compile(r"^\|\s*\d+\s+\d+\s+\d+\s+\d+\s*\|")


# "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"
# "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error"   (no space)
# "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot the system to recover this GPU"
# (Windows: "Unable to detect the device handle for GPU0000:B1:00.0: Unknown Error")
# "Unable to determine the device handle for ******: Unknown Error"   (bus id masked by the poster)
_HANDLE = lazyre.compile(r"Unable to (?:determine|detect) the device handle for(?: GPU)?", re.I)
_HANDLE_BUS = lazyre.compile(r"[ \t]*([0-9A-Fa-f]{3,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])")
_LOST = ("gpu is lost", "fallen off the bus")
# what a shell or the C runtime prints when nvidia-smi itself dies (plain substrings of the lower-cased
# text: a regex alternation costs a second per megabyte of hostile input)
_CRASH = ("segmentation fault", "core dumped", "bus error", "illegal instruction", "stack smashing detected",
          "terminate called after")
_ABORTED = lazyre.compile(r"^[ \t]*Aborted\b", re.M)
#: a GPU-name cell that is an error marker, not a name
_ERR_NAMES = {"err!", "[unknown error]", "unknown error", "[gpu is lost]"}


def _faults(text: str, low: str) -> List[SmiFault]:
    out: List[SmiFault] = []
    if "device handle" not in low:
        return out
    for m in _HANDLE.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start: end if end != -1 else len(text)].strip()[:300]
        bus = _HANDLE_BUS.match(text, m.end(), min(len(text), m.end() + 40))
        out.append(SmiFault(bus_id=bus.group(1) if bus else None, text=line))
        if len(out) >= 64:
            break
    return out


def _gpu_row(lines: List[str], i: int, cells: List[str]) -> "Optional[Tuple[SmiGpu, bool]]":
    """The GPU whose first row is ``lines[i]`` (split into ``cells``), and whether its block was closed by a
    border line; None when the row is not a GPU's first row."""
    gm = _GPU_CELL.match(cells[0])
    if not gm:
        return None
    line = lines[i]
    cell = gm.group(2).strip()
    words = cell.rsplit(None, 1)
    if len(words) == 2 and words[1] in _GPU_MODE:
        cell = words[0].rstrip()
    name: Optional[str] = cell
    fault = None
    if cell.lower() in _ERR_NAMES:
        name, fault = None, line.strip()[:300]
    bus = _BUS_ID.search(cells[1])
    mem = None
    mig = None
    closed = False
    if len(cells) > 3:  # the GPU's rows joined into one line (a table unfolded from one line: _unfold_table)
        mm = _MEM.search("|".join(cells[2:]))
        mem = small_int(mm.group(2)) if mm else None
        mig = {"Enabled": True, "Disabled": False}.get(cells[-1].strip())
    j = i + 1
    while j < len(lines) and j <= i + 4:
        if _SEPARATOR.match(lines[j]) and ("-" in lines[j] or "=" in lines[j]):
            closed = True  # a border; a row of blank cells ("|    |    |", a paste cut there) is not one
            break
        if _BUS_ID.search(lines[j]) or "NVIDIA-SMI" in lines[j]:
            break  # the next GPU's row, or the next frame's header: this block was cut before its border
        mm = _MEM.search(lines[j])
        if mm and mem is None:
            mem = small_int(mm.group(2))
        last = lines[j].strip().strip("|").split("|")[-1].strip()
        if last in ("Enabled", "Disabled"):
            mig = last == "Enabled"
        j += 1
    return (SmiGpu(index=int(gm.group(1)), name=name, memory_total_mib=mem, bus_id=bus.group(0) if bus else None,
                   mig_enabled=mig, fault=fault), closed)


# a GPU row of a table shortened by hand to its name and memory, below the banner without its box ("NVIDIA-SMI
# 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0" / "NVIDIA L4    0MiB / 23034MiB": a setup note's
# "Output of `nvidia-smi` on first boot", heldout/acceptance18 captures); no bus id, no index, no box
_SUMMARY_ROW = lazyre.compile(r"^[ \t]*((?:NVIDIA|Tesla|GeForce|Quadro|TITAN)\b[^|\n]{0,60}?\S)[ \t]{2,}"
                              r"(\d{1,7})[ \t]?MiB[ \t]{0,3}/[ \t]{0,3}(\d{1,7})[ \t]?MiB[ \t]*$", re.M)


# the same cut to one boxed line per GPU, its index kept ("|   0  NVIDIA L40S    0MiB / 46068MiB    0%        |" under
# "| NVIDIA-SMI 580.126.09    CUDA Version: 13.0      |": a Kubernetes note's two-line table, heldout/acceptance21)
_BOXED_SUMMARY_ROW = lazyre.compile(r"^[ \t]*\|[ \t]{0,6}(\d{1,2})[ \t]{1,6}((?:NVIDIA|Tesla|GeForce|Quadro|TITAN)\b[^|\n]{0,60}?\S)"
                                    r"[ \t]{2,}(\d{1,7})[ \t]?MiB[ \t]{0,3}/[ \t]{0,3}(\d{1,7})[ \t]?MiB\b[^|\n]{0,40}\|[ \t]*$",
                                    re.M)


# a row condensed by hand to one line that keeps its index and the cells after the name ("GPU 0  Quadro RTX 4000  WDDM
# | 00000000:01:00.0 | 30% 36C P8 2W/125W | 2MiB / 8192MiB | 0% Default" under the box-less banner: a Windows setup
# note, heldout/acceptance23); the memory is the "used / total" pair of its cells
_CONDENSED_ROW = lazyre.compile(r"^[ \t]*(?:GPU[ \t]{1,3})?(\d{1,2})[ \t]{1,6}((?:NVIDIA|Tesla|GeForce|Quadro|TITAN)\b"
                                r"[^|\n]{0,60}?\S)[ \t]{2,}(?:(?:WDDM|TCC|On|Off|N/A)[ \t]{0,6})?\|[^\n]{0,200}?\b(\d{1,7})[ \t]?MiB"
                                r"[ \t]{0,3}/[ \t]{0,3}(\d{1,7})[ \t]?MiB\b", re.M)


# a summary written by hand under the banner's lines, one "GPU N: NAME" line a GPU (no UUID: not ``nvidia-smi -L``) and
# its memory on a line of its own after it ("NVIDIA-SMI 535.183.01 / Driver Version: 535.183.01 / CUDA Version: 12.2 /
# GPU 0: NVIDIA GeForce RTX 4090 / Memory: 24564 MiB": an agent's feasibility report, heldout/acceptance25)
_KEYED_GPU = lazyre.compile(r"^[ \t>*-]{0,6}GPU[ \t]{0,2}(\d{1,2})[ \t]{0,2}:[ \t]{1,4}((?:NVIDIA|Tesla|GeForce|Quadro|TITAN)\b"
                            r"[^\n(|,]{0,60}?\S)[ \t]*$")
_KEYED_MEMORY = lazyre.compile(r"^[ \t>*-]{0,6}(?:Memory|VRAM|Total Memory|Memory Total|FB Memory)[ \t]{0,2}:[ \t]{0,4}"
                               r"(\d{1,7})[ \t]?MiB[ \t]*$", re.I)


def _keyed_rows(text: str) -> List[SmiGpu]:
    """The GPUs of a hand summary's "GPU N: NAME" lines (:data:`_KEYED_GPU`), each with the "Memory: N MiB" line that
    follows it before the next GPU line, if any; indexes in order from 0, else none (at most 64)."""
    out: List[SmiGpu] = []
    for line in text.split("\n", 20000)[:20000]:
        m = _KEYED_GPU.match(line)
        if m:
            out.append(SmiGpu(index=int(m.group(1)), name=m.group(2).strip()))
            if len(out) >= 64:
                break
            continue
        mem = _KEYED_MEMORY.match(line) if out and out[-1].memory_total_mib is None else None
        if mem:
            out[-1] = replace(out[-1], memory_total_mib=small_int(mem.group(1)))
    return out if [g.index for g in out] == list(range(len(out))) else []


def _summary_rows(text: str) -> List[SmiGpu]:
    """The GPUs of a hand-shortened table, in order (:data:`_SUMMARY_ROW`: box-less, numbered in order;
    :data:`_BOXED_SUMMARY_ROW`: one boxed line each, with its index; :data:`_CONDENSED_ROW`: one line each with its
    index and cells; else a summary's "GPU N: NAME" lines, :func:`_keyed_rows`); at most 64."""
    out: List[SmiGpu] = []
    for m in _SUMMARY_ROW.finditer(text):
        out.append(SmiGpu(index=len(out), name=m.group(1).strip(), memory_total_mib=small_int(m.group(3)),
                          bus_id=None, mig_enabled=None, fault=None))
        if len(out) >= 64:
            return out
    for rx in (_BOXED_SUMMARY_ROW, _CONDENSED_ROW):
        for m in rx.finditer(text) if not out else ():
            out.append(SmiGpu(index=int(m.group(1)), name=m.group(2).strip(), memory_total_mib=small_int(m.group(4)),
                              bus_id=None, mig_enabled=None, fault=None))
            if len(out) >= 64:
                break
    return out or _keyed_rows(text)


#: a log collector's timestamp before each line (`docker logs -t`, `kubectl logs --timestamps`, Azure's
#: `az containerapp exec`: "2024-06-25T18:45:27.095437505Z |   0  NVIDIA A100 ..."), its first digits cut off where the
#: copy began mid-word ("024-06-25T18:45:27...")
_STAMP = lazyre.compile(rf"\d{{1,4}}-\d\d-\d\d[T ]{log_stamp.TIME}[ \t]+(?=[|+])")


def unprefix_table_line(line: str) -> str:
    """A table line written behind a comment or quote mark ("# |   0  NVIDIA ...", "> +----+", a script's or a
    Markdown quote's copy of the table) or a log collector's timestamp, without it; any other line as it is."""
    s = line.lstrip(" \t")
    if s[:1] in ("#", ">"):
        t = s.lstrip("#> \t")
        if t[:1] in ("|", "+"):
            return t
    elif s[:1].isdigit() and len(s) > 20:
        m = _STAMP.match(s)
        if m:
            return s[m.end():]
    return line


def _table_rows(lines: List[str], header: bool) -> "Tuple[List[SmiGpu], int, Optional[bool]]":
    """(GPU rows, MIG device rows, whether the last GPU block was closed) of the table's lines."""
    gpus: List[SmiGpu] = []
    mig_devices = 0
    section = "gpus"
    last_closed: Optional[bool] = None
    again = False  # a second frame began (a driver header after GPU rows): its rows repeat the first frame's
    seen: Set[int] = set()
    for i, line in enumerate(lines):
        if "|" not in line:  # every table row, section title and border holds one; skip the rest cheaply
            continue
        low = line.lower()
        if "mig devices" in low:
            section = "mig"
        elif "processes:" in low:
            section = "processes"
        elif "driver version" in low or "kmd version" in low:
            section = "gpus"  # the next frame of a `watch` / `-l` capture after the last one's process table
            again = again or bool(gpus)
        if section == "mig" and _MIG_ROW.match(line):
            mig_devices += 1
        if section != "gpus" or not line.lstrip().startswith("|"):
            continue
        cells = line.strip().strip("|").split("|")
        if len(cells) >= 2 and (_BUS_ID.search(cells[1]) or _tegra_row(cells, header)):
            row = _gpu_row(lines, i, cells)
            if row and not (again and row[0].index in seen):  # a later frame repeats the rows: keep the first
                gpus.append(row[0])
                seen.add(row[0].index)
                last_closed = row[1]
    return gpus, mig_devices, last_closed


def _tegra_row(cells: List[str], header: bool) -> bool:
    """Is this row a Jetson's (Tegra) GPU row ("|   0  Orin (nvgpu)   N/A  | N/A   N/A |")? Under the driver's
    header, or without it where the name says so (an excerpt of the two rows)."""
    return bool(_TEGRA_BUS.match(cells[1])) and (header or "(nvgpu)" in cells[0])


def _complete(gpus: List[SmiGpu], faults: List[SmiFault], header: bool, last_closed: Optional[bool],
              no_devices: bool) -> Optional[bool]:
    """Whether ``gpus`` (plus ``faults``) is the whole list: the driver header, rows 0..n-1 (a faulty GPU
    nvidia-smi could not open may leave a gap), and the last GPU block closed by its border line."""
    if no_devices:
        return True
    if gpus and header:
        idx = sorted({g.index for g in gpus})
        gaps = (idx[-1] + 1) - len(idx)
        return bool(last_closed) and idx[0] >= 0 and gaps <= len(faults)
    if gpus or header:
        return False  # GPU rows without the header (an excerpt), or a header without GPU rows (a fragment)
    return None


def _table_state(text: str, lowered: str, error: Optional[str], faults: List[SmiFault], gpus: List[SmiGpu],
                 no_devices: bool, answered: bool) -> Optional[str]:
    if error in (NO_DRIVER, LIB_MISMATCH):
        return error
    if faults or any(g.fault for g in gpus) or any(x in lowered for x in _LOST):
        return FAULTY_GPU
    if error == NVML_UNKNOWN:
        return NVML_UNKNOWN
    if no_devices:
        return NO_DEVICES
    if answered:
        return "ok"
    if any(x in lowered for x in _CRASH) or ("aborted" in lowered and _ABORTED.search(text)):
        return CRASHED
    return FAILED if text.strip() else None


#: ``SmiTable.cuda_unavailable`` of ``nvidia-smi vgpu``'s table: a vGPU host (hypervisor) driver, which runs no CUDA
#: itself (its plain table prints "CUDA Version: N/A"); its vgpu table has no CUDA field at all
VGPU_HOST = "none: a vGPU host driver (nvidia-smi vgpu)"
# the second header row of ``nvidia-smi vgpu``: "|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |"
_VGPU_HEADER = lazyre.compile(r"^[ \t]*\|[ \t]+vGPU ID[ \t]+Name[ \t]*\|[ \t]*VM ID\b", re.M)


def _cuda_unavailable(text: str) -> Optional[str]:
    """What stands where a CUDA version would (the "CUDA Version" field's N/A / ERR! / Not Found, or a vGPU host's
    vgpu table), for a table that printed no CUDA version; None when nothing says the driver's CUDA is unavailable."""
    m = _HEADER_CUDA_NA.search(text)
    if m:
        return str(m.group(1))
    return VGPU_HOST if "vGPU ID" in text and _VGPU_HEADER.search(text) else None


#: ``SmiTable.cuda_unavailable`` of a table whose header line was cut before its CUDA field ended
HEADER_CUT = "the header line cut before its CUDA field"


def _header_cut(text: str, m_drv: "Optional[re.Match[str]]") -> Optional[str]:
    """:data:`HEADER_CUT` where the header line holding the driver's version is cut (a table's line that opens with
    its border and does not close with it, or a "CUDA" word without its version: "... Driver Version: 550.40.07   CUDA"):
    the header was cut where the CUDA field stands (410.48's header has none and closes with its border), so the CUDA is
    unknown, never derived from the driver's version."""
    if m_drv is None:
        return None
    end = text.find("\n", m_drv.end())
    rest = text[m_drv.end(): end if end != -1 else len(text)].rstrip()
    line = text[text.rfind("\n", 0, m_drv.start()) + 1: m_drv.end()] + rest
    if "CUDA" in rest or (line.lstrip().startswith("|") and not rest.endswith("|")):
        return HEADER_CUT
    return None


def _first_machine(text: str) -> str:
    """The text up to a second table header naming another driver: two machines' tables pasted one after the other
    (two nodes of a report) are not one machine - the first one is read, not a merge of both."""
    first = _HEADER_DRIVER.search(text)
    if first is None:
        return text
    for m in _HEADER_DRIVER.finditer(text, first.end()):
        if m.group(1) != first.group(1):
            return text[: text.rfind("\n", 0, m.start()) + 1]
    return text


def _border_token(t: str) -> bool:
    """Is ``t`` (a word of a line) a border of the table: "+-----+", "|-----+-----|", "|=====|"?"""
    return len(t) >= 12 and t[0] in "+|" and t[-1] in "+|" and not t[1:-1].strip("-=+")


def _unfold_table(text: str) -> str:
    """The text with a table that was joined into one line (its borders, its header and its rows on one line: "...
    nvidia-smi Tue Aug 6 10:29:16 2024 +----+ | NVIDIA-SMI 535.104.05 Driver Version: ... | |----+---+ | GPU Name ...",
    a renderer's: an issue digest, a chat) broken at its borders, each border on a line of its own, so that each GPU's
    rows are one line between two borders; any other line as it is. One split of the line into words: linear."""
    if "NVIDIA-SMI" not in text:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) > 300 and "NVIDIA-SMI" in line and line.count("|") >= 12 and line.count("---") >= 3:
            words = line[:100000].split()
            line = " ".join("\n" + w + "\n" if _border_token(w) else w for w in words).replace(" \n", "\n").replace(
                "\n ", "\n")
        out.append(line)
    return "\n".join(out)


def _table_lines(text: str) -> List[str]:
    """The lines of the table (each opens with "|" or "+", behind a comment or quote mark undone): what stands between
    them (a log's timestamp line before each, blank lines) does not part a GPU's rows from its border."""
    lines = (unprefix_table_line(ln) for ln in text.splitlines())
    return [ln for ln in lines if ln.lstrip(" \t")[:1] in ("|", "+")]


def _abbreviated_header(text: str, m_smi: "Optional[re.Match[str]]") -> "Tuple[Optional[str], Optional[str]]":
    """(driver, CUDA) of a hand-narrowed header line ("Driver Ver:", "CUDA Ver:"), read on the NVIDIA-SMI line."""
    if m_smi is None:
        return None, None
    end = text.find("\n", m_smi.end())
    line = text[m_smi.start(): end if end != -1 else len(text)][:300]
    d, c = _HEADER_ABBR_DRIVER.search(line), _HEADER_ABBR_CUDA.search(line)
    return (d.group(1) if d else None), (c.group(1) if c else None)


@gpu_list
def parse_table(text: Optional[str]) -> SmiTable:
    """Parse ``nvidia-smi`` (no arguments). Never raises."""
    if not text:
        return SmiTable()
    text = _unfold_table(_first_machine(clean_capture(text)))
    m_smi = _HEADER_SMI.search(text)
    m_drv = _HEADER_DRIVER.search(text)
    m_cuda = _HEADER_CUDA.search(text)
    # a guide's expected output with placeholder versions ("NVIDIA-SMI 580.xx.xx  Driver Version: 580.xx.xx"): the
    # banner is there (the rows below it are the whole table), its numbers are not (unknown, never a guess)
    placeholder = None if (m_smi or m_drv) else _HEADER_PLACEHOLDER.search(text)
    abbr_drv, abbr_cuda = _abbreviated_header(text, m_smi) if not m_drv else (None, None)
    error, error_line = (None, None) if (m_drv or abbr_drv) else classify_error(text)
    gpus, mig_devices, last_closed = _table_rows(_table_lines(text), bool(m_smi))
    if not gpus and (m_drv and "|" not in text[m_drv.start():m_drv.end() + 40] or m_smi and not m_drv):
        gpus = _summary_rows(text)
        last_closed = None  # a hand-shortened table says nothing of what it left out
    no_devices = error == NO_DEVICES
    if m_drv and not gpus and error is None:
        kind, why = classify_error(text)
        if kind == NO_DEVICES:
            error, error_line, no_devices = kind, why, True
    lowered = text.lower()
    faults = _faults(text, lowered)
    complete = _complete(gpus, faults, bool(m_drv or m_smi or placeholder), last_closed, no_devices)
    state = _table_state(text, lowered, error, faults, gpus, no_devices, bool(m_drv or gpus or m_smi or placeholder))
    if state == FAULTY_GPU and error is None and not m_drv:
        error = OTHER
        error_line = faults[0].text if faults else error_line
    cuda = m_cuda.group(1) if m_cuda else abbr_cuda
    return SmiTable(
        smi_version=m_smi.group(1) if m_smi else None,
        driver_version=m_drv.group(1) if m_drv else abbr_drv,
        cuda_version=cuda,
        cuda_unavailable=None if cuda else (_cuda_unavailable(text) or _header_cut(text, m_drv)),
        gpus=gpus,
        mig_devices=mig_devices,
        error=error,
        error_line=error_line,
        faults=faults,
        gpus_complete=complete,
        state=state,
    )


def smi_state(table: SmiTable, status: str, detail: str = "", returncode: Optional[int] = None) -> Optional[str]:
    """The state of one nvidia-smi run from its parsed text and its capture status (``ok``,
    ``not-found``, ``failed``, ``timed-out``, ``unreadable``) and detail ("killed by signal SIGSEGV").
    ``None`` when nvidia-smi was not found / not captured."""
    if status == TIMED_OUT:
        return TIMED_OUT
    if status not in ("ok", "failed"):
        return None
    killed = (returncode is not None and (returncode < 0 or returncode in (128 + 4, 128 + 6, 128 + 7, 128 + 8,
                                                                            128 + 11))) \
        or "killed by signal" in detail
    if table.state in (None, FAILED, CRASHED) and (killed or table.state == CRASHED):
        return CRASHED
    if table.state is None:
        return FAILED if status == "failed" else None
    return table.state


@dataclass(frozen=True)
class QueryGpu:
    """One GPU's row of ``nvidia-smi --query-gpu=... --format=csv``."""

    index: Optional[int]
    name: Optional[str]
    driver_version: Optional[str] = None
    compute_capability: Optional[str] = None
    memory_total_mib: Optional[int] = None
    mig_enabled: Optional[bool] = None  # the ``mig.mode.current`` column


@dataclass(frozen=True)
class SmiQuery:
    """What ``nvidia-smi --query-gpu`` said: its GPUs, or why none could be read."""

    gpus: List[QueryGpu] = field(default_factory=list)
    error: Optional[str] = None
    error_line: Optional[str] = None


# a header row: comma-separated query field names, e.g. "index, name, memory.total [MiB]" or just
# "compute_cap" (field order is the caller's choice; the first field need not be index or name)
_FIELD = lazyre.compile(r"^[A-Za-z][A-Za-z0-9_.]*(?:\s+\[[^\]]*\])?$")
_KNOWN_FIELDS = {"index", "name", "driver_version", "compute_cap", "memory.total", "mig.mode.current"}


#: fields of ``--query-compute-apps`` that ``--query-gpu`` has not: a header naming one is a list of processes, its
#: rows processes ("0, python, 79456" under "index, name [MiB], used_memory [MiB]" is no GPU named "python")
_PROCESS_FIELDS = {"pid", "process_name", "used_memory", "used_gpu_memory"}


def _is_header(line: str) -> bool:
    """A header names its fields as they were queried (a known one among them); one field alone only as nvidia-smi
    prints it, in lower case: a man page's "NAME" section heading is no header, nor its lines GPU names (attack49).
    A ``--query-compute-apps`` header (a process field among its fields) is none either."""
    cells = _unelided([c.strip() for c in line.split(",")])
    if len(cells) == 1 and cells[0] != cells[0].lower():
        return False
    if any(c.split(" ")[0].lower() in _PROCESS_FIELDS for c in cells):
        return False
    return (all(_FIELD.match(c) for c in cells)
            and any(c.split(" ")[0].lower() in _KNOWN_FIELDS for c in cells))


def _unelided(cells: List[str]) -> List[str]:
    """The cells without a last one of "..." (a guide's header and row cut with ", ...": the columns left out)."""
    return cells[:-1] if len(cells) > 2 and cells[-1] in ("...", "\u2026") else cells


#: a digit run in a log collector's line prefix (its timestamps change from line to line)
_DIGITS = lazyre.compile(r"\d{1,12}")
#: where a --query-gpu header may start inside a prefixed line: a known field's name followed by a comma
_HEADER_START = lazyre.compile(r"(?:^|[ \t\]|>])((?:index|name|gpu_name|driver_version|pci\.bus_id|uuid|gpu_uuid|"
                               r"memory\.total|compute_cap|count)[ \t]{0,3}(?:\[[^\],]{1,12}\])?[ \t]{0,3},)")


def _prefixed_header(lines: List[str]) -> "Optional[Tuple[int, re.Pattern[str]]]":
    """(index, prefix pattern) of a header written behind the same log prefix as every line around it (a batch
    system's "2021-03-12 05:02:21.931 [129/start/1341 (pid 5161)] [931bbcf6-...] index, name, ..."): the prefix's text,
    its digit runs free, must open the header's line; rows are the lines after it with a prefix of that shape."""
    for n, ln in enumerate(lines[:400]):
        m = _HEADER_START.search(ln[:240])
        if m is None or m.start(1) == 0 or not _is_header(ln[m.start(1):]):
            continue
        prefix = ln[:m.start(1)]
        parts, pos = [], 0
        for d in _DIGITS.finditer(prefix):
            parts.append(re.escape(prefix[pos:d.start()]) + r"\d{1,12}")
            pos = d.end()
        parts.append(re.escape(prefix[pos:]))
        return n, re.compile("".join(parts))
    return None


_NA = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]"}


def _cell(v: Optional[str]) -> Optional[str]:
    if v is None:
        return None
    v = v.strip()
    return None if v.lower() in _NA else v


def is_query_header(line: str) -> bool:
    """Is ``line`` the header row of ``--query-gpu ... --format=csv`` ("index, name, memory.total [MiB]")?"""
    return "," in line and _is_header(line) or line.strip().lower() in _KNOWN_FIELDS


# the cells of a header-less row (--format=csv,noheader), each known by its shape alone; a row with a cell of any
# other shape (a temperature, a clock, a mode) is not read: which field it is cannot be told
_SHAPES = (
    ("index", lazyre.compile(r"^\d{1,3}$")),
    ("driver_version", lazyre.compile(r"^\d{3}\.\d{1,3}(?:\.\d{1,3})?$")),
    ("compute_cap", lazyre.compile(r"^\d{1,2}\.\d$")),
    ("memory.total", lazyre.compile(r"^\d{2,7} MiB$")),
    ("pci.bus_id", lazyre.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")),
    ("uuid", lazyre.compile(r"^(?:GPU|MIG)-[0-9A-Fa-f-]{8,}$")),
    ("name", lazyre.compile(r"^(?:NVIDIA|GeForce|Tesla|Quadro|TITAN|Titan|RTX|GRID|Orin|Jetson|Xavier)\b[\w ./()-]{0,60}$|"
                            r"^[AHLTVPK]\d{1,3}(?:[ -][\w ./()-]{0,40})?$")),
)


#: cells a header-less row may hold besides the shaped ones, known by their unit and never a field the GPU list reads
#: (power.draw / power.limit "300.00 W", a clock "1755 MHz", a utilization "34 %"); they may repeat
_UNIT_CELL = lazyre.compile(r"^\d{1,5}(?:\.\d{1,2})?[ \t]?(?:W|MHz|%)$")


def _row_by_shape(line: str) -> Optional[QueryGpu]:
    cells = [c.strip() for c in line.split(",")]
    if len(cells) < 2 or len(cells) > 24:
        return None
    row: Dict[str, str] = {}
    for k, c in enumerate(cells):
        if c.lower() in _NA or (k and _UNIT_CELL.match(c)):
            continue
        kind = next((name for name, rx in _SHAPES if rx.match(c)), None)
        if kind is None or kind in row or (kind == "index" and k != 0):
            return None  # a cell of another shape, a shape twice, a number that is not first: not certain
        row[kind] = c
    if "name" not in row:
        return None
    mem = row.get("memory.total")
    return QueryGpu(index=small_int(row["index"]) if "index" in row else None, name=row["name"],
                    driver_version=row.get("driver_version"), compute_capability=row.get("compute_cap"),
                    memory_total_mib=small_int(mem.split()[0]) if mem else None)


_SHAPED = {"index", "driver_version", "compute_cap", "memory.total", "pci.bus_id", "uuid"}


@gpu_list
def parse_query_rows(text: Optional[str]) -> SmiQuery:
    """Rows of ``--query-gpu ... --format=csv,noheader`` read by the shape of each cell (a GPU's name, a driver
    "580.159.04", a compute capability "9.0", "81559 MiB", a bus id, a UUID, a leading index); every line must be
    such a row. Never raises."""
    gpus: List[QueryGpu] = []
    for ln in (text or "").splitlines()[:257]:
        if not ln.strip():
            continue
        g = _row_by_shape(ln)
        if g is None:
            return SmiQuery()
        gpus.append(g)
    return SmiQuery(gpus=gpus)


# a cell a GPU row must hold where its column is queried: an index is a number, memory a number (with or without
# its unit); a line whose cell is not (prose after the block: "Driver 610.88, CUDA UMD 13.3, ...", a `top` header
# "top - 23:48:46 up 14 days,  5:00, ...") is not a row of this CSV
_ROW_CELL = {"index": lazyre.compile(r"^\w{1,4}$"), "memory.total": lazyre.compile(r"^\d{1,9}(?:\s|$)")}


def _csv_parts(line: str, cols: List[str]) -> Optional[List[str]]:
    """The cells of a row under ``cols``, a GPU name holding a comma glued back; None when the line is not a row."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) < len(cols):
        return None
    if len(parts) > len(cols) and "name" in cols:
        k = cols.index("name")
        extra = len(parts) - len(cols)
        parts = parts[:k] + [", ".join(parts[k:k + extra + 1])] + parts[k + extra + 1:]
    for col, rx in _ROW_CELL.items():
        if col in cols:
            v = parts[cols.index(col)]
            if v.lower() not in _NA and not (rx.match(v) and (col != "index" or v.isdigit())):
                return None
    return parts


def is_query_row(header: str, line: str) -> bool:
    """Is ``line`` a row of the ``--query-gpu`` CSV whose header row is ``header`` (its cells where the header's
    columns want them: a GPU's index a number, its memory a size)?"""
    cols = [c.strip().split(" ")[0].lower() for c in header.split(",")]
    parts = _csv_parts(line, cols) if "," in line else None
    if parts is None:
        return False
    shapes = dict(_SHAPES, **{"memory.total": _ROW_CELL["memory.total"]})  # "23028 MiB", or "23028" (nounits)
    shaped = [(shapes[col], v) for col, v in zip(cols, parts) if col in _SHAPED and v.lower() not in _NA]
    # a cell of a column whose values have a shape (index, driver, compute capability, memory, bus id, UUID) must
    # have it, and one such cell at least must be there: prose with commas under a "name, ..." header is no row
    return bool(shaped) and all(rx.match(v) for rx, v in shaped)


def _csv_gpu(row: Dict[str, str]) -> QueryGpu:
    idx = _cell(row.get("index"))
    mem = _cell(row.get("memory.total"))
    mem_m = re.match(r"^(\d+)", mem or "")
    cc = _cell(row.get("compute_cap"))
    if cc is not None and not re.match(r"^\d+\.\d+$", cc):
        cc = None
    drv = _cell(row.get("driver_version"))
    if drv is not None and not re.match(r"^\d+(\.\d+){1,3}$", drv):
        drv = None
    mig = {"enabled": True, "disabled": False}.get((_cell(row.get("mig.mode.current")) or "").lower())
    return QueryGpu(index=small_int(idx), name=_cell(row.get("name")), driver_version=drv, compute_capability=cc,
                    memory_total_mib=small_int(mem_m.group(1)) if mem_m else None, mig_enabled=mig)


#: the command line of a header-less CSV pasted with its output: ``$ nvidia-smi --query-gpu=compute_cap
#: --format=csv,noheader`` (the fields it names are the columns of the rows below it)
_QUERY_CMD = lazyre.compile(r"nvidia-smi(?:\.exe)?\b[^\n]{0,200}?--query-gpu[= ]\s{0,2}([A-Za-z0-9_.,]{1,400})")


def _rows_of_command(lines: List[str]) -> SmiQuery:
    """Rows under a pasted ``nvidia-smi --query-gpu=F1,F2 --format=csv,noheader`` line, columns from the fields it
    names; every cell of a column with a shape (index, compute capability, memory, ...) must have it, and one such
    cell at least must be there. Up to the first line that is not a row."""
    at = next((n for n, ln in enumerate(lines[:64]) if "--query-gpu" in ln and "noheader" in ln), None)
    m = _QUERY_CMD.search(lines[at]) if at is not None else None
    if at is None or m is None:
        return SmiQuery()
    cols = [c.strip().lower() for c in m.group(1).split(",") if c.strip()]
    shapes = dict(_SHAPES, **{"memory.total": _ROW_CELL["memory.total"]})
    gpus: List[QueryGpu] = []
    for ln in lines[at + 1:at + 258]:
        parts = _csv_parts(ln, cols)
        if parts is None or not _shaped_row(cols, parts, shapes):
            break
        gpus.append(_csv_gpu(dict(zip(cols, parts))))
    return SmiQuery(gpus=gpus or _md_rows_of_command(lines[at + 1:at + 64], cols, shapes))


def _shaped_row(cols: List[str], parts: List[str], shapes: Dict[str, "re.Pattern[str]"]) -> bool:
    """Are ``parts`` one row under ``cols``: as many cells, at least one cell of a column with a shape (index, driver,
    compute capability, memory, bus id, UUID), and every such cell in its shape?"""
    shaped = [(shapes[c], v) for c, v in zip(cols, parts) if c in _SHAPED and v.lower() not in _NA]
    return len(parts) == len(cols) and bool(shaped) and all(rx.match(v) for rx, v in shaped)


#: the separator row of a Markdown table ("| --- | :---: |")
_MD_SEPARATOR = lazyre.compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|){1,40}[ \t]*(?::?-{3,}:?[ \t]*)?$")


def _md_cells(line: str) -> List[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _md_rows_of_command(lines: List[str], cols: List[str], shapes: Dict[str, "re.Pattern[str]"]) -> List[QueryGpu]:
    """The rows of the first Markdown table after a ``--query-gpu`` command line whose columns are as many as the fields
    it names (its output retold as a table: "| GPU | Name | Driver | VRAM |" over "| 0 | NVIDIA GeForce RTX 5090 |
    591.86 | 32607 MiB |", heldout/acceptance25); every shaped cell must have its shape, as in the CSV. None where
    the table has another width, a cell out of shape, or another command's table comes first."""
    for n, ln in enumerate(lines):
        if "nvidia-smi" in ln and n:
            return []  # another command's output from here on
        if not _MD_SEPARATOR.match(ln) or n == 0 or len(_md_cells(lines[n - 1])) != len(cols):
            continue
        gpus: List[QueryGpu] = []
        for row in lines[n + 1:]:
            parts = _md_cells(row) if row.lstrip().startswith("|") else []
            if not _shaped_row(cols, parts, shapes):
                break
            gpus.append(_csv_gpu(dict(zip(cols, parts))))
        return gpus
    return []


def shaped_rows_among(text: str) -> SmiQuery:
    """The header-less ``--query-gpu`` rows (each cell known by its shape, :func:`parse_query_rows`) that stand as one
    block among other lines: what a ``--version`` block or a device-handle error printed before them is no row. Read
    only where such a form says the rows are nvidia-smi's (:func:`_version_with_listing`,
    :func:`_faults_with_listing`); None of them where the rows are not one block."""
    at = [n for n, ln in enumerate(text.splitlines()[:2000]) if "," in ln and _row_by_shape(ln) is not None]
    if not at or at[-1] - at[0] + 1 != len(at) or len(at) > 256:
        return SmiQuery()
    lines = text.splitlines()
    return SmiQuery(gpus=[g for g in (_row_by_shape(lines[n]) for n in at) if g is not None])


def _csv_without_header(text: str, lines: List[str]) -> SmiQuery:
    rows = parse_query_rows(text)
    if rows.gpus:  # --format=csv,noheader
        return rows
    rows = _rows_of_command(lines)
    if rows.gpus:  # the same, pasted under its command line (whose fields name the columns)
        return rows
    kind, line = classify_error(text)
    if kind is None:
        return SmiQuery(error=OTHER, error_line=lines[0].strip()[:300] if lines else None)
    return SmiQuery(error=kind, error_line=line)


# index, name, driver_version, compute_cap, memory.total [MiB]
# 0, NVIDIA A100-SXM4-40GB, 535.104.05, 8.0, 40960 MiB
@gpu_list
def parse_query_csv(text: Optional[str]) -> SmiQuery:
    """Parse ``nvidia-smi --query-gpu=... --format=csv`` output, columns found by the header; the rows are the lines
    after it up to the first line that is not one (a fence, prose, the next command's output; a line of "..." where
    rows were left out is passed over). Without a recognisable header (e.g. ``Field "compute_cap" is not a valid field
    to query.``) the result carries the error. Never raises."""
    if not text:
        return SmiQuery()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header_at = next((n for n, ln in enumerate(lines) if _is_header(ln)), None)
    if header_at is None:
        found = _prefixed_header(lines)
        if found is None:
            return _csv_without_header(text, lines)
        header_at, prefix = found
        lines = lines[:header_at] + [ln[m.end():] if m else ln
                                     for ln, m in ((x, prefix.match(x)) for x in lines[header_at:header_at + 258])]
    cols = [c.strip().split(" ")[0].lower() for c in _unelided(lines[header_at].split(","))]
    gpus: List[QueryGpu] = []
    for ln in lines[header_at + 1:]:
        cells = ln.split(",")
        if len(cells) > len(cols) and _unelided([c.strip() for c in cells]) != [c.strip() for c in cells]:
            ln = ",".join(cells[:-1])  # the row cut as its header was (", ...")
        parts = _csv_parts(ln, cols)
        if parts is None:
            if _ELIDED.match(ln):
                continue
            break
        gpus.append(_csv_gpu(dict(zip(cols, parts))))
    return SmiQuery(gpus=gpus)


# ------------------------------------------------------------------------------------------- nvidia-smi -q
# "Driver Version                      : 535.104.05" (two or more spaces, or a run of dots in old releases,
# before the colon); "CUDA Version : Not Found" on a vGPU host
_Q_KEY_NAME = lazyre.compile(r"[A-Za-z][A-Za-z0-9 ./()-]*")


class _QKey:
    """``Key<spaces or dots>: value`` split by ``str`` methods, in one pass: (indent, key, value) as
    ``group(1..3)``. The regex this replaces, ``^([ \\t]*)([A-Za-z][A-Za-z0-9 ./()-]*?)[ \\t.]+:...``, was
    quadratic on a line of ``A . . . .`` without a colon (40 s for 400 KB)."""

    __slots__ = ("_g",)

    def __init__(self, indent: str, key: str, value: str):
        self._g = ("", indent, key, value)

    def group(self, i: int) -> str:
        return self._g[i]

    @staticmethod
    def match(line: str) -> "Optional[_QKey]":
        head, colon, value = line.partition(":")
        if not colon:
            return None
        body = head.lstrip(" \t")
        key = body.rstrip(" \t.")
        if len(key) == len(body) or not _Q_KEY_NAME.fullmatch(key):
            return None  # no space or dot before the colon, or not a key's characters
        return _QKey(head[:len(head) - len(body)], key, value.lstrip(" \t").rstrip())


_Q_KEY = _QKey
_Q_GPU = lazyre.compile(r"^[ \t]*GPU[ \t]+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])[ \t]*$")
_Q_TITLE = lazyre.compile(r"^([ \t]*)([A-Za-z][A-Za-z0-9 ()/-]*[A-Za-z0-9)])[ \t]*$")
_Q_KEYS = {"driver version", "cuda version", "kmd version", "cuda umd version", "attached gpus", "attached vgpus",
           "product name", "product brand", "gpu uuid",
           "minor number", "vbios version", "persistence mode", "display mode", "display active", "serial number",
           "board id", "multigpu board", "gpu part number", "accounting mode", "license status"}
_Q_SUBKEYS = {"current", "pending", "total", "reserved", "used", "free"}
_VERSION = lazyre.compile(r"^\d+(?:\.\d+){1,3}$")
_CUDA_VER = lazyre.compile(r"^(\d+\.\d+)")
_UUID = lazyre.compile(r"^GPU-[0-9A-Fa-f-]{8,}$")


def is_q(text: str) -> bool:
    """Does the text look like ``nvidia-smi -q`` output (whole or a part)? Its banner, or two of its keys
    written ``Key<spaces or dots>: value`` (``nvidia-container-cli info``'s ``Key:   value`` is not it)."""
    if "NVSMI LOG" in text:
        return True
    hits = 0
    for line in text.splitlines()[:5000]:
        m = _Q_KEY.match(line)
        if m and m.group(2).strip().lower() in _Q_KEYS:
            hits += 1
            if hits >= 2:
                return True
    return False


@dataclass
class _QGpu:
    """One GPU's section of ``nvidia-smi -q`` while it is read."""

    bus: Optional[str] = None
    name: Optional[str] = None
    uuid: Optional[str] = None
    memory: Optional[int] = None
    mig: Optional[bool] = None


def _q_value(v: str) -> Optional[str]:
    return None if v.strip().lower() in _NA or v.strip().lower() in ("not found", "unknown") else v.strip()


def _q_gpu_key(g: _QGpu, title: Optional[str], key: str, value: str) -> None:
    v = _q_value(value)
    if v is None:
        return
    if title is None:
        if key == "product name" and g.name is None:
            g.name = v
        elif key == "gpu uuid" and _UUID.match(v):
            g.uuid = v
    elif title == "mig mode" and key == "current":
        g.mig = {"enabled": True, "disabled": False}.get(v.lower(), g.mig)
    elif title == "fb memory usage" and key == "total":
        m = re.match(r"^(\d+)\s*Mi?B", v)  # "MB": what drivers of 2013 and before printed for MiB
        if m:
            g.memory = small_int(m.group(1))


# the command of `nvidia-smi -q -i 1` / `nvidia-smi -i 3 -q -d MEMORY` pasted above its output: the GPU it shows is
# that index (an index only: "-i" also takes a bus id or a UUID, which name no index)
_SMI_COMMAND = lazyre.compile(r"^[^\n]{0,200}?nvidia-smi(?:\.exe)?[ \t][^\n]{0,200}$", re.M)
_Q_FLAG = lazyre.compile(r"(?:^|[ \t])(?:-q|-a|--query)(?=[ \t]|$)")
_ID_FLAG = lazyre.compile(r"(?:^|[ \t])(?:-i|--id)[ \t=]([0-9]{1,3})(?=[ \t]|$)")


def _selected_index(text: str, attached: Optional[int]) -> int:
    """The index of the one GPU section of ``-q`` output whose command (pasted with it) asked for one GPU by index
    (``-i N``) of the GPUs the output says are attached; 0 (the first) otherwise (no such command, or two)."""
    asked = set()
    for m in _SMI_COMMAND.finditer(text[:200000]):
        i = _ID_FLAG.search(m.group(0))
        if i and _Q_FLAG.search(m.group(0)):
            asked.add(int(i.group(1)))
    n = asked.pop() if len(asked) == 1 else 0
    return n if attached is not None and n < attached else 0


_Q_BANNER = lazyre.compile(r"^[^\n]{0,80}={5,}[ \t]*NVSMI LOG[ \t]*={5,}", re.M)


def _first_q_run(text: str) -> str:
    """The text up to a second "==============NVSMI LOG==============" banner: two runs pasted one after the other
    (two machines' ``-q -d TEMPERATURE``, mikaku/Monitorix#28; the same machine's run repeated) are not one machine
    with the GPUs of both - the first run is read, as :func:`_first_machine` reads the first table."""
    first = _Q_BANNER.search(text)
    second = _Q_BANNER.search(text, first.end()) if first else None
    if second is None:
        return text
    return text[: text.rfind("\n", 0, second.start()) + 1]


@gpu_list
def parse_q(text: Optional[str]) -> SmiTable:
    """Parse ``nvidia-smi -q`` (``-a``; whole, ``-d MEMORY``, or a part cut anywhere). Never raises."""
    if not text:
        return SmiTable()
    text = _first_q_run(clean_capture(text))
    driver = cuda = cuda_na = None
    attached: Optional[int] = None
    gpus: List[_QGpu] = []
    cur: Optional[_QGpu] = None
    title: Optional[str] = None
    title_indent = -1
    for line in text.splitlines()[:200000]:
        if line.endswith("\\") and line[-2:-1] in (" ", "\t"):  # a Markdown hard line break ("Tesla K80 \\")
            line = line[:-1].rstrip()
        gm = _Q_GPU.match(line)
        if gm:
            cur = _QGpu(bus=gm.group(1))
            gpus.append(cur)
            title, title_indent = None, -1
            continue
        if "NVSMI LOG" in line:
            title, title_indent = None, -1  # a prose line above the banner ("Run") is no section title of the log
            continue
        km = _Q_KEY.match(line)
        if km is None:
            tm = _Q_TITLE.match(line)
            if tm and "NVSMI" not in line:
                title, title_indent = tm.group(2).strip().lower(), len(tm.group(1).expandtabs())
            continue
        indent = len(km.group(1).expandtabs())
        key = km.group(2).strip().lower()
        if title is not None and indent <= title_indent and key not in _Q_SUBKEYS:
            title, title_indent = None, -1
        if key in ("driver version", "kmd version") and title is None and cur is None:
            # R610+: "Driver Version : 610.57.04 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]"
            # then "KMD Version : 610.57.04" (the same version); "CUDA UMD Version" likewise for "CUDA Version"
            word = (km.group(3).split() or [""])[0]
            driver = word if _VERSION.match(word) else driver
        elif key in ("cuda version", "cuda umd version") and title is None and cur is None:
            cm = _CUDA_VER.match(km.group(3).strip())
            cuda = cm.group(1) if cm else None
            cuda_na = None if cm else (km.group(3).strip()[:40] or None)
        elif key in ("attached gpus", "attached vgpus") and km.group(3).strip().isascii() and km.group(3).strip().isdigit() \
                and len(km.group(3).strip()) <= 9:
            attached = int(km.group(3).strip())
        elif title is not None and title.startswith("vgpu software licensed product"):
            continue  # "Product Name : NVIDIA Virtual Compute Server" is the licence, not the GPU
        elif key in ("product name", "gpu uuid", "current", "total"):
            if cur is None or (key == "product name" and title is None and cur.name is not None):
                # a second GPU's "Product Name" with its "GPU 0000:..." line filtered out (``-q | grep``)
                cur = _QGpu()
                gpus.append(cur)
            _q_gpu_key(cur, title, key, km.group(3))
    first = _selected_index(text, attached) if len(gpus) == 1 else 0
    out = [SmiGpu(index=first + i, name=g.name, memory_total_mib=g.memory, bus_id=g.bus, mig_enabled=g.mig, uuid=g.uuid)
           for i, g in enumerate(gpus[:256])]
    complete = attached is not None and attached == len(out) if (attached is not None or out) else None
    state = "ok" if (driver or out) else None
    if attached == 0 and not out:
        complete = True
    # only its banner (and timestamp): a paste cut before the driver's line; said, never read as "no driver"
    note = ("the head of `nvidia-smi -q`, cut before its driver version and its GPUs"
            if not (driver or out or cuda or cuda_na) and attached is None else None)
    return SmiTable(driver_version=driver, cuda_version=cuda, gpus=out, cuda_unavailable=cuda_na,
                    mig_devices=0, gpus_complete=complete, state=state, form=FORM_Q, note=note)


# ------------------------------------------------------------------------------------------- nvidia-smi -L
# "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-7fdaf0a5-179b-f636-d15d-daf243e3ff16)"
# "  MIG 1g.10gb     Device  0: (UUID: MIG-feb88891-0321-5fef-9c87-d4af3b54259e)"   (a MIG device: not a GPU)
# "  MIG 3g.20gb Device 0: (UUID: MIG-GPU-.../1/0)"  (drivers before R470)
#: a GPU line; a shell comment after it ("GPU 1: Tesla T4 (UUID: GPU-bde42e00-...)   # <- now present") is the user's
#: what may stand before a listing's line: a prompt's or a quote's mark, a list's bullet, the backtick of a listing
#: flattened onto one inline-code line, or a tree arrow a README drew before the output ("  \u2514> GPU 0: Tesla T4
#: (UUID: ...)", read after :func:`clean_capture` made its box-drawing characters "+", "-" and "|")
_L_LEAD = "[ \\t>$#`*+|\\-\u2192]*"
_L_GPU = lazyre.compile(r"^" + _L_LEAD + r"GPU[ \t]+(\d{1,3}):[ \t]+(\S.*?)[ \t]+\(UUID:[ \t]*([^)\s]*)\)?"
                        r"(?:[ \t]{1,40}#[^\n]{0,200})?[ \t`]*$")
# "  MIG Device 0: (UUID: MIG-GPU-.../1/0)"  (R450: no profile name); "  MIG 1g.10gb     Device 0: ..." (a guide's
# "Expected output" with the UUIDs elided)
_L_MIG = lazyre.compile(r"^" + _L_LEAD + r"MIG(?:[ \t]+\S+)?[ \t]+Device[ \t]+\d+:[ \t]*(?:\(UUID:|(?:\.\.\.|\u2026)[ \t]*$)")
#: where a listing pasted into a one-line field (an issue form's, a chat's, a docs page's inline code) joined its
#: lines: ") GPU 1: ", ") MIG 1g.5gb Device 0: "
_L_JOIN = lazyre.compile(r"(?<=\))[ \t]+(?=GPU[ \t]+\d{1,3}:[ \t]|MIG(?:[ \t]+\S+)?[ \t]+Device[ \t]+\d{1,3}:)")


def split_joined_list(line: str) -> List[str]:
    """The ``nvidia-smi -L`` lines of one line that holds several joined ("GPU 0: ... (UUID: GPU-...) GPU 1: ...
    (UUID: GPU-...)", NVIDIA/open-gpu-kernel-modules#387's issue form); a line with one GPU, or none, as it is."""
    if line.count("(UUID:") < 2:
        return [line]
    return [str(p) for p in _L_JOIN.split(line[:MAX_JOINED])]


#: the longest joined line split (256 GPUs of about 100 characters)
MAX_JOINED = 32768

# "\t Link 0: 25 GB/s", "\t Link 0: Replay Errors: 0": a line of `nvidia-smi nvlink -s` / `-e` / `-c`, which prints each
# GPU as -L does ("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)") with its links under it; often for one GPU (`-i 0`)
# or cut after the first: its GPU lines are GPUs, never the whole list
_NVLINK_LINE = lazyre.compile(r"^[ \t>#]*Link[ \t]+\d{1,2}:[ \t]")


def nvlink_line(line: str) -> bool:
    """Is ``line`` a link line of ``nvidia-smi nvlink`` ("\t Link 0: 25 GB/s"), printed under a GPU's -L-like line?"""
    return bool(_NVLINK_LINE.match(line))


# "..." / "…" on a line of its own, or "... (GPUs 2-7 identical)": rows the poster left out of a listing
_ELIDED = lazyre.compile(r"^[ \t>#]*(?:\.\.\.|\u2026)[ \t]*(?:\(.*)?$")
#: a command a listing was piped through that drops lines (``nvidia-smi -L | head -n10``, ``| grep A100``)
_FILTERS = ("head", "tail", "grep", "egrep", "sed", "awk", "findstr", "select-object")


def partial_listing(text: str) -> bool:
    """Does the text say that the GPU listing in it is not whole: a line of "..." where rows were left out, or
    the nvidia-smi command shown piped through a filter that drops lines? (Then the GPUs read are some, not all.)"""
    for line in text.splitlines()[:20000]:
        if _ELIDED.match(line):
            return True
        low = line.lower()
        at = low.find("nvidia-smi")
        if at != -1:
            _, bar, rest = low[at:].partition("|")
            first = rest.split(None, 1)[:1]
            if bar and first and first[0] in _FILTERS:
                return True
    return False


@gpu_list
def parse_list(text: Optional[str]) -> SmiTable:
    """Parse ``nvidia-smi -L``. Never raises."""
    if not text:
        return SmiTable()
    text = clean_capture(text)
    gpus: List[SmiGpu] = []
    migs = 0
    mig_parent = set()
    nvlink = False
    for line in (piece for ln in text.splitlines()[:200000] for piece in split_joined_list(ln)):
        m = _L_GPU.match(line)
        if m:
            if any(g.index == int(m.group(1)) for g in gpus):
                break  # an index again: a second listing (the command run again, or on another machine), not more GPUs
            uuid = m.group(3) if _UUID.match(m.group(3)) else None
            gpus.append(SmiGpu(index=int(m.group(1)), name=m.group(2), uuid=uuid))
            continue
        nvlink = nvlink or bool(gpus and _NVLINK_LINE.match(line))
        if _L_MIG.match(line):
            migs += 1
            if gpus:
                mig_parent.add(gpus[-1].index)
        if len(gpus) >= 256:
            break
    gpus = [replace(g, mig_enabled=True) if g.index in mig_parent else g for g in gpus]
    idx = [g.index for g in gpus]
    complete = bool(gpus) and idx == list(range(len(idx))) and not nvlink and not partial_listing(text)
    return SmiTable(gpus=gpus, mig_devices=migs, gpus_complete=complete if gpus else None,
                    state="ok" if gpus else None, form=FORM_L)


# ------------------------------------------------------------------------------------------- nvidia-smi -q -x
# <nvidia_smi_log>  <driver_version>535.86.05</driver_version>  <cuda_version>12.2</cuda_version>
# <attached_gpus>1</attached_gpus>  <gpu id="00000000:84:00.0">  <product_name>NVIDIA GeForce RTX 4090</product_name>
# <fb_memory_usage> <total>24564 MiB</total> ...  <mig_mode> <current_mig>N/A</current_mig>
_X_LEAF = lazyre.compile(r"^[ \t]*<([a-z_0-9]{1,60})>([^<>]{0,200})</([a-z_0-9]{1,60})>[ \t]*$")
_X_GPU = lazyre.compile(r'^[ \t]*<gpu id="([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])">[ \t]*$')
_X_OPEN = lazyre.compile(r"^[ \t]*<(/?)([a-z_0-9]{1,60})>[ \t]*$")


def is_xml(text: str) -> bool:
    """Is the text ``nvidia-smi -q -x`` (its root element, or its top-level driver element)?"""
    return "<nvidia_smi_log" in text or ("<driver_version>" in text and "</driver_version>" in text)


#: the XML elements (section, tag) that are the -q form's (title, key): one reading of their values
_X_AS_Q = {(None, "product_name"): (None, "product name"), (None, "uuid"): (None, "gpu uuid"),
           ("mig_mode", "current_mig"): ("mig mode", "current"), ("fb_memory_usage", "total"): ("fb memory usage", "total"),
           ("memory_usage", "total"): ("fb memory usage", "total")}  # drivers of 2013 and before: <memory_usage>, "5375 MB"


def _x_leaf(g: _QGpu, section: Optional[str], key: str, value: str) -> None:
    q = _X_AS_Q.get((section, key))
    if q is not None:
        _q_gpu_key(g, q[0], q[1], value)


@gpu_list
def parse_xml(text: Optional[str]) -> SmiTable:
    """Parse ``nvidia-smi -q -x`` (whole or cut anywhere), line by line: one element a line, as nvidia-smi
    writes it. "Not Found" / "N/A" in ``cuda_version`` is unknown, never a version. Never raises."""
    if not text:
        return SmiTable()
    driver = cuda = cuda_na = None
    attached: Optional[int] = None
    gpus: List[_QGpu] = []
    section: Optional[str] = None  # the sub-element of a <gpu> the line is in (fb_memory_usage, mig_mode, ...)
    roots = 0
    for line in text.splitlines()[:200000]:
        roots += "<nvidia_smi_log>" in line
        if "</nvidia_smi_log>" in line or roots > 1:
            break  # the document's end, or a second one: another run (repeated, or another machine's), not more GPUs
        gm = _X_GPU.match(line)
        if gm:
            gpus.append(_QGpu(bus=gm.group(1)))
            section = None
            continue
        om = _X_OPEN.match(line)
        if om:
            closing, tag = om.group(1) == "/", om.group(2)
            if tag != "gpu" and gpus:
                section = None if closing else tag
            continue
        lm = _X_LEAF.match(line)
        if lm is None or lm.group(1) != lm.group(3):
            continue
        key, value = lm.group(1), lm.group(2).strip()
        if not gpus and key == "driver_version":
            driver = value if _VERSION.match(value) else None
        elif not gpus and key == "cuda_version":
            cm = _CUDA_VER.match(value)
            cuda, cuda_na = (cm.group(1), None) if cm else (None, value[:40] or None)
        elif not gpus and key == "attached_gpus" and value.isascii() and value.isdigit() and len(value) <= 9:
            attached = int(value)
        elif gpus:
            _x_leaf(gpus[-1], section, key, value)
    out = [SmiGpu(index=i, name=g.name, memory_total_mib=g.memory, bus_id=g.bus, mig_enabled=g.mig, uuid=g.uuid)
           for i, g in enumerate(gpus[:256])]
    complete = (attached == len(out)) if attached is not None else (False if out else None)
    return SmiTable(driver_version=driver, cuda_version=cuda, gpus=out, cuda_unavailable=cuda_na,
                    gpus_complete=complete, state="ok" if (driver or out) else None, form=FORM_XML)


def _first_samples(rows: List[QueryGpu]) -> List[QueryGpu]:
    """The rows without the later samples of a GPU whose index a row already gave (``--query-gpu=index,... -l 1``
    prints every GPU again each second: one GPU, not one a sample)."""
    seen: Set[int] = set()
    out: List[QueryGpu] = []
    for g in rows:
        if g.index is not None and g.index in seen:
            continue
        if g.index is not None:
            seen.add(g.index)
        out.append(g)
    return out


def _csv_as_table(q: SmiQuery, text: str) -> SmiTable:
    gpus = [SmiGpu(index=g.index if g.index is not None else i, name=g.name, memory_total_mib=g.memory_total_mib,
                   compute_capability=g.compute_capability, mig_enabled=g.mig_enabled)
            for i, g in enumerate(_first_samples(q.gpus))]
    drv = next((g.driver_version for g in q.gpus if g.driver_version), None)
    idx = sorted({g.index for g in gpus})  # a row per sample (``-l 1``) repeats an index: still one GPU
    complete = None if not gpus else (idx == list(range(len(idx))) and not partial_listing(text))
    return SmiTable(driver_version=drv, gpus=gpus, gpus_complete=complete,
                    state="ok" if gpus else None, form=FORM_CSV)


def _listing(text: str) -> Optional[SmiTable]:
    """The GPU listing of a text that holds ``nvidia-smi -L`` lines, the ``--query-gpu`` CSV, or both (a paste of
    both commands): the whole one of the two, else the longer, with the driver version the CSV names."""
    listed = parse_list(text) if "UUID" in text else None
    query = parse_query_csv(text)
    csv = _csv_as_table(query, text) if query.gpus else None
    if listed is None or not listed.gpus:
        return csv
    if csv is None:
        return listed
    if (csv.gpus_complete and not listed.gpus_complete) or len(csv.gpus) > len(listed.gpus):
        return csv
    by_index = {g.index: g for g in csv.gpus}
    gpus = [_merged(g, by_index.get(g.index)) for g in listed.gpus]
    return replace(listed, gpus=gpus, driver_version=listed.driver_version or csv.driver_version)


def _table_with_listing(table: SmiTable, text: str) -> SmiTable:
    """A table whose GPU rows are cut or missing (a header pasted after the ``--query-gpu`` CSV or ``-L`` lines of
    the same machine, a fragment of rows) with the whole GPU list of that CSV / ``-L`` listing: the table keeps its
    driver and CUDA version, the listing gives the GPUs (each row of the table adds what it shows)."""
    if table.gpus_complete is True or ("," not in text and "UUID" not in text):
        return table
    listing = _listing(text)
    if listing is None or listing.gpus_complete is not True or len(listing.gpus) < len(table.gpus):
        return table
    if table.driver_version and listing.driver_version and table.driver_version != listing.driver_version:
        return table  # two machines' outputs: keep what the table says
    by_index = {g.index: g for g in table.gpus}
    if any(not _same_gpu_name(g.name, by_index[g.index].name) for g in listing.gpus if g.index in by_index):
        return table  # a row of the table names another GPU at that index: another machine's listing (no driver in -L)
    gpus = [_merged(g, by_index.get(g.index)) for g in listing.gpus]
    return replace(table, gpus=gpus, gpus_complete=True, driver_version=table.driver_version or listing.driver_version,
                   state=table.state or listing.state)


def _same_gpu_name(listed: Optional[str], row: Optional[str]) -> bool:
    """Can a table row's GPU name be the listing's of the same index? Unknown on either side is no disagreement;
    an older table cuts a long name ("GeForce GTX TIT...", "Tesla V100-SXM2..."), kept as a prefix."""
    if not listed or not row:
        return True
    a, b = listed.strip().lower(), row.strip().lower()
    if b.endswith("..."):
        b = b[:-3].rstrip()
    return a == b or a.startswith(b) or b.startswith(a)


def _merged(listed: SmiGpu, row: Optional[SmiGpu]) -> SmiGpu:
    """A GPU of ``-L`` with what the CSV's row of the same index adds (memory, compute capability, MIG mode)."""
    if row is None or (row.name and listed.name and row.name != listed.name):
        return listed
    return replace(listed, memory_total_mib=listed.memory_total_mib or row.memory_total_mib,
                   compute_capability=listed.compute_capability or row.compute_capability,
                   mig_enabled=listed.mig_enabled if listed.mig_enabled is not None else row.mig_enabled)


def _first_line(text: str) -> Optional[str]:
    for ln in text.splitlines()[:1000]:
        if ln.strip():
            return ln.strip()[:200]
    return None


# what a terminal, a log viewer or a Markdown renderer does to a capture: colour escapes (CSI sequences), box-drawing
# characters for the table's ASCII borders, a no-break space for a space, "\|" for a pipe escaped in a Markdown
# table; each undone before the text is read (one pass; the escape pattern is a literal prefix and one bounded class)
_ANSI = lazyre.compile(r"\x1b\[[0-9;?]{0,32}[A-Za-z]")
_BOX = str.maketrans({"\u2502": "|", "\u2503": "|", "\u2551": "|", "\u2500": "-", "\u2501": "-", "\u2550": "=",
                      "\u253c": "+", "\u256a": "+", "\u256b": "+", "\u252c": "+", "\u2534": "+", "\u251c": "+",
                      "\u2524": "+", "\u250c": "+", "\u2510": "+", "\u2514": "+", "\u2518": "+", "\u254b": "+",
                      "\u2560": "+", "\u2563": "+", "\u2566": "+", "\u2569": "+", "\u256c": "+", "\u2554": "+",
                      "\u2557": "+", "\u255a": "+", "\u255d": "+", "\u00a0": " ", "\u202f": " "})


# a forum's or a chat's HTML export of a paste: "Driver Version : 510.06<br>", "<p>GPU 00000000:01:00.0<br>",
# "PS C:\\Users\\x&gt; nvidia-smi -q"; only the tags of running text (nvidia-smi's own XML tags are none of these)
_HTML_TAG = lazyre.compile(r"</?(?:br|p|strong|em|b|i|code|pre|blockquote|span|div)\b[^<>\n]{0,200}>", re.I)
_HTML_ENTITIES = (("&gt;", ">"), ("&lt;", "<"), ("&quot;", '"'), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&"))


def _unhtml(text: str) -> str:
    text = _HTML_TAG.sub("", text)
    for entity, char in _HTML_ENTITIES:
        text = text.replace(entity, char)
    return text


# a capture kept as a string: a notebook's (.ipynb) output, one JSON string a line ('"| NVIDIA-SMI 460.32.03 ... |\\n",'),
# or a whole output in one JSON / Python string ('"stdout": "Mon Jan 22 03:01:02 2024\\n+----...\\n| NVIDIA-SMI ..."'), or
# Python's print of what ``subprocess.check_output`` returned: a bytes literal (b'GPU 0: Tesla T4 (UUID: GPU-...)\\n')
_QUOTED_LINE = lazyre.compile(r'^[ \t]*(?:"(.*)"|b?\'(.*)\')[ \t]*,?[ \t]*$')
#: a byte a bytes literal shows as an escape ("\\xe2\\x94\\x94": the UTF-8 of a box-drawing character)
_BYTE_ESCAPES = lazyre.compile(r"(?:\\x[0-9a-fA-F]{2}){1,4096}")


# one escape of a JSON / Python string: "\\n", "\\t", "\\r", '\\"', "\\\\", "\\/", "\\u2502" (a box character ``json.dumps`` wrote
# as ASCII); one pass left to right, so that an escaped backslash before an "n" stays a backslash
_ESCAPE = lazyre.compile(r"\\(?:u([0-9a-fA-F]{4})|([nrt\"\\/']))")
_ESCAPED = {"n": "\n", "r": "", "t": "\t", '"': '"', "\\": "\\", "/": "/", "'": "'"}


def _unescape_one(m: "re.Match[str]") -> str:
    if m.group(1):
        return chr(int(m.group(1), 16))
    return _ESCAPED[m.group(2)]


def _unescape(s: str) -> str:
    out: str = _ESCAPE.sub(_unescape_one, s)
    return out


def _utf8(m: "re.Match[str]") -> str:
    raw = bytes(int(h, 16) for h in m.group(0).split("\\x")[1:])
    return raw.decode("utf-8", errors="replace")


def _unbyte(s: str) -> str:
    """A bytes literal's text with its "\\xNN" escapes read as the UTF-8 they are."""
    return _BYTE_ESCAPES.sub(_utf8, s) if "\\x" in s else s


def _unstring(text: str) -> str:
    """The capture out of the string it was kept in (see above); lines that are no such string are left alone."""
    lines = text.split("\n")
    quoted = [_QUOTED_LINE.match(ln.rstrip()) if ln.rstrip().endswith(('\\n"', '\\n",')) else None for ln in lines]
    out = []
    for ln, m in zip(lines, quoted):
        whole = m or (_QUOTED_LINE.match(ln.rstrip()) if "\\n" in ln else None)
        if whole:  # a line that is one string holding line breaks (a notebook's line, a JSON value): its text
            held = whole.group(1) if whole.group(1) is not None else _unbyte(whole.group(2))
            out.append(_unescape(held).rstrip("\n"))
        elif ln.count("\\n") >= 3:  # a whole output in one string inside a longer line (`mock = 'Tue Apr ...\\n+---'`)
            out.append(_unescape(ln))
        else:
            out.append(ln)
    return "\n".join(out)


def clean_capture(text: str) -> str:
    """The capture without what was added on its way to the user: colour escapes, box-drawing borders, no-break
    spaces, Markdown's escaped pipes, the HTML line tags of a forum export, the quotes and escapes of a notebook's
    or a JSON string, HTML's escaped XML, the label a log or a quote put before every line
    (:mod:`envcheck.parse.line_prefix`; the text is otherwise unchanged)."""
    if "\r\n" in text:  # a capture saved on Windows (or by a tool writing CRLF): the line ends as nvidia-smi wrote them
        text = text.replace("\r\n", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "<br" in text or "</p>" in text or "<BR" in text:
        text = _unhtml(text)
    if "\\n" in text:
        text = _unstring(text)
    if "<pre" in text or "<code" in text:
        # a page's <pre><code> block: its tags are the page's, what they hold is the output with HTML's escapes
        text = _PRE_TAG.sub("", text)
    if "&gt;" in text and (("&lt;" in text and "<" not in text) or _HALF_ESCAPED.search(text[:200000])) or (
            ("&gt;" in text or "&amp;" in text) and "<" not in text and ">" not in text):
        # `-q -x` copied from a page as HTML shows it, or from a mail's rendering that escaped only the ">" of each tag
        # and indented with "&nbsp;" ("<driver_version&gt;591.74</driver_version&gt;": 1Panel-dev/1Panel#11910); a
        # page's source copied whole, every ">" of its quote marks and prompts escaped and none left bare
        import html

        text = html.unescape(text)
    if not text.isascii():
        text = text.translate(_BOX)
    if "\\|" in text:
        text = text.replace("\\|", "|")
    if " \\\n" in text:
        text = _unbroken(text)
    # a log's time stamp, klog head or runner label, or a Markdown quote mark, before every line: taken off
    from envcheck.parse.line_prefix import strip_line_prefixes

    return strip_line_prefixes(text)


def _unbroken(text: str) -> str:
    """The text without the " \\" a Markdown writer put at the end of every line (a hard line break, so that a README
    outside a fence keeps the output's lines: "test-1  | +-----+ \\"), where at least three lines and four in five of
    the non-blank ones end so; otherwise as it is (a shell command's continuation lines are a few, not the text)."""
    lines = text.split("\n")
    ends = [bool(_HARD_BREAK.search(ln)) for ln in lines if ln.strip()]
    if sum(ends) < 3 or sum(ends) * 5 < len(ends) * 4:
        return text
    return "\n".join(_HARD_BREAK.sub("", ln) for ln in lines)


_HARD_BREAK = lazyre.compile(r"[ \t]+\\[ \t]*$")
_PRE_TAG = lazyre.compile(r"</?(?:pre|code)\b[^<>\n]{0,200}>", re.I)
_HALF_ESCAPED = lazyre.compile(r"<[a-z_?!/][^<>\n]{0,80}&gt;")


@gpu_list
def parse_smi(text: Optional[str]) -> SmiTable:
    """Read whatever a capture or a paste holds where nvidia-smi's output is expected (:func:`_parse_smi`), with the
    loaded kernel module's NVRM line where the text holds one too (``kernel_version`` / ``kernel_module``)."""
    got = _parse_smi(text)
    if not text or "NVRM version:" not in text:
        return got
    from envcheck.parse.proc_driver import parse_proc_driver_version

    lines = (ln[:2000] for ln in text.split("\n", 200000)[:200000] if "NVRM version:" in ln)
    proc = parse_proc_driver_version("\n".join(lines))
    return replace(got, kernel_version=proc.version, kernel_module=proc.kernel_module) if proc else got


def _parse_smi(text: Optional[str]) -> SmiTable:
    """Read whatever a capture or a paste holds where nvidia-smi's output is expected, by its content: the
    plain table (Jetson's too), ``nvidia-smi -q``, its XML (``-q -x``), ``nvidia-smi -L``, the ``--query-gpu`` CSV,
    or an error text.
    A form not recognised gives ``form="unrecognised"`` and ``state=None`` (unknown), never a failure."""
    if not text or not text.strip():
        return SmiTable()
    text = clean_capture(text)
    if is_xml(text):
        xml = parse_xml(text)
        if xml.state is not None:
            return xml
    table = parse_table(text)
    if table.driver_version or table.gpus or table.smi_version or (table.state not in (FAILED, None)):
        if table.driver_version or table.gpus or table.smi_version:
            return _names_from_other_forms(_table_with_listing(replace(table, form=FORM_TABLE), text), text)
        return _faults_with_listing(replace(table, form=FORM_ERROR), text)
    if is_q(text):
        q = parse_q(text)
        if not q.gpus and _VERSION_BLOCK.search(text):
            # `nvidia-smi --version`: its "DRIVER version" / "KMD version" and "CUDA Version" / "CUDA UMD version"
            # lines are -q's keys, read the same; it lists no GPU (unknown, not none), but `-L` pasted with it does
            return _version_with_listing(replace(q, form=FORM_VERSION, gpus_complete=None), text)
        return _q_with_listing(q, text)
    listing = _listing(text)
    if listing is not None:
        return listing
    if table.error is not None:  # an error text classify_error knows but no state was set for
        return replace(table, form=FORM_ERROR)
    lister = _other_lister(text)
    if lister is not None:
        return lister
    from envcheck.parse.small_forms import describe_unread

    # a form recognised but not read (a kernel log's "NVRM: loading ..." line, `modinfo nvidia`, a shell's "No such
    # file"): still unknown, its note says what it is
    return SmiTable(form=FORM_UNKNOWN, first_line=_first_line(text), note=describe_unread(text))


def _full_names(text: str, driver: Optional[str], indexes: Set[int], q_too: bool = True) -> Dict[int, str]:
    """The GPU names by index that the text's other forms of the same machine give: ``nvidia-smi -q``'s Product Name
    (``q_too``), the ``-L`` lines or the ``--query-gpu`` CSV; a form that names another driver or lists other GPU
    indexes than ``indexes`` (another run, another machine) is left out, and two names for one index give none."""
    forms: List[SmiTable] = []
    if q_too and is_q(text):
        forms.append(parse_q(text))
    if "UUID" in text or "," in text:
        listing = _listing(text)
        if listing is not None:
            forms.append(listing)
    names: Dict[int, str] = {}
    for form in forms:
        if (form.driver_version and driver and form.driver_version != driver) or \
                {g.index for g in form.gpus} != indexes:
            continue
        for g in form.gpus:
            if not g.name:
                continue
            if names.get(g.index, g.name) != g.name:
                return {}
            names[g.index] = g.name
    return names


def _names_from_other_forms(table: SmiTable, text: str) -> SmiTable:
    """A table whose rows cut a long name ("NVIDIA GeForce RTX 408...") beside ``nvidia-smi -q``, ``-L`` or the
    ``--query-gpu`` CSV of the same machine (the same driver) in the text: each cut name completed by that form's name
    of the same index where it begins with the cut part."""
    if not any(g.name and g.name.endswith("...") for g in table.gpus):
        return table
    full = _full_names(text, table.driver_version, {g.index for g in table.gpus})
    gpus = [replace(g, name=full[g.index]) if g.name and g.name.endswith("...") and g.index in full
            and _same_gpu_name(full[g.index], g.name) else g for g in table.gpus]
    return replace(table, gpus=gpus)


def _q_with_listing(q: SmiTable, text: str) -> SmiTable:
    """``nvidia-smi -q`` whose sections name no GPU (``-d MEMORY``, ``-d ECC``: no Product Name) beside ``nvidia-smi
    -L`` or the ``--query-gpu`` CSV in the same text: each GPU's name from that form's GPU of the same index, where the
    form lists exactly -q's indexes (a listing of another GPU count is another run: left out; a line repeated, as
    ``nvidia-smi nvlink -s`` repeats -L's, is one GPU)."""
    if not q.gpus or all(g.name for g in q.gpus):
        return q
    names = _full_names(text, q.driver_version, {g.index for g in q.gpus}, q_too=False)
    if not names:
        return q
    return replace(q, gpus=[g if g.name else replace(g, name=names.get(g.index)) for g in q.gpus])


def _faults_with_listing(table: SmiTable, text: str) -> SmiTable:
    """``nvidia-smi -L`` whose first GPU's handle could not be read ("Unable to determine the device handle for gpu
    0000:3B:00.0: Unknown Error", then "GPU 1: NVIDIA GeForce RTX 4090 (UUID: ...)"): the GPUs it listed, with the
    faulty one's line kept as a fault, and the list not complete (the faulty GPU is not in it). Any other error text
    as it is."""
    if table.state != FAULTY_GPU or not table.faults:
        return table
    listing = _listing(text) or _rows_listing(text)
    if listing is None or not listing.gpus:
        return table
    return replace(listing, faults=table.faults, state=FAULTY_GPU, gpus_complete=False, error=table.error,
                   error_line=table.error_line)


def _rows_listing(text: str) -> Optional[SmiTable]:
    """The header-less query rows standing among a form's other lines (:func:`shaped_rows_among`), as a listing."""
    rows = shaped_rows_among(text)
    return _csv_as_table(rows, text) if rows.gpus else None


def _version_with_listing(version: SmiTable, text: str) -> SmiTable:
    """``nvidia-smi --version`` with the ``-L`` lines or ``--query-gpu`` CSV of the same paste (an environment
    script printing both): the version block's driver and CUDA, the listing's GPUs (the listing's form); the version
    block alone where there is no listing, or where a CSV names another driver."""
    listing = _listing(text) or _rows_listing(text)
    if listing is None or not listing.gpus:
        return version
    if listing.driver_version and version.driver_version and listing.driver_version != version.driver_version:
        return version
    return replace(listing, driver_version=version.driver_version or listing.driver_version,
                   cuda_version=version.cuda_version, cuda_unavailable=version.cuda_unavailable)


def _other_lister(text: str) -> Optional[SmiTable]:
    """A GPU lister other than nvidia-smi (deviceQuery, nvidia-container-cli info, dcgmi, gpustat, the /proc
    information files, lspci: :mod:`envcheck.parse.gpu_listers`) read as what it makes certain; nvidia-smi's state
    stays unknown (None: it was not what ran)."""
    from envcheck.parse.gpu_listers import read_listing

    got = read_listing(text)
    if got is None:
        return None
    gpus = [SmiGpu(index=g.index, name=g.name, memory_total_mib=g.memory_mib, bus_id=g.bus_id, uuid=g.uuid,
                   compute_capability=g.compute_capability) for g in got.gpus]
    return SmiTable(driver_version=got.driver_version, cuda_version=got.cuda_version, gpus=gpus,
                    gpus_complete=got.complete, state=None, form=got.form, note=got.note,
                    driver_loaded=got.driver_loaded and bool(gpus or got.cuda_version or got.driver_version))
