"""Pastes that state the facts deciding their cause but got silence (issue 20, round infer24). The paste misses of the
spent sets were listed (heldout/rounds/infer24-misses.txt) and split by a seeded shuffle before any fix
(heldout/rounds/infer24-misses-split.txt, seed 24: 111 working, 74 held back); the working ones are classed in
heldout/rounds/infer24-misses-classes.md. What the working part led to, each a general
reader or an engine rule on facts, never a wording of one thread:

* a CUDA version a first-person sentence states ("the version of my cuda is 10.1") is the claim the engine's claim rules
  judge (``engine.claims``), as the TensorFlow template's field is: onnxruntime-gpu 1.9.0 (CUDA 11.x) beside it is
  ``cuda-runtime-missing`` (insightface#1824);
* a first-person TensorFlow version and a native-Windows sentence are read (``paste/readers/prose_facts.py``), and
  ``engine.prose_causes.tf_windows_cpu`` says ``framework-cpu-only`` for a TF series whose matrix row has no
  native-Windows GPU build (tensorflow#60269: "My system is Windows 11. My tensorflow version is 2.12.0");
* Ultralytics' system-information block (``yolo checks``, its issue template's Environment) is read
  (``paste/readers/ultralytics_info.py``): ``CUDA  None`` is ``torch.cuda.is_available()`` False, the requirement rows
  the installed distributions (ultralytics#6071: torch 2.1.0 on Windows with CUDA None);
* another author's example output ("The expected output for the nightly binaries + CUDA 11.8 would be:") is no
  machine's environment (pytorch#95121: a maintainer's +cu118 example was read as the reporter's torch).
"""

from __future__ import annotations

from pathlib import Path

from envcheck.engine.prose_causes import tf_windows_cpu
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import prose_facts, ultralytics_info
from envcheck.paste.readers.base import view
from envcheck.paste.thread import ThreadWatch
from tests.helpers import check_hand_written_facts, paste_top

ROOT = Path(__file__).resolve().parent.parent


def _doc(rel: str) -> dict:
    return explain_text_document((ROOT / rel).read_text(encoding="utf-8"))


def _facts(line: str) -> dict:
    return {f.field: f.value for f in prose_facts.line_facts(line, line.lower())}


# -- a first-person CUDA claim reaches the claim rules -------------------------------------------------------------

def test_insightface_1824_ort_gpu_1_9_beside_my_cuda_10_1():
    doc = _doc("heldout/pastes21c/insightface-1824-onnxruntime-gpu-1.9.0-cuda-10.1-falls-back-to-cpu.txt")
    assert paste_top(doc) == "cuda-runtime-missing"
    assert doc["facts"]["claims"]["cuda"] == "10.1"
    assert doc["facts"]["frameworks"]["onnxruntime"]["package"] == "onnxruntime-gpu"
    assert "10.1" in doc["matches"][0]["evidence"]


def test_prose_cuda_claim_is_seen_only_where_it_is_the_reporters():
    got = _facts("U R right, the version of my cuda is 10.1, I degrade onnxrutime-gpu")
    assert got.get("claim.cuda") == "10.1" and got.get("seen:cuda-claim") == "10.1"
    for line in ("Please try CUDA 10.1 instead", "It requires cuda 10.1", "I tried cuda 10.1 and 10.2"):
        assert "seen:cuda-claim" not in _facts(line), line


# -- TensorFlow on native Windows, said in sentences -----------------------------------------------------------------

def test_tf_60269_tensorflow_2_12_on_windows_11_is_the_cpu_build():
    doc = _doc("heldout/pastes20/tf-60269-prose-2.12-windows11-device-lib-cpu-only.txt")
    assert paste_top(doc) == "framework-cpu-only"
    assert doc["facts"]["frameworks"]["tensorflow"]["version"] == "2.12.0"
    assert "2.10" in doc["matches"][0]["fixes"][0]  # the last native-Windows GPU series, from the matrix


def test_prose_tensorflow_version_first_person_only_and_not_one_of_two():
    assert _facts("My tensorflow version is 2.12.0.").get("tf.version") == "2.12.0"
    assert _facts("I have tensorflow-gpu 2.4.1 installed").get("tf.version") == "2.4.1"
    # tests/data/pastes/pastes20t/chrombpnet-49: the release a sentence is about, no first person
    assert "tf.version" not in _facts("When starting using TensorFlow 2.4 there is a dependency on libcusolver.so.10")
    # heldout/pastes21c/deepface-1163 (a control): two environments
    assert "tf.version" not in _facts("I am using 2 conda envs (with tensorflow-gpu 2.10.1/tensorflow 2.11.0) to test")


def test_prose_windows_is_native_windows_only():
    assert _facts("My system is Windows 11.").get("platform_path") == "win32"
    assert _facts("I'm on Windows 10 and it fails").get("platform_path") == "win32"
    assert "prose" not in _facts("My system is Windows 11.")  # the OS alone makes no report
    for line in ("I'm on Windows 11 with WSL2 Ubuntu", "My system is Windows 11 but I run it in docker",
                 "My friend said he is using Windows 10", "I am not using Windows 10"):
        assert "platform_path" not in _facts(line), line


