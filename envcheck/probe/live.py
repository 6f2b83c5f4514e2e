"""LiveSource: capture the running machine as snapshot files (contract §1).

Each capture's text is exactly what the snapshot file holds. Subprocesses (nvidia-smi, nvcc,
ldconfig, the NVML/libcuda child) run in parallel threads, each with its own timeout.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from envcheck import __version__
from envcheck.parse.captures import load_json
from envcheck.parse.ldconfig import parse_ldconfig
from envcheck.parse.libraries import parse_library_path
from envcheck.parse.pyfiles import parse_tf_build_info_py, parse_torch_version_py
from envcheck.probe import glob_prefix
from envcheck.proc import FAILED, NOT_FOUND, OK, Capture, kill_children_on_signals, read_text, run_command, which
from envcheck.probe.vendors import AMD_COMMAND_KEYS, AMD_VIEW_KEYS, INTEL_COMMAND_KEYS, MAC_COMMAND_KEYS, VendorProbes
from envcheck.snapshot import KEYS, SNAPSHOT_SCHEMA, Source

__all__ = ["LiveSource", "default_timeout", "resolve_interpreter"]

WSL_LIB = "/usr/lib/wsl/lib"
QUERY_FIELDS = "index,name,driver_version,compute_cap,memory.total"
QUERY_FIELDS_OLD = "index,name,driver_version,memory.total"  # drivers before 510 lack compute_cap

# environ.json: the variables that configure the GPU stack, by name (envcheck.snapshot.redact.ENV_ALLOW),
# secret-looking values masked; never by prefix (TF_* holds Terraform's TF_TOKEN_*)

FRAMEWORK_DISTS = ("torch", "tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel",
                   "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin",
                   "jax-cuda13-pjrt", "torchvision", "torchaudio", "paddlepaddle-gpu", "onnxruntime-gpu")


def default_timeout() -> float:
    """Seconds each probe may take (``ENVCHECK_PROBE_TIMEOUT``, default 10)."""
    try:
        v = float(os.environ.get("ENVCHECK_PROBE_TIMEOUT", "10"))
        return v if 0 < v <= 600 else 10.0
    except ValueError:
        return 10.0


#: run by ``--interpreter``: the other Python's sys.path and facts, as one JSON line
#: libraries.txt rows at most (a real machine has hundreds)
MAX_LIBRARY_PATHS = 5000

_INTERP_CODE = (
    "import json, os, platform, sys\n"
    "try:\n    libc = os.confstr('CS_GNU_LIBC_VERSION')\nexcept Exception:\n    libc = None\n"
    "print(json.dumps({'sys_path': [p for p in sys.path if isinstance(p, str)],"
    " 'version': platform.python_version(), 'implementation': platform.python_implementation(),"
    " 'platform': sys.platform, 'machine': platform.machine(), 'executable': sys.executable,"
    " 'prefix': sys.prefix, 'libc': libc, 'mac_ver': platform.mac_ver()[0] or None}))\n"
)


def resolve_interpreter(interpreter: Optional[str]) -> Optional[str]:
    """``--interpreter`` value -> an absolute path, or ``None`` for "this interpreter".

    A bare name (``python3``) is looked up on PATH; a path to the running interpreter itself
    (same path, links not followed) means ``None``. A name that cannot be found is returned unchanged so that
    the capture reports it as not found."""
    if not interpreter:
        return None
    path = interpreter
    if os.sep not in interpreter:
        path = which(interpreter) or interpreter
    if os.sep in path:
        path = os.path.abspath(path)
        # compare paths, never resolved files: a venv's python is a symbolic link to the base
        # interpreter, yet has its own sys.prefix and site-packages
        if sys.executable and path == os.path.abspath(sys.executable):
            return None
    return path


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _proc_translated() -> Optional[bool]:
    """``sysctl.proc_translated`` of this process (macOS): True under Rosetta 2, False natively, None unknown."""
    try:
        import ctypes

        libc = ctypes.CDLL("/usr/lib/libc.dylib")
        val = ctypes.c_int(0)
        size = ctypes.c_size_t(ctypes.sizeof(val))
        if libc.sysctlbyname(b"sysctl.proc_translated", ctypes.byref(val), ctypes.byref(size), None, 0) != 0:
            return False if _machine() == "arm64" else None  # the key is absent on Intel Macs
        return bool(val.value)
    except (OSError, AttributeError, ValueError):
        return None


def _hostname() -> str:
    """``socket.gethostname()``: on a POSIX system the kernel's node name, which is what the C library's
    gethostname reads too (importing socket costs ``envcheck status`` ~1.5 ms)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket

    return socket.gethostname()


