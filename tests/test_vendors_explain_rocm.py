"""explain on ROCm logs (issue 21, vendors21c): ROCm libraries that cannot be loaded (rocm-runtime-missing), rocBLAS
without kernels for the GPU's target (gpu-arch-unsupported with the gfx the log names, and the ROCm builds that have
it from the engine), "Torch not compiled with CUDA enabled" on an AMD machine (framework-vendor-mismatch), and no
NVIDIA-only fix on a log that shows only AMD's stack. Real logs: tests/data/logs/vendors (README there)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import NO_DRIVER_FOUND, make_snapshot

from envcheck.engine.vendors import gfx_fix_lines, recast_cause
from envcheck.environment import collect
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.snapshot import open_snapshot

LOGS = Path(__file__).parent / "data" / "logs" / "vendors"
SNAPS = Path(__file__).parent / "data" / "snapshots"


def _top(text: str, **kw) -> dict:
    doc = explain_text_document(text, **kw)
    assert doc["matches"], doc
    return doc["matches"][0]


@pytest.mark.parametrize("name,lib", [
    ("rocm-hsa-runtime64-missing-tensorflow-legacy1753.log", "libhsa-runtime64.so.1"),
    ("rocm-libamdhip64-so3-missing-tensorflow-rocm-upstream1207.log", "libamdhip64.so.3"),
    ("rocm-libamdhip64-so7-missing-torch-therock1119.log", "libamdhip64.so.7"),
])
def test_rocm_library_that_cannot_be_loaded(name, lib):
    m = _top((LOGS / name).read_text())
    assert m["id"] == "rocm-runtime-missing" and m["captures"]["lib"] == lib
    text = " ".join(m["fixes"])
    assert "rocm" in text.lower() and "cu12" not in text and "nvidia-" not in text.lower()


@pytest.mark.parametrize("lib", ["libMIOpen.so.1", "librocblas.so.4", "libhipblaslt.so.0", "libamd_comgr.so.2"])
def test_other_rocm_libraries_route_to_the_same_cause(lib):
    assert _top(f"OSError: {lib}: cannot open shared object file: No such file or directory\n")["id"] == \
        "rocm-runtime-missing"


def test_a_cuda_library_is_still_cuda():
    m = _top("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    assert m["id"] == "cuda-runtime-missing"


@pytest.mark.parametrize("name,gfx", [
    ("rocblas-tensile-gfx906-rocm6.4-rocm4625.log", "gfx906"),
    ("rocblas-tensile-gfx1103-windows-hip-sdk-rocmlibs4.log", "gfx1103"),
    ("rocblas-tensile-gfx1201-illegal-seek-migraphx3517.log", "gfx1201"),
])
def test_rocblas_without_kernels_for_the_gpu_arch(name, gfx):
    m = _top((LOGS / name).read_text())
    assert m["id"] == "gpu-arch-unsupported" and m["captures"]["gfx"] == gfx
    text = " ".join(m["fixes"] + m["dead_ends"])
    # the log shows only AMD's stack: no CUDA wheel, compute capability or nvcc advice
    assert "cu128" not in text and "nvcc" not in text and "compute capability" not in text.lower()


def test_gfx_fix_lines_from_the_matrix():
    matrix = load_matrix()
    # gfx90a is in PyTorch's ROCm target lists (compat_matrix/rocm.toml): the newest build that has it
    lines = gfx_fix_lines(matrix, "gfx90a")
    assert lines[0].startswith("pip install torch==") and "--index-url https://download.pytorch.org/whl/rocm" in lines[0]
    # gfx1032 is in none of them; the matrix records 10.3.0 as a same-family workaround, labelled unofficial
    lines = gfx_fix_lines(matrix, "gfx1032")
    assert lines[0].startswith("No PyTorch-index ROCm build")
    assert any("HSA_OVERRIDE_GFX_VERSION=10.3.0" in x and "Unofficial" in x for x in lines)
    # an override across ISA families is named first
    assert gfx_fix_lines(matrix, "gfx1010", "10.3.0")[0].startswith("HSA_OVERRIDE_GFX_VERSION=10.3.0 makes gfx1010")
    assert gfx_fix_lines(matrix, "not-a-gfx") == []


def test_not_compiled_with_cuda_on_an_amd_snapshot_is_a_vendor_mismatch():
    line = "AssertionError: Torch not compiled with CUDA enabled\n"
    assert _top(line)["id"] == "framework-cpu-only"  # the text alone: a CPU build
    m = _top(line, snapshot=str(SNAPS / "amd-rx7600xt-raphael-legacy4380"))
    assert m["id"] == "framework-vendor-mismatch"
    assert any("read as framework-vendor-mismatch" in n for n in m.get("notes", []))
    assert "rocm" in " ".join(m["fixes"]).lower()


def test_recast_rule_needs_an_amd_or_intel_compute_machine(tmp_path):
    matrix = load_matrix()
    nvidia = collect(open_snapshot(make_snapshot(str(tmp_path / "n"), {})), matrix)
    assert recast_cause("framework-cpu-only", ("no-cuda-in-build",), nvidia) is None
    amd = collect(open_snapshot(str(SNAPS / "amd-rx7600xt-raphael-legacy4380")), matrix)
    assert recast_cause("framework-cpu-only", ("no-cuda-in-build",), amd) == "framework-vendor-mismatch"
    assert recast_cause("cudnn-missing", ("no-cuda-in-build",), amd) is None
    assert recast_cause("framework-cpu-only", (), amd) is None
    # an Intel GPU only OpenCL sees is not an XPU machine for this rule
    intel = collect(open_snapshot(str(SNAPS / "intel-a750-opencl-only-llvm17535")), matrix)
    assert recast_cause("framework-cpu-only", ("no-cuda-in-build",), intel) is None


def test_cli_json_on_rocm_log():
    out = subprocess.run([sys.executable, "-m", "envcheck", "explain", str(LOGS / "rocblas-tensile-gfx906-rocm6.4-rocm4625.log"),
                          "--no-detect", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["matches"][0]["captures"]["gfx"] == "gfx906"


# -- an XPU build: never CPU-only, and no "no NVIDIA driver" -------------------------------------------------
COLLECT = Path(__file__).parent / "data" / "vendors" / "collect-env"


def test_xpu_collect_env_is_neither_cpu_only_nor_missing_an_nvidia_driver():
    from envcheck.checks.pipeline import build_status
    from envcheck.paste import PasteSource, read_report

    matrix = load_matrix()
    env = collect(PasteSource(read_report((COLLECT / "xpu-2.7.1-windows-pytorch157775.txt").read_text())), matrix)
    torch = env.frameworks["torch"]
    assert torch.xpu and not torch.cpu_only
    assert {f.id for f in build_status(env=env, matrix=matrix).findings} & {"framework-cpu-only", "no-gpu-driver"} == set()


def test_no_driver_note_stays_for_a_cuda_build(tmp_path):
    from envcheck.checks.pipeline import build_status

    matrix = load_matrix()
    for version, torch_json, want in (("2.7.1+xpu", {"version": "2.7.1+xpu", "xpu": "20250101"}, False),
                                      ("2.7.1+cu126", {"version": "2.7.1+cu126", "cuda": "12.6"}, True)):
        snap = make_snapshot(str(tmp_path / version), {"torch.json": torch_json,
                                                       "packages.json": {"torch": version}, **NO_DRIVER_FOUND})
        env = collect(open_snapshot(snap), matrix)
        ids = {f.id for f in build_status(env=env, matrix=matrix).findings}
        assert ("no-gpu-driver" in ids) is want, (version, ids)


def test_status_rocm_library_that_torch_could_not_load(tmp_path):
    """`status --deep` (torch.json's deep_error): the library decides the cause through errors.toml's [[library]]
    rows, the same ones explain uses; a CUDA library there is not this finding."""
    from envcheck.checks.pipeline import build_status

    matrix = load_matrix()
    err = "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory"
    snap = make_snapshot(str(tmp_path / "r"), {"torch.json": {"version": "2.5.1+rocm6.2", "deep_error": err},
                                               "packages.json": {"torch": "2.5.1+rocm6.2"}})
    found = build_status(env=collect(open_snapshot(snap), matrix), matrix=matrix).findings
    f = next(f for f in found if f.id == "rocm-runtime-missing")
    assert f.severity == "error" and "libamdhip64.so.6" in f.message and "deep_error" in f.evidence
    assert "no-gpu-driver" not in {x.id for x in found}  # a ROCm build: no NVIDIA-driver message
    cuda = "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"
    snap = make_snapshot(str(tmp_path / "c"), {"torch.json": {"version": "2.5.1+cu124", "cuda": "12.4",
                                                              "deep_error": cuda}})
    assert "rocm-runtime-missing" not in {x.id for x in build_status(env=collect(open_snapshot(snap), matrix),
                                                                      matrix=matrix).findings}


def test_fix_plans_the_newest_build_known_to_hold_the_target():
    """The RX 7600 XT (gfx1102) of ROCm/legacy-rocm-build#4380: 2.14.1+rocm7.2 is the newest build whose target list
    is known to hold gfx1102 (2.14.0+rocm7.2's installed wheel printed 15 targets with gfx1102 in a public report,
    and the matrix carries that list to 2.14.1 of the same release branch and ROCm variant);
    the Raphael iGPU (gfx1036) is in none and is hidden, with a note to check which GPU HIP kept."""
    out = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot",
                          str(SNAPS / "amd-rx7600xt-raphael-legacy4380"), "--want", "torch", "--json"],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(out.stdout)
    assert doc["satisfiable"] is True
    assert [(p["name"], p["version"], p["variant"]) for p in doc["packages"]][0] == ("torch", "2.14.1", "rocm7.2")
    assert doc["env"] == {"HIP_VISIBLE_DEVICES": "0"}
    assert any("get_device_name(0)" in n for n in doc["notes"])
    assert not any("newer build(s)" in n for n in doc["notes"])  # no newer build in the matrix


@pytest.mark.parametrize("torch_json,want", [
    ({"version": "2.5.1+rocm6.2", "hip": "6.2.41133"}, "amd"),
    ({"version": "2.7.1+xpu", "xpu": "20250101"}, "intel"),
    ({"version": "2.5.1+cu124", "cuda": "12.4"}, None),
])
def test_builds_for_and_no_nvidia_rows(tmp_path, torch_json, want):
    """No accelerator captured, only the torch build: a ROCm / XPU build shows that vendor's rows (no 'driver not
    found', no toolkit / cuDNN rows), a CUDA build keeps NVIDIA's."""
    snap = make_snapshot(str(tmp_path / "b"), {"torch.json": torch_json, "packages.json": {"torch": torch_json["version"]}})
    out = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", snap, "--json"], capture_output=True,
                         text=True, timeout=120)
    rep = json.loads(out.stdout)
    assert rep["vendor"] is None and rep["accelerator"]["builds_for"] == want
    text = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", snap], capture_output=True,
                          text=True, timeout=120).stdout
    rows = {ln.split()[0] for ln in text.splitlines()[2:] if ln.startswith("  ") and ln.split()}
    if want is None:
        assert {"driver", "toolkit", "cudnn"} <= rows
    else:
        assert not {"driver", "toolkit", "cudnn"} & rows and "installed builds are" in text


def test_fix_skips_builds_whose_rocblas_lacks_the_target(tmp_path):
    """A Radeon VII (gfx906): the ROCm 6.4+ wheels compile gfx906 but bundle a rocBLAS without its kernels, so the
    plan is the newest rocm6.3 build, and explain's fix for the rocBLAS abort names no rocm6.4+ build either."""
    vii = ("*******\nAgent 2\n*******\n  Name:                    gfx906\n  Marketing Name:          AMD Radeon VII\n"
           "  Device Type:             GPU\n")
    snap = make_snapshot(str(tmp_path / "vii"), {"rocminfo.txt": vii})
    out = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot", snap, "--want", "torch", "--json"],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(out.stdout)
    torch = next(p for p in doc["packages"] if p["name"] == "torch")
    assert doc["satisfiable"] is True and torch["variant"] == "rocm6.3"
    lines = " ".join(gfx_fix_lines(load_matrix(), "gfx906"))
    assert "rocm6.3" in lines and "rocm6.4" not in lines and "rocm7" not in lines


# -- the vendor rules are keyed on what a wording says (errors.toml ``says``, engine.vendors.SAYS), never on a
# signature's name (session 13): the knowledge base's attribute drives them, and engine code names no signature

def _kb_signatures(data):
    yield from data.get("signature", [])
    for c in data.get("cause", []):
        yield from c.get("signature", [])


def test_the_says_attribute_is_on_the_wordings_the_rules_read():
    from envcheck.explain.kb import compile_kb

    from envcheck.engine.vendors import SAYS

    data = load_matrix().table("errors")
    # the engine's vendor rules' values only (explain's own ranking values, explain.kb.RANK_SAYS, are session 14's and
    # checked in tests/test_kb_said.py)
    got = {s["name"]: "|".join(v for v in s["says"].split("|") if v in SAYS) for s in _kb_signatures(data)
           if any(v in SAYS for v in s.get("says", "").split("|"))}
    assert got == {"a1111-torch-not-able-to-use-gpu": "cuda-check-only", "xla-ptxas-too-old": "ptxas-floor-notice",
                   # session 18 (cpuonly29): EasyOCR's own "Neither CUDA nor MPS" fallback notice
                   "easyocr-neither-cuda-nor-mps-defaulting-to-cpu": "cuda-check-only",
                   # session 20 (vend32): Forge's start-up check, and an install of torch from its CUDA wheel index
                   "forge-pytorch-not-able-to-access-cuda": "cuda-check-only",
                   "pip-install-torch-cuda-wheel-index": "cuda-check-only",
                   "torch-not-compiled-with-cuda": "no-cuda-in-build",
                   "ultralytics-invalid-cuda-device": "no-cuda-in-build",
                   "cuda-35-insufficient": "no-nvidia-driver|cuda-build-no-nvidia",
                   "torch-found-no-driver": "cuda-build-no-nvidia", "torch-driver-too-old": "cuda-build-no-nvidia",
                   "hip-no-gpu-visible": "no-amd-gpu-seen",
                   "torch-found-no-driver-retyped": "cuda-build-no-nvidia",  # logfam26: torch's sentence retyped
                   # emit26a: Paddle's "not compiled with CUDA"; session 16's lead: bitsandbytes' CPU library (on a Mac
                   # a library for another vendor's GPU, bitsandbytes-foundation/bitsandbytes#485)
                   "paddle-set-device-gpu-not-compiled-with-cuda": "no-cuda-in-build",
                   "bnb-compiled-without-gpu-support": "no-cuda-in-build",
                   # session 18 (mac30): a conda / pixi solver finding no CUDA-only package (a Mac's, where shown)
                   "conda-solver-no-cuda-only-package": "mac-only",
                   "tf-cpu-feature-guard-avx-on-apple-silicon": "mac-only",
                   # session 17: emit27a's llama.cpp binary and compiled extensions built without a GPU backend, emit28a's
                   # OpenCV built without CUDA and faiss without its GPU resources (on a Mac / AMD machine: vendor rules)
                   "llamacpp-not-compiled-with-gpu-offload-support": "no-cuda-in-build",
                   "extension-not-compiled-with-gpu-support": "no-cuda-in-build",
                   "opencv-library-compiled-without-cuda-support": "no-cuda-in-build",
                   "faiss-no-standard-gpu-resources": "no-cuda-in-build",
                   # session 20 (lead20): an illegal instruction on Apple silicon; (jetson32) a Jetson's bare Killed,
                   # numpy 1.19.5's illegal instruction there, L4T's NvMap lines beside a failure
                   "illegal-instruction-on-apple-silicon": "apple-silicon-only",
                   "jetson-shell-killed": "jetson-only",
                   # session 22: the kernel's OOM killer is the GPU's memory on a Jetson only (attack47); TensorFlow's
                   # missing GPU kernel is the Metal plugin's only where a Mac is shown (apple35)
                   "linux-oom-killer-killed-process": "jetson-only",
                   "tensorflow-metal-op-has-no-gpu-kernel": "mac-only",
                   "jetson-numpy-openblas-illegal-instruction": "jetson-numpy-only",
                   "jetson-nvmap-alloc-error-beside-failure": "nvmap-beside-failure",
                   "ze-loader-zero-drivers-discovered": "no-nvidia-shown",
                   # session 21 (edge33): a CUDA check in words on a Mac / AMD; torch without CUDA and "is Killed"
                   # said where the text names a Jetson
                   "cuda-not-available-said-check": "cuda-check-only",
                   "jetson-torch-cuda-unavailable-line": "jetson-only",
                   "jetson-killed-said": "jetson-only",
                   # session 23 (apple38): xformers / flash-attn / bitsandbytes on a Mac, the loader's wrong
                   # architecture in a title only beside an Apple chip
                   "xformers-kernel-device-cpu-not-supported-on-mac": "mac-only",
                   "flash-attn-setup-nvcc-not-found-on-mac": "mac-only",
                   "transformers-bitsandbytes-quantization-unavailable-on-mac": "mac-only",
                   "bitsandbytes-quantizer-no-gpu-found-on-mac": "mac-only",
                   "dyld-incompatible-architecture-x86_64-need-arm64-title": "apple-silicon-only",
                   # session 24 (macarch40): jaxlib's AVX guard in its non-macOS wording (an old CPU elsewhere)
                   "jaxlib-cpu-feature-guard-avx-on-apple-silicon": "apple-silicon-only"}
    kb = compile_kb(data)
    assert {s.name: s.says for s in kb.signatures if s.says}["cuda-35-insufficient"] == \
        ("no-nvidia-driver", "cuda-build-no-nvidia")


def test_an_unknown_says_value_is_refused():
    import copy

    from envcheck.explain.kb import validate_kb

    data = copy.deepcopy(load_matrix().table("errors"))
    sig = next(s for s in _kb_signatures(data) if s["name"] == "torch-not-compiled-with-cuda")
    sig["says"] = "no-cuda-in-build|no-such-thing"
    assert any("says must be" in p for p in validate_kb(data, compile_check=False))


def test_without_the_attribute_the_line_keeps_its_own_cause(monkeypatch):
    # "Torch not compiled with CUDA enabled" in a log that shows an AMD GPU is a build for another vendor; the same
    # knowledge base without ``says`` on that wording leaves the line's own cause (the rule follows the data)
    import copy
    import io

    import envcheck.explain.kb as kbm
    from envcheck.explain import explain_stream

    text = "Name: gfx1032\nAssertionError: Torch not compiled with CUDA enabled\n"  # rocminfo's agent line
    data = load_matrix().table("errors")
    with_says = kbm.compile_kb(data)
    monkeypatch.setattr(kbm, "load_kb", lambda matrix=None: with_says)
    ids = [m.id for m in explain_stream(io.BytesIO(text.encode()), matrix=load_matrix()).matches]
    bare = copy.deepcopy(data)
    for s in _kb_signatures(bare):
        s.pop("says", None)
    without = kbm.compile_kb(bare)
    monkeypatch.setattr(kbm, "load_kb", lambda matrix=None: without)
    ids_bare = [m.id for m in explain_stream(io.BytesIO(text.encode()), matrix=load_matrix()).matches]
    assert ids == ["framework-vendor-mismatch"], ids
    assert ids_bare == ["framework-cpu-only"], ids_bare


def test_no_signature_name_in_the_vendor_rules():
    import inspect

    import envcheck.engine.vendors as v
    from envcheck.explain.kb import load_kb

    src = inspect.getsource(v)
    named = sorted(s.name for s in load_kb().signatures if f'"{s.name}"' in src)
    assert named == []
