"""Environment reports pasted into bug reports (issue 13 part 2): every format read from REAL pastes
(tests/data/pastes/dev, sources in its README), the paste source feeding the same parsers and checks as
``status``, findings ranked with the log lines, ``facts`` in --json, no live detection, bounded streaming."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.paste import PasteCollector, PasteSource, read_report
from envcheck.paste.collect import MAX_KEPT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV = os.path.join(ROOT, "tests", "data", "pastes", "dev")


def paste(name: str) -> str:
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def facts_file(name: str) -> dict:
    with open(os.path.join(DEV, name[: -len(".txt")] + ".facts.json"), encoding="utf-8") as fh:
        return json.load(fh)


def dev_pastes():
    return sorted(f for f in os.listdir(DEV) if f.endswith(".txt"))


# --------------------------------------------------------------------------- parser level, per format
@pytest.mark.parametrize("name", dev_pastes())
def test_facts_equal_the_hand_written_file(name):
    """Each real paste's facts, field by field, equal the hand-written .facts.json (unknown stays null); framework
    log lines are read with explain's knowledge-base reader, as explain reads them."""
    from envcheck.explain.kb import load_kb
    from envcheck.explain.logfacts import line_reader

    got = read_report(paste(name), line_reader(load_kb())).facts
    want = facts_file(name)
    for key in ("driver", "python", "toolkit"):
        assert got[key] == want[key], key
    assert got["gpus"] == want["gpus"]
    assert got["frameworks"] == want["frameworks"]


@pytest.mark.parametrize("name,formats", [
    ("torch-43058-collect-env-1.6.0-cu102-driver-418-nvidia-smi.txt", {"collect_env", "nvidia-smi"}),
    ("vllm-24063-sectioned-collect-env-2.6.0-cpu-rtx3090.txt", {"collect_env"}),
    ("detectron2-5135-collect-env-2x-2080ti-driver-535-not-built.txt", {"detectron2 collect_env"}),
    ("torch-31876-collect-env-1.2.0-geforce210-driver-342-nvcc.txt", {"nvcc", "collect_env"}),
    ("jax-pr12213-print-environment-info-colab-t4.txt", {"jax.print_environment_info", "nvidia-smi"}),
    ("transformers-24117-transformers-cli-env-torch-tf-jax-healthy.txt", {"transformers/accelerate env"}),
    ("ultralytics-4160-banner-8x-rtx3090-cu117-device-side-assert.txt", {"ultralytics"}),
    ("tf-57103-template-2022-tf2.9.1-windows-cudart64-110.txt", {"tensorflow template"}),
    ("envs-4-nvidia-smi-failed-nvcc-10.0.txt", {"nvidia-smi", "nvcc"}),
    ("torch-28321-collect-env-1.3.0-conda-cuda10.1-driver-410-t4.txt", {"collect_env"}),
])
def test_formats_recognised(name, formats):
    assert formats <= set(read_report(paste(name)).formats)


def test_collect_env_reads_what_reports_get_wrong():
    """'cuDNN version: Probably one of the following' lists the system's copies (ldconfig entries), never
    torch's cuDNN; 'CUDA runtime version' is nvcc's (the toolkit), not torch's CUDA."""
    rep = read_report(paste("torch-150733-collect-env-2.6.0-cu126-rtx5090d-sm120.txt"))
    assert "libcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9.8.0" in rep.captures["ldconfig.txt"]
    assert json.loads(rep.captures["torch.json"]) == {"version": "2.6.0+cu126", "cuda": "12.6"}
    assert rep.facts["frameworks"]["torch"]["cudnn"] is None
    rep = read_report(paste("torch-51858-collect-env-2.0.1-cu117-gtx1050ti-windows.txt"))
    assert rep.captures["nvcc.txt"].startswith("Cuda compilation tools, release 11.7, V11.7.64")
    assert rep.facts["toolkit"] == {"version": "11.7", "nvcc": "11.7.64"}
    assert json.loads(rep.captures["python.json"])["platform"] == "win32"


def test_could_not_collect_means_cpu_build_only_for_the_cuda_build_line():
    # 1.12 layout: "CUDA used to build PyTorch: Could not collect" next to a torch version = torch.version.cuda None
    rep = read_report(paste("torch-51858c-collect-env-1.12.1-cpu-conda-rtx3060-laptop.txt"))
    assert json.loads(rep.captures["torch.json"]) == {"version": "1.12.1", "cuda": None}
    # while "cuDNN version: Could not collect" is just unknown: no cuDNN copy is made up
    assert "ldconfig.txt" not in rep.captures
    # ROCm: "CUDA used to build PyTorch: N/A" with a ROCm version is not a CPU build, and AMD GPUs are not NVIDIA's
    rep = read_report(paste("torch-44106-collect-env-1.7-rocm-sample.txt"))
    tj = json.loads(rep.captures["torch.json"])
    assert "cuda" not in tj and tj["hip"] == "3.7.20315-077bcfa0"
    # the AMD GPU is a fact of vendor amd (contract §9), replayed as a rocm-smi card, never as an NVIDIA GPU
    assert rep.facts["gpus"] == [{"index": 0, "name": "Device 66a1", "compute_capability": None, "vendor": "amd",
                                  "gfx": None}]
    assert "nvidia-smi-query.csv" not in rep.captures
    assert json.loads(rep.captures["rocm-smi.json"]) == {"card0": {"Card series": "Device 66a1"}}