def _listdir(path: str) -> List[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


#: capture key -> the method that captures it ("nvidia-smi.txt" -> "_k_nvidia_smi_txt")
_METHODS: Dict[str, str] = {}


#: every ASCII character but a-z and 0-9 -> "_" (str.translate's table for :func:`_method_name`)
_NOT_NAME = {i: "_" for i in range(128) if not (97 <= i <= 122 or 48 <= i <= 57)}


def _method_name(key: str) -> str:
    """``"_k_" + re.sub(r"[^a-z0-9]", "_", key)``, written out (a status run compiles no pattern for it; an ASCII
    key, as every snapshot key is, in one translate: ~110 keys a run, not a Python step per character)."""
    name = _METHODS.get(key)
    if name is None:
        name = "_k_" + (key.translate(_NOT_NAME) if key.isascii() else
                        "".join(c if "a" <= c <= "z" or "0" <= c <= "9" else "_" for c in key))
        if len(_METHODS) < 4096:
            _METHODS[key] = name
    return name


def _python_version() -> str:
    """``platform.python_version()``: for CPython the first word of ``sys.version`` when that is the plain
    release ``X.Y.Z`` of ``sys.version_info`` (what platform's parse of ``sys.version`` gives; platform costs a
    status run its import and four patterns), else platform's own answer."""
    word = sys.version.split(" ", 1)[0]
    if (sys.implementation.name == "cpython" and word == "%d.%d.%d" % sys.version_info[:3]
            and sys.version.startswith(word + " (")):
        return word
    import platform

    return platform.python_version()


def _python_implementation() -> str:
    """``platform.python_implementation()``: "CPython" for CPython (``sys.version`` naming no other), else
    platform's own answer."""
    if (sys.implementation.name == "cpython" and not sys.platform.startswith("java")
            and "PyPy" not in sys.version and "IronPython" not in sys.version and "Brython" not in sys.version):
        return "CPython"
    import platform

    return platform.python_implementation()


def _machine() -> str:
    """``platform.machine()``: on Linux ``os.uname().machine`` (platform.uname() takes it from there), else
    platform's own answer."""
    if sys.platform == "linux" and hasattr(os, "uname"):
        machine = os.uname().machine
        if machine:
            return machine
    import platform

    return platform.machine()


class LiveSource(VendorProbes, Source):
    """The running machine. ``root`` prefixes every absolute file path (tests use a fake
    ``/sys``–``/proc`` tree); commands are found on PATH."""

    live = True

    def __init__(self, *, timeout: Optional[float] = None, root: str = "", deep: bool = False,
                 environ: Optional[Dict[str, str]] = None, interpreter: Optional[str] = None):
        self.timeout = timeout if timeout is not None else default_timeout()
        self.root = root.rstrip("/")
        self.deep = deep
        self.env = dict(os.environ if environ is None else environ)
        self.description = "live"
        # the probes run in worker threads, in their own sessions: SIGTERM/SIGINT/SIGHUP/SIGQUIT to
        # envcheck must take their process groups down too (only the main thread can set that up)
        kill_children_on_signals()
        # Another Python (the training environment's) whose sys.path and version are read instead of
        # the running interpreter's: an envcheck installed in its own venv inspects the job's packages.
        self.interpreter = resolve_interpreter(interpreter)
        self._interp: Optional[Dict[str, Any]] = None
        self._cache: Dict[str, Capture] = {}
        self._owner: Dict[str, int] = {}  # key -> the thread capturing it (while it does)
        self._lock = threading.Lock()
        # notified whenever a capture is done: one condition for every key, not an Event per key (a status run
        # asks for ~110 keys and another thread waits for one of them now and then; an Event is ~20 us to make)
        self._done = threading.Condition(self._lock)
        self._site_dirs: Optional[List[str]] = None
        self._roots: Optional[List[str]] = None  # the CUDA toolkit's roots (_toolkit_roots)
        self._dists: Optional[Dict[str, str]] = None  # normalized name -> dist-info dir

    # -- helpers ---------------------------------------------------------------------------
    def _p(self, path: str) -> str:
        return self.root + path if self.root and path.startswith("/") else path

    def _read(self, path: str) -> Capture:
        return read_text(self._p(path))

    def _run(self, argv: List[str], timeout: Optional[float] = None) -> Capture:
        return run_command(argv, timeout or self.timeout)

    def get(self, key: str) -> Capture:
        """The capture of ``key``, made once: a thread asking for a key another thread is capturing waits for
        that one (no command runs twice)."""
        me = threading.get_ident()
        with self._lock:
            while True:
                if key in self._cache:
                    return self._cache[key]
                owner = self._owner.get(key)
                if owner is None:
                    self._owner[key] = me
                    break
                if owner == me:
                    break
                self._done.wait(0.1)  # in slices: a stop signal to the main thread is handled meanwhile
        if owner == me:  # asked again while capturing it: never wait for oneself
            return self._capture(key)
        try:
            cap = self._capture(key)
            with self._lock:
                self._cache.setdefault(key, cap)
                return self._cache[key]
        finally:  # also when the capture raised: a waiting thread then tries it itself
            with self._lock:
                self._owner.pop(key, None)
                self._done.notify_all()

    def _capture(self, key: str) -> Capture:
        fn: Optional[Callable[[], Capture]] = getattr(self, _method_name(key), None)
        if key.startswith("kfd-topology/"):
            return self._kfd_key(key)
        return fn() if fn else Capture(NOT_FOUND, detail=f"{key}: unknown key")

    def all(self) -> Dict[str, Capture]:
        """Every capture; the slow ones (subprocesses) run in parallel."""
        groups = [("nvidia-smi.txt",), ("nvidia-smi-query.csv",), ("ldconfig.txt", "nvml.json", "libcuda.json"),
                  ("nvcc.txt",), AMD_COMMAND_KEYS, AMD_VIEW_KEYS, INTEL_COMMAND_KEYS, MAC_COMMAND_KEYS]
        parallel = {k for g in groups for k in g}
        # a thread only for a group that can start a command here (each thread costs a status run ~0.2-0.5 ms of
        # CPU); the others (no such tool or hardware) answer at once, in this thread
        busy = [g for g in groups if self._may_run_command(g)]
        threads = [threading.Thread(target=lambda g=g: [self.get(k) for k in g], daemon=True) for g in busy]
        for t in threads:
            t.start()
        out = {}
        for g in groups:
            if g not in busy:
                for k in g:
                    out[k] = self.get(k)
        for k in KEYS:
            if k == "captures.json" or k in parallel:
                continue
            out[k] = self.get(k)
        for t in threads:
            while t.is_alive():  # in slices: a stop signal delivered to a worker thread is handled here
                t.join(0.1)
        for k in KEYS:
            out[k] = self.get(k)
        return out

    def _may_run_command(self, group: Tuple[str, ...]) -> bool:
        """Whether capturing ``group`` (of :meth:`all`) can start a command on this machine: False where each of
        its keys answers "not found" / "skipped" without one (no nvidia-smi; no AMD or Intel GPU for their tools,
        which look for the hardware first; not macOS)."""
        if group == AMD_COMMAND_KEYS:
            return self._amd_present()
        if group == AMD_VIEW_KEYS:  # hipInfo also runs on Windows, where no amdgpu module is seen
            return self._amd_present() or sys.platform == "win32"
        if group == INTEL_COMMAND_KEYS:  # clinfo runs for AMD's GPUs too
            return self._amd_present() or self._intel_present()
        if group == MAC_COMMAND_KEYS:
            return sys.platform == "darwin"
        if all(k.startswith("nvidia-smi") for k in group):
            return self._nvidia_smi() is not None
        return True

    # -- commands ----------------------------------------------------------------------------
    def _nvidia_smi(self) -> Optional[str]:
        return which("nvidia-smi", [self._p(WSL_LIB)] if os.path.isdir(self._p(WSL_LIB)) else [])

    def _k_nvidia_smi_txt(self) -> Capture:
        exe = self._nvidia_smi()
        if exe is None:
            return Capture(NOT_FOUND, detail="nvidia-smi: command not found", origin="nvidia-smi")
        return self._run([exe])

    def _k_nvidia_smi_query_csv(self) -> Capture:
        exe = self._nvidia_smi()
        if exe is None:
            return Capture(NOT_FOUND, detail="nvidia-smi: command not found", origin="nvidia-smi")
        # the query runs beside the plain table, not after it (on a real GPU each takes 20-100 ms), and its
        # answer is kept only when the table succeeded: a driver that cannot answer the table is not asked twice
        # for the record (all() captures the table in its own thread; alone, a helper thread captures it here)
        table_thread = threading.Thread(target=self.get, args=("nvidia-smi.txt",), daemon=True)
        table_thread.start()
        cap = self._run([exe, f"--query-gpu={QUERY_FIELDS}", "--format=csv"])
        if cap.status == FAILED and cap.text and "compute_cap" in cap.text:
            cap = self._run([exe, f"--query-gpu={QUERY_FIELDS_OLD}", "--format=csv"])
        while table_thread.is_alive():
            table_thread.join(0.1)
        if self.get("nvidia-smi.txt").status != OK:
            return Capture(NOT_FOUND, detail="skipped: plain nvidia-smi did not succeed", origin=exe)
        return cap

    def _k_nvcc_txt(self) -> Capture:
        cands = [which("nvcc")]
        for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
            if self.env.get(var):
                cands.append(os.path.join(self.env[var], "bin", "nvcc"))
        cands.append(self._p("/usr/local/cuda/bin/nvcc"))
        for c in cands:
            if c and os.path.isfile(c):
                # the real path names the toolkit root (/usr/local/bin/nvcc -> /usr/local/cuda-13.0/bin/nvcc)
                return self._run([os.path.realpath(c), "--version"])
        return Capture(NOT_FOUND, detail="nvcc: not on PATH, CUDA_HOME, CUDA_PATH or /usr/local/cuda",
                       origin="nvcc")

    def _k_ldconfig_txt(self) -> Capture:
        exe = which("ldconfig", [self._p("/sbin"), self._p("/usr/sbin")])
        if exe is None:
            return Capture(NOT_FOUND, detail="ldconfig: command not found", origin="ldconfig")
        return self._run([exe, "-p"])

    def _driver_lib_candidates(self, name: str) -> List[str]:
        found = []
        for e in parse_ldconfig(self.text("ldconfig.txt")):
            if e.soname == name:
                found.append(e.path)
        for d in self._ld_library_path() + [WSL_LIB]:
            p = os.path.join(self._p(d), name)
            if os.path.exists(p):
                found.append(p)
        return found

    def _ctypes_probe(self) -> Dict[str, Dict[str, Any]]:
        key = "_ctypes"
        with self._lock:
            if key in self._cache:
                cached: Dict[str, Dict[str, Any]] = json.loads(self._cache[key].text or "{}")
                return cached
        want = []
        if self._driver_lib_candidates("libnvidia-ml.so.1"):
            want.append("nvml")
        if self._driver_lib_candidates("libcuda.so.1"):
            want.append("libcuda")
        result: Dict[str, Dict[str, Any]] = {}
        if want and not self.root:
            child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_nvml_child.py")
            argv = [sys.executable, "-I", "-S", child] + want + (["--init"] if self.deep else [])
            cap = self._run(argv)
            if cap.status == OK:
                data = load_json(cap.text or "{}")
                if isinstance(data, dict):
                    result = {k: v for k, v in data.items() if isinstance(v, dict)}
                else:
                    result = {w: {"error": "the NVML/libcuda probe printed no JSON"} for w in want}
            else:
                why = cap.detail or cap.status
                result = {w: {"error": f"the NVML/libcuda probe failed: {why}", "code": cap.status} for w in want}
        for w, lib in (("nvml", "libnvidia-ml.so.1"), ("libcuda", "libcuda.so.1")):
            result.setdefault(w, {"error": f"{lib} not found (ldconfig cache, LD_LIBRARY_PATH, {WSL_LIB})",
                                  "code": "not-found"})
        with self._lock:
            self._cache[key] = Capture(OK, text=json.dumps(result))
        return result

    def _k_nvml_json(self) -> Capture:
        return Capture(OK, text=_json(self._ctypes_probe()["nvml"]), origin="NVML (libnvidia-ml.so.1)")

    def _k_libcuda_json(self) -> Capture:
        return Capture(OK, text=_json(self._ctypes_probe()["libcuda"]), origin="libcuda.so.1 cuDriverGetVersion")

    # -- files --------------------------------------------------------------------------------
    def _k_proc_driver_version_txt(self) -> Capture:
        return self._read("/proc/driver/nvidia/version")

    def _k_sys_module_nvidia_version_txt(self) -> Capture:
        return self._read("/sys/module/nvidia/version")

    def _k_proc_version_txt(self) -> Capture:
        return self._read("/proc/version")

    def _k_os_release_txt(self) -> Capture:
        cap = self._read("/etc/os-release")
        return cap if cap.status != NOT_FOUND else self._read("/usr/lib/os-release")

    def _toolkit_roots(self) -> List[str]:
        if self._roots is None:  # (asked by four captures: nvcc looked up on PATH once)
            self._roots = self._find_toolkit_roots()
        return list(self._roots)

    def _find_toolkit_roots(self) -> List[str]:
        roots = []
        for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
            if self.env.get(var):
                roots.append(self.env[var])
        nvcc = which("nvcc")
        if nvcc:
            roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
        roots.append(self._p("/usr/local/cuda"))
        seen, out = set(), []
        for r in roots:
            if r not in seen:
                seen.add(r)
                out.append(r)
        return out

    def _k_cuda_version_json(self) -> Capture:
        for r in self._toolkit_roots():
            cap = read_text(os.path.join(r, "version.json"))
            if cap.status != NOT_FOUND:
                return cap
        return Capture(NOT_FOUND, detail="no version.json in the CUDA toolkit roots")

    def _k_cuda_version_txt(self) -> Capture:
        for r in self._toolkit_roots():
            cap = read_text(os.path.join(r, "version.txt"))
            if cap.status != NOT_FOUND:
                return cap
        return Capture(NOT_FOUND, detail="no version.txt in the CUDA toolkit roots")

    def _include_dirs(self) -> List[str]:
        dirs = [os.path.join(r, "include") for r in self._toolkit_roots()]
        for sd in self.site_dirs():
            dirs.append(os.path.join(sd, "nvidia", "cudnn", "include"))
        if self.env.get("CONDA_PREFIX"):
            dirs.append(os.path.join(self.env["CONDA_PREFIX"], "include"))
        dirs += [self._p("/usr/include"), self._p("/usr/include/x86_64-linux-gnu"),
                 self._p("/usr/include/aarch64-linux-gnu"), self._p("/usr/local/include")]
        return dirs

    def _k_cudnn_version_h(self) -> Capture:
        for d in self._include_dirs():
            for name in ("cudnn_version.h", "cudnn.h"):
                cap = read_text(os.path.join(d, name))
                if cap.status == OK and "CUDNN_MAJOR" in (cap.text or ""):
                    return cap
        return Capture(NOT_FOUND, detail="no cudnn_version.h / cudnn.h with CUDNN_MAJOR in the include folders")

    def _ld_library_path(self) -> List[str]:
        return [d for d in self.env.get("LD_LIBRARY_PATH", "").split(":") if d.startswith("/")]

    def library_dirs(self) -> List[str]:
        """Folders scanned for CUDA / cuDNN / NVIDIA libraries outside the ldconfig cache."""
        dirs: List[str] = list(self._ld_library_path())
        for r in self._toolkit_roots():
            dirs += [os.path.join(r, "lib64"), os.path.join(r, "lib"), os.path.join(r, "compat")]
            dirs += sorted(glob_prefix(os.path.join(r, "targets"), "", "lib"))
        dirs += sorted(glob_prefix(self._p("/usr/local"), "cuda-", "lib64"))
        for sd in self.site_dirs():
            dirs += sorted(glob_prefix(os.path.join(sd, "nvidia"), "", "lib"))
            dirs += [os.path.join(sd, "torch", "lib"), os.path.join(sd, "tensorflow"),
                     os.path.join(sd, "jaxlib", "cuda")]
        if self.env.get("CONDA_PREFIX"):
            dirs.append(os.path.join(self.env["CONDA_PREFIX"], "lib"))
        dirs.append(self._p(WSL_LIB))
        # the folders of the ldconfig cache's NVIDIA entries: their versioned file names
        # (libcudnn.so.8.9.2, libnvidia-ml.so.535.104.05) tell versions the cache does not.
        for e in parse_ldconfig(self.text("ldconfig.txt")):
            if parse_library_path(e.path):
                dirs.append(os.path.dirname(e.path))
        seen, out = set(), []
        for d in dirs:
            n = os.path.realpath(d) if os.path.isdir(d) else os.path.normpath(d)
            if n not in seen:
                seen.add(n)
                out.append(n)
        return out

    def _k_libraries_txt(self) -> Capture:
        paths: List[str] = []
        for d in self.library_dirs():
            if len(paths) >= MAX_LIBRARY_PATHS:  # as many as a snapshot may hold (snapshot.reader.LIMITS)
                break
            for name in sorted(_listdir(d)):
                if len(paths) >= MAX_LIBRARY_PATHS:
                    break
                if parse_library_path(name) is None:
                    continue
                p = os.path.join(d, name)
                if os.path.exists(p):  # skips broken symbolic links
                    paths.append(p)
        return Capture(OK, text="".join(p + "\n" for p in paths), origin="library folders")

    # -- Python side ----------------------------------------------------------------------------
    def _interpreter_info(self) -> Capture:
        """Ask ``self.interpreter`` (once, with the probe timeout) for its sys.path and facts."""
        key = "_interpreter"
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        assert self.interpreter is not None
        cap = self._run([self.interpreter, "-c", _INTERP_CODE])
        if cap.status == OK:
            lines = (cap.text or "").strip().splitlines()
            # the other interpreter's answer is untrusted: '[' * 100000 must not be a RecursionError
            data = load_json(lines[-1]) if lines else None
            if isinstance(data, dict) and isinstance(data.get("sys_path"), list):
                cap = Capture(OK, text=json.dumps(data), origin=self.interpreter)
            else:
                cap = Capture(FAILED, text="", detail=f"{self.interpreter}: printed no interpreter facts",
                              origin=self.interpreter)
        with self._lock:
            self._cache.setdefault(key, cap)
            return self._cache[key]

    def _python_facts(self) -> Optional[Dict[str, Any]]:
        """The other interpreter's facts (``--interpreter``); ``None`` when it could not be asked."""
        cap = self._interpreter_info()
        return json.loads(cap.text or "{}") if cap.status == OK else None

    def site_dirs(self) -> List[str]:
        """Folders of ``sys.path`` (of ``--interpreter`` when given) that hold installed distributions."""
        if self._site_dirs is None:
            out = []
            path = sys.path
            if self.interpreter is not None:
                facts = self._python_facts()
                path = [p for p in (facts or {}).get("sys_path", []) if isinstance(p, str)]
            for p in path:
                # (a name ending in ".dist-info": one search of the names joined by NUL, which no file name holds,
                # not a Python step per name: the standard library's folder has ~200)
                if p and os.path.isdir(p) and p not in out and (p.endswith(("site-packages", "dist-packages"))
                                                                or ".dist-info\0" in "\0".join(_listdir(p)) + "\0"):
                    out.append(p)
            self._site_dirs = out
        return self._site_dirs

    def dists(self) -> Dict[str, str]:
        """normalized distribution name -> its ``.dist-info`` / ``.egg-info`` folder (first on sys.path wins)."""
        if self._dists is None:
            found: Dict[str, str] = {}
            for sd in self.site_dirs():
                for n in _listdir(sd):
                    if n.endswith(".dist-info") or n.endswith(".egg-info"):
                        stem = n.rsplit(".", 1)[0]
                        name = stem.split("-", 1)[0]
                        found.setdefault(_normalize(name), os.path.join(sd, n))
            self._dists = found
        return self._dists

    @staticmethod
    def _dist_version(path: str) -> Optional[str]:
        stem = os.path.basename(path).rsplit(".", 1)[0]
        parts = stem.split("-")
        return parts[1] if len(parts) >= 2 and parts[1] else None

    def _k_packages_json(self) -> Capture:
        if self.interpreter is not None and self._interpreter_info().status != OK:
            return self._interpreter_info()
        out = {}
        for name, path in sorted(self.dists().items()):
            v = self._dist_version(path)
            if v is not None:
                out[name] = v
        return Capture(OK, text=_json(out), origin="installed distributions on sys.path")

    def _metadata_requires(self, name: str) -> Optional[List[str]]:
        path = self.dists().get(name)
        if not path:
            return None
        meta = os.path.join(path, "METADATA" if path.endswith(".dist-info") else "PKG-INFO")
        cap = read_text(meta, max_bytes=2 * 1024 * 1024)
        if cap.status != OK or not cap.text:
            return None
        head = cap.text.split("\n\n", 1)[0]
        return [ln.split(":", 1)[1].strip() for ln in head.splitlines() if ln.startswith("Requires-Dist:")]

    def _k_requires_json(self) -> Capture:
        out = {}
        for name in self.dists():
            if name in FRAMEWORK_DISTS or name.startswith("cupy-cuda"):
                req = self._metadata_requires(name)
                if req is not None:
                    out[name] = req
        return Capture(OK, text=_json(out), origin="Requires-Dist of the framework distributions")

    def _package_file(self, *parts: str) -> Optional[str]:
        for sd in self.site_dirs():
            p = os.path.join(sd, *parts)
            if os.path.isfile(p):
                return p
        return None

    def _k_torch_json(self) -> Capture:
        path = self._package_file("torch", "version.py")
        if path is None:
            return Capture(NOT_FOUND, detail="torch is not installed (no torch/version.py on sys.path)")
        cap = read_text(path)
        if cap.status != OK:
            return cap
        info = parse_torch_version_py(cap.text)
        data = {"version": info.get("version"), "cuda": info.get("cuda"), "cudnn": None, "arch_list": None,
                "hip": info.get("hip"), "source": path}
        if info.get("xpu"):  # contract §9: torch.version.xpu of an XPU build (version.py has it from 2.5 on)
            data["xpu"] = info["xpu"]
        if self.deep:
            data.update(self._deep("torch"))
        return Capture(OK, text=_json(data), origin=path)

    def _k_tensorflow_json(self) -> Capture:
        path = self._package_file("tensorflow", "python", "platform", "build_info.py")
        if path is None:
            return Capture(NOT_FOUND, detail="tensorflow is not installed (no build_info.py on sys.path)")
        cap = read_text(path)
        if cap.status != OK:
            return cap
        data = parse_tf_build_info_py(cap.text)
        dists = self.dists()
        for name in ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel"):
            if name in dists:
                data["version"] = self._dist_version(dists[name])
                data["distribution"] = name
                break
        data["source"] = path
        if self.deep:
            data.update(self._deep("tensorflow"))
        return Capture(OK, text=_json(data), origin=path)

    def _deep(self, framework: str) -> Dict[str, Any]:
        """Import the framework in a child process for runtime facts (``--deep`` only)."""
        from envcheck.probe import _deep_child

        code_path = _deep_child.__file__
        cap = run_command([self.interpreter or sys.executable, code_path, framework],
                          timeout=max(self.timeout, 120))
        if cap.status == OK:
            lines = (cap.text or "").strip().splitlines()
            data = load_json(lines[-1]) if lines else None
            if isinstance(data, dict):
                return data
            return {"deep_error": "the import probe printed no JSON"}
        return {"deep_error": cap.detail or cap.status}

    def _k_environ_json(self) -> Capture:
        from envcheck.snapshot.redact import filter_environ

        return Capture(OK, text=_json(filter_environ(self.env)), origin="environment")

    def _k_python_json(self) -> Capture:
        if self.interpreter is not None:
            cap = self._interpreter_info()
            if cap.status != OK:
                return cap
            facts = json.loads(cap.text or "{}")
            data = {k: facts.get(k) for k in ("version", "implementation", "platform", "machine", "executable",
                                               "prefix")}
            if facts.get("mac_ver"):
                data["mac_ver"] = facts.get("mac_ver")
            libc = facts.get("libc")
            if isinstance(libc, str) and libc.startswith("glibc "):
                data["glibc"] = libc.split(" ", 1)[1]
            return Capture(OK, text=_json(data), origin=self.interpreter)
        data = {
            "version": _python_version(),
            "implementation": _python_implementation(),
            "platform": sys.platform,
            "machine": _machine(),
            "executable": sys.executable,
            "prefix": sys.prefix,
        }
        try:
            libc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.35"
        except (ValueError, OSError, AttributeError):
            libc = None
        if libc and libc.startswith("glibc "):
            data["glibc"] = libc.split(" ", 1)[1]
        if sys.platform == "darwin":  # contract §9: the macOS version, and Rosetta
            import platform

            data["mac_ver"] = platform.mac_ver()[0] or None
            data["proc_translated"] = _proc_translated()
        return Capture(OK, text=_json(data), origin="python")

    def _k_container_json(self) -> Capture:
        data: Dict[str, Any] = {
            "dockerenv": os.path.exists(self._p("/.dockerenv")),
            "containerenv": os.path.exists(self._p("/run/.containerenv")),
        }
        cg = self._read("/proc/1/cgroup")
        if cg.status == OK and cg.text is not None:
            data["cgroup"] = cg.text[:4000]
        data["dev_nvidia"] = sorted(n for n in _listdir(self._p("/dev")) if n.startswith("nvidia"))
        data["dev_dxg"] = os.path.exists(self._p("/dev/dxg"))
        return Capture(OK, text=_json(data), origin="container hints")

    def _k_meta_json(self) -> Capture:
        data = {
            "schema": SNAPSHOT_SCHEMA,
            # datetime.now(timezone.utc).replace(microsecond=0).isoformat(): its second (the system clock's
            # nanoseconds, floored), without importing datetime
            "created": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time_ns() // 1_000_000_000)),
            "hostname": _hostname(),
            "envcheck": __version__,
        }
        return Capture(OK, text=_json(data), origin="envcheck")

    def _k_captures_json(self) -> Capture:
        data = {}
        for k in KEYS:
            if k == "captures.json":
                continue
            c = self.get(k)
            if k.startswith("kfd-topology/") and c.status == NOT_FOUND:
                continue  # 64 possible node files: only the ones there are worth a line
            data[k] = {"status": c.status, "detail": c.detail, "origin": c.origin}
        return Capture(OK, text=_json(data), origin="envcheck")



if __name__ == "__main__":  # pragma: no cover - dev harness: python -m envcheck.probe.live
    src = LiveSource()
    for key, cap in src.all().items():
        print(f"== {key}: {cap.status} {cap.detail}")
        if cap.text:
            print(cap.text[:2000])
