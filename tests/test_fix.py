"""The resolver (``envcheck fix``): scenarios as data, an independent re-check of every plan, the contract
JSON, and --write-env."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from oracle import runs_on
from envcheck.environment import collect
from envcheck.matrix import load_matrix
from envcheck.model import DriverVersion
from envcheck.plan.output import env_file, plan_dict, requirements_txt
from envcheck.plan.resolve import parse_wants, resolve, target_from_env
from envcheck.snapshot import open_snapshot

from helpers import DATA, NO_DRIVER_LOOKED_FOR, gpu_machine, make_snapshot, torch_install

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

with open(os.path.join(DATA, "resolver", "scenarios.toml"), "rb") as fh:
    SCENARIOS = tomllib.load(fh)["scenario"]

M = load_matrix()


def _env(tmp_path, files=None):
    return collect(open_snapshot(make_snapshot(str(tmp_path / "snap"), files or {})), M)


#: the scenarios' machines were looked at: a driver capture that is absent was looked for and not found, and the
#: loader cache was read (no CUDA library in it: a system CUDA runtime / cuDNN is absent, not unknown)
_LOOKED_FOR = {**NO_DRIVER_LOOKED_FOR,
               "ldconfig.txt": "2 libs found in cache `/etc/ld.so.cache'\n"
                               "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
                               "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6\n"}


def _plan(tmp_path, sc):
    env = _env(tmp_path, _LOOKED_FOR)
    gpus = sc.get("gpus", [])
    target = target_from_env(env, M, python=sc.get("python"), driver=sc.get("driver"), gpus=gpus,
                             ccs=sc.get("ccs", []), platform=sc.get("platform"))
    return target, resolve(M, target, parse_wants(sc["wants"]), require_gpu=sc.get("require_gpu", False))


def _runs_independently(plan, target):
    """Re-check each chosen build with the code behind `envcheck matrix why` (builds.runs_on)."""
    for b in plan.builds:
        if b.framework not in ("torch", "tensorflow"):
            continue
        build = {"cuda": b.cuda, "compute_capabilities": [_cc(a) for a in b.arch if a.startswith("sm_")] or None,
                 "ptx": [_cc(a) for a in b.arch if a.startswith("compute_")], "python": list(b.python)}
        ok, lines = runs_on(M, build, driver=target.driver, driver_cuda=target.driver_cuda, ccs=target.ccs,
                            python=target.python)
        assert ok is not False, (b.label, lines)


def _cc(arch: str) -> str:
    d = arch.split("_", 1)[1].rstrip("af")
    return f"{d[:-1]}.{d[-1]}"


@pytest.mark.parametrize("sc", SCENARIOS, ids=[s["name"][:60] for s in SCENARIOS])
def test_scenario(tmp_path, sc):
    target, plan = _plan(tmp_path, sc)
    d = plan_dict(plan)
    assert d["schema"] == "envcheck/plan/1"
    assert d["satisfiable"] is sc["expect_satisfiable"], d["reason"]
    if plan.satisfiable:
        assert d["reason"] is None
        _runs_independently(plan, target)
        assert d["commands"]["pip"] and d["commands"]["uv"]
        # conda: none for a release conda-forge never built with CUDA (torch.toml [[conda_forge_cuda]], attack38)
        assert bool(d["commands"]["conda"]) is not any(b.cuda and b.no_conda_cuda for b in plan.builds)
        assert d["driver"]["upgrade_needed"] is False
    else:
        assert d["reason"], "an unsatisfiable plan says why"
        assert d["packages"] == []
    names = [p["name"] for p in d["packages"]]
    for want in sc.get("expect_packages", []):
        assert want in names, names
    torch = [p for p in d["packages"] if p["name"] == "torch"]
    if "expect_torch_variant" in sc:
        assert torch and torch[0]["variant"] in sc["expect_torch_variant"], torch
    if "expect_tf_variant" in sc:
        tf = [p for p in d["packages"] if p["name"] == "tensorflow"]
        assert tf and tf[0]["variant"] == sc["expect_tf_variant"], tf
    for name, prefix in sc.get("expect_version_prefix", {}).items():
        got = [p["version"] for p in d["packages"] if p["name"] == name]
        assert got and got[0].startswith(prefix), (name, got)
    for s in sc.get("expect_reason", []):
        assert s in d["reason"], d["reason"]
    lifts = [x["constraint"] for x in d["lifts"]]
    for c in sc.get("expect_lift", []):
        assert c in lifts, (lifts, d["reason"])
    labels = " | ".join(a["label"] for a in d["alternatives"])
    for s in sc.get("expect_alternatives", []):
        assert s in labels, labels
    if sc.get("expect_split"):
        assert len(d["split"]) == 2 and all(p["satisfiable"] for p in d["split"])
    for s in sc.get("expect_notes", []):
        assert any(s in n for n in d["notes"]), d["notes"]
    for var in sc.get("expect_env", []):
        assert var in d["env"]
    if sc.get("expect_min_driver_set"):
        assert d["driver"]["required_min"] and d["driver"]["required_min"] in d["reason"], d
    if "expect_min_driver" in sc:
        assert d["driver"]["required_min"] == sc["expect_min_driver"]
    # alternatives are real plans too: each runs on the machine it is offered for
    for alt in plan.alternatives:
        label, p = alt
        if "CPU" in label:
            assert all(b.variant == "cpu" for b in p.builds)
        if "another version" in label:
            _runs_independently(p, target)


def test_driver_alternative_names_the_driver_to_install(tmp_path):
    sc = next(s for s in SCENARIOS if s["wants"] == ["torch==2.8.0"])
    _, plan = _plan(tmp_path, sc)
    lift = next(x for x in plan_dict(plan)["lifts"] if x["constraint"] == "driver")
    need = DriverVersion.parse(lift["min"])
    assert need is not None and need >= DriverVersion.parse("525.60.13")
    upgrade = dict(plan.alternatives)["after a driver upgrade"]
    assert plan_dict(upgrade)["driver"]["upgrade_needed"] is True
    # the "as it is" alternative runs on the current driver 470 (CUDA 11.4): a CUDA 11 build
    now = dict(plan.alternatives)["on this machine as it is, another version"]
    assert now.builds[0].cuda.startswith("11.")


def test_sm61_never_gets_a_build_without_it(tmp_path):
    """uv's driver-only choice installs cu128 wheels without sm_61 kernels on a GTX 1080 Ti; envcheck must not."""
    env = _env(tmp_path)
    target = target_from_env(env, M, driver="570.86.10", gpus=["NVIDIA GeForce GTX 1080 Ti"], python="3.12")
    plan = resolve(M, target, parse_wants(["torch"]))
    assert plan.satisfiable
    b = plan.builds[0]
    assert any(a in b.arch for a in ("sm_60", "sm_61")), b.arch


