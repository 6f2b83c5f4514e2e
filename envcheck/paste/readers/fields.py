"""``key: value`` fields shared by several report families, read into facts (pure functions, no state).

* :func:`hf_field`: transformers-cli / diffusers-cli / accelerate env bullets;
* :func:`tf_field` and :func:`tf_os`: TensorFlow's issue-template fields;
* :func:`bullet_field`: hand-written environment bullets (``- PyTorch version: 2.5.1``);
* :func:`platform_facts`, :func:`gpu_state`, :func:`torch_version`: values several forms print the same way.

Each returns a list of :class:`~envcheck.paste.readers.base.Fact` (empty: nothing read), or ``None`` where the
key is not one of its fields.
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers import kv_keys, vendor_fields
from envcheck.paste.readers.base import GPU_COUNT, MEM, NVCC_RELEASE, PRE, Fact, clean, first_version, listed

__all__ = ["hf_field", "tf_field", "tf_os", "bullet_field", "platform_facts", "gpu_state", "torch_version", "prose_name",
           "TF_TEMPLATE_KEYS", "DRIVER_IN", "HF_KEYS", "python_value", "other_vendor"]

Facts = List[Fact]

TF_TEMPLATE_KEYS = {"tensorflow version", "tensorflow version (use command below)", "tensorflow version (you are using)"}
#: a driver named in a user-typed field ("Driver Version: 561.17", "driver 535.104", "NVIDIA driver 470"); "CUDA
#: Driver API v12.0" is the CUDA version the driver supports, not a driver
DRIVER_IN = re.compile(r"(?i)\bdriver(?:\s{1,3}version)?\s{0,3}[:=\uff1a]?\s{0,3}v?(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?|\d{3})(?![\d.])")
#: "11.0 / 8.0.4", "CUDA 11.2, cuDNN 8.1", "cuda 12.3 cudnn 8.9.7": what the user says is installed
_CLAIM_CUDA = re.compile(r"(?i)(?:\bcuda\s*(?:toolkit\s*)?v?)?(?<![\d.])(?P<v>\d{1,2}\.\d)(?:\.\d{1,6}){0,2}(?![\d.])")
#: the cuDNN of the field: after the word, or the second version of "CUDA/cuDNN" written as a pair - "11.0 / 8.0.4",
#: "10.2, 8.0.2", "11.2 and 8.1", "11.0 + 8.0.4" - in NVIDIA's full four-part form too ("10.1/8.0.2.39", "7.6.5.32");
#: a cuDNN major has one digit (no second CUDA version of a list: "11.2, 11.4")
_CLAIM_CUDNN = re.compile(r"(?i)(?:cudnn(?:\s{0,3}version)?(?:\s{0,3}[:=])?\s{0,3}v?|/\s*v?|,\s{0,3}v?"
                          r"|\s(?:and|\+|&)\s{1,3}v?)(?P<v>\d\.\d{1,2}(?:\.\d{1,3}){0,2})(?![\d.])")
#: the word left before a memory size once it is cut ("GeForce RTX 2070 with 8 Gb", "RTX 3060 w/ 12GB")
_MEM_WITH = re.compile(r"\s{1,3}(?:with|w/)\s*$", re.I)
_NUM_NOTE = re.compile(r"\s{0,3}\(\d{1,4}(?:\.\d{1,4}){0,3}\)\s*$")
#: a memory note in parentheses after a GPU's name: "(5GB GPU memory)", "(24 GB VRAM)"
_MEM_NOTE = re.compile(r"\s{0,3}\(\s{0,2}\d{1,4}(?:\.\d{1,2})?\s{0,2}(?:GB|GiB|MB|MiB)\s{1,2}(?:GPU\s{1,2})?(?:memory|VRAM|RAM)\s{0,2}\)\s*$", re.I)
HF_KEYS = ("pytorch version (gpu?)", "pytorch version (accelerator?)", "tensorflow version (gpu?)", "jax version",
           "jaxlib version", "gpu type", "flax version (cpu?/gpu?/tpu?)", "using gpu in script?")
#: the reporter's answer to the env block's "Using GPU in script?: <fill in>" (transformers, diffusers, accelerate,
#: lerobot print that line for the user to fill): a yes, or a GPU / CUDA named, says the GPU was wanted; "no", "<fill in>"
#: (left as printed) and anything else say nothing
_HF_GPU_YES = re.compile(r"(?i)^(?:yes|y|true|yep)\b|\b(?:cuda(?::\d)?|gpus?|nvidia|rtx|gtx|tesla|[ahlvt]\d{2,3})\b")
_HF_GPU_NO = re.compile(r"(?i)^(?:no|n|false|none|n/?a|-|<fill|cpu)\b")


#: a Python version as a field's whole value: "3.8", "Python 3.9.16 (main, ...)", "3.10.13 | packaged by Anaconda"
_PY_VALUE = re.compile(r"^(?:python\s{0,2})?v?(?P<v>[23]\.\d{1,2}(?:\.\d{1,2})?)(?:\s{0,3}$|\s{0,3}[(|,])", re.I)


def python_value(val: Optional[str]) -> Optional[str]:
    """The Python version a field's value is (nothing else but a build note after it), else None."""
    v = (val or "").strip().strip("`*").strip()
    m = _PY_VALUE.match(v)
    return m.group("v") if m and not listed(v) else None


