"""`matrix why`, `fix` and `status` give the same answer for the same build and machine: a property test over a
grid of driver x GPU (compute capability) x Python x torch release x variant drawn from the matrix itself.

The three consumers take different paths to the engine (status: the installed build's facts -> findings;
why: the CLI's JSON per variant; fix: the resolver's plan for ``torch==X``), so a rule applied in one place and
not another shows up here as a disagreement.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from envcheck.checks import Context, run_checks
from envcheck.cli import cli
from envcheck.engine import Status, evaluate, machine_from_env
from envcheck.engine.builds import builds_for, installed_build
from envcheck.matrix import load_matrix
from envcheck.model import Driver, Environment, Framework, Gpu, Host, PythonInfo, Toolkit
from envcheck.plan.resolve import parse_wants, resolve, target_from_env
from envcheck.versions import DriverVersion

M = load_matrix()
DRIVERS = ["390.157", "418.226.00", "450.51.06", "470.82.01", "510.47.03", "525.60.13", "535.104.05", "550.54.15",
           "560.35.03", "570.86.10", "575.57.08", "580.65.06"]
GPUS = ["Tesla K80", "Quadro M4000", "GeForce GTX 1080 Ti", "Tesla V100-SXM2-16GB", "GeForce RTX 2080 Ti",
        "A100-SXM4-40GB", "GeForce RTX 3090", "GeForce RTX 4090", "H100 80GB HBM3", "GeForce RTX 5090", "B200"]
PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
VERDICT_IDS = {"driver-too-old", "gpu-arch-unsupported", "python-unsupported"}


def _env(driver: str, gpu: str, python: str, fw: Framework = None) -> Environment:
    drv = DriverVersion.parse(driver)
    cuda, _ = M.driver_highest_cuda(drv)
    row = M.gpu(gpu)
    g = Gpu(index=0, name=gpu, compute_capability=row["compute_capability"] if row else None, cc_source="gpu table")
    return Environment(source="test", host=Host(), python=PythonInfo(version=python + ".0", platform="linux",
                                                                    machine="x86_64"),
                       driver=Driver(version=drv, cuda=cuda, cuda_source="matrix", source="test"), gpus=(g,),
                       toolkit=Toolkit(), libraries=(), frameworks={"torch": fw} if fw else {},
                       packages={"torch": fw.version} if fw else {})


def _cases(n: int, seed: int = 20261123):
    rng = random.Random(seed)
    builds = [b for b in builds_for(M, "torch") if b.variant and b.variant.startswith("cu")]
    for _ in range(n):
        yield rng.choice(DRIVERS), rng.choice(GPUS), rng.choice(PYTHONS), rng.choice(builds)


CASES = list(_cases(300))


@pytest.mark.parametrize("driver,gpu,python,build", CASES[:220],
                         ids=[f"{d}-{g}-{p}-{b.version}{b.variant}" for d, g, p, b in CASES[:220]])
def test_status_agrees_with_the_engine(driver, gpu, python, build):
    fw = Framework(name="torch", version=f"{build.version}+{build.variant}", distribution="torch", cuda=build.cuda)
    env = _env(driver, gpu, python, fw)
    verdict = evaluate(M, installed_build(M, fw), machine_from_env(env, M))
    ids = {f.id for f in run_checks(env, M, Context()) if f.component == "torch"} & VERDICT_IDS
    assert bool(ids) == (verdict.status is Status.NO), (verdict.lines, ids)
    if verdict.status is Status.NO:
        expect = set()
        if "driver" in verdict.failed:
            expect.add("driver-too-old")
        if {"arch", "cudnn"} & set(verdict.failed):
            expect.add("gpu-arch-unsupported")
        if "python" in verdict.failed:
            expect.add("python-unsupported")
        assert ids == expect


@pytest.mark.parametrize("driver,gpu,python,build", CASES[220:],
                         ids=[f"{d}-{g}-{p}-{b.version}{b.variant}" for d, g, p, b in CASES[220:]])
def test_why_and_fix_agree_with_the_engine(driver, gpu, python, build):
    env = _env(driver, gpu, python)
    machine = target_from_env(env, M)
    # why, through the CLI
    r = CliRunner().invoke(cli, ["matrix", "why", f"torch=={build.version}", "--driver", driver, "--gpu", gpu,
                                 "--python", python, "--json"], standalone_mode=False, catch_exceptions=False)
    code = r.return_value
    assert code in (0, 1), r.output
    results = {x["build"]["variant"]: x for x in json.loads(r.output)["results"]}
    verdicts = {b.variant: evaluate(M, b, machine) for b in builds_for(M, f"torch=={build.version}", include_cpu=False)}
    assert set(results) == set(verdicts)
    for var, v in verdicts.items():
        assert results[var]["verdict"] == v.status.value, (var, results[var]["reasons"], v.lines)
    assert (code == 0) == any(v.status is Status.RUNS for v in verdicts.values())
    # fix: satisfiable exactly when some variant is not ruled out, and it picks one the engine does not rule out
    plan = resolve(M, machine, parse_wants([f"torch=={build.version}"]))
    assert plan.satisfiable == any(v.status is not Status.NO for v in verdicts.values()), plan.reason
    if plan.satisfiable:
        chosen = plan.builds[0]
        assert verdicts[chosen.variant].status is not Status.NO
        if any(v.status is Status.RUNS for v in verdicts.values()):  # a fallback only when nothing verified runs
            assert verdicts[chosen.variant].status is Status.RUNS


# ------------------------------------------------------------------------------------------------------------
# the engine against the oracle (tests/oracle.py: the rules restated from NVIDIA's and PyTorch's texts, with its
# own candidate list), over driver x GPU x Python x torch build x a forward-compatibility libcuda

import oracle  # noqa: E402

from envcheck.engine import Machine  # noqa: E402

COMPAT_GPUS = ["A100-SXM4-40GB", "H100 80GB HBM3", "Tesla T4", "GeForce RTX 3090", "GeForce RTX 4090",
               "RTX A6000", "Quadro RTX 6000", "Jetson AGX Orin", "Tesla V100-SXM2-16GB", "GeForce GTX 1080 Ti"]
LIBCUDA = [None, "12.4", "12.8", "13.0"]
#: engine failures of rules the oracle does not restate (a GPU generation's driver branches, cuDNN's oldest GPU,
#: a toolkit's targets for an unknown arch list): those cells are compared on the other constraints only
_BEYOND_ORACLE = ("driver branch", "first driver for", "no longer supports", "no such driver supports")


def _oracle_cases(n: int, seed: int = 20261126):
    rng = random.Random(seed)
    builds = [b for b in builds_for(M, "torch") if b.variant and b.variant.startswith("cu")]
    for _ in range(n):
        yield rng.choice(DRIVERS), rng.choice(GPUS + COMPAT_GPUS), rng.choice(PYTHONS), rng.choice(builds), \
            rng.choice(LIBCUDA)


ORACLE_CASES = list(_oracle_cases(500))


def _machine(driver: str, gpu: str, python: str, libcuda) -> Machine:
    drv = DriverVersion.parse(driver)
    row = M.gpu(gpu)
    return Machine(driver=drv, driver_cuda=M.driver_highest_cuda(drv)[0], ccs=(row["compute_capability"],),
                   gpu_names=(gpu,), gpu_segments=((gpu, row.get("segment")),), python=python, gpu_signs=True,
                   libcuda_cuda=libcuda, libcuda_path="/usr/local/cuda/compat/libcuda.so.1" if libcuda else None)


@pytest.mark.parametrize("driver,gpu,python,build,libcuda", ORACLE_CASES,
                         ids=[f"{d}-{g}-{p}-{b.version}{b.variant}-{lc}" for d, g, p, b, lc in ORACLE_CASES])
def test_the_engine_agrees_with_the_oracle(driver, gpu, python, build, libcuda):
    m = _machine(driver, gpu, python, libcuda)
    v = evaluate(M, build, m)
    ob = next(x for x in oracle.builds_for(M, f"torch=={build.version}") if x["variant"] == build.variant)
    # the candidate lists agree on what the build is
    assert (ob["cuda"], tuple(ob["compute_capabilities"] or ())) == (build.cuda, tuple(
        a.split("_", 1)[1][:-1] + "." + a[-1] for a in build.arch if a.startswith("sm_"))) or not build.arch
    ok, lines = oracle.runs_on(M, ob, driver=driver, ccs=m.ccs, python=python, libcuda_cuda=libcuda,
                               gpus=m.gpu_segments)
    oracle_no = {k for k, prefix in (("arch", "gpu "), ("driver", "driver: "), ("python", "python "))
                 if any(x.startswith(prefix) and ": NO" in x[:40] or x.startswith(prefix) and " NO " in x
                        for x in lines)}
    engine_no = set(v.failed) & {"arch", "driver", "python"}
    if any(s in v.failed.get("driver", "") for s in _BEYOND_ORACLE):
        engine_no.discard("driver")
        oracle_no.discard("driver")
    if not build.arch:  # the engine judges an unknown arch list by the toolkit's reach; the oracle says unknown
        engine_no.discard("arch")
    assert engine_no == oracle_no, (v.lines, lines)
    if not v.failed and ok is not None and not v.unknown:
        assert ok is True, (v.lines, lines)


# ------------------------------------------------------------------------------------------------------------
# the compat-libcuda axis, data-center vs GeForce vs workstation, Jetson: status, `matrix why`, `fix` and
# explain's fixes give one answer per cell, through the CLI on snapshots

from helpers import gpu_machine, make_snapshot  # noqa: E402

CLI_DRIVERS = ["470.82.01", "525.60.13", "535.104.05", "550.54.15"]
CLI_GPUS = [("NVIDIA A100-SXM4-40GB", "8.0"), ("NVIDIA GeForce RTX 3090", "8.6"), ("NVIDIA RTX A6000", "8.6"),
            ("Orin (nvgpu)", "8.7"), ("Tesla T4", "7.5"), ("NVIDIA GeForce RTX 4090", "8.9")]
CLI_TORCH = [("2.5.1", "cu124", "12.4"), ("2.5.1", "cu121", "12.1"), ("2.7.1", "cu128", "12.8"),
             ("2.9.0", "cu130", "13.0")]
DRIVER_LOG = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
              "GPU driver by downloading and installing a new version from the URL: "
              "http://www.nvidia.com/Download/index.aspx\n")


def _cli_cases(n: int, seed: int = 19):
    rng = random.Random(seed)
    for _ in range(n):
        yield rng.choice(CLI_DRIVERS), rng.choice(CLI_GPUS), rng.choice(CLI_TORCH), rng.choice(["12.4", "12.8", "13.0"])


CLI_CASES = list(_cli_cases(40))


def _invoke(*args):
    r = CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=False)
    return json.loads(r.output)


@pytest.mark.parametrize("driver,gpu,torch,libcuda", CLI_CASES,
                         ids=[f"{d}-{g[0].split()[-1]}-{t[0]}{t[1]}-compat{lc}" for d, g, t, lc in CLI_CASES])
def test_compat_libcuda_cells_agree_everywhere(tmp_path, driver, gpu, torch, libcuda):
    version, variant, cuda = torch
    drv = DriverVersion.parse(driver)
    files = {**gpu_machine(driver, M.driver_highest_cuda(drv)[0], [(gpu[0], 40960)], cc=[gpu[1]]),
             "torch.json": {"version": f"{version}+{variant}", "cuda": cuda, "cudnn": None, "arch_list": None},
             "packages.json": {"torch": f"{version}+{variant}"},
             "libcuda.json": {"path": f"/usr/local/cuda-{libcuda}/compat/libcuda.so.1",
                              "driver_cuda": int(libcuda.split(".")[0]) * 1000 + int(libcuda.split(".")[1]) * 10}}
    d = make_snapshot(str(tmp_path / "s"), files)
    # the engine's answer for the installed build
    from envcheck.environment import collect
    from envcheck.snapshot import open_snapshot

    env = collect(open_snapshot(d), M)
    machine = machine_from_env(env, M)
    verdict = evaluate(M, installed_build(M, env.frameworks["torch"]), machine)
    fwd = oracle.forward_compat(machine.gpu_segments)
    # status
    status = {(f["id"], f["severity"]) for f in _invoke("status", "--json", "--snapshot", d)["findings"]}
    from envcheck.engine.rules import forward_compat_in_use

    if forward_compat_in_use(env.driver.cuda, env.driver.libcuda_cuda, env.driver.libcuda_path):
        assert (("forward-compat-unsupported", "error") in status) == (fwd is False)
        assert (("forward-compat-unsupported", "warning") in status) == (fwd is None)
    else:
        assert not any(i == "forward-compat-unsupported" for i, _ in status)
    assert (("driver-too-old", "error") in status) == ("driver" in verdict.failed)
    # matrix why: the installed variant's answer is the engine's
    why = {x["build"]["variant"]: x for x in _invoke("matrix", "why", f"torch=={version}", "--snapshot", d,
                                                     "--json")["results"]}
    if variant in why:
        assert why[variant]["verdict"] == verdict.status.value, (why[variant]["reasons"], verdict.lines)
    # fix keeps the installed build exactly when the engine says it runs (and not when it does not run)
    plan = _invoke("fix", "--snapshot", d, "--json")
    picked = next((p for p in plan["packages"] if p["name"] == "torch"), None)
    if verdict.status is Status.RUNS:
        assert picked is not None and (picked["version"], picked["variant"]) == (version, variant), plan["notes"]
    elif verdict.status is Status.NO and picked is not None:
        assert (picked["version"], picked["variant"]) != (version, variant)
        # and the build fix picks is one the engine does not rule out here
        chosen = next(b for b in builds_for(M, f"torch=={picked['version']}", include_cpu=False)
                      if b.variant == picked["variant"])
        assert evaluate(M, chosen, machine).status is not Status.NO
    # explain: with the driver-too-old log, the driver it names runs the installed build per the engine
    if "driver" in verdict.failed and not verdict.never:
        log = tmp_path / "crash.log"
        log.write_text(DRIVER_LOG)
        got = _invoke("explain", str(log), "--snapshot", d, "--json")
        text = json.dumps(got)
        import re

        named = re.findall(r"Upgrade the NVIDIA driver from [0-9.]+ to >= ([0-9.]+)", text)
        assert named, text[:2000]
        better = Machine(**{**machine.__dict__, "driver": DriverVersion.parse(named[0]),
                            "driver_cuda": M.driver_highest_cuda(DriverVersion.parse(named[0]))[0]})
        assert "driver" not in evaluate(M, installed_build(M, env.frameworks["torch"]), better).failed


def test_a_driver_named_by_its_branch_runs_what_the_advice_says():
    """NVIDIA prints the CUDA 13.x minor-version floor as '>= 580' (a branch): `--driver 580` is that branch, so
    the driver explain and fix name for a cu130 build does run it."""
    floor = M.minor_compat_floor(13)
    assert str(floor) == "580"
    assert M.driver_highest_cuda(floor)[0] == "13.0"
    build = next(b for b in builds_for(M, "torch==2.9.0", include_cpu=False) if b.variant == "cu130")
    m = Machine(driver=floor, driver_cuda=M.driver_highest_cuda(floor)[0], ccs=("8.6",), python="3.11",
                gpu_signs=True)
    assert "driver" not in evaluate(M, build, m).failed


ARCH_LOG = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


@pytest.mark.parametrize("gpu,cc,torch", [
    ("NVIDIA GeForce RTX 5090", "12.0", ("2.5.1", "cu124", "12.4")),
    ("NVIDIA GeForce GTX 1080 Ti", "6.1", ("2.9.0", "cu130", "13.0")),
    ("Tesla V100-SXM2-16GB", "7.0", ("2.11.0", "cu128", "12.8")),
    ("Tesla K80", "3.7", ("2.5.1", "cu124", "12.4")),
])
def test_explains_arch_fix_names_a_build_the_engine_runs_on_that_gpu(tmp_path, gpu, cc, torch):
    """An installed build without the GPU's architecture: status says gpu-arch-unsupported (the engine's arch
    failure), and the build explain's fix names is one the engine does not fail on that GPU's architecture."""
    import re

    version, variant, cuda = torch
    files = {**gpu_machine("580.65.06", "13.0", [(gpu, 24576)], cc=[cc]),
             "torch.json": {"version": f"{version}+{variant}", "cuda": cuda, "cudnn": None, "arch_list": None},
             "packages.json": {"torch": f"{version}+{variant}"}}
    d = make_snapshot(str(tmp_path / "s"), files)
    from envcheck.environment import collect
    from envcheck.snapshot import open_snapshot

    env = collect(open_snapshot(d), M)
    machine = machine_from_env(env, M)
    verdict = evaluate(M, installed_build(M, env.frameworks["torch"]), machine)
    status = {f["id"] for f in _invoke("status", "--json", "--snapshot", d)["findings"]}
    assert ("gpu-arch-unsupported" in status) == bool({"arch", "cudnn"} & set(verdict.failed))
    log = tmp_path / "crash.log"
    log.write_text(ARCH_LOG)
    m = next(x for x in _invoke("explain", str(log), "--snapshot", d, "--json")["matches"]
             if x["id"] == "gpu-arch-unsupported")
    named = [re.match(r"pip install torch==([0-9.]+)(?: --index-url \S+/(cu\d+))?", f) for f in m.get("machine", [])]
    named = [n for n in named if n]
    if not named:
        runs_arch = [b for b in builds_for(M, "torch", include_cpu=False)
                     if b.arch and "arch" not in evaluate(M, b, machine).failed]
        if runs_arch:  # builds have the architecture, and something else (the driver) stops them: said so
            assert any("include compute capability" in f and "none runs on this machine" in f
                       for f in m.get("machine", [])), m
            assert all(evaluate(M, b, machine).status is Status.NO for b in runs_arch)
        else:  # no build in the matrix has this GPU: explain says so, and the engine agrees
            assert any("No current CUDA build" in f for f in m.get("machine", [])), m
        return
    v, var = named[0].group(1), named[0].group(2)
    build = next(b for b in builds_for(M, f"torch=={v}", include_cpu=False) if var is None or b.variant == var)
    assert "arch" not in evaluate(M, build, machine).failed, (v, var)
