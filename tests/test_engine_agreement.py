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
