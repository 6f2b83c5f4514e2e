"""Driver and GPU visibility findings."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from envcheck.checks import Context
from envcheck.checks._util import cuda_builds, label
from envcheck.engine import rules
from envcheck.environment import parse_visible_devices
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Severity
from envcheck.parse.nvidia_smi import HEADER_CUT, VGPU_HOST
from envcheck.snapshot.reader import READ_ONLY_KEYS, VENDOR_KEYS

_RELOAD = ("reboot the machine (the usual cause is a driver upgrade without a reboot), or reload the kernel "
           "module: `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`")


def check_smi_form(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """nvidia-smi.txt (or nvidia-smi's output) holds a form envcheck does not read: unknown, said as such."""
    d = env.driver
    where = "nvidia-smi.txt" if env.source != "live" else "nvidia-smi's output"
    if d.smi_note:
        return [Finding("not-checked", Severity.INFO,
                        f"{where} holds {d.smi_note}: what it does not show was not read from it, and nothing is "
                        "concluded about the driver from it.",
                        "Put the output of plain `nvidia-smi` (or `nvidia-smi -q`) in nvidia-smi.txt, or make a "
                        "snapshot on the machine with `envcheck snapshot DIR`.",
                        f"{where}, first line: {d.smi_text!r}" if d.smi_text else f"{where}: {d.smi_form}",
                        "driver")]
    if d.smi_form != "unrecognised":
        return _cuda_unavailable(env, where)
    return [Finding("not-checked", Severity.INFO,
                    f"{where} holds text that is none of the forms envcheck reads (the plain table, `nvidia-smi -q`, "
                    "`nvidia-smi -L`, the `--query-gpu` CSV, an nvidia-smi/NVML error): the driver version, its CUDA "
                    "and the GPU list were not read from it, and nothing is concluded about the driver from it.",
                    "Put the output of plain `nvidia-smi` (or `nvidia-smi -q`) in nvidia-smi.txt, or make a snapshot "
                    "on the machine with `envcheck snapshot DIR`.",
                    f"{where}, first line: {d.smi_text!r}" if d.smi_text else where, "driver")]


#: what each small capture would tell, the command that makes it, and the report's component
_UNREAD_WHAT = {
    "nvcc.txt": ("the CUDA toolkit's release", "`nvcc --version`", "toolkit"),
    "cuda-version.json": ("the CUDA toolkit's version", "the toolkit root's `version.json`", "toolkit"),
    "cuda-version.txt": ("the CUDA toolkit's version", "the toolkit root's `version.txt`", "toolkit"),
    "cudnn_version.h": ("the cuDNN version", "`cudnn_version.h` (`cudnn.h` before cuDNN 8), or its "
                        "`grep CUDNN_MAJOR -A 2` lines", "cudnn"),
    "proc-driver-version.txt": ("the loaded kernel module's driver version", "`cat /proc/driver/nvidia/version`",
                                "driver"),
    "sys-module-nvidia-version.txt": ("the loaded kernel module's driver version",
                                      "`cat /sys/module/nvidia/version`", "driver"),
    "ldconfig.txt": ("the CUDA / cuDNN libraries the linker finds", "`ldconfig -p` (or `ldconfig -p | grep -E "
                     "'cud|nvidia'`)", "cudnn"),
    "tegra-release.txt": ("the Jetson's L4T release", "`cat /etc/nv_tegra_release` (or `dpkg -l nvidia-l4t-core`)",
                          "driver"),
    "jetson-release.txt": ("the Jetson's L4T, JetPack, CUDA, cuDNN and TensorRT", "jetson-stats' `jetson_release`",
                           "driver"),
    "nvidia-smi-query.csv": ("the GPU list", "`nvidia-smi --query-gpu=index,name,driver_version,compute_cap,"
                             "memory.total --format=csv`", "gpu"),
    "proc-version.txt": ("the kernel (whether this is WSL)", "`cat /proc/version`", "driver"),
    "os-release.txt": ("the Linux distribution", "`cat /etc/os-release`", "driver"),
    "rocm-smi-driver.txt": ("the amdgpu driver's version", "`rocm-smi --showdriverversion`", "driver"),
    "amd-smi.txt": ("the AMD GPUs and amd-smi's versions", "`amd-smi` (no argument)", "gpu"),
    "amd-smi-version.txt": ("the ROCm and amdgpu versions", "`amd-smi version`", "driver"),
    "amd-smi-version.json": ("the ROCm and amdgpu versions", "`amd-smi version --json`", "driver"),
    "amd-smi-list.txt": ("the AMD GPU list", "`amd-smi list`", "gpu"),
    "amd-smi-list.json": ("the AMD GPU list", "`amd-smi list --json`", "gpu"),
    "rocm-agent-enumerator.txt": ("the AMD GPUs' gfx targets", "`rocm_agent_enumerator`", "gpu"),
    "hipconfig.txt": ("the HIP version and platform", "`hipconfig --full`", "driver"),
    "hipinfo.txt": ("the AMD GPUs HIP sees", "`hipInfo` (hipinfo.exe on Windows)", "gpu"),
    "rocm-version.txt": ("the ROCm release", "`cat /opt/rocm/.info/version`", "driver"),
    "sys-module-amdgpu-version.txt": ("the loaded amdgpu module's version", "`cat /sys/module/amdgpu/version`",
                                      "driver"),
    "xpu-smi-discovery.txt": ("the Intel GPU list", "`xpu-smi discovery`", "gpu"),
    "sycl-ls.txt": ("the SYCL devices (Level Zero / OpenCL GPUs)", "`sycl-ls`", "gpu"),
    "clinfo.txt": ("the OpenCL platforms and GPUs", "`clinfo`", "gpu"),
    "sw-vers.txt": ("the macOS version", "`sw_vers`", "driver"),
    "system-profiler-displays.txt": ("the Mac's GPUs", "`system_profiler SPDisplaysDataType`", "gpu"),
    "system-profiler-displays.json": ("the Mac's GPUs", "`system_profiler SPDisplaysDataType -json`", "gpu"),
}


def check_unread_captures(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """A small capture holds text its reader read nothing from: its fact is unknown, said so (contract §1)."""
    out: List[Finding] = []
    for u in env.unread:
        what, how, component = _UNREAD_WHAT.get(u.key, ("its fact", "the command's own output", "driver"))
        form = u.form or "none of the forms envcheck reads from it"
        out.append(Finding("not-checked", Severity.INFO,
                           f"{u.key} holds {form}: {what} was not read from it, and nothing is concluded from "
                           "this file.",
                           f"Put the output of {how} in {u.key}, or make the snapshot on the machine with "
                           "`envcheck snapshot DIR`.",
                           f"{u.key}, first line: {u.first_line!r}", component))
    return out


def _cuda_unavailable(env: Environment, where: str) -> List[Finding]:
    """nvidia-smi printed "CUDA Version: N/A" / "Not Found" / "ERR!": the driver's CUDA is unknown, said so."""
    d = env.driver
    if not d.smi_cuda_unavailable or d.cuda is not None or d.libcuda_stub or _user_space_missing(env):
        return []  # (libcuda does not load: check_user_space_missing names that, the cause of the N/A)
    if d.smi_cuda_unavailable == VGPU_HOST:
        return [Finding("not-checked", Severity.INFO,
                        f"{where} holds `nvidia-smi vgpu`'s table, which a vGPU host (hypervisor) driver prints: it runs "
                        "no CUDA itself, so the driver's CUDA is unknown and framework builds were not checked against it.",
                        "Inside the VM that runs CUDA, capture `nvidia-smi` (or make a snapshot there with `envcheck "
                        "snapshot DIR`); its CUDA field names the version of the guest driver.",
                        f"{where}: nvidia-smi vgpu (vGPU ID / VM ID columns)", "driver")]
    if d.smi_cuda_unavailable == HEADER_CUT:
        return [Finding("not-checked", Severity.INFO,
                        f"{where} holds nvidia-smi's table with its header line cut before the CUDA field ended: the "
                        "highest CUDA this driver supports is unknown (it is not derived from the driver's version), so "
                        "framework builds were not checked against it.",
                        "Put the whole output of `nvidia-smi` in the file (its header line ends with 'CUDA Version: "
                        "X.Y |'), or make the snapshot on the machine with `envcheck snapshot DIR`.",
                        f"{where}: {HEADER_CUT}", "driver")]
    return [Finding("not-checked", Severity.INFO,
                    f"{where} prints the driver's CUDA version as {d.smi_cuda_unavailable!r}: the highest CUDA this "
                    f"driver supports is unknown (a vGPU host driver runs no CUDA itself; a Jetson or a WSL2 guest "
                    "with a broken libcuda prints it so too), so framework builds were not checked against it.",
                    _WSL_CUDA_UNKNOWN if env.host.wsl else
                    "Inside the VM / container / guest that runs CUDA, capture `nvidia-smi` (or make a snapshot "
                    "there with `envcheck snapshot DIR`); its CUDA field names the version.",
                    f"{where}: CUDA Version: {d.smi_cuda_unavailable}", "driver")]


#: the fix of an unknown driver CUDA where the capture comes from a WSL2 guest itself: there is no inner guest to
#: capture; the guest's libcuda is the Windows driver's (/usr/lib/wsl/lib), which is what did not answer
_WSL_CUDA_UNKNOWN = ("This capture is from the WSL2 guest itself, whose libcuda is the Windows driver's "
                     "(/usr/lib/wsl/lib/libcuda.so.1): check that it is there (`ls -l /usr/lib/wsl/lib/libcuda*`) and "
                     "that no libcuda of a Linux NVIDIA driver installed inside WSL shadows it (`ldconfig -p | grep "
                     "libcuda`); update the NVIDIA driver on Windows. `envcheck snapshot DIR` inside WSL adds "
                     "libcuda.json, which names the CUDA that libcuda answers.")


def check_gpu_cap(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """A capture listed as many GPUs as envcheck reads from one (parse.limits.MAX_GPUS): the rest was cut."""
    from envcheck.parse.limits import MAX_GPUS

    n = max(len(env.gpus), len(env.accel.gpus))  # NVIDIA's, and AMD / Intel / Apple GPUs (contract §9)
    if n < MAX_GPUS:
        return []
    return [Finding("not-checked", Severity.INFO,
                    f"The captures list at least {MAX_GPUS} GPUs, the most envcheck reads from one capture: any GPU "
                    f"past the first {MAX_GPUS} of a capture was not read, and is not checked.",
                    "A real machine lists far fewer GPUs: check that the nvidia-smi / rocm-smi / amd-smi output "
                    "(or the snapshot's copy of it) is this machine's own and whole.",
                    f"{n} GPU(s) read", "gpu")]


def check_nvml_unknown(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """"Failed to initialize NVML: Unknown Error": NVML is there and could not open the devices. Inside a
    container its usual cause is the container's device access (the device cgroup rules dropped by a
    ``systemctl daemon-reload`` / runtime restart under the systemd cgroup driver), not a missing driver."""
    d = env.driver
    if "nvml-unknown-error" not in (d.smi_state, d.error) or _user_space_answered(env):
        return []  # (a driver version read off the kernel module alone says nothing of the devices' access)
    needing = cuda_builds(env)
    severity = Severity.ERROR if (needing or ctx.require_gpu) else Severity.WARNING
    said = d.smi_text or d.error_text or "Failed to initialize NVML: Unknown Error"
    evidence = f"{d.error_origin or 'nvidia-smi'}: {said}"
    if "insufficient permissions" in said.lower() or "blocked by the operating system" in said.lower():
        return [_nvml_refused(said, severity, evidence)]
    if env.host.container:
        msg = ("NVML is installed but could not open the GPU devices (\"Failed to initialize NVML: Unknown Error\") "
               "inside a container: the driver library is mounted, so the driver is not what is missing; the usual "
               "cause is that the container lost its access to /dev/nvidia* (the device cgroup rules are dropped "
               "when systemd reloads - `systemctl daemon-reload`, a container runtime restart - under the systemd "
               "cgroup driver).")
        fix = ("Restart the container/pod (it gets its device rules again); for good: run the NVIDIA Container "
               "Toolkit's `nvidia-ctk system create-dev-char-symlinks --create-all` (or its udev rule), or pass "
               "the devices explicitly (`--device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm`), or "
               "use the cgroupfs driver; check on the host that `nvidia-smi` works.")
    else:
        msg = ("NVML is installed but could not open the GPU devices (\"Failed to initialize NVML: Unknown "
               "Error\"): the driver's library answered, so this is not a missing driver; usual causes are the "
               "permissions of /dev/nvidia* or, in a container envcheck did not recognise as one, lost device access.")
        fix = ("Check `ls -l /dev/nvidia*` (readable and writable by this user), `dmesg | grep -i nvrm`, and that "
               "`nvidia-smi` works as root; in a container, restart it with GPU access.")
    return [Finding("device-permission", severity, msg, fix, evidence, "driver")]


def _user_space_answered(env: Environment) -> bool:
    """The driver's user-space side answered: NVML or nvidia-smi listed a GPU. A version read off /proc/driver/nvidia
    or /sys/module/nvidia (the kernel module), off the NVML library's file name, or cuDriverGetVersion (which needs no
    GPU) does not show that the GPU devices can be opened (real H200, 2026-11-28: device nodes unusable, all three
    still read)."""
    return bool(env.gpus) or env.driver.smi_gpus > 0


def _user_space_missing(env: Environment) -> bool:
    """check_user_space_missing speaks: libcuda.json says libcuda.so.1 did not load (and names no library that did),
    beside a driver that is there, and no other state is the cause; _cuda_unavailable is silent exactly then."""
    d = env.driver
    if d.libcuda_error is None or d.libcuda_stub or d.libcuda_cuda is not None or d.libcuda_path:
        return False
    if d.smi_cuda_unavailable == VGPU_HOST:
        return False  # a vGPU host (hypervisor) driver has no libcuda by design: _cuda_unavailable says so
    if d.kernel_version is None and not _user_space_answered(env):
        return False  # no driver at all: check_no_driver
    # another state is the cause (check_library_mismatch, check_nvml_unknown, a faulty GPU)
    return not (d.error == "driver-library-mismatch" or d.smi_state not in (None, "no-driver", "ok"))


def check_user_space_missing(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """A driver is there (its kernel module loaded, or nvidia-smi / NVML listing the GPUs) but libcuda.so.1 does not
    load: no CUDA program can reach the GPU. Inside a container the host's module shows through /proc and /sys while
    the NVIDIA runtime mounted nothing (started without GPU access) or not the compute capability's libraries;
    elsewhere the driver's user-space package is missing or broken. Real H200, 2026-11-28: libcuda (and libnvidia-ml)
    bound over by /dev/null in a mount namespace; status said "OK" both times (the kernel module's version counted as
    a driver that answers; nvidia-smi's "CUDA Version: N/A" was read as a vGPU host's)."""
    d = env.driver
    if not _user_space_missing(env):
        return []
    listed = _user_space_answered(env)
    needing = cuda_builds(env)
    severity = Severity.ERROR if (needing or ctx.require_gpu) else Severity.WARNING
    said = [f"kernel module {d.kernel_version}"] if d.kernel_version else []
    if d.smi_state == "no-driver":
        said.append(f"{d.error_origin or 'nvidia-smi'}: {(d.smi_text or d.error_text or 'no driver').rstrip('.')}")
    elif listed:
        said.append(f"nvidia-smi / NVML: {len(env.gpus) or d.smi_gpus} GPU(s) listed"
                    + (f", CUDA Version {d.smi_cuda_unavailable}" if d.smi_cuda_unavailable else ""))
    error = d.libcuda_error or "not loadable"  # (set: _user_space_missing)
    said.append((error if "libcuda" in error else f"libcuda.so.1: {error}")[:400])
    drv = f"The NVIDIA driver {d.version or d.kernel_version}"
    if listed:
        msg = (f"{drv} answers (nvidia-smi lists the GPUs), but libcuda.so.1, the driver's CUDA library that every CUDA "
               "program loads, does not load here: no CUDA program can use the GPU"
               + (" (nvidia-smi's 'CUDA Version: N/A' says the same)." if d.smi_cuda_unavailable else "."))
    elif d.smi_state == "no-driver":
        msg = (f"The NVIDIA kernel module {d.kernel_version} is loaded, but its user-space libraries do not load here "
               "(libcuda.so.1, which every CUDA program needs, and libnvidia-ml.so.1, nvidia-smi's): no CUDA program "
               "can reach the GPU.")
    else:  # (NVML not captured, or it answered and listed no GPU: only libcuda is known not to load)
        msg = (f"The NVIDIA kernel module {d.kernel_version} is loaded, but libcuda.so.1, the driver's CUDA library "
               "that every CUDA program needs, does not load here: no CUDA program can reach the GPU.")
    nodes = bool(env.host.dev_nvidia)
    if env.host.container and not nodes and not listed:
        msg += (" In a container the host's kernel module shows through /proc and /sys; the libraries and /dev/nvidia* "
                "are mounted by the NVIDIA container runtime, so this container was started without GPU access.")
    elif env.host.container:
        msg += (" The NVIDIA container runtime mounts the driver's libraries for the capabilities asked for (compute: "
                "libcuda; utility: nvidia-smi and libnvidia-ml).")
    if needing:
        msg += " " + " ".join(_without_a_driver(env, needing))
    branch = str(d.version or d.kernel_version).split(".")[0]
    if env.host.container and not nodes and not listed:
        fix = _no_driver_fix(env, severity, {}, False)
    elif env.host.container:
        caps = env.host.env.get("NVIDIA_DRIVER_CAPABILITIES")
        fix = ("Start the container with the driver's libraries: NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all) "
               f"with the NVIDIA runtime (`--gpus all`){f'; it is {caps!r} here' if caps is not None else ''}; if it "
               "is already so, the image hides or replaces the mounted libcuda.so.1: check `ldconfig -p | grep "
               "libcuda`, LD_LIBRARY_PATH, and the file the loader names above.")
    elif env.host.wsl:
        fix = ("WSL2: libcuda.so.1 here is the Windows NVIDIA driver's (/usr/lib/wsl/lib): update or reinstall the "
               "NVIDIA driver on Windows, check `ls -l /usr/lib/wsl/lib/libcuda*` and that no libcuda of a Linux driver "
               "installed inside WSL shadows it (`ldconfig -p | grep libcuda`); do not install a Linux NVIDIA driver "
               "inside WSL.")
    elif env.accel.l4t:
        fix = ("On a Jetson libcuda.so.1 is part of L4T (JetPack's nvidia-l4t-cuda package, e.g. "
               "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1), not of a separate driver package: check "
               "`dpkg -l nvidia-l4t-cuda` and `ldconfig -p | grep libcuda`, and reinstall it from JetPack's apt "
               "repository (`sudo apt install --reinstall nvidia-l4t-cuda`).")
    else:
        fix = (f"Install the user-space half of the same driver as the loaded module (Ubuntu / Debian: `sudo apt "
               f"install libnvidia-compute-{branch} nvidia-utils-{branch}`, or rerun the driver's installer of "
               f"{d.version or d.kernel_version}), then check `ldconfig -p | grep -E 'libcuda|libnvidia-ml'` and "
               "`nvidia-smi`.")
    return [Finding("no-gpu-driver", severity, msg, fix, "; ".join(said), "driver")]


def _nvml_refused(said: str, severity: Severity, evidence: str) -> Finding:
    """NVML's "Insufficient Permissions" / "GPU access blocked by the operating system": the driver answered and
    refused this process the devices (NVIDIA's container-toolkit docs: SELinux's container label; the device nodes'
    group)."""
    msg = (f"NVML is installed but was refused the GPU devices ({said!r}): the driver is there, so it is not what is "
           "missing; the usual causes are SELinux (Fedora / RHEL: a container's label may not use /dev/nvidia*) or a "
           "user outside the group that owns /dev/nvidia*.")
    fix = ("Check `ls -l /dev/nvidia*` and that this user is in their group; with SELinux enforcing, allow containers "
           "the devices (`sudo setsebool -P container_use_devices on`) or run the container with "
           "`--security-opt label=disable`; check on the host that `nvidia-smi` works.")
    return Finding("device-permission", severity, msg, fix, evidence, "driver")


def _said_elsewhere(env: Environment, ctx: Context) -> bool:
    """No missing NVIDIA driver to report: one is there, another check names the state, or the machine is
    another vendor's (no NVIDIA-only message there: checks.vendors speaks for it)."""
    d = env.driver
    if d.present or d.error == "driver-library-mismatch":
        return True
    if "nvml-unknown-error" in (d.smi_state, d.error) or (d.smi_form == "unrecognised" and d.error is None) \
            or (d.smi_note and d.error is None):
        return True  # said by check_nvml_unknown / check_smi_form: none is a missing driver
    if env.host.dev_nvidia or d.error_origin == "nvidia-smi" or ctx.require_gpu or "0x10de" in env.accel.pci_vendors:
        return False
    if env.accel.vendor:
        return True  # an AMD / Intel / Apple accelerator
    from envcheck.engine.vendors import other_vendor_builds_only

    # only ROCm / XPU / MPS builds installed: the machine is meant for that accelerator
    return other_vendor_builds_only(env) and not env.accel.l4t


def check_stub_libcuda(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """The libcuda.so.1 that loads is the CUDA toolkit's stub: every CUDA call fails with CUDA_ERROR_STUB_LIBRARY (34,
    "CUDA driver is a stub library"), whether or not the NVIDIA driver is installed (a stubs folder on
    LD_LIBRARY_PATH, or a libcuda.so.1 link to the stub, shadows the driver's own)."""
    d = env.driver
    if not d.libcuda_stub:
        return []
    where = d.libcuda_path or "libcuda.so.1"
    if d.libcuda_file and d.libcuda_file != d.libcuda_path:
        where += f" -> {d.libcuda_file}"
    msg = (f"The libcuda.so.1 this process loads is the CUDA toolkit's stub ({where}), not the NVIDIA driver's: every "
           "CUDA call fails with CUDA_ERROR_STUB_LIBRARY (34, 'CUDA driver is a stub library')")
    msg += (f", although the NVIDIA driver {d.version} is installed." if d.version else ".")
    needing = cuda_builds(env)
    if needing:
        msg += " " + " ".join(_without_a_driver(env, needing))
    ldp = env.host.env.get("LD_LIBRARY_PATH") or ""
    stubs = [p for p in ldp.split(":") if "stubs" in p]
    evidence = f"libcuda.json: {where}" + ("; cuDriverGetVersion: CUresult 34" if d.libcuda_cuda is None else "")
    if stubs:
        evidence += f"; LD_LIBRARY_PATH holds {', '.join(stubs)}"
    fix = ("The stub is for linking only: remove the toolkit's stubs folder from LD_LIBRARY_PATH (" +
           (", ".join(stubs) if stubs else "e.g. /usr/local/cuda/lib64/stubs") + ") and delete any libcuda.so.1 link "
           "made to the stub, so that the driver's own libcuda.so.1 loads (in a container: the one the NVIDIA "
           "Container Toolkit mounts with `--gpus all`).")
    severity = Severity.ERROR if (needing or d.version or ctx.require_gpu or env.host.dev_nvidia) else Severity.WARNING
    return [Finding("no-gpu-driver", severity, msg, fix, evidence, "driver")]


def check_no_driver(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    d = env.driver
    if d.libcuda_stub or _said_elsewhere(env, ctx):
        return []  # (the stub libcuda: check_stub_libcuda names it)
    if env.accel.l4t and d.error_origin != "nvidia-smi" and d.smi_state not in ("no-driver", "timed-out", "crashed"):
        # a Jetson: its GPU driver is part of L4T (no /proc/driver/nvidia, no nvidia-smi before JetPack 6), so
        # their absence is not a missing driver
        return [Finding("not-checked", Severity.INFO,
                        f"This is a Jetson (L4T {env.accel.l4t}): its GPU driver is part of L4T, and these captures "
                        "do not show whether it is loaded.",
                        "Run `envcheck status` on the Jetson itself (JetPack 6 and later also have nvidia-smi), "
                        "or add its nvidia-smi output to the snapshot.",
                        f"{env.accel.l4t_source or 'tegra-release.txt'}; no nvidia-smi output or driver version "
                        "captured", "driver")]
    needing = cuda_builds(env)
    nvd = (env.nvidia_visible_devices or "").strip().lower()
    gpu_expected = bool(env.host.dev_nvidia) or (nvd not in ("", "void", "none")) or bool(
        env.host.env.get("NVIDIA_REQUIRE_CUDA"))
    smi_state = getattr(d, "smi_state", None)
    smi_there = d.error_origin == "nvidia-smi" or smi_state in ("no-driver", "timed-out", "crashed")
    # CUDA builds fall back to the CPU without a driver; that is only worth a warning where a GPU was
    # expected (a CUDA container image, /dev/nvidia* present), and an error with --require-gpu. nvidia-smi
    # installed but unable to reach a driver, under a CUDA build, is a broken GPU node: an error. A hanging
    # or crashing nvidia-smi is a broken driver's classic symptom: at least a warning.
    wsl1 = env.host.wsl == "WSL1"
    # WSL1 has no GPU passthrough at all (no /dev/dxg, no libcuda): under a CUDA build the missing driver is
    # certain, not merely "not found"
    # another vendor's GPUs listed, and nothing NVIDIA's beside them (no /dev/nvidia*, no PCI 0x10de): an nvidia-smi
    # that fails says nothing of an NVIDIA GPU here (a package left from an earlier install is as likely)
    beside = (env.accel.vendor in ("amd", "intel", "apple") and bool(env.accel.gpus) and not env.host.dev_nvidia
              and "0x10de" not in env.accel.pci_vendors)
    if ctx.require_gpu or (needing and (smi_there or wsl1)):
        severity = Severity.ERROR
    elif beside and not needing and smi_state not in ("timed-out", "crashed"):
        severity = Severity.INFO
    elif (needing and gpu_expected) or smi_state in ("timed-out", "crashed") or smi_there:
        severity = Severity.WARNING
    else:
        severity = Severity.INFO
    why = []
    if d.error_text:
        why.append(f"{d.error_origin}: {d.error_text}")
    unknown = _driver_not_captured(env)
    if len(unknown) == len(_DRIVER_CAPTURES) and not d.error_text:
        if not needing and not ctx.require_gpu and env.captured(*_OTHER_VENDOR_KEYS):
            return []  # a hand-made snapshot of another vendor's tools (read or not): nothing NVIDIA-only to say
        return [_driver_not_captured_note(env, needing, ctx)]
    if unknown:
        # a hand-made snapshot: say only what its files show, and name what it does not hold (contract §1)
        missing = [k for keys in unknown.values() for k in keys]
        evidence = "; ".join(why + [f"not in this snapshot (not captured): {', '.join(missing)}"])
        groups = list(unknown)
        held = groups[0] if len(groups) == 1 else ", ".join(groups[:-1]) + " or " + groups[-1]
        seen = ("nvidia-smi could not reach the NVIDIA driver" if smi_there
                else "No NVIDIA driver answered in the captures this snapshot holds")
        parts = [f"{seen}; this snapshot holds no {held} capture, so whether "
                 + ("the kernel module is loaded" if "kernel-module" in unknown else "a driver library answers")
                 + " is not known."]
    else:
        if smi_state in ("timed-out", "crashed", "failed"):
            # nvidia-smi is there: it hung, crashed or failed - never "no nvidia-smi on this machine"
            seen_smi = f"nvidia-smi {_SMI_STATE_WORDS[smi_state]}" + (f" ({d.smi_text})" if d.smi_text else "")
            if not any(w.startswith("nvidia-smi") for w in why):
                why.append(seen_smi)
            evidence = "no /proc/driver/nvidia/version, no libcuda.so.1 / libnvidia-ml.so.1; " + "; ".join(why)
        else:
            evidence = "; ".join(why) or ("no /proc/driver/nvidia/version, no libcuda.so.1 / libnvidia-ml.so.1 and "
                                          "no nvidia-smi on this machine")
        parts = ["No NVIDIA driver is reachable: no kernel module is loaded and no libcuda / NVML library answers."]
    if wsl1:
        parts.insert(0, "WSL1 has no GPU support:")
    if needing and "libcuda / NVML" in unknown and "kernel-module" in unknown and not smi_there:
        # neither the kernel module nor libcuda was captured, and nvidia-smi did not say the driver is unreachable (a
        # container mounts libcuda without nvidia-smi when its driver capabilities lack "utility"): whether they
        # reach a GPU is unknown
        parts.append("Whether installed CUDA builds (" + ", ".join(label(f) for f in needing) +
                     ") can use a GPU here is not known.")
    elif needing:
        parts.extend(_without_a_driver(env, needing))
    elif env.toolkit.version:
        parts.append(f"The CUDA {env.toolkit.version} toolkit is installed, so CUDA code can be compiled here, "
                     "but not run.")
    elif smi_state in ("timed-out", "crashed"):
        parts.append(f"nvidia-smi is installed but {'hung' if smi_state == 'timed-out' else 'crashed'}: the classic "
                     "symptom of a broken or half-upgraded driver.")
    elif smi_there and beside:
        parts.append(f"The GPUs these captures list are {_VENDOR_NAMES[str(env.accel.vendor)]}'s: whether this "
                     "machine has an NVIDIA GPU as well is not known (nvidia-smi may be left from an earlier install).")
    elif smi_there:
        parts.append("nvidia-smi is installed, so this machine is meant to have an NVIDIA GPU.")
    else:
        parts.append("That is expected on a machine without an NVIDIA GPU.")
    fix = _no_driver_fix(env, severity, unknown, wsl1)
    return [Finding("no-gpu-driver", severity, " ".join(parts), fix, evidence, "driver")]


def _without_a_driver(env: Environment, needing: List[Any]) -> List[str]:
    """What the installed CUDA builds do where no driver answers: most run on the CPU; some cannot run at all (CuPy;
    JAX told by JAX_PLATFORMS not to fall back): engine.rules.no_cpu_fallback."""
    from envcheck.engine.rules import no_cpu_fallback

    why = {id(f): no_cpu_fallback(f.name, env.host.env) for f in needing}
    cpu = [f for f in needing if why[id(f)] is None]
    out = ["Installed CUDA builds (" + ", ".join(label(f) for f in cpu) + ") will run on the CPU only."] if cpu else []
    out.extend(f"{label(f)} cannot run at all: {why[id(f)]}." for f in needing if why[id(f)])
    return out


_VENDOR_NAMES = {"amd": "AMD", "intel": "Intel", "apple": "Apple"}
_SMI_STATE_WORDS = {"timed-out": "is installed but hung", "crashed": "is installed but crashed",
                    "failed": "is installed but failed"}


def _no_driver_fix(env: Environment, severity: Severity, unknown: Dict[str, Tuple[str, ...]], wsl1: bool) -> str:
    """The fix of ``no-gpu-driver``: by where the machine runs (WSL, a container, bare metal)."""
    env_caps = env.host.env.get("NVIDIA_DRIVER_CAPABILITIES")
    if wsl1:
        fix = ("Convert the distribution to WSL2 (`wsl --set-version <distro> 2` in Windows; CUDA on WSL needs WSL2), "
               "then install the NVIDIA driver on Windows only: it provides /usr/lib/wsl/lib/libcuda.so.1; do not "
               "install a Linux NVIDIA driver inside WSL.")
    elif env.host.wsl:
        fix = ("WSL2: install or update the NVIDIA driver on Windows (it provides /usr/lib/wsl/lib/libcuda.so.1); "
               "do not install a Linux NVIDIA driver inside WSL.")
    elif env.host.container:
        fix = ("This looks like a container started without GPU access: run it with `--gpus all` (Docker, with the "
               "NVIDIA Container Toolkit), `--device nvidia.com/gpu=all` (Podman/CDI), or request `nvidia.com/gpu` "
               "in the Kubernetes pod spec.")
        if env_caps is not None and "compute" not in env_caps and "all" not in env_caps:
            fix += f" NVIDIA_DRIVER_CAPABILITIES={env_caps!r} lacks 'compute', so libcuda is not mounted."
    else:
        fix = ("If this machine has an NVIDIA GPU, install the NVIDIA driver (e.g. `sudo ubuntu-drivers install` "
               "or your distribution's nvidia-driver package) and reboot; check `lsmod | grep nvidia`.")
    if severity is Severity.INFO:
        # "Otherwise" already means "if it has a GPU": do not say it twice
        if fix.startswith("If this machine has an NVIDIA GPU, "):
            fix = fix[len("If this machine has an NVIDIA GPU, "):]
        fix = "Nothing to do if this machine has no NVIDIA GPU. Otherwise: " + fix[0].lower() + fix[1:]
    if unknown:
        fix += (" To tell more, add " + ", ".join(_SUPPLY[k] for keys in unknown.values() for k in keys)
                + " to the snapshot, or make it on the machine with `envcheck snapshot DIR`.")
    return fix


#: the driver's captures by what they tell (contract §1), and how to supply each
_DRIVER_CAPTURES = (("nvidia-smi", ("nvidia-smi.txt",)),
                    ("kernel-module", ("proc-driver-version.txt", "sys-module-nvidia-version.txt")),
                    ("libcuda / NVML", ("libcuda.json", "nvml.json")))
_SUPPLY = {"nvidia-smi.txt": "`nvidia-smi`'s output as nvidia-smi.txt",
           "proc-driver-version.txt": "/proc/driver/nvidia/version as proc-driver-version.txt",
           "sys-module-nvidia-version.txt": "/sys/module/nvidia/version as sys-module-nvidia-version.txt",
           "libcuda.json": "libcuda.json", "nvml.json": "nvml.json"}


#: contract §9's files of AMD, Intel and Apple tools (not the Jetson's, the PCI / device listings, nor the optional KFD
#: node files, which are never named as not captured)
_OTHER_VENDOR_KEYS = tuple(k for k in VENDOR_KEYS if k not in ("devices.json", "pci-gpus.json", "tegra-release.txt",
                                                                "jetson-release.txt") and not k.startswith("kfd-")
                           and k not in READ_ONLY_KEYS)


def _driver_not_captured_note(env: Environment, needing: List[Any], ctx: Context) -> Finding:
    """A snapshot made by hand that holds none of the driver's captures: the driver is unknown, not absent
    (contract §1: a file never looked for says nothing), so ``not-checked``, never ``no-gpu-driver``."""
    missing = [k for _, keys in _DRIVER_CAPTURES for k in keys]
    unread = [p.key for p in env.problems if p.key in missing and p.status == "unreadable"]
    msg = ("Whether an NVIDIA driver is loaded was not checked: this snapshot holds none of the driver's captures "
           "(nvidia-smi, kernel module, libcuda / NVML)" + (f" it could read ({', '.join(unread)}: unreadable)"
                                                           if unread else "")
           + ", and a file not captured says nothing about the machine.")
    if needing:
        msg += (" Installed CUDA builds (" + ", ".join(label(f) for f in needing) + ") need one; whether they can "
                "use a GPU here is unknown.")
    fix = ("Add " + ", ".join(_SUPPLY[k] for k in missing[:3]) + " to the snapshot, or make it on the machine with "
           "`envcheck snapshot DIR`.")
    return Finding("not-checked", Severity.WARNING if ctx.require_gpu else Severity.INFO, msg, fix,
                   "not in this snapshot (not captured): " + ", ".join(missing), "driver")


def _driver_not_captured(env: Environment) -> Dict[str, Tuple[str, ...]]:
    """The driver's captures a hand-made snapshot does not hold (none of a group's files: that group is unknown),
    by what they would tell; empty for the live probe and for snapshots made by ``envcheck snapshot``."""
    return {what: keys for what, keys in _DRIVER_CAPTURES if not env.captured(*keys)}


def check_library_mismatch(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    d = env.driver
    if d.error == "driver-library-mismatch":
        kv = f" (kernel module {d.kernel_version})" if d.kernel_version else ""
        return [Finding("driver-library-mismatch", Severity.ERROR,
                        f"The NVIDIA kernel module{kv} and the user-space driver libraries are different versions; "
                        "NVML and CUDA refuse to start.", _RELOAD[0].upper() + _RELOAD[1:] + ".", f"{d.error_origin}: {d.error_text}",
                        "driver")]
    if d.kernel_version and d.nvml_version and not env.host.wsl and d.kernel_version.key != d.nvml_version.key:
        ev = f"kernel module {d.kernel_version}; libnvidia-ml {d.nvml_version}"
        if d.nvml_library_file:
            ev += f" ({d.nvml_library_file})"
        return [Finding("driver-library-mismatch", Severity.ERROR,
                        f"The loaded NVIDIA kernel module is {d.kernel_version} but the user-space driver library is "
                        f"{d.nvml_version}.", _RELOAD[0].upper() + _RELOAD[1:] + ".", ev, "driver")]
    return []


def check_no_gpu_visible(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    d = env.driver
    if not d.present:
        return []
    needing = cuda_builds(env)
    severity = Severity.ERROR if (needing or ctx.require_gpu) else Severity.WARNING
    cvd = env.visible_devices
    nvd = env.nvidia_visible_devices
    parsed = parse_visible_devices(cvd)
    if cvd is not None and parsed == []:
        return [Finding("no-gpu-visible", severity,
                        f"CUDA_VISIBLE_DEVICES={cvd!r} hides every GPU from CUDA programs.",
                        "Run `unset CUDA_VISIBLE_DEVICES`, or set it to the GPUs to use, "
                        "e.g. `export CUDA_VISIBLE_DEVICES=0`.", f"CUDA_VISIBLE_DEVICES={cvd!r}", "gpu")]
    if env.gpus and parsed is not None and not env.visible_gpus:
        return [Finding("no-gpu-visible", severity,
                        f"CUDA_VISIBLE_DEVICES={cvd!r} names no GPU of this machine "
                        f"({len(env.gpus)} GPU(s), indices {', '.join(str(g.index) for g in env.gpus if g.index is not None)}).",
                        "Set CUDA_VISIBLE_DEVICES to existing indices or UUIDs (see `nvidia-smi -L`).",
                        f"CUDA_VISIBLE_DEVICES={cvd!r}", "gpu")]
    if nvd is not None and nvd.strip().lower() in ("void", "none", "") and (env.gpus or d.smi_gpus):
        # the GPUs are listed: the variable acts only when the NVIDIA container runtime starts a container, so it did
        # not hide them from this one (real H200, 2026-11-28: NVIDIA_VISIBLE_DEVICES=void set in the shell, torch ran on
        # the GPU while status said "no GPU")
        return [Finding("not-checked", Severity.INFO,
                        f"NVIDIA_VISIBLE_DEVICES={nvd!r} is set, but the GPUs are listed here: the NVIDIA container "
                        "runtime reads it only when it starts a container, so it hides no GPU from this process (a "
                        "container started from this environment would get none).",
                        "Nothing to do for this process; unset NVIDIA_VISIBLE_DEVICES (or set it to `all`) if containers "
                        "started from here should get the GPUs.", f"NVIDIA_VISIBLE_DEVICES={nvd!r}", "gpu")]
    if nvd is not None and nvd.strip().lower() in ("void", "none", ""):
        return [Finding("no-gpu-visible", severity,
                        f"NVIDIA_VISIBLE_DEVICES={nvd!r}: the container runtime was told to expose no GPU.",
                        "Start the container with `--gpus all` or NVIDIA_VISIBLE_DEVICES=all.",
                        f"NVIDIA_VISIBLE_DEVICES={nvd!r}", "gpu")]
    if d.error == "no-devices" or d.smi_state == "no-devices":
        return [_not_initialized(env, severity, d.error_text or "nvidia-smi: No devices were found")]
    if (not env.gpus and env.gpus_known and d.error is None and d.version is not None
            and env.driver.override is None and _gpu_sources_spoke(env)):
        return [Finding("no-gpu-visible", severity,
                        "An NVIDIA driver is loaded but no GPU is visible to this process.",
                        "In a container, start it with GPU access (`--gpus all`); on bare metal check `nvidia-smi -L`, "
                        "`dmesg | grep -i nvrm` and that the GPU is not bound to another driver (vfio).",
                        d.error_text or "no GPU listed by NVML / nvidia-smi", "gpu")]
    return []


def _not_initialized(env: Environment, severity: Severity, evidence: str) -> Finding:
    """nvidia-smi's "No devices were found": the kernel module answered and has no GPU it could bring up."""
    msg = ("An NVIDIA driver is loaded but it did not bring any GPU up (nvidia-smi: \"No devices were found\"). "
           "In the reported cases the GPU is on the PCI bus and the driver failed to initialise it (dmesg shows "
           "`NVRM: RmInitAdapter failed`, an Xid such as 79 \"GPU has fallen off the bus\", or a GPU the driver "
           "release does not support); CUDA_VISIBLE_DEVICES does not affect nvidia-smi.")
    fix = ("Check `dmesg | grep -iE 'nvrm|xid'` and `lspci -nn | grep -i nvidia` (is the GPU on the bus, and bound "
           "to nvidia, not vfio-pci/nouveau?); a driver release that supports this GPU (`nvidia-smi` from a newer "
           "driver names it), persistence mode (`nvidia-smi -pm 1` or nvidia-persistenced), and a cold reboot / "
           "reseat after Xid 79.")
    if env.host.container:
        fix += " In a container, also check that it was started with GPUs (`--gpus all`, NVIDIA_VISIBLE_DEVICES)."
    return Finding("gpu-not-initialized", severity, msg, fix, evidence, "gpu")


def check_faulty_gpus(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """A GPU the driver lists but cannot talk to (nvidia-smi's `ERR!` row, "Unable to determine the device
    handle for GPU ...: Unknown Error"): the driver is there, this GPU is not usable."""
    faulty = [g for g in env.gpus if g.fault]
    if not faulty:
        return []
    where = "; ".join(f"GPU {g.index if g.index is not None else '?'}"
                      + (f" ({g.bus_id})" if g.bus_id else "") + f": {g.fault}" for g in faulty)
    ok = len(env.gpus) - len(faulty)
    return [Finding("gpu-fault", Severity.ERROR,
                    f"{len(faulty)} GPU(s) do not answer the driver ({where})"
                    + (f"; {ok} other GPU(s) do." if ok else ".")
                    + " CUDA programs fail on them or do not see them.",
                    "Check `dmesg | grep -i xid` (Xid 79 'fallen off the bus', Xid 119/120 GSP errors), reset the GPU "
                    "(`nvidia-smi -r -i N` with no process on it) or reboot; a GPU that keeps failing needs service.",
                    where, "gpu")]


def _gpu_sources_spoke(env: Environment) -> bool:
    # only claim "no GPU" when some GPU-listing source actually answered
    return env.driver.source in ("NVML", "nvidia-smi", "nvidia-smi --query-gpu") or env.driver.cuda_source == "NVML"


def check_forward_compat(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """A forward-compatibility libcuda loads: the engine's rule says whether the GPUs support it."""
    d = env.driver
    if not rules.forward_compat_in_use(d.cuda, d.libcuda_cuda, d.libcuda_path):
        return []
    gpus = [g for g in env.visible_gpus if g.name]
    ok, why, _ = rules.forward_compat(matrix, [(g.name or "", g.segment) for g in gpus])
    if ok is True:
        return []
    if ok is False:
        msg = (f"A forward-compatibility libcuda (CUDA {d.libcuda_cuda}, {d.libcuda_path}) is newer than the kernel "
               f"driver (CUDA {d.cuda}): {why}. CUDA fails with "
               "'Error 804: forward compatibility was attempted on non supported HW'.")
    else:
        msg = (f"A forward-compatibility libcuda (CUDA {d.libcuda_cuda}, {d.libcuda_path}) is newer than the kernel "
               f"driver (CUDA {d.cuda}); {why}. "
               "If CUDA fails with 'Error 804: forward compatibility was attempted on non supported HW', they do not.")
    return [Finding("forward-compat-unsupported", Severity.ERROR if ok is False else Severity.WARNING, msg,
                    "Remove the compat folder from LD_LIBRARY_PATH / the ldconfig cache (or uninstall the "
                    "cuda-compat package) and upgrade the NVIDIA driver itself instead.",
                    f"libcuda.so.1 at {d.libcuda_path} reports CUDA {d.libcuda_cuda}", "driver")]
