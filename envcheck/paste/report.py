"""Turn the merged facts of a paste (:class:`~envcheck.paste.merge.Merged`) into its :class:`~envcheck.paste.sections.Report`:
the captures (snapshot files, contract §1) that :class:`~envcheck.paste.source.PasteSource` replays, and the facts
(contract §4: only what the text makes certain; unknown is ``None``)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

from envcheck.parse.versions import cudnn_to_int, cupy_dist_cuda
from envcheck.paste import report_vendors
from envcheck.paste.merge import Merged, refines
from envcheck.paste.readers.base import NVCC_RELEASE, Fact, mm
from envcheck.paste.sections import Report

__all__ = ["build"]


def _gpu_captures(m: Merged, rep: Report, gpus: Dict[int, Dict[str, Any]]) -> None:
    """GPUs and driver as --query-gpu style rows (only what was printed; [N/A] elsewhere), nvidia-smi's text."""
    caps = rep.captures
    driver = m.get("driver")
    if gpus:
        rows = ["index, name, driver_version, compute_cap, memory.total [MiB]"]
        for idx in sorted(gpus):
            g = gpus[idx]
            name = str(g.get("name", "")).replace(",", " ")
            rows.append(f"{idx}, {name}, {driver or '[N/A]'}, {g.get('cc') or '[N/A]'}, "
                        f"{str(g['mem']) + ' MiB' if g.get('mem') else '[N/A]'}")
        caps["nvidia-smi-query.csv"] = "\n".join(rows) + "\n"
    elif driver:
        caps["nvml.json"] = json.dumps({"driver_version": driver})
    smi = m.lists["smi"]
    if smi:
        tables = [t for t in smi if "NVIDIA-SMI" in t]
        caps["nvidia-smi.txt"] = tables[0] if tables else smi[0]
        if not tables and m.get("smi_failed"):
            rep.statuses["nvidia-smi.txt"] = "failed"


def _tool_captures(m: Merged, caps: Dict[str, str]) -> None:
    """nvcc, the toolkit's version.txt, /proc/driver/nvidia/version, ldconfig, WSL's kernel, python.json."""
    if m.get("nvcc"):
        caps["nvcc.txt"] = m.get("nvcc")
    elif m.get("toolkit_release"):
        r = m.get("toolkit_release")
        caps["nvcc.txt"] = f"Cuda compilation tools, release {r}, V{r}\n"
    for key, name in (("version_txt", "cuda-version.txt"), ("proc_driver", "proc-driver-version.txt")):
        if m.get(key):
            caps[name] = m.get(key)
    if m.lists["ld"]:
        caps["ldconfig.txt"] = "\n".join(dict.fromkeys(m.lists["ld"])) + "\n"
    if m.get("wsl_release"):
        caps["proc-version.txt"] = f"Linux version {m.get('wsl_release')}\n"
    py = {k: m.get(f) for k, f in (("version", "python"), ("platform", "platform"), ("machine", "machine")) if m.get(f)}
    if (py or m.packages) and "platform" not in py and m.get("platform_path"):
        # a Windows Python's own path, where no report line named the OS (only beside a report: a path alone makes none)
        py["platform"] = m.get("platform_path")
    py.update(report_vendors.python_keys(m))
    if py:
        py.setdefault("implementation", "CPython")
        caps["python.json"] = json.dumps(py)


def _packages(m: Merged) -> Dict[str, str]:
    """The packages the text lists, plus the framework versions a report names outside a package list."""
    packages = dict(m.packages)
    if "torch" not in packages and "pytorch" in packages:
        packages["torch"] = packages["pytorch"]  # conda's name for it
    for name, ver in m.lists["pip_install"]:
        if packages.get(name) and ver.startswith(packages[name] + ".post"):
            packages[name] = ver  # "Paddle version: 2.4.2" after `pip install paddlepaddle-gpu==2.4.2.post112`
    ort = m.prefix("ort")  # ONNX Runtime's template version, for the package the text names (never a guess between two)
    pkg = {"both": "onnxruntime-gpu"}.get(str(ort.get("package")), ort.get("package"))
    if ort.get("version") and pkg in ("onnxruntime", "onnxruntime-gpu") and not packages.get(pkg):
        packages[pkg] = ort["version"]
    tf = m.prefix("tf")
    if tf.get("version") and not any(k.startswith(("tensorflow", "tf-nightly")) for k in packages):
        packages["tensorflow"] = tf["version"]
    jax = m.prefix("jax")
    for k in ("version", "jaxlib"):
        if jax.get(k) and jax.get("devices") != "gpu":  # a GPU build whose label was not printed: unknown
            packages.setdefault("jax" if k == "version" else "jaxlib", jax[k])
    return packages


