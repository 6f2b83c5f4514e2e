"""Issue 20 (forms20b): the paste readers (one module per form, immutable partials, one merge), log-line facts
read with the knowledge base's own patterns, and the forms added: TensorFlow / XLA device lines. Samples are real
(tests/data/README.md cites each); the expected facts were written by hand from the texts."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.paste import read_report
from envcheck.paste.merge import merge
from envcheck.paste.readers import READERS
from envcheck.paste.readers.base import Fact, Partial, view
from envcheck.paste.sections import partials

DATA = Path(__file__).parent / "data"
TF = DATA / "logs" / "forms20b"


def _explain(path: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def kb_lines():
    from envcheck.explain.kb import load_kb
    from envcheck.explain.logfacts import line_reader

    return line_reader(load_kb())


# ------------------------------------------------------------------------------------------ the readers
def test_every_reader_has_detect_and_read_and_returns_an_immutable_partial():
    names = set()
    for r in READERS:
        assert callable(r.detect) and callable(r.read) and r.NAME
        names.add(r.NAME)
        p = r.read(["x"])
        assert isinstance(p, Partial) and isinstance(p.facts, tuple)
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.facts = ()  # type: ignore[misc]
    assert len(names) == len(READERS)  # one module per form


def test_a_reader_sees_only_its_lines_and_the_merge_keeps_the_first_value():
    text = ["Python version: 3.10.12", "", "PyTorch version: 2.1.0+cu121", "Python version: 3.11.4"]
    ps = partials(text)
    # the collect_env block reads its own two lines; nothing else changed what it read
    ce = [p for p in ps if p.reader == "collect_env"]
    assert len(ce) == 1 and ce[0].get("torch.version") == "2.1.0+cu121" and ce[0].get("python") == "3.11.4"
    m = merge([Partial("a", (Fact("python", "3.9.1"),)), Partial("b", (Fact("python", "3.10.0"),))])
    assert m.get("python") == "3.9.1"  # first value read wins
    m = merge([Partial("a", (Fact("nvcc", "derived"),)), Partial("b", (Fact("nvcc!", "tool"),))])
    assert m.get("nvcc") == "tool"  # a tool's own output replaces a derived value


def test_detect_changes_nothing_and_is_bounded():
    lines = ["+---+", "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |", "+---+"]
    for r in READERS:
        for i in range(len(lines)):
            k = r.detect(view(lines, i))
            assert 0 <= k <= len(lines) - i


def test_rocm_collect_env_gfx_is_not_part_of_the_gpu_name():
    # the lines of a ROCm collect_env (pytorch/pytorch issue template layout): the build's HIP, the GPU's gfx
    t = ("PyTorch version: 2.4.0+rocm6.1\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
         "ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\n\nGPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n"
         "HIP runtime version: 6.1.40091\nMIOpen runtime version: 3.1.0\n")
    ps = [p for p in partials(t.splitlines()) if p.reader == "collect_env"][0]
    assert (0, "AMD Radeon RX 7900 XTX", "amd", "gfx1100", "collect_env") in ps.all("vgpu") and not ps.all("gpu")
    assert ps.get("hip_runtime") == "6.1.40091"
    f = read_report(t).facts
    assert f["frameworks"]["torch"] == {"version": "2.4.0+rocm6.1", "cuda": None, "cudnn": None, "rocm": "6.1",
                                        "hip": "6.1.40091", "miopen": "3.1.0"}
    assert f["gpus"] == [{"index": 0, "name": "AMD Radeon RX 7900 XTX", "compute_capability": None, "vendor": "amd",
                          "gfx": "gfx1100"}] and f["vendor"] == "amd"


# ------------------------------------------------------------------------------------------ log lines by the KB
def test_log_facts_need_the_knowledge_base_reader():
    t = (TF / "tf-35025-tf2.0-found-device-gtx1050ti-windows.log").read_text()
    assert read_report(t).facts == {}  # the paste layer holds no log-line pattern of its own
    assert read_report(t, kb_lines()).facts["gpus"] == [
        {"index": 0, "name": "GeForce GTX 1050 Ti", "compute_capability": "6.1"}]


@pytest.mark.parametrize("name", sorted(p.name for p in TF.glob("*.log")))
def test_tf_device_lines_give_the_gpus(name):
    doc = _explain(TF / name)
    want = json.loads((TF / name.replace(".log", ".facts.json")).read_text())
    assert doc["facts"]["gpus"] == want
    assert doc["matches"] == []  # healthy logs: nothing to explain
    assert doc["facts"]["driver"] == {"version": None, "cuda": None} and doc["facts"]["frameworks"] == {}


def test_found_device_line_alone_or_cut_says_nothing():
    lr = kb_lines()
    assert read_report("2019-12-11 I gpu_device.cc:1618] Found device 0 with properties:\n", lr).facts == {}
    # the name without its capability (cut mid-line) is not a GPU fact with a guessed capability
    f = read_report("Found device 0 with properties:\nname: Quadro M1200\nmajor: 5 minor: 0 memoryClockRa\n", lr).facts
    assert f == {}


# ------------------------------------------------------------------------------------------ cuDNN NOT_SUPPORTED
CUDNN = TF / "cudnn"


@pytest.mark.parametrize("name", sorted(p.name for p in CUDNN.glob("*.log")))
def test_cudnn_not_supported_is_program_side(name):
    doc = _explain(CUDNN / name)
    assert doc["matches"] and doc["matches"][0]["id"] == "cudnn-bad-param"
    assert "chunks" in doc["matches"][0]["fixes"][0]  # its own first fix: the sizes / configuration of the call


def test_other_not_supported_statuses_are_not_this_wording():
    from envcheck.explain.document import explain_text_document

    doc = explain_text_document("CUBLAS_STATUS_NOT_SUPPORTED\n")
    assert all(m["id"] != "cudnn-bad-param" for m in doc["matches"])
    doc = explain_text_document("cuDNN error: CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH\n")
    assert all(m.get("signature") != "cudnn-not-supported" for m in doc["matches"])


# ------------------------------------------------------------------------------------------ old TensorFlow DSO lines
OLD = TF / "tf-old"


@pytest.mark.parametrize("row", [ln.split() for ln in (OLD / "labels.txt").read_text().splitlines() if ln.strip()])
def test_old_tensorflow_couldnt_open_cuda_library(row):
    name, label = row
    doc = _explain(OLD / name)
    assert doc["matches"] and doc["matches"][0]["id"] == label


def test_successfully_opened_lines_are_silent():
    from envcheck.explain.document import explain_text_document

    t = ("I tensorflow/stream_executor/dso_loader.cc:135] successfully opened CUDA library libcublas.so.8.0 locally\n"
         "I tensorflow/stream_executor/dso_loader.cc:135] successfully opened CUDA library libcudnn.so.5 locally\n")
    assert explain_text_document(t)["matches"] == []


# ------------------------------------------------------------------------------------------ vGPU hosts' nvidia-smi -q
@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "nvidia-smi-forms").glob("q-*not-found*.txt")))
def test_vgpu_host_q_cuda_not_found_is_null_as_a_paste(name):
    path = DATA / "nvidia-smi-forms" / name
    exp = json.loads(path.with_name(name[:-4] + ".expect.json").read_text())
    doc = _explain(path)
    assert doc["facts"]["driver"] == {"version": exp["driver_version"], "cuda": None}
    assert [g["name"] for g in doc["facts"]["gpus"]] == [g["name"] for g in exp["gpus"]]
    assert doc["matches"] == []


# ------------------------------------------------------------------------------------------ Paddle's device lines
PADDLE = TF / "paddle"


@pytest.mark.parametrize("name", sorted(p.name for p in PADDLE.glob("*.log")))
def test_paddle_device_lines_give_gpu_and_paddle_facts(name):
    want = json.loads((PADDLE / name.replace(".log", ".facts.json")).read_text())
    f = _explain(PADDLE / name)["facts"]
    assert f["gpus"] == want["gpus"]  # the name is not printed: null, never guessed
    assert f["frameworks"] == want["frameworks"]
    assert f["driver"] == {"version": None, "cuda": None}  # "Driver API Version" stays out of driver.cuda


@pytest.mark.parametrize("version,cuda", [
    ("2.5.2.post120", "12.0"), ("2.6.1.post112", "11.2"), ("2.0.0.post101", "10.1"), ("2.0.0.post90", "9.0"),
    ("1.8.5.post107", None), ("1.5.1.post97", None), ("2.5.2", None), ("", None), (None, None),
])
def test_paddle_post_label(version, cuda):
    from envcheck.parse.versions import paddle_cuda_from_version

    assert paddle_cuda_from_version(version) == cuda


def test_paddle_package_row_and_run_check_verdict():
    t = "paddlepaddle-gpu==2.6.1.post112\nPaddlePaddle works well on 1 GPU.\n"
    rep = read_report(t)
    assert rep.facts["frameworks"]["paddle"] == {"version": "2.6.1.post112", "cuda": "11.2", "cudnn": None}
    assert rep.lines["gpu-works"] == "paddle"
    cpu = read_report("paddlepaddle==2.6.1\n").facts["frameworks"]["paddle"]
    assert cpu == {"version": "2.6.1", "cuda": None, "cudnn": None}


# ------------------------------------------------------------------------------------------ truncated pastes
def _leaves(f: dict) -> dict:
    out = {}
    if not f:
        return out
    out["driver.version"], out["driver.cuda"] = f["driver"]["version"], f["driver"]["cuda"]
    out["python"], out["toolkit"] = f["python"]["version"], f["toolkit"]["version"]
    for g in f["gpus"]:
        out[f"gpu{g['index']}.name"], out[f"gpu{g['index']}.cc"] = g["name"], g["compute_capability"]
    for fw, d in f["frameworks"].items():
        out.update({f"{fw}.{k}": v for k, v in d.items()})
    return out


@pytest.mark.parametrize("path", sorted(str(p.relative_to(DATA)) for p in (DATA / "pastes").glob("*/*.txt")))
def test_a_truncated_paste_never_says_what_the_whole_paste_contradicts(path):
    """Every real paste cut at a quarter, half and three quarters of its lines: each fact the cut text states is the
    whole text's value (a Python major.minor from an install path may stand for the full version)."""
    lines = (DATA / path).read_text(encoding="utf-8", errors="replace").splitlines()
    lr = kb_lines()
    whole_report = read_report("\n".join(lines), lr)
    whole = _leaves(whole_report.facts)
    # a framework the whole text shows at two releases is unknown there (noted), while a cut holding one of them
    # states it: that is the cut text's certainty, not a contradiction
    conflicted = {n.split()[1] for n in whole_report.notes if "is listed with different versions" in n}
    for frac in (0.25, 0.5, 0.75):
        n = max(1, int(len(lines) * frac))
        cut = _leaves(read_report("\n".join(lines[:n]), lr).facts)
        rest: dict = {}
        for key, val in cut.items():
            if val is None:
                continue
            if key == "python" and str(whole.get(key) or "").startswith(val + "."):
                continue
            if whole.get(key) is None and key.split(".")[0] in conflicted:
                continue
            if key == "python" and whole.get(key) != val:
                # the lines after the cut state another Python, so the whole text holds two: a thread of several
                # reporters states neither (pastes21a's flash-attn#853: 3.8.18 in one comment, 3.11.7 in another); a
                # venv path's python3.8 above a typed "python version: 3.11.4" (mac30's pytype-1515) gives the whole
                # text the typed one. The cut states the one it holds: no contradiction of its own
                rest = rest or _leaves(read_report("\n".join(lines[n:]), lr).facts)
                if rest.get(key) not in (None, val):
                    continue
            w = whole.get(key)
            if key.endswith(".name") and isinstance(w, str) and w != val and w.endswith(val) \
                    and not any(ch.isspace() for ch in w[:len(w) - len(val)]):
                continue  # a name its pasted line cut inside the first word, printed whole further on (pastes20o)
            if key.endswith(".name") and isinstance(w, str) and str(val).endswith(" GPU") \
                    and w.startswith(str(val)[:-4]) and w[len(str(val)) - 4:len(str(val)) - 3] in ("-", " "):
                continue  # a sentence's "an NVIDIA A100 GPU" above the report that names it whole, "NVIDIA A100-SXM4-80GB"
                # (facts22's offline-glucose-2): the same GPU, said less precisely
            assert whole.get(key) == val, (frac, key, val, whole.get(key))
