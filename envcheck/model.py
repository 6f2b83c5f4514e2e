"""Facts about one machine, as frozen dataclasses. ``None`` always means "unknown"."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional, Tuple

from envcheck.versions import DriverVersion, cc_tuple, cuda_tuple, version_tuple

__all__ = ["DriverVersion", "cuda_tuple", "cc_tuple", "version_tuple", "Driver", "Gpu", "Toolkit", "LibCopy", "Framework",
           "PythonInfo", "Host", "DeviceNode", "Accelerators", "ProbeProblem", "Environment", "Finding", "SEVERITIES", "Severity"]


@dataclass(frozen=True)
class Driver:
    """The NVIDIA driver. ``version`` as NVIDIA prints it (kernel module, or the Windows driver
    under WSL2); ``cuda`` the highest CUDA this driver supports ("12.2") — in contrast to the
    CUDA toolkit or the CUDA a framework was built with."""

    version: Optional[DriverVersion] = None
    cuda: Optional[str] = None
    cuda_source: Optional[str] = None  # "nvidia-smi", "NVML", "libcuda", "matrix", "override"
    kernel_module: Optional[str] = None  # "open" | "proprietary"
    kernel_version: Optional[DriverVersion] = None  # /proc or /sys
    nvml_version: Optional[DriverVersion] = None  # the user-space NVML library's driver version
    nvml_library_file: Optional[str] = None
    libcuda_cuda: Optional[str] = None  # cuDriverGetVersion of the libcuda.so.1 that loads
    libcuda_path: Optional[str] = None
    libcuda_file: Optional[str] = None
    #: the libcuda.so.1 that loads is the CUDA toolkit's stub (a ``/stubs/`` path, or cuDriverGetVersion answered
    #: CUDA_ERROR_STUB_LIBRARY, 34): no CUDA call reaches a driver
    libcuda_stub: bool = False
    #: libcuda.so.1 was looked for and did not load: the loader's words (libcuda.json's ``error`` where its ``code`` is
    #: "not-found"); None where it loaded, or was not looked for
    libcuda_error: Optional[str] = None
    source: Optional[str] = None  # where ``version`` came from
    override: Optional[str] = None  # the environment variable the facts came from, if any
    error: Optional[str] = None  # "no-driver" | "driver-library-mismatch" | "no-devices" | "other"
    error_text: Optional[str] = None
    error_origin: Optional[str] = None
    #: what nvidia-smi said: "ok", "no-driver", "driver-library-mismatch", "no-devices" (zero GPUs),
    #: "faulty-gpu" (the driver answered; a GPU shows ERR! or has no device handle), "timed-out",
    #: "crashed", "failed" (an error text envcheck does not classify); None: nvidia-smi absent / not captured
    smi_state: Optional[str] = None
    smi_text: Optional[str] = None  # the line behind a state other than "ok" (error line, crash detail)
    #: the form nvidia-smi.txt was read as (parse.nvidia_smi.FORMS: "table", "nvidia-smi -q", "nvidia-smi -L",
    #: "nvidia-smi --version",
    #: "nvidia-smi --query-gpu", "nvidia-smi -q -x", "error", "unrecognised"); None when there is no such text
    smi_form: Optional[str] = None
    smi_gpus: int = 0  # GPUs nvidia-smi.txt lists (any form)
    #: what nvidia-smi printed as the CUDA version where it printed none ("N/A", "Not Found", "ERR!") and no
    #: other source named it: the driver's CUDA is unknown (not derived from the driver's version)
    smi_cuda_unavailable: Optional[str] = None
    #: nvidia-smi.txt holds a GPU lister other than nvidia-smi that does not tell the driver (``lspci``, a failed
    #: ``deviceQuery``): what it does not tell, for the ``not-checked`` note; None otherwise
    smi_note: Optional[str] = None
    #: nvidia-smi.txt holds a GPU lister that answers only through a loaded driver (deviceQuery, nvidia-container-cli
    #: info, dcgmi, gpustat, the /proc information files) and it listed something: a driver is there
    smi_driver_loaded: bool = False

    @property
    def present(self) -> bool:
        """A driver answered: its version or CUDA is known, or nvidia-smi reached it and reported a faulty
        GPU or "No devices were found" (both need a loaded driver), or listed GPUs (``nvidia-smi -L``, a Jetson
        table whose driver field reads N/A): nvidia-smi answered, so a driver did."""
        return self.version is not None or self.cuda is not None or self.smi_state in ("faulty-gpu", "no-devices") \
            or (self.smi_state == "ok" and self.smi_form in ("nvidia-smi -L", "table", "nvidia-smi -q",
                                                             "nvidia-smi --query-gpu", "nvidia-smi -q -x")
                and self.smi_gpus > 0) or self.smi_driver_loaded


@dataclass(frozen=True)
class Gpu:
    """One GPU as the driver lists it (index, name, memory, compute capability)."""
    index: Optional[int]  # None for a faulty GPU nvidia-smi names only by its bus id
    name: Optional[str]  # None where unknown (an ERR! row, a device-handle error)
    compute_capability: Optional[str] = None  # "8.6"
    cc_source: Optional[str] = None  # "NVML", "nvidia-smi", "gpu table"
    memory_mib: Optional[int] = None
    uuid: Optional[str] = None
    mig: Optional[bool] = None
    visible: bool = True  # after CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES
    segment: Optional[str] = None  # datacenter | consumer | workstation | jetson (from the GPU table)
    bus_id: Optional[str] = None  # "00000000:01:00.0" as nvidia-smi prints it
    #: the error text for a GPU the driver cannot use (an ``ERR!`` row, "Unable to determine the device
    #: handle for GPU 0000:0B:00.0: Unknown Error"); None for a healthy GPU
    fault: Optional[str] = None
    #: contract §9: "nvidia" | "amd" | "intel" | "apple" (None: an NVIDIA GPU of the NVIDIA part of the report)
    vendor: Optional[str] = None
    gfx: Optional[str] = None  # AMD: the LLVM target, normalised ("gfx90a", never "gfx9010")
    device_id: Optional[str] = None  # PCI device id, "0x740c"
    source: Optional[str] = None  # the capture the GPU was read from ("rocminfo", "amd-smi static", ...)
    partition: Optional[str] = None  # AMD compute partition mode of this entry ("SPX", "DPX", "CPX", ...)
    #: AMD: the hardware generation of its gfx target as AMD's GPU table names it ("GFX11", "CDNA3"); None: unknown
    family: Optional[str] = None


@dataclass(frozen=True)
class DeviceNode:
    """One device node a GPU runtime opens (``/dev/kfd``, ``/dev/dri/renderD128``); ``None``: unknown."""

    path: str
    exists: Optional[bool] = None
    readable: Optional[bool] = None
    writable: Optional[bool] = None


@dataclass(frozen=True)
class Accelerators:
    """What is known of the machine's non-NVIDIA accelerators (contract §9). ``None`` / empty: unknown or
    not seen; ``gpus`` holds AMD, Intel and Apple GPUs (NVIDIA's stay in :attr:`Environment.gpus`)."""

    vendor: Optional[str] = None  # "amd" | "intel" | "apple" when such an accelerator is seen
    gpus: Tuple[Gpu, ...] = ()
    #: NVIDIA GPUs seen only through another vendor's tool (sycl-ls' cuda backend, clinfo's "NVIDIA CUDA" platform):
    #: name only; empty where nvidia-smi / NVML lists the machine's NVIDIA GPUs (those are :attr:`Environment.gpus`)
    nvidia_gpus: Tuple[Gpu, ...] = ()
    rocm_version: Optional[str] = None  # ROCm user space ("6.2.4")
    rocm_version_source: Optional[str] = None
    hip: Optional[str] = None  # HIP version without its git hash ("6.2.41133")
    amdgpu: Optional[str] = None  # amdgpu kernel module version ("6.8.5"), or the kernel's for an in-tree module
    amdgpu_source: Optional[str] = None
    device_nodes: Tuple[DeviceNode, ...] = ()
    groups: Optional[Tuple[str, ...]] = None  # the user's groups (devices.json), None: unknown
    permission_text: Optional[str] = None  # a tool's own word that the device nodes cannot be opened (rocminfo)
    kfd_error: Optional[str] = None  # /dev/kfd could be opened by no one: rocminfo's errno text ("Invalid argument")
    kfd_loaded: Optional[bool] = None  # False: rocminfo says "ROCk module is NOT loaded" (no amdgpu KFD driver)
    level_zero: Optional[str] = None  # the Level Zero runtime version sycl-ls / clinfo reported ("1.3.28454")
    compute_runtime: Optional[str] = None  # Intel compute-runtime (NEO) version ("24.05.28454.6")
    level_zero_gpus: Optional[Tuple[str, ...]] = None  # names; None: not captured
    opencl_gpus: Optional[Tuple[str, ...]] = None
    mac_version: Optional[str] = None  # macOS product version ("14.4.1")
    mac_source: Optional[str] = None
    apple_silicon: Optional[bool] = None  # the Mac has an Apple GPU (M1, M2, ...)
    translated: Optional[bool] = None  # the Python runs under Rosetta (sysctl.proc_translated)
    pci_vendors: Tuple[str, ...] = ()  # PCI vendor ids of the display devices ("0x10de", "0x1002", "0x8086")
    l4t: Optional[str] = None  # NVIDIA Jetson: the L4T release of /etc/nv_tegra_release ("35.3.1")
    l4t_source: Optional[str] = None  # "tegra-release.txt" | "jetson_release"
    #: NVIDIA Jetson, from jetson-stats' ``jetson_release``: the JetPack it names ("5.1.2", "4.4 DP"; None where
    #: it printed "Jetpack missing!"), the model, and the CUDA / cuDNN / TensorRT it lists (None: not installed)
    jetpack: Optional[str] = None
    jetson_model: Optional[str] = None
    jetson_cuda: Optional[str] = None
    jetson_cudnn: Optional[str] = None
    jetson_tensorrt: Optional[str] = None
    tools: Tuple[str, ...] = ()  # the captures that spoke (for the report and for "what to supply")
    notes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Toolkit:
    """A CUDA toolkit found on the machine (nvcc, version.json or cuda.h)."""
    version: Optional[str] = None  # "12.1" (major.minor)
    nvcc: Optional[str] = None  # "12.1.105"
    full_version: Optional[str] = None  # version.json / version.txt: "12.1.1"
    root: Optional[str] = None
    source: Optional[str] = None


@dataclass(frozen=True)
class LibCopy:
    """One copy of a library family in one folder (e.g. all libcudnn*.so.8* of /usr/lib/x86_64-linux-gnu)."""

    family: str  # "cudnn", "cudart", "cublas", ...
    major: Optional[int]
    version: Optional[str]  # "8.9.2" where known; the major alone ("9") where only the soname says it
    version_source: Optional[str]  # "file name", "soname", "pip distribution", "cudnn_version.h", ...
    path: str  # the soname path (e.g. .../libcudnn.so.8), else the first file; the header's path for "header"
    directory: str
    #: "ldconfig" | "LD_LIBRARY_PATH" | "pip" | "torch" | "conda" | "toolkit" | "compat" | "wsl" | "other";
    #: "header": a cuDNN header found with no library next to it (nothing loadable there)
    source: str
    owner: Optional[str] = None  # the pip distribution that owns it
    on_search_path: bool = False  # ldconfig cache or LD_LIBRARY_PATH
    files: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Framework:
    """One installed deep-learning framework and the CUDA/cuDNN it was built with."""
    name: str  # "torch", "tensorflow", "jax", "cupy"
    version: Optional[str]
    distribution: Optional[str] = None
    cuda: Optional[str] = None  # the CUDA it was built with ("12.1", major.minor); None for CPU builds / unknown
    #: where ``cuda`` came from: "torch.json", "build_info", "local version label +cu128",
    #: "conda build string", "nvidia-cuda-runtime-cu12 pin", "distribution name cupy-cuda12x", ...
    cuda_source: Optional[str] = None
    cuda_major: Optional[int] = None  # where only the major is known (cupy-cuda12x, jax-cuda12-plugin)
    cudnn: Optional[str] = None  # the cuDNN it was built against / pins
    cudnn_source: Optional[str] = None
    cpu_only: Optional[bool] = None
    rocm: Optional[str] = None  # the ROCm/HIP major.minor the build used ("6.2")
    hip: Optional[str] = None  # torch.version.hip as the build says it ("6.2.41133-dd7f95766")
    xpu: Optional[bool] = None  # an Intel XPU build (torch.version.xpu set, or a +xpu label)
    mps: Optional[Dict[str, Any]] = None  # {"built": bool|None, "available": bool|None} from --deep
    arch_list: Optional[Tuple[str, ...]] = None  # ("sm_50", ..., "compute_90")
    arch_source: Optional[str] = None
    requires: Tuple[str, ...] = ()
    build_info: Dict[str, Any] = field(default_factory=dict)
    runtime: Dict[str, Any] = field(default_factory=dict)  # --deep facts
    evidence: Optional[str] = None


@dataclass(frozen=True)
class PythonInfo:
    """The Python interpreter that was examined."""
    version: Optional[str] = None
    implementation: Optional[str] = None
    platform: Optional[str] = None
    machine: Optional[str] = None
    glibc: Optional[str] = None
    executable: Optional[str] = None

    @property
    def minor(self) -> Optional[str]:
        t = cuda_tuple(self.version) if self.version and "." in self.version else None
        return f"{t[0]}.{t[1]}" if t else None  # "3" alone names no minor: unknown, never "3.0"


@dataclass(frozen=True)
class Host:
    """The machine: host name, OS, container and WSL hints."""
    hostname: Optional[str] = None
    os_name: Optional[str] = None
    wsl: Optional[str] = None
    container: Optional[str] = None  # "docker", "podman", "kubernetes", ...
    env: Dict[str, str] = field(default_factory=dict)
    dev_nvidia: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeProblem:
    """Something the probe could not read, and why."""
    key: str
    status: str
    detail: str


@dataclass(frozen=True)
class UnreadCapture:
    """A small capture that holds text its reader read nothing from (``nvcc.txt`` holding "Command 'nvcc' not
    found", ``sys-module-nvidia-version.txt`` holding ``modinfo nvidia``): its fact is unknown, said so."""
    key: str  # the snapshot file, e.g. "nvcc.txt"
    first_line: str  # its first non-blank line (cut to 120 characters)
    form: Optional[str] = None  # what the text was recognised as, or None (not recognised)


@dataclass(frozen=True)
class Environment:
    """Everything read from the machine (or a snapshot), as the checks see it."""
    source: str  # "live" or the snapshot path
    host: Host
    python: PythonInfo
    driver: Driver
    gpus: Tuple[Gpu, ...]
    toolkit: Toolkit
    libraries: Tuple[LibCopy, ...]
    frameworks: Dict[str, Framework]
    packages: Dict[str, str]
    visible_devices: Optional[str] = None  # CUDA_VISIBLE_DEVICES as set
    nvidia_visible_devices: Optional[str] = None
    problems: Tuple[ProbeProblem, ...] = ()
    notes: Tuple[str, ...] = ()
    #: False when the GPU list is not known to be complete (an nvidia-smi fragment without GPU rows or cut
    #: inside a GPU block, nvidia-smi hung / crashed / failed with no NVML listing, a driver but nothing
    #: that lists GPUs): an empty ``gpus`` then means "unknown", not "none"
    gpus_known: bool = True
    accel: Accelerators = field(default_factory=Accelerators)
    #: the snapshot files this source never looked for (a snapshot made by hand, without captures.json, that
    #: lacks them): their facts are unknown, not absent. Empty for the live probe and for snapshots made by
    #: ``envcheck snapshot`` (their captures.json says what was looked for and not found)
    not_captured: Tuple[str, ...] = ()
    #: the small captures present whose reader read nothing from them (contract §1: unknown, said so)
    unread: Tuple[UnreadCapture, ...] = ()

    def captured(self, *keys: str) -> bool:
        """Whether any of ``keys`` was captured (looked for: found, or found absent)."""
        return any(k not in self.not_captured for k in keys)

    def copies(self, family: str) -> List[LibCopy]:
        return [c for c in self.libraries if c.family == family]

    @property
    def visible_gpus(self) -> List[Gpu]:
        return [g for g in self.gpus if g.visible]


class Severity(str, Enum):
    """How much a finding matters; its value is what the JSON says. ``info`` is a note (nothing to fix, or
    something that could not be checked)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    __str__ = str.__str__

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


SEVERITIES = tuple(s.value for s in Severity)


@dataclass(frozen=True)
class Finding:
    """One thing worth saying. ``id`` is from contract §3; ``fix`` the next action."""

    id: str
    severity: Severity  # a plain "error" / "warning" / "info" is turned into the member
    message: str
    fix: Optional[str] = None
    evidence: Optional[str] = None
    component: Optional[str] = None  # "driver", "gpu", "toolkit", "cudnn", "torch", ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))
