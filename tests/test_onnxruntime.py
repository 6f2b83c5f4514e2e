"""ONNX Runtime (session 12): compat_matrix/onnxruntime.toml's rows (typed by hand from ORT's CUDA Execution Provider
requirements table and three wheels' METADATA), status judging onnxruntime / onnxruntime-gpu read from package metadata,
fix planning onnxruntime-gpu, and ORT issue texts through explain.

Sources of the expected values (read, not copied from the code): https://onnxruntime.ai/docs/execution-providers/
CUDA-ExecutionProvider.html#requirements ("1.19.x | 12.x | 9.x | Avaiable in PyPI", "1.19.x | 11.8 | 8.x | Not available
in PyPI", "1.18.1 | 12.x | 9.x", "1.18.x | 11.8 | 8.x | Available in PyPI", "1.5-1.6 | 10.2 | 8.0.3"); the METADATA of
onnxruntime_gpu-1.31.1 ('nvidia-cuda-runtime~=13.0; extra == "cuda"', 'nvidia-cudnn-cu13~=9.0; extra == "cudnn"') and
1.25.1 / 1.23.2 (the -cu12 wheels), and session 13's reads of 1.21.1-1.26.0 / 1.30.0 (onnxruntime.toml); NVIDIA's CUDA 10.2 driver floor 440.33 and CUDA 12.x minor-version floor 525.60.13.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.engine.onnxruntime import cpu_shadows_gpu, libraries_answer, ort_builds, ort_needs
from envcheck.matrix import load_matrix, validate_tables
from helpers import gpu_machine, status_of_files

M = load_matrix()
A100 = [("NVIDIA A100-SXM4-80GB", 81920)]


def _needs(v):
    return [(n.feed, n.cuda, n.cuda_major, n.cudnn_major) for n in ort_needs(M, v)]


def test_the_table_validates_and_every_row_cites_a_source():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]

    with open(os.path.join(os.path.dirname(__file__), "..", "compat_matrix", "onnxruntime.toml"), "rb") as fh:
        data = tomllib.load(fh)
    assert validate_tables("onnxruntime", data) == []
    rows = data["release"]
    assert rows and all(r["source"].startswith(("https://onnxruntime.ai/", "https://pypi.org/project/onnxruntime-gpu/",
                                                "microsoft/onnxruntime@")) for r in rows)
    bad = dict(data, release=[dict(rows[0], feed="nightly")])
    assert validate_tables("onnxruntime", bad)  # a feed the table does not name is refused


@pytest.mark.parametrize("version, want", [
    ("1.19.2", [("pypi", "12", 12, 9), ("cuda-11", "11.8", 11, 8)]),   # PyPI's default became CUDA 12 at 1.19
    ("1.18.1", [("pypi", "11.8", 11, 8), ("cuda-12", "12", 12, 9)]),   # 1.18.1's CUDA 12 build needs cuDNN 9
    ("1.18.0", [("pypi", "11.8", 11, 8), ("cuda-12", "12", 12, 8)]),   # an exact row wins over the line's
    ("1.6.0", [("pypi", "10.2", 10, 8)]),
    ("1.31.1", [("pypi", "13", 13, 9)]),
    ("1.23.2+local", [("pypi", "12", 12, 9)]),
    # session 13's METADATA reads (compat_matrix/onnxruntime.toml notes): 'nvidia-cuda-runtime-cu12~=12.0; extra ==
    # "cuda"', 'nvidia-cudnn-cu12~=9.0; extra == "cudnn"' in 1.21.1 ... 1.26.0; 'nvidia-cuda-runtime~=13.0',
    # 'nvidia-cudnn-cu13~=9.0' in 1.30.0
    ("1.21.1", [("pypi", "12", 12, 9)]),
    ("1.22.0", [("pypi", "12", 12, 9)]),
    ("1.26.0", [("pypi", "12", 12, 9)]),
    ("1.30.0", [("pypi", "13", 13, 9)]),
])
def test_needs_per_feed(version, want):
    assert _needs(version) == want


@pytest.mark.parametrize("version", ["1.21.0", "1.24.1", "1.27.0", "1.29.0", "1.31.0", "2.0.0", "", "1", "x.y", None])
def test_a_release_no_row_covers_is_unknown_never_a_neighbour(version):
    assert ort_needs(M, version) == []


def test_cpu_shadows_gpu_needs_both_packages():
    assert cpu_shadows_gpu({"onnxruntime-gpu": "1.16.1"}) is None
    assert cpu_shadows_gpu({"onnxruntime": "1.16.1"}) is None
    ans = cpu_shadows_gpu({"onnxruntime": "1.16.1", "onnxruntime-gpu": "1.16.1"})
    assert ans is not None and not ans.ok and "CPUExecutionProvider" in ans.reason


def test_libraries_answer_says_which_library_for_which_feed():
    needs = ort_needs(M, "1.19.2")  # PyPI: CUDA 12 / cuDNN 9; cuda-11 feed: CUDA 11.8 / cuDNN 8
    assert libraries_answer(needs, [True, False], [True, False]) == (None, [])
    assert libraries_answer(needs, [False, True], [False, True]) == (None, [])  # the cuda-11 build would load
    assert libraries_answer(needs, [False, False], [True, True])[0] == "cuda-runtime-missing"
    fid, which = libraries_answer(needs, [True, False], [False, True])
    assert fid == "cudnn-missing" and [n.feed for n in which] == ["pypi"]
    assert libraries_answer([], [], []) == (None, [])


def _status(tmp_path, driver, cuda, packages, libraries=""):
    files = gpu_machine(driver, cuda, A100, cc=["8.0"])
    files.update({"packages.json": json.dumps(packages), "libraries.txt": libraries,
                  "python.json": json.dumps({"version": "3.11.7", "implementation": "CPython", "platform": "linux",
                                             "machine": "x86_64"})})
    return status_of_files(tmp_path, files)


def _ort(doc):
    return {f["id"]: f for f in doc["findings"] if f.get("component") == "onnxruntime" and f["id"] != "not-checked"}


def test_both_packages_installed_is_the_cpu_build_shadowing_the_gpu_one(tmp_path):
    doc = _status(tmp_path, "535.104.05", "12.2", {"onnxruntime": "1.16.1", "onnxruntime-gpu": "1.16.1",
                                                   "nvidia-cuda-runtime-cu11": "11.8.89",
                                                   "nvidia-cudnn-cu11": "8.9.6.50"})
    got = _ort(doc)
    assert set(got) == {"framework-cpu-only"}
    f = got["framework-cpu-only"]
    assert f["severity"] == "warning"
    assert "onnxruntime 1.16.1" in f["message"] and "onnxruntime-gpu 1.16.1" in f["message"]
    assert f["fix"].startswith("pip uninstall -y onnxruntime onnxruntime-gpu && pip install 'onnxruntime-gpu==1.16.1'")
    fw = doc["frameworks"]["onnxruntime"]  # read from the distributions' metadata, never imported
    assert (fw["version"], fw["package"], fw["cuda"], fw["cudnn"]) == ("1.16.1", "onnxruntime-gpu", "11.8", "8")
    assert fw["build_info"]["packages"] == {"onnxruntime": "1.16.1", "onnxruntime-gpu": "1.16.1"}


def test_the_cpu_package_alone_is_no_status_finding(tmp_path):
    doc = _status(tmp_path, "535.104.05", "12.2", {"onnxruntime": "1.16.1"})
    assert _ort(doc) == {}
    fw = doc["frameworks"]["onnxruntime"]
    assert (fw["package"], fw["cpu_only"], fw["cuda"], fw["cudnn"]) == ("onnxruntime", True, None, None)


def test_ort_1_6_on_cuda_10_1_needs_10_2_runtime_and_driver(tmp_path):
    doc = _status(tmp_path, "418.67", "10.1", {"onnxruntime-gpu": "1.6.0"},
                  "/usr/local/cuda-10.1/lib64/libcudart.so.10.1\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.0.3\n")
    got = _ort(doc)
    assert "libcudart.so.10.2" in got["cuda-runtime-missing"]["message"]  # CUDA 10.x: the minor's own soname
    assert "440.33" in got["driver-too-old"]["fix"]  # CUDA 10.2's driver floor, no minor-version compatibility
    assert "CUDA 10.2" in got["driver-too-old"]["message"]


def test_ort_1_6_with_its_10_2_runtime_on_a_cuda_11_driver_is_fine(tmp_path):
    libs = "/usr/local/cuda-10.2/lib64/libcudart.so.10.2.89\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.0.3\n"
    files_env = {"LD_LIBRARY_PATH": "/usr/local/cuda-10.2/lib64"}
    files = gpu_machine("450.80.02", "11.0", [("Tesla V100-SXM2-16GB", 16160)], cc=["7.0"])
    files.update({"packages.json": json.dumps({"onnxruntime-gpu": "1.6.0"}), "libraries.txt": libs,
                  "environ.json": json.dumps(files_env)})
    got = _ort(status_of_files(tmp_path, files))
    assert "cuda-runtime-missing" not in got and "driver-too-old" not in got and "cudnn-missing" not in got


def test_pypi_1_19_with_cudnn_8_only_needs_cudnn_9(tmp_path):
    doc = _status(tmp_path, "535.104.05", "12.2", {"onnxruntime-gpu": "1.19.2", "nvidia-cuda-runtime-cu12": "12.4.127"},
                  "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7\n")
    got = _ort(doc)
    assert set(got) == {"cudnn-missing"}
    assert "cuDNN 9.x (PyPI)" in got["cudnn-missing"]["message"] and "8.9.7" in got["cudnn-missing"]["message"]
    assert "nvidia-cudnn-cu12==9.*" in got["cudnn-missing"]["fix"]
    fw = doc["frameworks"]["onnxruntime"]
    assert fw["cuda"] is None and fw["cudnn"] is None  # two feeds, two answers: the fact is unknown
    assert any("depend on the package feed" in n for n in doc["notes"])


def test_pypi_1_19_with_its_pip_libraries_is_fine(tmp_path):
    got = _ort(_status(tmp_path, "535.104.05", "12.2", {"onnxruntime-gpu": "1.19.2",
                                                        "nvidia-cuda-runtime-cu12": "12.4.127",
                                                        "nvidia-cudnn-cu12": "9.1.0.70"}))
    assert got == {}


def test_driver_too_old_only_where_every_feed_needs_more(tmp_path):
    # 1.19.2: PyPI's CUDA 12 build or the cuda-11 feed's 11.8 build; R470 runs CUDA 11.x (minor-version
    # compatibility) - the driver is not said to be too old, the CUDA runtime of neither build is loadable
    got = _ort(_status(tmp_path, "470.82.01", "11.4", {"onnxruntime-gpu": "1.19.2"}))
    assert "driver-too-old" not in got and "cuda-runtime-missing" in got
    got = _ort(_status(tmp_path / "b", "418.67", "10.1", {"onnxruntime-gpu": "1.19.2"}))
    assert "driver-too-old" in got and "CUDA 12.x or CUDA 11.8 (by package feed)" in got["driver-too-old"]["message"]


def test_an_unknown_release_is_not_checked(tmp_path):
    doc = _status(tmp_path, "418.67", "10.1", {"onnxruntime-gpu": "1.27.0"})
    assert _ort(doc) == {}
    notes = [f for f in doc["findings"] if f["id"] == "not-checked" and "no onnxruntime.toml row" in f["evidence"]]
    assert len(notes) == 1 and "1.27.0" in notes[0]["message"]


def _fix(tmp_path, driver, cuda, *want):
    from helpers import make_snapshot

    snap = make_snapshot(str(tmp_path / "snap"), gpu_machine(driver, cuda, A100, cc=["8.0"]))
    args = [a for w in want for a in ("--want", w)]
    return subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot", snap, "--json", *args],
                          capture_output=True, text=True, timeout=300)


def test_fix_onnxruntime_gpu_picks_the_release_the_driver_runs(tmp_path):
    out = _fix(tmp_path, "535.104.05", "12.2", "onnxruntime-gpu")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert [(p["name"], p["version"], p["extras"]) for p in plan["packages"]] == [
        ("onnxruntime-gpu", "1.26.0", ["cuda", "cudnn"])]  # 1.30.0 / 1.31.1 are CUDA 13: R535 runs CUDA 12.2 at most
    assert plan["commands"]["pip"] == ["python -m pip install 'onnxruntime-gpu[cuda,cudnn]==1.26.0'"]
    assert plan["commands"]["conda"] == []  # no conda row: no command rather than a wrong one


def test_fix_onnxruntime_gpu_unsatisfiable_names_the_driver(tmp_path):
    out = _fix(tmp_path, "470.82.01", "11.4", "onnxruntime-gpu")
    assert out.returncode == 1
    plan = json.loads(out.stdout)
    assert not plan["satisfiable"] and "driver" in plan["reason"]


def test_fix_asking_for_the_cpu_package_is_a_usage_error(tmp_path):
    out = _fix(tmp_path, "535.104.05", "12.2", "onnxruntime")
    assert out.returncode == 2 and "onnxruntime-gpu" in out.stderr


def test_builds_are_the_exact_pypi_rows_only():
    got = sorted((b.version, b.cuda, b.cudnn, b.extras) for b in ort_builds(M))
    cu12 = ["1.21.1", "1.22.0", "1.23.0", "1.23.2", "1.24.4", "1.25.0", "1.25.1", "1.26.0"]
    assert got == [(v, "12.0", "9", ("cuda", "cudnn")) for v in cu12] + \
        [(v, "13.0", "9", ("cuda", "cudnn")) for v in ("1.30.0", "1.31.1")]


# -- pasted ORT issues (explain) ---------------------------------------------------------------------------------

#: https://github.com/microsoft/onnxruntime/issues/6183 (the issue index's text; heldout/acceptance11, spent)
ORT_6183 = os.path.join(os.path.dirname(__file__), "..", "heldout", "acceptance11", "pastes",
                        "ort-6183-colab-ort-gpu-1.6.0-needs-cuda-10.2-has-10.1.txt")

#: https://github.com/microsoft/onnxruntime/issues/9302 (its description, as the issue index stores it): the old
#: template, onnxruntime-gpu 1.9.0 with CUDA 11.4 on a T4 - the CUDA provider is available; ops fall back to the CPU
ORT_9302 = """# Onnxruntime-gpu always runs on CPU and never on GPU, [yolo v5]

