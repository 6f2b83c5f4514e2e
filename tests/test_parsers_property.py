"""Property tests: every parser takes any text without raising and returns its documented type;
and no parser backtracks catastrophically on a long adversarial line."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envcheck.parse import captures, cuda_version, cudnn_header, gpu_listers, ldconfig, libraries, nvcc, nvidia_smi
from envcheck.parse import proc_driver, pyfiles, small_forms

DATA = Path(__file__).parent / "data"
FIXTURES = sorted(p.read_text(encoding="utf-8") for p in DATA.glob("*/*") if p.is_file()
                  if not p.name.endswith(".expect.json"))
KINDS = (None, nvidia_smi.NO_DRIVER, nvidia_smi.LIB_MISMATCH, nvidia_smi.NO_DEVICES, nvidia_smi.NVML_UNKNOWN,
         nvidia_smi.OTHER)  # NVML_UNKNOWN: "Failed to initialize NVML: Unknown Error" (a kind of its own)

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _opt(value: Any, typ: type) -> bool:
    return value is None or isinstance(value, typ)


# ------------------------------------------------------------------------ type checks per parser

def _check_table(t: Any) -> None:
    assert isinstance(t, nvidia_smi.SmiTable)
    assert _opt(t.smi_version, str) and _opt(t.driver_version, str) and _opt(t.cuda_version, str)
    assert isinstance(t.gpus, list) and all(isinstance(g, nvidia_smi.SmiGpu) for g in t.gpus)
    for g in t.gpus:
        assert isinstance(g.index, int) and ((isinstance(g.name, str) and g.name) or (g.name is None and g.fault))
        assert _opt(g.memory_total_mib, int) and _opt(g.bus_id, str) and _opt(g.mig_enabled, bool)
    assert t.state is None or t.state in nvidia_smi.STATES
    assert t.gpus_complete in (None, True, False)
    assert all(isinstance(f, nvidia_smi.SmiFault) and isinstance(f.text, str) for f in t.faults)
    assert isinstance(t.mig_devices, int) and t.mig_devices >= 0
    assert t.error in KINDS
    assert _opt(t.error_line, str)


def _check_smi(t: Any) -> None:
    """parse_smi: any form by content. A GPU may be unnamed without a fault (an XML / -q section cut before its
    product name, lspci's "Device 1b38"); the form is one of nvidia-smi's or another lister's."""
    assert isinstance(t, nvidia_smi.SmiTable)
    assert _opt(t.smi_version, str) and _opt(t.driver_version, str) and _opt(t.cuda_version, str)
    assert isinstance(t.gpus, list) and all(isinstance(g, nvidia_smi.SmiGpu) for g in t.gpus)
    for g in t.gpus:
        assert isinstance(g.index, int) and (g.name is None or (isinstance(g.name, str) and g.name))
        assert _opt(g.memory_total_mib, int) and _opt(g.bus_id, str) and _opt(g.compute_capability, str)
    assert t.state is None or t.state in nvidia_smi.STATES
    assert t.form is None or t.form in nvidia_smi.FORMS + nvidia_smi.LISTER_FORMS
    assert t.gpus_complete in (None, True, False) and _opt(t.note, str)


def _check_classify(r: Any) -> None:
    assert isinstance(r, tuple) and len(r) == 2
    kind, line = r
    assert kind in KINDS
    assert (kind is None) == (line is None)
    assert _opt(line, str) and (line is None or len(line) <= 300)


def _check_query(q: Any) -> None:
    assert isinstance(q, nvidia_smi.SmiQuery)
    assert isinstance(q.gpus, list)
    for g in q.gpus:
        assert isinstance(g, nvidia_smi.QueryGpu)
        assert _opt(g.index, int) and _opt(g.name, str) and _opt(g.driver_version, str)
        assert _opt(g.compute_capability, str) and _opt(g.memory_total_mib, int)
    assert _opt(q.error, str) and _opt(q.error_line, str)


def _check_proc(d: Any) -> None:
    assert _opt(d, proc_driver.ProcDriver)
    if d is not None:
        assert isinstance(d.version, str) and d.kernel_module in ("open", "proprietary") and _opt(d.arch, str)


def _check_nvcc(n: Any) -> None:
    assert _opt(n, nvcc.NvccInfo)
    if n is not None:
        assert isinstance(n.release, str) and _opt(n.version, str)


def _check_opt_str(v: Any) -> None:
    assert _opt(v, str)


def _check_ldconfig(entries: Any) -> None:
    assert isinstance(entries, list)
    for e in entries:
        assert isinstance(e, ldconfig.LdEntry)
        assert isinstance(e.soname, str) and isinstance(e.flags, str) and e.path.startswith("/")
        for machine in ("x86_64", "aarch64", "ppc64le", None):
            assert isinstance(ldconfig.is_native(e, machine), bool)


def _check_libfile(lib: Any) -> None:
    assert _opt(lib, libraries.LibFile)
    if lib is not None:
        assert isinstance(lib.family, str) and isinstance(lib.component, str)
        assert isinstance(lib.suffix, tuple)
        assert _opt(lib.major, int) and _opt(lib.version, str) and isinstance(lib.directory, str)


def _check_str_list(v: Any) -> None:
    assert isinstance(v, list) and all(isinstance(x, str) for x in v)


def _check_str_dict(v: Any) -> None:
    assert isinstance(v, dict) and all(isinstance(k, str) for k in v)


def _check_os_release(v: Any) -> None:
    assert isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())


