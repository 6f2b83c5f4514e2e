"""Render the status report as a terminal screen or as Markdown."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from envcheck import lazyre
from envcheck.capture import CUT_OFF
from envcheck.render import clean
from envcheck.render._width import MIN_WIDTH, fit, shorten_middle, wrap

__all__ = ["render_text", "render_markdown"]

Style = Callable[[str, str], str]


def _plain(text: str, _kind: str) -> str:
    return text


Verdict = Callable[[str, bool], str]
Row = Tuple[str, str, str]

_SMI_WHY = {"timed-out": "nvidia-smi hung (no answer in time)", "crashed": "nvidia-smi crashed",
            "faulty-gpu": "nvidia-smi reports a faulty GPU", "failed": "nvidia-smi failed",
            "nvml-unknown-error": "NVML could not open the GPU devices"}


def _verdicts(rep: Dict[str, Any]) -> Verdict:
    """verdict(component, present): the worst severity of the component's findings, else "not checked" where a
    not-checked note names the component, else ok / -."""
    by_comp: Dict[str, str] = {}
    rank = {"error": 3, "warning": 2, "info": 1}
    unchecked = set()  # components with a not-checked note: "ok" would say more than was checked
    for f in rep["findings"]:
        c = f.get("component") or ""
        if rank.get(f["severity"], 0) > rank.get(by_comp.get(c, ""), 0):
            by_comp[c] = f["severity"]
        if f.get("id") == "not-checked":
            unchecked.add(c)

    def verdict(comp: str, present: bool) -> str:
        sev = by_comp.get(comp)
        if sev == "error":
            return "ERROR"
        if sev == "warning":
            return "warning"
        if present and comp in unchecked:
            return "not checked"
        return "ok" if present else "-"

    return verdict


def _rows(rep: Dict[str, Any]) -> List[Row]:
    """(component, details, verdict) rows."""
    verdict = _verdicts(rep)
    rows: List[Row] = []
    builds_for = (rep.get("accelerator") or {}).get("builds_for") if rep.get("vendor") is None else None
    other = rep.get("vendor") in ("amd", "intel", "apple") or builds_for in ("amd", "intel", "apple")
    unread = _unread_vendor_files(rep) if not other else []
    if other:  # contract §9: an AMD / Intel / Apple machine shows its own stack, not NVIDIA's
        rows.extend(_vendor_rows(rep, verdict))
    elif unread:  # only another vendor's tool output, in a form not read: no NVIDIA rows to "supply"
        other = True
        rows.append(("accelerator", f"unknown: {', '.join(unread)} captured but not read (see the notes); supply "
                                    "another output of its tool (docs/contract.md section 9 lists the forms read)", verdict("gpu", False)))
    else:
        acc = rep.get("accelerator") or {}
        if acc.get("l4t"):
            rows.append(("jetson", _jetson_detail(acc), verdict("driver", True)))
        rows.append(_driver_row(rep, verdict))
        rows.extend(_nvidia_gpu_rows(rep, verdict))
    if not other or rep["toolkit"]["version"]:
        rows.append(_toolkit_row(rep, verdict))
    if not other or rep["cudnn"]:
        rows.extend(_cudnn_rows(rep, verdict))
    majors = sorted({(lib["major"]) for lib in rep["libraries"] if lib["family"] == "cudart" and lib["major"]})
    if majors:
        rows.append(("cuda runtime", ", ".join(f"libcudart.so.{m}" for m in majors), verdict("cudart", True)))
    for name, fw in rep["frameworks"].items():
        rows.append((name, _framework_detail(name, fw), verdict(name, True)))
    unread_fw = _unread(rep, "packages.json", "torch.json", "tensorflow.json")
    if not rep["frameworks"] and _not_captured(rep, "packages.json", "torch.json", "tensorflow.json"):
        # a hand-made snapshot without the package list: which frameworks are installed is unknown, not "none"
        rows.append(("frameworks", "not captured (supply packages.json or torch.json)", verdict("frameworks", False)))
    elif not rep["frameworks"] and unread_fw:
        # the package list is there but could not be read: unknown, not "nothing installed"
        rows.append(("frameworks", f"unknown: {'; '.join(unread_fw)}", verdict("frameworks", False)))
    py = rep["python"]
    if py.get("version"):
        rows.append(("python", f"{py['version']} {py.get('implementation') or ''} {py.get('machine') or ''}".strip(),
                     verdict("python", True)))
    elif _unread(rep, "python.json"):
        rows.append(("python", f"unknown: {_unread(rep, 'python.json')[0]}", verdict("python", False)))
    elif _not_captured(rep, "python.json"):
        rows.append(("python", "unknown (supply python.json)", verdict("python", False)))
    else:
        # python.json is there (a hand-made one may hold only the platform): say what it lacks, not "supply it"
        rows.append(("python", "version unknown (python.json names none: add its \"version\")",
                     verdict("python", False)))
    return rows


#: the GPU listers other than nvidia-smi a snapshot's nvidia-smi.txt may hold (parse.nvidia_smi.LISTER_FORMS)
_LISTERS = ("deviceQuery", "nvidia-container-cli info", "dcgmi discovery", "nvidia-debugdump", "gpustat", "/proc/driver/nvidia/version",
            "/proc/driver/nvidia/gpus", "glxinfo", "lshw", "lspci")


def _driver_row(rep: Dict[str, Any], verdict: Verdict) -> Row:
    """The NVIDIA driver: its version and CUDA, or why it is unknown / not found."""
    d = rep["driver"]
    smi = d.get("nvidia_smi")
    smi_why = _SMI_WHY.get(smi or "")
    if d.get("libcuda_stub"):
        det = f"{d['version']} installed, but " if d.get("version") else ""
        return ("driver", det + f"libcuda.so.1 is the CUDA toolkit's stub ({d.get('libcuda_path') or '?'})",
                verdict("driver", bool(d.get("version"))))
    if d["version"] or d["cuda"]:
        # nvidia-smi read, its CUDA field without a version (ERR!, N/A): another capture names it, not nvidia-smi again
        supply = "libcuda.json or nvml.json" if smi else "nvidia-smi or nvml.json"
        det = (f"{d['version'] or 'version unknown'} (supports CUDA <= "
               f"{d['cuda'] or 'unknown: supply ' + supply})")
        if d.get("kernel_module"):
            det += f", {d['kernel_module']} kernel module"
        if d.get("override"):
            det += f" [from {d['override']}]"
        if smi_why:
            det += f"; {smi_why}"
        return ("driver", det, verdict("driver", True))
    form = d.get("nvidia_smi_form")
    if form in _LISTERS:
        # another GPU lister in nvidia-smi.txt: lspci (and a failed deviceQuery) do not show the driver; the others
        # answer only through a loaded one
        if form == "lshw":  # it shows the kernel driver bound to each GPU (the not-checked note says which), no version
            return ("driver", "version unknown: nvidia-smi.txt holds lshw output (the kernel driver bound to each GPU, "
                              "no version); supply the plain nvidia-smi table", verdict("driver", False))
        if form == "lspci" or not rep.get("gpus"):
            return ("driver", f"unknown: nvidia-smi.txt holds {form} output, which does not show the driver; supply "
                              "the plain nvidia-smi table", verdict("driver", False))
        return ("driver", f"loaded, version unknown ({form} lists GPUs and names no driver version); supply the plain "
                          "nvidia-smi table", verdict("driver", True))
    if smi == "ok" and rep.get("gpus"):
        return ("driver", f"loaded, version unknown (nvidia-smi lists GPUs; its {d.get('nvidia_smi_form')} "
                          "output names no driver version); supply the plain nvidia-smi table", verdict("driver", True))
    if smi in ("faulty-gpu", "no-devices"):
        return ("driver", f"loaded, version unknown ({d.get('nvidia_smi_text') or smi}); supply "
                          "/proc/driver/nvidia/version", verdict("driver", True))
    if smi == "nvml-unknown-error":
        return ("driver", f"unknown: {smi_why} ({d.get('nvidia_smi_text') or smi})", verdict("driver", False))
    if d.get("nvidia_smi_form") == "unrecognised":
        return ("driver", "unknown: nvidia-smi's text is in a form envcheck does not read "
                          f"({d.get('nvidia_smi_text') or 'first line empty'})", verdict("driver", False))
    if smi in ("timed-out", "crashed", "failed"):
        return ("driver", f"unknown: {smi_why} ({d.get('nvidia_smi_text') or d.get('error_text') or smi})",
                verdict("driver", False))
    if d.get("nvidia_smi_form") == "nvidia-smi -q" and not smi:  # its head alone, cut before the driver's line
        return ("driver", "unknown: nvidia-smi's `-q` output was cut before its driver version", verdict("driver", False))
    unread = _unread(rep, "proc-driver-version.txt", "sys-module-nvidia-version.txt")
    if unread:
        return ("driver", f"unknown: {unread[0]}", verdict("driver", False))
    missing = [k for k in _DRIVER_KEYS if k in (rep.get("not_captured") or ())]
    if len(missing) == len(_DRIVER_KEYS):
        return ("driver", "not captured (supply nvidia-smi.txt, proc-driver-version.txt or nvml.json)",
                verdict("driver", False))
    why = d.get("error_text") or "no kernel module, libcuda or nvidia-smi"
    if missing:
        return ("driver", f"unknown ({why}); not captured: {', '.join(missing)}", verdict("driver", False))
    return ("driver", f"not found ({why})", verdict("driver", False))


def _gpu_detail(g: Dict[str, Any]) -> str:
    idx = "?" if g.get("index") is None else g["index"]
    det = f"[{idx}] {g['name'] or 'name unknown'}, sm {g['compute_capability'] or 'unknown'}"
    if g.get("memory_mib"):
        det += f", {g['memory_mib']} MiB"
    if g.get("mig"):
        det += ", MIG"
    if g.get("bus_id") and (g.get("fault") or g.get("index") is None):
        det += f" at {g['bus_id']}"
    if g.get("fault"):
        det += f" - FAULTY: {g['fault']}"
    if not g.get("visible", True):
        det += " (hidden by CUDA_VISIBLE_DEVICES)"
    if g.get("vendor") == "nvidia" and g.get("source") in ("sycl-ls", "clinfo"):
        det += f" (listed by {g['source']} only: supply nvidia-smi.txt for its driver and compute capability)"
    return det


def _nvidia_gpu_rows(rep: Dict[str, Any], verdict: Verdict) -> List[Row]:
    gpus = [g for g in (rep.get("gpus") or []) if g.get("vendor") in (None, "nvidia")]
    if gpus:
        rows = [("gpu", _gpu_detail(g), verdict("gpu", True)) for g in gpus]
        if rep.get("gpus_known") is False:
            form = (rep.get("driver") or {}).get("nvidia_smi_form")
            what = f"the {form} listing" if form in _LISTERS else "partial nvidia-smi output"
            rows.append(("gpu", f"list may be incomplete ({what}); supply the full `nvidia-smi` "
                                "or nvml.json", verdict("gpu", False)))
        return rows
    if _not_captured(rep, "nvidia-smi.txt", "nvidia-smi-query.csv", "nvml.json"):
        return [("gpu", "not captured (supply nvidia-smi.txt or nvml.json)", verdict("gpu", False))]
    if rep.get("gpus_known") is False:
        return [("gpu", "unknown: nothing listed the GPUs completely; supply the full `nvidia-smi` output or "
                        "nvml.json", verdict("gpu", False))]
    return [("gpu", "none found", verdict("gpu", False))]


#: the driver's files of contract §1 (a hand-made snapshot may hold none of them)
_DRIVER_KEYS = ("nvidia-smi.txt", "proc-driver-version.txt", "sys-module-nvidia-version.txt", "libcuda.json",
                "nvml.json")


def _unread_vendor_files(rep: Dict[str, Any]) -> List[str]:
    """A hand-made snapshot whose only accelerator files are another vendor's, none of them read (no vendor
    found): which of those files it holds. Empty when any NVIDIA driver file was captured."""
    nc = set(rep.get("not_captured") or ())
    if not nc or rep.get("vendor") or not all(k in nc for k in _DRIVER_KEYS):
        return []
    from envcheck.snapshot.reader import OTHER_VENDOR_TOOL_KEYS

    return [k for k in OTHER_VENDOR_TOOL_KEYS if k not in nc]


def _unread(rep: Dict[str, Any], *keys: str) -> List[str]:
    """Why each of ``keys`` that is in the source could not be read (``problems``: unreadable, timed out, or cut off: a
    program that printed more than the probe keeps, whose head gives no fact - a flooding nvcc is no "no nvcc found",
    attack35)."""
    bad = {p.get("capture"): p.get("detail") or f"{p.get('capture')}: {p.get('status')}"
           for p in rep.get("problems") or () if p.get("status") in ("unreadable", "timed-out")
           or (p.get("status") == "failed" and CUT_OFF in str(p.get("detail") or ""))}
    return [str(bad[k]) for k in keys if k in bad]


def _not_captured(rep: Dict[str, Any], *keys: str) -> bool:
    """None of ``keys`` was captured: a hand-made snapshot without them (``not_captured``), unknown, not absent."""
    nc = rep.get("not_captured") or ()
    return all(k in nc for k in keys)


def _toolkit_row(rep: Dict[str, Any], verdict: Verdict) -> Row:
    t = rep["toolkit"]
    unread = _unread(rep, "nvcc.txt", "cuda-version.txt")
    if not t["version"] and unread:
        return ("toolkit", f"unknown: {unread[0]}", verdict("toolkit", False))
    if not t["version"] and _not_captured(rep, "nvcc.txt", "cuda-version.json", "cuda-version.txt"):
        return ("toolkit", "not captured (supply nvcc.txt: `nvcc --version`)", verdict("toolkit", False))
    if not t["version"] and _not_captured(rep, "nvcc.txt"):
        return ("toolkit", "no CUDA toolkit version file found (nvcc.txt not captured)", verdict("toolkit", False))
    if not t["version"]:
        return ("toolkit", "no nvcc / CUDA toolkit found", verdict("toolkit", False))
    det = f"CUDA {t['version']}" + (f" (nvcc {t['nvcc']})" if t.get("nvcc") else "")
    if t.get("root"):
        det += f" at {t['root']}"
    return ("toolkit", det, verdict("toolkit", True))


def _cudnn_rows(rep: Dict[str, Any], verdict: Verdict) -> List[Row]:
    cudnn: List[Dict[str, Any]] = rep["cudnn"]
    if not cudnn:
        unread = _unread(rep, "ldconfig.txt", "libraries.txt")
        if unread:
            return [("cudnn", f"unknown: {unread[0]}", verdict("cudnn", False))]
        missing = [k for k in ("ldconfig.txt", "libraries.txt") if _not_captured(rep, k)]
        if len(missing) == 2:
            return [("cudnn", "not captured (supply ldconfig.txt: `ldconfig -p`, or libraries.txt)",
                     verdict("cudnn", False))]
        if missing:
            return [("cudnn", f"no libcudnn found (not captured: {missing[0]})", verdict("cudnn", False))]
        return [("cudnn", "no libcudnn found", verdict("cudnn", False))]
    rows = []
    for c in cudnn:
        ver = c["version"] or (f"major {c['major']}" if c.get("major") else "version unknown")
        if c.get("version_source") == "soname":
            ver = f"{c['version']}.x (soname only)"
        where = "header only, no library" if c["source"] == "header" else c["source"]
        rows.append(("cudnn", f"{ver}  {c['path']} [{where}]", verdict("cudnn", True)))
    return rows


def _framework_detail(name: str, fw: Dict[str, Any]) -> str:
    """"2.5.1 (CUDA 12.4, cuDNN 9.1.0)", "2.5.1 (CPU-only build)", ..."""
    ver = fw.get("version") or "version unknown"
    if fw.get("cpu_only"):
        return f"{ver} (CPU-only build)"
    bits = [b for b in (_accelerator_bit(fw), _cuda_bit(name, fw)) if b]
    if fw.get("cudnn"):
        bits.append(f"cuDNN {fw['cudnn']}")
    if fw.get("build_info", {}).get("cuda_plugin") if isinstance(fw.get("build_info"), dict) else False:
        bits.append(fw["build_info"]["cuda_plugin"])
    return f"{ver}" + (" (" + ", ".join(bits) + ")" if bits else "")


def _accelerator_bit(fw: Dict[str, Any]) -> Optional[str]:
    """A build for ROCm, XPU or MPS, as the framework says."""
    if fw.get("rocm"):
        return f"ROCm {fw['rocm']}" + (f", HIP {fw['hip']}" if fw.get("hip") else "")
    if fw.get("xpu"):
        return "XPU build"
    if (fw.get("mps") or {}).get("built") and not fw.get("cuda"):
        avail = (fw.get("mps") or {}).get("available")
        return "MPS" + (" available" if avail is True else " not available" if avail is False else "")
    return None


def _cuda_bit(name: str, fw: Dict[str, Any]) -> Optional[str]:
    """The CUDA the framework was built for, or that its build is unknown."""
    if fw.get("cuda"):
        return f"CUDA {fw['cuda']}"
    if fw.get("cuda_major"):
        return f"CUDA {fw['cuda_major']}.x"
    if fw.get("cpu_only") is None and not fw.get("rocm") and not fw.get("xpu"):
        return (f"build unknown: supply {name}.json or requires.json"
                if name in ("torch", "tensorflow") else "build unknown")
    return None


def _jetson_detail(acc: Dict[str, Any]) -> str:
    """NVIDIA Jetson: the L4T release, and what jetson_release names (JetPack, CUDA, cuDNN, TensorRT)."""
    j = acc.get("jetson") or {}
    bits = [f"L4T {acc['l4t']}"]
    if j:
        bits.append(f"JetPack {j['jetpack']}" if j.get("jetpack") else "JetPack not named by jetson_release")
        bits.extend(f"{label} {j[key]}" if j.get(key) else f"{label} not installed"
                    for key, label in (("cuda", "CUDA"), ("cudnn", "cuDNN"), ("tensorrt", "TensorRT")))
        bits.append("(jetson_release)")
    return ", ".join(bits[:-1]) + (" " + bits[-1] if j else "") if j else bits[0]


def _vendor_rows(rep: Dict[str, Any], verdict: Verdict) -> List[Row]:
    """The rows of an AMD / Intel / Apple machine (contract §9), or of one whose installed builds are all for such an
    accelerator that the captures do not show (``accelerator.builds_for``)."""
    vendor = rep.get("vendor") or (rep.get("accelerator") or {}).get("builds_for")
    rows: List[Tuple[str, str, str]] = []
    acc = rep.get("accelerator") or {}
    # a Mac's own GPUs are listed whatever their maker (an NVIDIA GeForce of a 2012 MacBook Pro is system_profiler's)
    gpus = [g for g in (rep.get("gpus") or []) if g.get("vendor") not in (None, "nvidia")
            or (g.get("vendor") == "nvidia" and str(g.get("source") or "").startswith("system_profiler"))]
    for g in gpus:
        idx = "?" if g.get("index") is None else g["index"]
        bits = [g.get("name") or "name unknown"]
        if g.get("gfx"):
            bits.append(g["gfx"])
        elif vendor == "amd":
            bits.append("gfx unknown")
        if g.get("device_id"):
            bits.append(f"device {g['device_id']}")
        if g.get("memory_mib"):
            bits.append(f"{g['memory_mib']} MiB")
        rows.append(("gpu", f"[{idx}] " + ", ".join(bits), verdict("gpu", True)))
    if not gpus and rep.get("vendor") is None:
        build = {"amd": "ROCm", "intel": "XPU", "apple": "MPS"}.get(str(vendor), "")
        supply = {"amd": "rocminfo or the KFD topology", "intel": "sycl-ls", "apple": "sw_vers"}.get(str(vendor), "")
        rows.append(("gpu", f"not seen; the installed builds are {build} builds (supply {supply})", verdict("gpu", False)))
    elif not gpus:
        rows.append(("gpu", f"{vendor} accelerator, no GPU listed", verdict("gpu", False)))
    if vendor == "amd":
        r = rep.get("rocm") or {}
        det = ", ".join(x for x in (f"ROCm {r['version']}" if r.get("version") else "ROCm user space unknown",
                                    f"HIP {r['hip']}" if r.get("hip") else "",
                                    f"amdgpu {r['amdgpu']}" if r.get("amdgpu") else
                                    (r.get("amdgpu_source") or "amdgpu version unknown")) if x)
        rows.append(("rocm", det, verdict("driver", bool(r.get("version") or r.get("amdgpu")))))
        nodes = acc.get("device_nodes") or []
        if nodes:
            bad = [n["path"] for n in nodes if n.get("exists") and (n.get("readable") is False or n.get("writable") is False)]
            miss = [n["path"] for n in nodes if n.get("exists") is False]
            det = ("cannot open " + ", ".join(bad)) if bad else ("missing " + ", ".join(miss)) if miss else \
                f"{len(nodes)} node(s) open read-write"
            rows.append(("devices", det, verdict("gpu", True)))
    elif vendor == "intel":
        x = rep.get("xpu") or {}
        lz = x.get("level_zero_gpus")
        det = ("Level Zero: " + (", ".join(lz) if lz else "no GPU") if lz is not None else "Level Zero: unknown (supply "
               "sycl-ls)") + (f" ({x['level_zero']})" if x.get("level_zero") else "")
        if x.get("compute_runtime"):
            det += f"; compute runtime {x['compute_runtime']}"
        rows.append(("xpu", det, verdict("gpu", lz is not None)))
    elif vendor == "apple":
        mac = acc.get("macos")
        det = (f"macOS {mac}" if mac else "macOS version unknown (supply sw_vers)")
        if acc.get("apple_silicon"):
            det += ", Apple silicon"
        if acc.get("rosetta"):
            det += ", Python under Rosetta"
        rows.append(("macos", det, verdict("torch", bool(mac))))
    return rows


def _one_line(value: Any) -> str:
    """A value that stands on the header line: a newline or tab in it (a snapshot's meta.json hostname, its
    os-release name) shown as ``?``, so that it cannot start a line of its own."""
    s = str(value)
    return "".join(c if c.isprintable() else "?" for c in s) if not s.isprintable() else s


def _header(rep: Dict[str, Any]) -> str:
    bits = [f"envcheck {rep['envcheck']}", _one_line(rep.get("hostname") or "?")]
    if rep["source"] != "live":
        bits.append(f"snapshot {_one_line(rep['source'])}")
    host = rep.get("host", {})
    extra = [_one_line(x) for x in (host.get("os"), host.get("wsl"), (f"container: {host['container']}"
                                                                       if host.get("container") else None)) if x]
    return " - ".join(bits) + (f"  ({', '.join(extra)})" if extra else "")


def _summary(rep: Dict[str, Any]) -> str:
    n = {s: sum(1 for f in rep["findings"] if f["severity"] == s) for s in ("error", "warning", "info")}
    if n["error"]:
        head = f"NOT OK: {n['error']} error(s)"
    elif n["warning"]:
        head = "OK with warnings"
    else:
        head = "OK"
    return f"{head}, {n['warning']} warning(s), {n['info']} note(s)."


def _table(rows: List[Tuple[str, str, str]], st: Style, width: Optional[int]) -> List[str]:
    """The component table. With a ``width``, a long detail wraps in its column (paths that do
    not fit are shortened in the middle) and the verdict stays on the row's first line."""
    w1 = max(len(r[0]) for r in rows)
    w3 = max(len(r[2]) for r in rows)
    w2 = min(max(len(r[1]) for r in rows), 90)
    room = None
    if width:
        room = max(max(width, MIN_WIDTH) - (2 + w1 + 2 + 2 + w3), 20)
        w2 = min(w2, room)
    out = []
    for comp, det, ver in rows:
        comp, det = _one_line(comp), _one_line(det)  # a GPU name with a newline in nvml.json stays in its row
        kind = {"ERROR": "error", "warning": "warning", "ok": "ok"}.get(ver, "dim")
        parts = [det]
        if room and len(det) > room:
            det = " ".join(shorten_middle(w, room) for w in det.split(" "))
            parts = wrap(det, room) or [det]
        out.append(f"  {comp:<{w1}}  {parts[0]:<{w2}}  {st(ver, kind)}")
        out += [f"  {'':<{w1}}  {p}" for p in parts[1:]]
    return out