yustoris · description · 2021-10-07
**Describe the bug**
Could not execute yolov5 small with CUDAExecutionProvider but always fall back to CPUExecutorProvider while I verified the CUDAExxecutionProvider is available.

**System information**
- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Debian buster
- ONNX Runtime installed from (source or binary): pip, binary (onnxruntime-gpu==1.9.0)
- ONNX Runtime version: 1.9.0
- Python version: 3.7.3
- Visual Studio version (if applicable): N/A
- GCC/Compiler version (if compiling from source): N/A
- CUDA/cuDNN version:  11.4
- GPU model and memory: Tesla T4, 15109.75MB
"""

#: https://github.com/microsoft/onnxruntime/issues/11323 (its description's template): a version without the package
ORT_11323 = """# CPUExecutionProvider but GPU visible

alwynmathew · description · 2022-04-22
**System information**
- OS Platform and Distribution: Ubuntu 20.04
- ONNX Runtime installed from (source or binary): binary
- ONNX Runtime version: 1.10.0
- ONNX version: 1.10.2
- Python version: 3.7
- CUDA/cuDNN version: CUDA 11.3 cuDNN 8200
"""


def _explain(text: str) -> dict:
    from envcheck.explain.document import explain_text_document

    return explain_text_document(text)


def test_6183_template_claim_against_what_1_6_needs():
    with open(ORT_6183, encoding="utf-8") as fh:
        doc = _explain(fh.read())
    assert doc["facts"]["frameworks"]["onnxruntime"] == {"version": "1.6.0", "package": "onnxruntime-gpu",
                                                         "cuda": "10.2", "cudnn": "8"}
    top = doc["matches"][0]
    assert top["id"] == "cuda-runtime-missing"
    assert "libcudart.so.10.2" in top["evidence"] and "CUDA 10.1" in top["evidence"]


def test_9302_template_reads_the_pinned_package_and_its_claim_fits():
    doc = _explain(ORT_9302)
    assert doc["facts"]["frameworks"]["onnxruntime"] == {"version": "1.9.0", "package": "onnxruntime-gpu",
                                                         "cuda": "11.4", "cudnn": "8"}
    assert doc["facts"]["claims"]["cuda"] == "11.4"
    # CUDA 11.4 serves a CUDA 11.4 build: the claim is no cause
    assert not any(m["id"] == "cuda-runtime-missing" and "onnxruntime-gpu 1.9.0 needs" in m.get("evidence", "")
                   for m in doc["matches"])


def test_11323_version_without_a_package_is_no_gpu_build():
    doc = _explain(ORT_11323)
    fw = doc["facts"]["frameworks"]["onnxruntime"]
    assert fw == {"version": "1.10.0", "package": None, "cuda": None, "cudnn": None}
    assert not any("onnxruntime" in m.get("evidence", "") and m["id"] in ("cuda-runtime-missing", "framework-cpu-only")
                   for m in doc["matches"])


@pytest.mark.parametrize("text", [
    "ONNX Runtime version: " + "9" * 5000,
    "### ONNX Runtime Version or Commit ID\n\n" + "1." * 3000,
    "I had installed both onnxruntime and onnxruntime-gpu " * 500,
    "- ONNX Runtime installed from (source or binary): " + "(onnxruntime-gpu==" * 800,
])
def test_hostile_template_lines_neither_crash_nor_invent(text):
    doc = _explain(text)
    fw = (doc.get("facts") or {}).get("frameworks", {}).get("onnxruntime")
    assert fw is None or fw["version"] is None or fw["version"].startswith("1.")


#: https://github.com/microsoft/onnxruntime/issues/18973 (its description: the issue form's headings, C# package)
ORT_18973 = """# Could not load library cudnn_cnn_infer64_8.dll. Error code 127

