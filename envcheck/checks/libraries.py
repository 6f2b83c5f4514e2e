"""CUDA runtime / cuDNN library findings."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional

from envcheck.checks import Context
from envcheck.checks._util import cuda_builds, cuda_major, label
from envcheck.engine.rules import cudnn_loads_for, library_soname, library_wheel
from envcheck.matrix import Matrix
from envcheck.model import Environment, Finding, Framework, LibCopy, Severity, version_tuple

if TYPE_CHECKING:
    from envcheck.engine.onnxruntime import OrtNeed


def _loadable(env: Environment, fw: Framework, family: str, major: int) -> List[LibCopy]:
    """Copies of ``family`` with soname ``major`` that ``fw`` can load, in the order it would find them."""
    out = []
    for c in env.copies(family):
        if c.major != major:
            continue
        if fw.name == "torch" and c.source in ("torch", "pip"):
            out.append(c)
        elif c.source == "pip" and fw.name in ("tensorflow", "jax"):
            out.append(c)
        elif c.on_search_path or c.source == "conda":
            out.append(c)
    # search order: LD_LIBRARY_PATH, then RPATH'd framework copies, then the ldconfig cache
    rank = {"LD_LIBRARY_PATH": 0, "torch": 1, "pip": 2, "conda": 3, "ldconfig": 4}
    return sorted(out, key=lambda c: rank.get(c.source, 5))


def _cudnn_major(fw: Framework) -> Optional[int]:
    if fw.cudnn and fw.cudnn.split(".")[0].isdigit():
        return int(fw.cudnn.split(".")[0])
    return None


def _gpu_possible(env: Environment, ctx: Context) -> bool:
    """Library findings matter where CUDA can run: a driver is there, or a GPU is required."""
    return env.driver.present or ctx.require_gpu


def check_runtime_libraries(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    out: List[Finding] = []
    if not _gpu_possible(env, ctx):
        return out
    for fw in cuda_builds(env):
        if (env.python.platform or "").lower().startswith("win"):
            # native Windows: the framework loads DLLs (cudart64_*.dll, cudnn*64_*.dll) that the Linux library
            # scans (ldconfig, .so files) cannot see; their absence there says nothing
            out.append(Finding("not-checked", Severity.INFO,
                               f"{label(fw)} on native Windows: envcheck's library scans read Linux shared libraries "
                               "(the ldconfig cache, .so files), not the DLLs a Windows build loads, so whether its "
                               "CUDA runtime and cuDNN load was not checked.",
                               "Run `envcheck smoke` on the machine (it loads the build's libraries for real), or check "
                               "under WSL2 / Linux.",
                               f"python.json platform {env.python.platform!r}", fw.name))
            continue
        if fw.name == "cupy":
            out += _cupy_libraries(env, matrix, fw)
            continue
        if fw.name == "onnxruntime":
            out += _ort_libraries(env, matrix, fw)
            continue
        if fw.name not in ("torch", "tensorflow"):
            continue
        cmaj = cuda_major(fw)
        # 1. torch's hard Requires-Dist pins on nvidia-* wheels that are not installed
        #    (TensorFlow's are the optional [and-cuda] extra: its libraries may come from the system)
        torch_pins = fw.name == "torch" and any(r.startswith("nvidia-") for r in fw.requires)
        if torch_pins:
            missing = []
            for r in fw.requires:
                m = re.match(r"^(nvidia-[a-z0-9-]+?)(==.*|>=.*|~=.*|<.*)?$", r)
                if m and m.group(1) not in env.packages:
                    missing.append(r)
            for fid, what, group in (("cudnn-missing", "cuDNN", [r for r in missing if r.startswith("nvidia-cudnn")]),
                                     ("cuda-runtime-missing", "CUDA library",
                                      [r for r in missing if not r.startswith("nvidia-cudnn")])):
                if group:
                    out.append(Finding(fid, Severity.ERROR,
                                       f"{label(fw)} requires the {what} wheel(s) {', '.join(group)}, which are not "
                                       "installed (was it installed with --no-deps?).",
                                       "pip install " + " ".join(f"'{r}'" for r in group),
                                       "Requires-Dist: " + ", ".join(group), fw.name))
            continue
        # 2. the shared libraries themselves; a snapshot made by hand (an nvidia-smi.txt and a torch.json) holds no
        #    package list and no library scan: what loads is unknown there, not missing
        if not env.packages and not env.libraries and (cmaj is not None or _cudnn_major(fw) is not None):
            out.append(Finding("not-checked", Severity.INFO,
                               f"{label(fw)}: the captures hold no package list and no library scan (packages.json, "
                               "ldconfig.txt, libraries.txt), so whether its CUDA runtime and cuDNN load was not "
                               "checked.",
                               "Make the snapshot with `envcheck snapshot DIR` on the machine (or add `pip list` and "
                               "`ldconfig -p` output to it).",
                               f"{fw.name} {fw.version or '?'}: no packages.json, ldconfig.txt or libraries.txt", fw.name))
            continue
        unscanned = [k for k in ("ldconfig.txt", "libraries.txt") if not env.captured(k)]
        unknown = ([f"libcudart.so.{cmaj}"] if cmaj is not None and not _loadable(env, fw, "cudart", cmaj) else []) \
            + ([f"libcudnn.so.{_cudnn_major(fw)}"] if _cudnn_major(fw) is not None
               and not _loadable(env, fw, "cudnn", _cudnn_major(fw) or 0) else [])
        if unscanned and unknown:
            # a snapshot made by hand without the library scans: a copy may be there, unseen (contract §1)
            out.append(Finding("not-checked", Severity.INFO,
                               f"{label(fw)} needs {' and '.join(unknown)}; no loadable copy is among the captures, "
                               f"but this snapshot holds no {' or '.join(unscanned)} (not captured), so whether one "
                               "loads is not known.",
                               "Add `ldconfig -p` output as ldconfig.txt (and libraries.txt), or make the snapshot on "
                               "the machine with `envcheck snapshot DIR`.",
                               f"{fw.name} {fw.version or '?'}: not captured: {', '.join(unscanned)}", fw.name))
            continue
        if cmaj is not None:
            if not _loadable(env, fw, "cudart", cmaj):
                out.append(Finding("cuda-runtime-missing", Severity.ERROR,
                                   f"{label(fw)} needs the CUDA {cmaj} runtime (libcudart.so.{cmaj}*), but no loadable "
                                   "copy was found (ldconfig cache, LD_LIBRARY_PATH, pip nvidia-* wheels, conda).",
                                   _runtime_fix(fw, cmaj), f"{fw.name}.cuda = {fw.cuda}", fw.name))
        dmaj = _cudnn_major(fw)
        if dmaj is not None:
            if not _loadable(env, fw, "cudnn", dmaj):
                others = sorted({f"{c.version or c.major} ({c.path})" for c in env.copies("cudnn")})
                msg = (f"{label(fw)} needs cuDNN {dmaj} (libcudnn.so.{dmaj}), but no loadable copy was found"
                       + (f"; found only: {', '.join(others)}" if others else "") + ".")
                out.append(Finding("cudnn-missing", Severity.ERROR, msg, _cudnn_fix(matrix, fw, dmaj),
                                   f"{fw.name} built with cuDNN {fw.cudnn} ({fw.cudnn_source})", fw.name))
    return out


def _cupy_libraries(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    """A cupy-cudaNNx wheel loads the CUDA NN libraries (cuBLAS, NVRTC, cuFFT ...) from a toolkit on the machine or
    from pip wheels (its ctk extra). cuBLAS's soname carries the CUDA major (libcublas.so.12), so it is the probe:
    is a cuBLAS of that major loadable from either?"""
    from envcheck.engine.cupy import libraries_fix

    cmaj = cuda_major(fw)
    if cmaj is None or not fw.distribution or _loadable(env, fw, "cublas", cmaj):
        return []
    pip = [n for n, v in env.packages.items() if n == f"nvidia-cublas-cu{cmaj}"
           or (n == "nvidia-cublas" and str(v).startswith(f"{cmaj}."))]
    if pip:  # the wheel is installed; its files were not among the captures (a package list without a file scan)
        return []
    unscanned = [k for k in ("ldconfig.txt", "libraries.txt") if not env.captured(k)]
    if unscanned:  # a snapshot made by hand without the library scans: a copy may be there, unseen (contract §1)
        return [Finding("not-checked", Severity.INFO,
                        f"{label(fw)} needs the CUDA {cmaj} libraries (libcublas.so.{cmaj}, ...); none is among the "
                        f"captures, but this snapshot holds no {' or '.join(unscanned)} (not captured), so whether "
                        "they load is not known.",
                        "Add `ldconfig -p` output as ldconfig.txt (and libraries.txt), or make the snapshot on the "
                        "machine with `envcheck snapshot DIR`.",
                        f"{fw.distribution}: not captured: {', '.join(unscanned)}", fw.name)]
    return [Finding("cuda-runtime-missing", Severity.ERROR,
                    f"{label(fw)} needs the CUDA {cmaj} libraries (libcublas.so.{cmaj}, NVRTC, cuFFT, cuRAND, cuSOLVER, "
                    "cuSPARSE), but no loadable cuBLAS of that major was found (ldconfig cache, LD_LIBRARY_PATH, a CUDA "
                    "toolkit, pip nvidia-* / cuda-toolkit wheels, conda).",
                    libraries_fix(matrix, fw.distribution, fw.version, cmaj),
                    f"{fw.distribution} (CUDA {cmaj} wheel); no libcublas.so.{cmaj} among the copies found", fw.name)]


def _ort_loadable(env: Environment, matrix: Matrix, family: str, major: int, cuda_major: int,
                  minor: Optional[str] = None) -> bool:
    """A copy of ``family`` with soname major ``major`` (CUDA 10.x: of that minor, libcudart.so.10.2) that
    onnxruntime-gpu can load: on the search path, conda's, or pip's / torch's (ORT >= 1.19 preloads those, and an
    imported torch has loaded its own); a pip nvidia-* wheel of the major whose files were not scanned counts too."""
    for c in env.copies(family):
        if c.major != major or (minor and not str(c.version or "").startswith(minor)):
            continue
        if c.on_search_path or c.source in ("conda", "pip", "torch", "LD_LIBRARY_PATH"):
            return True
    # the pip wheels: nvidia-cuda-runtime-cu12 / nvidia-cuda-runtime 13.x; nvidia-cudnn-cu12 9.x (cuDNN's major is
    # the wheel's version's, its CUDA major the name's)
    wheel = library_wheel(matrix, family)  # (cuda.toml [[cuda_library]])
    return minor is None and wheel is not None and any(
        (n == f"{wheel}-cu{cuda_major}" and (library_soname(matrix, family) == "cuda" or str(v).startswith(f"{major}.")))
        or (n == wheel and str(v).startswith(f"{major}.")) for n, v in env.packages.items())


def _ort_libraries(env: Environment, matrix: Matrix, fw: Framework) -> List[Finding]:
    """onnxruntime-gpu: is the CUDA runtime and the cuDNN of one of the builds its version may be (one per package feed,
    compat_matrix/onnxruntime.toml) loadable? The rule is engine.onnxruntime.libraries_answer."""
    from envcheck.engine.onnxruntime import libraries_answer, ort_needs

    if fw.distribution != "onnxruntime-gpu":
        return []
    needs = ort_needs(matrix, fw.version)
    if not needs:
        return [Finding("not-checked", Severity.INFO,
                        f"onnxruntime-gpu {fw.version}: the CUDA and cuDNN this release needs are not in envcheck's "
                        "matrix (compat_matrix/onnxruntime.toml: ONNX Runtime's requirements table and the wheels' "
                        "METADATA read), so its CUDA runtime, cuDNN and driver were not checked.",
                        "See https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements "
                        "for its CUDA and cuDNN, or `envcheck matrix update`.",
                        f"onnxruntime-gpu {fw.version}: no onnxruntime.toml row", fw.name)]
    unscanned = [k for k in ("ldconfig.txt", "libraries.txt") if not env.captured(k)]
    rt = [_ort_loadable(env, matrix, "cudart", n.cuda_major, n.cuda_major, n.runtime_minor) for n in needs]
    dn = [_ort_loadable(env, matrix, "cudnn", n.cudnn_major, n.cuda_major) for n in needs]
    fid, which = libraries_answer(needs, rt, dn)
    if fid is None:
        return []
    what = "; or ".join(n.text() for n in which)
    if unscanned and not env.packages.get("torch"):
        return [Finding("not-checked", Severity.INFO,
                        f"onnxruntime-gpu {fw.version} needs {what}; no loadable copy is among the captures, but this "
                        f"snapshot holds no {' or '.join(unscanned)} (not captured), so whether one loads is not known.",
                        "Add `ldconfig -p` output as ldconfig.txt (and libraries.txt), or make the snapshot on the "
                        "machine with `envcheck snapshot DIR`.",
                        f"onnxruntime-gpu {fw.version}: not captured: {', '.join(unscanned)}", fw.name)]
    sources = "; ".join(dict.fromkeys(n.source for n in which))
    if fid == "cuda-runtime-missing":
        sonames = " / ".join(dict.fromkeys(n.runtime_soname for n in which))
        return [Finding("cuda-runtime-missing", Severity.ERROR,
                        f"onnxruntime-gpu {fw.version} needs {what}, but no loadable CUDA runtime of that version "
                        f"({sonames}) was found (ldconfig cache, LD_LIBRARY_PATH, pip nvidia-* wheels, torch's, "
                        "conda); without it ONNX Runtime lists only CPUExecutionProvider.",
                        _ort_fix(matrix, which), f"onnxruntime.toml: {sources}", fw.name)]
    found = sorted({f"{c.version or c.major} ({c.path})" for c in env.copies("cudnn")})
    return [Finding("cudnn-missing", Severity.ERROR,
                    f"onnxruntime-gpu {fw.version} needs {what}, but no loadable cuDNN "
                    + "/".join(dict.fromkeys(str(n.cudnn_major) for n in which)) + " was found"
                    + (f"; found only: {', '.join(found)}" if found else "") + ".",
                    _ort_fix(matrix, which), f"onnxruntime.toml: {sources}", fw.name)]


def _ort_wheels(matrix: Matrix, n: "OrtNeed") -> Optional[str]:
    """The pip requirements that install an onnxruntime-gpu build's CUDA runtime, cuBLAS and cuDNN, named from the
    matrix (cuda.toml ``[[cuda_library]]`` wheels, ``[[pip_wheels]]`` kind, cudnn.toml's wheels): the -cuNN wheels
    (CUDA 12), or NVIDIA's cuda-toolkit metapackage by extra where the library wheels carry no suffix (CUDA 13: the
    -cu13 names are empty placeholders); None where the matrix names no such wheel."""
    from envcheck.engine.rules import cudnn_wheel, library_toolkit_extra, library_wheel, nvidia_wheel_kind

    fams = ("cudart", "cublas")
    kind = nvidia_wheel_kind(matrix, n.cuda_major)
    if kind == "suffixed":
        wheels = [library_wheel(matrix, f) for f in fams]
        libs = [f"'{w}-cu{n.cuda_major}'" for w in wheels if w]
    elif kind == "toolkit":
        extras = [e for e in (library_toolkit_extra(matrix, f) for f in fams) if e]
        libs = [f"'cuda-toolkit[{','.join(extras)}]=={n.cuda_major}.*'"] if extras else []
    else:
        return None
    cudnn, _ = cudnn_wheel(matrix, n.cudnn_major, n.cuda_major)
    if len(libs) != (len(fams) if kind == "suffixed" else 1) or not cudnn:
        return None
    return " ".join(libs + [f"'{cudnn}=={n.cudnn_major}.*'"])


def _ort_fix(matrix: Matrix, which: List["OrtNeed"]) -> str:
    """Where the libraries of an onnxruntime-gpu build come from: NVIDIA's pip wheels where ONNX Runtime's own extras
    pin them for its CUDA major (``OrtNeed.pip_libraries``), else a toolkit and cuDNN from NVIDIA's archives."""
    n = which[0]
    wheels = _ort_wheels(matrix, n) if n.pip_libraries else None
    if wheels:
        return (f"pip install {wheels} (or install the CUDA {n.cuda_major}.x toolkit and "
                f"cuDNN {n.cudnn_major}.x and put their lib folders on LD_LIBRARY_PATH); `envcheck fix --want "
                "onnxruntime-gpu` picks a release for the CUDA the machine has.")
    return (f"Install the {n.cuda_text} runtime libraries and cuDNN {n.cudnn_major}.x (NVIDIA's archives) and put their "
            "lib folders on LD_LIBRARY_PATH, or install an onnxruntime-gpu release built for the CUDA the machine has "
            "(`envcheck fix --want onnxruntime-gpu`).")


