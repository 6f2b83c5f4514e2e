"""ONNX Runtime: what an installed ``onnxruntime-gpu`` release needs (compat_matrix/onnxruntime.toml) and the rules
that are ONNX Runtime's own, so ``status``, ``fix`` and explain judge it with the engine.

* ``onnxruntime`` (the CPU build) and ``onnxruntime-gpu`` both installed: the two wheels write the same ``onnxruntime``
  package folder, so whichever was installed last serves ``import onnxruntime``; with the CPU package's files only the
  CPU provider exists (ONNX Runtime's maintainers: "If you want to run on GPU, you don't need to install onnxruntime
  (CPU pkg)", microsoft/onnxruntime#3787). It is a CPU-only build where the GPU was wanted: ``framework-cpu-only``
  (contract §3 "a CPU-only build of a framework is installed on a machine with an NVIDIA GPU"); it is no
  ``framework-conflict``, which is two frameworks needing incompatible CUDA / cuDNN.
* an onnxruntime-gpu build loads the CUDA runtime of its CUDA major (from CUDA 11 on any N.x: minor-version
  compatibility, as ORT's requirements page says; a CUDA 10.x build needs its own minor's sonames, libcudart.so.10.2:
  compat_matrix/cuda.toml ``[[runtime_file]]``)
  and the cuDNN of its major (8.x and 9.x builds do not mix);
* the driver must run the build's CUDA: the same driver floor as every framework (``engine.evaluate``), from the
  lowest CUDA among the feeds the installed version may have come from (so a too-old driver is said only where it
  is too old for every candidate).

An installed version no row covers is unknown: :func:`ort_needs` answers ``[]`` and the consumers say it was not
checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from envcheck.engine.builds import Build
from envcheck.engine.rules import runtime_file, runtime_names_minor
from envcheck.engine.stack import Answer
from envcheck.engine.status import Status
from envcheck.engine.textclaims import TextClaims
from envcheck.matrix import Matrix

__all__ = ["CPU", "GPU", "NO_LIBRARY_SAYS", "OrtNeed", "cpu_shadows_gpu", "provider_wanted", "installed_ort_cuda",
           "libraries_answer", "line_verdict", "majors_finding", "majors_verdict", "ort_builds", "ort_needs"]

CPU = "onnxruntime"
GPU = "onnxruntime-gpu"


@dataclass(frozen=True)
class OrtNeed:
    """What one feed's build of a release needs (a dataclass: a typing.NamedTuple's class syntax compiles one
    ForwardRef per field under ``from __future__ import annotations``, tests/test_status_imports.py)."""
    version: str
    feed: str
    cuda: str  # as the table states it: "12" (12.x), "11.8", "10.2"
    cuda_major: int
    cudnn_major: int
    source: str
    #: the CUDA runtime's file the build loads (cuda.toml ``[[runtime_file]]``: libcudart.so.12, libcudart.so.11.0,
    #: libcudart.so.10.2); "" where the matrix does not know it
    runtime: str = ""
    #: whether that file names the minor too (up to CUDA 10); None: not known
    minor_named: Optional[bool] = None
    #: whether the build's CUDA and cuDNN come as NVIDIA pip wheels the fix can name (nvidia-*-cu12 ...): ONNX
    #: Runtime's own 'cuda' / 'cudnn' extras pin them for this CUDA major (onnxruntime.toml ``[[pip_libraries]]``)
    pip_libraries: bool = False

    @property
    def build_cuda(self) -> str:
        """The CUDA the engine's driver rule takes: the stated minor, or the major's first (any N.x runs the build)."""
        return self.cuda if "." in self.cuda else f"{self.cuda}.0"

    @property
    def cuda_text(self) -> str:
        return f"CUDA {self.cuda}.x" if "." not in self.cuda else f"CUDA {self.cuda}"

    @property
    def runtime_soname(self) -> str:
        """The CUDA runtime the build loads: libcudart.so.12 (CUDA 12), libcudart.so.10.2 (CUDA 10.x)."""
        return self.runtime or f"the CUDA {self.cuda} runtime"

    @property
    def runtime_minor(self) -> Optional[str]:
        """The CUDA minor the runtime's soname names (CUDA 10.x: "10.2"); None where any N.x serves (from CUDA 11 on)."""
        return self.cuda if self.minor_named else None

    def text(self) -> str:
        feed = "PyPI" if self.feed == "pypi" else f"the {self.feed} feed"
        return f"{self.cuda_text} and cuDNN {self.cudnn_major}.x ({feed})"


