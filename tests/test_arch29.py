"""arch29: "this GPU is not in this build" where a text names the GPU and a torch release but not the build's variant.

The engine judges every CUDA build of the release the matrix lists with its own arch constraint
(envcheck/engine/__init__.py ``arch_verdict``; envcheck/engine/oldgpu.py ``release_arch``): none runs the GPU ->
certain for any CUDA build of it; some do -> said only with failure evidence, naming the ones that do. The readers
(envcheck/paste/readers/prose_gpu.py) take the release named without its tag ("pytorch 2.6", "PyTorch 2.7.1 binary",
"pytorch (2.1)") and a GeForce series ("RTX 10XX"). Real samples: tests/data/pastes/arch29 (README.md cites each
thread); heldout/arch29-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine import arch_verdict
from envcheck.engine.builds import builds_for
from envcheck.engine.oldgpu import named_gpus, old_gpu_finding, release_arch
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import prose_gpu
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "arch29"
LABELS = readme_labels(DATA)

#: dev items the rules do not reach, and why (kept as expected failures: a later rule that reaches one says so)
UNREACHED = {
    "pytorch-manylinux-14-tesla-k40-cc-3.5-asks-pytorch-2.1-build-cuda-11.4.txt":
        "a request for a build: no failure and no GPU use shown, so the release rule (which needs the GPU wanted) "
        "says nothing, although no torch 2.1 build has sm_35",
}


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _top(text: str) -> str:
    doc = explain_text_document(text)
    return doc["matches"][0]["id"] if doc.get("matches") else "none"


def _doc(path: Path) -> dict:
    return explain_text_document(path.read_text(encoding="utf-8"))


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert "none" in LABELS.values()  # a control


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    if name in UNREACHED:
        pytest.xfail(UNREACHED[name])
    assert _top((DATA / name).read_text(encoding="utf-8")) == LABELS[name]


# ------------------------------------------------------------------------------------------------ the engine
def _build(matrix, spec: str, platform: str, variant: str):
    return next(b for b in builds_for(matrix, spec, platform, include_cpu=False) if b.variant == variant)


def test_arch_verdict_is_the_engine_arch_constraint(matrix):
    cu121 = _build(matrix, "torch==2.1.0", "linux-x86_64", "cu121")
    ok, why = arch_verdict(matrix, cu121, "3.0")  # sm_50 ... sm_90: no Kepler
    assert ok is False and "sm_30" in why
    assert arch_verdict(matrix, cu121, "6.1")[0] is True  # sm_60 SASS runs on 6.1 (same major)
    # torch 2.6.0 cu126 (Linux): no arch list in the matrix. CUDA 12.6 can target a 6.1 GPU: unknown, not a guess ...
    cu126 = _build(matrix, "torch==2.6.0", "linux-x86_64", "cu126")
    assert not cu126.arch
    assert arch_verdict(matrix, cu126, "6.1")[0] is None
    # ... but no CUDA 12.6 build can have code for compute capability 12.0 (its newest target is 9.0): a "no"
    ok, why = arch_verdict(matrix, cu126, "12.0")
    assert ok is False and "CUDA 12.6" in why


def test_release_none_of_whose_builds_runs_the_gpu(matrix):
    r = release_arch(matrix, "torch", "2.1.0", "3.0")
    assert r is not None and r.certain
    assert {label for label, _ in r.no} == {"cu121 on Linux", "cu118 on Linux", "cu121 on Windows", "cu118 on Windows"}
    # an RTX 5090 (12.0) and "pytorch 2.6": cu118 / cu124 by their lists, cu126 by its toolkit's reach
    assert release_arch(matrix, "torch", "2.6", "12.0").certain


def test_release_some_of_whose_builds_run_the_gpu(matrix):
    r = release_arch(matrix, "torch", "2.7.1", "6.1", platforms=("linux-x86_64",))
    assert r is not None and not r.certain
    assert [label for label, _ in r.no] == ["cu128"]
    assert set(r.runs) == {"cu118", "cu126"} and not r.unknown
    # both platforms: the Windows builds' lists are not in the matrix and CUDA 12.x/11.8 can target 6.1: unknown
    both = release_arch(matrix, "torch", "2.7.1", "6.1")
    assert "cu128 on Windows" in both.unknown and "cu128 on Windows" not in both.runs


def test_release_the_matrix_does_not_know(matrix):
    assert release_arch(matrix, "torch", "9.9.9", "8.6") is None
    assert release_arch(matrix, "torch", "not-a-version", "8.6") is None


def test_certain_needs_the_gpu_wanted_or_failed(matrix):
    gpu = [("GeForce GTX 760", "3.0")]
    assert old_gpu_finding(matrix, gpu, releases=[("torch", "2.1.0")]) is None
    f = old_gpu_finding(matrix, gpu, releases=[("torch", "2.1.0")], wanted=True)
    assert f is not None and f.id == "gpu-arch-unsupported" and f.severity.value == "error"
    assert "whichever variant" in f.message and "cu118 on Windows" in f.message


def test_some_builds_run_it_needs_failure_and_names_them(matrix):
    gpu = [("GeForce GTX 1080", "6.1")]
    rel = [("torch", "2.7.1")]
    assert old_gpu_finding(matrix, gpu, releases=rel, wanted=True) is None  # wanted is not enough
    f = old_gpu_finding(matrix, gpu, releases=rel, failed=True, platforms=("linux-x86_64",))
    assert f is not None and f.severity.value == "warning"
    assert "Likely" in f.message and "cu128" in f.message
    assert "cu118" in f.fix and "cu126" in f.fix and "cu128" not in f.fix
    # every build runs it: nothing, with or without a failure
    assert old_gpu_finding(matrix, [("GeForce RTX 3090", "8.6")], releases=[("torch", "2.1.0")], failed=True) is None


def test_a_series_is_its_models_one_compute_capability(matrix):
    assert named_gpus(matrix, ["GTX 10 series"]) == [("GTX 10 series", "6.1")]


# ------------------------------------------------------------------------------------------------ the reader
@pytest.mark.parametrize("line,want", [
    ("pytorch 2.6", ["2.6"]),  # Felicity#6 (acceptance17)
    ("the pre-compiled PyTorch 2.7.1 binary pulled using the pip  command", ["2.7.1"]),  # Wan2GP#1933
    ("build the last version of pytorch (2.1) having compute capability 3.5 support?", ["2.1"]),
    ("I installed torch 2.1.0 with pip.", ["2.1.0"]),
    # a build with its tag (its CUDA is the build readers'), a pin, a wheel file name: none
    ("torch 2.11.0+cu128 only contains kernels for sm_75 and newer", []),
    ("pip install torch==2.7.1 torchvision==0.22.1", []),
    ("Using cached torch-2.1.0-cp311-cp311-manylinux1_x86_64.whl", []),
    ("torchvision 0.16.0", []),
])
def test_torch_release_named_without_tag(line, want):
    assert prose_gpu._releases(line) == want


@pytest.mark.parametrize("line,want", [
    ("Older RTX 10XX  and Pascal architecture GPUs are only capable of CUDA compute capability up to 6.1", ["GTX 10 series"]),
    ("RTX cards need CUDA 10", []),  # every RTX generation: no one compute capability
    ("Windows 10 series update", []),  # no graphics word
])
def test_series(line, want):
    assert prose_gpu._series(line) == want


@pytest.mark.parametrize("line", [
    "the pre-compiled PyTorch 2.7.1 binary ... does not contain sm_61, which is needed for the older RTX 10xx cards",
    "torch 2.8.0 doesn't include sm_120",
])
def test_a_build_said_to_lack_the_arch_is_a_failure(line):
    assert prose_gpu._FAILS.search(line)


# ------------------------------------------------------------------------------------------------ spent-set texts
def test_felicity_6_rtx_5090_pytorch_2_6_stays_arch():
    doc = _doc(ROOT / "heldout" / "acceptance17" / "pastes" / "felicity-6-rtx-5090-cuda-13.1.1-pytorch-2.6-no-kernel-image.txt")
    assert doc["matches"][0]["id"] == "gpu-arch-unsupported"


# ------------------------------------------------------------------------------------------------ controls
def test_control_a_supported_gpu_with_torch_2():
    # kohya_ss#1093: an RTX 3090 and "torch 2": the GPU is in every build, the crash is elsewhere
    assert _top((DATA / "kohya-ss-1093-control-rtx-3090-training-crash-torch-2-should-work.txt").read_text()) == "none"


def test_control_two_releases_named_decide_nothing(matrix):
    # Wan2GP#1933's first post names pytorch==2.0.1 (a pin) and its comment PyTorch 2.7.1: only 2.7.1 is a release said
    # in prose. Two different releases in sentences: which one is installed is not known - nothing from the release rule
    from envcheck.explain.rank import _prose_release

    assert _prose_release(None, {}, {"torch-release-prose": "2.1|2.1.0"}) == [("torch", "2.1")]
    assert _prose_release(None, {}, {"torch-release-prose": "2.1|2.7.1"}) == []
    assert _prose_release(None, {"frameworks": {"torch": {"version": "2.1.0+cu121"}}},
                          {"torch-release-prose": "2.6"}) == []


def test_a_failure_the_text_shows_ranks_above_the_release_verdict_said_from_intent():
    # tensorflow#44040 (acceptance10): libcudnn.so.7 not found on a GTX 960M (5.0) with TF 2.3.1, whose builds are
    # compiled for sm_35 sm_37 sm_52 sm_60 sm_61 compute_70 (no code for 5.0): both are said, the missing cuDNN first
    doc = _doc(ROOT / "heldout" / "acceptance10" / "pastes" / "tf-44040-typed-info-tf-2.3.1-cudnn-8.0.4-wants-cudnn7.txt")
    ids = [m["id"] for m in doc["matches"]]
    assert ids[0] == "cudnn-missing" and "gpu-arch-unsupported" in ids[1:]


# ------------------------------------------------------------------------------------------------ a build's CUDA said
def test_bytetrack_54_rtx_3090_and_a_torch_with_cuda_10_2():
    # ByteTrack#54 (acceptance14): "When I use RTX 3090" ... "will bring a torch with Cuda version 10.2": CUDA 10.2's
    # newest target is 7.5, so no CUDA 10.2 build has code for compute capability 8.6
    doc = _doc(ROOT / "heldout" / "acceptance14" / "pastes" / "bytetrack-54-rtx3090-requirements-bring-torch-cuda-10.2-prose.txt")
    assert doc["matches"][0]["id"] == "gpu-arch-unsupported"
    assert "10.2" in " ".join(doc["matches"][0]["machine"])


@pytest.mark.parametrize("line,want", [
    ("while 'pip3 install -r requirements.txt' will bring a torch with Cuda version 10.2.", "10.2"),  # ByteTrack#54
    ("my pytorch built with CUDA 10.2 fails", "10.2"),
    # negated, asked, someone else's: none
    ("I can't use torch with CUDA 10.2 on it", None),
    ("Does torch with CUDA 10.2 work on it?", None),
    ("My colleague's torch with CUDA 10.2 works", None),
])
def test_torch_cuda_said(line, want):
    from envcheck.paste.readers import prose_cause

    got = prose_cause._torch_cuda(line)
    assert (got.value.split(" | ")[0] if got else None) == want


def test_a_build_cuda_said_with_a_gpu_it_reaches_says_nothing(matrix):
    from envcheck.engine.prose_causes import arch_unsupported

    lines = {"gpu-prose": "RTX 3090", "torch-cuda-said": "11.3 | a torch with Cuda version 11.3"}
    assert arch_unsupported(matrix, {}, lines, False) is None
    lines["torch-cuda-said"] = "10.2 | a torch with Cuda version 10.2"
    assert arch_unsupported(matrix, {}, lines, False).id == "gpu-arch-unsupported"
    lines["gpu-prose"] = "RTX 3090|GTX 1080"  # two GPUs named: which one ran is not known
    assert arch_unsupported(matrix, {}, lines, False) is None


def test_control_a_supported_gpu_with_a_release_and_is_available_false():
    # pytorch/pytorch#16936: two GTX 1070 (6.1) and "pytorc 1.0" ... torch 1.0's CUDA 9.0 build has sm_60 SASS, which
    # runs on 6.1: the release rule says nothing (the cause is elsewhere)
    text = ("# torch.cuda.is_available() returns false\n\n"
            "educob · description · 2019-02-10\n"
            "Hi. After two days installing every nvidia driver possible, pytorch version (from package and compiling), "
            "cuda toolkit version, etc, torch.cuda.is_available() returns false\n\n"
            "I'd appreciate very much any help with this issue.\n\n"
            "I have 2 GTX 1070 GPUs. Linuxmint 18.3.\n"
            "My latest installation is pytorc 1.0, nvidia-410, cuda 10.0 but I have tried many combinations.\n\n"
            "Thanks.\n")
    doc = explain_text_document(text)
    assert "gpu-arch-unsupported" not in [m["id"] for m in doc.get("matches") or []]


def test_a_tagged_build_is_that_variant_only(matrix):
    r = release_arch(matrix, "torch", "2.1.0+cu118", "3.7")  # cu118 has sm_37 (Linux and Windows)
    assert r is not None and not r.no and set(r.runs) == {"cu118 on Linux", "cu118 on Windows"}
    assert release_arch(matrix, "torch", "2.1.0+cu121", "3.7").certain  # cu121 starts at sm_50
    # torch 2.11.0+cu128 on a GTX 10-series card (6.1): Linux has no sm_61; the Windows build's list is not in the
    # matrix and CUDA 12.8 can target 6.1 - unknown, so nothing is certain (WhisperJAV#326 is not reached)
    r = release_arch(matrix, "torch", "2.11.0+cu128", "6.1")
    assert [label for label, _ in r.no] == ["cu128 on Linux"] and r.unknown == ("cu128 on Windows",) and not r.certain


@pytest.mark.parametrize("line", [
    # WhisperJAV#326 (acceptance16): neither is the reporter's GPU
    "someone with a 1080 or 1060 should try it with the newest available drivers",
    "This is the same root cause as #333, where a Tesla V100 (sm_70) fails the same way.",
])
def test_another_ones_gpu_is_not_the_reporters(line):
    got = prose_gpu.read([line])
    assert not [f for f in got.facts if f.field == "gpu_prose"]


def test_the_reporters_gpu_still_is():
    got = prose_gpu.read(["When I use RTX 3090, the PyTorch installation will come to an error"])  # ByteTrack#54
    assert [f.value for f in got.facts if f.field == "gpu_prose"] == ["RTX 3090"]


@pytest.mark.parametrize("line,want", [
    ("When I use RTX 3090, the PyTorch installation will come to an error", "RTX 3090"),  # ByteTrack#54
    ("my GTX 1060 is not detected", "GTX 1060"),
    ("it crashes on a 1080 Ti", "GTX 1080 Ti"),
    ("I run on a Tesla K80", "Tesla K80"),
    ("My GPU is a GeForce GTX 760.", "GeForce GTX 760"),
])
def test_short_and_prose_gpu_names_are_read(line, want):
    assert [f.value for f in prose_gpu.read([line]).facts if f.field == "gpu_prose"] == [want]


def test_the_briefs_example_gtx_760_and_torch_2_1_0():
    # the lead's example for arch29: no CUDA build of torch 2.1.0 in compat_matrix/torch.toml has sm_30
    text = "My GPU is a GeForce GTX 760. I installed torch 2.1.0 with pip.\ntorch.cuda.is_available() returns False.\n"
    doc = explain_text_document(text)
    assert doc["matches"][0]["id"] == "gpu-arch-unsupported"
    said = " ".join(doc["matches"][0]["machine"])
    assert "whichever variant" in said and "cu118" in said and "cu121" in said
    # the same text with a GPU every build has (an RTX 3090, 8.6): nothing from the release rule
    doc = explain_text_document(text.replace("GeForce GTX 760", "GeForce RTX 3090"))
    assert "gpu-arch-unsupported" not in [m["id"] for m in doc.get("matches") or []]
