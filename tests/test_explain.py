"""`envcheck explain` as a library: the knowledge base, real logs, ranking, context, machine-aware fixes."""

import io
import os
import sys
import time

import pytest

from envcheck.explain import Match, build_explain_report, cudnn_version, explain_lines, explain_text
from envcheck.explain.kb import load_kb, validate_kb
from envcheck.explain.reader import MAX_LINE, iter_lines
from envcheck.matrix import bundled_dir, load_matrix

sys.path.insert(0, os.path.dirname(__file__))
from helpers import CONTRACT_IDS, gpu_machine, make_snapshot, readme_rows, torch_install  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LOGS = os.path.join(os.path.dirname(__file__), "data", "logs")


def _errors_toml():
    with open(os.path.join(bundled_dir(), "errors.toml"), "rb") as fh:
        return tomllib.load(fh)


def _labels():
    return [r[:3] for r in readme_rows(LOGS, ".log", source=r"https://\S+", label="[a-z-]+", remark=r" [^|]*?")]


# --------------------------------------------------------------------------- knowledge base
def test_errors_toml_schema_is_valid():
    data = _errors_toml()
    assert validate_kb(data) == []
    ids = {c["id"] for c in data["cause"]}
    assert ids <= CONTRACT_IDS  # only contract ids (new ones only when none fits: none needed so far)
    must = {"cudnn-version-mismatch", "cudnn-missing", "cuda-runtime-missing", "no-gpu-driver",
            "driver-library-mismatch", "driver-too-old", "no-gpu-visible", "gpu-arch-unsupported", "cudnn-bad-param",
            "cudnn-not-initialized", "cudnn-no-algorithm", "cudnn-execution-failed", "gpu-out-of-memory",
            "cublas-error", "forward-compat-unsupported", "framework-cpu-only", "known-bad-combination"}
    assert must <= ids
    for c in data["cause"]:
        assert c["fix"] and c["dead_end"], c["id"]


@pytest.mark.parametrize("mutate, expect", [
    (lambda d: d["cause"][0]["signature"][0].update(regex="(unclosed"), "bad regex"),
    (lambda d: d["cause"][0]["signature"][0].update(regex="(a+)+b"), "nested quantifier"),
    (lambda d: d["cause"][0]["signature"][0].update(literal="Upper"), "lower case"),
    (lambda d: d["cause"][0]["fix"][0].update(source="not a url"), "https"),
    (lambda d: d["cause"][0].pop("source"), "no source"),
    (lambda d: d["cause"][0].update(downstream="no-such-cause"), "not a cause id"),
    (lambda d: d["library"][0].update(cause="nope"), "not a cause id"),
    (lambda d: d["cause"][1].update(id=d["cause"][0]["id"]), "unique"),
])
def test_schema_validation_catches_broken_entries(mutate, expect):
    data = _errors_toml()
    mutate(data)
    problems = validate_kb(data)
    assert any(expect in p for p in problems), problems


def test_kb_loads_through_the_matrix():
    assert load_matrix().table("errors").get("cause")
    kb = load_kb()
    assert len(kb.signatures) >= 40
    assert kb.route_library("libcublas.so.11") == "cuda-runtime-missing"
    assert kb.route_library("/usr/lib/libcudnn_ops_infer.so.8") == "cudnn-missing"
    assert kb.route_library("libcuda.so.1") == "no-gpu-driver"
    assert kb.route_library("libnvinfer.so.7") is None  # TensorRT's dlopen warning is not a failure


# --------------------------------------------------------------------------- real logs
LABELS = _labels()


def test_there_are_enough_real_logs_and_each_is_listed():
    files = sorted(f for f in os.listdir(LOGS) if f.endswith(".log"))
    assert len(LABELS) >= 40
    assert sorted(r[0] for r in LABELS) == files
    assert {r[1] for r in LABELS} <= CONTRACT_IDS


def _dev_labels():
    """(folder, file, label) of the later dev corpora (tests/data/logs/new, new2), whose tables also list
    healthy controls (label none)."""
    rows = []
    for sub in ("new", "new2"):
        folder = os.path.join(LOGS, sub)
        rows += [(folder, r[0], r[1]) for r in
                 readme_rows(folder, ".log", source=r"https://\S+", label="[a-z-]+", remark=r" [^|]*?")]
    return rows


DEV_LABELS = _dev_labels()