def torch_version(val: Optional[str], line: str) -> Facts:
    """collect_env's ``PyTorch version`` value: "2.1.0+cu121" (a trailing " (True)" or "@commit" dropped; a leading
    "PyTorch " as templates are filled in too)."""
    v = clean(val)
    if v and not listed(v):
        v = re.sub(r"^(?:py)?torch[\s=-]{1,3}(?=\d)", "", v, flags=re.I)  # a template filled in "PyTorch 2.0.1+cu121"
        v = v.split(" ")[0].split("@")[0].strip()
        if re.match(r"^\d+\.\d+", v):
            return [Fact("torch.version", v, line)]
    return []


def gpu_state(fw: str, val: Optional[str], line: str) -> Facts:
    """Whether the report shows ``fw`` reaching a GPU: ``True``/``Yes`` or ``False``/``No``."""
    v = (val or "").strip().strip("`*()").strip().lower()
    if v in ("true", "yes"):
        return [Fact("gpu_works", fw, line)]
    if v in ("false", "no"):
        return [Fact("gpu_fails", fw, line)]
    return []


def platform_facts(val: str, line: str) -> Facts:
    """``Python platform`` / ``Platform``: "Linux-5.15.90.1-microsoft-standard-WSL2-x86_64-with-glibc2.35"."""
    low = val.lower()
    out: Facts = []
    if low.startswith("windows"):
        out.append(Fact("platform", "win32", line))
    elif low.startswith("linux"):
        out.append(Fact("platform", "linux", line))
        if "microsoft" in low:
            out.append(Fact("wsl_release", val.strip().split("-x86_64")[0].replace("Linux-", ""), line))
    elif low.startswith("macos") or low.startswith("darwin"):
        out.append(Fact("platform", "darwin", line))
    return out


def _hf_is_env(k: str) -> bool:
    # "GPU Type" alone does not say which report it is: TensorRT's issue template asks for it too
    return k in HF_KEYS and k != "gpu type" or bool(re.match(r"^[a-z_]+ version$", k)) and k.split()[0] in (
        "transformers", "diffusers", "accelerate", "peft", "trl", "datasets", "huggingface_hub")


def _hf_version_field(k: str, val: str, line: str) -> Optional[Facts]:
    if k == "pytorch version (gpu?)":
        out = [Fact("seen:torch", f"PyTorch version (GPU?): {val}", line)]
        # "2.1.0+cu121 (True)"; retyped without the space ("1.8.1(No)", huggingface/transformers#12641)
        m = re.match(r"^\s*([^\s(]+)\s*(?:\((True|False|Yes|No)\))?", val)
        if m and clean(m.group(1)) and re.match(r"^\d", m.group(1)):
            out.append(Fact("torch.version", m.group(1), line))
            out += gpu_state("torch", m.group(2), line)
        return out
    if k == "pytorch version (accelerator?)":
        # transformers >= 4.48: "2.5.1+cu124 (CUDA)" where torch.cuda.is_available(), "(NA)" where no accelerator is
        # (transformers/commands/env.py: pt_accelerator "CUDA" / "XPU" / "NPU" / "HPU", else "NA")
        out = [Fact("seen:torch", f"PyTorch version (accelerator?): {val}", line)]
        m = re.match(r"^\s*(\S+)\s*(?:\((\w+)\))?", val)
        if m and clean(m.group(1)) and re.match(r"^\d", m.group(1)):
            out.append(Fact("torch.version", m.group(1), line))
            acc = (m.group(2) or "").upper()
            out += gpu_state("torch", {"CUDA": "true", "NA": "false"}.get(acc), line)
        return out
    if k == "using gpu in script?":
        ans = (clean(val) or "").strip("`* ")
        return [Fact("seen:gpu-intent", f"Using GPU in script?: {ans}", line)] if (
            ans and not _HF_GPU_NO.match(ans) and _HF_GPU_YES.search(ans)) else []
    if k == "tensorflow version (gpu?)":
        m = re.match(r"^\s*(\d[^\s(]*)", val)
        return [Fact("tf.version", m.group(1), line)] if m else []
    field = {"jax version": "jax.version", "jaxlib version": "jax.jaxlib", "python version": "python"}.get(k)
    if field:
        v = first_version(val)
        # a lone "- Python version : 3.8" bullet is an environment report of its own ("3.10 was used" is prose)
        fmt = [Fact("format", "environment bullets", line)] if field == "python" and python_value(val) else []
        return [Fact(field, v, line)] + fmt if v else []
    return None