def _check_wsl(v: Any) -> None:
    assert v in (None, "WSL1", "WSL2")


def _check_json_obj(v: Any) -> None:
    assert _opt(v, dict)


def _check_listed(v: Any) -> None:
    assert v is None or isinstance(v, gpu_listers.Listed)
    if v is not None:
        assert v.form in gpu_listers.FORMS and all(isinstance(g, gpu_listers.ListedGpu) for g in v.gpus)
        assert all(g.memory_mib is None or g.memory_mib > 0 for g in v.gpus)


def _ldconfig_all(text: str) -> List[Any]:
    return ldconfig.parse_ldconfig(text)


def _library_lines(text: str) -> List[Any]:
    # every line as a path, plus the whole text as one
    out = [libraries.parse_library_path(text)]
    out += [libraries.parse_library_path(ln) for ln in text.splitlines()[:200]]
    return out


PARSERS: List[Tuple[str, Callable[[str], Any], Callable[[Any], None]]] = [
    ("nvidia_smi.parse_table", nvidia_smi.parse_table, _check_table),
    ("nvidia_smi.classify_error", nvidia_smi.classify_error, _check_classify),
    ("nvidia_smi.parse_query_csv", nvidia_smi.parse_query_csv, _check_query),
    ("proc_driver.parse_proc_driver_version", proc_driver.parse_proc_driver_version, _check_proc),
    ("proc_driver.parse_sys_module_version", proc_driver.parse_sys_module_version, _check_opt_str),
    ("nvcc.parse_nvcc", nvcc.parse_nvcc, _check_nvcc),
    ("cuda_version.parse_version_json", cuda_version.parse_version_json, _check_opt_str),
    ("cuda_version.parse_version_txt", cuda_version.parse_version_txt, _check_opt_str),
    ("ldconfig.parse_ldconfig", _ldconfig_all, _check_ldconfig),
    ("cudnn_header.parse_cudnn_header", cudnn_header.parse_cudnn_header, _check_opt_str),
    ("libraries.parse_library_path", _library_lines, lambda v: [_check_libfile(x) for x in v]),
    ("libraries.parse_libraries_txt", libraries.parse_libraries_txt, _check_str_list),
    ("pyfiles.parse_torch_version_py", pyfiles.parse_torch_version_py, _check_str_dict),
    ("pyfiles.parse_tf_build_info_py", pyfiles.parse_tf_build_info_py, _check_str_dict),
    ("captures.parse_os_release", captures.parse_os_release, _check_os_release),
    ("captures.is_wsl", captures.is_wsl, _check_wsl),
    ("captures.load_json_object", captures.load_json_object, _check_json_obj),
    ("small_forms.describe_unread", small_forms.describe_unread, _check_opt_str),
    ("ldconfig.is_listing", ldconfig.is_listing, lambda v: None if isinstance(v, bool) else pytest.fail(repr(v))),
    ("nvidia_smi.parse_smi", nvidia_smi.parse_smi, _check_smi),
] + [(f"gpu_listers.{r.__name__.rsplit('.', 1)[-1]}.read", r.read, _check_listed) for r in gpu_listers.READERS]
PARSER_IDS = [p[0] for p in PARSERS]


