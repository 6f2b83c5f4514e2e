"""Attacks of helper attack33 (issue 20 / 21 / 24 follow-up): each test failed before its fix.

* Sentences (paste reader ``prose_facts``): a version the sentence denies ("I'm not using torch 2.1.0", "without
  CUDA 12.1", "I removed CUDA 12.1", "... is not installed") or gives to someone or something else ("my friend has
  driver 450.80.02", "@bob said: I have CUDA 11.8", "my other machine") is not the reporter's: not read. Read as the
  reporter's, a friend's driver made ``explain`` say ``driver-too-old`` about the reporter's machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers.prose_facts import line_facts


def _facts(line: str) -> dict:
    return {f.field: f.value for f in line_facts(line.strip(), line.strip().lower()) if f.field != "prose"
            and not f.field.startswith("seen:")}


@pytest.mark.parametrize("line", [
    "I'm not using torch 2.1.0",
    "I am no longer using torch 2.1.0",
    "Not using cuda 12.1",
    "I have not CUDA 12.1 but 11.8",
    "I have removed CUDA 12.1",
    "I have deleted cuda 11.8 and now use nothing",
    "My CUDA 12.1 is not installed",
    "my torch 2.1.0 is broken so I reinstalled 2.2.0",
    "Currently I'm going to move off CUDA 12.1",
    "my friend has driver 535.104.05",
    "my colleague is using torch 2.3.0",
    "My coworker's machine has CUDA 11.8",
    "@bob said: I have CUDA 11.8",
    "He said my torch version is 2.6.0",
    "my other machine has CUDA 11.8",
    "another user has CUDA 12.1",
    "I have a GTX 1080 in my other machine",
])
def test_a_denied_or_someone_elses_version_is_not_read(line):
    assert _facts(line) == {}


@pytest.mark.parametrize("line,want", [
    ("I have CUDA 12.1", {"claim.cuda": "12.1"}),
    ("I'm using torch 2.1.0 without CUDA 12.1", {"torch.version": "2.1.0"}),
    ("my driver version is 470.82.01", {"driver_prose": "470.82.01"}),
    ("my GPU is a GTX 1080", {"gpu_prose_named": "GTX 1080"}),
    # the friend's GPU is another comma-part's: the reporter's own is read (facts20s: facts judged per comma-part)
    ("my GPU is a RTX 3090, my friend's GPU is a GTX 1080", {"gpu_prose_named": "RTX 3090"}),
    ("I'm using CUDA 12.1 and get this error", {"claim.cuda": "12.1"}),
    ("As a Windows user, I am using CUDA 12.1", {"claim.cuda": "12.1"}),
    ("I can't run it, I'm using torch 2.1.0", {"torch.version": "2.1.0"}),
])
def test_the_reporters_own_version_is_still_read(line, want):
    assert _facts(line) == want


def test_a_friends_driver_is_no_driver_too_old():
    text = ("My friend has driver 450.80.02 on his laptop.\n"
            "I'm using torch 2.1.0+cu121.\n"
            "RuntimeError: Found no NVIDIA driver on your system.\n")
    doc = explain_text_document(text)
    assert "driver-too-old" not in [m["id"] for m in doc.get("matches") or []]
    assert (doc.get("facts") or {}).get("driver", {}).get("version") is None


# --------------------------------------------------------------------------- envcheck run
def _run(args, cwd, **kw):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": root, "NO_COLOR": "1", "ENVCHECK_MODE": "off"})
    return subprocess.run([sys.executable, "-m", "envcheck", "run", *args], env=env, cwd=cwd, capture_output=True,
                          timeout=120, **kw)


def test_run_a_failure_with_no_error_output_is_not_said_to_be_read(tmp_path):
    """`envcheck run -- false`: nothing on stderr; "not recognised in the end of its error output" suggested a text
    was read."""
    import sys

    r = _run(["--", sys.executable, "-c", "import sys; sys.exit(5)"], tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 5
    assert "wrote nothing to its error output" in err and "was recognised" not in err


def test_run_says_its_standard_output_is_not_read(tmp_path):
    """A job that prints its CUDA error on stdout and something else on stderr: nothing known on stderr, and the
    verdict says stdout was not read (it said only that the cause is outside what envcheck knows)."""
    import sys

    code = "import sys; print('RuntimeError: CUDA error: out of memory'); sys.stderr.write('oops\\n'); sys.exit(3)"
    r = _run(["--", sys.executable, "-c", code], tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 3
    assert "No known CUDA / cuDNN / driver failure was recognised" in err and "standard output" in err


def test_run_a_script_with_a_missing_interpreter_is_no_command_not_found(tmp_path):
    """The script exists; its "#!" interpreter does not: not "command not found" (exit status 127 as a shell's)."""
    script = tmp_path / "job.sh"
    script.write_text("#!/no/such/interpreter\necho hi\n")
    script.chmod(0o755)
    r = _run(["--", "./job.sh"], tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 127
    assert "command not found" not in err and "interpreter" in err and "./job.sh" in err


# --------------------------------------------------------------------------- tf.test.is_built_with_cuda()
_TF_BEFORE_AFTER = """Before the reinstall:
>>> import tensorflow as tf
>>> tf.test.is_built_with_cuda()
False
After `conda install tensorflow=2.15=cuda120py311h`:
>>> tf.test.is_built_with_cuda()
True

# packages in environment at /home/u/miniconda3/envs/tf:
# Name                    Version                   Build  Channel
tensorflow                2.15.0          cuda120py311hd7ee0a4_3    conda-forge
tensorflow-base           2.15.0          cuda120py311h4e5d1b3_3    conda-forge
python                    3.11.7          hab00c5b_1_cpython    conda-forge
"""


def test_both_answers_of_is_built_with_cuda_are_unknown_not_cpu_only():
    """A paste of before and after a reinstall shows False then True: the first answer made explain say the binary
    is CPU-only (framework-cpu-only) although the last one says the CUDA build is in."""
    doc = explain_text_document(_TF_BEFORE_AFTER)
    assert "framework-cpu-only" not in [m["id"] for m in doc.get("matches") or []]
    assert any("built with CUDA" in n and "not certain" in n for n in doc.get("notes") or [])


def test_one_false_answer_beside_a_cuda_conda_build_is_still_cpu_only():
    text = _TF_BEFORE_AFTER.replace(">>> tf.test.is_built_with_cuda()\nTrue\n", "")
    doc = explain_text_document(text)
    assert "framework-cpu-only" in [m["id"] for m in doc.get("matches") or []]


# --------------------------------------------------------------------------- torch.toml python_windows
@pytest.mark.parametrize("release", ["1.8.0", "1.8.1", "1.9.0", "1.9.1", "1.10.0", "1.10.1", "1.10.2"])
def test_windows_python_36_wheels_are_listed(release):
    """PyPI holds cp36 win_amd64 wheels of torch 1.7.0-1.10.2 (Requires-Python >= 3.6.2: `pip install --dry-run
    --only-binary=:all: --no-deps --platform win_amd64 --python-version 3.6.9 torch==0.0.0` lists them; the matrix's
    reading with `--python-version 3.6` filtered them out), and none for macOS arm64."""
    from envcheck.engine.builds import release_supports_python
    from envcheck.matrix import load_matrix

    mx = load_matrix()
    assert release_supports_python(mx, "torch", release, "3.6.9", platform="windows") is True
    assert release_supports_python(mx, "torch", release, "3.6.9", platform="darwin", machine="arm64") is None


# --------------------------------------------------------------------------- fix plans on macOS arm64 / Windows
def _fix_json(args, cwd):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": root, "NO_COLOR": "1"})
    r = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--json", *args], env=env, cwd=cwd,
                       capture_output=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr.decode()[-2000:]
    return json.loads(r.stdout)


def _mac(tmp_path, python):
    from tests.helpers import write_snapshot_files

    return write_snapshot_files(tmp_path, {
        "sw-vers.txt": "ProductName:\tmacOS\nProductVersion:\t13.6.1\nBuildVersion:\t22G313\n",
        "python.json": '{"platform": "darwin", "machine": "arm64", "version": "%s", "implementation": "CPython"}'
                       % python,
        "packages.json": '{"torch": "2.5.1"}'})


@pytest.mark.parametrize("python,want", [("3.13.1", "torch==2.5.1"), ("3.11.7", "torch==1.13.1")])
def test_mac_arm64_plan_only_a_release_with_a_wheel_for_its_python(tmp_path, python, want):
    """PyPI has no macOS arm64 wheel of torch 2.5.1 for CPython 3.13, nor of 1.13.1 for 3.11 (`pip install --dry-run
    --only-binary=:all: --platform macosx_15_0_arm64 --python-version X.Y torch==0.0.0`: 3.13 from 2.6.0, 3.11 from
    2.0.0; torch.toml python_macos_arm64); the plan used the Linux list and printed `pip install` lines that cannot
    install."""
    doc = _fix_json(["--snapshot", str(_mac(tmp_path, python)), "--want", want], tmp_path)
    assert doc["satisfiable"] is False, doc
    assert "wheels for Python" in doc["reason"]


def test_mac_arm64_plan_with_python_313_is_a_release_that_has_its_wheel(tmp_path):
    doc = _fix_json(["--snapshot", str(_mac(tmp_path, "3.13.1")), "--want", "torch"], tmp_path)
    assert doc["satisfiable"] is True
    from envcheck.matrix import load_matrix

    got = [p for p in doc["packages"] if p["name"] == "torch"][0]["version"]
    assert "3.13" in (load_matrix().torch_release(got) or {}).get("python_macos_arm64")


@pytest.mark.parametrize("python,want", [("3.13", "torch==2.5.1"), ("3.11", "torch==1.13.1")])
def test_windows_plan_only_a_release_with_a_wheel_for_its_python(tmp_path, python, want):
    """torch 2.5.1's cp313 and 1.13.1's cp311 wheels are Linux-only (PyPI's win_amd64 lists, torch.toml
    python_windows; the CUDA variants of one release come from one build matrix): a Windows plan of them for that
    Python cannot install."""
    doc = _fix_json(["--platform", "windows-x86_64", "--python", python, "--driver", "536.23", "--gpu",
                     "GeForce RTX 3060", "--want", want], tmp_path)
    assert doc["satisfiable"] is False, doc
    assert f"Python {python} has no wheels" in doc["reason"]


# --------------------------------------------------------------------------- the guard and TorchScript
def test_guarded_model_scripts_and_traces():
    """docs/guard.md: torch.jit.script of a guarded model compiles its layers from their classes (the scripted copy is
    unguarded, the model stays guarded); torch.jit.trace works guarded. (Before guard25 the guard's pre-hooks made
    script fail until handle.remove().)"""
    torch = pytest.importorskip("torch")
    import envcheck.guard as guard

    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
    x = torch.randn(2, 3, 8, 8)
    h = guard.install(m)
    torch.jit.trace(m, x)
    assert torch.jit.script(m)(x).shape == (2, 4, 6, 6)
    with pytest.raises(guard.GuardError):
        m(torch.randn(0, 3, 8, 8))
    h.remove()
    assert torch.jit.script(m)(x).shape == (2, 4, 6, 6)


# --------------------------------------------------------------------------- python.json's platform / machine
def test_a_python_json_machine_of_other_characters_is_unknown(tmp_path):
    """`{"machine": "x86_64\\x9b2J"}` (a C1 CSI and more) made the plan's platform "linux-x86_64?2j" and said the CUDA
    builds are "not published for linux-x86_64?2j": a value sys.platform / platform.machine() never prints is
    unknown."""
    from tests.helpers import write_snapshot_files

    snap = write_snapshot_files(tmp_path, {
        "python.json": '{"version": "3.11.2", "platform": "linux", "machine": "x86_64\\u009b2J"}',
        "nvidia-smi.txt": (Path(__file__).parent / "data" / "real" / "h100-580.159.04-torch2.11-cu130" / "snapshot"
                           / "nvidia-smi.txt").read_text()})
    doc = _fix_json(["--snapshot", str(snap), "--want", "torch"], tmp_path)
    assert doc["target"]["platform"] is None
    assert "x86_64\u009b" not in json.dumps(doc, ensure_ascii=False).lower()


# -- a packages.json value that is not a version (lead, from attack33's report) ---------------------------------
@pytest.mark.parametrize("value", ["NaN", "latest", "unknown", "  "])
def test_a_framework_version_that_is_not_a_version_is_unknown_and_said(tmp_path, value):
    """``{"torch": "NaN"}`` showed "torch NaN ... ok": a value no installer writes is unknown (the framework is still
    installed), and the note names the value so the user can supply the real one."""
    from tests.helpers import status_of_files

    rep = status_of_files(tmp_path, {"packages.json": json.dumps({"torch": value, "numpy": "1.26.4"})})
    torch = rep["frameworks"]["torch"]
    assert torch is not None and torch["version"] is None, torch
    said = " ".join(n if isinstance(n, str) else json.dumps(n) for n in rep["notes"])
    if value.strip():
        assert "not a version" in said and repr(value) in said, rep["notes"]


def test_a_version_with_a_v_or_a_local_label_is_still_read(tmp_path):
    from tests.helpers import status_of_files

    rep = status_of_files(tmp_path, {"packages.json": json.dumps({"torch": "2.1.0+cu121", "jax": "0.4.30"})})
    assert rep["frameworks"]["torch"]["version"] == "2.1.0+cu121" and rep["frameworks"]["jax"]["version"] == "0.4.30"
    assert not any("not a version" in str(n) for n in rep["notes"])