def hf_field(key: str, val: str, line: str = "") -> Optional[Facts]:
    """transformers-cli / diffusers-cli / accelerate env bullets; None when ``key`` is not one of them."""
    k = key.strip().strip("`").lower().replace("`", "")
    fmt = [Fact("format", "transformers/accelerate env", line)] if _hf_is_env(k) else []
    out = _hf_version_field(k, val, line)
    if out is not None:
        return fmt + out
    if k == "platform":
        return fmt + platform_facts(val, line)
    if k == "gpu type":
        n = clean(val)
        return fmt + ([Fact("gpu", (0, n, None, None), line)] if n else [])
    return fmt or None


def tf_os(val: str, line: str = "") -> Facts:
    """TensorFlow's "OS platform and distribution" field: native Windows ("Windows 11 24h2") or Linux; a
    Windows line that names WSL ("Windows 11 + WSL2", "Ubuntu 22.04 in WSL2") runs the Linux wheel."""
    low = (clean(val) or "").lower()
    if not low or low in ("-", "n/a", "na"):
        return []
    if "wsl" in low or re.search(r"\b(linux|ubuntu|debian|centos|fedora|rhel|red hat|arch|manjaro|mint|suse)\b", low):
        return [Fact("platform", "linux", line)]
    if re.search(r"\b(windows?|win\s?1[01]|win\s?7)\b", low):  # "Window 10" is typed too
        return [Fact("platform", "win32", line), Fact("seen:os", val.strip(), line)]
    if re.search(r"\b(mac\s?os|macos|os x|darwin)\b", low):
        return [Fact("platform", "darwin", line)]
    return []


def _cudnn_in_list(v: str, dm: "re.Match[str]") -> bool:
    """Whether the cuDNN version ``dm`` found after a slash is the second of a list the user typed after the
    word cuDNN ("cuDNN : 7.2.x / 7.3.1": versions tried, not the installed one; tensorflow/tensorflow#22900)."""
    if dm.group(0).lower().startswith("cudnn"):
        return False
    label = re.search(r"(?i)cudnn", v[:dm.start()])
    return bool(label and re.search(r"\d", v[label.end():dm.start()]))


#: the template's CUDA/cuDNN field filled in its own order as a pair of bare versions, "9.0 / 7.2.1"
_PAIR = re.compile(r"^\s{0,3}v?\d{1,2}\.\d{1,2}(?:\.\d{1,4})?\s{0,2}/\s{0,2}v?(?P<second>\d)")