def _torch_json(torch: Dict[str, Any], tver: str) -> Dict[str, Any]:
    tj: Dict[str, Any] = {"version": tver}
    if torch.get("cuda"):
        tj["cuda"] = torch["cuda"]
    elif torch.get("_cuda_none") and not torch.get("hip"):
        tj["cuda"] = None  # torch.version.cuda is None: not a CUDA build
    if torch.get("hip"):
        tj["hip"] = torch["hip"]
    cudnn = cudnn_to_int(str(torch["cudnn"])) if torch.get("cudnn") else None
    if cudnn is not None:
        tj["cudnn"] = cudnn  # as torch.backends.cudnn.version() prints it
    if torch.get("arch_list"):
        tj["arch_list"] = list(torch["arch_list"])
    mps = {k: torch[f"mps_{k}"] for k in ("built", "available") if isinstance(torch.get(f"mps_{k}"), bool)}
    if mps:
        tj["mps"] = {"built": mps.get("built"), "available": mps.get("available")}  # as printed; unknown is null
    if torch.get("_xpu") or "+xpu" in tver:
        tj["xpu"] = "xpu"  # torch.version.xpu is a string; the text shows an XPU build, not its version
        tj.pop("cuda", None)
    return tj


def _torch_capture(m: Merged, caps: Dict[str, str], packages: Dict[str, str]) -> None:
    """torch.json from collect_env's fields; the package list keeps only a torch row of the imported version."""
    torch = m.prefix("torch")
    tver = torch.get("version")
    if not tver:
        if torch.get("arch_list") and "torch" not in m.conflicted:
            # torch's build block alone (torch.__config__.show()): its arch list and CUDA are facts of the build
            # whatever its release (contract: an arch list is a fact on its own)
            caps["torch.json"] = json.dumps(dict(_torch_json(torch, ""), version=None))
        return
    caps["torch.json"] = json.dumps(_torch_json(torch, tver))
    same = [packages[k] for k in ("torch", "pytorch") if (packages.get(k) or "").split("=")[0] == tver]
    same.sort(key=lambda v: "=" not in v)  # a conda row with its build string first
    if same and "=" in same[0] and _torch_conda_build(m, packages, tver) is None:
        same = [same[0].split("=")[0]]  # the conda build is not certainly the torch imported
    if same:
        packages["torch"] = same[0]
    elif packages.get("torch"):
        del packages["torch"]  # collect_env's torch.__version__ is the one imported


def _torch_conda_build(m: Merged, packages: Dict[str, str], tver: str) -> Optional[str]:
    """The conda build string of the torch imported (``py3.9_cuda12.1_cudnn8.9.2_0``), or ``None``: a
    ``torch``/``pytorch`` conda row of the same version; none when conda also lists a pip-installed torch
    (``torch 2.1.0 pypi_0``: which one was imported is not certain)."""
    if "torch" in m.conda_pypi or "pytorch" in m.conda_pypi:
        return None
    for k in ("pytorch", "torch"):
        v = packages.get(k) or ""
        if "=" in v and v.split("=", 1)[0] == tver.split("+")[0]:
            return v.split("=", 1)[1]
    return None


def _pip_cudnn(m: Merged, packages: Dict[str, str], cuda: str) -> Optional[str]:
    """The cuDNN of the one pip ``nvidia-cudnn-cuNN`` wheel a pip torch built with CUDA NN >= 12 loads."""
    from envcheck.parse.versions import cudnn_short

    wheels = [k for k in packages if re.match(r"^nvidia-cudnn-cu\d+$", k)]
    if wheels == [f"nvidia-cudnn-cu{cuda.split('.')[0]}"]:
        return cudnn_short(packages[wheels[0]].split("=")[0])
    return None


