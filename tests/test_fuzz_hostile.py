"""Fuzz: hostile snapshots and logs never crash (exit 70), hang, or blow memory (issue 10).

The generator and in-process driver are in tests/fuzz_hostile.py. The default suite runs 100
in-process cases and a few real CLI runs; ``pytest -m fuzz`` (run by .ci/run) 2,000; the slow set (``python3 -m pytest -m slow``) runs 10^5
in-process cases (each one snapshot and one log) and a few hundred CLI runs. The driver runs in a
fresh process, so its peak RSS (VmHWM; resource.getrusage where /proc is missing) is its own.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import tarfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import fuzz_hostile  # noqa: E402

#: the stated caps: memory of one fuzzing process, time of one case, time of one CLI run
RSS_CAP_MIB = 300
CLI_LIMIT_S = 60


def _driver(cases: int, seed: int, workers: int = 1, timeout: int = 600) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, os.path.join(HERE, "fuzz_hostile.py"), str(cases), str(seed), str(workers)],
                       capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def _check(res: dict, cases: int) -> None:
    print(json.dumps(res))  # the numbers, for the record (pytest -s)
    assert res["failures"] == []
    assert res["cases"] == cases and res["logs"] == cases
    assert res["slowest_case_s"] < fuzz_hostile.CASE_LIMIT_S
    assert res["peak_rss_mib"] < RSS_CAP_MIB


def test_fuzz_in_process_quick():
    """The default suite's share: 100 cases (a twentieth of the fuzz set; about 20 s on a loaded 2-core
    machine)."""
    _check(_driver(100, seed=int(os.environ.get("ENVCHECK_FUZZ_SEED", "0"))), 100)


@pytest.mark.fuzz
def test_fuzz_in_process():
    """2,000 cases (about 5 minutes): `pytest -m fuzz`, which .ci/run runs after the default suite."""
    _check(_driver(2000, seed=int(os.environ.get("ENVCHECK_FUZZ_SEED", "0"))), 2000)


@pytest.mark.slow
def test_fuzz_in_process_100k():
    workers = max(1, min(4, os.cpu_count() or 1))
    _check(_driver(100_000, seed=1000, workers=workers, timeout=3 * 3600), 100_000)


# -- real CLI runs -------------------------------------------------------------------------------

def _write_case(tmp, i: int, rng: random.Random, corpus) -> tuple:
    from envcheck.snapshot import KEYS

    files = {k: v for k, v in fuzz_hostile.hostile_snapshot(rng, corpus).items() if k in KEYS}
    log = tmp / f"log{i}"
    log.write_bytes(fuzz_hostile.hostile_log(rng, corpus).encode("utf-8", "surrogateescape"))
    if i % 3 == 2:
        snap = tmp / f"s{i}.tar.gz"
        with tarfile.open(snap, "w:gz") as tf:
            for k, data in files.items():
                info = tarfile.TarInfo(f"s{i}/{k}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    else:
        snap = tmp / f"s{i}"
        snap.mkdir()
        for k, data in files.items():
            (snap / k).write_bytes(data)
    return str(snap), str(log)


_COMMANDS = [
    (["status"], "text"), (["status", "--json"], "json"), (["status", "--markdown"], "text"),
    (["fix", "--json"], "json"), (["fix"], "text"), (["status", "--strict", "--require-gpu"], "text"),
]


def _cli_fuzz(tmp_path, runs: int, seed: int) -> None:
    rng = random.Random(seed)
    corpus = fuzz_hostile.corpus()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") or k == "ENVCHECK_CACHE_DIR"}
    env.update(PYTHONPATH=ROOT, NO_COLOR="1")
    codes = {}
    for i in range(runs):
        snap, log = _write_case(tmp_path, i, rng, corpus)
        if i % 4 == 3:
            args, kind = ["explain", log, "--snapshot", snap] + (["--json"] if i % 8 == 7 else []), "text"
            kind = "json" if "--json" in args else "text"
        else:
            cmd, kind = _COMMANDS[i % len(_COMMANDS)]
            args = [*cmd, "--snapshot", snap]
        r = subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, timeout=CLI_LIMIT_S,
                           env=env)
        codes[r.returncode] = codes.get(r.returncode, 0) + 1
        out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
        where = f"case {i}: envcheck {' '.join(args)}"
        assert r.returncode in (0, 1, 2), (where, err[-1000:])
        assert "internal error" not in err and "Traceback" not in err, (where, err[-1000:])
        assert not fuzz_hostile.CONTROL.search(err), (where, err[-300:])
        if kind == "json" and r.returncode in (0, 1):
            fuzz_hostile.strict_json(out)
        elif kind == "text":
            assert not fuzz_hostile.CONTROL.search(out), (where, fuzz_hostile.CONTROL.findall(out)[:3])
    print(json.dumps({"cli_runs": runs, "exit_codes": codes}))


def test_fuzz_cli(tmp_path):
    _cli_fuzz(tmp_path, 16, seed=7)


@pytest.mark.slow
def test_fuzz_cli_300(tmp_path):
    _cli_fuzz(tmp_path, 300, seed=8)