def ort_needs(matrix: Matrix, version: Optional[str]) -> List[OrtNeed]:
    """The needs of an onnxruntime-gpu release, one per package feed (PyPI's first); [] when no row covers it."""
    if not version:
        return []
    out = []
    pip_majors = {r.get("cuda_major") for r in matrix.rows("onnxruntime", "pip_libraries")}
    for r in matrix.onnxruntime_releases(version):
        if isinstance(r.get("cuda_major"), int) and isinstance(r.get("cudnn_major"), int) and r.get("cuda"):
            out.append(OrtNeed(version.split("+", 1)[0], str(r.get("feed")), str(r["cuda"]), r["cuda_major"],
                               r["cudnn_major"], str(r.get("source") or ""),
                               runtime_file(matrix, str(r["cuda"])) or "", runtime_names_minor(matrix, r["cuda_major"]),
                               r["cuda_major"] in pip_majors))
    return out


def installed_ort_cuda(matrix: Matrix, version: Optional[str]) -> Optional[Tuple[str, str]]:
    """(the CUDA the driver must run, the row's source) for an installed onnxruntime-gpu: the lowest CUDA among its
    feeds' builds (a driver too old for that one is too old for every build the version may be); None: unknown."""
    from envcheck.versions import cuda_tuple

    needs = ort_needs(matrix, version)
    if not needs:
        return None
    low = min(needs, key=lambda n: cuda_tuple(n.build_cuda) or (99, 0))
    return low.build_cuda, low.source


def _conda_cuda_build(value: str) -> bool:
    """Whether a packages.json value of ``onnxruntime`` is a conda CUDA build ("1.17.1=py311h..._0_cuda118",
    "1.17.1 gpu_cuda118py311h..."): conda-forge ships them under the CPU package's name, so it is no CPU build."""
    parts = re.split(r"\s*=\s*|\s+", value.strip(), maxsplit=1)
    return len(parts) == 2 and "cuda" in parts[1].lower()


def cpu_shadows_gpu(packages: Mapping[str, str]) -> Optional[Answer]:
    """Both ``onnxruntime`` and ``onnxruntime-gpu`` installed: the CPU package's files may serve
    ``import onnxruntime`` (both write the one package folder; the last installed wins), so the CUDA provider may be
    missing. None when they are not both installed."""
    cpu, gpu = packages.get(CPU), packages.get(GPU)
    if not cpu or not gpu or _conda_cuda_build(str(cpu)):
        return None
    return Answer(Status.NO,
                  f"both {CPU} {cpu} (ONNX Runtime's CPU build) and {GPU} {gpu} are installed; they share the "
                  "'onnxruntime' package folder, so the files of the one installed last serve `import onnxruntime`, "
                  "and with the CPU package's only CPUExecutionProvider is there")


def provider_wanted(claims: TextClaims) -> Optional[str]:
    """The line of a text asking ONNX Runtime for its CUDA provider (``providers=['CUDAExecutionProvider']``, or ORT
    failing to create it), or None: what makes ORT's CPU package a cause rather than a dependency nobody runs on a GPU."""
    for line in (claims.gpu_intent, claims.gpu_fails):
        if line and "CUDAExecutionProvider" in line:
            return line
    return None


def libraries_answer(needs: Sequence[OrtNeed], runtime_ok: Iterable[bool], cudnn_ok: Iterable[bool]
                     ) -> Tuple[Optional[str], List[OrtNeed]]:
    """Which library is missing for an installed onnxruntime-gpu whose candidate builds are ``needs`` (one per feed)
    and, per candidate, whether its CUDA runtime / its cuDNN is loadable: ``(None, [])`` when some candidate has
    both; ``("cuda-runtime-missing", needs)`` when no candidate's CUDA runtime loads; else ``("cudnn-missing",
    the candidates whose runtime loads)``."""
    rt, dn = list(runtime_ok), list(cudnn_ok)
    if not needs or len(rt) != len(needs) or len(dn) != len(needs):
        return None, []
    if any(r and d for r, d in zip(rt, dn)):
        return None, []
    if not any(rt):
        return "cuda-runtime-missing", list(needs)
    return "cudnn-missing", [n for n, r in zip(needs, rt) if r]