def _runtime_fix(fw: Framework, cmaj: int) -> str:
    if fw.name == "tensorflow":
        return (f"pip install 'tensorflow[and-cuda]=={fw.version}' (TensorFlow >= 2.14), or install the CUDA {cmaj} "
                "runtime libraries and add their folder to LD_LIBRARY_PATH.")
    return f"Reinstall the CUDA build of {fw.name} so its bundled/pinned CUDA {cmaj} libraries come with it."


def _cudnn_fix(matrix: Matrix, fw: Framework, dmaj: int) -> str:
    from envcheck.engine.rules import nvidia_wheel_kind

    cmaj = cuda_major(fw)
    if cmaj is not None and nvidia_wheel_kind(matrix, cmaj) == "none":  # no nvidia-cudnn-cuNN wheel for this build's CUDA
        return (f"Install cuDNN {fw.cudnn or dmaj} for CUDA {cmaj} (NVIDIA's cuDNN archive, or conda's "
                f"cudnn={fw.cudnn or dmaj} with cudatoolkit={cmaj}.x) and add its lib folder to LD_LIBRARY_PATH; no pip "
                f"wheel carries a cuDNN for CUDA {cmaj}.")
    if fw.name == "tensorflow":
        return (f"pip install 'tensorflow[and-cuda]=={fw.version}' (TensorFlow >= 2.14), or install cuDNN {fw.cudnn} "
                f"for CUDA {cuda_major(fw)} (e.g. `pip install nvidia-cudnn-cu{cuda_major(fw)}=={fw.cudnn}.*`) and add "
                "its lib folder to LD_LIBRARY_PATH.")
    return f"pip install 'nvidia-cudnn-cu{cuda_major(fw)}' matching {fw.name}'s pin, or reinstall {fw.name}."


