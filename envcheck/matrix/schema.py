"""The schema of the ``compat_matrix/*.toml`` tables: :func:`validate_tables` lists every problem of a file.

A leaf module (no import of the rest of :mod:`envcheck.matrix`), so that bundles and the loader both use it.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Tuple
from envcheck import lazyre

__all__ = ["FILES", "SCHEMA", "validate_tables"]

FILES = ("cuda", "gpus", "torch", "tensorflow", "cudnn", "jax", "cupy", "rocm", "xpu", "mps", "jetson", "resolutions",
         "onnxruntime")

_CUDA = lazyre.compile(r"^\d{1,2}\.\d{1,2}$")
_CUDA_FULL = lazyre.compile(r"^\d{1,2}\.\d{1,2}(\.\d{1,3})?$")
_CC = lazyre.compile(r"^\d{1,2}\.\d$")
_DRIVER = lazyre.compile(r"^\d{2,4}(\.\d{1,4}){0,2}$")
_BRANCH = lazyre.compile(r"^\d{2,4}$")  # a driver branch: the driver major version (R580 -> "580")
_DATE = lazyre.compile(r"^\d{4}-\d{2}-\d{2}$")
_VERSION = lazyre.compile(r"^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?$")
_DOTTED = lazyre.compile(r"^\d{1,3}(\.\d{1,4}){0,3}$")  # a plain dotted version: "6.2.4", "35.1", "10.0.326"
_MINOR = lazyre.compile(r"^\d{1,3}\.\d{1,3}$")  # "6.2", "12.3"
#: an AMD LLVM target, normalised: gfx + major (6-9 or 10-12) + minor + stepping (hex): gfx906, gfx90a, gfx1030,
#: gfx1151 ("gfx9010", rocm-smi's decimal spelling of gfx90a, is not one)
_GFX = lazyre.compile(r"^gfx([6-9][0-9][0-9a-f]|1[0-2][0-9][0-9a-f])$")
_PCI_ID = lazyre.compile(r"^0x[0-9a-f]{4}$")  # a PCI device id, lower case: "0x56a0"
#: an ONNX Runtime release line ("1.19": every 1.19.z) or one release ("1.18.1"); its package feeds; its CUDA as the
#: requirements table states it ("12" for "12.x", "11.8", "10.2")
_ORT_VERSION = lazyre.compile(r"^1\.\d{1,2}(\.\d{1,2})?$")
_ORT_FEED = lazyre.compile(r"^(pypi|cuda-11|cuda-12)$")
_ORT_CUDA = lazyre.compile(r"^\d{1,2}(\.\d{1,2})?$")
_HSA = lazyre.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}$")  # HSA_OVERRIDE_GFX_VERSION: "10.3.0"


# ---------------------------------------------------------------------------------------------
# schema
# ---------------------------------------------------------------------------------------------
def _is_str(rx: Optional["re.Pattern[str]"] = None) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and (rx is None or bool(rx.match(v)))


def _is_list(pred: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(pred(x) for x in v)


_S = _is_str()
_BOOL = lambda v: isinstance(v, bool)  # noqa: E731
_INT = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
_STRMAP = lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values())  # noqa: E731


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _cudnn_cuda(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(x, dict) and _is_int(x.get("major")) and all(_CUDA.match(str(x[k])) for k in ("min", "max") if k in x)
        for x in v)


def _bounded_regex(v: Any) -> bool:
    """A Python regex with bounded repeats only (no ``*``, ``+`` or open ``{n,}`` outside a class or an escape): the
    engine runs resolutions.toml's patterns over pasted text, so a bundle may not bring one that is not linear."""
    import re

    if not isinstance(v, str) or not v or len(v) > 2000:
        return False
    try:
        re.compile(v)
    except re.error:
        return False
    bare = re.sub(r"\\.|\[[^\]]*\]", "", v)
    return "*" not in bare and "+" not in bare and not re.search(r"\{\d+,\}", v)


#: a runtime file name pattern: libcudart.so.{major}.{minor}, cudart64_{major}{minor}.dll, libcudart.so.11.0
_RUNTIME_FILE = lazyre.compile(r"^[a-z][a-z0-9_]{0,20}(?:\.so\.|64_)(?:\{major\}|\{minor\}|\d{1,3}|\.){1,6}(?:\.dll)?$")
_FAMILY = lazyre.compile(r"^[a-z][a-z0-9]{1,20}$")
_WHEEL = lazyre.compile(r"^nvidia-[a-z0-9-]{1,40}$")

_COMMON = {"source": _S, "derived": _S, "notes": _S, "note": _S}

