"""What a snapshot may hold of the environment, and ``envcheck snapshot --redact``.

* :data:`ENV_ALLOW`: the environment variables ``environ.json`` captures, **by name** — the ones that
  configure the GPU stack (CUDA/NVIDIA/cuDNN/cuBLAS/NCCL/XLA/JAX/TensorFlow/PyTorch by their documented
  names), the search paths and the Python environment. Nothing is taken by prefix: a
  ``TF_TOKEN_app_terraform_io`` or ``HF_TOKEN`` is never captured.
* :func:`mask_value`: values that still look like secrets (credentials in URLs, ``token=...``,
  well-known token formats, long random strings) are replaced by ``***``.
* :func:`redact_files`: the host name, user names in paths, GPU UUIDs and serial numbers replaced
  across every captured file, consistently (the same GPU UUID becomes the same placeholder in
  ``environ.json`` and ``nvidia-smi.txt``), so that the snapshot still replays the same verdicts.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from envcheck.parse.captures import load_json
from envcheck import lazyre

__all__ = ["ENV_ALLOW", "mask_value", "mask_secrets", "filter_environ", "redact_files", "REVIEW_FILES"]

ENV_ALLOW = frozenset({
    # CUDA toolkit / runtime
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING", "CUDA_CACHE_DISABLE", "CUDA_CACHE_PATH", "CUDA_CACHE_MAXSIZE",
    "CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VERSION",
    "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY",
    # NVIDIA container runtime and the nvidia/cuda images
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_REQUIRE_CUDA", "NVIDIA_DISABLE_REQUIRE",
    "NVIDIA_REQUIRE_DRIVER", "NVIDIA_MIG_CONFIG_DEVICES", "NVIDIA_MIG_MONITOR_DEVICES", "NVIDIA_TF32_OVERRIDE",
    "NV_CUDA_CUDART_VERSION", "NV_CUDA_LIB_VERSION", "NV_CUDNN_VERSION", "NV_CUDNN_PACKAGE_NAME",
    # cuDNN / cuBLAS
    "CUDNN_VERSION", "CUDNN_PATH", "CUDNN_HOME", "CUDNN_LOGINFO_DBG", "CUDNN_LOGERR_DBG", "CUDNN_LOGWARN_DBG",
    "CUDNN_LOGLEVEL_DBG", "CUBLAS_WORKSPACE_CONFIG", "CUBLASLT_LOG_LEVEL",
    # NCCL: the switches that change whether and how it runs
    "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE", "NCCL_NET", "NCCL_ALGO", "NCCL_PROTO", "NCCL_CUMEM_ENABLE", "NCCL_NVLS_ENABLE",
    # search paths and the Python environment
    "LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "PYTHONPATH", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
    "CONDA_OVERRIDE_CUDA", "UV_CUDA_DRIVER_VERSION", "UV_TORCH_BACKEND",
    # XLA / JAX
    "XLA_FLAGS", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR",
    "JAX_PLATFORMS", "JAX_PLATFORM_NAME", "JAX_ENABLE_X64",
    # TensorFlow (each by name: TF_* also holds Terraform's TF_TOKEN_* and TF_VAR_*)
    "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL", "TF_CPP_VMODULE", "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_GPU_ALLOCATOR", "TF_GPU_THREAD_MODE", "TF_GPU_THREAD_COUNT", "TF_GPU_HOST_MEM_LIMIT_IN_MB",
    "TF_FORCE_UNIFIED_MEMORY", "TF_CUDNN_DETERMINISTIC", "TF_CUDNN_USE_AUTOTUNE", "TF_CUDNN_USE_FRONTEND",
    "TF_CUDNN_USE_RUNTIME_FUSION", "TF_CUDNN_WORKSPACE_LIMIT_IN_MB", "TF_DETERMINISTIC_OPS",
    "TF_ENABLE_ONEDNN_OPTS", "TF_XLA_FLAGS", "TF_ENABLE_XLA", "TF_USE_LEGACY_KERAS", "TF_CUDA_PATHS",
    "TF_CUDA_VERSION", "TF_CUDNN_VERSION", "TF_NEED_CUDA", "TF_CUDA_COMPUTE_CAPABILITIES",
    # PyTorch
    "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NVML_BASED_CUDA_CHECK",
    "PYTORCH_NO_CUDA_MEMORY_CACHING", "TORCH_CUDA_ARCH_LIST", "TORCH_USE_CUDA_DSA", "TORCH_CUDNN_V8_API_ENABLED",
    "TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT",
    # other accelerators' device masks, and "this is a Kubernetes pod"
    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "KUBERNETES_SERVICE_HOST",
    # contract §9: AMD / Intel / Apple switches
    "HSA_OVERRIDE_GFX_VERSION", "ROCM_PATH", "HIP_PATH", "ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR",
    "PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "GPU_DEVICE_ORDINAL",
})

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_GPU_UUID = lazyre.compile(r"\b(?:GPU|MIG)-" + _UUID + r"\b")
_SECRETS: List[Tuple["re.Pattern[str]", str]] = [
    # scheme://user:password@host  (and scheme://token@host); the user information runs to the LAST @ of
    # the authority, as urllib and pip read it (a password "p@ss" is all masked); it starts only where a
    # scheme can start (linear: a long run of letters is scanned once, not once per letter)
    (lazyre.compile(r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s\"'<>]+@"), r"\1***@"),
    # token=..., password: ..., api_key=...
    (lazyre.compile(r"(?i)(?<![/\w.\-])([a-z0-9_\-]*(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth)"
                r"[a-z0-9_\-]*(?:=|%3d))(?:[^\s,;&\"'%]|%(?!26)[0-9a-f]{2})+"), r"\1***"),
    # JSON web tokens
    (lazyre.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), "***"),
    # well-known token formats (GitHub, GitLab, Hugging Face, Slack, OpenAI/Stripe-style, AWS, npm, PyPI, Google)
    (lazyre.compile(r"\b(?:gh[pousr]_|github_pat_|glpat-|hf_|xox[abprs]-|sk-|sk_live_|rk_live_|npm_|pypi-|AIza)"
                r"[A-Za-z0-9_\-]{16,}"), "***"),
    (lazyre.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "***"),
]
#: a long run of letters and digits (a key, a token) that is not a GPU UUID
_RANDOM = lazyre.compile(r"(?<![A-Za-z0-9_\-/])(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{32,}"
                     r"(?![A-Za-z0-9_\-])")


#: for each pattern of :data:`_SECRETS`, a test that is true whenever the pattern can match (text the pattern
#: requires): a value failing it is left as the pattern would leave it, without compiling or running the pattern
#: (a status run masks a handful of variables such as PATH, which rarely hold any of these; issue 24). The
#: `(?i)` pattern's test holds for ASCII values only (under re.IGNORECASE "ſ" matches "s", "K" (Kelvin) "k").
_TOKEN_WORDS = ("token", "secret", "passw", "pwd", "api", "access", "auth")
_TOKEN_PREFIXES = ("gh", "github_pat_", "glpat-", "hf_", "xox", "sk-", "sk_live_", "rk_live_", "npm_", "pypi-", "AIza")
_MAY_MATCH: Tuple[Callable[[str], bool], ...] = (
    lambda v: "://" in v and "@" in v,
    lambda v: not v.isascii() or (("=" in v or "%3d" in v.lower()) and any(w in v.lower() for w in _TOKEN_WORDS)),
    lambda v: "eyJ" in v,
    lambda v: any(p in v for p in _TOKEN_PREFIXES),
    lambda v: "AKIA" in v or "ASIA" in v,
)
#: every character but [A-Za-z0-9_-] of ASCII turned into a space (others kept: they only lengthen a run)
_RUN_CHARS = {c: " " for c in range(128) if not (chr(c).isascii() and (chr(c).isalnum() or chr(c) in "_-"))}


def mask_secrets(text: str) -> str:
    """``text`` with URL credentials, secret-looking parameters (query or fragment, percent-encoded too) and the
    well-known token formats masked (``***``), and nothing else changed (no random-looking run is touched): for text
    that is shared and must stay readable, such as the log lines ``explain --markdown`` quotes."""
    for i, (pat, repl) in enumerate(_SECRETS):
        if i >= len(_MAY_MATCH) or _MAY_MATCH[i](text):
            text = pat.sub(repl, text)
    return _mask_urls(text, {})


def _may_hold_random(value: str) -> bool:
    """True whenever :data:`_RANDOM` can match: a run of 32 or more of its characters."""
    return len(value) >= 32 and any(len(run) >= 32 for run in value.translate(_RUN_CHARS).split(" "))


def mask_value(value: str) -> str:
    """``value`` with whatever looks like a secret replaced by ``***``."""
    for i, (pat, repl) in enumerate(_SECRETS):
        if i >= len(_MAY_MATCH) or _MAY_MATCH[i](value):  # a pattern without its test always runs
            value = pat.sub(repl, value)
    if not _may_hold_random(value):
        return value

    def random(m: "re.Match[str]") -> str:
        s = m.group(0)
        if _GPU_UUID.fullmatch(s) or re.fullmatch(r"(?:GPU|MIG)-" + _UUID + r"(?:/\d+){0,2}", s):
            return s
        return "***"

    out: str = _RANDOM.sub(random, value)
    return out


def filter_environ(env: Dict[str, str]) -> Dict[str, str]:
    """The variables of :data:`ENV_ALLOW` in ``env``, secret-looking values masked."""
    return {k: mask_value(str(v)) for k, v in sorted(env.items()) if k in ENV_ALLOW}


# -- --redact ------------------------------------------------------------------------------------

#: files a user should read before posting a snapshot, and why
REVIEW_FILES = (("environ.json", "environment variables"),
                ("libraries.txt, ldconfig.txt, python.json", "paths"),
                ("packages.json", "installed packages"))
#: account names that identify nobody (system, CI, container and cloud-image defaults): never replaced
_NOT_USERS = {"root", "shared", "linuxbrew", "runner", "user", "users", "public", "share", "lib", "local",
              "nobody", "admin", "administrator", "ubuntu", "debian", "centos", "ec2-user", "jovyan", "vscode",
              "codespace", "docker", "builder", "buildd", "default", "guest", "home", "opt", "usr", "tmp", "bin",
              "app", "cuda", "nvidia", "python", "conda", "all users", "default user"}
#: a user name longer than this many parts (split at . - _) is not looked for inside longer names
_MAX_PARTS = 8
#: roots of cluster file systems whose paths hold project and user names (AWS FSx for Lustre, Lustre, GPFS,
#: BeeGFS, NFS and other mounts, NERSC's /global and /pscratch, TACC's /work, Compute Canada's /project)
_CLUSTER_ROOTS = ("fsx", "lustre", "gpfs", "mnt", "beegfs", "scratch", "pscratch", "global", "nfs", "work", "work2",
                  "project", "projects", "data", "storage", "hpc", "shared", "lab", "groups", "group")
#: path parts between a root and a name that name nobody (a file system's layout, a site's file system)
_LAYOUT = {"users", "user", "home", "homes", "u", "scratch", "shared", "proj-shared", "world-shared",
           "projects", "project", "proj", "fsw", "portfolios", "gpfs", "lustre", "beegfs", "nfs", "nobackup",
           "data", "work", "group", "groups", "sd", "cfs", "cdirs", "global", "alpine", "alpine2", "orion",
           "summit", "documents and settings", "mnt", "fsx", "pscratch", "storage", "hpc", "lab"}
#: common folder names that are words of the captured tools' own output ("Cuda compilation tools, release 12.4",
#: "Cuda compiler driver", nvidia-smi's "Driver Version"): a path's ``/data/tools`` or ``/mnt/release`` names nobody,
#: and masking the word everywhere would cut the facts the snapshot is read for
_WORDS = {"tools", "tool", "release", "releases", "driver", "drivers", "compiler", "compilers", "build", "builds",
          "version", "versions", "runtime", "kernel", "kernels", "module", "default", "memory", "device", "devices",
          "gpu", "gpus", "platform", "machine", "library", "libraries", "package", "packages", "common", "code",
          "workspace", "workspaces", "repos", "repo", "git", "jobs", "logs", "output", "outputs", "results", "runs",
          "weights", "containers", "images", "nvme", "ssd", "disk", "test", "tests"}
#: layout folders whose next name is a user's (and the last name taken): /mnt/c/Users/NAME/AppData
_HOMES = {"users", "user", "documents and settings"}
#: path parts where the names end: software and environments (``/fsx/jdoe/miniconda3/...``)
_SOFTWARE = {"miniconda", "miniconda3", "anaconda", "anaconda3", "miniforge", "miniforge3", "mambaforge",
             "conda", "envs", "env", "venv", "venvs", "virtualenvs", "lib", "lib64", "bin", "include", "share",
             "site-packages", "dist-packages", "opt", "usr", "local", "apps", "app", "software", "sw", "spack",
             "modules", "modulefiles", "nvidia", "pip", "src", "pkgs", "etc", "var",
             "datasets", "checkpoints", "models", "cache", "tmp", "temp", "wsl", "wslg"}


@functools.lru_cache(maxsize=None)
def _rx(name: str) -> "re.Pattern[str]":
    """The --redact patterns, compiled on first use (status masks environ.json only and never needs them).
    Each is linear in its input: no nested quantifier, and every match can only start where the
    character before it is not one the match could have started with."""
    return re.compile({
        "serial_line": r"(?im)^(\s*(?:Serial Number|Board Serial|Serial)\s*:\s*)(\S.*?)\s*$",
        "serial_key": r'(?i)("(?:serial|serial_number|board_serial|gpu_serial)"\s*:\s*)"([^"\\]*)"',
        # a home-like folder and the path parts after it (see _path_names): /home/NAME, /Users/NAME,
        # /scratch/NAME, /data/users/NAME, C:\Users\NAME (also as \\ inside JSON strings), anywhere in a
        # path; a cluster file system's root (/fsx, /lustre, /gpfs, /mnt, /pscratch, /global, ...) only
        # where a path starts. At most 6 parts of at most 64 characters: linear.
        "home_path": r"(?m)(?:(?<![A-Za-z0-9_.\-])(?P<home>home|homes|Users|users|u|scratch|nfs/home|data/users)"
                     r"|(?P<win>[A-Za-z]:(?:\\{1,2})(?:Users|Documents and Settings))"
                     r"|(?:^|(?<=[\s\"'=:,;(\[]))/(?P<cluster>" + "|".join(_CLUSTER_ROOTS) + r"))"
                     r"(?P<parts>(?:(?:/|\\{1,2})[A-Za-z0-9_][A-Za-z0-9_.\-]{0,63}){1,6})",
        "path_sep": r"/|\\+",
        "software": r"(?:python|cuda|rocm|gcc|cudnn|nccl|openmpi|torch)[0-9.\-]*",
        "layout": r"(?:fs|gpfs|lustre|scratch|work|home)[0-9]+",
        "build_host": r"\(([A-Za-z0-9_.\-]+)@([A-Za-z0-9_.\-]+)\)",  # /proc/version: (builder@buildhost)
        # a run of name characters: host names, user names, serials are looked up part by part in it
        "run": r"[A-Za-z0-9_.\-]+",
        "parts": r"[._\-]",
        "name": r"[A-Za-z0-9_.\-]+",
        # scheme://USERINFO@host (password, token); starts only where a scheme can start
        # (to the authority's last @, as urllib and pip read it: a password "p@ss" is masked whole)
        "userinfo": r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#\s\"'<>]+)@",
        # the same, percent-encoded inside another URL (https%3A%2F%2Fuser%3Atoken%40host): up to the authority's
        # last %40, never past an encoded / ? # (%2F %3F %23): one run per scheme, linear
        "userinfo_pct": r"(?i)(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*%3a%2f%2f)((?:[^/?#\s\"'<>%]|%(?!2f|3f|23)"
                        r"[0-9a-f]{2})+)%40",
        # ?token=..., &X-Amz-Signature=..., &sig=... in any URL or query string, percent-encoded too
        # (?api%5Fkey=..., access_token%3D..., %3Ftoken%3D..., as a URL inside a URL carries them)
        # (and in a fragment: OAuth's redirect carries #access_token=...)
        "query_secret": r"(?i)(?:(?<=[?&;#])|(?<=%3f)|(?<=%26)|(?<=%3b)|(?<=%23))"
                        r"((?:(?:[a-z0-9_.\-]|%5f|%2d|%2e)*(?:token|secret|passw(?:or)?d|pwd|api(?:[_\-]|%5f|%2d)?key|"
                        r"access(?:[_\-]|%5f|%2d)?key|auth|credential|session|signature)(?:[a-z0-9_.\-]|%5f|%2d|%2e)*"
                        r"|key|sig|code|x-amz-[a-z0-9\-]+|x-goog-[a-z0-9\-]+)(?:=|%3d))((?:[^\s&#;\"'<>%]|%(?!26|23|3b)[0-9a-f]{2})+)",
    }[name])


def _path_names(text: str) -> List[str]:
    """The user (and, under a cluster file system's root, project) names in the paths of ``text``:
    the first part after a home-like folder (``/home/jdoe``, ``/scratch/gpfs/jdoe``, ``/global/homes/j/jdoe``),
    up to two parts after a cluster root (``/lustre/orion/csc538/scratch/ckent``: csc538, ckent), the part
    after a ``users`` folder being the last (``/mnt/c/Users/jdoe/AppData``); layout folders
    (:data:`_LAYOUT`, one letter) are skipped, software and data folders (:data:`_SOFTWARE`, ``.venv``,
    ``python3.11``) end the names."""
    out: List[str] = []
    sep, software, layout = _rx("path_sep"), _rx("software"), _rx("layout")
    for m in _rx("home_path").finditer(text):
        parts = [p for p in sep.split(m.group("parts")) if p]
        after = text[m.end():m.end() + 1]
        if after and after not in "/\\ \t\r\n:\"',;)]}":  # the last part runs on (``/home/a%20b``): not a name
            parts = parts[:-1]
        want = 2 if m.group("cluster") else 1
        if m.group("cluster") == "mnt" and parts and len(parts[0]) == 1 and parts[0].isalpha():
            # WSL's mount of a Windows drive (/mnt/c/Windows/System32, /mnt/c/Program Files/...): Windows' own
            # folders, with a user's name only after its Users folder (/mnt/c/Users/NAME)
            homes = [k for k, p in enumerate(parts) if p.lower() in _HOMES]
            parts = parts[homes[0]:homes[0] + 2] if homes else []
        for p in parts:
            low = p.lower()
            if p.startswith(".") or low in _SOFTWARE or software.fullmatch(low):
                break
            if low in _HOMES:
                want = min(want, 1)  # the next name is the user's, and the last one
            if len(p) == 1 or low in _LAYOUT or low in _NOT_USERS or low in _WORDS or layout.fullmatch(low):
                continue
            out.append(p)
            want -= 1
            if not want:
                break
    return out


def _current_users() -> List[str]:
    """The user running envcheck: USER, LOGNAME, USERNAME, the account's name and the home folder's
    last part."""
    names = [os.environ.get(k) for k in ("USER", "LOGNAME", "USERNAME")]
    try:
        import pwd

        names.append(pwd.getpwuid(os.getuid()).pw_name)
    except (ImportError, KeyError, OSError, AttributeError):
        pass
    for home in (os.environ.get("HOME"), os.environ.get("USERPROFILE"), os.path.expanduser("~")):
        if home and home not in ("~", "/"):
            names.append(os.path.basename(home.rstrip("/\\").replace("\\", "/")))
    return [n for n in dict.fromkeys(n for n in names if n) if n.lower() not in _NOT_USERS]


def _file_owners(texts: Dict[str, str], limit: int = 200) -> List[str]:
    """The owners (other than system accounts) of the files a live capture names: the Python
    executable, the libraries found. At most ``limit`` distinct folders are looked at."""
    try:
        import pwd
    except ImportError:  # pragma: no cover - Windows
        return []
    paths: List[str] = []
    py = load_json(texts.get("python.json"))
    if isinstance(py, dict):
        paths += [v for k, v in py.items() if k in ("executable", "prefix", "base_prefix") and isinstance(v, str)]
    for line in (texts.get("libraries.txt") or "").splitlines()[:5000]:
        line = line.strip()
        if line.startswith("/"):
            paths.append(line.split()[0])
    owners: List[str] = []
    seen: Set[Any] = set()
    for p in paths:
        d = os.path.dirname(p)
        if d in seen or len(seen) >= limit:
            continue
        seen.add(d)
        try:
            uid = os.stat(p).st_uid
        except (OSError, ValueError):
            continue
        if uid < 500:  # root and system accounts (Linux from 1000, macOS from 501)
            continue
        try:
            owners.append(pwd.getpwuid(uid).pw_name)
        except (KeyError, OverflowError):
            continue
    return owners


def _hostnames(texts: Dict[str, str], live: bool) -> List[str]:
    names: List[str] = []
    meta = load_json(texts.get("meta.json"))
    if isinstance(meta, dict) and isinstance(meta.get("hostname"), str):
        names.append(meta["hostname"])
    env = load_json(texts.get("environ.json"))
    if isinstance(env, dict):
        for k in ("HOSTNAME", "SLURMD_NODENAME", "NODE_NAME"):
            if isinstance(env.get(k), str):
                names.append(env[k])
    if live:
        import socket

        names.append(socket.gethostname())  # (not getfqdn: a DNS query could hang)
    out: List[str] = []
    for n in names:
        n = n.strip()
        if not n or n in ("localhost", "localhost.localdomain"):
            continue
        out.append(n)
        if "." in n and not re.fullmatch(r"[\d.]+", n):
            out.append(n.split(".", 1)[0])
    return sorted(dict.fromkeys(out), key=len, reverse=True)  # the FQDN before its short name


class _Names:
    """Known names (host names, user names, serial numbers) replaced wherever they stand as whole
    parts of a name: in ``/scratch/jdoe``, ``C:\\Users\\jdoe``, ``/srv/jobs/jdoe-1234``, ``/tmp/build-jdoe``
    and ``jdoe@host`` alike, but not inside ``jdoe2`` or ``ajdoe``.

    One pass over the text, linear whatever the number of names: the text is cut into runs of name
    characters (letters, digits, ``. _ -``), each run into its parts, and every span of at most
    :data:`_MAX_PARTS` parts is looked up in one dictionary (the longest match wins)."""

    def __init__(self) -> None:
        self.exact: Dict[str, str] = {}  # case-sensitive (user names, serials)
        self.folded: Dict[str, str] = {}  # case-insensitive (host names)
        self.short: Dict[str, str] = {}  # user names of 1-2 characters: only as a whole path component
        self.short_hosts: Dict[str, str] = {}  # host names of 1-2 characters: only as a whole run
        self.hits: Dict[str, int] = {}

    def add(self, name: str, placeholder: str, fold: bool = False) -> None:
        if name.count(".") + name.count("-") + name.count("_") >= _MAX_PARTS or not _rx("name").fullmatch(name):
            return
        if len(name) < 3:
            (self.short_hosts if fold else self.short).setdefault(name.lower() if fold else name, placeholder)
        elif fold:
            self.folded.setdefault(name.lower(), placeholder)
        else:
            self.exact.setdefault(name, placeholder)

    def _lookup(self, cand: str) -> Optional[str]:
        return self.exact.get(cand) or self.folded.get(cand.lower())

    def sub(self, text: str) -> str:
        if not (self.exact or self.folded or self.short or self.short_hosts):
            return text
        parts_rx = _rx("parts")
        out: List[str] = []
        last = 0
        exact, folded = self.exact, self.folded
        for m in _rx("run").finditer(text):
            run = m.group(0)
            new: Optional[str] = exact.get(run) or folded.get(run.lower())  # the common case: a whole run
            if new is None and "." not in run and "-" not in run and "_" not in run and len(run) >= 3:
                continue  # one part, not a name
            if new is not None:
                pass
            elif len(run) < 3 and run.lower() in self.short_hosts:
                new = self.short_hosts[run.lower()]
            elif run in self.short and m.start() > 0 and text[m.start() - 1] in "/\\" and \
                    text[m.end():m.end() + 1] in ("", "/", "\\"):
                new = self.short[run]
            else:
                new = self._run(run, parts_rx)
            if new is None:
                continue
            out.append(text[last:m.start()])
            out.append(new)
            last = m.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)

    def _run(self, run: str, parts_rx: "re.Pattern[str]") -> Optional[str]:
        whole = self._lookup(run)
        if whole is not None:
            return whole
        # the run's parts and the separators between them: "srv", "-", "jdoe", "-", "1234"
        seps = [mm.start() for mm in parts_rx.finditer(run)]
        if not seps:
            return None
        starts = [0] + [p + 1 for p in seps]
        ends = seps + [len(run)]
        pieces: List[str] = []
        i, n, last, changed = 0, len(starts), 0, False
        while i < n:
            found = None
            for j in range(min(n, i + _MAX_PARTS) - 1, i - 1, -1):  # the longest span first
                rep = self._lookup(run[starts[i]:ends[j]])
                if rep is not None:
                    found = (j, rep)
                    break
            if found is None:
                i += 1
                continue
            j, rep = found
            pieces += [run[last:starts[i]], rep]
            last = ends[j]
            changed = True
            i = j + 1
        if not changed:
            return None
        pieces.append(run[last:])
        return "".join(pieces)


def _mask_urls(text: str, counts: Dict[str, int]) -> str:
    """Every URL's user information (``https://user:token@host`` -> ``https://***@host``) and every
    secret-looking query parameter (``?token=``, ``&X-Amz-Signature=``, ``&sig=``) masked."""
    def userinfo(m: "re.Match[str]") -> str:
        if m.group(2) == "***":
            return m.group(0)
        counts["URL credentials"] = counts.get("URL credentials", 0) + 1
        return m.group(1) + "***@"

    def userinfo_pct(m: "re.Match[str]") -> str:
        return m.group(0) if m.group(2) == "***" else userinfo(m)[:-1] + "%40"

    def query(m: "re.Match[str]") -> str:
        if m.group(2) == "***":
            return m.group(0)
        counts["secret URL parameters"] = counts.get("secret URL parameters", 0) + 1
        return m.group(1) + "***"

    if "@" in text:
        text = _rx("userinfo").sub(userinfo, text)
    if "%40" in text:
        text = _rx("userinfo_pct").sub(userinfo_pct, text)
    if "=" in text or "%3" in text:  # = or its percent-encoding (%3D / %3d)
        text = _rx("query_secret").sub(query, text)
    return text


def redact_files(files: List[Tuple[str, bytes]], *, live: bool = False,
                 extra_hostnames: Iterable[str] = (), extra_users: Iterable[str] = ()
                 ) -> Tuple[List[Tuple[str, bytes]], Dict[str, int]]:
    """``files`` (name, content) with host names, user names, GPU UUIDs and serial numbers replaced
    everywhere by stable placeholders (``redacted-host``, ``user1``,
    ``GPU-00000000-0000-0000-0000-000000000001``, ``REDACTED-SERIAL-1``), every URL's credentials and
    secret-looking parameters masked (``***``) in every file (``requires.json`` and ``packages.json``
    included); ``environ.json`` is also cut down to :data:`ENV_ALLOW` and masked (an older snapshot
    may hold more). Returns the new files and, per kind, how many distinct values (for URL
    credentials and parameters: occurrences) were replaced.

    The user names are what is known to be the user: the one running envcheck (``USER``, ``LOGNAME``,
    the account, the home folder's last part), on a live capture the owners of the files it names,
    and every name found under a home-like folder (``/home``, ``/Users``, ``/scratch``, ``C:\\Users``,
    ...); each is replaced wherever it stands as a whole part of a name. Linear in the input: one
    pass per file for all the names together (:class:`_Names`)."""
    texts = {k: v.decode("utf-8", "surrogateescape") for k, v in files}
    counts: Dict[str, int] = {}
    if "environ.json" in texts:
        env = load_json(texts["environ.json"])
        # one that is not a JSON object (malformed, nested too deeply) cannot be filtered: dropped, not kept raw
        texts["environ.json"] = json.dumps(filter_environ({str(k): str(v) for k, v in env.items()})
                                           if isinstance(env, dict) else {}, indent=2, sort_keys=True) + "\n"
    hosts = list(dict.fromkeys(list(_hostnames(texts, live)) + [h for h in extra_hostnames if h]))
    users: List[str] = list(extra_users) + _current_users() + (_file_owners(texts) if live else [])
    for t in texts.values():
        users += _path_names(t)
    host_keys = {h.lower() for h in hosts}
    users = [u for u in dict.fromkeys(users) if u and u.lower() not in _NOT_USERS and u.lower() not in host_keys]
    uuids: Dict[str, str] = {}
    serials: Dict[str, str] = {}
    for t in texts.values():
        for m in _GPU_UUID.finditer(t):
            u = m.group(0)
            key = u.lower()
            if key not in uuids:
                uuids[key] = f"{u[:u.index('-')]}-00000000-0000-0000-0000-{len(uuids) + 1:012d}"
        for m in list(_rx("serial_line").finditer(t)) + list(_rx("serial_key").finditer(t)):
            v = m.group(2).strip()
            if v and v.upper() not in ("N/A", "[N/A]", "NONE", "NULL") and v not in serials:
                serials[v] = f"REDACTED-SERIAL-{len(serials) + 1}"

    names = _Names()
    for i, h in enumerate(hosts):
        names.add(h, "redacted-host" if i == 0 else f"redacted-host-{i + 1}", fold=True)
    for v, rep in serials.items():
        names.add(v, rep)
    for i, u in enumerate(users):
        names.add(u, f"user{i + 1}")

    def serial(m: "re.Match[str]") -> str:
        v = m.group(2).strip()
        return m.group(1) + (f'"{serials[v]}"' if m.group(0).endswith('"') and v in serials
                             else serials.get(v, m.group(2)))

    def one(t: str) -> str:
        t = _GPU_UUID.sub(lambda m: uuids.get(m.group(0).lower(), m.group(0)), t)
        if serials:  # a serial with spaces is not a name: replaced where it is declared
            t = _rx("serial_line").sub(serial, t)
            t = _rx("serial_key").sub(serial, t)
        # /proc/version names the kernel's builder (user@buildhost): not this machine, but a name
        t = _rx("build_host").sub("(builder@buildhost)", t)
        t = _mask_urls(t, counts)
        return names.sub(t)

    out = []
    for k, _ in files:
        text = one(texts[k])
        if k == "meta.json":
            text = _mark_meta(text)
        out.append((k, text.encode("utf-8", "surrogateescape")))
    summary = {"hostnames": len(hosts), "user names": len(users), "GPU UUIDs": len(uuids),
               "serial numbers": len(serials)}
    summary["URL credentials"] = counts.get("URL credentials", 0)
    summary["secret URL parameters"] = counts.get("secret URL parameters", 0)
    return out, summary


def _mark_meta(text: str) -> str:
    meta = load_json(text)
    if not isinstance(meta, dict):
        return text
    meta["redacted"] = ["hostname", "user names", "GPU UUIDs", "serial numbers", "URL credentials",
                        "secret URL parameters"]
    return json.dumps(meta, indent=2) + "\n"


def review_line(redacted: Optional[Dict[str, int]]) -> str:
    """The line ``envcheck snapshot`` prints: what to read before posting the snapshot."""
    files = "; ".join(f"{f} ({why})" for f, why in REVIEW_FILES)
    if redacted is None:
        return (f"Before posting it, review {files}. It names this host, its users and GPUs: "
                "`envcheck snapshot --redact` replaces them.")
    done = ", ".join(f"{n} {k}" for k, n in redacted.items())
    return f"Redacted ({done}). Before posting it, still review {files}."