def _run(parser: Tuple[str, Callable[[str], Any], Callable[[Any], None]], text: str) -> None:
    _, fn, check = parser
    check(fn(text))


# ------------------------------------------------------------------------ strategies

# bytes read the two ways a capture may be decoded
binaryish = st.one_of(
    st.binary(max_size=400).map(lambda b: b.decode("latin-1")),
    st.binary(max_size=400).map(lambda b: b.decode("utf-8", "surrogateescape")),
)

# long lines made of the characters the parsers' patterns care about
_TOKENS = ["|", " ", "\t", "+", "-", "=", ".", ",", ":", "/", "(", ")", "[", "]", "0", "1", "9", "MiB", "x",
           "N/A", "On", "Off", "NVRM version:", "Kernel Module", "Driver Version:", "CUDA Version:",
           "NVIDIA-SMI", "00000000:01:00.0", "=>", "lib", ".so", "#define CUDNN_MAJOR", "release", "\n",
           'Device 0: "', "Detected 2 CUDA Capable device(s)", "CUDA Driver Version / Runtime Version", "Model:",
           "[0] ", "'C,", " MB |", "3D controller: NVIDIA Corporation ", "| GPU ID | Device Information", "NVRM version:"]
long_lines = st.builds(
    lambda parts, n: "".join(parts) * n,
    st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12),
    st.integers(min_value=200, max_value=3000),
)


@st.composite
def mutated_fixture(draw: Callable[..., Any]) -> str:
    text = draw(st.sampled_from(FIXTURES))
    how = draw(st.sampled_from(["truncate", "delete-lines", "both", "splice"]))
    if how in ("truncate", "both"):
        text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    if how in ("delete-lines", "both"):
        lines = text.splitlines(keepends=True)
        if lines:
            drop = draw(st.sets(st.integers(min_value=0, max_value=len(lines) - 1), max_size=len(lines)))
            text = "".join(ln for i, ln in enumerate(lines) if i not in drop)
    if how == "splice":
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + draw(st.text(max_size=20)) + text[at:]
    return text


# ------------------------------------------------------------------------ never raises, right type

@pytest.mark.parametrize("parser", PARSERS, ids=PARSER_IDS)
@SETTINGS
@given(text=st.text())
def test_any_text(parser, text):
    _run(parser, text)


@pytest.mark.parametrize("parser", PARSERS, ids=PARSER_IDS)
@SETTINGS
@given(text=binaryish)
def test_binaryish_text(parser, text):
    _run(parser, text)


@pytest.mark.parametrize("parser", PARSERS, ids=PARSER_IDS)
@settings(SETTINGS, max_examples=30)
@given(text=long_lines)
def test_long_lines(parser, text):
    _run(parser, text)


@pytest.mark.parametrize("parser", PARSERS, ids=PARSER_IDS)
@SETTINGS
@given(text=mutated_fixture())
def test_mutated_fixtures(parser, text):
    _run(parser, text)


@pytest.mark.parametrize("parser", PARSERS, ids=PARSER_IDS)
def test_empty_and_none(parser):
    _, fn, check = parser
    check(fn(""))
    # classify_error and parse_library_path take ``str``; the others document ``Optional[str]``
    if fn not in (_library_lines, nvidia_smi.classify_error):
        check(fn(None))


def test_is_native_any_flags():
    machines = st.one_of(st.none(), st.text(max_size=10),
                         st.sampled_from(["x86_64", "amd64", "aarch64", "arm64"]))

    @SETTINGS
    @given(flags=st.text(max_size=60), machine=machines)
    def inner(flags, machine):
        assert isinstance(ldconfig.is_native(ldconfig.LdEntry("libx.so", flags, "/libx.so"), machine), bool)

    inner()