# table -> (row table name, required fields, optional fields)
SCHEMA: Dict[str, List[Tuple[str, Dict[str, Callable[[Any], bool]], Dict[str, Callable[[Any], bool]]]]] = {
    "cuda": [
        ("toolkit", {"version": _is_str(_CUDA_FULL)},
         {"min_driver_linux": _is_str(_DRIVER), "min_driver_windows": _is_str(_DRIVER), "date": _is_str(_DATE),
          "min_driver_linux_aarch64": _is_str(_DRIVER)}),
        ("minor_compat", {"major": _INT}, {"min_driver_linux": _is_str(_DRIVER),
                                           "min_driver_windows": _is_str(_DRIVER)}),
        ("driver_branch", {"branch": _S}, {"highest_cuda": _is_str(_CUDA), "first_driver_linux": _is_str(_DRIVER),
                                           "first_driver_windows": _is_str(_DRIVER)}),
        ("targets", {"cuda": _is_str(_CUDA), "compute_capabilities": _is_list(_is_str(_CC))},
         {"dropped": _is_list(_is_str(_CC)), "added": _is_list(_is_str(_CC)), "deprecated": _is_list(_is_str(_CC))}),
        ("forward_compat", {"segment": _S}, {"supported": _BOOL, "label": _S}),
        ("pip_wheels", {"major": _INT, "kind": lambda v: v in ("suffixed", "toolkit")}, {}),
        ("native_dtype", {"dtype": lambda v: v in ("float16", "bfloat16"), "min_compute_capability": _is_str(_CC)}, {}),
        ("runtime_file", {"major": _INT, "linux": _is_str(_RUNTIME_FILE)}, {"windows": _is_str(_RUNTIME_FILE)}),
        ("cuda_library", {"family": _is_str(_FAMILY)},
         {"soname": lambda v: v in ("cuda", "cudnn"), "wheel": _is_str(_WHEEL), "toolkit_extra": _is_str(_FAMILY)}),
    ],
    "gpus": [
        ("gpu", {"name": _S, "compute_capability": _is_str(_CC)},
         {"architecture": _S, "segment": _S, "aliases": _is_list(_S), "memory_gib": lambda v: True}),
        ("generation", {"name": _S, "min_compute_capability": _is_str(_CC), "max_compute_capability": _is_str(_CC)},
         {"first_branch": _is_str(_BRANCH), "last_branch": _is_str(_BRANCH)}),
    ],
    "torch": [
        ("release", {"version": _S}, {"date": _is_str(_DATE), "python": _is_list(_is_str(_CUDA)),
                                       "python_windows": _is_list(_is_str(_CUDA)),
                                       "python_macos_arm64": _is_list(_is_str(_CUDA)),
                                       "python_macos_x86_64": _is_list(_is_str(_CUDA)), "torchvision": _S,
                                      "torchaudio": _S, "pypi_default_variant": _S}),
        ("variant", {"releases": _is_list(_S), "variant": _S},
         {"cuda": _is_str(_CUDA), "cudnn": _S, "cudnn_pin": _S, "platforms": _is_list(_S),
          "compute_capabilities": _is_list(_is_str(_CC)), "compute_capabilities_windows": _is_list(_is_str(_CC)),
          "compute_capabilities_aarch64": _is_list(_is_str(_CC)), "ptx": _is_list(_is_str(_CC)), "find_links": _S,
          "index_url": _S, "python": _is_list(_is_str(_CUDA)), "pins": _STRMAP,
          "pypi_platforms": _is_list(_S)}),
        ("capability_check", {"max_cuda": _is_str(_CUDA), "compute_capabilities": _is_list(_is_str(_CC)),
                              "needs_cuda": _is_str(_CUDA)}, {}),
        ("conda_forge_cuda", {"first_build_after": _is_str(_DATE)}, {}),
    ],
    "tensorflow": [
        ("release", {"version": _S}, {"patches": _is_list(_S), "python": _is_list(_is_str(_CUDA)),
                                      "cuda": _is_str(_CUDA), "cudnn": _S, "compute_capabilities": _is_list(
                                          _is_str(_CC)), "ptx": _is_list(_is_str(_CC)), "package": _S,
                                      "windows_gpu": _BOOL, "and_cuda": _STRMAP, "date": _is_str(_DATE),
                                      "windows_cuda": _is_str(_CUDA), "windows_cudnn": _S, "ptx_unlisted": _BOOL}),
        ("conda_forge_cuda", {"first_build_after": _is_str(_DATE), "releases_before": _is_list(_S)}, {}),
    ],
    "cudnn": [
        ("release", {"version": _S}, {"cuda": _cudnn_cuda, "min_compute_capability": _is_str(_CC), "layout": _S,
                                      "min_driver_linux": _is_str(_DRIVER), "min_driver_windows": _is_str(_DRIVER),
                                      "patches": _is_list(_S), "max_compute_capability": _is_str(_CC)}),
        ("known_bad", {"id": _S, "summary": _S, "when": _STRMAP}, {"fix": _S}),
    ],
    "errors": [("cause", {"id": _S, "title": _S}, {"weight": _INT, "signature": _is_list(_STRMAP), "fix": _is_list(_STRMAP), "dead_end": _is_list(_STRMAP), "downstream": _S, "vendor_title": _S}), ("library", {"pattern": _S, "cause": _S}, {"family": _S, "symbol_cause": _S}), ("fact", {"name": _S, "literal": _S, "regex": _S}, {"scope": _S, "kind": _S})],  # noqa: E501
    "rocm": [
        ("torch_variant", {"release": _is_str(_DOTTED), "variant": _is_str(lazyre.compile(r"^rocm\d+\.\d+(\.\d+)?$"))},
         {"rocm": _is_str(_DOTTED), "platforms": _is_list(_S), "index_url": _S, "gfx": _is_list(_is_str(_GFX)),
          "gfx_source": _S, "rocblas_missing": _is_list(_is_str(_GFX)), "rocblas_source": _S}),
        ("rocm_release", {"version": _is_str(_DOTTED)},
         {"gfx": _is_list(_is_str(_GFX)), "kmd_user_space": _is_list(_is_str(_DOTTED)), "kmd_source": _S}),
        ("amdgpu_driver", {"version": _is_str(_MINOR)},
         {"user_space": _is_list(_is_str(_MINOR)), "modules": _is_list(_is_str(_DOTTED)), "modules_source": _S}),
        ("wheel_source", {"name": _S}, {"index_url_prefix": _S, "bundles_user_space": _BOOL,
                                        "needs_from_host": _is_list(_S), "bundled": _is_list(_S)}),
        ("hsa_override", {"gfx": _is_list(_is_str(_GFX)), "value": _is_str(_HSA), "works": _BOOL},
         {"family": _S, "acts_as": _is_str(_GFX), "official": _BOOL}),
        ("device_gfx", {"gfx": _is_str(_GFX), "device_ids": _is_list(_is_str(_PCI_ID))}, {"codename": _S, "generation": _S}),
        ("gfx_family", {"gfx": _is_str(_GFX), "generation": _S}, {}),
        ("gpu_arch_spec", {"name": _S, "gfx": _is_str(_GFX)}, {"architecture": _S, "table": _S}),
        # amd42: the gfx targets of Ollama's own ROCm build by release and platform; AMD models a thread names
        ("ollama_rocm", {"since": _is_str(_DOTTED), "until": _is_str(_DOTTED),
                         "platform": _is_str(lazyre.compile(r"^(linux|windows)$")), "gfx": _is_list(_is_str(_GFX))},
         {"date": _is_str(_DATE)}),
        ("amd_model_gfx", {"name": _S, "gfx": _is_str(_GFX)}, {}),
        # r2amd: AMD Windows driver (Adrenalin) releases that broke ZLUDA, and the release before that worked
        ("zluda_adrenalin", {"adrenalin": _is_str(_DOTTED)}, {"last_good": _is_str(_DOTTED), "sources": _is_list(_S),
                                                              # attack56: the ZLUDA release that works with it
                                                              "zluda_fixed": _is_str(_DOTTED)}),
    ],
    "xpu": [
        ("torch_xpu", {"release": _is_str(_DOTTED), "variant": _S},
         {"platforms": _is_list(_S), "index_url": _S, "gpus": _is_list(_S), "gpus_windows": _is_list(_S),
          "gpus_source": _S, "aot": _is_list(_S), "aot_windows": _is_list(_S), "aot_source": _S}),
        ("intel_gpu", {"group": _S, "device_ids": _is_list(_is_str(_PCI_ID))}, {"config": _S, "names": _is_list(_S)}),
        ("aot_target", {"target": _S, "serves": _is_list(_S)}, {"compiles_for": _S}),
        ("intel_kernel", {"groups": _is_list(_S), "min_kernel": _is_str(_MINOR)}, {"family": _S, "codenames": _is_list(_S)}),
    ],
    "mps": [
        ("mps", {"since": _is_str(_MINOR), "min_macos": _is_str(_MINOR)}, {"message_min_macos": _is_str(_MINOR)}),
        ("macos_wheels", {"arch": _is_str(lazyre.compile(r"^(arm64|x86_64)$"))},
         {"since": _is_str(_MINOR), "until": _is_str(_MINOR), "min_macos": _is_str(_MINOR)}),
        ("conda", {"channel": _S, "package": _S, "arch": _is_str(lazyre.compile(r"^(arm64|x86_64)$")), "mps": _BOOL},
         {"since": _is_str(_MINOR), "version_seen": _is_str(_DOTTED)}),
    ],
    "jetson": [
        ("jetpack", {"version": _is_str(_DOTTED)},
         {"l4t": _is_str(_DOTTED), "l4t_patches": _is_list(_is_str(_DOTTED)), "l4t_source": _S,
          "cuda": _is_str(_DOTTED), "cudnn": _is_str(_DOTTED), "tensorrt": _is_str(_DOTTED)}),
        ("wheel_index", {"name": _S, "runs_on_jetson": _BOOL},
         {"index_url": _S, "jetpack": _is_list(_S), "platforms": _is_list(_S)}),
        ("fixed_cuda", {"cuda_major": _INT}, {"jetpack": _S}),
        ("wheel_python", {"jetpack": _S, "python": _is_str(_MINOR)}, {"framework": _S}),
    ],
    "resolutions": [
        ("resolution", {"cause": _S, "pattern": _bounded_regex}, {"certainty": _is_str(lazyre.compile(r"^likely$")),
                                                                  "explains": _is_str(lazyre.compile(r"^[a-z0-9-]{1,60}(?:\|[a-z0-9-]{1,60}){0,9}$")),
                                                                  # res34: the thread's evidence keys the row needs
                                                                  "when": _is_str(lazyre.compile(r"^[a-z0-9-]{1,40}(?:\|[a-z0-9-]{1,40}){0,7}$"))}),
    ],
    "cupy": [
        ("package", {"distribution": _S, "version": _S, "cuda_major": _INT},
         {"date": _is_str(_DATE), "cuda_min": _is_str(_CUDA), "python": _is_list(_is_str(_CUDA)),
          "platforms": _is_list(_S), "ctk_extra": _S, "cuda_libraries": _is_list(_S)}),
    ],
    "onnxruntime": [
        ("release", {"versions": _is_list(_is_str(_ORT_VERSION)), "feed": _is_str(_ORT_FEED),
                     "cuda": _is_str(_ORT_CUDA), "cuda_major": _INT, "cudnn_major": _INT},
         {"cudnn": _is_str(_DOTTED), "extras": _is_list(_is_str(lazyre.compile(r"^(cuda|cudnn)$")))}),
        ("pip_libraries", {"cuda_major": _INT}, {}),
    ],
    "jax": [
        ("release", {"jax": _S}, {"jaxlib": _S, "cuda_plugins": _is_list(_S), "cuda": _S, "cuda_min": _S,
                                  "cudnn_min": _S, "python": _is_list(_is_str(_CUDA)), "min_driver_linux": _S,
                                  "date": _S, "arch_source": _S, "arch_wheels": _is_list(_S),
                                  **{f"{k}_cuda{m}": _is_list(_is_str(_CC)) for k in ("compute_capabilities", "ptx")
                                     for m in (11, 12, 13)}}),
        ("cuda_extra", {"plugin": _is_str(lazyre.compile(r"^jax-cuda\d{1,2}-plugin$")),
                        "extra": _is_str(lazyre.compile(r"^cuda\d{1,2}$"))}, {}),
    ],
}


