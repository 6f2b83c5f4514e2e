"""`envcheck smoke`: a real torch run on the CPU, and child isolation with fake frameworks.

The fake `tensorflow` / `jax` packages are written into a temporary folder put on PYTHONPATH for
envcheck and its child. Every attribute of the fake module is a callable placeholder; calling the
attribute named by FAKE_TRIGGER (e.g. `nn.conv2d`, or `import` for the import itself) segfaults,
aborts, hangs or raises FAKE_ERROR, as FAKE_ACTION says. The error texts are real ones, copied
from the public reports named next to them.
"""

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Real TensorFlow error text: https://github.com/cjy1992/interp-e2e-driving/issues/30
TF_CUDNN_INIT = ("Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try "
                 "looking to see if a warning log message was printed above. [Op:Conv2D]")
# Real stderr before an abort: https://github.com/daswer123/xtts-finetune-webui/issues/31
CUDNN_LOAD_ABORT = ("Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open "
                    "shared object file: No such file or directory")

FAKE = textwrap.dedent('''
    """A fake {name} for envcheck's smoke tests (not the real framework)."""
    import os, signal, sys, time

    __version__ = "0.0.0+fake"
    _ACTION = os.environ.get("FAKE_ACTION", "")
    _TRIGGER = os.environ.get("FAKE_TRIGGER", "")


    class UnknownError(Exception):
        pass


    def _act():
        msg = os.environ.get("FAKE_STDERR")
        if msg:
            sys.stderr.write(msg + "\\n")
            sys.stderr.flush()
        if _ACTION == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif _ACTION == "abort":
            os.abort()
        elif _ACTION == "hang":
            time.sleep(3600)
        elif _ACTION == "raise":
            raise UnknownError(os.environ.get("FAKE_ERROR", "fake error"))


    class _Any:
        def __init__(self, path):
            self._path = path

        def __getattr__(self, name):
            return _Any(self._path + "." + name)

        def __call__(self, *args, **kwargs):
            if self._path == _TRIGGER:
                _act()
            return _Any(self._path + "()")

        def __iter__(self):
            return iter(())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False


    def __getattr__(name):
        return _Any(name)


    if _TRIGGER == "import":
        _act()
''')


@pytest.fixture
def fakes(tmp_path):
    for name in ("tensorflow", "jax"):
        pkg = tmp_path / name
        pkg.mkdir()
        (pkg / "__init__.py").write_text(FAKE.format(name=name))
    return str(tmp_path)


def run_smoke(args, extra_env=None, pythonpath=None, timeout=120):
    env = dict(os.environ)
    env.pop("FAKE_ACTION", None)
    # the caller's PYTHONPATH stays last: on a machine whose dependencies live on it (a GPU box with a --target
    # install) the child must still import them
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, ROOT, os.environ.get("PYTHONPATH")) if p)
    env.update(extra_env or {})
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "envcheck", "smoke", *args], capture_output=True, text=True,
                       env=env, timeout=timeout)
    return r, time.monotonic() - t0


def explain_present():
    try:
        from envcheck.explain import explain_text  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return True


def steps_by_name(fw):
    return {s["name"]: s for s in fw["steps"]}


# ------------------------------------------------------------------------------------------------
# real torch
# ------------------------------------------------------------------------------------------------
def test_torch_runs_for_real_on_this_machine():
    torch = pytest.importorskip("torch")
    r, _ = run_smoke(["--framework", "torch", "--json"])
    doc = json.loads(r.stdout)
    assert doc["schema"] == "envcheck/smoke/1"
    (fw,) = doc["frameworks"]
    assert fw["name"] == "torch" and fw["version"] == torch.__version__
    steps = steps_by_name(fw)
    for name in ("import", "device", "conv2d", "batch_norm", "lstm", "matmul"):
        assert steps[name]["passed"], steps[name]
        assert isinstance(steps[name]["seconds"], float) and steps[name]["seconds"] >= 0
        assert steps[name]["error"] is None and steps[name]["diagnosis"] == []
    assert doc["ok"] is True and fw["passed"] is True and r.returncode == 0
    if not torch.cuda.is_available():
        assert fw["device"] == "cpu"
        assert any("no GPU: ran on CPU" in n for n in fw["notes"])
        assert "fp16" not in steps and "bf16" not in steps  # not run on the CPU, and said so
        assert any(n.startswith("fp16 not run") for n in fw["notes"])