def _torch_facts(m: Merged, packages: Dict[str, str], tver: str) -> Dict[str, Any]:
    """torch's version, CUDA and cuDNN: collect_env's fields first ("CUDA used to build PyTorch" wins), then
    the ``+cuXYZ`` label, the conda build string of the same version, and on Linux the one pip
    ``nvidia-cudnn-cuNN`` wheel a pip torch built with CUDA NN >= 12 loads. Evidence that contradicts the
    fields is not used."""
    from envcheck.parse.versions import cuda_from_conda_build, cuda_from_local_label

    torch = m.prefix("torch")
    cpu = bool(torch.get("_cuda_none"))
    cuda = torch.get("cuda")
    cudnn = torch.get("cudnn")
    lab = cuda_from_local_label(tver)
    if cuda is None and not cpu and lab is not None:
        cuda = lab.cuda
    build = _torch_conda_build(m, packages, tver)
    cb = cuda_from_conda_build(build) if build else None
    if cb and not cpu and (cuda is None or cuda == cb[0]):
        cuda = cuda or cb[0]
        cudnn = cudnn or cb[1]
    elif cuda and not cpu and not cudnn and build is None and m.get("platform") == "linux" and (lab is None or (
            lab.kind == "cuda" and lab.cuda == cuda)) and re.match(r"^\d+\.\d+(\.\d+)?(\+cu\d+)?$", tver):
        cudnn = _pip_cudnn(m, packages, cuda)
    out: Dict[str, Any] = {"version": tver, "cuda": None if cpu else cuda, "cudnn": None if cpu else cudnn}
    lm = re.search(r"\+rocm(\d+\.\d+)", tver)
    rocm = _rocm_mm(torch.get("hip")) or _rocm_mm(lm.group(1) if lm else None)
    if rocm:
        out["rocm"] = rocm  # contract §9: the ROCm/HIP major.minor the build used, never the raw HIP string
        out["cuda"] = None
    if torch.get("_xpu") or "+xpu" in tver:
        out["xpu"] = True
        out["cuda"] = None
    return out


def _rocm_mm(v: Optional[str]) -> Optional[str]:
    """"6.1.40091-a8dbc0c19" / "3.0.19493-36529b1" / "6.2" -> "6.1" / "3.0" / "6.2"."""
    mt = re.match(r"^\s*(\d+)\.(\d+)", v or "")
    return f"{mt.group(1)}.{mt.group(2)}" if mt else None


def _gpu_facts(m: Merged, gpus: Dict[int, Dict[str, Any]], smi_gpus: List[Any]) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for idx in sorted(gpus):
        g = gpus[idx]
        out.append({"index": idx, "name": g.get("name"), "compute_capability": g.get("cc")})
    for r in smi_gpus:
        if r.index is not None and r.index not in gpus:
            out.append({"index": r.index, "name": r.name, "compute_capability": None})
    if not out and m.get("gpu_rendering"):  # glxinfo's renderer: the one GPU named, where nothing lists the GPUs
        out.append({"index": 0, "name": m.get("gpu_rendering"), "compute_capability": None})
    out.sort(key=lambda g: g["index"])
    return out


def _built(m: Merged) -> Dict[str, Dict[str, str]]:
    built: Dict[str, Dict[str, str]] = {}
    for k, v in m.prefix("built").items():
        fw, _, what = k.partition(".")
        built.setdefault(fw, {})[what] = v
    return built


def _ort_facts(m: Merged, packages: Dict[str, str]) -> Optional[Dict[str, Any]]:
    """ONNX Runtime: its version and package (``onnxruntime-gpu`` / ``onnxruntime``: a package row, the template's
    version with the package the text names); the package is null where the text does not say which, or shows both
    installed (which one serves ``import onnxruntime`` is then not known). ``cuda`` / ``cudnn`` are the matrix's (what
    the release needs), filled in by explain from the report's environment."""
    names = [k for k in ("onnxruntime-gpu", "onnxruntime") if packages.get(k)]
    ver = (packages[names[0]].split("=")[0] if names else None) or m.prefix("ort").get("version")
    if not ver:
        return None
    return {"version": ver, "package": names[0] if len(names) == 1 else None, "cuda": None, "cudnn": None}


def _paddle_facts(m: Merged, packages: Dict[str, str]) -> Optional[Dict[str, Any]]:
    """PaddlePaddle: its version (a package row), the CUDA / cuDNN its log says it loaded ("Runtime API Version",
    "cuDNN Version"), else the CUDA of a ``.postNNN`` build label (2.x)."""
    from envcheck.parse.versions import paddle_cuda_from_version

    ver = next((packages[k].split("=")[0] for k in ("paddlepaddle-gpu", "paddlepaddle") if packages.get(k)), None)
    got = m.prefix("paddle")
    if not ver and not got:
        return None
    cuda = got.get("cuda") or (paddle_cuda_from_version(ver) if ver else None)
    if ver and not cuda and "paddlepaddle-gpu" not in packages:
        cuda = None  # the CPU wheel
    return {"version": ver, "cuda": cuda, "cudnn": got.get("cudnn")}


