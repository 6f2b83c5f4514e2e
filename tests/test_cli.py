"""End to end through the CLI: live probes against fake tools and a fake /proc-/sys tree,
real subprocesses, snapshot round trips, exit codes."""

import json
import os
import stat
import subprocess
import sys
import tarfile

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from helpers import fixture, gpu_machine, make_snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_exe(d, name, body):
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory):
    """A venv with no packages, so that the frameworks installed where the tests run (torch, tensorflow) do not
    change what a fake machine reports (read through ENVCHECK_INTERPRETER)."""
    d = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(d)], check=True)
    return str(d / "bin" / "python")


@pytest.fixture
def fake_machine(tmp_path, bare_python):
    """A fake GPU box: nvidia-smi / nvcc printing real captures, /proc and /sys texts under a fake root."""
    bin_dir = tmp_path / "bin"
    root = tmp_path / "root"
    (root / "proc/driver/nvidia").mkdir(parents=True)
    (root / "sys/module/nvidia").mkdir(parents=True)
    (root / "proc/driver/nvidia/version").write_text(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
        "(dvs-builder@U16-I3-B03-4-1)  Thu Feb 22 01:25:25 UTC 2024\nGCC version:  gcc version 12.3.0\n")
    (root / "sys/module/nvidia/version").write_text("550.54.14\n")
    table = tmp_path / "table.txt"
    table.write_text(gpu_machine("550.54.14", "12.4", [("NVIDIA H100 80GB HBM3", 81559)])["nvidia-smi.txt"])
    query = tmp_path / "query.csv"
    query.write_text("index, name, driver_version, compute_cap, memory.total [MiB]\n"
                     "0, NVIDIA H100 80GB HBM3, 550.54.14, 9.0, 81559 MiB\n")
    make_exe(bin_dir, "nvidia-smi", f'case "$1" in --query-gpu=*) cat {query};; *) cat {table};; esac')
    make_exe(bin_dir, "nvcc", "printf 'nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, release "
                              "12.4, V12.4.131\\n'")
    env = dict(os.environ)
    env.update({"PATH": f"{bin_dir}:/usr/bin:/bin", "ENVCHECK_FS_ROOT": str(root), "NO_COLOR": "1",
                "PYTHONPATH": ROOT, "ENVCHECK_PROBE_TIMEOUT": "5", "ENVCHECK_INTERPRETER": bare_python})
    for k in ("CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "UV_CUDA_DRIVER_VERSION",
              "CONDA_OVERRIDE_CUDA"):
        env.pop(k, None)
    return {"bin": bin_dir, "root": root, "env": env, "tmp": tmp_path}


def envcheck(args, env, **kw):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], env=env, capture_output=True, text=True,
                          timeout=120, **kw)


def test_live_status_reads_fake_tools(fake_machine):
    r = envcheck(["status", "--json"], fake_machine["env"])
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["schema"] == "envcheck/report/1"
    assert rep["driver"]["version"] == "550.54.14" and rep["driver"]["cuda"] == "12.4"
    assert rep["driver"]["kernel_module"] == "open"
    assert rep["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert rep["gpus"][0]["compute_capability"] == "9.0" and rep["gpus"][0]["memory_mib"] == 81559
    assert rep["toolkit"]["version"] == "12.4" and rep["toolkit"]["nvcc"] == "12.4.131"


@pytest.mark.parametrize("body,expect_problem", [
    ("sleep 60", "timed-out"),
    ("head -c 3000 /dev/urandom", None),
    ("echo 'Segmentation fault'; exit 9", None),
])
def test_live_status_survives_broken_nvidia_smi(fake_machine, body, expect_problem):
    make_exe(fake_machine["bin"], "nvidia-smi", body)
    env = dict(fake_machine["env"], ENVCHECK_PROBE_TIMEOUT="1")
    r = envcheck(["status", "--json"], env)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr
    rep = json.loads(r.stdout)
    # the kernel module still tells the driver
    assert rep["driver"]["version"] == "550.54.14"
    if expect_problem:
        assert any(p["status"] == expect_problem and p["capture"] == "nvidia-smi.txt" for p in rep["problems"])


def test_nvidia_smi_no_driver_text(fake_machine):
    make_exe(fake_machine["bin"], "nvidia-smi", "echo \"NVIDIA-SMI has failed because it couldn't communicate with "
                                                "the NVIDIA driver. Make sure that the latest NVIDIA driver is "
                                                "installed and running.\"; exit 9")
    for p in ("proc/driver/nvidia/version", "sys/module/nvidia/version"):
        os.unlink(fake_machine["root"] / p)
    r = envcheck(["status", "--json"], fake_machine["env"])
    rep = json.loads(r.stdout)
    assert [f["id"] for f in rep["findings"]] == ["no-gpu-driver"]
    assert "couldn't communicate" in rep["findings"][0]["evidence"]


def test_snapshot_round_trip_gives_the_same_report(fake_machine):
    env = fake_machine["env"]
    snap_dir = fake_machine["tmp"] / "snap"
    r = envcheck(["snapshot", str(snap_dir)], env)
    assert r.returncode == 0, r.stderr
    assert (snap_dir / "nvidia-smi.txt").read_text() == (fake_machine["tmp"] / "table.txt").read_text()
    live = json.loads(envcheck(["status", "--json"], env).stdout)
    # replay with no tools at all on PATH and no fake root: nothing live may be read
    bare = dict(env, PATH="/nonexistent", ENVCHECK_FS_ROOT="/nonexistent")
    replay = json.loads(envcheck(["status", "--json", "--snapshot", str(snap_dir)], bare).stdout)
    for rep in (live, replay):
        rep.pop("source")
        rep.pop("created")  # when each report was made
    assert replay == live
    # archive round trip
    r = envcheck(["snapshot", "--archive", "--from", str(snap_dir), str(fake_machine["tmp"] / "node")], env)
    assert r.returncode == 0, r.stderr
    arch = fake_machine["tmp"] / "node.tar.gz"
    with tarfile.open(arch) as tf:
        assert "node/nvidia-smi.txt" in tf.getnames()
    replay2 = json.loads(envcheck(["status", "--json", "--snapshot", str(arch)], bare).stdout)
    replay2.pop("source")
    replay2.pop("created")
    assert replay2 == live


def test_snapshot_replay_runs_no_command(fake_machine, tmp_path):
    marker = tmp_path / "ran"
    make_exe(fake_machine["bin"], "nvidia-smi", f"touch {marker}; echo x")
    make_exe(fake_machine["bin"], "nvcc", f"touch {marker}; echo x")
    d = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)]))
    r = envcheck(["status", "--snapshot", d], fake_machine["env"])
    assert r.returncode == 0, r.stderr
    assert not marker.exists()


