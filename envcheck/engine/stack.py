"""Compatibility rules between the pieces of one software stack: frameworks sharing NVIDIA libraries, a build on
the system's CUDA libraries, the CUDA toolkit for extension builds, Requires-Dist pins of two frameworks.

Each rule answers :class:`Answer`: RUNS / DOES NOT RUN / UNKNOWN (the engine's :class:`~envcheck.engine.Status`)
with its reason. Pure: builds and versions in, an answer out. ``status``'s checks and ``fix``'s resolver ask these;
nothing else decides them.
"""

# no ``from __future__ import annotations`` here: typing.NamedTuple turns each string annotation into a ForwardRef,
# whose compile() costs a status run ~1.5 ms the first time (the interpreter's AST types are built for it); every
# name annotated below exists before it is used

from typing import Iterable, NamedTuple, Optional, Sequence, Tuple

from envcheck.engine.builds import Build
from envcheck.engine.rules import cudnn_loads_for
from envcheck.engine.status import Status
from envcheck.versions import cuda_tuple, spec_contains

__all__ = ["Answer", "tensorflow_on_torch_libraries", "jax_beside_torch", "system_libraries", "toolkit_for_extensions",
           "pins_conflict", "one_process_cudnn", "OneProcessCudnn"]


class Answer(NamedTuple):
    status: Status
    reason: str
    caveat: bool = False  # RUNS, with something worth saying (a note, not a failure)

    @property
    def ok(self) -> bool:
        return self.status is Status.RUNS


def _yes(reason: str) -> Answer:
    return Answer(Status.RUNS, reason)


def _no(reason: str) -> Answer:
    return Answer(Status.NO, reason)


def _unknown(reason: str) -> Answer:
    return Answer(Status.UNKNOWN, reason)


def tensorflow_on_torch_libraries(torch_b: Build, tf_b: Build) -> Answer:
    """Whether TensorFlow ``tf_b`` (installed without its and-cuda extra) runs on the NVIDIA wheels torch
    ``torch_b`` installs: the same CUDA major, torch's CUDA at least TensorFlow's, and a cuDNN TensorFlow loads
    (same major, equal or higher minor)."""
    if not torch_b.cuda or not torch_b.pins:
        return _no(f"{torch_b.label} does not install NVIDIA libraries from pip")
    tc, fc = cuda_tuple(torch_b.cuda), cuda_tuple(tf_b.cuda)
    if not tc or not fc:
        return _unknown("CUDA version unknown")
    if tc[0] != fc[0]:
        return _no(f"CUDA {torch_b.cuda} (torch) and {tf_b.cuda} (tensorflow) are different majors")
    if tc < fc:
        return _no(f"torch's CUDA {torch_b.cuda} libraries are older than tensorflow's CUDA {tf_b.cuda}")
    loads = cudnn_loads_for(tf_b.cudnn, torch_b.cudnn)
    if loads is None:
        return _unknown("cuDNN version unknown")
    if loads is False:
        return _no(f"torch brings cuDNN {torch_b.cudnn}; tensorflow {tf_b.version} needs cuDNN "
                   f"{str(tf_b.cudnn).split('.')[0]}.x >= {tf_b.cudnn} (same major, equal or higher minor)")
    return _yes(f"tensorflow {tf_b.version} loads the CUDA {torch_b.cuda} / cuDNN {torch_b.cudnn} libraries of "
                f"{torch_b.label}")


def jax_beside_torch(torch_b: Build, jax_b: Build) -> Answer:
    """Whether jax ``jax_b`` can share one environment with torch ``torch_b``: one CUDA major, and every NVIDIA
    wheel both pin is satisfied by torch's exact pin (or torch's cuDNN)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    tc, jc = cuda_tuple(torch_b.cuda), cuda_tuple(jax_b.cuda)
    if not tc or not jc:
        return _unknown(f"CUDA version unknown ({torch_b.label}: {torch_b.cuda}, {jax_b.label}: {jax_b.cuda})")
    if tc[0] != jc[0]:
        return _no(f"CUDA majors differ ({torch_b.label}: {torch_b.cuda}, {jax_b.label}: {jax_b.cuda})")
    for name, spec in jax_b.pins.items():
        try:
            ss = SpecifierSet(spec)
        except InvalidSpecifier:
            return _unknown(f"{jax_b.label} pins {name}{spec}, which is not a version specifier")
        if name in torch_b.pins:
            pv = torch_b.pins[name].lstrip("=")
            if not spec_contains(ss, pv):
                return _no(f"{torch_b.label} pins {name}=={pv}; {jax_b.label} needs {name}{spec}")
        elif torch_b.cudnn and name.startswith("nvidia-cudnn"):
            if not spec_contains(ss, torch_b.cudnn):
                return _no(f"{torch_b.label} brings cuDNN {torch_b.cudnn}; {jax_b.label} needs {spec}")
    return _yes(f"{jax_b.label} and {torch_b.label} share CUDA {tc[0]}.x and their NVIDIA wheel pins")


def system_libraries(b: Build, system_cudnn: Iterable[str], system_cudart: Iterable[str]) -> Answer:
    """A build without pip CUDA libraries (TensorFlow's system variant) runs when the system has its cuDNN (same
    major, equal or higher minor) and a CUDA runtime of the same major, at least the build's."""
    need_dnn, need_cuda = cuda_tuple(b.cudnn), cuda_tuple(b.cuda)
    if need_dnn is None or need_cuda is None:
        return _unknown(f"the CUDA / cuDNN {b.label} was built with is not known")
    dnn = [v for v in system_cudnn if cudnn_loads_for(b.cudnn, v)]
    rt = [v for v in system_cudart if (cuda_tuple(v) or (0, 0))[0] == need_cuda[0]
          and (cuda_tuple(v) or (0, 0)) >= need_cuda]
    if dnn and rt:
        return _yes(f"the system has CUDA {rt[0]} and cuDNN {dnn[0]}")
    missing = ([] if rt else [f"CUDA {need_cuda[0]}.x runtime >= {b.cuda}"]) + \
        ([] if dnn else [f"cuDNN {need_dnn[0]}.x >= {b.cudnn}"])
    return _no(f"{b.label} loads the system's CUDA libraries, and the system has no " + " and no ".join(missing))