def test_installed_versions_are_kept_when_they_work(tmp_path):
    files = gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install("2.5.1+cu124", "12.4", requires=["nvidia-cudnn-cu12==9.1.0.70"]))
    env = _env(tmp_path, files)
    from envcheck.plan.resolve import wants_from_env

    plan = resolve(M, target_from_env(env, M), wants_from_env(env))
    assert plan.satisfiable and plan.builds[0].version == "2.5.1"
    assert any("keeps the installed versions" in n for n in plan.notes)


def test_installed_version_that_cannot_work_is_replaced_and_explained(tmp_path):
    # torch 2.8.0 (CUDA 12.6+) on driver 470: the installed version cannot work; the plan says why
    files = gpu_machine("470.57.02", "11.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"])
    files.update(torch_install("2.8.0+cu128", "12.8"))
    env = _env(tmp_path, files)
    from envcheck.plan.resolve import wants_from_env

    plan = resolve(M, target_from_env(env, M), wants_from_env(env))
    assert plan.satisfiable
    assert plan.builds[0].cuda.startswith("11.")
    assert any("cannot work here" in n and "torch==2.8.0" in n for n in plan.notes), plan.notes


def test_visible_gpus_come_from_the_snapshot(tmp_path):
    files = gpu_machine("550.54.15", "12.4", [("NVIDIA GeForce GTX 1080 Ti", 11264)], cc=["6.1"])
    env = _env(tmp_path, files)
    t = target_from_env(env, M)
    assert t.ccs == ("6.1",) and str(t.driver) == "550.54.15" and t.driver_cuda == "12.4"