def test_conda_build_string_and_stale_pip_line():
    """conda's `pytorch 1.3.0 py3.7_cuda10.1.243_cudnn7.6.3_0` is the torch collect_env imported; the stale
    `[pip3] torch==1.2.0` is not."""
    rep = read_report(paste("torch-28321-collect-env-1.3.0-conda-cuda10.1-driver-410-t4.txt"))
    pk = json.loads(rep.captures["packages.json"])
    assert pk["torch"] == "1.3.0=py3.7_cuda10.1.243_cudnn7.6.3_0"
    assert rep.facts["frameworks"]["torch"] == {"version": "1.3.0", "cuda": "10.1", "cudnn": "7.6.3"}


def test_retyped_layout_and_full_width_colons():
    rep = read_report(paste("torch-37320-collect-env-1.5.0-cu102-driver-410-p100.txt"))
    assert [g["name"] for g in rep.facts["gpus"]] == ["Tesla P100-PCIE-16GB"] * 4
    assert rep.facts["frameworks"]["torch"]["version"] == "1.5.0"


def test_detectron2_arch_and_ultralytics_banner():
    rep = read_report(paste("detectron2-4612-collect-env-2x-3080ti-cu111-driver-470-failed-import.txt"))
    assert rep.captures["nvidia-smi-query.csv"].splitlines()[1:] == [
        "0, NVIDIA GeForce RTX 3080 Ti, 470.63.01, 8.6, [N/A]", "1, NVIDIA GeForce RTX 3080 Ti, 470.63.01, 8.6, [N/A]"]
    assert rep.facts["toolkit"]["version"] == "11.1"
    rep = read_report(paste("ultralytics-4160-banner-8x-rtx3090-cu117-device-side-assert.txt"))
    assert len(rep.facts["gpus"]) == 8 and rep.facts["python"]["version"] == "3.9.17"
    assert "24260 MiB" in rep.captures["nvidia-smi-query.csv"]


def test_jax_gpu_devices_hide_the_unlabelled_jaxlib():
    """print_environment_info prints jaxlib without its +cuda label: with GPU devices listed the build is
    not guessed (no CPU-only verdict on a healthy Colab GPU)."""
    rep = read_report(paste("jax-pr12213-print-environment-info-colab-t4.txt"))
    assert "jaxlib" not in json.loads(rep.captures.get("packages.json", "{}"))
    assert rep.facts["frameworks"]["jax"]["jaxlib"] == "0.3.15"


def test_text_without_report():
    rep = read_report("Traceback (most recent call last):\nRuntimeError: CUDA error: out of memory\n"
                      "Python version: 3.10 was used\n")
    assert not rep.found and rep.facts == {} and rep.captures == {}


# --------------------------------------------------------------------------- same parsers and checks as status
def test_paste_source_builds_the_environment_with_status_parsers():
    from envcheck.checks import run_checks
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    m = load_matrix()
    rep = read_report(paste("torch-43058-collect-env-1.6.0-cu102-driver-418-nvidia-smi.txt"))
    src = PasteSource(rep)
    assert src.get("nvcc.txt").status == "not-found" and src.get("nvidia-smi.txt").ok
    env = collect(src, m)
    assert str(env.driver.version) == "418.67" and env.driver.cuda == "10.1"
    assert [g.name for g in env.gpus] == ["Tesla V100-PCIE-16GB"] * 2
    assert env.frameworks["torch"].cuda == "10.2"
    assert "driver-too-old" in {f.id for f in run_checks(env, m)}