def test_tf_windows_cpu_decides_from_the_matrix_row():
    m = load_matrix()
    wanted = {"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 2060"}]}
    lines = {"os": "Windows", "tensorflow-prose": "2.12.0"}

    def facts(version: str) -> dict:
        return {**wanted, "frameworks": {"tensorflow": {"version": version}}}

    got = tf_windows_cpu(m, facts("2.12.0"), lines)
    assert got is not None and got.id == "framework-cpu-only" and "2.12.0" in got.message
    assert tf_windows_cpu(m, facts("2.10.1"), {**lines, "tensorflow-prose": "2.10.1"}) is None  # the last series with
    # a native-Windows GPU build
    assert tf_windows_cpu(m, facts("2.12.0"), {"os": "Windows"}) is None  # a report's version: the report's checks
    assert tf_windows_cpu(m, facts("2.12.0"), {}) is None  # the OS not said
    assert tf_windows_cpu(m, facts("2.12.0"), {**lines, "python-platform": "linux"}) is None
    assert tf_windows_cpu(m, {"frameworks": {"tensorflow": {"version": "2.12.0"}}}, lines) is None  # no GPU wanted
    assert tf_windows_cpu(m, facts("9.99.0"), {**lines, "tensorflow-prose": "9.99.0"}) is None  # unknown series


# -- Ultralytics' system information ---------------------------------------------------------------------------------

def test_ultralytics_6071_environment_block_cuda_none_torch_2_1_0_on_windows():
    doc = _doc("heldout/pastes21a/ultralytics-6071-environment-cuda-none-torch-2.1.0-gpu-mem-0g.txt")
    assert paste_top(doc) == "framework-cpu-only"
    check_hand_written_facts({"python": {"version": "3.11.0"}, "frameworks": {"torch": {"version": "2.1.0"}}},
                             doc["facts"])


def test_ultralytics_info_reader_rows():
    text = (ROOT / "tests/data/pastes/pastes20d/sunone-36-yolo-checks-windows-gtx1650-super-torch-2.1.1-cu121.txt"
            ).read_text(encoding="utf-8").splitlines()
    i = next(k for k, ln in enumerate(text) if ln.startswith("OS "))
    n = ultralytics_info.detect(view(text, i))
    assert n >= 15
    facts = ultralytics_info.read(text[i:i + n]).facts
    got = {(f.field, f.value) for f in facts}
    assert ("platform", "win32") in got and ("python", "3.11.6") in got and ("torch.cuda", "12.1") in got
    assert ("package", ("torch", "2.1.1+cu121", None)) in got
    assert not any(f.field == "package" and f.value[0] == "matplotlib" for f in facts)  # no stack package


def test_ultralytics_info_gpu_row_and_jetson_cuda():
    block = ["OS                  Linux-5.10.192-tegra-aarch64-with-glibc2.29", "Environment         Linux",
             "Python              3.8.10", "Install             pip", "GPU                 Xavier, 14886MiB",
             "GPU count           1", "CUDA                11.4", "", "torch               ✅ 2.1.0a0+41361538.nv23.6>=1.8.0"]
    n = ultralytics_info.detect(view(block, 0))
    assert n == len(block)
    got = {(f.field, f.value) for f in ultralytics_info.read(block).facts}
    assert ("gpu", (0, "Xavier", None, 14886)) in got and ("torch.cuda", "11.4") in got
    assert ("gpu_works", "torch") in got and ("gpu_fails", "torch") not in got
    assert ultralytics_info.detect(view(["OS                  Windows-10", "Python   3.8"], 0)) == 0  # no Environment row


def test_ultralytics_control_cpu_machine_stays_silent():
    doc = _doc("heldout/pastes21a/ultralytics-14776-control-checks-windows-cpu-only-torch-2.4.0-cpu-predict-boxes.txt")
    assert paste_top(doc) == "none"


# -- another author's example output -------------------------------------------------------------------------------

def test_pytorch_95121_maintainers_expected_output_is_no_machines():
    doc = _doc("tests/data/pastes/pastes20s/pytorch-95121-rtx3070-laptop-cuda-12-driver-cpu-only-binaries.txt")
    assert "torch" not in ((doc.get("facts") or {}).get("frameworks") or {})


def test_thread_example_output_is_foreign_for_another_author_only():
    t = ThreadWatch()
    seq = ["alice · comment · 2023-02-20", "The output should be:", "2.0.1+cu118",
           "bob · comment · 2023-02-22", "The expected output for the nightly binaries + CUDA 11.8 would be:",
           "'2.0.0.dev20230218+cu118'", "alice · comment · 2023-02-23", "torch 2.0.1"]
    assert [t.foreign(s) for s in seq] == [False, False, False, False, True, True, False, False]


# -- the TensorFlow template's version field answered with its command's output ------------------------------------

def test_tf_template_git_version_pair_gives_the_release():
    for rel, want in (("heldout/pastes20t/tf-13365-bold-template-tf-1.3.0-cudnn-5.1-looks-for-libcudnn-6.txt", "1.3.0"),
                      ("heldout/pastes20e-b/tf-31216-template-source-build-1.12-claim-cuda-10-rtx2060-control.txt",
                       "1.12.0")):
        assert _doc(rel)["facts"]["frameworks"]["tensorflow"]["version"] == want, rel


def test_tf_git_version_pair_forms():
    from envcheck.paste.readers.fields import tf_field

    def version(val: str):
        got = {f.field: f.value for f in tf_field("TensorFlow version (use command below)", val) or []}
        return got.get("tf.version")

    assert version("('v1.3.0-rc2-20-g0787eee', '1.3.0')") == "1.3.0"
    assert version("v1.12.0-0-ga6d8ffae09 1.12.0") == "1.12.0"
    assert version("('unknown', '1.3.0')") == "1.3.0"
    assert version("2.4.0") == "2.4.0"
    assert version("1.15, 2.0") is None  # two releases: neither