def ort_builds(matrix: Matrix) -> List[Build]:
    """The onnxruntime-gpu releases on PyPI the matrix knows exactly (a row naming the release, not only its line), as
    builds ``fix`` can plan: the CUDA the driver must run (minor-version compatibility from CUDA 11 on), the cuDNN
    major, the wheel's ``cuda`` / ``cudnn`` extras where its METADATA has them (they install the CUDA libraries from
    PyPI; without them the machine's CUDA and cuDNN are loaded)."""
    out = []
    for r in matrix.rows("onnxruntime", "release"):
        if r.get("feed") != "pypi" or not isinstance(r.get("cuda_major"), int) or not r.get("cuda"):
            continue
        extras = tuple(e for e in (r.get("extras") or []) if e in ("cuda", "cudnn"))
        for v in r.get("versions") or []:
            if isinstance(v, str) and v.count(".") == 2:
                n = OrtNeed(v, "pypi", str(r["cuda"]), r["cuda_major"], int(r.get("cudnn_major") or 0),
                            str(r.get("source") or ""))
                out.append(Build(framework="onnxruntime", version=v, variant=None, cuda=n.build_cuda,
                                 cudnn=str(n.cudnn_major), extras=extras, companions={"package": GPU},
                                 source=n.source))
    return out


#: what errors.toml's ONNX Runtime lines that name no library say (their ``says``: error 126 on the CUDA provider's DLL,
#: "CUDA_PATH is set but CUDA wasn't able to be loaded", "Failed to create CUDAExecutionProvider"): which of the CUDA
#: runtime and cuDNN is missing is decided by the release's needs against the machine's majors (:func:`majors_verdict`),
#: where both are known
NO_LIBRARY_SAYS = "ort-no-library-named"


def _major(v: Optional[str]) -> Optional[int]:
    m = re.match(r"\s*(\d{1,2})(?:\.|$)", str(v or ""))
    return int(m.group(1)) if m else None


def majors_verdict(needs: Sequence[OrtNeed], cuda_major: Optional[int], cudnn_major: Optional[int]
                   ) -> Tuple[Optional[str], List[OrtNeed]]:
    """What a release whose candidate builds are ``needs`` lacks on a machine of CUDA ``cuda_major`` and cuDNN
    ``cudnn_major`` (None: not known). ``(None, [])`` where some candidate fits every known major (or nothing is known);
    ``("cuda-runtime-missing", needs)`` where no candidate is built for the machine's CUDA major;
    ``("cudnn-missing", the candidates of the machine's CUDA)`` where those are built for another cuDNN major. A CUDA 10
    build (its runtime names the minor) is judged by major only: the loader's line says the rest."""
    if not needs or (cuda_major is None and cudnn_major is None):
        return None, []
    cuda_ok = [n for n in needs if cuda_major is None or n.cuda_major == cuda_major]
    if not cuda_ok:
        return "cuda-runtime-missing", list(needs)
    if cudnn_major is None or any(n.cudnn_major == cudnn_major for n in cuda_ok):
        return None, []
    return "cudnn-missing", cuda_ok


def _fitting(matrix: Matrix, cuda_major: Optional[int], cudnn_major: Optional[int]) -> List[str]:
    """The releases the matrix knows built for those majors, per feed: "onnxruntime-gpu >= 1.19 (PyPI)", "1.17.x -
    1.18.0 (the cuda-12 feed)"; the lowest and highest version of each feed's rows that fit."""
    from envcheck.versions import version_tuple

    per_feed: Dict[str, List[str]] = {}
    for r in matrix.rows("onnxruntime", "release"):
        if r.get("cuda_major") != cuda_major or (cudnn_major is not None and r.get("cudnn_major") != cudnn_major):
            continue
        for v in r.get("versions") or []:
            per_feed.setdefault(str(r.get("feed")), []).append(str(v))
    out = []
    for feed in sorted(per_feed, key=lambda f: f != "pypi"):
        vs = sorted(per_feed[feed], key=lambda v: version_tuple(v) or (0,))
        where = "PyPI" if feed == "pypi" else f"the onnxruntime-{feed} feed"
        out.append(f"{vs[0]}" + (f" to {vs[-1]}" if len(vs) > 1 else "") + f" ({where})")
    return out