def render_text(rep: Dict[str, Any], style: Optional[Style] = None, width: Optional[int] = None) -> str:
    """The report for a terminal; with ``width``, every line fits in that many columns."""
    rep = clean(rep)  # no terminal control sequences from untrusted text
    st = style or _plain
    out = [st(_header(rep), "bold"), ""]
    out += _table(_rows(rep), st, width)
    out.append("")
    if rep["findings"]:
        out.append(st("Findings", "bold"))
        for f in rep["findings"]:  # each on its own lines: a newline quoted from a capture starts none
            out.append(f"  {st(f['severity'].upper(), f['severity'])} [{_one_line(f['id'])}] "
                       f"{_one_line(f['message'])}")
            if f.get("evidence"):
                out.append(f"      evidence: {_one_line(f['evidence'])}")
            if f.get("fix"):
                out.append(f"      fix: {_one_line(f['fix'])}")
        out.append("")
    for n in rep.get("notes", []):
        out.append(f"  note: {_one_line(n)}")
    for p in rep.get("problems", []):
        out.append(f"  probe {p['status']}: {p['detail']}")
    if rep.get("notes") or rep.get("problems"):
        out.append("")
    out.append(st(_summary(rep), "error" if not rep["ok"] else "ok"))
    return fit("\n".join(out), width) + "\n"