def test_table_truncation_keeps_a_prefix_of_the_gpus():
    """Cutting a real table anywhere never invents GPUs: the GPUs found are a prefix of the full list."""
    full = {}
    for p in sorted((DATA / "nvidia-smi").glob("*.txt")):
        text = p.read_text(encoding="utf-8")
        full[text] = [(g.index, g.name) for g in nvidia_smi.parse_table(text).gpus]

    @SETTINGS
    @given(data=st.data())
    def inner(data):
        text = data.draw(st.sampled_from(sorted(full)))
        cut = data.draw(st.integers(min_value=0, max_value=len(text)))
        got = [(g.index, g.name) for g in nvidia_smi.parse_table(text[:cut]).gpus]
        want = full[text]
        # a name cut mid-way may end up shorter; the index sequence must be a prefix
        assert [i for i, _ in got] == [i for i, _ in want][: len(got)]
        for (_, g), (_, w) in zip(got, want):
            assert (w is None and g is None) or (w is not None and g is not None and w.startswith(g))

    inner()


# ------------------------------------------------------------------------ catastrophic backtracking

MB = 10 ** 6
GENERIC = {
    "pipes": "|" * MB,
    "spaces-x": " " * MB + "x",
    "newlines": "\n" * MB,
    "nvrm-spaces": "NVRM version: " + " " * MB,
    "digits": "1" * MB,
    "dots": "1." * (MB // 2),
    "open-brackets": "[" * MB,
    "open-parens": "(" * MB,
}
SPECIFIC = {
    "nvidia_smi.parse_table": {
        "gpu-cell-spaces": "|0 x" + " " * MB + "y|00000000:01:00.0|",
        "gpu-cell-trailing": "|0 x" + " " * MB + "|00000000:01:00.0|",
        "mem-digits": "|   0  X  Off  | 00000000:01:00.0 Off |\n|" + "1" * MB,
        "mem-digit-spaces": "|   0  X  Off  | 00000000:01:00.0 Off |\n|" + "1 " * (MB // 2),
        "hex": "|0 x|" + "a" * MB,
        "smi-repeat": "NVIDIA-SMI " * (MB // 11),
        "driver-dots": "Driver Version: " + "1." * (MB // 2),
        "mig-rows": "| MIG devices:\n|" + " 1" * (MB // 2),
        "separator": "|0 X|0000:01:00.0|\n+" + "-" * MB + "x",
    },
    "nvidia_smi.classify_error": {
        "no-devices-spaces": " " * MB + "No devices were",
        "failed-repeat": "Failed to initialize " * (MB // 21),
    },
    "nvidia_smi.parse_query_csv": {
        "commas": "index, name\n" + "," * MB,
        "name-commas": "name\n" + "a," * (MB // 2),
        "brackets": "a [" * (MB // 3),
        "header-repeat": "index" + ", index" * (MB // 7),
    },
    "proc_driver.parse_proc_driver_version": {
        "nvrm-repeat": "NVRM version:" * (MB // 13),
        "nvrm-unix-repeat": "NVRM version: UNIX " * (MB // 19),
        "open-for-word": "NVRM version: NVIDIA UNIX Open Kernel Module for " + "x" * MB,
        "kernel-module-repeat": "NVRM version: " + "Kernel Module " * (MB // 14),
    },
    "nvcc.parse_nvcc": {
        "release-repeat": "Cuda compilation tools, release " * (MB // 32),
        "release-digits": "Cuda compilation tools, release 1." + "1" * MB,
    },
    "cuda_version.parse_version_txt": {
        "trailing-spaces": "CUDA Version 1.0" + " " * MB + "x",
        "repeat": "CUDA Version " * (MB // 13),
    },
    "cuda_version.parse_version_json": {
        "deep-objects": '{"a":' * (MB // 5),
        "cuda-entries": '"cuda" : {' * (MB // 10),
        "entry-no-version": '"cuda" : {' + '"name" : "x", ' * (MB // 14),
    },
    "ldconfig.parse_ldconfig": {
        "path-spaces": "a (b) => /x" + " " * MB + "y",
        "open-paren-repeat": "a (" * (MB // 3),
        "arrow-repeat": "a (b) =>" * (MB // 8),
        "joined-entries": "libcudnn.so.8 (libc6,x86-64) => /a " * (MB // 36),
        "comment-arrows": "# x (y) => /" + " => /" * (MB // 6),
    },
    "cudnn_header.parse_cudnn_header": {
        "define-repeat": "#define CUDNN_MAJOR " * (MB // 20),
        "hash-spaces": "#" + " " * MB,
        "grep-prefix": "a" * MB + ".h:#define CUDNN_MAJOR 8",
    },
    "libraries.parse_library_path": {
        "cudnn-word": "libcudnn_" + "a" * MB + ".so",
        "so-numbers": "libcuda.so" + ".1" * (MB // 2) + "x",
    },
    "pyfiles.parse_torch_version_py": {
        "unary": "x = " + "-" * MB + "1",
        "sum": "x = " + "1+" * (MB // 2) + "1",
        # valid code just under the 64 KB size cap of literal_assignments (bigger files are not parsed)
        "big-dict-call": "build_info = dict(" + "a=1," * 15_000 + ")",
    },
    "pyfiles.parse_tf_build_info_py": {
        "ordered-dict": "build_info = collections.OrderedDict([" + "('a', 1)," * 6_000 + "])",
    },
    "captures.parse_os_release": {
        "no-equals": "A" * MB,
        "equals": "A=" * (MB // 2),
    },
    "captures.load_json_object": {
        "deep-objects": '{"a":' * (MB // 5),
    },
    "small_forms.describe_unread": {
        "filename-run": "filename: " + "a" * MB,
        "nvrm-loading": "NVRM: loading NVIDIA UNIX " + "x" * MB,
        "kernel-module-for": "NVRM version: NVIDIA UNIX Kernel Module for " + "a" * MB,
    },
}


def _redos_cases():
    for name, fn, check in PARSERS:
        inputs = dict(GENERIC)
        inputs.update(SPECIFIC.get(name, {}))
        for label, text in inputs.items():
            yield pytest.param(fn, check, text, id="%s-%s" % (name, label))


@pytest.mark.parametrize("fn, check, text", list(_redos_cases()))
def test_no_catastrophic_backtracking(fn, check, text):
    t0 = time.perf_counter()
    result = fn(text)
    elapsed = time.perf_counter() - t0
    check(result)
    # not a speed test (the suite makes no timing assertions): a catastrophic pattern on 1 MB takes hours, a
    # linear one well under a second, so a bound far above either survives a loaded CI machine
    assert elapsed < 30.0, "%.2f s on a %d-character input" % (elapsed, len(text))


DEEP_CHAINS = r"""
import sys
from envcheck.parse import pyfiles
cap = 64_000 - 20
for src in ("x = " + "1+" * (cap // 2) + "1", "x = a" + ".b" * (cap // 2), "x = f" + "()" * (cap // 2),
            "x = a" + "[0]" * (cap // 3), "build_info = " + "1*" * (cap // 2) + "1"):
    assert len(src) <= 64_000, len(src)
    assert isinstance(pyfiles.parse_torch_version_py(src), dict)
    assert isinstance(pyfiles.parse_tf_build_info_py(src), dict)
for src in ("x = " + "1+" * 500_000 + "1", "x = a" + ".b" * 500_000, "x = f" + "()" * 500_000):
    # ~1 MB: crashed CPython 3.9 while the cap was 2 MB
    assert isinstance(pyfiles.parse_torch_version_py(src), dict)
    assert isinstance(pyfiles.parse_tf_build_info_py(src), dict)
print("OK")
"""


def test_deep_expression_chains_do_not_crash_the_interpreter():
    """CPython 3.9's ast.parse overflows the C stack (segfault) on ~150k-deep left-nested chains; the size cap
    of literal_assignments keeps the deepest possible chain well below that. Run in a child process so a crash
    is a test failure, not the end of the test run."""
    root = str(Path(__file__).resolve().parent.parent)
    r = subprocess.run([sys.executable, "-c", DEEP_CHAINS], cwd=root, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "OK", (r.returncode, r.stderr[-2000:])
