"""Endless and odd inputs of the commands that read a user's stream: ``explain`` and ``fleet summarize -``.

Real subprocesses on real devices (/dev/zero, /dev/urandom, /dev/null), a real FIFO and a real endless
pipe (``yes``). The timeouts only keep a regression from hanging the suite; nothing asserts a time."""

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG = os.path.join(ROOT, "tests", "data", "logs", "tf-cudnn-9.0-vs-9.3-kaggle.log")
ENV = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
CMD = [sys.executable, "-m", "envcheck"]


def run(args, stdin=subprocess.DEVNULL):
    r = subprocess.run(CMD + list(args), stdin=stdin, capture_output=True, env=ENV, timeout=120)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def endless(args, line=b"y\n"):
    """``args`` reading an endless pipe (a producer that never stops writing)."""
    producer = subprocess.Popen([sys.executable, "-c",
                                 "import sys\nb = sys.argv[1].encode() * 4096\n"
                                 "try:\n    while True: sys.stdout.buffer.write(b)\nexcept (BrokenPipeError, OSError):\n"
                                 "    pass", line.decode()],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        return run(args, stdin=producer.stdout)
    finally:
        producer.stdout.close()
        producer.kill()
        producer.wait()


@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/urandom"])
def test_explain_refuses_a_character_device_as_file(dev):
    code, out, err = run(["explain", "--no-detect", dev])
    assert code == 2, err
    assert "character device" in err and dev in err and out == ""


@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/urandom"])
def test_explain_refuses_a_character_device_on_stdin(dev):
    with open(dev, "rb") as fh:
        code, out, err = run(["explain", "--no-detect", "-"], stdin=fh)
    assert code == 2, err
    assert "standard input is a character device" in err


def test_explain_reads_dev_null_as_empty():
    with open(os.devnull, "rb") as fh:
        code, out, err = run(["explain", "--no-detect", "--json", "-"], stdin=fh)
    assert code == 1, err
    assert json.loads(out)["matches"] == []


def test_explain_refuses_a_named_fifo_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    code, _, err = run(["explain", "--no-detect", str(fifo)])
    assert code == 2, err
    assert "is a FIFO" in err and "- <" in err


def test_explain_refuses_a_folder(tmp_path):
    code, _, err = run(["explain", "--no-detect", str(tmp_path)])
    assert code == 2 and "is a folder" in err


def test_explain_endless_pipe_stops_at_max_bytes_and_says_so():
    code, out, err = endless(["explain", "--no-detect", "--json", "--max-bytes", "1M"])
    assert code == 2, err  # cut, nothing recognised: the cause may be in the part not read
    rep = json.loads(out)
    assert rep["detected"] is None  # --no-detect still holds
    assert rep["truncated_at"] == 1024 * 1024
    assert rep["lines_scanned"] == 1024 * 1024 // 2
    assert any("only the first 1048576 bytes" in n for n in rep["notes"])
    assert "only the first 1048576 bytes of standard input" in err


def test_explain_endless_pipe_of_a_known_failure_is_explained_and_cut():
    line = (b"E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:447] Loaded runtime CuDNN library: "
            b"9.0.0 but source was compiled with: 9.3.0.\n")
    code, out, err = endless(["explain", "--no-detect", "--max-bytes", "256K"], line=line)
    assert code == 0, err
    assert "[cudnn-version-mismatch]" in out
    assert "only the first 262144 bytes of standard input were read" in out  # the text shows the note


def test_explain_input_exactly_at_the_limit_is_not_cut(tmp_path):
    data = open(LOG, "rb").read()
    p = tmp_path / "exact.log"
    p.write_bytes(data)
    code, out, err = run(["explain", "--no-detect", "--json", "--max-bytes", str(len(data)), str(p)])
    assert code == 0, err
    assert "truncated_at" not in json.loads(out)
    code, out, err = run(["explain", "--no-detect", "--json", "--max-bytes", str(len(data) - 1), str(p)])
    assert json.loads(out)["truncated_at"] == len(data) - 1


def test_explain_bad_max_bytes_is_a_usage_error():
    code, _, err = run(["explain", "--no-detect", "--max-bytes", "lots", LOG])
    assert code == 2 and "is not a size" in err


@pytest.mark.skipif(not shutil.which("bash"), reason="needs bash for a process substitution")
def test_explain_reads_a_process_substitution():
    r = subprocess.run(["bash", "-c", 'exec "$@" <(cat "$0")', LOG, *CMD, "explain", "--no-detect", "--json"],
                       capture_output=True, env=ENV, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["matches"][0]["id"] == "cudnn-version-mismatch"


def test_fleet_summarize_refuses_dev_zero_on_stdin():
    with open("/dev/zero", "rb") as fh:
        code, _, err = run(["fleet", "summarize", "-"], stdin=fh)
    assert code == 2, err
    assert "standard input is a character device" in err


def test_fix_pins_fifo_and_device_are_refused(tmp_path):
    fifo = tmp_path / "requirements.txt"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        code, _, err = run(["fix", "--check-pins", path])
        assert code == 2, err
        assert "not a regular file" in err or "FIFO" in err or "character device" in err


def test_a_fifo_as_the_test_key_file_is_refused_not_waited_on(tmp_path):
    """ENVCHECK_MATRIX_PUBKEY names a FIFO nobody writes: reading the trusted keys says so at once."""
    fifo = tmp_path / "keys.pub"
    os.mkfifo(fifo)
    code = ("from envcheck.matrix.signing import SignatureError, trusted_keys\n"
            "try:\n    trusted_keys()\nexcept SignatureError as exc:\n    print(exc)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(ENV, ENVCHECK_MATRIX_PUBKEY=str(fifo)))
    assert r.returncode == 0, r.stderr
    assert "ENVCHECK_MATRIX_PUBKEY" in r.stdout and "FIFO" in r.stdout