cyclonedll · description · 2024-01-02
### Describe the issue

Could not load library cudnn_cnn_infer64_8.dll. Error code 127 when using 1.16.3 CUDA

### Platform

Windows

### OS Version

10

### ONNX Runtime Installation

Released Package

### ONNX Runtime Version or Commit ID

1.16.3

### ONNX Runtime API

C#
"""


def test_issue_form_headings_give_the_version_not_a_package():
    doc = _explain(ORT_18973)
    assert doc["facts"]["frameworks"]["onnxruntime"] == {"version": "1.16.3", "package": None, "cuda": None,
                                                         "cudnn": None}


def test_reader_takes_only_its_own_fields():
    from envcheck.paste.readers import ort_template
    from envcheck.paste.readers.base import Fact

    got = ort_template.read(["- ONNX Runtime installed from (source or binary): source"]).facts
    assert any(f.field == "seen:ort-from-source" for f in got if isinstance(f, Fact))
    got = ort_template.read(["### ONNX Runtime Version or Commit ID", "", "onnxruntime-gpu 1.18.1"]).facts
    assert {(f.field, f.value) for f in got} >= {("ort.version", "1.18.1"), ("ort.package", "onnxruntime-gpu")}
    assert ort_template.read(["- ONNX Runtime version: main branch"]).facts == ()


def test_a_conda_onnxruntime_cuda_build_string_names_its_cuda_and_a_plain_one_is_the_cpu_build(tmp_path):
    # conda-forge's onnxruntime ships its CUDA builds under the CPU package's name ("gpu_cuda118..." build strings)
    doc = _status(tmp_path / "gpu", "535.104.05", "12.2",
                  {"onnxruntime": "1.18.0=py311cuda118h0e4d2c1_200_cuda"})
    fw = doc["frameworks"]["onnxruntime"]
    assert (fw["version"], fw["package"], fw["cuda"]) == ("1.18.0", "onnxruntime", "11.8")
    cpu = _status(tmp_path / "cpu", "535.104.05", "12.2", {"onnxruntime": "1.18.0=py311h0e4d2c1_200"})
    assert cpu["frameworks"]["onnxruntime"]["cuda"] is None
