"""The GPU list, merged from NVML, ``nvidia-smi --query-gpu`` and the nvidia-smi table, and whether
that list is known to be complete."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.environment.driver import DriverFacts
from envcheck.environment._common import Caps, s, MatrixFacts
from envcheck.model import Gpu, cc_tuple
from envcheck.parse.nvidia_smi import FORM_UNKNOWN, LISTER_FORMS, partial_listing

__all__ = ["build_gpus", "parse_visible_devices"]


def parse_visible_devices(value: Optional[str]) -> Optional[List[str]]:
    """``CUDA_VISIBLE_DEVICES`` -> the listed entries (``[]``: none visible), ``None`` when unset.

    CUDA stops at the first invalid entry, and "-1" hides every device."""
    if value is None:
        return None
    out: List[str] = []
    for part in value.split(","):
        p = part.strip()
        if not p:
            if out:
                break
            continue
        if re.match(r"^-?[0-9]{1,9}$", p):  # a device ordinal; a run of thousands of digits is invalid, as for CUDA
            if int(p) < 0:
                break
            out.append(str(int(p)))
        elif re.match(r"^(GPU|MIG)-[0-9A-Za-z/-]+$", p):
            out.append(p)
        else:
            break
    return out


def _bus_key(bus: Optional[str]) -> Optional[str]:
    """"00000000:0B:00.0" and "0000:0b:00.0" -> "0:0b:00.0" (the domain's leading zeros vary by tool)."""
    if not bus:
        return None
    m = re.match(r"^([0-9A-Fa-f]+):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-9A-Fa-f])$", bus.strip())
    if not m:
        return None
    return f"{int(m.group(1), 16):x}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4).lower()}"


def _merge_nvml(by_index: Dict[int, Dict[str, Any]], nv_gpus: List[Any]) -> None:
    """NVML's GPUs (nvml.json) into ``by_index``: first, so its facts win."""
    for pos, g in enumerate(nv_gpus):
        if not isinstance(g, dict):
            continue
        # contract §1's nvml.json lists GPUs without an "index": NVML's order is the index
        idx = g.get("index") if isinstance(g.get("index"), int) and not isinstance(g.get("index"), bool) else pos
        if isinstance(idx, int):
            d = by_index.setdefault(idx, {})
            d.setdefault("name", s(g.get("name")))
            cc = cc_tuple(g.get("compute_capability"))
            if cc:
                d.setdefault("cc", (f"{cc[0]}.{cc[1]}", "NVML"))
            if isinstance(g.get("memory_total_mib"), int):
                d.setdefault("mem", g["memory_total_mib"])
            d.setdefault("uuid", s(g.get("uuid")))
            if isinstance(g.get("mig"), bool):
                d.setdefault("mig", g["mig"])


def _merge_query(by_index: Dict[int, Dict[str, Any]], rows: Sequence[Any]) -> None:
    """nvidia-smi's query CSV rows into ``by_index``: what NVML did not say."""
    for i, q in enumerate(rows):
        idx = q.index if q.index is not None else i
        d = by_index.setdefault(idx, {})
        if not d.get("name") and q.name:
            d["name"] = q.name
        if "cc" not in d and q.compute_capability:
            d["cc"] = (q.compute_capability, "nvidia-smi")
        if d.get("mem") is None and q.memory_total_mib is not None:
            d["mem"] = q.memory_total_mib


def _merge_smi(by_index: Dict[int, Dict[str, Any]], rows: Sequence[Any], source: str = "nvidia-smi") -> None:
    """nvidia-smi's table (or -q / -L, or another GPU lister's) rows into ``by_index``: what the others did not say,
    and faults."""
    for r in rows:
        d = by_index.setdefault(r.index, {})
        if not d.get("name") and r.name:
            d["name"] = r.name
        if d.get("mem") is None and r.memory_total_mib is not None:
            d["mem"] = r.memory_total_mib
        if d.get("mig") is None and r.mig_enabled is not None:
            d["mig"] = r.mig_enabled
        if "cc" not in d and r.compute_capability:  # the query CSV (or deviceQuery...) where the table is expected
            d["cc"] = (r.compute_capability, source)
        d.setdefault("bus", r.bus_id)
        if not d.get("uuid") and r.uuid:  # nvidia-smi -L / -q name each GPU's UUID
            d["uuid"] = r.uuid
        if r.fault:
            d["fault"] = r.fault


def _named(idx: int, uuid: Optional[str], visible: List[str]) -> bool:
    """Whether CUDA_VISIBLE_DEVICES's entries name GPU ``idx``: its ordinal, its UUID or a unique prefix of it, a MIG
    instance of it (``MIG-GPU-<uuid>/gi/ci``). Where its UUID is not known, or an entry is a MIG device's own UUID
    (``MIG-<uuid>``, R470+: its GPU is not said), whether it is named is unknown: counted as named, never "hidden"."""
    for v in visible:
        if v == str(idx):
            return True
        if v.isdigit():
            continue
        ref = v[4:].split("/", 1)[0] if v.startswith("MIG-GPU-") else v
        if not ref.startswith("GPU-") or uuid is None:
            return True  # a MIG device's own UUID, or a GPU whose UUID this capture does not show: unknown
        if uuid.startswith(ref) or ref.startswith(uuid):
            return True
    return False


def build_gpus(c: Caps, facts: DriverFacts, matrix: MatrixFacts, env: Dict[str, str]) -> Tuple[List[Gpu], bool]:
    """(GPUs, gpus_known)."""
    nvml, query, smi = facts.nvml, facts.query, facts.smi
    raw = nvml.get("gpus")
    nv_gpus: List[Any] = raw if isinstance(raw, list) else []
    by_index: Dict[int, Dict[str, Any]] = {}
    _merge_nvml(by_index, nv_gpus)
    _merge_query(by_index, query.gpus)
    _merge_smi(by_index, smi.gpus, smi.form if smi.form in LISTER_FORMS else "nvidia-smi")

    # GPUs nvidia-smi could not open ("Unable to determine the device handle for GPU 0000:0B:00.0: ...")
    extra_faults: List[Tuple[Optional[str], str]] = []
    for f in smi.faults:
        key = _bus_key(f.bus_id)
        match = [d for d in by_index.values() if key and _bus_key(d.get("bus")) == key]
        if match:
            match[0]["fault"] = f.text
        else:
            extra_faults.append((f.bus_id, f.text))

    visible = parse_visible_devices(env.get("CUDA_VISIBLE_DEVICES"))
    gpus: List[Gpu] = []
    for idx in sorted(by_index):
        d = by_index[idx]
        row = matrix.gpu(d["name"]) if d.get("name") else None
        cc, cc_src = d.get("cc", (None, None))
        if cc is None and row is not None:
            cc, cc_src = row.get("compute_capability"), "envcheck GPU table"
        vis = True if visible is None else _named(idx, d.get("uuid"), visible)
        gpus.append(Gpu(index=idx, name=d.get("name"), compute_capability=cc, cc_source=cc_src,
                        memory_mib=d.get("mem"), uuid=d.get("uuid"), mig=d.get("mig"), visible=vis,
                        segment=row.get("segment") if row else None, bus_id=d.get("bus"), fault=d.get("fault")))
    for bus, text in extra_faults:
        gpus.append(Gpu(index=None, name=None, visible=visible is None, bus_id=bus, fault=text))

    # is the list complete?
    nvml_lists = isinstance(nvml.get("gpus"), list) and not s(nvml.get("error"))
    # a CSV whose rows the text shows partial (a line of "...": rows left out, or its last row cut off) lists some GPUs
    query_lists = bool(query.gpus) and query.error is None and not partial_listing(c.text("nvidia-smi-query.csv") or "")
    smi_lists = smi.gpus_complete is True
    if nvml_lists and smi.gpus and smi_lists and len(nv_gpus) != len(smi.gpus) + len(smi.faults):
        c.note(f"NVML lists {len(nv_gpus)} GPU(s) but nvidia-smi shows {len(smi.gpus) + len(smi.faults)}.")
    d_ = facts.driver
    if nvml_lists or query_lists or smi_lists:
        known = True
    elif smi.form == FORM_UNKNOWN or smi.form in LISTER_FORMS:
        known = False  # nvidia-smi.txt holds a form not read: whether GPUs are there is unknown, not "none"
    elif query.error is not None and query.error != "no-devices":
        known = False  # the query CSV is another text or an error: it listed none, which says nothing of the GPUs
    elif d_.present or d_.smi_state in ("ok", "faulty-gpu", "timed-out", "crashed", "failed", "no-driver",
                                        "driver-library-mismatch", "nvml-unknown-error"):
        # something NVIDIA is here, but nothing listed its GPUs completely; nvidia-smi that ran and could not
        # reach the driver (or NVML) listed none, which says nothing about the GPUs in the machine
        known = False
    elif smi.form is not None and smi.gpus_complete is not True:
        known = False  # a form of nvidia-smi read in part (a `-q` cut before its first GPU): no list, not "none"
    else:
        known = True  # no driver, no nvidia-smi: nothing to list
    return gpus, known