def claim(val: str, line: str = "") -> Facts:
    """The template's CUDA/cuDNN field, kept as the user's claim about the machine (facts ``claims``), never
    as a detected version: the first CUDA-looking version, and a cuDNN one after "cudnn" or a slash."""
    v = (val or "")[:200]
    if not clean(v) or DRIVER_IN.search(v) and not re.search(r"(?i)cuda", v):
        return []
    cm = _CLAIM_CUDA.search(v)
    dm = _CLAIM_CUDNN.search(v)
    labelled = bool(cm and re.search(r"(?i)cuda", cm.group(0)))
    # the field's own order, "9.0 / 7.2.1" under the key "CUDA/cuDNN version": the first of the pair is CUDA
    # (the second being the cuDNN read: "9.0 / 10.0 (Tried Both)" is two CUDA versions tried, tensorflow#22900)
    pm = _PAIR.match(v)
    paired = bool(cm and dm and pm and cm.start() < dm.start() and dm.start("v") == pm.start("second"))
    out: Facts = []
    # a lone "8.1" is as likely a cuDNN as a CUDA: unlabelled, only CUDA >= 10 (no cuDNN major reached 10)
    if cm and (not dm or cm.start() < dm.start()) and (labelled or paired or int(cm.group("v").split(".")[0]) >= 10):
        out.append(Fact("claim.cuda", cm.group("v"), line))
        out.append(Fact("seen:cuda-claim", cm.group("v"), line))  # the claimed version, for the claim rules
    if dm and not _cudnn_in_list(v, dm):
        out.append(Fact("claim.cudnn", dm.group("v"), line))
        out.append(Fact("seen:cudnn-claim", dm.group("v"), line))  # the claimed cuDNN, for the claim rules
    if out:
        said = f"CUDA/cuDNN version: {v.strip()}"
        out += [Fact("claim.from", said, line), Fact("seen:gpu-intent", said, line)]
    return out


def _tf_cuda_field(val: str, line: str) -> Facts:
    # the user's own words: never the installed toolkit (nvcc's pasted output is read as nvcc), but a driver
    # it names is the driver's version
    out: Facts = []
    dm = DRIVER_IN.search(val or "")
    if dm:
        out += [Fact("driver", dm.group("v"), line), Fact("seen:driver", f"CUDA/cuDNN version: {val.strip()}", line),
                Fact("format", "tensorflow template", line)]
    nm = NVCC_RELEASE.search(val or "")
    if nm:
        out.append(Fact("nvcc", nm.group(0) + "\n", line))
    return out + claim(val, line)


#: a template key whose parenthesised hint was replaced by the value: "TensorFlow version (1.13.1)", "Python version (3.7)"
_IN_KEY = re.compile(r"^(?P<k>tensorflow version|python version)\s{0,2}\(\s{0,2}v?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s{0,2}\)$")


#: words that make a value a GPU's name even without a digit ("TITAN V", "GeForce", "Radeon VII")
_GPU_WORD = re.compile(r"(?i)\b(?:nvidia|geforce|quadro|tesla|titan|rtx|gtx|radeon|instinct|vega|arc|iris|uhd|amd|intel)\b")


def prose_name(n: str) -> bool:
    """Whether a GPU field's value is not a name: a sentence ("Nvidia A100 partitioned virtually in two 40GB GPUs, I am
    using one of them": more than eight words; a GPU's name has fewer, "GeForce GTX 1650 Ti with Max-Q Design" has
    seven), or words with neither a digit nor a GPU maker's or family's word ("Not applicable", "see above",
    "integrated", "Not using GPU", "TBD"), or two GPUs ("RTX 2080 Ti and RTX 2080 SUPER", "Tesla M60 (also tested on
    GeForce GTX TITAN Black)"). Such a value names no GPU
    for certain and is not read."""
    words = re.sub(r"\[[^\]]{0,80}\]|\([^)]{0,80}\)", " ", n).split()  # an lspci name's "[Radeon RX 6700/6700 XT]" is one
    # two GPUs in one value ("RTX 2080 Ti (12GB) and RTX 2080 SUPER (8 GB)", tensorflow#44012): which is GPU 0 is not said
    two = re.search(r"(?i)\s(?:and|&|\+)\s{1,3}(?:nvidia\s|geforce\s)?(?:rtx|gtx|gt|tesla|quadro|titan|radeon|[ahlvtpk]\d{2,3}\b)", n)
    # or a second GPU in a note: "Tesla M60 (also tested on GeForce GTX TITAN Black)" (tensorflow#24196)
    two = two or re.search(r"(?i)\([^)]{0,40}\s(?:nvidia\s|geforce\s)?(?:rtx|gtx|tesla|quadro|titan|radeon)\s", n)
    return len(words) > 8 or bool(two) or not (re.search(r"\d", n) or _GPU_WORD.search(n))