def test_dev_corpora_are_listed_and_labelled():
    for sub in ("new", "new2"):
        folder = os.path.join(LOGS, sub)
        files = sorted(f for f in os.listdir(folder) if f.endswith(".log"))
        assert sorted(r[1] for r in DEV_LABELS if r[0] == folder) == files
    assert {r[2] for r in DEV_LABELS} <= CONTRACT_IDS | {"none"}
    assert sum(1 for r in DEV_LABELS if r[2] == "none") >= 9


@pytest.mark.parametrize("folder,name,label", DEV_LABELS, ids=[os.path.basename(r[0]) + "/" + r[1] for r in DEV_LABELS])
def test_dev_log_top_match_is_the_root_cause(folder, name, label):
    path = os.path.join(folder, name)
    with open(path, "rb") as fh:
        matches = explain_lines(iter_lines(fh))
    if label == "none":
        assert matches == [], [(m.id, m.evidence) for m in matches]
        return
    assert matches, name
    assert matches[0].id == label, [(m.id, m.score) for m in matches]
    assert matches[0].fixes and matches[0].title
    assert matches[0].evidence.rstrip("…") in open(path, encoding="utf-8", errors="replace").read()


@pytest.mark.parametrize("name,label,url", LABELS, ids=[r[0] for r in LABELS])
def test_real_log_top_match_is_the_root_cause(name, label, url):
    with open(os.path.join(LOGS, name), "rb") as fh:
        matches = explain_lines(iter_lines(fh))
    assert matches, name
    assert matches[0].id == label, [(m.id, m.score) for m in matches]
    top = matches[0]
    assert top.fixes and top.dead_ends and top.title
    assert top.evidence.rstrip("…") in open(os.path.join(LOGS, name), encoding="utf-8", errors="replace").read()


def test_captures_carry_the_versions():
    with open(os.path.join(LOGS, "tf-cudnn-8.7-vs-8.9.4-kohya.log"), "rb") as fh:
        m = explain_lines(iter_lines(fh))[0]
    assert m.captures["loaded"] == "8.7.0" and m.captures["compiled"] == "8.9.4"
    with open(os.path.join(LOGS, "torch-sm120-rtx5090-applio.log"), "rb") as fh:
        m = explain_lines(iter_lines(fh))[0]
    assert m.captures["sm"] == "120" and "sm_90" in m.captures["arch_list"]
    with open(os.path.join(LOGS, "nvml-mismatch-taskcluster-550.log"), "rb") as fh:
        m = explain_lines(iter_lines(fh))[0]
    assert m.captures["nvml_version"] == "550.144"


@pytest.mark.parametrize("text,want", [("(8, 9, 2)", "8.9.2"), ("7004", "7.0.4"), ("7201", "7.2.1"),
                                       ("90100", "9.1.0"), ("9.3.0.", "9.3.0"), ("x", None)])
def test_cudnn_version_forms(text, want):
    assert cudnn_version(text) == want


# --------------------------------------------------------------------------- context and ranking
def test_oom_before_not_initialized_ranks_oom_first():
    # tensorflow/tensorflow#44047: the allocator's OOM, then cuDNN fails
    oom = open(os.path.join(LOGS, "tf-oom-then-cudnn-invalid-state.log"), encoding="utf-8").read()
    init = open(os.path.join(LOGS, "tf-failed-conv-algorithm-cudnn-init.log"), encoding="utf-8").read()
    ms = explain_text(oom + init)
    assert [m.id for m in ms][:2] == ["gpu-out-of-memory", "cudnn-not-initialized"]
    assert ms[1].explained_by == "gpu-out-of-memory"
    # without the OOM line, the same failure stands alone
    alone = explain_text(init)
    assert alone[0].id == "cudnn-not-initialized" and alone[0].explained_by is None


def test_oom_far_above_does_not_explain():
    oom = open(os.path.join(LOGS, "tf-oom-then-cudnn-invalid-state.log"), encoding="utf-8").read()
    init = open(os.path.join(LOGS, "tf-failed-conv-algorithm-cudnn-init.log"), encoding="utf-8").read()
    ms = explain_text(oom + "filler\n" * 200 + init)
    init_m = next(m for m in ms if m.id == "cudnn-not-initialized")
    assert init_m.explained_by is None


