"""Fixes are data: the commands a matrix fix text names are rendered by envcheck, never taken as shell text.

A fix text in the matrix (``errors.toml``: a cause's ``[[cause.fix]] text`` and ``[[cause.dead_end]]
text``, a signature's ``fix``; ``cudnn.toml``: a ``known_bad`` row's ``fix``) is prose with commands
written as templates in double braces, which :func:`render_fix` turns into the command envcheck prints
(in backticks)::

    {{pip torch index=cu128}}                     -> `pip install torch --index-url https://download.pytorch.org/whl/cu128`
    {{pip -U nvidia-cudnn-cu12>=9.3,<10}}         -> `pip install -U 'nvidia-cudnn-cu12>=9.3,<10'`
    {{conda cudatoolkit cudnn channel=conda-forge}} -> `conda install -c conda-forge cudatoolkit cudnn`
    {{env TF_FORCE_GPU_ALLOW_GROWTH=true}}        -> `export TF_FORCE_GPU_ALLOW_GROWTH=true`
    {{unset CUDA_VISIBLE_DEVICES}}                -> `unset CUDA_VISIBLE_DEVICES`
    {{cmd nvidia-ctk-docker}}                     -> a command of :data:`COMMANDS` (shipped in the code)

What a template may say is closed: packages from :data:`PACKAGES` (with extras and a version
specifier), an index only from the allow-list (a PyTorch variant name such as ``cu128`` or a URL of
:data:`ALLOWED_INDEXES`), conda channels from :data:`CHANNELS`, environment variables from
:data:`ENV_VARS` with values of their own form, other commands only by name from :data:`COMMANDS`.
The prose around the templates may not be shell (:func:`prose_problems`): no backticks, ``$``,
pipes, ``&``, redirections, command-line options, install / download / shell / privilege commands,
package-source settings, nor links outside :data:`DOC_HOSTS` and the allow-list. A bundle whose fix
texts break either rule is refused when it is verified (:func:`fix_problems`), so free shell text from
a bundle is never printed as a fix. The bundled tables obey the same rules (the bundle the release job
signs is built from them).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

from envcheck import lazyre
from envcheck.known import PYTORCH_INDEX

__all__ = ["render_fix", "fix_problems", "allowed_index", "prose_problems", "template_problems", "ALLOWED_INDEXES", "PACKAGES",
           "ENV_VARS", "COMMANDS", "CHANNELS", "DOC_HOSTS", "FIX_FIELDS"]

#: package indexes a fix (and a table's index_url / find_links) may name
ALLOWED_INDEXES = (
    "https://download.pytorch.org/whl/",
    "https://pypi.org/simple",
    "https://pypi.nvidia.com",
    "https://storage.googleapis.com/jax-releases/",
    # NVIDIA's Jetson wheels (JetPack 4-6.0) and the index NVIDIA points Jetson users to for JetPack 6.1+
    # (compat_matrix/jetson.toml [[wheel_index]]): no PyPI CUDA wheel runs on a Jetson
    "https://developer.download.nvidia.com/compute/redist/jp/",
    "https://pypi.jetson-ai-lab.dev/",
)
#: packages a pip template may install (a name, or a pattern for a family of NVIDIA / JAX / CuPy wheels)
PACKAGES = lazyre.compile(
    r"(torch|torchvision|torchaudio|tensorflow|tensorflow-cpu|tf-nightly|jax|jaxlib|jax-cuda\d{2}-(?:plugin|pjrt)|"
    r"nvidia-[a-z0-9-]{1,60}|triton|tensorrt|bitsandbytes|ctranslate2|onnxruntime-gpu|paddlepaddle-gpu|"
    r"cupy-cuda\d{2,3}x?|xformers|flash-attn|numpy)")
_SPEC = lazyre.compile(r"^(?P<name>[a-z0-9-]+)(?P<extras>\[[a-z0-9_,-]{1,40}\])?"
                   r"(?P<ver>(?:(?:==|>=|<=|~=|!=|<|>)[0-9][0-9A-Za-z.*+]{0,30},?){0,3})$")
#: conda channels a conda template may name, and the conda package names it may install
CHANNELS = ("conda-forge", "nvidia", "pytorch")
_CONDA_SPEC = lazyre.compile(r"^(cudatoolkit|cudnn|cuda-toolkit|cuda-nvcc|cuda-runtime|pytorch|pytorch-cuda|"
                         r"tensorflow|jax|jaxlib|python)(=[0-9XY][0-9A-Za-z.*]{0,20})?$")
#: environment variables a fix may set or unset, each with the form of its value
ENV_VARS: Dict[str, "re.Pattern[str]"] = {
    "CUDA_VISIBLE_DEVICES": lazyre.compile(r"^(-1|[0-9]{1,3}(,[0-9]{1,3}){0,15}|)$"),
    "CUDA_DEVICE_ORDER": lazyre.compile(r"^(PCI_BUS_ID|FASTEST_FIRST)$"),
    "CUDA_LAUNCH_BLOCKING": lazyre.compile(r"^[01]$"),
    "CUDA_MODULE_LOADING": lazyre.compile(r"^(LAZY|EAGER)$"),
    "TF_FORCE_GPU_ALLOW_GROWTH": lazyre.compile(r"^(true|false)$"),
    "TF_CPP_MIN_LOG_LEVEL": lazyre.compile(r"^[0-3]$"),
    "XLA_PYTHON_CLIENT_PREALLOCATE": lazyre.compile(r"^(true|false)$"),
    "XLA_PYTHON_CLIENT_MEM_FRACTION": lazyre.compile(r"^0?\.[0-9]{1,3}$"),
    "PYTORCH_CUDA_ALLOC_CONF": lazyre.compile(r"^[a-z_]{1,40}:[A-Za-z0-9.]{1,10}(,[a-z_]{1,40}:[A-Za-z0-9.]{1,10}){0,4}$"),
    "NCCL_DEBUG": lazyre.compile(r"^(VERSION|WARN|INFO|TRACE)$"),
    "NCCL_P2P_DISABLE": lazyre.compile(r"^[01]$"),
    "NCCL_IB_DISABLE": lazyre.compile(r"^[01]$"),
    "MIOPEN_DISABLE_CACHE": lazyre.compile(r"^(true|false|1|0)$"),  # MIOpen's kernel cache (ROCm docs: cache.html)
    # paths: only NVIDIA's default toolkit folders (X.Y stands for the version the text names)
    "CUDA_HOME": lazyre.compile(r"^/usr/local/cuda(-(\d{1,2}\.\d{1,2}|X\.Y))?$"),
    "TRITON_PTXAS_PATH": lazyre.compile(r"^/usr/local/cuda(-(\d{1,2}\.\d{1,2}|X\.Y))?/bin/ptxas$"),
    # bitsandbytes' override of the CUDA version whose library it loads ("124" for 12.4; bitsandbytes/cextension.py)
    "BNB_CUDA_VERSION": lazyre.compile(r"^([0-9]{2,3})?$"),
    # conda's override of its __cuda virtual package (the driver's CUDA, conda/plugins/virtual_packages/cuda.py):
    # a CUDA version, X.Y standing for the one the text names
    "CONDA_OVERRIDE_CUDA": lazyre.compile(r"^(\d{1,2}\.\d{1,2}|X\.Y)$"),
    # (jetson32) OpenBLAS's CPU core type, set where its detection misreads the core (numpy 1.19.5's OpenBLAS on a
    # Jetson: marcoslucianops/DeepStream-Yolo#164, NVIDIA-AI-IOT/torch2trt#609): only the generic ARMv8 kernels
    "OPENBLAS_CORETYPE": lazyre.compile(r"^ARMV8$"),
}
#: commands a fix may name that are not installs: written here, in the code a release ships; a bundle
#: can only refer to them by name
COMMANDS: Dict[str, str] = {
    "nvidia-smi": "nvidia-smi",
    "nvcc-version": "nvcc --version",
    "pip-show-torch": "pip show torch",
    "reload-nvidia-modules": "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && nvidia-smi",
    "reload-nvidia-uvm": "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm",
    "hold-nvidia-packages": "sudo apt-mark hold 'nvidia-*' 'libnvidia-*'",
    "docker-run-gpus": "docker run --gpus all ...",
    "nvidia-ctk-docker": "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker",
    "apt-cudnn8": "sudo apt install libcudnn8",
    "apt-cudnn9-cuda12": "sudo apt install libcudnn9-cuda-12",
    "find-libcudart11": "find / -name 'libcudart.so.11.0'",
    "tf-cudnn-path": ("CUDNN_PATH=$(dirname $(python -c 'import nvidia.cudnn; print(nvidia.cudnn.__file__)')); "
                      "export LD_LIBRARY_PATH=$CUDNN_PATH/lib:$CONDA_PREFIX/lib/:$LD_LIBRARY_PATH"),
    "conda-ld-library-path": "export LD_LIBRARY_PATH=$CONDA_PREFIX/lib/:$LD_LIBRARY_PATH",
    "cuda11-ld-library-path": "export LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64:$LD_LIBRARY_PATH",
    "cuda-home-path": "export PATH=$CUDA_HOME/bin:$PATH",
    "conda-create-py310": "conda create -n env python=3.10",
    "uv-venv-py310": "uv venv --python 3.10",
    "clear-nv-cache": "rm -rf ~/.nv",
    "clear-miopen-cache": "rm -rf ~/.cache/miopen",
    "envcheck-fix": "envcheck fix",
    "envcheck-fix-want": "envcheck fix --want",
    "envcheck-status": "envcheck status",
    "env-grep-hsa": "env | grep HSA_OVERRIDE",
    "python-machine": "python -c 'import platform; print(platform.machine())'",
    "dmesg-nvrm-xid": "sudo dmesg | grep -iE 'nvrm|xid'",
    "lspci-nvidia": "lspci -nnk | grep -iA3 nvidia",
    "lsmod-nvidia": "lsmod | grep nvidia",
    "nvidia-persistence-on": "sudo nvidia-smi -pm 1",
    "fabricmanager-start": "sudo systemctl enable --now nvidia-fabricmanager",
    "nvidia-ctk-dev-char-symlinks": "sudo nvidia-ctk system create-dev-char-symlinks --create-all",
    "docker-run-nvidia-devices": "docker run --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm ...",
    "podman-run-cdi-gpus": "podman run --device nvidia.com/gpu=all ...",
    # AMD ROCm / Intel XPU device nodes and runtimes (issue 21)
    "ls-gpu-device-nodes": "ls -l /dev/kfd /dev/dri",
    "oneapi-setvars": "source /opt/intel/oneapi/setvars.sh",
    "usermod-render-video": "sudo usermod -aG render,video $USER",
    "docker-run-rocm-devices": "docker run --device=/dev/kfd --device=/dev/dri --group-add video ...",
    # perm29: renderD* belongs to render on current distributions; a container given video alone cannot open it
    "docker-run-render-group": "docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...",
    "ls-nvidia-device-nodes": "ls -l /dev/nvidia*",
    "sycl-ls": "sycl-ls",
    "clinfo-list": "clinfo -l",
    # the host compiler nvcc would use (errors.toml host-compiler-unsupported)
    "gcc-version": "gcc --version",
    # the three a compiled torch extension must match: torch's release, its CUDA, its C++ ABI flag
    # (errors.toml extension-abi-mismatch; torch._C._GLIBCXX_USE_CXX11_ABI is what flash-attn's setup reads)
    "torch-build-info": "python -c 'import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)'",
    # jetson30: a Jetson container gets the host's L4T driver libraries and Tegra device nodes only through NVIDIA's
    # container runtime (dusty-nv/jetson-containers docs/run.md); the host's L4T release is /etc/nv_tegra_release's
    "docker-run-runtime-nvidia": "docker run --runtime nvidia ...",
    "cat-nv-tegra-release": "cat /etc/nv_tegra_release",
    # drv35: the NVIDIA driver left half-installed after an update (errors.toml's drv35 block): which libnvidia-ml
    # copies the loader finds, DKMS's state and rebuild, Secure Boot's state and the key DKMS signs modules with
    # (Ubuntu's shim-signed path)
    "ldconfig-nvml": "ldconfig -p | grep libnvidia-ml",
    "dkms-status": "dkms status",
    "dkms-autoinstall": "sudo dkms autoinstall",
    "mokutil-sb-state": "mokutil --sb-state",
    "mokutil-import-dkms-key": "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der",
}
#: where a fix text may link to (documentation); package indexes are ALLOWED_INDEXES
DOC_HOSTS = ("pytorch.org", "docs.pytorch.org", "www.tensorflow.org", "tensorflow.org", "docs.nvidia.com",
             "developer.nvidia.com", "www.nvidia.com", "nvidia.com", "catalog.ngc.nvidia.com", "github.com",
             "docs.jax.dev", "jax.readthedocs.io", "pypi.org", "docs.docker.com", "learn.microsoft.com",
             "docs.conda.io", "docs.python.org", "onnxruntime.ai", "opennmt.net", "www.paddlepaddle.org.cn",
             "huggingface.co")
#: table fields that hold fix texts (a list of tables with ``text`` inside them counts too)
FIX_FIELDS = ("fix", "dead_end", "workaround", "hint")

_TEMPLATE = lazyre.compile(r"\{\{([^{}\n]{1,300})\}\}")


def _index_url(value: str) -> Optional[str]:
    # a PyTorch variant (cuXXX / rocmX.Y: the text says which one to pick)
    if re.fullmatch(r"(cu(\d{2,3}|XXX)|cpu|rocm(\d+(\.\d+){0,2}|X\.Y)|xpu)", value):
        return PYTORCH_INDEX + value
    return value if allowed_index(value) else None


#: what may follow an allowed index's prefix: path segments of plain characters. No ``$``, quote,
#: backtick, ``;``, ``&``, ``?``, ``#``, ``%`` or ``..``: the URL is printed unquoted in a command
#: (``--index-url URL``), so ``.../whl/$(reboot)`` would be shell, and ``.../whl/../../x`` another path.
_INDEX_TAIL = lazyre.compile(r"[A-Za-z0-9._/+-]*")


def allowed_index(url: str) -> bool:
    """``url`` is one of :data:`ALLOWED_INDEXES` or a plain path below one (the one home of this test:
    fix templates, table ``index_url`` / ``find_links`` and install commands of a bundle)."""
    for a in ALLOWED_INDEXES:
        base = a.rstrip("/")
        if url in (a, base):
            return True
        if url.startswith(base + "/"):
            tail = url[len(base) + 1:]
            if _INDEX_TAIL.fullmatch(tail) and ".." not in tail.split("/"):
                return True
    return False


def _quote(spec: str) -> str:
    return f"'{spec}'" if re.search(r"[<>*\[\]!~,]", spec) else spec


Rendered = Tuple[Optional[str], Optional[str]]


def _render_one(body: str) -> Rendered:
    """(command, None) or (None, why the template is refused)."""
    words = body.split()
    if not words:
        return None, "an empty template"
    kind, args = words[0], words[1:]
    render = {"pip": _render_pip, "conda": _render_conda, "env": _render_env, "unset": _render_env,
              "cmd": _render_cmd}.get(kind)
    if render is None:
        return None, f"{kind!r} is not a kind of fix template (pip, conda, env, unset, cmd)"
    return render(kind, args)


def _render_pip(_kind: str, args: List[str]) -> Rendered:
    opts, specs, index = [], [], None
    for a in args:
        if a in ("-U", "--upgrade"):
            opts.append("-U")
        elif a.startswith("index="):
            index = _index_url(a[6:])
            if index is None:
                return None, f"index {a[6:]!r} is not an allowed package index ({', '.join(ALLOWED_INDEXES)})"
        else:
            m = _SPEC.match(a)
            if not m or not PACKAGES.fullmatch(m.group("name")):
                return None, f"{a!r} is not a package envcheck installs (with a version specifier)"
            specs.append(_quote(a))
    if not specs:
        return None, "a pip template names no package"
    return " ".join(["pip install", *dict.fromkeys(opts), *specs] + (["--index-url", index] if index else [])), None


def _render_conda(_kind: str, args: List[str]) -> Rendered:
    channel, specs = None, []
    for a in args:
        if a.startswith("channel="):
            if a[8:] not in CHANNELS:
                return None, f"conda channel {a[8:]!r} is not one of {', '.join(CHANNELS)}"
            channel = a[8:]
        elif _CONDA_SPEC.match(a):
            specs.append(a)
        else:
            return None, f"{a!r} is not a conda package envcheck installs"
    if not specs:
        return None, "a conda template names no package"
    return " ".join(["conda install"] + (["-c", channel] if channel else []) + specs), None


def _render_env(kind: str, args: List[str]) -> Rendered:
    """``env NAME=VALUE`` / ``unset NAME``, for the variables of :data:`ENV_VARS` only."""
    if len(args) != 1:
        return None, f"{kind} takes one variable"
    name, _, value = args[0].partition("=")
    form = ENV_VARS.get(name)
    if form is None:
        return None, f"the variable {name!r} is not one a fix may set ({', '.join(ENV_VARS)})"
    if kind == "unset":
        return (f"unset {name}", None) if "=" not in args[0] else (None, "unset takes a name only")
    if not form.match(value):
        return None, f"{value!r} is not a value of {name}"
    return f"export {name}={value}", None


def _render_cmd(_kind: str, args: List[str]) -> Rendered:
    if len(args) == 1 and args[0] in COMMANDS:
        return COMMANDS[args[0]], None
    return None, f"{' '.join(args)!r} is not a command of envcheck's catalog ({', '.join(COMMANDS)})"


@functools.lru_cache(maxsize=4096)
def render_fix(text: str) -> str:
    """The text with every template rendered into its command (in backticks). A template that is not
    valid is shown as ``[fix not shown: WHY]``, never as its text (the bundled tables and every
    installed bundle were checked, so this happens only for a hand-edited cache)."""
    if "{{" not in text:
        return text

    def one(m: "re.Match[str]") -> str:
        cmd, why = _render_one(m.group(1))
        return f"`{cmd}`" if cmd is not None else f"[fix not shown: {why}]"

    out: str = _TEMPLATE.sub(one, text)
    return out


def template_problems(text: str) -> List[str]:
    out = []
    for m in _TEMPLATE.finditer(text):
        _, why = _render_one(m.group(1))
        if why:
            out.append(f"template {{{{{m.group(1)[:80]}}}}}: {why}")
    return out


@functools.lru_cache(maxsize=None)
def _rx(name: str) -> "re.Pattern[str]":
    return re.compile({
        "shell": r"`|\$|\||&|<\(|>\(|>>|\{|\}|\\",
        # < or > that is not a version comparison ('>= 9.3', '<10', '> 2.14')
        "redirect": r"[<>](?!=?\s?[0-9X])",
        # a command-line option: -U, --index-url, -c conda-forge (not '-1', not a hyphenated word)
        "option": r"(?:^|[\s(\"'])--?[A-Za-z]",
        # an install / download / shell / privilege command with its argument
        "command": r"(?:^|[^\w.-])(?:(?:pip3?|uv|conda|mamba|micromamba|npm|brew|choco|winget|apt|apt-get|yum|dnf|"
                   r"zypper|pipx|poetry)\s+(?:install|uninstall|remove|add|config|download|sync|update|upgrade|"
                   r"create|env|venv|run|exec|source|index)\b"
                   r"|(?:curl|wget|bash|sh|zsh|fish|sudo|su|doas|eval|exec|export|setx|powershell|pwsh|iex|irm|"
                   r"nvidia-ctk|systemctl|rmmod|modprobe|insmod|chmod|chown|dd|rm|mkfs|nc|ncat|ssh|scp)\s+\S)",
        # a package-source setting spelled in words
        "source": r"(?i)index[-_ ]?url|find[-_]links|trusted[-_]host|extra[-_]index|channel[-_]alias|"
                  r"\b(?:PIP|UV|CONDA|POETRY)_[A-Z_]*(?:INDEX|URL|CHANNEL|SOURCE|HOST)[A-Z_]*",
        "url": r"(?i)\b([a-z][a-z0-9+.-]*)://([^/\s\"'<>)]*)",
    }[name])


def prose_problems(text: str) -> List[str]:
    """Why the prose of a fix text (its templates taken out) is shell, not prose."""
    prose = _TEMPLATE.sub(" ", text)
    out = []
    for name, why in (("shell", "shell syntax ({!r})"), ("redirect", "a redirection ({!r})"),
                      ("option", "a command-line option ({!r})"), ("command", "a command ({!r})"),
                      ("source", "a package-source setting ({!r})")):
        m = _rx(name).search(prose)
        if m:
            out.append(why.format(prose[max(0, m.start() - 10):m.end() + 20].strip()))
    for m in _rx("url").finditer(prose):
        scheme, host = m.group(1).lower(), m.group(2).lower().rsplit("@", 1)[-1].split(":")[0]
        url = prose[m.start():].split()[0].rstrip(".,;)")
        if scheme != "https" or "@" in m.group(2) or (host not in DOC_HOSTS and _index_url(url) is None):
            out.append(f"a link to {url[:80]!r} (only https documentation links of {', '.join(DOC_HOSTS[:4])}, "
                       "... and the allowed package indexes)")
    return out


def _texts(value: Any, key: str, where: str) -> Iterator[Tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _texts(v, key, f"{where}[{i}]")
    elif isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield f"{where}.text", value["text"]


def _walk(value: Any, where: str) -> Iterator[Tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k in FIX_FIELDS:
                yield from _texts(v, k, f"{where}.{k}")
            elif isinstance(v, (dict, list)):
                yield from _walk(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{where}[{i}]")


def fix_problems(tables: Dict[str, Any], limit: int = 50) -> List[str]:
    """Every fix text of ``tables`` (name -> parsed TOML) that is not prose + valid templates."""
    out: List[str] = []
    for name, data in tables.items():
        for where, text in _walk(data, name):
            for why in template_problems(text) + prose_problems(text):
                out.append(f"{where}: {why}: free shell text is never printed as a fix (commands are written as "
                           "{{pip ...}}, {{conda ...}}, {{env ...}}, {{cmd NAME}} templates)")
                if len(out) >= limit:
                    return out
    return out
