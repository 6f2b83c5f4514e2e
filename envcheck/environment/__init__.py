"""Build the :class:`~envcheck.model.Environment` from a :class:`~envcheck.snapshot.Source`.

This is where captures meet parsers, one module per component: :mod:`.host` (host, Python,
packages), :mod:`.driver` (driver and what nvidia-smi / NVML said), :mod:`.overrides` (planning
overrides), :mod:`.gpus`, :mod:`.toolkit`, :mod:`.libraries` and :mod:`.frameworks`. A capture that
is missing, failed or unreadable becomes a fact ("not found") or a
:class:`~envcheck.model.ProbeProblem`; nothing here raises on bad input.
"""

from __future__ import annotations

from dataclasses import replace

import re
from typing import Callable, Dict, List, Optional, Tuple

from envcheck import lazyre

from envcheck.capture import FAILED, NOT_FOUND, OK, TIMED_OUT, UNREADABLE, Capture
from envcheck.environment.driver import build_driver
from envcheck.environment.frameworks import build_frameworks
from envcheck.environment.gpus import build_gpus, parse_visible_devices
from envcheck.environment.host import build_host, build_packages, build_python
from envcheck.environment.libraries import build_libraries
from envcheck.environment.overrides import apply_overrides
from envcheck.environment.toolkit import build_toolkit
from envcheck.environment.unread import unread_captures
from envcheck.environment._common import Caps, MatrixFacts
from envcheck.environment.vendors import build_accelerators, vendor_list_partial
from envcheck.model import Environment, ProbeProblem
from envcheck.parse.captures import json_problem
from envcheck.parse.cuda_version import parse_version_json, parse_version_txt
from envcheck.parse.ldconfig import is_native, parse_ldconfig
from envcheck.parse.nvcc import parse_nvcc
from envcheck.parse.proc_driver import parse_proc_driver_version, parse_sys_module_version
from envcheck.parse.libraries import parse_libraries_txt
from envcheck.snapshot import KEYS, KFD_KEYS, READ_ONLY_KEYS, Source

__all__ = ["collect", "build_environment", "parse_visible_devices"]


def collect(source: Source, matrix: MatrixFacts) -> Environment:
    """Read every capture of ``source`` and build the environment."""
    return build_environment(source.all(), matrix, description=source.description)


#: The JSON files envcheck's own snapshot writes (contract §1, §9). One a user made by hand that does not parse
#: is an unreadable capture, named in the report, never silently "nothing installed" (the tools' own JSON -
#: rocm-smi, amd-smi, system_profiler - is judged by its reader, which reads cut pastes too).
_OWN_JSON = ("libcuda.json", "nvml.json", "cuda-version.json", "environ.json", "python.json", "packages.json",
             "torch.json", "tensorflow.json", "requires.json", "container.json", "devices.json", "pci-gpus.json")


def _problem_for(key: str, cap: Capture) -> Optional[ProbeProblem]:
    if cap.status in (TIMED_OUT, UNREADABLE):
        return ProbeProblem(key, str(cap.status), cap.detail)
    if key in _OWN_JSON and cap.status == OK and cap.text is not None:
        why = json_problem(cap.text)
        if why and key == "cuda-version.json" and parse_version_json(cap.text):
            why = None  # a part of version.json (`head`, cut, elided) whose "cuda" entry was read
        if why:
            return ProbeProblem(key, str(UNREADABLE), f"{key}: {why}; not read")
    if cap.status == FAILED and key not in ("nvidia-smi.txt", "nvidia-smi-query.csv"):
        return ProbeProblem(key, str(cap.status), cap.detail)
    return None