def validate_tables(name: str, data: Any) -> List[str]:
    """Every schema problem of one file's parsed TOML (all of them, not just the first)."""
    problems: List[str] = []
    if not isinstance(data, dict):
        return [f"{name}: not a TOML table"]
    meta = data.get("meta")
    if not isinstance(meta, dict):
        problems.append(f"{name}: missing [meta]")
    else:
        if meta.get("schema") != 1:
            problems.append(f"{name}: [meta].schema must be 1")
        if not _DATE.match(str(meta.get("updated", ""))):
            problems.append(f"{name}: [meta].updated must be YYYY-MM-DD")
    for table, required, optional in SCHEMA.get(name, []):
        rows = data.get(table, [])
        if not isinstance(rows, list):
            problems.append(f"{name}: [[{table}]] must be an array of tables")
            continue
        for i, row in enumerate(rows):
            where = f"{name}.{table}[{i}]"
            if not isinstance(row, dict):
                problems.append(f"{where}: not a table")
                continue
            if not isinstance(row.get("source"), str) or not row["source"].strip():
                problems.append(f"{where}: no source")
            for k, pred in required.items():
                if k not in row:
                    problems.append(f"{where}: missing {k!r}")
                elif not pred(row[k]):
                    problems.append(f"{where}: bad {k!r}: {row[k]!r}")
            for k, v in row.items():
                if k in required:
                    continue
                opt = optional.get(k) or _COMMON.get(k)
                if opt is None:
                    problems.append(f"{where}: unknown field {k!r}")
                elif not opt(v):
                    problems.append(f"{where}: bad {k!r}: {v!r}")
    return problems