def test_torch_text_output_says_cpu_clearly():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    r, _ = run_smoke(["-f", "torch"])
    assert r.returncode == 0, r.stderr
    assert "no GPU: ran on CPU; this verifies the framework imports and computes, not the CUDA stack" in r.stdout
    assert "PASS  conv2d" in r.stdout and "OK: 1 framework(s) passed." in r.stdout


def test_device_cuda_without_gpu_fails_the_device_step():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    r, _ = run_smoke(["-f", "torch", "--device", "cuda", "--json"])
    doc = json.loads(r.stdout)
    steps = steps_by_name(doc["frameworks"][0])
    assert r.returncode == 1 and doc["ok"] is False
    assert steps["device"]["passed"] is False
    assert "torch.cuda.is_available() is False" in steps["device"]["error"]
    assert "conv2d" not in steps  # --device cuda: nothing is run on the CPU instead


# ------------------------------------------------------------------------------------------------
# child isolation with fake frameworks
# ------------------------------------------------------------------------------------------------
def test_segfault_mid_way_keeps_earlier_steps(fakes):
    r, took = run_smoke(["-f", "tensorflow", "--json", "--timeout", "60"], pythonpath=fakes,
                        extra_env={"FAKE_ACTION": "segv", "FAKE_TRIGGER": "nn.conv2d",
                                   "FAKE_STDERR": "fake tensorflow: about to crash in conv2d"})
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    fw = doc["frameworks"][0]
    steps = steps_by_name(fw)
    assert steps["import"]["passed"] and steps["device"]["passed"]  # streamed before the crash
    assert fw["version"] == "0.0.0+fake"
    conv = steps["conv2d"]
    assert conv["passed"] is False
    assert "SIGSEGV" in conv["error"] and "during step 'conv2d'" in conv["error"]
    assert "fake tensorflow: about to crash in conv2d" in conv["error"]  # the stderr tail
    assert fw["crashed"] == "SIGSEGV" and list(steps)[-1] == "conv2d"
    assert took < 60


def test_abort_reports_signal_and_stderr_tail_with_diagnosis(fakes):
    r, _ = run_smoke(["-f", "jax", "--json"], pythonpath=fakes,
                     extra_env={"FAKE_ACTION": "abort", "FAKE_TRIGGER": "lax.conv_general_dilated",
                                "FAKE_STDERR": CUDNN_LOAD_ABORT})
    assert r.returncode == 1
    fw = json.loads(r.stdout)["frameworks"][0]
    conv = steps_by_name(fw)["conv2d"]
    assert fw["crashed"] == "SIGABRT" and "SIGABRT" in conv["error"]
    assert "libcudnn_ops_infer.so.8: cannot open shared object file" in conv["error"]
    if explain_present():
        assert "cudnn-missing" in [d["id"] for d in conv["diagnosis"]], conv["diagnosis"]


def test_hang_is_killed_within_the_timeout(fakes):
    r, took = run_smoke(["-f", "tensorflow", "--json", "--timeout", "4"], pythonpath=fakes,
                        extra_env={"FAKE_ACTION": "hang", "FAKE_TRIGGER": "nn.conv2d"})
    assert r.returncode == 1
    fw = json.loads(r.stdout)["frameworks"][0]
    steps = steps_by_name(fw)
    assert fw["timed_out"] is True
    assert steps["conv2d"]["passed"] is False and "no answer within 4 s" in steps["conv2d"]["error"]
    assert steps["import"]["passed"]
    assert took < 30  # 4 s timeout plus interpreter start-ups, not the fake's hour-long sleep


