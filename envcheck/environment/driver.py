"""The NVIDIA driver: its version, the highest CUDA it supports, and what nvidia-smi / NVML said."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from envcheck.capture import NOT_FOUND
from envcheck.environment._common import Caps, s, MatrixFacts
from envcheck.model import Driver, DriverVersion
from envcheck.parse.captures import load_json_object
from envcheck.parse.libraries import parse_library_path
from envcheck.parse.nvidia_smi import FORM_UNKNOWN, LIB_MISMATCH, LISTER_FORMS, SmiQuery, SmiTable, classify_error, \
    parse_query_csv, parse_smi, smi_state
from envcheck.parse.proc_driver import parse_proc_driver_version, parse_sys_module_version
from envcheck.parse.versions import cuda_from_int

__all__ = ["DriverFacts", "build_driver"]


@dataclass
class DriverFacts:
    """The driver and the parsed captures the GPU list is built from."""

    driver: Driver
    smi: SmiTable
    query: SmiQuery
    nvml: Dict[str, Any]


def _nvml_file(lib_paths: List[str]) -> Tuple[Optional[str], Optional[DriverVersion]]:
    """(path, version) of the user-space NVML library from its real file name (libnvidia-ml.so.535.104.05)."""
    for p in lib_paths:
        lf = parse_library_path(p)
        if lf and lf.family == "nvidia-ml" and lf.version and "/compat" not in p:
            return p, DriverVersion.parse(lf.version)
    return None, None


def _stub(libcuda: dict) -> bool:  # type: ignore[type-arg]
    """libcuda.json of the CUDA toolkit's stub libcuda: CUresult 34 (CUDA_ERROR_STUB_LIBRARY, cuda.h) or a file under a
    ``stubs`` folder (the toolkit's lib64/stubs, or a libcuda.so.1 link made to it)."""
    code = libcuda.get("code")
    paths = [p for p in (s(libcuda.get("path")), s(libcuda.get("file"))) if p]
    return (code == 34 and not isinstance(code, bool)) or any("/stubs/" in p.replace("\\", "/") for p in paths)


def build_driver(c: Caps, matrix: MatrixFacts, wsl: Optional[str], lib_paths: List[str]) -> DriverFacts:
    sys_ver = parse_sys_module_version(c.text("sys-module-nvidia-version.txt"))
    proc = parse_proc_driver_version(c.text("proc-driver-version.txt"))
    nvml = load_json_object(c.text("nvml.json")) or {}
    libcuda = load_json_object(c.text("libcuda.json")) or {}
    smi_cap = c.cap("nvidia-smi.txt")
    smi = parse_smi(c.text("nvidia-smi.txt"))
    query = parse_query_csv(c.text("nvidia-smi-query.csv"))

    # the kernel module: its own files, else the NVRM line of /proc/driver/nvidia/version pasted in nvidia-smi.txt
    kernel = DriverVersion.parse(sys_ver) or (DriverVersion.parse(proc.version) if proc else None) \
        or DriverVersion.parse(smi.kernel_version)
    nvml_ver = DriverVersion.parse(s(nvml.get("driver_version")))
    smi_ver = DriverVersion.parse(smi.driver_version)
    query_ver = next((DriverVersion.parse(g.driver_version) for g in query.gpus if g.driver_version), None)
    version, vsource = None, None
    # a GPU lister other than nvidia-smi in nvidia-smi.txt (deviceQuery, nvidia-container-cli info, ...) is named
    smi_src = smi.form if smi.form in LISTER_FORMS else "nvidia-smi"
    for v, src in ((kernel, "/sys/module/nvidia/version" if sys_ver else "/proc/driver/nvidia/version"),
                   (nvml_ver, "NVML"), (smi_ver, smi_src), (query_ver, "nvidia-smi --query-gpu")):
        if v is not None:
            version, vsource = v, src
            break
    if wsl and (nvml_ver or smi_ver):  # WSL2: no kernel module; the Windows driver is what counts
        version, vsource = (nvml_ver, "NVML") if nvml_ver else (smi_ver, "nvidia-smi")
    if not wsl and kernel is not None and smi_ver is not None and kernel.key != smi_ver.key:
        c.note(f"The loaded kernel module is driver {kernel} but nvidia-smi reports {smi_ver} (its user-space NVML "
               "library); the driver version is taken from the kernel module.")

    cuda, csource = None, None
    nvml_cuda = cuda_from_int(nvml.get("cuda_driver_version"))
    if nvml_cuda:
        cuda, csource = nvml_cuda, "NVML"
    elif smi.cuda_version:
        cuda, csource = smi.cuda_version, smi_src
    if nvml_cuda and smi.cuda_version and nvml_cuda != smi.cuda_version:
        c.note(f"NVML says the driver supports CUDA {nvml_cuda}, nvidia-smi says {smi.cuda_version}; using NVML's.")
    libcuda_cuda = cuda_from_int(libcuda.get("driver_cuda"))
    libcuda_path = s(libcuda.get("path"))
    if cuda is None and libcuda_cuda and not (libcuda_path and "compat" in libcuda_path):
        cuda, csource = libcuda_cuda, "libcuda"
    # nvidia-smi printed "CUDA Version: N/A" / "Not Found" / "ERR!": this driver's CUDA is unknown (a vGPU host
    # driver runs no CUDA at all); deriving it from the driver's version would state what the capture denies
    if cuda is None and version is not None and not smi.cuda_unavailable:
        derived, how = matrix.driver_highest_cuda(version, windows=bool(wsl))
        if derived:
            cuda, csource = derived, f"envcheck matrix ({how})"

    # errors: nvidia-smi's text, NVML's error string
    error, error_text, error_origin = None, None, None
    if smi.error:
        error, error_text, error_origin = smi.error, smi.error_line, "nvidia-smi"
    nvml_err = s(nvml.get("error"))
    if nvml_err and nvml.get("code") != "not-found":
        kind, _ = classify_error(nvml_err)
        # nvmlInit's own return code: NVML_ERROR_NO_PERMISSION (4), NVML_ERROR_UNKNOWN (999) - NVML answered
        # (contract §9: driver.nvidia_smi / the error is nvml-unknown-error for both)
        code = nvml.get("code")
        kind = kind or ("nvml-unknown-error" if code in (4, 999) and not isinstance(code, bool) else "other")
        if error is None or (kind == LIB_MISMATCH and error != LIB_MISMATCH):
            error, error_text, error_origin = kind, f"NVML: {nvml_err}", "NVML"

    state = smi_state(smi, str(smi_cap.status), smi_cap.detail, smi_cap.returncode)
    state_text: Optional[str] = None
    if state in ("timed-out", "crashed"):
        state_text = smi_cap.detail or (smi.error_line if smi.error_line else None)
        if state == "crashed" and not state_text and smi_cap.text:
            state_text = smi_cap.text.strip().splitlines()[-1][:300] if smi_cap.text.strip() else None
    elif state == "faulty-gpu":
        faulty = [f.text for f in smi.faults] + [g.fault for g in smi.gpus if g.fault]
        state_text = "; ".join(t for t in faulty if t)[:600] or smi.error_line
    elif state is None and smi.form == FORM_UNKNOWN:
        state_text = smi.first_line
    elif state not in (None, "ok"):
        state_text = smi.error_line or (smi_cap.detail if smi_cap.status != NOT_FOUND else None)
        if state == "failed" and not state_text and smi_cap.text and smi_cap.text.strip():
            state_text = smi_cap.text.strip().splitlines()[0][:300]

    nvml_file, nvml_file_ver = _nvml_file(lib_paths)
    driver = Driver(version=version, cuda=cuda, cuda_source=csource,
                    kernel_module=proc.kernel_module if proc else smi.kernel_module, kernel_version=kernel,
                    nvml_version=nvml_ver or nvml_file_ver, nvml_library_file=nvml_file,
                    libcuda_cuda=libcuda_cuda, libcuda_path=libcuda_path, libcuda_file=s(libcuda.get("file")),
                    libcuda_stub=_stub(libcuda),
                    libcuda_error=(s(libcuda.get("error")) or "not loadable") if libcuda.get("code") == "not-found" else None,
                    source=vsource, error=error, error_text=error_text, error_origin=error_origin,
                    smi_state=state, smi_text=state_text, smi_form=smi.form,
                    smi_cuda_unavailable=smi.cuda_unavailable if cuda is None else None,
                    smi_gpus=len(smi.gpus), smi_note=smi.note, smi_driver_loaded=smi.driver_loaded)
    return DriverFacts(driver=driver, smi=smi, query=query, nvml=nvml)