def _cupy_facts(m: Merged, packages: Dict[str, str]) -> Optional[Dict[str, Any]]:
    """CuPy: its version (``cupy.show_config()``'s ``CuPy Version`` or one ``cupy-cudaNNx`` / ``cupy`` package row), the
    CUDA it was built with, the NVRTC that compiles its kernels and the cuDNN it loaded (show_config's rows); a
    package row of ``cupy-cuda12x`` says the CUDA major only where show_config does not say more."""
    rows = sorted(k for k in packages if k == "cupy" or cupy_dist_cuda(k))
    got = m.prefix("cupy")
    # show_config's row is the package "cupy" whatever the distribution; two distributions shown: which one imports is
    # not known (CuPy warns of it), so no version - unless show_config was read: its "CuPy Version" is the one imported
    ver = (packages["cupy"] if got and "cupy" in packages else packages[rows[0]] if len(rows) == 1 else "").split("=")[0] \
        or None
    if not ver and not got:
        return None
    dist = cupy_dist_cuda(rows[0]) if len(rows) == 1 else None  # cupy-cuda12x: "12"; cupy-cuda92: "9.2"
    cuda = got.get("cuda") or ((dist[1] or str(dist[0])) if dist else None)
    cupy = {"version": ver, "cuda": cuda, "nvrtc": got.get("nvrtc"), "cudnn": got.get("cudnn")}
    return cupy


#: a jaxlib wheel's local label: the CUDA major and the cuDNN it was built for ("0.4.10+cuda11.cudnn86": CUDA 11,
#: cuDNN 8.6; "0.1.57+cuda110.cudnn805"'s three digits: cuDNN 8.0.5)
_JAXLIB_LABEL = re.compile(r"\+cuda(?P<cuda>\d{2,3})\.cudnn(?P<cudnn>\d{2,3})$")


def _jaxlib_label(jaxlib: Optional[str]) -> Dict[str, str]:
    """The build's CUDA (major, as the label names it) and cuDNN from a jaxlib version's local label; {} without one."""
    lm = _JAXLIB_LABEL.search(jaxlib or "")
    if not lm:
        return {}
    cuda, cudnn = lm.group("cuda"), lm.group("cudnn")
    cuda = cuda if len(cuda) == 2 else f"{cuda[:2]}.{cuda[2:]}"
    return {"cuda": cuda, "cudnn": ".".join(cudnn)}


def _framework_facts(m: Merged, packages: Dict[str, str]) -> Dict[str, Any]:
    fws: Dict[str, Any] = {}
    # two torch releases shown (m.conflicted: before and after an upgrade, two machines' reports): which one ran is not
    # certain, and a package row left of one of them is not made the torch of the other's CUDA fields
    tver = m.get("torch.version") or (None if "torch" in m.conflicted else (packages.get("torch") or "").split("=")[0]
                                      or None)
    if tver:
        fws["torch"] = _torch_facts(m, packages, tver)
    elif m.get("torch.cuda") and "torch" not in m.conflicted:
        # an extension builder's "the version torch was compiled with 11.8": the build's CUDA, its release not shown
        fws["torch"] = {"version": None, "cuda": m.get("torch.cuda")}
    tf_row = next((packages[k].split("=")[0] for k in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly")
                   if packages.get(k)), None)
    tfv = m.get("tf.version") or tf_row
    if refines(tfv, tf_row):  # "TensorFlow version: 2.18" and a package row "tensorflow 2.18.0": the precise one
        tfv = tf_row
    if tfv:
        fws["tensorflow"] = {"version": tfv, "cuda": None, "cudnn": None}
    jax = m.prefix("jax")
    jv = jax.get("version") or (packages.get("jax") or "").split("=")[0] or None
    if jv or jax.get("jaxlib"):
        jl = jax.get("jaxlib") or (packages.get("jaxlib") or "").split("=")[0] or None
        fws["jax"] = {"version": jv, "jaxlib": jl, "cuda": None, "cudnn": None, **_jaxlib_label(jl)}
    paddle = _paddle_facts(m, packages)
    if paddle:
        fws["paddle"] = paddle
    ort = _ort_facts(m, packages)
    if ort:
        fws["onnxruntime"] = ort
    cupy = _cupy_facts(m, packages)
    if cupy:
        fws["cupy"] = cupy
    built = _built(m)
    xla = built.get("xla", {})
    for name in ("tensorflow", "jax"):
        mine = dict(built.get(name, {}))
        if xla and (name == "jax" or "jax" not in built) and [k for k in ("tensorflow", "jax") if k in fws or k in
                                                              built] == [name]:
            mine.setdefault("cudnn", xla["cudnn"])  # XLA's cuDNN line, when only this framework is in the text
        if mine:
            fw = fws.setdefault(name, {"version": None, "cuda": None, "cudnn": None})
            for k, v in mine.items():
                if fw.get(k) is None:
                    fw[k] = v
    return fws


