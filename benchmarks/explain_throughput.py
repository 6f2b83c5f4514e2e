"""Measure how fast `envcheck explain` streams a large log (MB/s), reading it as the CLI does.

Usage:

    python benchmarks/explain_throughput.py [--size-mb 50] [--repeats 3] [--log FILE] [--keep] [--real | --real-long]
    python benchmarks/explain_throughput.py --scale 1,10,100 --size-mb 10 [--real | --real-long] [--cli]
    ENVCHECK_CODE=/path/to/other/checkout python benchmarks/explain_throughput.py ...   (time another version)

Without --log it writes a deterministic log of --size-mb megabytes to a temporary file: mostly
the noise a long training job prints (TensorFlow/PyTorch info lines that mention CUDA, cuDNN and
libraries, progress bars with carriage returns, pip output, Python warnings and tracebacks), with
one line in twenty taken from real failure logs of tests/data/logs (so the rules run on real
wordings too: the 96 listed, with their sha256, in benchmarks/data/training-files.txt). It then times ``explain_stream`` on the open file, the path of the CLI (text only,
like --no-detect), --repeats times, and reports the best and median MB/s and how many
matches were found. No timing is asserted in the test suite: this script only measures.

--real-long writes a log of real shapes: the real, long, whole console logs of GPU training runs in
benchmarks/data/real-long (each cited with its licence in that folder's README.md: MLPerf training
submissions on A100/H100/L40S with PyTorch, NeMo, MXNet, TensorFlow, and a PyTorch/inductor run) back
to back, over and over, up to --size-mb, as a user's `envcheck explain train.log` reads them. --real
is the stress case, not a real log's shape: real failure logs of tests/data/logs alone (every line
of it is a line of a real failure log: the densest case for explain), the 1,103 pinned in
benchmarks/data/stress-files.txt (main 3e3d7114's, by path, each with its sha256: later data batches do not change
the log; a pinned file changed or gone stops the script, see --repin). --scale N,M,... times the log at N, M, ... times --size-mb (the
bigger ones are the first one repeated) to show how the time grows; in process, a warm-up call comes first (shown,
not counted: a process's first call compiles the patterns its log needs) and 1x takes the median of 7 calls at
least (a short call's median wanders with the load). --cli times the command
(``python -m envcheck explain FILE --no-detect --json``, a child: its CPU time from getrusage,
interpreter start and the paste collector included) instead of the in-process call.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from typing import List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("ENVCHECK_CODE") or ROOT)  # ENVCHECK_CODE: time another checkout

NOISE = [
    "2023-06-12 10:11:{s:02d}.{us:06d}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1639] Created device "
    "/job:localhost/replica:0/task:0/device:GPU:0 with {n} MB memory:  -> device: 0, name: NVIDIA A100-SXM4-40GB, "
    "pci bus id: 0000:00:04.0, compute capability: 8.0",
    "2023-06-12 10:11:{s:02d}.{us:06d}: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] "
    "Successfully opened dynamic library libcudart.so.11.0",
    "2023-06-12 10:11:{s:02d}.{us:06d}: I tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:424] "
    "Loaded cuDNN version 8600",
    "I0612 10:11:{s:02d}.{us:06d} 140234 cuda_executor.cc:1015] successful NUMA node read from SysFS had "
    "negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero",
    "Epoch {n}/100",
    "{n}/1875 [==============>...............] - ETA: 12s - loss: 0.{us:06d} - accuracy: 0.9{s:02d}",
    "step {n}: loss=0.{us:06d} lr=3.0e-04 grad_norm=1.{s:02d} tokens/s={n}",
    " 45%|████▌     | {n}/2000 [01:{s:02d}<02:10, 9.{s:02d}it/s, loss=0.{us:04d}]",
    "Requirement already satisfied: nvidia-cudnn-cu12==8.9.2.26 in ./venv/lib/python3.10/site-packages "
    "(from torch==2.1.0) ({n}.{s})",
    "Collecting nvidia-cublas-cu12==12.1.3.1 (from torch)",
    "  Downloading nvidia_cublas_cu12-12.1.3.1-py3-none-manylinux1_x86_64.whl (410.6 MB)",
    "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:{n}: UserWarning: TypedStorage is deprecated. "
    "It will be removed in the future and UntypedStorage will be the only storage class.",
    '  File "/home/user/project/train.py", line {n}, in forward',
    "    x = self.conv{s}(x)",
    "[rank0]:[W612 10:11:{s:02d}.{us:06d}] ProcessGroupNCCL.cpp:{n}] Warning: using NCCL with CUDA graphs",
    "INFO:root:validation mAP=0.{us:06d} at iteration {n}; checkpoint saved to runs/exp{s}/weights/last.pt",
    "NCCL INFO cudaDriverVersion 12020, NCCL version 2.18.1+cuda12.1, library libnccl.so.2 loaded",
    "WARNING:tensorflow:Layer lstm will not use cuDNN kernels since it doesn't meet the criteria.",
    "torch.backends.cudnn.benchmark = True; torch.backends.cuda.matmul.allow_tf32 = True",
    "{{'loss': 0.{us:06d}, 'learning_rate': 4.9e-05, 'epoch': {s}.{n}}}",
]


#: the fixed inputs of the logs made from tests/data/logs (issue 24: figures that compare across sessions, whatever
#: data batches come later): "sha256  path" lines, as of main 3e3d7114
STRESS_FILES = os.path.join(ROOT, "benchmarks", "data", "stress-files.txt")
TRAINING_FILES = os.path.join(ROOT, "benchmarks", "data", "training-files.txt")


class PinnedChanged(Exception):
    """A file of a pinned list is gone or its content is not the one pinned: the log would not be the benchmark's."""


