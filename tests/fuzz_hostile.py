"""A seeded generator of hostile snapshots and logs, and the in-process driver of the fuzz tests
(tests/test_fuzz_hostile.py). Run directly for a report:

    python3 tests/fuzz_hostile.py [CASES] [SEED]

Every case starts from real captures (tests/data, cited in tests/data/README.md) and plausible
JSON captures, then mutates them the ways an attacker or a broken machine would: truncation, random
bytes, control sequences, lone surrogates, deep nesting, huge numbers, wrong JSON types, long lines,
duplicated lines, swapped files. Each case runs what ``status`` runs (build_environment, run_checks,
build_report, the text, Markdown and JSON renderings) and, for one case in ``PLAN_EVERY``, what
``fix`` runs; each log case runs ``explain`` (explain_lines, with and without machine facts). A
case passes when nothing raises, the text and Markdown hold no control character, the JSON is
strict UTF-8, and the case took less than ``CASE_LIMIT_S``.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
sys.path.insert(0, os.path.dirname(HERE))

CASE_LIMIT_S = 10.0  # an idle 2-core machine: slowest case ~1.3 s
PLAN_EVERY = 50
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

_SOURCES = {  # snapshot key -> folder of real captures in tests/data
    "nvidia-smi.txt": "nvidia-smi", "nvidia-smi-query.csv": "nvidia-smi-query", "nvcc.txt": "nvcc",
    "proc-driver-version.txt": "proc-driver", "ldconfig.txt": "ldconfig", "cudnn_version.h": "cudnn-header",
    "cuda-version.json": "cuda-version", "tensorflow.json": None, "torch.json": None,
}
EVIL = ["\x1b]52;c;ZWNobyBwd25lZA==\x07", "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x9b31m", "\u202e", "\r", "\x00",
        "\x08\x08\x08", "\x07", "\udcff", "\ud800", "\x1bP+q\x1b\\", "\u2066", "\x7f"]


def _real(folder: str) -> List[bytes]:
    d = os.path.join(DATA, folder)
    out = []
    for name in sorted(os.listdir(d)):
        if name.endswith((".expect.json", ".md")):
            continue
        with open(os.path.join(d, name), "rb") as fh:
            out.append(fh.read())
    return out


def corpus() -> Dict[str, List[bytes]]:
    c = {k: _real(v) for k, v in _SOURCES.items() if v}
    logs_dir = os.path.join(DATA, "logs")
    c["logs"] = [open(os.path.join(logs_dir, n), "rb").read() for n in sorted(os.listdir(logs_dir))
                 if n.endswith(".log")]
    return c


def _json_captures(rng: random.Random) -> Dict[str, object]:
    drv = rng.choice(["550.54.15", "535.104.05", "470.82.01", "580.65.06", "1e9", "", "999999999999999999.1"])
    return {
        "meta.json": {"schema": "envcheck/snapshot/1", "created": "2026-11-22T00:00:00+00:00", "hostname": "node01"},
        "python.json": {"version": rng.choice(["3.11.7", "3.8.0", "3.13.1", "2.7", "3"]),
                        "implementation": "CPython", "platform": "linux", "machine": rng.choice(["x86_64", "aarch64"])},
        "packages.json": {"torch": rng.choice(["2.5.1+cu124", "2.1.0", "1e9", "12.", "2.8.0+cu128", "9" * 5000]),
                          "nvidia-cudnn-cu12": rng.choice(["9.1.0.70", "8.9.2.26", "12."]),
                          "tensorflow": rng.choice(["2.15.1", "2.17.0", "x"]), "jax": "0.4.30",
                          "jaxlib": "0.4.30"},
        "torch.json": {"version": rng.choice(["2.5.1+cu124", "2.1.0+cu121", "2.4.0+cpu"]),
                       "cuda": rng.choice(["12.4", "11.8", None, "13"]), "cudnn": rng.choice([90100, 8902, None, -1]),
                       "arch_list": rng.choice([["sm_80", "sm_90"], None, ["compute_90"], "sm_80"])},
        "tensorflow.json": {"version": "2.15.1", "cuda_version": "12.2", "cudnn_version": "8", "is_cuda_build": True},
        "nvml.json": {"driver_version": drv, "cuda_driver_version": rng.choice([12040, 0, -5, 10 ** 30]),
                      "gpus": [{"name": "NVIDIA A100-SXM4-80GB", "compute_capability": [8, 0],
                                "memory_total_mib": 81920}] * rng.randint(0, 3)},
        "libcuda.json": {"path": "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "driver_cuda": rng.choice([12040, 11080])},
        "environ.json": {"CUDA_VISIBLE_DEVICES": rng.choice(["0", "", "-1", "GPU-abc", "0,1,,x"]),
                         "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/opt/x", "CUDA_HOME": "/usr/local/cuda"},
        "requires.json": {"torch": ["nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\"",
                                    "nvidia-cublas-cu12==12.4.5.8"]},
        "container.json": {"container": rng.choice(["docker", None, 5])},
        "captures.json": {"nvcc.txt": {"status": rng.choice(["not-found", "failed", "timed-out", 7]),
                                       "origin": "/usr/local/cuda/bin/nvcc", "detail": "x"}},
        "libraries.txt": "/usr/local/cuda/lib64/libcudart.so.12\n/opt/conda/lib/libcudnn.so.9\n",
        "os-release.txt": 'NAME="Ubuntu"\nVERSION_ID="22.04"\n',
        "proc-version.txt": "Linux version 5.15.146.1-microsoft-standard-WSL2 (gcc 11.2.0) #1 SMP\n",
        "cuda-version.txt": "CUDA Version 11.0.228\n",
        "sys-module-nvidia-version.txt": drv + "\n",
    }


def _junk_json(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice([None, True, 0, -1, 1.5, 10 ** 40, "", "x" * rng.randint(0, 300), rng.choice(EVIL),
                           float("nan"), "\ud800", [], {}])
    if r < 0.6:
        return [_junk_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["version", "cuda", "cudnn", "gpus", "name", "path", "driver_version", "arch_list",
                        "error", "status", "x" + rng.choice(EVIL)]): _junk_json(rng, depth + 1)
            for _ in range(rng.randint(0, 5))}


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    op = rng.randrange(12)
    if op == 0 and data:
        return data[: rng.randrange(len(data))]
    if op == 1:
        pos = rng.randrange(len(data) + 1)
        return data[:pos] + os.urandom(rng.randint(1, 64)) + data[pos:]
    if op == 2:
        pos = rng.randrange(len(data) + 1)
        return data[:pos] + rng.choice(EVIL).encode("utf-8", "surrogatepass") + data[pos:]
    if op == 3:
        lines = data.splitlines(True)
        if lines:
            line = rng.choice(lines)
            return data + line * rng.randint(1, 40)
    if op == 4:
        return data.replace(b"\n", b"\r\n")
    if op == 5:
        return re.sub(rb"\d+", lambda m: rng.choice([b"0", b"9" * rng.randint(1, 60), b"-1", b"1e9", m.group(0)]),
                      data)
    if op == 6:
        return b"[" * rng.choice([10, 100, 3000, 100000])
    if op == 7:
        return b"x" * rng.choice([100, 5000, 70000])  # one long line
    if op == 8:
        return data.decode("utf-8", "replace").encode("utf-16")
    if op == 9 and len(data) < 20000:
        words = re.split(rb"(\s+)", data)
        rng.shuffle(words)
        return b"".join(words)
    if op == 10:
        return b""
    return data


def hostile_snapshot(rng: random.Random, c: Dict[str, List[bytes]]) -> Dict[str, bytes]:
    files: Dict[str, bytes] = {}
    for k, v in _json_captures(rng).items():
        files[k] = (v if isinstance(v, str) else json.dumps(v)).encode("utf-8", "surrogatepass")
    for k, samples in c.items():
        if k != "logs" and samples:
            files[k] = rng.choice(samples)
    for k in list(files):
        r = rng.random()
        if r < 0.15:
            del files[k]
        elif r < 0.25 and k.endswith(".json"):
            files[k] = json.dumps(_junk_json(rng)).encode("utf-8", "surrogatepass")
        elif r < 0.55:
            files[k] = _mutate_bytes(rng, files[k])
    if rng.random() < 0.1:  # swapped files
        keys = list(files)
        a, b = rng.sample(keys, 2) if len(keys) > 1 else (keys[0], keys[0])
        files[a], files[b] = files[b], files[a]
    return files


def hostile_log(rng: random.Random, c: Dict[str, List[bytes]]) -> str:
    data = rng.choice(c["logs"])
    lines = data.splitlines(True)
    if len(lines) > 40:
        start = rng.randrange(len(lines) - 40)
        data = b"".join(lines[start:start + 40])
    for _ in range(rng.choice((0, 1, 1, 2))):
        data = _mutate_bytes(rng, data)
    return data.decode("utf-8", "surrogateescape")


_LONE = re.compile("[\ud800-\udfff]")


def strict_json(text: str) -> None:
    """Raise when ``text`` is not JSON a strict parser accepts (lone surrogates included)."""
    text.encode("utf-8")
    # a lone surrogate escape decodes to a lone surrogate; a valid pair to one astral character; an
    # escaped backslash followed by "udcff" (repr() of an undecodable path) is plain text and fine
    todo = [json.loads(text)]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, str) and _LONE.search(x):
            raise ValueError("lone surrogate escape in the JSON output")


class Stats:
    def __init__(self) -> None:
        self.cases = 0
        self.logs = 0
        self.plans = 0
        self.slowest = 0.0
        self.failures: List[str] = []
        self.started = time.monotonic()


def peak_rss_mib() -> float:
    """Peak resident memory of this process: ``resource.getrusage`` (ru_maxrss, KiB on Linux), or
    VmHWM where /proc has it (ru_maxrss keeps the parent's peak over an exec)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(cases: int, seed: int = 0, stats: Optional[Stats] = None) -> Stats:
    from envcheck.checks import Context, run_checks
    from envcheck.environment import build_environment
    from envcheck.errors import UsageError
    from envcheck.explain import build_explain_report, explain_lines
    from envcheck.matrix import load_matrix
    from envcheck.plan.output import plan_dict
    from envcheck.plan.resolve import resolve, target_from_env, wants_from_env
    from envcheck.render import json_text
    from envcheck.render.explain import render_explain_markdown, render_explain_text
    from envcheck.render.plan import render_plan_text
    from envcheck.render.report import build_report
    from envcheck.render.text import render_markdown, render_text
    from envcheck.snapshot import SnapshotSource

    st = stats or Stats()
    rng = random.Random(seed)
    c = corpus()
    matrix = load_matrix()
    for i in range(cases):
        t = time.monotonic()
        files = hostile_snapshot(rng, c)
        log = hostile_log(rng, c)
        step = "snapshot"
        try:
            src = SnapshotSource(dict(files), description=f"fuzz-{seed}-{i}")
            env = build_environment(src.all(), matrix, description=src.description)
            findings = run_checks(env, matrix, Context(require_gpu=bool(i % 2)))
            rep = build_report(env, findings, matrix_origin=matrix.origin)
            for out in (render_text(rep), render_markdown(rep)):
                if CONTROL.search(out):
                    raise AssertionError(f"control character in output: {CONTROL.findall(out)[:3]!r}")
            strict_json(json_text(rep))
            if i % PLAN_EVERY == 0:
                step = "fix"
                st.plans += 1
                try:
                    plan = resolve(matrix, target_from_env(env, matrix), wants_from_env(env))
                    d = plan_dict(plan)
                    strict_json(json_text(d))
                    if CONTROL.search(render_plan_text(d)):
                        raise AssertionError("control character in the plan")
                except UsageError:
                    pass  # exit 2: "nothing to plan" is an answer, not a crash
            step = "explain"
            matches = explain_lines(log.splitlines(), env=env if i % 2 else None, matrix=matrix)
            erep = build_explain_report(matches, None, lines_scanned=0, input="fuzz")
            for out in (render_explain_text(erep), render_explain_markdown(erep)):
                if CONTROL.search(out):
                    raise AssertionError(f"control character in explain output: {CONTROL.findall(out)[:3]!r}")
            strict_json(json_text(erep))
            st.logs += 1
        except Exception as exc:  # noqa: BLE001 - every exception is a finding of the fuzz test
            st.failures.append(f"seed {seed} case {i} ({step}): {type(exc).__name__}: {str(exc)[:300]}")
            if len(st.failures) > 20:
                break
        st.cases += 1
        st.slowest = max(st.slowest, time.monotonic() - t)
    return st


def _shard(args) -> dict:
    n, seed = args
    st = run(n, seed)
    out = {"cases": st.cases, "logs": st.logs, "plans": st.plans, "slowest_case_s": st.slowest,
           "peak_rss_mib": peak_rss_mib(), "failures": st.failures}
    sys.stderr.write(f"shard seed {seed}: " + json.dumps(out) + "\n")  # progress of a long run
    sys.stderr.flush()
    return out


def run_sharded(cases: int, seed: int = 0, workers: int = 1, shard: int = 5000) -> dict:
    """``cases`` cases in shards of ``shard`` (seeds ``seed``, ``seed + 1``, ...) on ``workers``
    processes; the peak RSS is the largest of any worker's."""
    t = time.monotonic()
    jobs = []
    left, k = cases, 0
    while left > 0:
        jobs.append((min(shard, left), seed + k))
        left -= shard
        k += 1
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=1) as pool:
            parts = pool.map(_shard, jobs, chunksize=1)
    else:
        parts = [_shard(j) for j in jobs]
    return {"cases": sum(p["cases"] for p in parts), "logs": sum(p["logs"] for p in parts),
            "plans": sum(p["plans"] for p in parts), "workers": workers,
            "seconds": round(time.monotonic() - t, 1),
            "slowest_case_s": round(max(p["slowest_case_s"] for p in parts), 3),
            "peak_rss_mib": round(max(p["peak_rss_mib"] for p in parts), 1),
            "failures": [f for p in parts for f in p["failures"]][:20]}


if __name__ == "__main__":  # pragma: no cover
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    print(json.dumps(run_sharded(n, seed, workers), indent=2))