def toolkit_for_extensions(toolkit: Optional[str], torch_cuda: Optional[str]) -> Answer:
    """Whether a CUDA toolkit (nvcc) builds extensions (flash-attn, apex, custom ops) for a torch built with CUDA
    ``torch_cuda``: PyTorch's cpp_extension refuses a different major ("The detected CUDA version mismatches the
    version that was used to compile PyTorch") and warns on a different minor."""
    tk, ft = cuda_tuple(toolkit), cuda_tuple(torch_cuda)
    if tk is None or ft is None:
        return _unknown("the toolkit's or torch's CUDA version is not known")
    if ft[0] != tk[0]:
        return _no(f"the CUDA toolkit is {toolkit} and torch was built with CUDA {torch_cuda}: a different major")
    if ft != tk:
        return Answer(Status.RUNS, f"the CUDA toolkit ({toolkit}) and torch (CUDA {torch_cuda}) differ in the minor "
                      "version only; extension builds usually work (PyTorch warns)", caveat=True)
    return _yes(f"the CUDA toolkit and torch are both CUDA {ft[0]}.{ft[1]}")


def pins_conflict(spec_a: str, spec_b: str, installed: Optional[str]) -> Answer:
    """Whether two frameworks' Requires-Dist specifiers of one NVIDIA wheel can share an environment: two
    different exact pins cannot; an installed version that satisfies one and not the other does not.
    RUNS: no conflict seen; UNKNOWN: a specifier or the installed version does not parse."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        xa, xb = SpecifierSet(spec_a), SpecifierSet(spec_b)
    except InvalidSpecifier:
        return _unknown(f"{spec_a!r} or {spec_b!r} is not a version specifier")
    pa = [s.version for s in xa if s.operator == "=="]
    pb = [s.version for s in xb if s.operator == "=="]
    if pa and pb and pa[0] != pb[0]:
        return _no(f"exact pins differ ({pa[0]} and {pb[0]})")
    if installed:
        try:
            v = Version(installed)
        except (InvalidVersion, ValueError):
            return _unknown(f"the installed version {installed!r} does not parse")
        if (v in xa) != (v in xb):
            return _no(f"the installed {installed} satisfies one and not the other")
    return _yes("the specifiers do not conflict")


_FRAMEWORK_NAMES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


class OneProcessCudnn(NamedTuple):
    """framework-conflict: two frameworks in one process, one cuDNN between them."""

    said: str  # what the program shows, and why it is the conflict
    fix: str
    source: str


def one_process_cudnn(imported: Sequence[Tuple[str, str]]) -> Optional[OneProcessCudnn]:
    """XLA's cuDNN check failing (JAX's "Found cuDNN version X, but JAX was built against version Y", XLA's "Loaded
    runtime CuDNN library: X but source was compiled with: Y") in a program that imports two frameworks
    (``imported``: (framework, the line importing it), e.g. ``import torch`` beside ``import jax``): both load their
    CUDA libraries into one process and the first cuDNN loaded - the other framework's pinned, older wheel - is the
    one XLA finds (jax-ml/jax#18032, #19004). That is framework-conflict (contract §3: two installed frameworks need
    incompatible cuDNN), not a stray cuDNN on the loader path. None with fewer than two frameworks imported."""
    fws = [(fw, line) for fw, line in imported if fw in _FRAMEWORK_NAMES]
    if len(fws) < 2:
        return None
    names = " and ".join(_FRAMEWORK_NAMES[fw] for fw, _ in fws)
    lines = "; ".join(line for _, line in fws)
    said = (f"The program imports {names} ({lines}): each brings its own cuDNN and the first one loaded into the process "
            "serves both, so the framework imported later finds the other's (older) cuDNN.")
    fix = ("Import the framework that needs the newer cuDNN first (JAX: initialise its backend, e.g. jax.devices(), before "
           "importing torch), or install releases of both that pin the same nvidia-cudnn wheel, or run them in "
           "separate processes / environments.")
    return OneProcessCudnn(said, fix, "https://github.com/jax-ml/jax/issues/18032")