def pinned_list(listing: str) -> "List[tuple[str, str]]":
    """(sha256, path relative to the checkout) of each line of ``listing``, in its order (``#`` lines are notes)."""
    out = []
    with open(listing, encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                digest, path = line.rstrip("\n").split("  ", 1)
                out.append((digest, path))
    return out


def pinned_files(listing: str, root: str = ROOT) -> List[bytes]:
    """The bytes of each file of ``listing`` (under ``root``), in its order, each checked against its pinned sha256;
    raises PinnedChanged naming every file gone or changed (never a silently different log)."""
    import hashlib

    out: List[bytes] = []
    bad: List[str] = []
    for digest, path in pinned_list(listing):
        try:
            with open(os.path.join(root, path), "rb") as fh:
                data = fh.read()
        except OSError:
            bad.append(f"{path} (gone)")
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            bad.append(f"{path} (changed)")
            continue
        out.append(data)
    if bad:
        raise PinnedChanged(f"{len(bad)} file(s) of {os.path.relpath(listing, root)} differ from the pinned ones: "
                            + ", ".join(bad[:10]) + (" ..." if len(bad) > 10 else "")
                            + "; restore them, or pin anew (--repin) and say so in benchmarks/README.md: the "
                              "figures of a re-pinned log do not compare with earlier ones")
    return out


def repin(listing: str, root: str = ROOT) -> int:
    """Write ``listing`` anew: its notes, and each of its files still present with its sha256 now. Returns how many
    lines changed or went."""
    import hashlib

    with open(listing, encoding="utf-8") as fh:
        notes = [x for x in fh if x.startswith("#")]
    rows, changed = [], 0
    for digest, path in pinned_list(listing):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            changed += 1
            continue
        with open(full, "rb") as fh:
            now = hashlib.sha256(fh.read()).hexdigest()
        changed += now != digest
        rows.append(f"{now}  {path}\n")
    with open(listing, "w", encoding="utf-8") as fh:
        fh.writelines(notes + rows)
    return changed


def real_lines() -> List[str]:
    """The non-blank lines of the pinned real failure logs (TRAINING_FILES) the training log draws from."""
    import io

    out: List[str] = []
    for data in pinned_files(TRAINING_FILES):  # read as text files are (universal newlines), as before the pinning
        with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace") as fh:
            out.extend(x.rstrip("\n") for x in fh if x.strip())
    return out


def write_log(path: str, size_mb: float) -> int:
    rnd = random.Random(1234)
    real = real_lines()
    target = int(size_mb * 1024 * 1024)
    written = 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        while written < target:
            buf = []
            for _ in range(2000):
                if rnd.random() < 0.05 and real:
                    line = rnd.choice(real)
                else:
                    line = rnd.choice(NOISE).format(s=rnd.randrange(60), us=rnd.randrange(10 ** 6),
                                                    n=rnd.randrange(1, 20000))
                buf.append(line + ("\r" if "it/s" in line else "\n"))
            chunk = "".join(buf)
            fh.write(chunk)
            written += len(chunk.encode("utf-8"))
    return os.path.getsize(path)


def write_real_log(path: str, size_mb: float) -> int:
    """The stress log: the pinned real failure logs of tests/data/logs (STRESS_FILES: each cited in its folder's
    README.md) one after the other, over and over, up to ``size_mb``."""
    one = b"".join(data if data.endswith(b"\n") else data + b"\n" for data in pinned_files(STRESS_FILES))
    target = int(size_mb * 1024 * 1024)
    with open(path, "wb") as fh:
        written = 0
        while written < target:
            fh.write(one)
            written += len(one)
    return os.path.getsize(path)


REAL_LONG = os.path.join(ROOT, "benchmarks", "data", "real-long")


def real_long_logs() -> "List[tuple[str, bytes]]":
    """The real long logs of benchmarks/data/real-long (name, bytes), in their names' order, each ending
    with a line end (as `cat` would join them)."""
    import gzip

    out = []
    for f in sorted(os.listdir(REAL_LONG)):
        if f.endswith(".log.gz"):
            with gzip.open(os.path.join(REAL_LONG, f), "rb") as fh:
                data = fh.read()
            out.append((f[:-3], data if data.endswith(b"\n") else data + b"\n"))
    return out


def write_real_long_log(path: str, size_mb: float) -> int:
    """A log of real shapes: the logs of benchmarks/data/real-long one after the other (over and over
    when --size-mb is more than all of them), cut at the first line end at or after ``size_mb``. No line
    is changed: every line of the result is a line of one of those logs."""
    one = b"".join(data for _, data in real_long_logs())
    target = int(size_mb * 1024 * 1024)
    with open(path, "wb") as fh:
        written = 0
        while written < target:
            left = target - written
            if len(one) <= left:
                part = one
            else:
                end = one.find(b"\n", left - 1)
                part = one[: end + 1] if end >= 0 else one
            fh.write(part)
            written += len(part)
    return os.path.getsize(path)


def log_writer(a) -> "tuple":
    """The chosen log's writer and its name in the tables."""
    if getattr(a, "real_long", False):
        return write_real_long_log, "real long logs (benchmarks/data/real-long)"
    if a.real:
        return write_real_log, "real failure logs only (stress case)"
    return write_log, "training-log noise"


def run_once(path: str, lines_api: bool = False) -> "tuple[float, float, int, int]":
    from envcheck.explain import explain_lines
    from envcheck.explain.reader import iter_lines

    if lines_api:
        t0, c0 = time.perf_counter(), time.process_time()
        n = 0
        with open(path, "rb") as fh:
            def counted():
                nonlocal n
                for x in iter_lines(fh):
                    n += 1
                    yield x
            ms = explain_lines(counted())
        return time.perf_counter() - t0, time.process_time() - c0, len(ms), n
    from envcheck.explain import explain_stream

    t0, c0 = time.perf_counter(), time.process_time()
    with open(path, "rb") as fh:
        res = explain_stream(fh)
    return time.perf_counter() - t0, time.process_time() - c0, len(res.matches), res.lines


def run_cli(path: str) -> "tuple[float, float, int, int]":
    import json
    import resource
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.environ.get("ENVCHECK_CODE") or ROOT)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # run from the checkout timed: `python -m` puts the current folder first on sys.path
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", path, "--no-detect", "--json"],
                       capture_output=True, env=env, cwd=env["PYTHONPATH"])
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rep = json.loads(r.stdout)
    return wall, cpu, len(rep["matches"]), int(rep.get("lines_scanned") or 0)


