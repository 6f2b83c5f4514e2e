"""Intel's and AMD's device tools pasted in a report, read like :mod:`~envcheck.paste.readers.vendor_tools`: each
output is the snapshot file it is (contract §9), handed on as pasted (a ``tool`` fact) and read by the snapshot's own
parser, and each GPU it lists is a ``vgpu`` fact of its vendor, so that ``explain`` on such a paste gets the vendor's
facts and no NVIDIA-only advice.

* ``xpu-smi discovery``: its boxed table (a ``+---+`` border, then ``| Device ID | Device Information |``), ``-j``
  JSON (``{`` then ``"device_list": [``), ``--dump`` CSV (a ``Device ID,Device Name,...`` header) ->
  ``xpu-smi-discovery.txt``.
* ``xpu-smi`` 2.x alone: its nvidia-smi-like default view, known by its ``Intel XPU-SMI vN.M`` banner ->
  ``xpu-smi-discovery.txt`` (read for its GPUs; not taken for nvidia-smi's table).
* ``clinfo``: ocl-icd's full form and AMD's (``Number of platforms  N`` / ``Number of platforms: N``), ``clinfo -l``
  (``Platform #0: NAME`` then `` `-- Device #0: NAME``) -> ``clinfo.txt``. An NVIDIA, AMD or Intel GPU each by its
  own vendor.
* ``amd-smi``: ``version`` (its ``AMDSMI Tool: ... | ROCm version: ...`` line), ``list`` / ``static`` (``GPU: N``
  then its indented keys; ``static`` known by its ``ASIC:`` / ``MARKET_NAME:`` keys) -> ``amd-smi-*.txt``.
* ``hipInfo``: from its ``device#   N`` line, the ``Key:   value`` lines of each device -> ``hipinfo.txt``.
"""

from __future__ import annotations

import re
from typing import List, Sequence

from envcheck.paste.readers.base import MAXLINE, Fact, Line, Partial, gpu_name, partial, text_of

__all__ = ["NAME", "detect", "read"]

NAME = "xpu-smi / clinfo / amd-smi / hipInfo"
_MAX = 8000  # lines of one output

_XPU_BORDER = re.compile(r"^\+-{5,}\+-{10,}\+$")
_XPU_HEAD = re.compile(r"^\|\s*Device I[Dd]\s*\|\s*Device Information\s*\|$")
#: ``xpu-smi discovery -d N``: the same two columns without the box
_XPU_PLAIN = re.compile(r"^Device I[Dd]\s{2,}Device Information$")
#: xpu-smi 2.x's default view (``xpu-smi`` alone): nvidia-smi's layout under its own banner, ``| Intel XPU-SMI v2.0
#: Driver: ...  Level Zero: 1.28.0 |`` in a three-cell box (ial/cmn/cmd_smi.cpp); its GPU rows would otherwise pass
#: for nvidia-smi's
_XPU_SMI_BANNER = re.compile(r"^\|?\s{0,40}Intel XPU-SMI v\d{1,3}\.\d{1,3}\b")
_XPU_SMI_BORDER = re.compile(r"^\+(?:-{5,}\+){2,4}$")
_XPU_CSV = re.compile(r"^\ufeff?Device ID,\s?Device Name\b")
_XPU_JSON = re.compile(r'^\{?\s*"device_list"\s*:\s*\[')
_CL_FULL = re.compile(r"^Number of (?:platforms|devices):?\s+\d{1,3}\s*$")
#: a paste that starts inside ocl-icd clinfo's platform part: one of its platform keys, the value in its column
_CL_PLATFORM_KEY = re.compile(r"^Platform (?:Name|Vendor|Version|Profile|Extensions|Numeric Version|Host timer "
                              r"resolution|Extensions function suffix|ICD suffix)\s{3,}\S")
_CL_LIST = re.compile(r"^Platform #\d{1,3}:\s*\S")
_CL_LIST_DEV = re.compile(r"^\s{0,8}[`+|]?-- Device #\d{1,3}:")
#: a line of clinfo's full output at the left margin (the rest of its lines are indented)
_CL_MARGIN = re.compile(r"^(?:Number of (?:platforms|devices)|NULL platform behavior|ICD loader properties|"
                        r"Platform|Device|Max |Preferred|Native|Global|Local|Image|Extensions|Queue|Version|"
                        r"Profile|Vendor|Name|Board|Driver|Address|Error|Execution|Single|Double|Half|Built-in|"
                        r"Memory|Alignment|Available|Compiler|Endian|Constant|Cache|Kernel|Number|"
                        r"Max|Min|Graphics IP|Thread trace|Async|Loader|clGet|clCreate)")