def _facts(m: Merged, packages: Dict[str, str], gpus: Dict[int, Dict[str, Any]]) -> Dict[str, Any]:
    """Contract §4 ``facts``: only what the text makes certain."""
    from envcheck.parse.nvidia_smi import parse_table

    smi = parse_table(_smi_table_text(m))
    nv = None
    if m.get("nvcc"):
        nm = NVCC_RELEASE.search(m.get("nvcc"))
        if nm:
            nv = (nm.group(1), nm.group(2))
    toolkit = {"version": mm(nv[0]) if nv else m.get("toolkit_release"), "nvcc": nv[1] if nv else None}
    # torch's "found version 10010" and the cuDNN a log says it loaded are certain too, but the hand-written
    # facts of the paste sets keep driver.cuda to nvidia-smi's field and carry no top-level cudnn list: they
    # stay in the merged view (driver_cuda, cudnn_loaded) for the lead to decide, not in the facts
    out = {"driver": {"version": m.get("driver") or smi.driver_version or _prose_driver(m, smi),
                      "cuda": smi.cuda_version or m.get("smi_cuda")},
           "gpus": _gpu_facts(m, gpus, smi.gpus),
           "python": {"version": m.get("python") or _prose_python(m) or m.get("python_path")},
           "toolkit": toolkit, "frameworks": _framework_facts(m, packages)}
    claims = m.prefix("claim")
    if claims:
        # the user's own words about the machine: a claim, not a detected fact (docs/explain.md)
        out["claims"] = claims
    report_vendors.facts(m, out)
    return out


#: a tool's command line (fact ``ran``) -> the facts its output gives, and what is unknown without it
_RAN = {"nvidia-smi": "the driver and the GPUs are", "nvcc": "the CUDA toolkit's version is",
        "collect_env": "the PyTorch build, the driver and the GPUs are"}


def _ran_without_output(m: Merged) -> List[str]:
    """The tools the text shows being run whose output was not read (not captured, cut, another form): unknown, not
    a failure."""
    out: List[str] = []
    got = {"nvidia-smi": bool(m.lists["smi"] or m.gpus or m.get("driver")),
           "nvcc": bool(m.get("nvcc") or m.get("toolkit_release")),
           "collect_env": "collect_env" in m.formats}
    for tool, line in dict.fromkeys((t, ln) for t, ln in m.lists["ran"]):
        if not got.get(tool, True):
            out.append(f"not-checked: `{line[:120]}` was run but no output of it was read (not captured, cut, or in a "
                       f"form envcheck does not read): {_RAN[tool]} unknown from it, not failed; paste the whole output")
            got[tool] = True  # one note per tool
    return out


def notes(m: Merged) -> List[str]:
    """What the text shows but envcheck could not read, each ``not-checked: ...`` (unknown, never a failure)."""
    out = list(dict.fromkeys(m.lists["note"]))
    for name, versions in m.conflicted.items():
        shown = ", ".join(dict.fromkeys(versions))
        if name in ("python_path", "python_prose"):
            where = "install paths" if name == "python_path" else "the text's sentences"
            out.append(f"not-checked: {where} name different Pythons ({shown}): which one ran is not certain")
            continue
        if name == "tf.build.is_cuda_build":
            out.append(f"not-checked: TensorFlow's own answer to 'built with CUDA?' is shown both ways ({shown}): which "
                       "binary ran is not certain, so it is not read")
            continue
        out.append(f"not-checked: {name} is listed with different versions ({shown}): which one is installed is not "
                   "certain, so no version of it is read")
    return out + _ran_without_output(m)


def _prose_driver(m: Merged, smi: Any) -> Optional[str]:
    """The driver a sentence states ("the driver version is 470.82.01"), where no report of the text names one."""
    return None if smi.gpus or m.lists["smi"] else m.get("driver_prose")


