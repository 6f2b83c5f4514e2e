"""rocminfo: the HSA agents. Only agents of ``Device Type: GPU`` are GPUs: the CPU agent of an APU is
named like ``AMD Ryzen 9 5900HX with Radeon Graphics`` and is not one. A paste cut before
``Device Type`` still counts an agent whose ``Name`` is a gfx target as a GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import Gpu
from envcheck.parse.gfx import normalize_gfx, pci_product_name
from envcheck.parse.limits import gpu_list

__all__ = ["Rocminfo", "parse_rocminfo"]


@dataclass
class Rocminfo:
    gpus: List[Gpu] = field(default_factory=list)
    runtime: Optional[str] = None  # "Runtime Version" of HSA
    kfd_loaded: Optional[bool] = None  # "ROCk module is loaded" / "is NOT loaded"
    error: Optional[str] = None  # the failure line (hsa api call failure, HSA_STATUS_ERROR_*, ...)
    #: "Unable to open /dev/kfd read-write: <errno text>": the text after the colon ("Permission denied",
    #: "No such file or directory", "Cannot allocate memory", "Invalid argument", ...)
    kfd_open_error: Optional[str] = None
    #: a line saying the user is not in the GPU's group ("... is not member of ... group")
    permission: Optional[str] = None
    rock_version: Optional[str] = None  # "ROCk module version 6.7.0 is loaded": the amdgpu module version
    recognised: bool = False


def _agent_gpu(fields: Dict[str, str], pools: List[int]) -> Optional[Gpu]:
    dtype = fields.get("Device Type", "").upper()
    gfx = normalize_gfx(fields.get("Name"))
    if dtype and dtype != "GPU":
        return None
    if not dtype and not gfx:
        return None
    name = pci_product_name(fields.get("Marketing Name")) or None
    dev = None
    m = re.search(r"\((0x[0-9a-fA-F]+)\)", fields.get("Chip ID", ""))
    if m and int(m.group(1), 16):
        dev = "0x%04x" % int(m.group(1), 16)
    node = fields.get("Node", "")
    return Gpu(index=None, name=name, memory_mib=pools[0] // 1024 if pools else None, vendor="amd", gfx=gfx,
               device_id=dev, source="rocminfo", uuid=fields.get("Uuid") if node.isdigit() else None)


#: a line of an agent quoted loosely (Markdown "> ", a list, no indentation): "> Name:   gfx1030"
_LOOSE = re.compile(r"^[\s>#*-]*(Name|Marketing Name|Device Type|Chip ID|Uuid):(.*)$")


def _loose_agents(lines: List[str]) -> List[Tuple[Any, ...]]:
    """Agents from a paste that kept only some of an agent's lines, without rocminfo's layout ("> Name: gfx1030",
    "> Marketing Name: AMD Radeon RX 6900 XT"): an agent starts at a ``Name`` that is a gfx target (not an ISA
    name such as ``amdgcn-amd-amdhsa--gfx1030``) and takes the fields that follow it."""
    out: List[Tuple[Any, ...]] = []
    cur: Optional[Dict[str, str]] = None
    for raw in lines[:20000]:
        m = _LOOSE.match(raw)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "Name":
            if v.lower().startswith("amdgcn") or not normalize_gfx(v):
                continue
            cur = {"Name": v}
            out.append((cur, []))
        elif cur is not None:
            cur.setdefault(k, v)
    return out


def _header_line(r: Rocminfo, s: str) -> None:
    """What a line outside the agents says: the KFD state, an error, the group, the runtime version."""
    m = re.match(r"^ROCk module (?:version (\S+) )?is (NOT )?loaded", s)
    if m:
        r.kfd_loaded, r.recognised = m.group(2) is None, True
        r.rock_version = m.group(1) or r.rock_version
    m = re.match(r"^Unable to open /dev/kfd read-write:\s*(.+)$", s)
    if m:
        r.kfd_open_error, r.recognised = m.group(1).strip()[:200], True
    if r.error is None and ("hsa api call failure" in s.lower() or "HSA_STATUS_ERROR" in s
                            or "Unable to open /dev/kfd" in s or "Failed to get user name" in s):
        r.error = s[:300]
    if r.permission is None and re.search(r'\bis not (a )?member of "?(render|video)"? group', s):
        r.permission, r.recognised = s[:300], True
    m = re.match(r"^Runtime Version:\s*(\S+)", s)
    if m:
        r.runtime, r.recognised = m.group(1), True


@gpu_list
def parse_rocminfo(text: Optional[str]) -> Rocminfo:
    r = Rocminfo()
    if not text:
        return r
    fields: Dict[str, str] = {}
    pools: List[int] = []
    in_agent = False
    segment_coarse = False
    agents: List[Tuple[Any, ...]] = []
    lines = text.splitlines()[:100000]
    body = [ln for ln in lines if ln.strip()]
    if body and sum(ln.lstrip().startswith("#") for ln in body) * 5 >= len(body) * 4:
        # quoted as shell comments in a README or script ("#   Name:   gfx906"): drop the "# " the quote added
        lines = [re.sub(r"^\s*# ?", "", ln) for ln in lines]
    for raw in lines:
        line = raw.rstrip()
        s = line.strip()
        _header_line(r, s)
        if re.match(r"^Agent \d+$", s):
            if in_agent:
                agents.append((fields, pools))
            fields, pools, in_agent, segment_coarse = {}, [], True, False
            r.recognised = True
            continue
        if not in_agent and re.match(r"^  (?:Name|Device Type):\s", raw):
            # a paste that starts inside an agent (at its Name, or cut just below it at its Device Type)
            in_agent, fields, pools, segment_coarse = True, {}, [], False
            r.recognised = True
        if not in_agent:
            continue
        if raw.startswith("  ") and not raw.startswith("   ") and ":" in s:
            k, _, v = s.partition(":")
            fields.setdefault(k.strip(), v.strip())
            continue
        if s.startswith("Segment:"):
            segment_coarse = "GLOBAL" in s and "COARSE GRAINED" in s
        m = re.match(r"^Size:\s*(\d{1,30})\(0x[0-9a-fA-F]+\)\s*KB", s)
        if m and segment_coarse:
            pools.append(int(m.group(1)))
            segment_coarse = False
    if in_agent:
        agents.append((fields, pools))
    r.gpus.extend(g for g in (_agent_gpu(f, p) for f, p in agents) if g is not None)
    if not r.gpus:
        # no agent of rocminfo's layout is a GPU: a paste that kept only some lines (grep'd "Name" lines, the
        # layout lost to a tab indent) may still name its GPU agents
        loose = [g for g in (_agent_gpu(f, p) for f, p in _loose_agents(lines)) if g is not None]
        r.gpus.extend(loose)
        r.recognised = r.recognised or bool(loose)
    if not r.recognised and r.error:
        r.recognised = True
    return r
