"""jetmem39 (issue 20): a Jetson's shared RAM running out during a TensorRT engine build, an INT8 calibration or an
inference (``gpu-out-of-memory``), read only where the text names the Jetson: TensorRT's "FAILED_ALLOCATION:
std::bad_alloc" / "Unexpected exception std::bad_alloc", C++'s uncaught std::bad_alloc beside an engine build, a
sentence saying the memory ran short, a crash beside the thread's way of using less memory.

Reader: envcheck/paste/readers/jetson_mem.py (evidence); rule: envcheck.engine.jetson_prose ``jetson_memory``. Real
samples: tests/data/jetmem39/pastes (README.md cites each thread) and acceptance27's two misses of the family;
heldout/jetmem39-held is the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.engine import jetson_prose
from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import jetson_mem
from helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "jetmem39" / "pastes"
LABELS = readme_labels(DATA)
SPENT = ROOT / "heldout" / "acceptance27" / "pastes"
MISSES = ["mmdeploy-641-jetson-nano-max-n-topk-1000-onnx2tensorrt-bad-alloc-total-activation-memory-check-ram.txt",
          "yolact-edge-88-jetson-xavier-nx-int8-calibration-segfault-not-enough-memory-3.3gb-use-fewer-calib-images.txt"]


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _seen(line: str) -> set:
    return {f.field for f in jetson_mem.line_facts(line, line.lower())}


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert list(LABELS.values()).count("none") >= 3  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if LABELS[name] == "none":
        assert "gpu-out-of-memory" not in ids, ids
    else:
        assert ids and ids[0] == LABELS[name], ids


@pytest.mark.parametrize("name", MISSES)
def test_acceptance27_misses_are_read(name):
    path = SPENT / name
    if not path.exists():
        pytest.skip("acceptance27 not in this checkout")
    ids = _ids(path.read_text(encoding="utf-8"))
    assert ids and ids[0] == "gpu-out-of-memory", ids


@pytest.mark.parametrize("line, field", [
    ("[06/24/2022-16:29:37] [TRT] [E] 1: Unexpected exception std::bad_alloc", "seen:trt-alloc-failed"),
    ("ERROR: FAILED_ALLOCATION: std::bad_alloc", "seen:trt-alloc-failed"),
    ("I think the error `[TensorRT] ERROR: FAILED_ALLOCATION: std::bad_alloc` simply means TensorRT failed to allocate "
     "memory.", "seen:trt-alloc-failed"),
    ("terminate called after throwing an instance of 'std::bad_alloc'", "seen:bad-alloc-thrown"),
    ("Building the TensorRT Engine...", "seen:engine-build-shown"),
    ("Building an engine.  This would take a while...", "seen:engine-build-shown"),
    ("I think there is not enough memory on the device to complete the image calibration step for the int8 trt "
     "inference.", "seen:jetson-memory-said"),
    ("Unable to create engine on jetson nano as it results to out of memory issue.", "seen:jetson-memory-said"),
    ("Yes.  This is very likely due to lack of memory.", "seen:jetson-memory-said"),
    ("@yutao007 @jch-wang 是的就是内存问题", "seen:jetson-memory-said"),
    ("It systematically crashes on my end (segmentation fault).", "seen:crash-shown"),
    ("For image calibration, you can use a smaller set of calib-image: `cfg. torch2trt_max_calibration_images = 5`.",
     "seen:memory-fix-said"),
    ("One more thing you could probably try is to reduce GPU workspace size, say from 1GB to 256MB.",
     "seen:memory-fix-said"),
    ("If that still doesn't work, adding a swap might likely help.", "seen:memory-fix-said"),
])
def test_reader_evidence(line, field):
    assert field in _seen(line)


@pytest.mark.parametrize("line", [
    # real lines whose words are near the family's but say no memory ran short
    "Meanwhile , monitoring the memory doesn't show any signs of approaching the limit ( no signs of considerable "
    "occupation of the memery , conversion just interupts) .",
    "I think its failing due to lack of memory? I've tried it with swapfile size 6GB and 8GB, still not working",
    "check `ptr` `boxes` `scores` memory address",
    "Besides, please check RAM size through `nvidia-smi` and make sure it is big enough.",
    "read ./yolo/engine/cuofen_fp16.engine error!",
])
def test_reader_silent(line):
    assert not _seen(line) & {"seen:jetson-memory-said", "seen:trt-alloc-failed", "seen:engine-build-shown"}


def test_absurd_size_failed_allocation_is_not_read():
    # NVIDIA/TensorRT#398 (a desktop): std::exception with a size past 2**64 - a size bug, not memory running out
    assert "seen:trt-alloc-failed" not in _seen("[2020-02-28 05:23:22   ERROR] FAILED_ALLOCATION: std::exception")


def test_rule_needs_the_jetson():
    line = "[06/24/2022-16:29:37] [TRT] [E] 1: Unexpected exception std::bad_alloc"
    assert jetson_prose.jetson_memory({"trt-alloc-failed": line}) is None
    f = jetson_prose.jetson_memory({"trt-alloc-failed": line, "jetson-named": "# pytorch2onnx error on Jetson nano"})
    assert f is not None and f.id == "gpu-out-of-memory"


def test_bad_alloc_alone_needs_an_engine_build():
    thrown = "terminate called after throwing an instance of 'std::bad_alloc'"
    named = "我将程序部署在了jetson nx上运行时报这个错误"
    assert jetson_prose.jetson_memory({"bad-alloc-thrown": thrown, "jetson-named": named}) is None
    assert jetson_prose.jetson_memory({"bad-alloc-thrown": thrown, "jetson-named": named,
                                       "engine-build-shown": "Building the TensorRT Engine..."}) is not None


def test_crash_needs_a_way_of_using_less_memory():
    named, crash = "# running this on Jetson xavier NX", "Segmentation fault (core dumped)"
    assert jetson_prose.jetson_memory({"crash-shown": crash, "jetson-named": named}) is None
    assert jetson_prose.jetson_memory({"crash-shown": crash, "jetson-named": named, "memory-fix-said":
                                       "One more thing you could probably try is to reduce GPU workspace size, say from 1GB to 256MB."}) is not None


def test_desktop_bad_alloc_is_silent():
    # the TensorRT builder's line alone, no Jetson named: the host's RAM or a bug
    text = "[06/24/2022-16:29:37] [TRT] [E] 1: Unexpected exception std::bad_alloc\n"
    assert "gpu-out-of-memory" not in _ids(text)


def test_compiler_memory_on_a_jetson_is_not_read():
    # attack47's dso8 thread: cc1plus killed on a Jetson, "not enough memory" fixed by "make -j4" - the compiler's RAM
    named = "For me (on ARM / Nvidia Jetson) I changed \"make -j\" to \"make -j4\" and it built successfully"
    said = "I've fixed this, it is a problem of not enough memory."
    assert "seen:compile-shown" in _seen("# c++: internal compiler error: Killed (program cc1plus)")
    assert "seen:compile-shown" in _seen(named)
    assert jetson_prose.jetson_memory({"jetson-named": named, "jetson-memory-said": said,
                                       "compile-shown": named}) is None