def majors_finding(matrix: Matrix, version: Optional[str], cuda_have: Optional[str], cudnn_have: Optional[str],
                   claimed: bool = True) -> Optional[Tuple[str, str, str]]:
    """(cause id, message, fix) for an onnxruntime-gpu ``version`` on a machine whose CUDA / cuDNN are ``cuda_have`` /
    ``cudnn_have`` ("12.1", "8.9.7"; None: not known) where no build of the release fits them
    (:func:`majors_verdict`); None where one fits, the release is not in the matrix, or nothing is known. ``claimed``:
    the versions are the reporter's word (the message says so)."""
    needs = ort_needs(matrix, version)
    cuda_major, cudnn_major = _major(cuda_have), _major(cudnn_have)
    cause, which = majors_verdict(needs, cuda_major, cudnn_major)
    if cause is None:
        return None
    have = ", ".join(x for x in (f"CUDA {cuda_have}" if cuda_have else "", f"cuDNN {cudnn_have}" if cudnn_have else "")
                     if x)
    said = "the report says" + (" (the reporter's word, not checked)" if claimed else "")
    builds = "; ".join(n.text() for n in which)
    if cause == "cuda-runtime-missing":
        msg = (f"onnxruntime-gpu {needs[0].version} is built for {builds}; {said} the machine has {have}: no build of "
               f"that release loads a CUDA {cuda_major} runtime, so its CUDA provider does not load.")
        lib = f"the CUDA {which[0].cuda} runtime (with cuDNN {which[0].cudnn_major}.x)"
    else:
        msg = (f"onnxruntime-gpu {needs[0].version}'s build for CUDA {cuda_major} needs cuDNN "
               f"{'/'.join(sorted({str(n.cudnn_major) + '.x' for n in which}))} ({builds}); {said} the machine has "
               f"{have}: ONNX Runtime built with cuDNN 8.x does not load cuDNN 9.x, and vice versa.")
        lib = f"cuDNN {which[0].cudnn_major}.x for CUDA {cuda_major}"
    other = _fitting(matrix, cuda_major, cudnn_major)
    fix = f"Install {lib} where ONNX Runtime finds it (PATH on Windows, LD_LIBRARY_PATH on Linux)"
    if other:
        fix += (f", or an onnxruntime-gpu release built for {have}: " + "; ".join(other))
    fix += " (https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements)."
    return cause, msg, fix


def line_verdict(builds: Sequence[Tuple[int, int]], cuda_major: Optional[int], cudnn_major: Optional[int]
                 ) -> Optional[Tuple[str, str]]:
    """(cause id, why) for an ONNX Runtime line that names no library its CUDA provider missed (:data:`NO_LIBRARY_SAYS`:
    error 126 on onnxruntime_providers_cuda.dll, "CUDA_PATH is set but CUDA wasn't able to be loaded", "Failed to
    create CUDAExecutionProvider") where the provider's build needs one of ``builds`` ((CUDA major, cuDNN major) each:
    the majors ONNX Runtime 1.19+ names on that line, "Require cuDNN 9.* and CUDA 12.*", else the release's builds from
    the matrix) and the text shows the machine's CUDA major ``cuda_major`` and cuDNN major ``cudnn_major`` (None: not
    shown). The line itself is a GPU build failing to load its CUDA provider, so a package name is not needed:

    * no build for the CUDA major shown: ``cuda-runtime-missing``;
    * a build for it, but for another cuDNN major than the one shown: ``cudnn-missing``;
    * a build for it and no cuDNN shown at all: ``cudnn-missing`` - the CUDA the provider needs is there, and the
      other library of the pair, which the text does not show, is the one to check (microsoft/onnxruntime#22809: CUDA
      12.6 with the Jetson build that requires cuDNN 8; hacksider/Deep-Live-Cam#948: CUDA 11.8 and the fix was cuDNN
      8.9.7 for CUDA 11);
    * None where the CUDA is not shown (which of the two is missing is not known) or both fit."""
    if not builds or cuda_major is None:
        return None
    shown = f"CUDA {cuda_major}.x"
    needs = " or ".join(f"CUDA {c}.x with cuDNN {d}.x" for c, d in builds)
    fits = [b for b in builds if b[0] == cuda_major]
    if not fits:
        return "cuda-runtime-missing", (f"the provider's build needs {needs}; the text shows {shown}, for which it has no "
                                        "build, so the CUDA runtime it loads is missing")
    if cudnn_major is None:
        return "cudnn-missing", (f"the provider's build needs {needs}; the text shows {shown}, which fits, and names no "
                                 f"cuDNN: cuDNN {'/'.join(sorted({str(b[1]) for b in fits}))}.x is the piece to install")
    if not any(b[1] == cudnn_major for b in fits):
        return "cudnn-missing", (f"the provider's build needs {needs}; the text shows {shown} with cuDNN {cudnn_major}.x: "
                                 "an ONNX Runtime built with one cuDNN major does not load another")
    return None