_AMD_VERSION = re.compile(r"^AMDSMI Tool:\s*\S+.{0,400}\bROCm version:")
_AMD_GPU = re.compile(r"^GPU:\s*\d{1,4}\s*$")
_AMD_BLOCK = re.compile(r"^(?:GPU|CPU|CORE|AI_NIC|NIC|SWITCH):\s*\d{1,4}\s*$")
_AMD_KEY = re.compile(r"^\s{2,}[A-Z][A-Z0-9_ ]{1,40}:")
_HIP_DEVICE = re.compile(r"^[ \t>]{0,12}device#[ \t]+\d{1,4}[ \t]*$")
_HIP_LINE = re.compile(r"^[ \t>]{0,12}(?:device#|[A-Za-z_][\w.\[\]() /-]{0,60}:)")


def _span(c: Line, keep: "re.Pattern[str]", blank_ok: bool = True) -> int:
    """From ``c``, the lines while ``keep`` matches (a blank line too where ``blank_ok`` and a kept line follows)."""
    j = c.i + 1
    while j < len(c.lines) and j - c.i < _MAX:
        raw = c.lines[j][:MAXLINE]
        if keep.match(raw.rstrip()):
            j += 1
            continue
        if blank_ok and not raw.strip() and j + 1 < len(c.lines) and keep.match(c.lines[j + 1][:MAXLINE].rstrip()) \
                and c.lines[j + 1].strip():
            j += 1
            continue
        break
    return j - c.i


def _json_span(c: Line) -> int:
    j = c.i
    while j < len(c.lines) and j - c.i < 20000:
        if j > c.i and re.match(r"^\}\s*$", c.lines[j][:MAXLINE]):
            return j - c.i + 1
        j += 1
    return j - c.i  # cut before its closing brace: the devices it holds are read


def detect(c: Line) -> int:
    s = c.s
    nxt = text_of(c.lines[c.i + 1]) if c.i + 1 < len(c.lines) else ""
    if _XPU_BORDER.match(s) and _XPU_HEAD.match(nxt):
        return _span(c, re.compile(r"^[|+]"), blank_ok=False)
    if (_XPU_SMI_BORDER.match(s) and _XPU_SMI_BANNER.match(nxt)) or _XPU_SMI_BANNER.match(s):
        return _span(c, re.compile(r"^[|+]"), blank_ok=False)
    if _XPU_PLAIN.match(s):
        return _span(c, re.compile(r"^(?:\s{2,}\S|\d{1,4}\s{2,}\S)"), blank_ok=False)
    if _XPU_CSV.match(s):
        return _span(c, re.compile(r"^\d{1,4},"), blank_ok=False)
    if (s == "{" and _XPU_JSON.match(nxt.strip())) or _XPU_JSON.match(s):
        return _json_span(c)
    # "Number of devices  1" starts clinfo's device part only where a device key follows it (a script may print
    # the words too)
    devices_head = s.startswith("Number of devices") and bool(re.match(r"^\s+(?:Device (?:Name|Type)|Name:)", nxt and
                                                                       c.lines[c.i + 1][:MAXLINE]))
    if (_CL_FULL.match(s) and (s.startswith("Number of platforms") or devices_head)) or (
            _CL_PLATFORM_KEY.match(s) and c.lines[c.i][:1].isspace()):
        return _span(c, re.compile(r"^(?:\s|" + _CL_MARGIN.pattern[1:] + r")"))
    if _CL_LIST.match(s) and (_CL_LIST_DEV.match(nxt) or _CL_LIST.match(nxt)):
        return _span(c, re.compile(r"^(?:Platform #\d{1,3}:|\s{0,8}[`+|]?-- Device #\d{1,3}:)"), blank_ok=False)
    if _AMD_VERSION.match(s):
        return 1
    if _AMD_GPU.match(s) and _AMD_KEY.match(c.lines[c.i + 1][:MAXLINE] if c.i + 1 < len(c.lines) else ""):
        return _span(c, re.compile(r"^(?:\s{2,}\S|(?:GPU|CPU|CORE|AI_NIC|NIC|SWITCH):\s*\d{1,4}\s*$)"))
    if _HIP_DEVICE.match(s):
        return _span(c, _HIP_LINE)
    return 0


def _text(lines: Sequence[str]) -> str:
    return "\n".join(ln[:MAXLINE] for ln in lines) + "\n"