#: the template's "(use command below)" answered with its output, ``python -c "import tensorflow as tf;
#: print(tf.GIT_VERSION, tf.VERSION)"``: Python 2 prints the tuple ``('v1.3.0-rc2-20-g0787eee', '1.3.0')``
#: (tensorflow#13365), Python 3 the pair ``v1.12.0-0-ga6d8ffae09 1.12.0``; a source build's GIT_VERSION may be
#: ``unknown``. The release is the second value (tf.VERSION), not the nearest git tag the first one describes.
_GIT_PAIR = re.compile(
    r"^\s{0,3}\(?\s{0,2}b?['\"]?(?:v\d{1,2}\.\d{1,3}[\w.-]{0,40}?-g[0-9a-f]{6,12}|unknown)['\"]?\s{0,2},?\s{1,3}"
    r"b?['\"]?(?P<v>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:-?rc\d{1,3}|-dev\d{8})?)['\"]?\s{0,2}\)?\s{0,3}$")


#: the template's "GPU model and memory" answered with no GPU at all ("No", "None", "no GPU", "not applicable", "CPU
#: only"): the reporter's machine has none (tensorflow#43361); "N/A" is left alone (often a field not filled in)
_NO_GPU_VALUE = re.compile(r"^(?:no(?:ne)?(?:\s{1,3}gpu)?|not\s{1,3}applicable|cpu(?:\s{1,3}only)?)\.?$", re.I)


def tf_field(key: str, val: str, line: str = "") -> Optional[Facts]:
    """One field of TensorFlow's issue template; None when ``key`` is not one."""
    k = key.strip().lower()
    inkey = _IN_KEY.match(k)
    if inkey and not clean(val):
        # the template's "(use command below)" replaced by the version: "- TensorFlow version (1.13.1):"
        val, k = inkey.group("v"), inkey.group("k")
        if k == "python version":
            return [Fact("python", val, line)]
    if k in TF_TEMPLATE_KEYS:
        pair = _GIT_PAIR.match(val)
        v = pair.group("v") if pair else first_version(val)
        if not v:
            return []
        return [Fact("tf.version", v, line), Fact("seen:tensorflow", f"TensorFlow version: {val.strip()}", line),
                Fact("format", "tensorflow template", line)]
    if k in ("os platform and distribution", "os platform and distribution (e.g., linux ubuntu 16.04)"):
        return tf_os(val, line)
    if k in ("tensorflow installed from (source or binary)", "tensorflow installed from"):
        # a build from source follows the CUDA it was configured with, not the release's tested configuration
        src = (clean(val) or "").lower().strip("`* ")
        return [Fact("seen:tf-from-source", line or val, line)] if src.startswith("source") else []
    if k in ("cuda/cudnn version", "cuda/cudnn version (if compiling from source)"):
        return _tf_cuda_field(val, line)
    if k == "gpu model and memory":
        n = clean(val)
        if n and _NO_GPU_VALUE.match(n.strip("`*_ ")):  # the reporter says the machine has none (not "N/A": unfilled)
            return [Fact("seen:no-gpu-said", line or f"GPU model and memory: {n}", line)]
        if n and not re.match(r"^(n/?a|none|no|cpu)\b", n, re.I) and not prose_name(n):
            n2 = _MEM_WITH.sub("", MEM.sub("", n)).strip(" ,(/")
            if n2:
                return [Fact("gpu", (0, n2, None, None), line), Fact("format", "tensorflow template", line)]
        return []
    return None


#: the bullets' keys of each kind: the one key table (:mod:`envcheck.paste.readers.kv_keys`); nvidia-smi's version is the
#: driver's ("- NVIDIA-SMI: 440.33.01")
_BULLET_TORCH = kv_keys.keys_of("torch")
_BULLET_DRIVER = kv_keys.keys_of("driver")
#: a driver bullet's value that repeats nvidia-smi's words before the version ("- Driver Version: NVIDIA-SMI 440.33.01",
#: "- 驱动版本: Driver Version: 460.80", as copied from nvidia-smi's header)
_DRIVER_WORDS = re.compile(r"^(?:nvidia-smi\s{1,3}|(?:nvidia\s{1,3})?driver\s{1,3}version\s{0,3}[:\uff1a]?\s{0,3})", re.I)
_BULLET_GPU = kv_keys.keys_of("gpu")
_BULLET_PYTHON = kv_keys.keys_of("python")
_BULLET_OS = ("os", "operating system", "os version", "platform", "system")
_BULLET_CPU = ("hardware", "cpu", "chip", "processor", "machine")