def check_cudnn_version(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    """The cuDNN that will load must have the build's major and at least its minor (the rule both
    PyTorch and TensorFlow enforce: "CuDNN library needs to have matching major version and equal
    or higher minor version")."""
    out: List[Finding] = []
    if not _gpu_possible(env, ctx):
        return out
    for fw in cuda_builds(env):
        if fw.name not in ("torch", "tensorflow") or not fw.cudnn:
            continue
        built = version_tuple(fw.cudnn)
        if not built:
            continue
        copies = [c for c in _loadable(env, fw, "cudnn", built[0]) if version_tuple(c.version)]
        if not copies:
            continue
        first = copies[0]
        if cudnn_loads_for(fw.cudnn, first.version) is False:
            out.append(Finding(
                "cudnn-version-mismatch", Severity.ERROR,
                f"{label(fw)} was built against cuDNN {fw.cudnn}, but the cuDNN it will load is {first.version} "
                f"({first.path}). cuDNN must have the same major version and an equal or higher minor version.",
                _mismatch_fix(fw, first), f"{fw.cudnn_source}; loaded copy {first.path} ({first.version_source})",
                fw.name))
        elif fw.name == "torch" and first.source == "LD_LIBRARY_PATH":
            pinned = [c for c in copies if c.source in ("pip", "torch")]
            if pinned and pinned[0].version != first.version and "soname" not in (
                    first.version_source, pinned[0].version_source):
                out.append(Finding(
                    "cudnn-version-mismatch", Severity.WARNING,
                    f"LD_LIBRARY_PATH puts cuDNN {first.version} ({first.directory}) ahead of the cuDNN "
                    f"{pinned[0].version} that {label(fw)} ships with.",
                    f"Remove {first.directory} from LD_LIBRARY_PATH so torch loads its own cuDNN.",
                    f"LD_LIBRARY_PATH={env.host.env.get('LD_LIBRARY_PATH', '')}", fw.name))
    return out


def _mismatch_fix(fw: Framework, copy: LibCopy) -> str:
    cm = cuda_major(fw)
    if copy.source == "pip" and copy.owner:
        return f"pip install '{copy.owner}=={fw.cudnn}.*'" if fw.cudnn and fw.cudnn.count(".") < 2 else \
            f"pip install '{copy.owner}~={fw.cudnn}'"
    if copy.source == "LD_LIBRARY_PATH":
        return (f"Remove {copy.directory} from LD_LIBRARY_PATH, or replace it with cuDNN >= {fw.cudnn} "
                f"(`pip install 'nvidia-cudnn-cu{cm}>={fw.cudnn}'`).")
    major = (version_tuple(fw.cudnn) or (0,))[0]
    return (f"Install cuDNN >= {fw.cudnn} with the same major for CUDA {cm} (e.g. "
            f"`pip install 'nvidia-cudnn-cu{cm}>={fw.cudnn},<{major + 1}'`), or the distribution "
            f"package libcudnn{major} of that version; then make sure {copy.path} is no longer found first.")


def check_duplicates(env: Environment, matrix: Matrix, ctx: Context) -> List[Finding]:
    out: List[Finding] = []
    for family, what in (("cudnn", "cuDNN"), ("cudart", "CUDA runtime"), ("cublas", "cuBLAS")):
        by_major: Dict[int, List[LibCopy]] = {}
        for c in env.copies(family):
            # a copy known only by its soname ("9") says nothing about which 9.x it is
            if c.on_search_path and c.major is not None and c.version and c.version_source != "soname":
                by_major.setdefault(c.major, []).append(c)
        for major, copies in sorted(by_major.items()):
            versions = sorted({c.version for c in copies if c.version})
            if len(versions) > 1:
                where = "; ".join(f"{c.version} in {c.directory} ({c.source})" for c in copies)
                out.append(Finding(
                    "duplicate-libraries", Severity.WARNING,
                    f"{len(versions)} different {what} {major} versions are on the library search path; which one a "
                    "program loads depends on LD_LIBRARY_PATH order and the ldconfig cache.",
                    "Keep one copy: remove the others from LD_LIBRARY_PATH or uninstall them, then run `sudo ldconfig`.",
                    where, family))
    return out