def test_allocator_warning_is_context_only():
    # Accenture/AIR#4: TF's "ran out of memory trying to allocate" warning, then a cuBLAS handle failure
    warn = ("2022-03-03 14:59:00.303723: W tensorflow/core/common_runtime/bfc_allocator.cc:239] Allocator (GPU_0_bfc) "
            "ran out of memory trying to allocate 3.34GiB with freed_by_count=0. The caller indicates that this is "
            "not a failure, but may mean that there could be performance gains if more memory were available.\n")
    assert explain_text(warn) == []
    cublas = "failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED\n"  # tensorflow/tensorflow#9489
    ms = explain_text(warn + cublas)
    assert ms[0].id == "gpu-out-of-memory" and ms[1].id == "cublas-error"


def test_missing_cuda_library_behind_cudnn_load_is_cuda_runtime_missing():
    for name in ("torch-cudnn-cnn-infer8-libnvrtc-missing.log", "darknet-cudnn-ops-infer8-libcublas11-missing.log"):
        ids = [m.id for m in explain_text(open(os.path.join(LOGS, name), encoding="utf-8").read())]
        assert ids[0] == "cuda-runtime-missing" and "cudnn-missing" not in ids


def test_several_errors_ranked_root_cause_first_and_deduplicated():
    parts = ["jax-cudnn-850-vs-860-dnn-init-failed.log", "torch-driver-too-old-11040-fooocus.log",
             "jaxlib-conda-cudnn-9.10.1-vs-9.13.1.log"]
    text = "".join(open(os.path.join(LOGS, p), encoding="utf-8").read() for p in parts)
    ms = explain_text(text)
    ids = [m.id for m in ms]
    assert ids == ["driver-too-old", "cudnn-version-mismatch", "cudnn-not-initialized"]
    mismatch = ms[1]
    assert mismatch.count == 4  # one line in the first log, three repeats in the third: one match
    assert mismatch.line_no == 1  # the first occurrence is the evidence


def test_tensorrt_dlopen_warning_is_not_a_failure():
    # TensorFlow prints this on every machine without TensorRT (tensorflow/tensorflow#60854 shows the format)
    line = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
            "'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory\n")
    assert explain_text(line) == []


