"""The contract §9 part of a paste's report: the captures and facts of an AMD, Intel or Apple machine, from the merged
facts of :mod:`envcheck.paste.merge` (``vgpus``, ``mac_ver``, ``apple_cpu``, ``machine``, ``xpu_level_zero``,
``torch.hip``, ``torch.miopen``, ``torch._xpu``).

The captures are what the snapshot parsers read, holding only what the text says (as :mod:`envcheck.paste.report`
writes NVIDIA's GPUs as ``--query-gpu`` rows): AMD GPUs as ``rocm-smi --json`` cards (name, gfx target where
printed), the Intel GPUs torch's XPU backend enumerated through Level Zero as ``sycl-ls`` lines, the macOS version
and whether the Python runs under Rosetta in ``python.json`` (``mac_ver``, ``proc_translated``: an x86_64 Python
on an Apple CPU runs translated, an arm64 one natively)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

from envcheck.paste.merge import Merged

__all__ = ["captures", "facts", "python_keys"]


def _darwin(m: Merged) -> bool:
    return m.get("platform") == "darwin" or bool(m.get("mac_ver"))


def apple_silicon(m: Merged) -> Optional[bool]:
    """True where the text shows an Apple CPU or an arm64 Python on macOS; unknown (None) otherwise."""
    if not _darwin(m):
        return None
    if m.get("apple_cpu") or m.get("machine") == "arm64":
        return True
    return None


def _named_mac(m: Merged) -> bool:
    """An Apple silicon Mac named in a sentence ("on my M1 MacBook Pro", "Support M1 Macs", fact ``apple_prose``) and
    the Python's architecture printed, where no report names another platform: the Python runs on that Mac (x86_64
    there only under Rosetta 2; a Linux container on it names its platform)."""
    return bool(m.get("apple_prose")) and m.get("platform") is None and m.get("machine") in ("x86_64", "arm64")


def rosetta(m: Merged) -> Optional[bool]:
    """Whether the Python runs under Rosetta 2: an x86_64 Python on Apple silicon does, an arm64 one does not."""
    if not _darwin(m) and not _named_mac(m):
        return None
    if m.get("machine") == "arm64":
        return False
    if m.get("machine") == "x86_64" and (m.get("apple_cpu") or m.get("apple_prose")):
        return True
    return None


def python_keys(m: Merged) -> Dict[str, Any]:
    """The §9 keys of python.json the text makes certain: ``mac_ver``, ``proc_translated``."""
    out: Dict[str, Any] = {}
    if _darwin(m) or _named_mac(m):
        out["platform"] = "darwin"
        if m.get("mac_ver"):
            out["mac_ver"] = m.get("mac_ver")
        tr = rosetta(m)
        if tr is not None:
            out["proc_translated"] = tr
    return out


def captures(m: Merged, caps: Dict[str, str]) -> None:
    if m.lists["pci"]:  # lspci -nn's display controllers, as the snapshot's pci-gpus.json (each once)
        caps["pci-gpus.json"] = "[" + ", ".join(dict.fromkeys(m.lists["pci"])) + "]"
    amd = {i: g for (_, i), g in m.vgpus.items() if g.get("vendor") == "amd"}
    if amd:
        cards = {f"card{i}": {k: v for k, v in (("Card series", g.get("name")), ("GFX Version", g.get("gfx")),
                                                 ("Device ID", g.get("device_id"))) if v}
                 for i, g in sorted(amd.items())}
        caps["rocm-smi.json"] = json.dumps(cards)
    seen = m.get("xpu_level_zero")
    intel = [g for _, g in sorted(m.vgpus.items()) if g.get("vendor") == "intel" and g.get("name")]
    if seen and intel:
        caps["sycl-ls.txt"] = "".join(f"[level_zero:gpu][level_zero:{k}] Intel(R) oneAPI Unified Runtime over "
                                      f"Level-Zero, {g['name']}\n" for k, g in enumerate(intel))


def _vendor(m: Merged) -> Optional[str]:
    """The machine's accelerator vendor where the text shows only that vendor's (an Intel iGPU listed beside NVIDIA
    GPUs or an NVIDIA driver is not the machine's accelerator: no vendor is said then); AMD also where a sentence names
    an AMD GPU beside ROCm and no NVIDIA GPU is named anywhere."""
    if m.gpus or m.get("driver") or m.lists["smi"]:
        return None
    vendors = {g.get("vendor") for g in m.vgpus.values()}
    if m.get("xpu_available") is True:
        vendors.add("intel")  # collect_env's "Is XPU available: True": torch's XPU backend sees an Intel GPU
    if len(vendors) == 1:
        return str(vendors.pop())
    if not vendors and m.get("amd_prose") and not (m.lists["gpu_prose"] or m.get("gpu_prose_named")):
        return "amd"
    if not vendors and m.get("vendor_form") and not (m.lists["gpu_prose"] or m.get("gpu_prose_named")):
        return str(m.get("vendor_form"))  # an issue form's GPU vendor choice (readers/gpu_vendor_form.py)  # an AMD GPU named beside ROCm in a sentence (readers/prose_amd.py), nothing of NVIDIA's shown
    if _darwin(m) and (m.get("mac_ver") or apple_silicon(m)):
        return "apple"
    return None


#: the marks of an NVIDIA GPU's name as nvidia-smi and the frameworks print it ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2",
#: "GeForce GTX 1080", "Quadro RTX 6000", "TITAN V", "GRID A100D-40C")
_NVIDIA_NAME = re.compile(r"\b(?:NVIDIA|GeForce|Tesla|Quadro|TITAN|GRID)\b", re.IGNORECASE)


def _same_gpu(nv: Dict[str, Any], g: Dict[str, Any]) -> bool:
    """Whether an AMD / Intel / Apple GPU of index ``i`` is the GPU already listed at that index (a report's GPU line
    read both ways): not where the one listed is named as NVIDIA's (an nvidia-smi table beside rocm-smi's output: each
    tool numbers its own vendor's GPUs from 0)."""
    a = nv.get("name")
    return not (a and _NVIDIA_NAME.search(str(a)))


def facts(m: Merged, out: Dict[str, Any]) -> None:
    """Add the §9 facts: each AMD / Intel GPU (``vendor``, ``gfx`` for AMD), the top-level ``vendor``, a Mac's
    ``accelerator`` (``macos``, ``apple_silicon``, ``rosetta``), torch's ``hip`` (without its git hash), ``miopen``
    and ``xpu``."""
    gpus: List[Dict[str, Any]] = out.setdefault("gpus", [])
    nvidia = list(gpus)  # the NVIDIA part's GPUs (an AMD GPU 0 and an Intel GPU 0 are two GPUs)
    for (_, i), g in sorted(m.vgpus.items()):
        if any(x["index"] == i and _same_gpu(x, g) for x in nvidia):
            continue
        if g.get("vendor") == "nvidia" and (nvidia or m.lists["smi"]):
            continue  # an NVIDIA GPU sycl-ls / clinfo lists, where nvidia-smi's part lists them: counted once
        d: Dict[str, Any] = {"index": i, "name": g.get("name"), "compute_capability": None, "vendor": g.get("vendor")}
        if g.get("vendor") == "amd":
            d["gfx"] = g.get("gfx")
            if g.get("device_id"):
                d["device_id"] = g["device_id"]
        gpus.append(d)
    gpus.sort(key=lambda g: g["index"])
    vendor = _vendor(m)
    if vendor:
        out["vendor"] = vendor
    if vendor == "apple":
        out["accelerator"] = {"macos": m.get("mac_ver"), "apple_silicon": apple_silicon(m), "rosetta": rosetta(m)}
    fws = out.setdefault("frameworks", {})
    torch = m.prefix("torch")
    if torch.get("_xpu") and "torch" not in fws:
        fws["torch"] = {"version": None, "cuda": None, "cudnn": None}
    t = fws.get("torch")
    if t is None:
        return
    hip = re.match(r"^\s*(\d+\.\d+\.\d+)", str(torch.get("hip") or ""))
    if hip:
        t["hip"] = hip.group(1)
    if torch.get("miopen"):
        t["miopen"] = torch["miopen"]
    if torch.get("_xpu"):
        t["xpu"] = True
        t["cuda"] = None