#: a native Windows probe's library list ("C:\\Program Files\\...\\cudart64_12.dll", "\\\\server\\share\\...")
_WINDOWS_PATH = lazyre.compile(r"^\s*(?:[A-Za-z]:[\\/]|\\\\)", re.M)
#: the plain-text captures with one form each (contract §1; libraries.txt is envcheck's own list): how to tell the
#: form, and what it is. A file that holds other text (another command's output saved under this name, a paste cut
#: before its first useful line) is unknown - never "no nvcc", "no kernel module" or "no libcudnn" (contract §2,
#: `not_captured`)
_TEXT_FORMS: Tuple[Tuple[str, Callable[[str], bool], str], ...] = (
    ("nvcc.txt", lambda t: parse_nvcc(t) is not None or "Cuda compiler driver" in t, "`nvcc --version`'s output"),
    ("proc-driver-version.txt", lambda t: parse_proc_driver_version(t) is not None or "NVRM version" in t,
     "/proc/driver/nvidia/version"),
    ("sys-module-nvidia-version.txt", lambda t: parse_sys_module_version(t) is not None,
     "/sys/module/nvidia/version (one version number)"),
    ("ldconfig.txt", lambda t: bool(parse_ldconfig(t)) or "libs found in cache" in t, "`ldconfig -p`'s listing"),
    ("cuda-version.txt", lambda t: parse_version_txt(t) is not None, "the CUDA toolkit's version.txt"),
    ("libraries.txt", lambda t: bool(parse_libraries_txt(t)) or _WINDOWS_PATH.search(t) is not None,
     "a list of library paths (one absolute path a line)"),
)
#: a hand-made file that holds the shell's or the OS's "no such command / file" answer is a known absence
_ABSENT = lazyre.compile(r"not found|not recognized as an internal or external command|no such file or directory|"
                     r"cannot find the path|cannot access", re.I)
_ESCAPE = lazyre.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


#: the shell's answer where nvidia-smi is not installed (bash, sh/dash, zsh, cmd.exe, PowerShell), as a hand-made
#: nvidia-smi.txt holds it: "looked for, not found", like the probe's own not-found capture
_SMI_NOT_FOUND = lazyre.compile(r"^(?:\S+:\s*(?:(?:line )?\d+:\s*)?)?nvidia-smi(?:\.exe)?:\s*(?:command )?not found$|"
                            r"^zsh: command not found: nvidia-smi$|"
                            r"^'nvidia-smi(?:\.exe)?' is not recognized as an internal or external command,?|"
                            r"^nvidia-smi(?:\.exe)?\s*: The term 'nvidia-smi(?:\.exe)?' is not recognized", re.I)


_PROMPT = lazyre.compile(r"[$>#%]\s*nvidia-smi(?:\.exe)?\s*$")


def _smi_not_found(cap: Optional[Capture]) -> Optional[Capture]:
    """A hand-made nvidia-smi.txt that holds only the shell's "command not found": a not-found capture."""
    if cap is None or cap.status != OK or not cap.text:
        return None
    # the command line itself behind its prompt ("$ nvidia-smi", "PS C:\\> nvidia-smi", "C:\\>nvidia-smi") is not the answer
    lines = [ln.strip() for ln in cap.text[:4096].splitlines() if ln.strip() and not _PROMPT.search(ln)]
    if not lines or len(lines) > 3 or not _SMI_NOT_FOUND.match(lines[0]):
        return None
    return Capture(NOT_FOUND, detail=f"nvidia-smi: not found (nvidia-smi.txt: {lines[0][:120]!r})", origin=cap.origin)


def _unrecognised(caps: Dict[str, Capture]) -> Tuple[Dict[str, Capture], List[ProbeProblem]]:
    """The captures whose text is in none of their forms, taken out (unknown: as if not captured), and a problem
    naming each with its first line."""
    problems: List[ProbeProblem] = []
    absent = _smi_not_found(caps.get("nvidia-smi.txt"))
    if absent is not None:
        caps = {**caps, "nvidia-smi.txt": absent}
    for key, reads, what in _TEXT_FORMS:
        cap = caps.get(key)
        if cap is None or cap.status != OK or not cap.text or not cap.text.strip():
            continue
        text = cap.text
        if reads(text) or _ABSENT.search(text[:4096]):
            continue
        first = next(ln.strip() for ln in text.splitlines() if ln.strip())
        first = "".join(ch if ch.isprintable() else "?" for ch in _ESCAPE.sub("", first)[:120])
        detail = f"{key} holds text that is not {what} (first line: {first!r}); not read, its facts are unknown"
        problems.append(ProbeProblem(key, str(UNREADABLE), detail))
        caps = {**caps, key: Capture(NOT_FOUND, detail=detail, origin=cap.origin, captured=False)}
    return caps, problems