# --------------------------------------------------------------------------- hostile input
def test_adversarial_ten_megabyte_line_is_fast():
    evil = ("Could not load library " + "a" * 50 + " Error: " + "/x" * 10 + "CUDNN_STATUS_BAD_PARAM batch norm "
            + "Loaded runtime CuDNN library: 9" + "." * 40) * 1
    blob = (evil * (10_000_000 // len(evil) + 1))[:10_000_000]
    data = (blob + "\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n").encode()
    t0 = time.perf_counter()
    ms = explain_lines(iter_lines(io.BytesIO(data)))
    took = time.perf_counter() - t0
    assert took < 2.0, took  # the one timing bound: a loaded 2-core machine does this in well under 1 s
    assert "gpu-out-of-memory" in [m.id for m in ms]
    assert all(len(m.evidence) <= 500 for m in ms)


def test_long_line_keeps_head_and_tail_in_bounded_memory():
    data = b"x" * (5 * MAX_LINE) + b"CUDA out of memory. Tried to allocate 20.00 MiB\nnext\n"
    lines = list(iter_lines(io.BytesIO(data)))
    assert len(lines) == 2 and len(lines[0]) <= MAX_LINE + 3
    assert explain_lines(lines)[0].id == "gpu-out-of-memory"


def test_binary_garbage_and_odd_encodings_do_not_crash():
    import random

    rnd = random.Random(5)
    garbage = bytes(rnd.randrange(256) for _ in range(200_000))
    explain_lines(iter_lines(io.BytesIO(garbage)))
    utf16 = "AssertionError: Torch not compiled with CUDA enabled\r\n".encode("utf-16")
    assert explain_lines(iter_lines(io.BytesIO(utf16)))[0].id == "framework-cpu-only"
    # a progress bar ending in \r before the error (OpenTalker/SadTalker#323)
    bar = b"landmark Det::   0%|    | 0/1 [00:00<?, ?it/s]\rCould not load library libcudnn_cnn_infer.so.8. " \
          b"Error: libcuda.so: cannot open shared object file: No such file or directory\n"
    assert explain_lines(iter_lines(io.BytesIO(bar)))[0].id == "no-gpu-driver"


def test_streaming_consumes_a_generator_once():
    def gen():
        for i in range(200_000):
            yield f"epoch {i} loss 0.1"
        yield "RuntimeError: CUDA error: no kernel image is available for execution on the device"

    ms = explain_lines(gen())
    assert ms[0].id == "gpu-arch-unsupported" and ms[0].line_no == 200_001


# --------------------------------------------------------------------------- report
def test_report_json_shape():
    ms = explain_text(open(os.path.join(LOGS, "torch-cudnn-850-vs-833-cogat.log"), encoding="utf-8").read())
    rep = build_explain_report(ms, None)
    assert rep["schema"] == "envcheck/explain/1"
    m = rep["matches"][0]
    for k in ("id", "title", "evidence", "fixes", "dead_ends", "line_no", "captures", "score", "source"):
        assert k in m
    assert isinstance(m["fixes"], list) and all(isinstance(x, str) for x in m["fixes"])
    assert build_explain_report([], None)["matches"] == []
    assert isinstance(ms[0], Match) and ms[0].to_dict()["id"] == "cudnn-version-mismatch"


# --------------------------------------------------------------------------- machine-aware fixes
def _env(tmp_path, files):
    from envcheck.environment import collect
    from envcheck.snapshot import open_snapshot

    root = make_snapshot(str(tmp_path / "snap"), files)
    return collect(open_snapshot(root), load_matrix())


def test_snapshot_names_the_exact_cudnn_wheel(tmp_path):
    files = gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install("2.4.1+cu121", "12.1", requires=["nvidia-cudnn-cu12==9.1.0.70"],
                               packages={"nvidia-cudnn-cu12": "8.9.2.26"}))
    env = _env(tmp_path, files)
    # PyTorch's wording (torch/backends/cudnn/__init__.py, quoted in pytorch/pytorch#81881) with this scenario's
    # versions: the wheel pins 9.1.0.70 but an 8.9 cuDNN is found
    log = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found runtime "
           "version (8, 9, 2). PyTorch already comes bundled with cuDNN.\n")
    ms = explain_text(log, env=env, matrix=load_matrix())
    assert ms[0].id == "cudnn-version-mismatch"
    assert ms[0].fixes[0].startswith("pip install 'nvidia-cudnn-cu12==9.1.0.70'")
    assert ms[0].machine
    # from the text alone: a generic (but still concrete) command, no machine facts
    plain = explain_text(log)
    assert plain[0].fixes[0] != ms[0].fixes[0] and not plain[0].machine


def test_snapshot_names_the_driver_to_upgrade_to(tmp_path):
    files = gpu_machine("470.82.01", "11.4", [("NVIDIA GeForce RTX 3090", 24576)], cc=["8.6"])
    files.update(torch_install("2.4.1+cu121", "12.1"))
    env = _env(tmp_path, files)
    log = open(os.path.join(LOGS, "torch-driver-too-old-11040-fooocus.log"), encoding="utf-8").read()
    m = explain_text(log, env=env, matrix=load_matrix())[0]
    floor = str(load_matrix().minor_compat_floor(12))
    assert m.id == "driver-too-old"
    assert f"from 470.82.01 to >= {floor}" in m.fixes[0]


def test_bad_param_with_healthy_stack_points_at_the_program(tmp_path):
    env = _env(tmp_path, gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]))
    log = open(os.path.join(LOGS, "torch-batchnorm1d-bad-param-3d-input.log"), encoding="utf-8").read()
    m = explain_text(log, env=env, matrix=load_matrix())[0]
    assert m.id == "cudnn-bad-param"
    assert "looks healthy" in m.fixes[0] and "epsilon" in m.fixes[0]


def test_arch_fix_names_a_build_with_the_gpu(tmp_path):
    log = open(os.path.join(LOGS, "torch-sm120-rtx5090-applio.log"), encoding="utf-8").read()
    m = explain_text(log, env=None, matrix=load_matrix())[0]
    assert m.id == "gpu-arch-unsupported"
    cmd = m.fixes[0]
    assert cmd.startswith("pip install torch==") and "--index-url https://download.pytorch.org/whl/cu" in cmd
    rel = cmd.split("==")[1].split()[0]
    variant = cmd.split("/whl/")[1].split()[0]
    row = load_matrix().torch_variant(rel, variant)
    assert "12.0" in (row.get("compute_capabilities") or []) + (row.get("ptx") or [])