def test_hang_at_import_kills_the_whole_process_group(fakes, tmp_path):
    # The fake starts a grandchild that would outlive a plain kill of the child.
    marker = tmp_path / "grandchild.pid"
    env = {"FAKE_ACTION": "hang", "FAKE_TRIGGER": "import"}
    code = ("import subprocess, sys, os; p = subprocess.Popen([sys.executable, '-c', 'import time; "
            "time.sleep(3600)']); open(os.environ['MARKER'], 'w').write(str(p.pid))")
    with open(os.path.join(fakes, "jax", "__init__.py"), "r+") as fh:
        src = fh.read()
        fh.seek(0)
        fh.write(f"exec({code!r})\n" + src)
    r, took = run_smoke(["-f", "jax", "--json", "--timeout", "4"], pythonpath=fakes,
                        extra_env=dict(env, MARKER=str(marker)))
    fw = json.loads(r.stdout)["frameworks"][0]
    assert fw["timed_out"] and steps_by_name(fw)["import"]["passed"] is False
    pid = int(marker.read_text())
    time.sleep(0.5)
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as fh:
            alive = fh.read().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        alive = False
    assert not alive, "the grandchild survived the timeout"


def test_real_world_error_text_is_reported_and_explained(fakes):
    r, _ = run_smoke(["-f", "tensorflow", "--json"], pythonpath=fakes,
                     extra_env={"FAKE_ACTION": "raise", "FAKE_TRIGGER": "nn.conv2d", "FAKE_ERROR": TF_CUDNN_INIT})
    assert r.returncode == 1
    fw = json.loads(r.stdout)["frameworks"][0]
    conv = steps_by_name(fw)["conv2d"]
    assert conv["error"] == "UnknownError: " + TF_CUDNN_INIT
    assert fw["crashed"] is None and fw["timed_out"] is False
    # the child survived the exception and went on with the next steps
    assert {"batch_norm", "lstm", "matmul"} <= set(steps_by_name(fw))
    if explain_present():
        assert "cudnn-not-initialized" in [d["id"] for d in conv["diagnosis"]], conv["diagnosis"]
    text, _ = run_smoke(["-f", "tensorflow"], pythonpath=fakes,
                        extra_env={"FAKE_ACTION": "raise", "FAKE_TRIGGER": "nn.conv2d", "FAKE_ERROR": TF_CUDNN_INIT})
    assert "FAIL  conv2d" in text.stdout and "Failed to get convolution algorithm" in text.stdout
    if explain_present():
        assert "diagnosis [cudnn-not-initialized]" in text.stdout


def test_segfault_at_import_and_several_frameworks(fakes):
    r, _ = run_smoke(["-f", "jax", "-f", "tensorflow", "--json", "--device", "cpu"], pythonpath=fakes,
                     extra_env={"FAKE_ACTION": "segv", "FAKE_TRIGGER": "import"})
    doc = json.loads(r.stdout)
    assert [fw["name"] for fw in doc["frameworks"]] == ["jax", "tensorflow"]
    for fw in doc["frameworks"]:
        (step,) = fw["steps"]
        assert step["name"] == "import" and not step["passed"] and "SIGSEGV" in step["error"]
    assert r.returncode == 1 and doc["ok"] is False


# ------------------------------------------------------------------------------------------------
# usage
# ------------------------------------------------------------------------------------------------
def test_unknown_framework_is_a_usage_error():
    r, _ = run_smoke(["-f", "caffe"])
    assert r.returncode == 2 and "caffe" in r.stderr


def test_nothing_installed_is_a_usage_error(tmp_path):
    # A bare interpreter (python -I -S: no site-packages) has none of the frameworks.
    py = tmp_path / "bare-python"
    py.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    py.chmod(0o755)
    r, _ = run_smoke(["--python", str(py)])
    assert r.returncode == 2
    assert "no framework to test" in r.stderr


def test_named_but_missing_framework_is_a_failed_import(tmp_path):
    py = tmp_path / "bare-python"
    py.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    py.chmod(0o755)
    r, _ = run_smoke(["--python", str(py), "-f", "torch", "--json"])
    fw = json.loads(r.stdout)["frameworks"][0]
    assert r.returncode == 1
    assert fw["steps"][0]["name"] == "import" and "No module named 'torch'" in fw["steps"][0]["error"]


def test_smoke_command_does_not_import_frameworks_in_envcheck_itself(fakes):
    # The fake aborts on import: envcheck itself must never import it, only the child does.
    r, _ = run_smoke(["-f", "tensorflow", "--json", "--device", "cpu"], pythonpath=fakes,
                     extra_env={"FAKE_ACTION": "abort", "FAKE_TRIGGER": "import"})
    doc = json.loads(r.stdout)
    assert doc["frameworks"][0]["crashed"] == "SIGABRT" and r.returncode == 1