#: an lspci line pasted as the GPU ("83:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI]
#: Navi 22 [Radeon RX 6700/6700 XT] (rev c5)"): its bus address, device class and revision are no part of the name
_LSPCI = re.compile(r"^(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+(?:VGA compatible|3D|Display) controller:\s*",
                    re.I)
#: its revision at the end (starting at the literal, not at a run of blanks: linear)
_LSPCI_REV = re.compile(r"\(rev [0-9a-f]{1,4}\)\s*$", re.I)


#: a compute capability written after a GPU's name: its sm_ target "(SM_120)", "(sm_86)", or the number "(compute
#: capability 6.1)", "(CC 8.6)" (at the end only)
_SM_NOTE = re.compile(r"\(\s{0,2}(?:%s\s{0,2}[,;/]\s{0,2})?(?:sm_?(?P<sm>[1-9]\d{1,2})|(?:compute\s{1,2}capability|cuda\s{1,2}capability|cc)"
                      r"\s{0,2}[:=]?\s{0,2}(?P<cc>[1-9]\d?\.\d))\s{0,2}\)\s*$" % (
                          # the architecture named first: "GTX 970 (Maxwell Architecture, Compute Capability 5.2)"
                          # (foundry-local#96), "GTX 1080 (Pascal, sm_61)"
                          r"(?:Kepler|Maxwell|Pascal|Volta|Turing|Ampere|Ada(?:\s{1,2}Lovelace)?|Hopper|Blackwell)"
                          r"(?:\s{1,2}(?:architecture|arch|generation|gen))?"), re.I)


#: a GPU field's value that names an AMD or an Intel GPU, not an NVIDIA one: a maker's or family's word first ("AMD
#: Radeon RX 7900 XTX", "Radeon Pro W7800", "Intel Arc A770", "Intel(R) Iris(R) Xe Graphics"), or a Radeon / Instinct
#: model alone as issue forms are answered ("RX 7600 XT", "RX6800", "MI250X"); a value with an NVIDIA word anywhere
#: ("RTX 6900 XT" as typed, "Tesla T4") stays NVIDIA's
#: (amd35: a Radeon PRO model alone, "W7900 Dual Slot", ROCm/TransformerEngine#106; an APU's name, "Ryzen™ Al Max+ 395",
#: ROCm/rccl#2026, "Strix Halo"; a gfx target, "gfx1151", ROCm/gsplat#8; a card number with XT / XTX / GRE, "7900 XTX";
#: a mobile / integrated part by its number and M / S, "780M", "8060S")
_AMD_NAME = re.compile(r"(?i)^(?:amd|ati|radeon|instinct|ryzen|strix\s{1,2}(?:halo|point)|gfx\d{3,4}[a-z]?)\b"
                       r"|^(?:rx\s{0,2}[4-9]\d{2,3}(?:\s{0,2}(?:xtx|xt|gre|m|s))?|mi\d{2,3}[ax]?)$"
                       r"|^w[5-9]\d{3}(?:\s{1,2}(?:dual\s{1,2}slot|\d{2}\s{0,2}gb))?$|^[5-9]\d{3}\s{0,2}(?:xtx|xt|gre)$"
                       r"|^(?:[6-8][1-9]0|[5-8]\d[0-9]0)[ms]$")
_INTEL_NAME = re.compile(r"(?i)^(?:intel|arc\s{0,2}(?:pro\s{0,2})?[ab]\d{2,3})\b")
_NVIDIA_WORD = re.compile(r"(?i)\b(?:nvidia|geforce|rtx|gtx|quadro|tesla|titan|jetson)\b")
#: a GPU field answered with a vendor alone (an issue form's choice, "GPU: Nvidia", "GPU: AMD (ROCm)"): no GPU's name
_VENDOR_ONLY = re.compile(r"(?i)^(?P<v>nvidia|amd|intel|ati)(?:\s{0,3}\((?:cuda|rocm|xpu)\))?$")


def other_vendor(name: str) -> Optional[str]:
    """``"amd"`` / ``"intel"`` where a GPU field's value names an AMD / Intel GPU (:data:`_AMD_NAME`,
    :data:`_INTEL_NAME`), else None (NVIDIA's, or not known)."""
    n = name.strip()
    if _NVIDIA_WORD.search(n):
        return None
    return "amd" if _AMD_NAME.search(n) else "intel" if _INTEL_NAME.search(n) else None


