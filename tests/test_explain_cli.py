"""`envcheck explain` on the command line: real subprocesses, real files."""

import json
import os
import subprocess
import sys

from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "tests", "data", "logs")


def run(*args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", *args], input=stdin, capture_output=True,
                       env=env, timeout=120)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def test_file_input_json_and_exit_0():
    code, out, err = run(os.path.join(LOGS, "tf-cudnn-9.0-vs-9.3-kaggle.log"), "--no-detect", "--json")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["schema"] == "envcheck/explain/1"
    m = rep["matches"][0]
    assert m["id"] == "cudnn-version-mismatch"
    assert "9.0.0 but source was compiled with: 9.3.0" in m["evidence"]
    assert m["fixes"] and m["dead_ends"] and m["title"]
    assert rep["detected"] is None and rep["lines_scanned"] == 1


def test_stdin_input_text_output():
    log = open(os.path.join(LOGS, "nvml-mismatch-tinygrad-570.log"), "rb").read()
    code, out, _ = run("-", "--no-detect", stdin=log)
    assert code == 0
    assert "[driver-library-mismatch]" in out and "Fix:" in out and "Dead ends" in out
    code2, out2, _ = run("--no-detect", stdin=log)  # a pipe without "-" works too
    assert code2 == 0 and out2 == out


def test_no_match_exits_1():
    code, out, _ = run("-", "--no-detect", "--json", stdin=b"all good\nepoch 1 loss 0.3\n")
    assert code == 1 and json.loads(out)["matches"] == []


def test_unreadable_inputs_exit_2(tmp_path):
    assert run(str(tmp_path / "missing.log"))[0] == 2
    assert run(str(tmp_path))[0] == 2
    assert run(os.path.join(LOGS, "torch-not-compiled-cuda-hat.log"), "--snapshot", str(tmp_path / "nope"))[0] == 2


def test_binary_garbage_is_scanned_without_crash(tmp_path):
    p = tmp_path / "core.bin"
    p.write_bytes(bytes(range(256)) * 4000 + b"\x00\xffCUDA error: out of memory\x00")
    code, out, err = run(str(p), "--no-detect", "--json")
    assert code in (0, 1) and "Traceback" not in err
    json.loads(out)


def test_huge_file_is_streamed(tmp_path):
    p = tmp_path / "train.log"
    with open(p, "w") as fh:
        for i in range(300_000):
            fh.write(f"step {i} loss 0.{i % 97}\n")
        fh.write("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    code, out, _ = run(str(p), "--no-detect", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["matches"][0]["id"] == "gpu-arch-unsupported"
    assert rep["matches"][0]["line_no"] == 300_001 and rep["lines_scanned"] == 300_001


def test_snapshot_aware_fix_and_no_detect(tmp_path):
    files = gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install("2.4.1+cu121", "12.1", requires=["nvidia-cudnn-cu12==9.1.0.70"],
                               packages={"nvidia-cudnn-cu12": "8.9.2.26"}))
    snap = make_snapshot(str(tmp_path / "snap"), files)
    # PyTorch's wording (pytorch/pytorch#81881) with this scenario's versions
    log = (b"RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found runtime "
           b"version (8, 9, 2). PyTorch already comes bundled with cuDNN.\n")
    code, out, _ = run("-", "--snapshot", snap, "--json", stdin=log)
    rep = json.loads(out)
    assert code == 0 and rep["detected"] == f"snapshot {snap}"
    assert rep["matches"][0]["fixes"][0].startswith("pip install 'nvidia-cudnn-cu12==9.1.0.70'")
    code, out, _ = run("-", "--no-detect", "--json", stdin=log)
    rep = json.loads(out)
    assert rep["detected"] is None and "9.1.0.70" not in rep["matches"][0]["fixes"][0]


def test_detection_failure_falls_back_to_text(tmp_path):
    snap = tmp_path / "broken.tar.gz"
    snap.write_bytes(b"this is not a tar archive")
    code, out, err = run(os.path.join(LOGS, "torch-not-compiled-cuda-hat.log"), "--snapshot", str(snap), "--json")
    rep = json.loads(out)
    assert code == 0, err
    assert rep["matches"][0]["id"] == "framework-cpu-only"
    assert rep["detected"] is None and "text alone" in " ".join(rep["notes"])


def test_markdown_output():
    code, out, _ = run(os.path.join(LOGS, "torch-sm120-rtx5090-applio.log"), "--no-detect", "--markdown")
    assert code == 0 and out.startswith("<!-- envcheck-explain -->\n### envcheck explain")
    assert "(`gpu-arch-unsupported`)" in out and "**Evidence**" in out and "**Fix**" in out
    assert "- GPU architecture sm: `120`" in out  # the facts read from the text


def test_lines_scanned_counts_every_line_ending(tmp_path):
    p = tmp_path / "crlf.log"
    p.write_bytes(b"epoch 1\r\nepoch 2\r 50%\rRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\nlast")
    code, out, _ = run(str(p), "--no-detect", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["lines_scanned"] == 5
    assert rep["matches"][0]["id"] == "gpu-out-of-memory" and rep["matches"][0]["line_no"] == 4


def test_markdown_masks_the_secrets_it_quotes():
    """attack27: `explain --markdown` (a comment to post) quoted a log line with its `?token=` / a pip index URL's
    password / a Hugging Face token whole; what it quotes is masked, the rest of the line kept."""
    log = ("Looking in indexes: https://jdoe:s3cretTOKEN99@pypi.corp.example.com/simple\n"
           "RuntimeError: CUDA error: no kernel image is available for execution on the device "
           "(fetched from https://cdn.example.com/w.bin?X-Amz-Signature=abcdef0123456789SIG)\n"
           "AssertionError: Torch not compiled with CUDA enabled; HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWx\n"
           "OSError: https://jdoe:s3cretTOKEN99@pypi.corp.example.com/simple/torch/: libcudart.so.12: cannot open "
           "shared object file: No such file or directory\n")
    code, out, _err = run("-", "--no-detect", "--markdown", stdin=log.encode())
    assert code == 0 and "no kernel image is available" in out and "X-Amz-Signature=***" in out
    for secret in ("s3cretTOKEN99", "abcdef0123456789SIG", "hf_AbCdEfGhIjKlMnOpQrStUvWx"):
        assert secret not in out, secret


def test_a_fifo_or_device_as_snapshot_is_exit_2(tmp_path):
    """attack27: `explain --snapshot` of a FIFO or a device noted it and explained from the text alone with exit 0
    (a missing one was exit 2, and so is a FIFO or device given as the log). A file that is no archive keeps its
    fallback (test_detection_failure_falls_back_to_text)."""
    fifo = tmp_path / "snap.fifo"
    os.mkfifo(fifo)
    for snap, said in ((str(fifo), "is a FIFO"), ("/dev/null", "is a character device")):
        code, out, err = run("-", "--snapshot", snap, stdin=b"torch.cuda.OutOfMemoryError: CUDA out of memory.\n")
        assert code == 2 and said in err and "not a snapshot folder or archive" in err, (snap, code, err)
        assert "Traceback" not in err and not out