@pytest.mark.parametrize("bad", ["torch==", "numpy", "tensorflow-gpu", "torch; python_version<'3'"])
def test_bad_wants_are_usage_errors(bad):
    from envcheck.errors import UsageError

    with pytest.raises(UsageError):
        parse_wants([bad])


# --- the CLI, as a user runs it -------------------------------------------------------------


def _cli(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "envcheck", "fix", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


def test_cli_json_contract_and_exit_codes(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA L4", 23034)], cc=["8.9"]))
    cp = _cli("--want", "torch", "--want", "torchvision", "--snapshot", snap, "--json")
    assert cp.returncode == 0, cp.stderr
    d = json.loads(cp.stdout)
    assert set(d) >= {"schema", "satisfiable", "reason", "packages", "driver", "commands", "env"}
    assert set(d["driver"]) >= {"required_min", "upgrade_needed"}
    assert set(d["commands"]) >= {"pip", "uv", "conda"}
    for p in d["packages"]:
        assert set(p) >= {"name", "version", "variant", "index_url"}
    torch, vision = d["packages"][0], d["packages"][1]
    assert vision["name"] == "torchvision" and vision["variant"] == torch["variant"]
    assert any("torchvision==" in c for c in d["commands"]["pip"])
    # unsatisfiable: exit 1
    cp = _cli("--want", "torch==2.8.0", "--snapshot", snap, "--driver", "470.57.02", "--json")
    assert cp.returncode == 1 and json.loads(cp.stdout)["satisfiable"] is False
    # usage errors: exit 2
    assert _cli("--want", "numpy", "--snapshot", snap).returncode == 2
    assert _cli("--want", "torch", "--snapshot", str(tmp_path / "missing")).returncode == 2
    assert _cli("--want", "torch", "--snapshot", snap, "--offline").returncode == 2


def test_cli_without_wants_and_nothing_installed_is_a_usage_error(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA L4", 23034)], cc=["8.9"]))
    cp = _cli("--snapshot", snap)
    assert cp.returncode == 2 and "--want" in cp.stderr


def test_write_env_files_refuse_overwrite_and_work(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                          cc=["8.0"]))
    out = tmp_path / "envdir"
    cp = _cli("--want", "torch", "--want", "tensorflow", "--snapshot", snap, "--write-env", str(out))
    assert cp.returncode == 0, cp.stderr
    for name in ("requirements.txt", "environment.yml", "envcheck.env"):
        assert (out / name).is_file()
        assert f"wrote {out / name}" in cp.stdout
    assert not [p for p in os.listdir(out) if p not in ("requirements.txt", "environment.yml", "envcheck.env")]
    # requirements.txt: every non-comment line is an index option or a valid exact pin
    from packaging.requirements import Requirement

    pins = []
    for line in (out / "requirements.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("--"):
            assert line.startswith("--extra-index-url https://")
            continue
        r = Requirement(line)
        assert str(r.specifier).startswith("==")
        pins.append(r.name)
    assert "torch" in pins and "tensorflow" in pins
    # envcheck.env, sourced by a real POSIX shell in a venv, points at the venv's NVIDIA wheels
    sh = subprocess.run(["sh", "-c", f". {out / 'envcheck.env'}; printf %s \"$LD_LIBRARY_PATH\""],
                        capture_output=True, text=True, env={"VIRTUAL_ENV": "/opt/v", "PATH": os.environ["PATH"]},
                        timeout=30)
    assert sh.returncode == 0
    assert "/opt/v/lib/python3.11/site-packages/nvidia/cudnn/lib" in sh.stdout and not sh.stdout.endswith(":")
    # environment.yml parses (PyYAML when available) and pins the same builds
    yml = (out / "environment.yml").read_text()
    assert "conda-forge" in yml and "python=3.11" in yml
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        doc = yaml.safe_load(yml)
        assert doc["dependencies"][0] == "python=3.11"
    before = {p: (out / p).read_text() for p in os.listdir(out)}
    # a second run refuses, exit 2, and changes nothing
    cp = _cli("--want", "torch", "--snapshot", snap, "--write-env", str(out))
    assert cp.returncode == 2 and "--force" in cp.stderr
    assert {p: (out / p).read_text() for p in os.listdir(out)} == before
    # --force overwrites
    cp = _cli("--want", "torch", "--snapshot", snap, "--write-env", str(out), "--force")
    assert cp.returncode == 0
    assert "tensorflow" not in (out / "requirements.txt").read_text()


def test_write_env_unsatisfiable_writes_nothing(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), dict(_LOOKED_FOR))  # a machine without a driver
    out = tmp_path / "envdir"
    cp = _cli("--want", "torch", "--snapshot", snap, "--require-gpu", "--write-env", str(out))
    assert cp.returncode == 1 and not out.exists()


def test_requirements_pin_the_local_build_from_the_pytorch_index(tmp_path):
    env = _env(tmp_path)
    target = target_from_env(env, M, driver="470.57.02", gpus=["Tesla V100-SXM2-16GB"], python="3.10")
    plan = resolve(M, target, parse_wants(["torch==2.5.1"]))
    txt = requirements_txt(plan)
    assert "--extra-index-url https://download.pytorch.org/whl/cu118" in txt
    assert "torch==2.5.1+cu118" in txt
    assert "export" not in env_file(plan)


def test_old_releases_install_from_the_find_links_page_with_the_local_build_pinned(tmp_path):
    """PyTorch <= 1.10 variants are installed with `-f torch_stable.html` (the previous-versions page); that
    page lists every build of a version, so the pin must carry the local tag (+cu111)."""
    from envcheck.plan.output import pip_commands

    env = _env(tmp_path)
    target = target_from_env(env, M, driver="460.32.03", gpus=["NVIDIA GeForce RTX 3090"], python="3.9")
    plan = resolve(M, target, parse_wants(["torch==1.10.*", "torchvision"]))
    assert plan.satisfiable
    d = plan_dict(plan)
    torch = d["packages"][0]
    # 1.10.x cu113 (published_versions.json, since issue 12): sm_86 SASS, runs on 460 by minor-version compatibility
    assert torch["variant"] == "cu113" and torch["index_url"] is None
    assert torch["find_links"] == "https://download.pytorch.org/whl/cu113/torch_stable.html"
    cmd = pip_commands(plan)[0]
    assert "torch==1.10.2+cu113" in cmd and "torchvision==0.11.3+cu113" in cmd and "--find-links" in cmd
    assert "--index-url" not in cmd
    txt = requirements_txt(plan)
    assert "--find-links https://download.pytorch.org/whl/cu113/torch_stable.html" in txt and "torch==1.10.2+cu113" in txt


def test_cpu_builds_only_when_asked_or_no_gpu_anywhere(tmp_path):
    snap = make_snapshot(str(tmp_path / "s"), dict(NO_DRIVER_LOOKED_FOR))  # a CPU machine: no driver, no GPU
    cp = _cli("--want", "torch", "--snapshot", snap, "--json")
    d = json.loads(cp.stdout)  # no sign of a GPU: the CPU build, and the plan says why (as uv / ltt do)
    assert cp.returncode == 0 and d["satisfiable"] is True and d["packages"][0]["variant"] == "cpu"
    assert any("no sign of an NVIDIA GPU" in n for n in d["notes"])
    cp = _cli("--want", "torch", "--snapshot", snap, "--require-gpu", "--json")
    d = json.loads(cp.stdout)
    assert cp.returncode == 1 and d["satisfiable"] is False and d["driver"]["required_min"]  # never a silent CPU plan
    gpu_snap = make_snapshot(str(tmp_path / "g"), {"nvidia-smi.txt": "NVIDIA-SMI has failed because it couldn't "
                             "communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed "
                             "and running.\n"})
    cp = _cli("--want", "torch", "--snapshot", gpu_snap, "--json")  # nvidia-smi is there: a GPU machine
    assert cp.returncode == 1 and json.loads(cp.stdout)["satisfiable"] is False
    cp = _cli("--want", "torch==2.5.1", "--want", "torchvision", "--snapshot", snap, "--cpu", "--json")
    assert cp.returncode == 0, cp.stderr
    d = json.loads(cp.stdout)
    assert [(p["name"], p["version"], p["variant"]) for p in d["packages"]] == [
        ("torch", "2.5.1", "cpu"), ("torchvision", "0.20.1", "cpu")]
    assert d["packages"][0]["index_url"] == "https://download.pytorch.org/whl/cpu"
    assert d["driver"]["required_min"] is None