_MD_LINKISH = lazyre.compile(r"[\\\[\]<>!&*_~#]")


def md_text(s: Any, table: bool = True) -> str:
    """A value in the Markdown report: on its line, no table break, and nothing a captured value (a GPU name, a host
    name) could turn into a link, an image, HTML or a mention (backslash-escaped; ``@`` followed by a zero-width
    space); the code spans envcheck's own texts use are kept."""
    parts = str(s).replace("\n", " ").split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span at all
        parts = ["\\`".join(parts)]
    for i in range(0, len(parts), 2):  # outside the code spans only: inside, a backslash would show as itself
        parts[i] = _MD_LINKISH.sub(lambda m: "\\" + m.group(), parts[i]).replace("@", "@&#8203;")
    text = "`".join(parts)
    return text.replace("|", "\\|") if table else text  # a "|" breaks a table row, not a list item


def _md_code(s: Any) -> str:
    """A value as one Markdown code span (nothing in it is Markdown): on its line, a backtick shown as ``'``."""
    return "`" + str(s).replace("\n", " ").replace("`", "'") + "`"


def render_markdown(rep: Dict[str, Any]) -> str:
    rep = clean(rep)  # no terminal control sequences from untrusted text
    out = [f"### envcheck status: {'OK' if rep['ok'] else 'NOT OK'}", "", f"_{md_text(_header(rep))}_", "",
           "| component | details | verdict |", "| --- | --- | --- |"]
    for comp, det, ver in _rows(rep):
        out.append(f"| {md_text(comp)} | {md_text(det)} | {md_text(ver)} |")
    if rep["findings"]:
        out += ["", "#### Findings", ""]
        for f in rep["findings"]:
            out.append(f"- **{f['severity']}** `{f['id']}`: {md_text(f['message'], table=False)}")
            if f.get("evidence"):
                out.append(f"  - evidence: {_md_code(f['evidence'])}")
            if f.get("fix"):
                out.append(f"  - fix: {md_text(f['fix'], table=False)}")
    for n in rep.get("notes", []):
        out.append(f"\n> note: {md_text(n, table=False)}")
    out += ["", f"{_summary(rep)}", ""]
    return "\n".join(out)