def test_snapshot_refuses_to_overwrite(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {})
    res = CliRunner().invoke(cli, ["snapshot", "--from", d, d])
    assert res.exit_code != 0
    other = tmp_path / "notes"
    other.mkdir()
    (other / "important.txt").write_text("keep me")
    from envcheck.cli import main
    with pytest.raises(SystemExit) as e:
        main(["snapshot", "--from", d, "--force", str(other)])
    assert e.value.code == 2
    assert (other / "important.txt").read_text() == "keep me"


@pytest.mark.parametrize("content", [None, "garbage-archive"])
def test_unreadable_snapshot_is_exit_2(tmp_path, content):
    from envcheck.cli import main
    path = tmp_path / "missing"
    if content:
        path = tmp_path / "bad.tar.gz"
        path.write_text(content)
    with pytest.raises(SystemExit) as e:
        main(["status", "--snapshot", str(path)])
    assert e.value.code == 2


def test_garbage_snapshot_files_do_not_crash(tmp_path, run_status):
    junk = "\x00\xff garbage {[ not json\n" * 50
    d = make_snapshot(str(tmp_path / "s"), {k: junk for k in (
        "nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "sys-module-nvidia-version.txt",
        "libcuda.json", "nvml.json", "nvcc.txt", "cuda-version.json", "ldconfig.txt", "cudnn_version.h",
        "libraries.txt", "environ.json", "packages.json", "torch.json", "tensorflow.json", "python.json")})
    code, rep, _ = run_status(d)
    assert code in (0, 1) and rep["driver"]["version"] is None


def test_text_and_markdown_outputs(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                        cc=["8.0"]))
    res = CliRunner().invoke(cli, ["status", "--snapshot", d], env={"NO_COLOR": "1"})
    assert res.exit_code == 0
    assert "535.104.05" in res.output and "NVIDIA A100-SXM4-40GB" in res.output
    assert "\x1b[" not in res.output
    res = CliRunner().invoke(cli, ["status", "--markdown", "--snapshot", d])
    assert res.output.startswith("### envcheck status: OK") and "| driver |" in res.output
    res = CliRunner().invoke(cli, ["status", "--json", "--markdown", "--snapshot", d])
    assert res.exit_code == 2


def test_quiet_and_report_file(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), {})
    out = tmp_path / "r" / "report.json"
    res = CliRunner().invoke(cli, ["status", "-q", "--report", str(out), "--snapshot", d])
    assert res.exit_code == 0 and res.output == ""
    assert json.loads(out.read_text())["schema"] == "envcheck/report/1"


def test_status_piped_into_head_has_no_traceback(tmp_path):
    d = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)]))
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run(f"'{sys.executable}' -m envcheck status --markdown --snapshot '{d}' | head -c 10",
                       shell=True, env=env, capture_output=True, text=True, timeout=60)
    assert p.stdout == "### envche"
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr


def test_usage_error_is_exit_2():
    from envcheck.cli import main
    with pytest.raises(SystemExit) as e:
        main(["status", "--no-such-option"])
    assert e.value.code == 2


def test_console_script_and_module_agree():
    r = subprocess.run([sys.executable, "-m", "envcheck", "--version"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0 and r.stdout.startswith("envcheck, version ")


def test_this_machine_live_never_crashes():
    """Whatever this machine is, status answers with a report and exit 0 or 1."""
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert r.returncode in (0, 1), r.stderr
    rep = json.loads(r.stdout)
    assert set(rep) >= {"schema", "hostname", "ok", "driver", "gpus", "toolkit", "cudnn", "python", "frameworks",
                        "findings"}


def test_real_fixture_table_through_snapshot(tmp_path, run_status):
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "tests/data/nvidia-smi")) if n.endswith(".txt"))
    assert names
    for n in names:
        d = make_snapshot(str(tmp_path / n), {"nvidia-smi.txt": fixture("nvidia-smi", n)})
        code, rep, _ = run_status(d)
        assert code in (0, 1)