def _xpu(lines: Sequence[str], first: str) -> Partial:
    from envcheck.parse.intel import parse_xpu_smi

    text = _text(lines)
    gpus = parse_xpu_smi(text)
    out: List[Fact] = [Fact("vgpu", (g.index if g.index is not None else n, gpu_name(g.name) if g.name else None,
                                     "intel", None, "xpu-smi", g.device_id), first) for n, g in enumerate(gpus)]
    if gpus:
        out += [Fact("tool", ("xpu-smi-discovery.txt", text), first), Fact("format", "xpu-smi", first)]
    return partial("xpu-smi", out)


def _clinfo(lines: Sequence[str], first: str) -> Partial:
    from envcheck.parse.intel import clinfo_amd_gpus, nvidia_gpus_seen, parse_clinfo

    text = _text(lines)
    out: List[Fact] = []
    for g in nvidia_gpus_seen(text, None):
        out.append(Fact("vgpu", (g.index, gpu_name(g.name or ""), "nvidia", None, "clinfo"), first))
    for n, g in enumerate(clinfo_amd_gpus(text)):
        out.append(Fact("vgpu", (n, gpu_name(g.name) if g.name else None, "amd", g.gfx, "clinfo", g.device_id), first))
    intel = [d for d in parse_clinfo(text) if "gpu" in (d.get("type") or "gpu").lower() and d.get("name")
             and "intel" in ((d.get("vendor") or "") + (d.get("platform") or "") + (d.get("name") or "")).lower()
             and not re.search(r"\bCPU\b|FPGA", str(d.get("name")))]
    for n, name in enumerate(dict.fromkeys(str(d["name"]) for d in intel)):
        out.append(Fact("vgpu", (n, gpu_name(name), "intel", None, "clinfo"), first))
    if out or parse_clinfo(text):
        out += [Fact("tool", ("clinfo.txt", text), first), Fact("format", "clinfo", first)]
    return partial("clinfo", out)


def _amd_smi(lines: Sequence[str], first: str) -> Partial:
    from envcheck.parse.amd_smi import parse_amd_smi_list, parse_amd_smi_static, parse_amd_smi_version

    text = _text(lines)
    if _AMD_VERSION.match(first):
        ver = parse_amd_smi_version(text)
        if not (ver.tool or ver.rocm):
            return partial("amd-smi", [])
        return partial("amd-smi", [Fact("tool", ("amd-smi-version.txt", text), first),
                                   Fact("format", "amd-smi", first)])
    static = parse_amd_smi_static(text) if re.search(r"^\s+(?:ASIC|MARKET_NAME):", text, re.MULTILINE) else []
    out: List[Fact] = []
    if static:
        out = [Fact("vgpu", (g.index if g.index is not None else n, gpu_name(g.name) if g.name else None, "amd",
                             g.gfx, "amd-smi", g.device_id), first) for n, g in enumerate(static)]
        out += [Fact("tool", ("amd-smi-static.txt", text), first), Fact("format", "amd-smi", first)]
    else:
        rows = parse_amd_smi_list(text)
        if rows:  # a GPU each, named by no row (the snapshot's reader counts them, partitions folded)
            out = [Fact("vgpu", (r["index"], None, "amd", None, "amd-smi list"), first) for r in rows
                   if isinstance(r.get("index"), int) and not (isinstance(r.get("partition_id"), int)
                                                               and r["partition_id"] > 0)]
            out += [Fact("tool", ("amd-smi-list.txt", text), first), Fact("format", "amd-smi", first)]
    return partial("amd-smi", out)


def _hipinfo(lines: Sequence[str], first: str) -> Partial:
    from envcheck.parse.hipinfo import parse_hipinfo

    text = _text(lines)
    gpus = parse_hipinfo(text)
    out: List[Fact] = [Fact("vgpu", (g.index if g.index is not None else n, gpu_name(g.name) if g.name else None,
                                     "amd", g.gfx, "hipInfo"), first) for n, g in enumerate(gpus)]
    if gpus:
        out += [Fact("tool", ("hipinfo.txt", text), first), Fact("format", "hipInfo", first)]
    return partial("hipInfo", out)


def read(lines: Sequence[str]) -> Partial:
    first = text_of(lines[0])
    if _XPU_BORDER.match(first) or _XPU_PLAIN.match(first) or _XPU_CSV.match(first) or first == "{" or \
            _XPU_JSON.match(first) or _XPU_SMI_BORDER.match(first) or _XPU_SMI_BANNER.match(first):
        return _xpu(lines, first)
    if _CL_FULL.match(first) or _CL_LIST.match(first) or _CL_PLATFORM_KEY.match(first):
        return _clinfo(lines, first)
    if _AMD_VERSION.match(first) or _AMD_BLOCK.match(first):
        return _amd_smi(lines, first)
    return _hipinfo(lines, first)