def _bullet_gpus(v: str, line: str) -> Facts:
    # "NVIDIA GeForce RTX 5070 Ti (572.83)": a number in parentheses after the name is no part of it
    if _LSPCI.match(v):
        v = _LSPCI_REV.sub("", _LSPCI.sub("", v, count=1)).rstrip()
    # "NVIDIA GeForce RTX 5090 (SM_120)", "RTX 3090 (sm_86)", "GTX 1050 (compute capability 6.1)": the compute
    # capability the writer put after the name
    sm = _SM_NOTE.search(v)
    cc = (sm.group("cc") or f"{int(sm.group('sm')[:-1])}.{sm.group('sm')[-1]}") if sm else None
    v = v[:sm.start()] if sm else v
    n = clean(_MEM_WITH.sub("", MEM.sub("", _NUM_NOTE.sub("", _MEM_NOTE.sub("", v)))).strip(" ,("))
    # a name begins with no version ("535.54.03 on the host, 470 in docker" answered "What GPU are you using?")
    if not n or re.match(r"^(n/?a|none|no|cpu|yes)\b|^v?\d{1,4}\.\d", n, re.I) or not re.search(r"[A-Za-z]", n) \
            or prose_name(n):
        return []
    vo = _VENDOR_ONLY.match(n)
    if vo:  # the machine's vendor (AMD's / Intel's said: contract §9), no GPU named
        v = {"ati": "amd"}.get(vo.group("v").lower(), vo.group("v").lower())
        return [Fact("vendor_form", v, line)] if v != "nvidia" else []
    cm = GPU_COUNT.match(n)
    count, name = (int(cm.group("n")), cm.group("name").strip()) if cm else (1, n)
    vendor = other_vendor(name)
    if vendor:  # an AMD / Intel GPU (contract §9): not one of NVIDIA's GPUs
        return [Fact("vgpu", (idx, name, vendor, None, "environment bullets"), line) for idx in range(count)] + [
            Fact("format", "environment bullets", line)]
    return [Fact("gpu", (idx, name, cc, None), line) for idx in range(count)] + [
        Fact("seen:gpu", line, line), Fact("format", "environment bullets", line)]


def _bullet_machine(k: str, v: str, line: str) -> Facts:
    """The Python, OS and CPU bullets (``- Python: `3.12.13```, ``- OS: macOS 26.3.1``, ``- Hardware: Apple M2 Max``):
    the Python's version, the platform (a macOS version with it), an Apple CPU."""
    out: Facts = []
    if k in _BULLET_PYTHON:
        pv = python_value(v)
        out = [Fact("python", pv, line)] if pv else []
    elif k in _BULLET_OS:
        out = vendor_fields.macos_os(v, line) or tf_os(v, line)
    elif k in _BULLET_CPU:
        cpu = vendor_fields.apple_cpu([v])
        out = [Fact("apple_cpu", cpu.value, line), Fact("seen:apple-cpu", line.strip()[:300], line)] if cpu else []
    elif "driver" in v.lower():
        # a driver named inside another bullet's value: "- CUDA toolkit: 12.4 (driver 570.124.06 from NVIDIA)"
        dm = DRIVER_IN.search(v)
        out = [Fact("driver", dm.group("v"), line), Fact("seen:driver", line, line)] if dm and "." in dm.group("v") else []
    return out + [Fact("format", "environment bullets", line)] if out else []


#: a value that says a change ("516.94 -> 531.41", "1.13.1 → 2.0.0", "RTX 2080 -> RTX 4090", "470.82.01 (old), now
#: 535.54.03"): which of the two is installed is not said (the first is not; attack36)
_CHANGED = re.compile(r"\S\s{0,3}(?:->|→|=>|⇒|⟶)\s{0,3}\S|\bnow\s{1,3}v?\d")