def grep_words() -> str:
    """The knowledge base's literals (every signature's and fact's) as one ``grep -E`` alternation: the
    same family of words explain's first pass looks for."""
    import re

    from envcheck.explain.kb import load_kb

    kb = load_kb()
    lits = sorted({x for s in kb.signatures for x in s.literals} | {x for f in kb.facts for x in f.literals})
    return "|".join(re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", x) for x in lits)


def run_grep(path: str, words: str) -> "tuple[float, float]":
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(["grep", "-c", "-i", "-E", words, path], capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def scale(a) -> int:
    factors = [int(x) for x in a.scale.split(",")]
    fd, base = tempfile.mkstemp(prefix="explain-bench-", suffix=".log")
    os.close(fd)
    write, what = log_writer(a)
    write(base, a.size_mb)
    made = [base]
    words = grep_words() if a.grep else ""
    try:
        with open(base, "rb") as fh:
            one = fh.read()
        print(f"{'input':>10} {'MB':>8} {'CPU s':>8} {'CPU MB/s':>9} {'wall s':>8}  (median of {a.repeats}"
              f"{'' if a.cli else f', 1x of {max(a.repeats, 7)}, after a warm-up call'}, "
              f"{'CLI' if a.cli else 'explain_stream'}, {what})")
        if not a.cli:  # the process's first call compiles the patterns its log needs: not a warm call's cost
            _, cpu, _, _ = run_once(base)
            print(f"{'warm-up':>10} {len(one) / (1024 * 1024):8.1f} {cpu:8.2f} {len(one) / (1024 * 1024) / cpu:9.1f}"
                  f"{'':>9}  (the process's first call, not counted: it compiles the patterns; the CLI's only call)")
        for f in factors:
            path = base
            if f != 1:
                fd, path = tempfile.mkstemp(prefix="explain-bench-", suffix=".log")
                os.close(fd)
                made.append(path)
                with open(path, "wb") as out:
                    for _ in range(f):
                        out.write(one)
            mb = os.path.getsize(path) / (1024 * 1024)
            walls, cpus = [], []
            # (at 1x a call is short and the median of few calls wanders with the load: at least 7 there)
            for _ in range(max(1, a.repeats, 7 if f == 1 and not a.cli else 1)):
                wall, cpu, _, _ = run_cli(path) if a.cli else run_once(path)
                walls.append(wall)
                cpus.append(cpu)
            c = statistics.median(cpus)
            print(f"{str(f) + 'x':>10} {mb:8.1f} {c:8.2f} {mb / c:9.1f} {statistics.median(walls):8.2f}")
            if a.grep and a.grep_upto and mb > a.grep_upto:
                print(f"{'grep -c -i -E':>10} {mb:8.1f}   (not run: over --grep-upto {a.grep_upto:g} MB)")
            elif a.grep:
                g = [run_grep(path, words) for _ in range(max(1, a.repeats))]
                gc = statistics.median(x[1] for x in g)
                print(f"{'grep -c -i -E':>10} {mb:8.1f} {gc:8.2f} {mb / max(gc, 1e-9):9.1f} "
                      f"{statistics.median(x[0] for x in g):8.2f}   (the knowledge base's literals)")
        try:
            print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        except OSError:
            pass
    finally:
        for p in made:
            os.unlink(p)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=float, default=50.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--log", help="time this log instead of a generated one")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--real", action="store_true",
                       help="the stress case: the log from the pinned real failure logs of tests/data/logs only (see "
                            "write_real_log)")
    which.add_argument("--real-long", action="store_true",
                       help="a log of real shapes: the real long GPU training logs of benchmarks/data/real-long back "
                            "to back (see write_real_long_log)")
    ap.add_argument("--keep", action="store_true", help="keep the generated log (prints its path)")
    ap.add_argument("--lines-api", action="store_true",
                    help="time explain_lines(iter_lines(...)) instead (the only API of older versions)")
    ap.add_argument("--scale", help="comma-separated multiples of --size-mb to time, e.g. 1,10,100")
    ap.add_argument("--cli", action="store_true", help="time the CLI in a child process (with --scale)")
    ap.add_argument("--grep", action="store_true",
                    help="with --scale: also time `grep -c -i -E` for the knowledge base's literals on each log")
    ap.add_argument("--grep-upto", type=float, default=0.0, metavar="MB",
                    help="with --grep: only on logs of at most MB megabytes (grep -i -E over the knowledge base's "
                         "literals reads the stress log at ~1 MB/s of CPU: 100x would take ~8 minutes a call)")
    ap.add_argument("--repin", action="store_true",
                    help="write the pinned lists (benchmarks/data/stress-files.txt, training-files.txt) anew from the "
                         "files now in tests/data/logs, and stop: the logs' figures then no longer compare with earlier "
                         "ones (say so in benchmarks/README.md)")
    a = ap.parse_args()
    if a.repin:
        for listing in (STRESS_FILES, TRAINING_FILES):
            print(f"{os.path.relpath(listing, ROOT)}: {repin(listing)} line(s) changed or gone")
        return 0
    try:
        return run(a)
    except PinnedChanged as e:
        print(f"explain_throughput: {e}", file=sys.stderr)
        return 2


def run(a: argparse.Namespace) -> int:
    from envcheck.explain.kb import load_kb

    kb = load_kb()  # compile the knowledge base outside the timing
    if hasattr(kb, "line_set"):
        kb.line_set()
        print(f"matcher: {kb.matcher}")
    if a.scale:
        return scale(a)
    tmp = None
    if a.log:
        path = a.log
    else:
        fd, tmp = tempfile.mkstemp(prefix="explain-bench-", suffix=".log")
        os.close(fd)
        path = tmp
        log_writer(a)[0](path, a.size_mb)
    size = os.path.getsize(path)
    try:
        times: List[float] = []
        cpu: List[float] = []
        found = lines = 0
        for _ in range(max(1, a.repeats)):
            dt, ct, found, lines = run_once(path, a.lines_api)
            times.append(dt)
            cpu.append(ct)
        mb = size / (1024 * 1024)
        print(f"log: {mb:.1f} MB, {lines} lines; {found} distinct causes found")
        print(f"explain: best {mb / min(times):.1f} MB/s wall ({min(times):.2f} s), "
              f"median {mb / statistics.median(times):.1f} MB/s over {len(times)} runs; "
              f"CPU time: best {mb / min(cpu):.1f} MB/s ({min(cpu):.2f} s)")
        try:
            print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall time suffers on a busy machine)")
        except OSError:
            pass
    finally:
        if tmp and not a.keep:
            os.unlink(tmp)
        elif tmp:
            print(f"kept: {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