def build_environment(caps: Dict[str, Capture], matrix: MatrixFacts, description: str = "live") -> Environment:
    unread = unread_captures(Caps(caps))  # before _unrecognised sets aside the forms it does not know
    caps, problems = _unrecognised(caps)
    c = Caps(caps)
    for k in KEYS:
        p = _problem_for(k, c.cap(k))
        if p:
            problems.append(p)

    host, env = build_host(c)
    python = build_python(c)
    packages = build_packages(c)
    lib_paths = parse_libraries_txt(c.text("libraries.txt"))
    ld_entries = [e for e in parse_ldconfig(c.text("ldconfig.txt")) if is_native(e, python.machine)]

    facts = build_driver(c, matrix, host.wsl, lib_paths)
    driver = apply_overrides(facts.driver, env, c, matrix)
    facts.driver = driver
    gpus, gpus_known = build_gpus(c, facts, matrix, env)
    toolkit = build_toolkit(c, env)

    header_cap = c.cap("cudnn_version.h")
    header_origin = header_cap.origin or ""
    header_real = bool(header_origin) and header_origin != f"{description}/cudnn_version.h"
    libraries = build_libraries(ld_entries, lib_paths, env, packages, c.text("cudnn_version.h"), header_origin,
                                header_real)
    frameworks = build_frameworks(c, packages, libraries, matrix, python)
    accel = build_accelerators(c, python, matrix)
    if gpus and accel.nvidia_gpus:
        accel = replace(accel, nvidia_gpus=())  # nvidia-smi / NVML lists them: the same GPUs, counted once
    if toolkit.version is None and accel.jetson_cuda:
        # a Jetson's CUDA toolkit as jetson_release names it (JetPack 4-5 have no nvidia-smi; nvcc may be off PATH)
        mm = ".".join(accel.jetson_cuda.split(".")[:2])
        toolkit = replace(toolkit, version=mm, full_version=accel.jetson_cuda, source="jetson_release")

    # what was never looked for (contract §1: a hand-made snapshot); the optional KFD node files and the
    # snapshot's own bookkeeping say no fact
    # ... and what was there but could not be read (a file far larger than any real capture): it says nothing, so
    # nothing is concluded from it either ("no GPU", "no driver answered"); its problems entry says why
    not_captured = tuple(k for k in KEYS if k not in KFD_KEYS and k not in READ_ONLY_KEYS
                         and k not in ("meta.json", "captures.json")
                         and (not c.cap(k).captured or c.cap(k).status == UNREADABLE))
    if not gpus and not accel.gpus and not accel.nvidia_gpus and not accel.vendor and not any(
            c.cap(k).captured and k not in not_captured for k in ("nvidia-smi.txt", "nvidia-smi-query.csv", "nvml.json")):
        gpus_known = False  # a snapshot made by hand without any GPU listing: unknown, not "no GPU" (contract §1)
    if gpus_known and accel.vendor and not gpus and not accel.gpus and not accel.nvidia_gpus:
        # AMD's, Intel's or Apple's tools answered (`amd-smi version`, a rocm-smi error, sw_vers) but no GPU was read
        # from them: the machine's GPUs are unknown, not "none" (the vendor's not-checked note says so)
        gpus_known = False
    if gpus_known and (accel.gpus or accel.nvidia_gpus) and not gpus and vendor_list_partial(c):
        gpus_known = False  # the vendor's listing shows itself partial ("...", one device asked): some GPUs, not all
    return Environment(source=description, host=host, python=python, driver=driver, gpus=tuple(gpus),
                       toolkit=toolkit, libraries=tuple(libraries), frameworks=frameworks, packages=packages,
                       visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
                       nvidia_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"), problems=tuple(problems),
                       notes=tuple(c.notes) + accel.notes, gpus_known=gpus_known, accel=accel,
                       not_captured=not_captured, unread=unread)