def bullet_field(key: str, val: str, line: str) -> Facts:
    """Hand-written environment bullets (``- **PyTorch version**: 2.5.1``, the old PyTorch template's
    ``- PyTorch Version (e.g., 1.0): 1.3``, ``- NVIDIA driver version: 535.161.07``, ``- GPU: 3x RTX A6000``):
    only values that look like what the key names are read."""
    k = re.sub(r"\s*\([^)]*\)", "", key.strip().strip("`*").lower()).strip()
    v = (val or "").strip().strip("`*").strip()
    if listed(v) or _CHANGED.search(v) or kv_keys.not_mine_hint(key):  # "Driver version (required): ..."
        return []  # "3.8, 3.9", "2.1 or 2.3": versions supported or tried, not the installed one; "470.82 -> 535.54"
    if k in _BULLET_TORCH:
        # "2.0.1+cu121", "v2.1", or as the template is often filled in, "PyTorch 2.0.1+cu121" / "torch 2.1.0"
        # a nightly's "2.7.0.dev20250310+cu124", in backticks with a note after it ("`...+cu124` (nightly wheel)")
        # one digit of major: "12.1" / "410.48" given as torch's are a CUDA's and a driver's (attack36)
        m = re.match(r"^(?:(?:py)?torch\s{1,3})?v?(\d\.\d+(?:\.\d+)?" + PRE + r"(?:\+[\w.]+)?)[`'\"]?(?:\s|,|$)", v, re.I)
        if not m:
            return []
        # "- PyTorch: 2.5.1 (cu121)": a note that is the build's local label completes the version
        note = re.match(r"^[`'\"]?\s{0,3}\((cu\d{2,3}|cpu)\)", v[m.end(1):], re.I)
        tv = f"{m.group(1)}+{note.group(1).lower()}" if note and "+" not in m.group(1) else m.group(1)
        return [Fact("torch.version", tv, line), Fact("seen:torch", line, line), Fact("format", "environment bullets", line)]
    if k in _BULLET_DRIVER:
        # a distribution's package version ends the driver's with its own revision: "550.144.03-0ubuntu0.24.04.1",
        # "535.183.01-1" (Debian/Ubuntu), "570.124.06-1.fc41" (RPM)
        m = re.match(r"^(\d{3}\.\d{2,3}(?:\.\d{2,3})?)(?:\s|,|$|-(?:\d{1,2}(?:\.|\s|$)|\d{0,2}[a-z]{1,12}))",
                     _DRIVER_WORDS.sub("", v, count=1))
        return [Fact("driver", m.group(1), line), Fact("seen:driver", line, line),
                Fact("format", "environment bullets", line)] if m else []
    if k in _BULLET_GPU:
        return _bullet_gpus(v, line)
    if k in ("zluda", "zluda version") and re.search(r"\d", v):
        # "ZLUDA: 3.9.5 (nightly)" (ComfyUI-Zluda's reports): CUDA builds run on the AMD GPU through ZLUDA
        return [Fact("seen:zluda", line, line)]
    if k in _BULLET_CLAIM:
        # a driver named after the version stays the driver's ("- CUDA toolkit: 12.4 (driver 570.124.06 from NVIDIA)")
        return _typed_claim(_BULLET_CLAIM[k], v, line) + _bullet_machine(k, v, line)
    return _bullet_machine(k, v, line)


#: TensorFlow's System information as people type it, one line each (``- CUDA: 10.2.89`` / ``- cuDNN: 7.6.5``, or
#: plain ``CUDA: 10.1.243``: tests/data/pastes/facts20s/tf-36426-*): what the reporter says is installed, a claim like
#: the template's CUDA/cuDNN field, never a detected version
_BULLET_CLAIM = {**dict.fromkeys(kv_keys.keys_of("cuda"), "CUDA"), **dict.fromkeys(kv_keys.keys_of("cudnn"), "cuDNN")}
#: the value is the version itself, maybe with a short note after it ("10.2.89", "v7.6.5", "11.2 (conda)")
_TYPED_VERSION = re.compile(r"^v?\d{1,2}\.\d{1,2}(?:\.\d{1,6}){0,2}(?![\d.])")


def _typed_claim(name: str, v: str, line: str) -> Facts:
    if not _TYPED_VERSION.match(v):
        return []
    said = f"{name} {v.split()[0].lstrip('vV')}"
    # only the version the key names ("cuDNN: 11.2" is no cuDNN, and not a CUDA either)
    keep = ("claim.cuda", "seen:cuda-claim") if name == "CUDA" else ("claim.cudnn", "seen:cudnn-claim")
    got = claim(said, line)
    if not any(f.field == keep[0] for f in got):
        return []
    out = [f for f in got if f.field in keep or not f.field.startswith(("claim.cu", "seen:cu"))]
    return out + [Fact("format", "environment bullets", line)]
