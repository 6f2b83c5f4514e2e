"""The error knowledge base: ``compat_matrix/errors.toml`` loaded, validated and compiled.

Every signature is a cheap literal prefilter (lower-case substrings, any of) plus a regex that
only runs on lines containing one of them; see the header of errors.toml for the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from envcheck.explain.matcher import BUDGET, LINE_CAP, backtrack_bound, compile_pattern, dialect_problems, engine
from envcheck.explain.regex_safety import static_problems
from envcheck.matrix.fixes import render_fix

__all__ = ["Signature", "Cause", "Fact", "KnowledgeBase", "validate_kb", "compile_kb", "load_kb", "ROLES", "KINDS",
           "cover_literals", "check_when", "kb_patterns", "bundle_kb_problems", "checked_kb_problems", "RANK_SAYS",
           "REPORTS", "FRAMEWORKS"]

#: primary = a failure seen; detail = only adds captures to a match of its cause a few lines above; tail = the later line
#: of a message whose first line is that cause's primary wording: a detail where that first line is there, the match
#: itself where the paste kept only this line (torch prints "The current PyTorch install supports CUDA capabilities"
#: only inside its incompatible-GPU warning); context = never a match by itself, marks the lines after it
ROLES = ("primary", "detail", "tail", "context")
#: generic = a weak wording (scores lower); cleanup = a teardown line after a failure ("could not destroy
#: cudnn handle"): a match only when nothing else is, never above the failure it follows; veto = a line that
#: names a GPU library while its failure is something else (Windows' "[WinError 1455] The paging file is too
#: small ... Error loading cudnn_adv_infer64_8.dll"): that line and the next are no evidence of any cause; aside = a
#: sentence that denies or supposes what a wording of a cause says, or says it of something else ("there is no conflict
#: between torch and TensorFlow", "install Level Zero if ...", "gfx1031 is not officially supported but works fine"):
#: that line alone is no evidence of any cause (the next line is read as it stands)
KINDS = ("generic", "cleanup", "veto", "aside")
ROUTES = ("lib", "symbol")
#: a signature's ``floor``: "gpu-generation" = its wording is a kernel library's own floor for a GPU generation, which no
#: framework build lifts (explain/machine.py then offers no build that has the GPU's architecture)
FLOORS = ("gpu-generation",)
#: a signature's ``vendor``: the wording is a failure of that vendor's own stack that names no GPU target or library of
#: it (rocminfo's "ROCk module is NOT loaded", SYCL's device-not-found, Metal's out-of-memory status): a log whose
#: causes are all one vendor's such lines is that vendor's log (no NVIDIA advice), and an AMD one is never explained
#: by a "ROCm" line as another vendor's build (explain/vendors.py)
VENDORS = ("amd", "intel", "apple")
#: a signature's ``framework``: the framework whose own wording it is (torch's "Found no NVIDIA driver", TensorFlow's
#: "Could not load dynamic library"): its captured cuDNN is that framework's, its fixes speak of that framework's build
FRAMEWORKS = ("torch", "tensorflow")
#: a signature's ``says`` read by explain's own ranking and fix handlers (beside engine.vendors.SAYS, which the engine's
#: vendor rules read); each names what the wording says, so that no code names a signature:
#: * ``nvidia-smi-state``: names the state behind a failing nvidia-smi (NVML's "Unknown Error" in a container): a
#:   report's "nvidia-smi failed" is that failure, not a second cause (explain/rank.py);
#: * ``xla-cudnn-check``: XLA's cuDNN version check (JAX, TensorFlow: "Loaded runtime CuDNN library: X but source was
#:   compiled with: Y"): with two frameworks in one process it is framework-conflict (engine.stack.one_process_cudnn);
#: * ``ptxas-slowdown-notice``: XLA's "driver is older than the PTX compiler" warning, a slowdown notice JAX prints
#:   beside a failure, never above the cuDNN check it sits beside;
#: * ``torch-saw-no-gpu`` / ``jax-saw-no-gpu``: a generic "no GPU found" line of that framework (Ultralytics' select_device,
#:   JAX's "No GPU/TPU found"), dropped as a CPU-only build where the report shows a CUDA build of it;
#: * ``gpu-build-ran``: a line only a GPU build prints while running on the GPU (its allocator's out-of-memory);
#: * ``container-banner-no-driver``: a container image's banner that sees no driver (NGC's), dropped where the text
#:   shows the container started with GPUs;
#: * ``no-build-line``: pip's / uv's "no build of this package here" (read as python-unsupported), dropped where the
#:   report's Python is one the pinned release has wheels for; ``uv-platform-line``: uv's, for the current platform,
#:   dropped where uv's hint says the release has wheels for other platforms only;
#: * ``pip-python-line``: pip's lines read as "no build for this Python", dropped where the versions pip found list the
#:   pinned release itself;
#: * ``library-list-line``: a line naming several libraries the loader could not open (one failure, routed by its first
#:   library); ``one-library-line``: the generic one-library wording, whose match of the same line is then dropped;
#: * ``missing-kernel-image``: a missing kernel image (not a GPU-generation floor): the installed build's own
#:   architecture list is checked first (explain/machine.py);
#: * ``torch-build-no-cuda``: torch's own "not compiled with CUDA" (explain/machine.py: where the torch here is a CUDA
#:   build, another interpreter ran the program);
#: * ``ipex-beside-other-torch``: IPEX's own XPU DLLs failing beside a torch that is no XPU build (kept only where the
#:   text shows such a torch, explain/__init__.py).
#: * ``ollama-gpu-skipped``: Ollama's "amdgpu is not supported" for one GPU (it skips it), dropped where the log shows
#:   Ollama took an AMD GPU of another gfx target (fact ``ollama_rocm_gfx``, explain/__init__.py).
#: * ``tf-loader-warning``: TensorFlow's own warning that it could not load a CUDA library (it goes on without the GPU,
#:   "Ignore above cudart dlerror if you do not have a GPU set up on your machine"), dropped where the text says the
#:   machine has no (NVIDIA) GPU (evidence ``no-gpu-said``, explain/rank.py), beside a failure of Intel's XPU stack
#:   (an ``xpu-*`` match) and in a log that shows Intel's XPU stack and nothing of NVIDIA's (explain/__init__.py); its
#:   cuda_diagnostics line "kernel driver does not appear to be running" says it too. Where these lines are a text's
#:   only matches, the probe found no driver (a ``no-gpu-driver`` among them) and the text shows no GPU wanted or
#:   present, they are dropped: a CPU machine running as intended (engine/report.py ``tf_probe_unwanted`` decides,
#:   explain/rank.py ``drop_tf_probe_unwanted`` drops; quiet38).
#: * ``jit-notice``: a framework's notice that its build has no kernels for the GPU and the driver JIT-compiles them
#:   from PTX (TensorFlow's "was not built with CUDA kernel binaries compatible with compute capability X.Y"), or a JIT
#:   compiler's LLVM that does not know the GPU and goes on with a generic target (Triton's / Taichi's "'sm_120' is not
#:   a recognized processor for this target (ignoring processor)"): the run goes on, so beside any other match of the
#:   text it ranks below it; alone it is the cause.
#: * ``cuda-cc-check``: PyTorch's CUDA capability check (torch/cuda/__init__.py ``_check_capability``, "Found GPU%d %s
#:   which is of cuda capability ..."), which PyTorch skips in ROCm builds: dropped where the GPU it names is AMD's
#:   (engine.vendors.cuda_check_on_amd, explain/machine.py).
#: * ``gpu-hang-report``: the amdgpu kernel driver's report that the GPU stopped answering (a ring timeout, its MES
#:   firmware not responding), which is what a GPU page fault of the same log ends in (the faulting job's ring times
#:   out and the driver resets the GPU): beside a ``gpu-memory-fault`` or ``gpu-arch-unsupported`` match it ranks below
#:   that match (explain/__init__.py ``_hang_below_cause``, batch amd29).
#: * ``dri-node-denied``: a /dev/dri node this process may not open. AMD's and Intel's compute stacks open it; CUDA
#:   never does (Mesa's libEGL opens it for rendering: "libEGL warning: failed to open /dev/dri/renderD128:
#:   Permission denied" in a MuJoCo / Gazebo run on an NVIDIA machine, google-deepmind/dm_control#214,
#:   RobotecAI/RGLGazeboPlugin#23): dropped where the log shows an NVIDIA GPU and no other vendor's
#:   (explain/__init__.py ``_drop_dri_denied_on_nvidia``).
#: * ``ort-no-library-named``: an ONNX Runtime line that names no library its CUDA provider missed (error 126 on
#:   onnxruntime_providers_cuda.dll, "CUDA_PATH is set but CUDA wasn't able to be loaded", "Failed to create
#:   CUDAExecutionProvider"): the installed onnxruntime-gpu release's needs against the report's CUDA / cuDNN majors
#:   decide which of the two is missing (explain/rank.py ``_ort_decides``, engine.claims.ort_majors_finding; ort30).
#: * ``library-arch-check``: a CUDA math library's own internal error (cuFFT's CUFFT_INTERNAL_ERROR) names its cause
#:   only where the text names a GPU the library's release is older than (explain/machine.py ``_library_not_older``,
#:   engine.rules.library_older_than_gpu; arch31).
#: * ``not-cuda-floor``: the driver is too old for a driver component other than the CUDA runtime (OptiX's ABI, whose
#:   lowest driver each OptiX SDK names): the CUDA majors' driver floors say nothing of it, so explain/machine.py's
#:   ``_driver_too_old`` offers none (the signature's own fix says what to do; drv32); also a driver-API entry point
#:   newer than the CUDA major's minor-version floor (the green-context API of CUDA 12.4+, missing from a 535 driver's
#:   libcuda although 535 runs any CUDA 12.x build; newnv40).
#: * ``cublas-arch-check``: cuBLAS's CUBLAS_STATUS_ARCH_MISMATCH, "usually caused by compute capability lower than
#:   5.0": dropped where every GPU the text names is known and of 5.0 or more (explain/machine.py
#:   ``_cublas_arch_on_new_gpu``; attack48).
RANK_SAYS = ("nvidia-smi-state", "xla-cudnn-check", "ptxas-slowdown-notice", "torch-saw-no-gpu", "jax-saw-no-gpu",
             "gpu-build-ran", "container-banner-no-driver", "no-build-line", "uv-platform-line", "pip-python-line",
             "library-list-line", "one-library-line", "missing-kernel-image", "torch-build-no-cuda",
             "ipex-beside-other-torch", "ollama-gpu-skipped", "tf-loader-warning", "jit-notice",
             "cuda-cc-check", "gpu-hang-report", "dri-node-denied", "ort-no-library-named", "library-arch-check",
             "not-cuda-floor", "cublas-arch-check")
#: a signature's ``reports``: the fact of the machine its line states, read into a pasted report's facts through
#: :func:`envcheck.explain.logfacts.line_reader` (the captures' ``reports``), turned into facts by
#: envcheck/paste/readers/log_facts.py:
#: * ``cudnn``: the cuDNN loaded and the one the framework was built with (captures loaded, compiled; the framework
#:   from the line's source path); ``jax-cudnn``: the same, said by JAX;
#: * ``jax-cuda``: the CUDA JAX was built against (built_cuda); ``driver-cuda``: the CUDA the driver supports
#:   (driver_cuda); ``torch-arch-list``: torch's arch list; ``torch-in-use``: the torch in use (xformers' "you have
#:   X"); ``torch-cuda``: the CUDA torch was built with (torch_cuda); ``gpu-named``: the GPU the message names (gpu,
#:   cc / device_cc);
#: * ``no-device``: no GPU visible to the process; ``no-driver``: no driver reachable (torch's "Found no NVIDIA
#:   driver"): no fact by themselves, the prose and container readers take these lines from here.
REPORTS = ("cudnn", "jax-cudnn", "jax-cuda", "driver-cuda", "torch-arch-list", "torch-in-use", "torch-cuda",
           "gpu-named", "no-device", "no-driver")
_WHEN = re.compile(r"^(?P<neg>!)?(?P<fact>[a-z_]+)(?:(?P<op>>=|<=|==|!=|<|>)(?P<value>[\w.]+))?$")
_URL = re.compile(r"^https://\S+$")
#: a vendor_title (the title on another vendor's machine) must not name NVIDIA's stack
_NVIDIA_WORD = re.compile(r"nvidia|cuda|cudnn", re.I)
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# A quantified group that itself ends in an unbounded quantifier, e.g. (a+)+ or (\w*)*:
# the shape of catastrophic backtracking. Signatures must not contain it.
_NESTED = re.compile(r"[+*}]\)(?:[+*]|\{\d*,\})")


@dataclass(frozen=True)
class Signature:
    cause: str
    name: str
    literals: Tuple[str, ...]
    regex: Any  # a compiled pattern of the engine in use (envcheck.explain.matcher.compile_pattern)
    source: str
    role: str = "primary"
    route: Optional[str] = None
    generic: bool = False
    cleanup: bool = False
    veto: bool = False
    #: kind = "aside": a veto of its own line only (:data:`KINDS`)
    aside: bool = False
    fix: Optional[Tuple[str, str, str]] = None  # (text, source, when): this wording's own first fix
    #: a context signature's own downstream: the causes that a line of it (not any line of its cause) explains
    explains: Tuple[str, ...] = ()
    #: "gpu-generation" (FLOORS) or "": what the wording's GPU limit is, where a build cannot lift it
    floor: str = ""
    #: "amd" / "intel" / "apple" (VENDORS) or "": the vendor whose own stack the wording is a failure of
    vendor: str = ""
    #: the CUDA major of the ptxas that compiled the image the wording says the driver refused (errors.toml
    #: ``ptxas_cuda_major``, with its ``ptxas_source``: Triton's bundled ptxas); 0 where the wording states none
    ptxas_cuda_major: int = 0
    #: what the wording says that the engine's vendor rules and explain's ranking read (errors.toml ``says``:
    #: engine.vendors.SAYS, :data:`RANK_SAYS`)
    says: Tuple[str, ...] = ()
    #: the fact of the machine a line of it states, read into a pasted report's facts (errors.toml ``reports``,
    #: :data:`REPORTS`; envcheck/explain/logfacts.py, envcheck/paste/readers/log_facts.py); "" = none
    reports: str = ""
    #: "torch" / "tensorflow" (:data:`FRAMEWORKS`) or "": the framework whose own wording it is
    framework: str = ""


@dataclass(frozen=True)
class Fact:
    """A fact printed in a log (a driver version, a GPU's compute capability, a framework version)."""
    name: str
    literals: Tuple[str, ...]
    regex: Any
    source: str
    #: kind = "veto": a line this matches is read for no fact of this name (the fact is said of another machine:
    #: "I have an AMD card in my other PC"); its regex needs no group "value"
    veto: bool = False


@dataclass(frozen=True)
class Cause:
    id: str
    title: str
    weight: int
    source: str
    fixes: Tuple[Tuple[str, str, str], ...]  # (text, source, when)
    dead_ends: Tuple[Tuple[str, str], ...]
    downstream: Tuple[str, ...] = ()
    #: the title said on an AMD / Intel / Apple machine or log (contract §9) where ``title`` names NVIDIA's stack; ""
    #: when the title holds on every vendor
    vendor_title: str = ""
    #: (text, when) of the dead ends said only where the facts fit ("!windows": a Linux loader's dead end)
    dead_end_whens: Tuple[Tuple[str, str], ...] = ()


@dataclass
class KnowledgeBase:
    causes: Dict[str, Cause]
    signatures: List[Signature]
    libraries: List[Tuple[Any, str, str, str]] = field(default_factory=list)  # rx, cause, family,
    # symbol_cause ("" = an undefined symbol in it is no GPU-stack cause)
    facts: List[Fact] = field(default_factory=list)
    #: ``[[fact]]`` rows with scope = "report": facts of the machine a pasted report takes from log lines
    #: (envcheck/explain/logfacts.py); the scan does not read them
    report_facts: List[Fact] = field(default_factory=list)
    #: names of the ``[[fact]]`` rows with scope = "vendor": read by the scan for the vendor rules
    #: (engine.vendors.log_vendor: which GPU vendor the log shows), kept out of the log's reported facts
    vendor_facts: Tuple[str, ...] = ()
    #: names of the ``[[fact]]`` rows with scope = "fix": read by the scan only for the fixes' ``when`` conditions (the
    #: text shows ONNX Runtime), kept out of the log's reported facts
    fix_facts: Tuple[str, ...] = ()
    #: literal -> indexes (into ``signatures``) of the signatures that use it
    by_literal: Dict[str, List[int]] = field(default_factory=dict)
    #: the prefilter: the literals (of signatures and facts) that contain no other literal; a line
    #: holding none of them holds no literal at all. cover[i] -> the literals that contain cover[i]
    cover: List[str] = field(default_factory=list)
    under_cover: List[List[str]] = field(default_factory=list)
    #: literal -> indexes into ``facts``
    fact_literal: Dict[str, List[int]] = field(default_factory=dict)
    #: library family -> what the number in its soname is ("cuda": the CUDA major, "cudnn": cuDNN's), from the matrix
    #: the knowledge base was loaded with (cuda.toml ``[[cuda_library]]``)
    sonames: Dict[str, str] = field(default_factory=dict)
    #: the engine the patterns are compiled for ("re2" | "python-re")
    matcher: str = "python-re"
    #: (where, why) of each pattern the fallback engine does not run (over its budget)
    skipped: List[Tuple[str, str]] = field(default_factory=list)
    #: every signature's and fact's (pattern, flags), in order (signatures first), for the line set
    set_patterns: List[Tuple[str, int]] = field(default_factory=list)
    _line_set: Any = None
    _literal_set: Any = None
    _line_literal_set: Any = None
    #: what explain's scan reads of it and never changes (envcheck.explain._ScanBase: built by the first scan)
    _scan_base: Any = None

    def line_set(self) -> Any:
        """The RE2 set of every signature and fact (built on first use), or None with the fallback."""
        if self.matcher != "re2":
            return None
        if self._line_set is None:
            from envcheck.explain.matcher import line_set

            lits = [sg.literals for sg in self.signatures] + [fc.literals for fc in self.facts]
            self._line_set = line_set(self.set_patterns, lits, len(self.signatures))  # (a join feeds signatures)
        return self._line_set

    def literal_set(self) -> Any:
        """The RE2 set of the signatures' literals (the hard-wrap mending's question: which does a joined
        text hold), built on first use; None with the fallback engine."""
        if self.matcher != "re2":
            return None
        if self._literal_set is None:
            from envcheck.explain.matcher import literal_set

            self._literal_set = literal_set(list(self.by_literal)) or False
        return self._literal_set or None

    def line_literal_set(self) -> Any:
        """The RE2 set of every signature's and fact's literal (which of them a line holds: one pass, where testing
        each costs a pass per literal), built on first use; None with the fallback engine or a literal not ASCII."""
        if self.matcher != "re2":
            return None
        if self._line_literal_set is None:
            from envcheck.explain.matcher import literal_set

            lset = literal_set(list(dict.fromkeys([*self.by_literal, *self.fact_literal])))
            if lset is not None:  # each literal's signatures and facts, by its index in the set
                lset.signatures = [tuple(self.by_literal.get(x, ())) for x in lset.literals]
                lset.facts = [tuple(self.fact_literal.get(x, ())) for x in lset.literals]
            self._line_literal_set = lset or False
        return self._line_literal_set or None

    def library(self, lib: str) -> Optional[Tuple[str, str, str]]:
        """(cause when it cannot be loaded, family, cause of an undefined symbol in it) of a library name."""
        name = lib.strip().lower().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        for rx, cause, family, symbol_cause in self.libraries:
            if rx.search(name):
                if not family:  # the family is the name's stem: libcudart.so.11.0, cudart64_110.dll -> cudart
                    m = re.match(r"^(?:lib)?([a-z]+)", name)
                    family = m.group(1) if m else ""
                return cause, family, symbol_cause
        return None

    def route_library(self, lib: str, route: str = "lib") -> Optional[str]:
        row = self.library(lib)
        if row is None:
            return None
        return (row[2] or None) if route == "symbol" else row[0]


def cover_literals(literals: List[str], anchors: Optional[List[str]] = None) -> Tuple[List[str], List[List[str]]]:
    """The prefilter: the anchors that some literal contains, plus every literal that contains no anchor
    and no other such literal; and for each of them the literals that contain it. A line that holds a
    literal holds one of these."""
    lits = sorted(set(literals), key=lambda x: (len(x), x))
    cover: List[str] = [a for a in (anchors or []) if a and any(a in x for x in lits)]
    for lit in lits:
        if not any(c in lit for c in cover):
            cover.append(lit)
    return cover, [[x for x in lits if c in x] for c in cover]


def _when_ok(expr: str) -> bool:
    return all(_WHEN.match(t.strip()) for t in expr.split("&"))


def check_when(expr: str, facts: Dict[str, str]) -> Optional[bool]:
    """Evaluate a fix's ``when`` ("cc>=12.0 & !docker_gpus", "tensorflow<2.14"): True/False, or None
    when a fact it needs is unknown. A bare ``name`` is true when the fact is present (unknown where its value is
    engine.vendors.UNDECIDED)."""
    from envcheck.engine.rules import compare_versions
    from envcheck.engine.vendors import UNDECIDED

    result: Optional[bool] = True
    for term in expr.split("&"):
        m = _WHEN.match(term.strip())
        if m is None:
            return None
        have = facts.get(m.group("fact"))
        if m.group("op") is None:
            ok: Optional[bool] = None if have == UNDECIDED else bool(have)
        elif have is None:
            ok = None
        else:
            ok = compare_versions(have, m.group("op"), m.group("value"))
        if ok is not None and m.group("neg"):
            ok = not ok
        if ok is False:
            return False
        if ok is None:
            result = None
    return result


_SIG_KEYS = {"name", "literal", "regex", "source", "role", "route", "kind", "fix", "fix_source", "fix_when", "explains",
             "floor", "vendor", "ptxas_cuda_major", "ptxas_source", "says", "reports",
             "framework"}


def _signature_problems(s: Any, sw: str, names: Set[Any]) -> List[str]:
    """The problems of one signature table (of a ``[[cause]]``, or a top-level ``[[signature]]`` without
    its ``cause`` key); ``names`` = the signature names of the same cause seen so far (updated)."""
    problems: List[str] = []
    if not isinstance(s, dict):
        return [f"{sw}: not a table"]
    extra = set(s) - _SIG_KEYS
    if extra:
        problems.append(f"{sw}: unknown keys {sorted(extra)}")
    for k in ("name", "literal", "regex", "source"):
        if not s.get(k) or not isinstance(s.get(k), str):
            problems.append(f"{sw}: missing {k}")
    if problems:
        return problems
    if s.get("name") in names:
        problems.append(f"{sw}: duplicate name")
    names.add(s.get("name"))
    if s["literal"] != s["literal"].lower() or not s["literal"].isascii():
        problems.append(f"{sw}: literal must be lower case (ASCII)")
    if ("fix" in s) != ("fix_source" in s) or ("fix_when" in s and "fix" not in s):
        problems.append(f"{sw}: fix needs fix_source (and fix_when only with a fix)")
    elif s.get("fix_source") and not _URL.match(s["fix_source"]):
        problems.append(f"{sw}: fix_source must be an https URL")
    elif s.get("fix_when") and not _when_ok(s["fix_when"]):
        problems.append(f"{sw}: bad fix_when")
    if not _URL.match(s["source"]):
        problems.append(f"{sw}: source must be an https URL")
    problems += _ptxas_problems(s, sw) + _said_problems(s, sw)
    if s.get("role", "primary") not in ROLES:
        problems.append(f"{sw}: role must be one of {ROLES}")
    if "explains" in s and (s.get("role") != "context" or not isinstance(s["explains"], str)
                            or not all(_ID.match(x) for x in s["explains"].split("|"))):
        problems.append(f"{sw}: explains is for a context signature: cause ids separated by '|'")
    for key, allowed in (("route", ROUTES), ("kind", KINDS), ("floor", FLOORS), ("vendor", VENDORS),
                         ("framework", FRAMEWORKS)):
        if s.get(key) not in (None,) + allowed:
            problems.append(f"{sw}: {key} must be one of {allowed}")
    bad = _pattern_problems(s["regex"], re.I)
    if bad:
        return problems + [f"{sw}: bad regex: {p}" for p in bad]
    rx = re.compile(s["regex"], re.I)
    if _NESTED.search(s["regex"]):
        problems.append(f"{sw}: nested quantifier (catastrophic backtracking risk)")
    else:
        problems += [f"{sw}: {p}" for p in static_problems(s["regex"], re.I)]
    if s.get("route") and "lib" not in rx.groupindex:
        problems.append(f"{sw}: route needs a named group 'lib'")
    return problems


def _said_problems(s: Dict[str, Any], sw: str) -> List[str]:
    """``says`` (what the wording says that rules read) and ``reports`` (the machine fact its line states) are values of
    closed lists, so that no code names a signature."""
    problems = []
    if "says" in s and not _says_ok(s["says"]):
        from envcheck.engine.vendors import SAYS

        problems.append(f"{sw}: says must be '|'-separated values of {SAYS + RANK_SAYS}")
    if "reports" in s and s["reports"] not in REPORTS:
        problems.append(f"{sw}: reports must be one of {REPORTS}")
    return problems


def _says_ok(value: Any) -> bool:
    from envcheck.engine.vendors import SAYS

    return isinstance(value, str) and bool(value) and all(x in SAYS or x in RANK_SAYS for x in value.split("|"))


def _ptxas_problems(s: Dict[str, Any], sw: str) -> List[str]:
    """``ptxas_cuda_major`` (a matrix value: the CUDA major of the ptxas a tool bundles) comes with its own source."""
    if "ptxas_cuda_major" not in s and "ptxas_source" not in s:
        return []
    major = s.get("ptxas_cuda_major")
    if not isinstance(major, int) or isinstance(major, bool) or not 1 <= major <= 99:
        return [f"{sw}: ptxas_cuda_major must be a CUDA major (an integer)"]
    if not isinstance(s.get("ptxas_source"), str) or not _URL.match(s["ptxas_source"]):
        return [f"{sw}: ptxas_cuda_major needs ptxas_source (an https URL)"]
    return []


_COMPILE_CHECK = [True]


def _pattern_problems(pattern: Any, flags: int) -> List[str]:
    """Why a pattern cannot run in the linear-time engine (empty when it can): outside the dialect
    both engines share, or (with google-re2 installed, when a bundle is checked) refused by RE2 itself."""
    if not isinstance(pattern, str):
        return ["not a string"]
    bad = dialect_problems(pattern, flags)
    if not bad and _COMPILE_CHECK[0] and engine() == "re2":
        try:
            compile_pattern(pattern, flags)
        except re.error as exc:
            bad.append(str(exc))
    return bad


def validate_kb(data: Any, compile_check: bool = True) -> List[str]:
    """Every problem of a parsed errors.toml beyond the generic matrix schema. ``compile_check``: also
    compile each pattern with RE2 (a bundle is checked so before it is installed; loading skips it and
    compiles each pattern on its first use)."""
    _COMPILE_CHECK[0] = compile_check
    try:
        return _validate_kb(data)
    finally:
        _COMPILE_CHECK[0] = True


def _validate_kb(data: Any) -> List[str]:
    from envcheck.matrix import validate_tables

    problems = list(validate_tables("errors", data))
    if problems or not isinstance(data, dict):
        return problems
    ids = {c.get("id") for c in data.get("cause", []) if isinstance(c, dict)}
    seen: Set[Any] = set()
    family_names: Dict[str, Set[Any]] = {}
    for i, c in enumerate(data.get("cause", [])):
        problems += _cause_problems(i, c, seen, family_names)
    problems += _extra_signature_problems(data.get("signature", []), ids, family_names)
    for i, c in enumerate(data.get("cause", [])):
        for d in str(c.get("downstream", "")).split("|"):
            if d and d not in ids:
                problems.append(f"errors.cause[{i}]: downstream {d!r} is not a cause id")
    problems += _explains_problems(data, ids)
    for i, row in enumerate(data.get("library", [])):
        problems += _library_problems(i, row, ids)
    for i, row in enumerate(data.get("fact", [])):
        problems += _fact_problems(f"errors.fact[{i}] ({row.get('name')})", row)
    return problems


def _cause_problems(i: int, c: Dict[str, Any], seen: Set[Any], family_names: Dict[str, Set[Any]]) -> List[str]:
    """The problems of ``[[cause]]`` number ``i`` (its id added to ``seen``, its signature names to
    ``family_names``)."""
    problems: List[str] = []
    where = f"errors.cause[{i}] ({c.get('id')})"
    cid = c.get("id", "")
    if not _ID.match(cid) or cid in seen:
        problems.append(f"{where}: id must be unique kebab-case")
    seen.add(cid)
    if not _URL.match(str(c.get("source", ""))):
        problems.append(f"{where}: source must be an https URL")
    w = c.get("weight", 50)
    if not 0 <= w <= 100:
        problems.append(f"{where}: weight must be 0..100")
    vt = c.get("vendor_title")
    if vt is not None and (not isinstance(vt, str) or not vt.strip() or _NVIDIA_WORD.search(vt)):
        problems.append(f"{where}: vendor_title must be a title that names no NVIDIA part")
    for kind in ("fix", "dead_end"):
        for j, item in enumerate(c.get(kind, [])):
            allowed = {"text", "source", "when"}
            if not {"text", "source"} <= set(item) <= allowed or not item["text"].strip():
                problems.append(f"{where}.{kind}[{j}]: needs text and source (and optionally when)")
            elif not _URL.match(item["source"]):
                problems.append(f"{where}.{kind}[{j}]: source must be an https URL")
            elif "when" in item and not _when_ok(item["when"]):
                problems.append(f"{where}.{kind}[{j}]: bad when {item['when']!r}")
    if not c.get("fix"):
        problems.append(f"{where}: no fix")
    names: Set[Any] = set()
    for j, s in enumerate(c.get("signature", [])):
        problems += _signature_problems(s, f"{where}.signature[{j}] ({s.get('name') if isinstance(s, dict) else s})",
                                        names)
    family_names[cid] = names
    return problems


def _extra_signature_problems(extra_rows: Any, ids: Set[Any], family_names: Dict[str, Set[Any]]) -> List[str]:
    """The problems of the top-level ``[[signature]]`` rows (each names the cause it adds to)."""
    if not isinstance(extra_rows, list):
        return ["errors: [[signature]] must be an array of tables"]
    problems: List[str] = []
    for j, s in enumerate(extra_rows):
        sw = f"errors.signature[{j}] ({s.get('name') if isinstance(s, dict) else s})"
        if not isinstance(s, dict):
            problems.append(f"{sw}: not a table")
            continue
        if s.get("cause") not in ids:
            problems.append(f"{sw}: cause {s.get('cause')!r} is not a cause id")
            continue
        problems += _signature_problems({k: v for k, v in s.items() if k != "cause"}, sw,
                                        family_names.setdefault(s["cause"], set()))
    return problems


def _explains_problems(data: Dict[str, Any], ids: Set[Any]) -> List[str]:
    """The ``explains`` of a context signature that name no cause."""
    extra = data.get("signature", [])
    rows = [s for c in data.get("cause", []) if isinstance(c, dict) for s in c.get("signature", [])] + (
        list(extra) if isinstance(extra, list) else [])
    return [f"errors: signature {s.get('name')!r} explains {d!r}, which is not a cause id"
            for s in rows if isinstance(s, dict) for d in str(s.get("explains", "")).split("|") if d and d not in ids]


def _library_problems(i: int, row: Dict[str, Any], ids: Set[Any]) -> List[str]:
    """The problems of ``[[library]]`` number ``i``."""
    bad = _pattern_problems(row.get("pattern", ""), 0)
    if bad:
        problems = [f"errors.library[{i}]: bad pattern: {p}" for p in bad]
    else:
        problems = [f"errors.library[{i}]: {p}" for p in static_problems(row.get("pattern", ""), 0)]
    if row.get("cause") not in ids:
        problems.append(f"errors.library[{i}]: cause {row.get('cause')!r} is not a cause id")
    for key in ("cause", "symbol_cause"):
        if key in row and row.get(key) not in ids:
            problems.append(f"errors.library[{i}]: {key} {row.get(key)!r} is not a cause id")
    return problems


def _fact_problems(where: str, row: Dict[str, Any]) -> List[str]:
    """The problems of one ``[[fact]]`` row (a named capture read from logs)."""
    problems: List[str] = []
    if not re.match(r"^[a-z_]+$", str(row.get("name", ""))):
        problems.append(f"{where}: name must be snake_case")
    lit = str(row.get("literal", ""))
    if not lit or lit != lit.lower() or not lit.isascii():
        problems.append(f"{where}: literal must be lower case (ASCII)")
    bad = _pattern_problems(row.get("regex", ""), re.I)
    if bad:
        return problems + [f"{where}: bad regex: {p}" for p in bad]
    rx = re.compile(row.get("regex", ""), re.I)
    if _NESTED.search(row.get("regex", "")):
        problems.append(f"{where}: nested quantifier (catastrophic backtracking risk)")
    else:
        problems += [f"{where}: {p}" for p in static_problems(row.get("regex", ""), re.I)]
    if "value" not in rx.groupindex and row.get("kind") != "veto":
        problems.append(f"{where}: needs a named group 'value'")
    if row.get("kind") not in (None, "veto"):
        problems.append(f"{where}: kind must be \"veto\" or absent")
    if row.get("scope") not in (None, "report", "vendor", "fix"):
        problems.append(f"{where}: scope must be \"report\", \"vendor\", \"fix\" or absent")
    return problems


def bundle_kb_problems(data: Any) -> List[str]:
    """Every problem of a matrix bundle's errors.toml (:func:`validate_kb`, RE2-compiled). Passed to
    :func:`envcheck.matrix.bundle.update` by ``envcheck matrix update``: the matrix never imports explain."""
    return validate_kb(data)


def kb_patterns(data: Any) -> List[Tuple[str, int, List[str], str]]:
    """Every regex of a parsed errors.toml as (pattern, flags, prefilter literals, where)."""
    out: List[Tuple[str, int, List[str], str]] = []
    if not isinstance(data, dict):
        return out
    for c in data.get("cause", []) or []:
        for s in (c.get("signature", []) if isinstance(c, dict) else []) or []:
            if isinstance(s, dict) and isinstance(s.get("regex"), str):
                lits = [x for x in str(s.get("literal", "")).split("|") if x]
                out.append((s["regex"], int(re.I), lits, f"signature {s.get('name')!r} of {c.get('id')!r}"))
    for s in data.get("signature", []) or []:
        if isinstance(s, dict) and isinstance(s.get("regex"), str):
            lits = [x for x in str(s.get("literal", "")).split("|") if x]
            out.append((s["regex"], int(re.I), lits, f"signature {s.get('name')!r} of {s.get('cause')!r}"))
    for i, row in enumerate(data.get("library", []) or []):
        if isinstance(row, dict) and isinstance(row.get("pattern"), str):
            out.append((row["pattern"], 0, [], f"library pattern {i}"))
    for row in data.get("fact", []) or []:
        if isinstance(row, dict) and isinstance(row.get("regex"), str):
            out.append((row["regex"], int(re.I), [str(row.get("literal", ""))], f"fact {row.get('name')!r}"))
    return out


class _Never:
    """The stand-in for a pattern the fallback engine does not run: it never matches."""

    groupindex: Dict[str, int] = {}

    @staticmethod
    def search(text: str) -> None:
        return None


def _compiled(pattern: str, flags: int, where: str, skipped: List[Tuple[str, str]]) -> Any:
    if engine() != "re2":
        bound = backtrack_bound(pattern, flags, LINE_CAP)
        if bound > BUDGET:
            skipped.append((where, f"google-re2 is not installed and its worst case with Python's re is over "
                                   f"{BUDGET:.0e} steps on a line of {LINE_CAP} characters"))
            return _Never()
    return compile_pattern(pattern, flags, lazy=True)


def _signature(cid: str, s: Dict[str, Any], skipped: List[Tuple[str, str]]) -> Signature:
    return Signature(
        cause=cid, name=s["name"], literals=tuple(x for x in s["literal"].split("|") if x),
        regex=_compiled(s["regex"], re.I, f"signature {s['name']!r} of {cid!r}", skipped), source=s["source"], role=s.get("role", "primary"),
        route=s.get("route"), generic=s.get("kind") == "generic", cleanup=s.get("kind") == "cleanup",
        veto=s.get("kind") in ("veto", "aside"), aside=s.get("kind") == "aside", explains=tuple(x for x in str(s.get("explains", "")).split("|") if x),
        fix=(render_fix(s["fix"]), s["fix_source"], s.get("fix_when", "")) if s.get("fix") else None,
        floor=s.get("floor", ""), vendor=s.get("vendor", ""), ptxas_cuda_major=int(s.get("ptxas_cuda_major", 0)),
        says=tuple(x for x in str(s.get("says", "")).split("|") if x), reports=str(s.get("reports", "")),
        framework=str(s.get("framework", "")))


def compile_kb(data: Dict[str, Any]) -> KnowledgeBase:
    causes: Dict[str, Cause] = {}
    sigs: List[Signature] = []
    skipped: List[Tuple[str, str]] = []
    set_patterns: List[Tuple[str, int]] = []
    for c in data.get("cause", []):
        cid = c["id"]
        causes[cid] = Cause(
            id=cid, title=c["title"], weight=int(c.get("weight", 50)), source=c.get("source", ""),
            fixes=tuple((render_fix(f["text"]), f["source"], f.get("when", "")) for f in c.get("fix", [])),
            dead_ends=tuple((render_fix(f["text"]), f["source"]) for f in c.get("dead_end", [])),
            dead_end_whens=tuple((render_fix(f["text"]), f["when"]) for f in c.get("dead_end", []) if f.get("when")),
            downstream=tuple(d for d in str(c.get("downstream", "")).split("|") if d),
            vendor_title=str(c.get("vendor_title", "")))
        for s in c.get("signature", []):
            sigs.append(_signature(cid, s, skipped))
            set_patterns.append((s["regex"], re.I))
    for s in data.get("signature", []):  # signatures appended in their own section ([[signature]], cause = ...)
        sigs.append(_signature(s["cause"], s, skipped))
        set_patterns.append((s["regex"], re.I))
    # library names are short (a captured file name of at most ~120 characters): no budget needed
    libs = [(compile_pattern(r["pattern"], 0, lazy=True), r["cause"], r.get("family", ""), r.get("symbol_cause", ""))
            for r in data.get("library", [])]
    rows = [r for r in data.get("fact", []) if r.get("scope") != "report"]
    facts = [Fact(name=r["name"], literals=tuple(x for x in r["literal"].split("|") if x),
                  regex=_compiled(r["regex"], re.I, f"fact {r['name']!r}", skipped), source=r.get("source", ""),
                  veto=r.get("kind") == "veto")
             for r in rows]
    # scope = "report": read only into a pasted report's facts (envcheck/explain/logfacts.py), not by the scan
    report_facts = [Fact(name=r["name"], literals=tuple(x for x in r["literal"].split("|") if x),
                         regex=_compiled(r["regex"], re.I, f"fact {r['name']!r}", skipped), source=r.get("source", ""))
                    for r in data.get("fact", []) if r.get("scope") == "report"]
    set_patterns += [(r["regex"], re.I) for r in rows]
    fact_literal: Dict[str, List[int]] = {}
    for i, fc in enumerate(facts):
        for lit in fc.literals:
            fact_literal.setdefault(lit, []).append(i)
    by_literal: Dict[str, List[int]] = {}
    for i, sg in enumerate(sigs):
        for lit in sg.literals:
            by_literal.setdefault(lit, []).append(i)
    anchors = [str(a) for a in (data.get("meta") or {}).get("prefilter", []) if str(a) == str(a).lower()]
    cover, under = cover_literals(list(by_literal) + list(fact_literal), anchors)
    return KnowledgeBase(causes=causes, signatures=sigs, libraries=libs, by_literal=by_literal,
                         cover=cover, under_cover=under, facts=facts, fact_literal=fact_literal, matcher=engine(),
                         skipped=skipped, set_patterns=set_patterns, report_facts=report_facts,
                         vendor_facts=tuple(dict.fromkeys(str(r["name"]) for r in rows if r.get("scope") == "vendor")),
                         fix_facts=tuple(dict.fromkeys(str(r["name"]) for r in rows if r.get("scope") == "fix")))


_CACHE: Dict[Tuple[str, str], KnowledgeBase] = {}

#: a verdict file (``<user cache>/kb/<key>.ok``) says that :func:`validate_kb` found no problem in the
#: knowledge base of that key; at most this many are kept
_VERDICTS_KEPT = 16


def _verdict_path(data: Any) -> Optional[str]:
    """Where the verdict of ``data`` (a parsed errors.toml) is kept: its key is the SHA-256 of the data
    (canonical JSON), of the code that validates it (this module, the matcher's dialect scan, the regex
    safety analysis, the matrix schema) and of the Python version (its ``re`` parser). None when that code
    cannot be read (then every load validates)."""
    import hashlib
    import json
    import os
    import sys

    from envcheck.explain import matcher, regex_safety
    from envcheck.safe_io import cache_base
    import envcheck.matrix
    import envcheck.matrix.schema

    h = hashlib.sha256(sys.version.encode())
    for mod in (sys.modules[__name__], matcher, regex_safety, envcheck.matrix, envcheck.matrix.schema):
        path = getattr(mod, "__file__", None)
        if not path or not path.endswith(".py"):
            return None
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            return None
    try:
        h.update(json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        return None
    return os.path.join(cache_base(), "kb", h.hexdigest() + ".ok")


def _validated_before(path: Optional[str]) -> bool:
    """A verdict file at ``path`` in folders that are the user's own (no other user can plant one)."""
    import os
    import stat

    from envcheck.safe_io import private_dir

    if path is None:
        return False
    try:
        folder = os.path.dirname(path)
        private_dir(os.path.dirname(folder))
        private_dir(folder)
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _keep_verdict(path: Optional[str]) -> None:
    """Write the verdict file (never through a link; problems writing it are ignored)."""
    import os

    from envcheck.safe_io import create_file, private_dir

    if path is None:
        return
    try:
        folder = os.path.dirname(path)
        private_dir(os.path.dirname(folder), create=True)
        private_dir(folder, create=True)
        old = [n for n in os.listdir(folder) if n.endswith(".ok")]
        if len(old) >= _VERDICTS_KEPT:  # earlier knowledge bases' verdicts
            for n in old:
                os.unlink(os.path.join(folder, n))
        create_file(path, b"", 0o600)  # never through a link, never over a file
    except OSError:
        pass


def checked_kb_problems(data: Any) -> List[str]:
    """:func:`validate_kb` (without the RE2 compile check, as loading does) of ``data``, or no problem at once
    when the same knowledge base was found valid by the same code before (a verdict file in the user cache:
    the check costs a CLI run ~60 ms, the lookup ~4 ms)."""
    path = _verdict_path(data)
    if _validated_before(path):
        return []
    problems = validate_kb(data, compile_check=False)
    if not problems:
        _keep_verdict(path)
    return problems


def load_kb(matrix: Any = None) -> KnowledgeBase:
    """The knowledge base of the active matrix (``load_matrix().table("errors")``); the bundled
    one when the active matrix (e.g. an older updated bundle) has none or an invalid one."""
    from envcheck.errors import MatrixError
    from envcheck.matrix import Matrix, bundled_dir, load_matrix

    candidates = []
    m = matrix if matrix is not None else load_matrix()
    candidates.append((m.directory or "", m))
    if m.directory != bundled_dir():
        candidates.append((bundled_dir(), Matrix(bundled_dir())))
    last = "no errors table"
    for directory, mx in candidates:
        key = (directory, engine())
        if key in _CACHE:
            return _CACHE[key]
        try:
            data = mx.table("errors")
        except MatrixError as exc:
            last = str(exc)
            continue
        if not data:
            continue
        problems = checked_kb_problems(data)
        if problems:
            last = "; ".join(problems[:3])
            continue
        kb = compile_kb(data)
        from envcheck.engine.rules import library_sonames

        kb.sonames = library_sonames(mx)
        kb.line_set()  # built here, with the knowledge base, not while the first log is read
        _CACHE[key] = kb
        return kb
    raise MatrixError(f"the error knowledge base (errors.toml) is missing or broken: {last}")