def _smi_lists_gpus(m: Merged) -> bool:
    """Whether the nvidia-smi output read lists a GPU (its header line alone, "NVIDIA-SMI 418.165.02  Driver Version:
    ...", lists none: facts22's pytorch-46647); other nvidia-smi forms are taken to list theirs."""
    from envcheck.parse.nvidia_smi import parse_table

    if not m.lists["smi"]:
        return False
    table = _smi_table_text(m)
    return table is None or bool(parse_table(table).gpus)


def _smi_table_text(m: Merged) -> Optional[str]:
    """The nvidia-smi table read: the one with its header; else GPU rows pasted without it (an excerpt starts with
    its "+----+" rule, or with the "|====|" line under the column titles)."""
    return next((t for t in m.lists["smi"] if "NVIDIA-SMI" in t), None) \
        or next((t for t in m.lists["smi"] if t.lstrip().startswith(("+-", "|="))), None)


def _prose_gpu(m: Merged) -> None:
    """The GPU a sentence names ("my GPU is a GTX 1080") is GPU 0 where no report of the text lists a GPU."""
    name = m.get("gpu_prose_named")
    if name and not m.gpus and not m.vgpus and not _smi_lists_gpus(m):
        m.add(Fact("gpu", (0, name, None, None), str(name)))


def _prose_python(m: Merged) -> Optional[str]:
    """The Python a sentence states, where no install path names another release (``3.12.1`` beside a path's
    ``3.12`` agrees; beside ``3.10`` which one ran is not certain)."""
    said, path = m.get("python_prose"), m.get("python_path")
    if not said or (path and ".".join(str(said).split(".")[:2]) != path):
        return None
    return str(said)


def build(m: Merged) -> Report:
    """The captures (snapshot files) and the facts of everything read."""
    _prose_gpu(m)
    rep = Report(formats=m.formats, lines=dict(m.lines), notes=notes(m))
    for key in ("gpu_works", "gpu_fails"):
        if m.lists[key]:
            rep.lines[key.replace("_", "-")] = ",".join(dict.fromkeys(m.lists[key]))
    if m.lists["gpu_prose"]:  # the GPU models sentences name, and the compute-capability floor one states
        rep.lines["gpu-prose"] = "|".join(dict.fromkeys(m.lists["gpu_prose"]))
    for key in ("torch_release_prose", "gpu_series_prose"):  # torch releases / GeForce series sentences name (arch29)
        if m.lists[key]:
            rep.lines[key.replace("_", "-")] = "|".join(dict.fromkeys(m.lists[key]))
    for key in ("cc_floor", "cc_ceiling"):
        if m.get(key):
            rep.lines[key.replace("_", "-") + "-value"] = m.get(key)
    if m.get("docker"):
        rep.lines["docker-no-gpus"] = m.get("docker")
    if m.get("docker_gpus"):
        rep.lines["docker-gpus"] = m.get("docker_gpus")
    # the OS the text's Python runs on (a report's, a Windows path's, a Linux home's or dist-packages' path)
    shown = m.get("platform") or m.get("platform_path") or ("linux" if m.lines.get("linux-python-path") else None)
    if shown:
        rep.lines["python-platform"] = shown
    if not rep.formats:
        if m.get("logged") or m.get("python_path") or m.get("python_prose") or m.get("prose"):  # a log whose own lines (or paths) state facts, no report: the
            # facts alone (no machine to check)
            rep.facts = _facts(m, {}, m.gpus)
        return rep
    gpus = {} if m.get("torch.hip") else m.gpus  # a ROCm machine's GPUs are not NVIDIA's
    _gpu_captures(m, rep, gpus)
    _tool_captures(m, rep.captures)
    packages = _packages(m)
    _torch_capture(m, rep.captures, packages)
    report_vendors.captures(m, rep.captures)
    tools: Dict[str, str] = {}
    for key, text in m.lists["tool"]:
        tools.setdefault(key, text)
    # another vendor's tool output as pasted (sycl-ls, system_profiler): the snapshot file it is, read by the snapshot's
    # own parser (the first output of each tool; its raw text over what report_vendors wrote from the facts)
    rep.captures.update(tools)
    if packages:
        rep.captures["packages.json"] = json.dumps(packages, sort_keys=True)
    tf_build = m.prefix("tf.build")
    if tf_build:  # tf.sysconfig.get_build_info() printed: the snapshot's tensorflow.json keys
        rep.captures["tensorflow.json"] = json.dumps({"version": m.get("tf.version"), **tf_build}, sort_keys=True)
    rep.facts = _facts(m, packages, gpus)
    return rep