# --------------------------------------------------------------------------- the CLI, end to end
def run_cli(*args, env=None, input=None):
    return subprocess.run([sys.executable, "-m", "envcheck", "explain", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=env, input=input)


@pytest.mark.parametrize("name,label", [
    ("vllm-24063-sectioned-collect-env-2.6.0-cpu-rtx3090.txt", "framework-cpu-only"),
    ("torch-150733-collect-env-2.6.0-cu126-rtx5090d-sm120.txt", "gpu-arch-unsupported"),
    ("torch-43058-collect-env-1.6.0-cu102-driver-418-nvidia-smi.txt", "driver-too-old"),
    ("envs-4-nvidia-smi-failed-nvcc-10.0.txt", "no-gpu-driver"),
])
def test_cli_ranks_the_papers_findings(name, label):
    r = run_cli(os.path.join(DEV, name), "--json", "--no-detect")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["matches"][0]["id"] == label
    assert doc["facts"] == facts_file(name)
    assert doc["detected"].startswith("pasted report")


def test_arch_fix_comes_from_the_engine():
    doc = json.loads(run_cli(os.path.join(DEV, "torch-150733-collect-env-2.6.0-cu126-rtx5090d-sm120.txt"), "--json",
                             "--no-detect").stdout)
    top = doc["matches"][0]
    assert any("compute capability 12.0" in f and "--index-url https://download.pytorch.org/whl/cu12" in f
               for f in top["fixes"][:2])
    assert not any(f.startswith("This machine:") for f in top["fixes"])  # it is the reporter's machine


@pytest.mark.parametrize("name", [
    "vllm-4030-collect-env-2.1.2-cu121-a10g-performance.txt",
    "torch-51858-collect-env-2.0.1-cu117-gtx1050ti-windows.txt",
    "ultralytics-5359-yolo-checks-rtx3090-cu121-segfault.txt",
    "jax-pr12213-print-environment-info-colab-t4.txt",
    "transformers-24117-transformers-cli-env-torch-tf-jax-healthy.txt",
])
def test_healthy_controls_give_no_match(name):
    r = run_cli(os.path.join(DEV, name), "--json", "--no-detect")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["matches"] == [], doc["matches"][:1]
    assert doc["facts"]["python"]["version"]


def test_no_report_gives_empty_facts():
    r = run_cli("-", "--json", "--no-detect", input="RuntimeError: CUDA error: out of memory\n")
    assert json.loads(r.stdout)["facts"] == {}


def test_report_in_paste_means_no_live_detection(tmp_path):
    """Without --no-detect, a paste with a report must not probe this machine: a fake nvidia-smi on PATH
    that leaves a mark when run is never run, and the facts are the paste's."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    mark = tmp_path / "ran"
    for tool in ("nvidia-smi", "nvcc", "ldconfig"):
        p = bindir / tool
        p.write_text(f"#!/bin/sh\necho ran >> {mark}\necho 'NVIDIA-SMI 999.99'\n")
        p.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    name = "vllm-24063-sectioned-collect-env-2.6.0-cpu-rtx3090.txt"
    r = run_cli(os.path.join(DEV, name), "--json", env=env)
    doc = json.loads(r.stdout)
    assert not mark.exists()
    assert doc["detected"].startswith("pasted report") and doc["facts"]["driver"]["version"] == "570.124.06"
    # and without a report the same call does detect (the fake tool runs): the test can fail
    r = run_cli("-", "--json", env=env, input="RuntimeError: CUDA error: out of memory\n")
    assert mark.exists()


# --------------------------------------------------------------------------- streaming, bounded
def test_collector_keeps_nothing_of_a_log_without_report():
    c = PasteCollector()
    block = b"2024-01-01 12:00:00 INFO step 1234 loss=0.123 lr=1e-4 epoch 3 batch 17/200\n" * 14000  # ~1 MB
    for k in range(20):
        c.feed(block, block.lower(), k * 14000)
    assert c.size == 0 and not c.finish().found


def test_collector_finds_a_report_after_a_long_log_and_across_blocks():
    text = paste("torch-43058-collect-env-1.6.0-cu102-driver-418-nvidia-smi.txt").encode()
    filler = b"epoch 1 step 2 loss 0.5\n" * 40000
    cut = text.index(b"GPU 1:")  # the report split between two blocks
    blocks = [filler, filler + text[:cut], text[cut:] + filler]
    c = PasteCollector()
    n = 0
    for b in blocks:
        c.feed(b, b.lower(), n)
        n += b.count(b"\n")
    rep = c.finish()
    assert rep.facts["driver"] == {"version": "418.67", "cuda": "10.1"}
    assert len(rep.facts["gpus"]) == 2
    assert c.size < 64 * 1024  # only the windows around the report, not the log


def test_collector_is_bounded():
    block = b"PyTorch version: 2.1.0\n" * 50000  # a report anchor on every line, 1.1 MB a block
    c = PasteCollector()
    for k in range(100):
        c.feed(block, block.lower(), k * 50000)
    c.finish()
    assert c.size <= MAX_KEPT
    small = PasteCollector(max_kept=16 * 1024)
    for k in range(5):
        small.feed(block, block.lower(), k * 50000)
    assert small.size <= 16 * 1024 and small.truncated
    assert small.finish().facts["frameworks"]["torch"]["version"] == "2.1.0"


def test_cli_streams_a_big_log_with_a_report_at_the_end(tmp_path):
    p = tmp_path / "big.log"
    with open(p, "wb") as fh:
        fh.write(b"step 1 loss 0.5 some ordinary training output line here\n" * 200000)  # ~11 MB
        fh.write(paste("vllm-24063-sectioned-collect-env-2.6.0-cpu-rtx3090.txt").encode())
    doc = json.loads(run_cli(str(p), "--json", "--no-detect").stdout)
    assert doc["matches"][0]["id"] == "framework-cpu-only"
    assert doc["facts"]["gpus"][0]["name"] == "NVIDIA GeForce RTX 3090"
