"""Every figure issue 24 asks for, in one run, each beside its bar (and beside another checkout's, with --before).

Usage:

    python benchmarks/run_all.py [--before OTHER_CHECKOUT] [--rounds 2] [--skip guard,fleet,...]
                                 [--instructions] [--nodes 100000] [--scales 1,10,100]

It runs the benchmarks of this folder one after the other, each as a child (their own output is shown as it
comes), and ends with one table: status's CPU time against the bare start (bar <= 1.5x, interleaved in one run with
the other checkout's), explain's MB/s of CPU on three logs at each scale with ``grep -c -i -E`` as the anchor (the
generated training log; the real-long log, real whole GPU training logs back to back, a log of real shapes; the
real-failure log, every line a failure line, the stress case) (bar >= 100 MB/s; each checkout timed in turn, twice, alternating: medians; at
least 3 calls per size, so that the median is a warm call: the first call of a process compiles the patterns), the
guard's cost per forward of the small CNN (bar < 3%) and of a ResNet-18 (far below 1%: single forwards of a guarded
and a plain copy interleaved, this thread's CPU time, the median per pair, beside the same with no-op pre-hooks and the
guard's own cost timed alone; with ``--before`` also both guards beside a plain copy in one process, forward by forward:
``guard_overhead.py --versus``), fleet summarize on 100,000
reports (bar < 20 s of CPU), and the load average before and after each part. ``--instructions`` adds valgrind's
instruction counts of one warm explain call on the three 1x logs (they do not depend on the load; a few minutes more).

Time on the 2-core development machine, busy (load 3-10), with ``--before``: the defaults (``--rounds 2``) about
19 minutes (status ~4 with collect_env, explain ~10.5 with its three logs, guard ~3, fleet ~2.5 with the reports'
generation);
``--rounds 1`` (one turn of each checkout, 7 status rounds, 6 guard blocks) about 10; ``--rounds 1 --scales 1,10
--nodes 10000`` about 4. A quiet machine takes about two thirds of that. No timing is asserted anywhere: this only measures. torch (for the guard) is optional: without it that
part says so.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def load() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def child(argv: List[str], env: Optional[Dict[str, str]] = None, cwd: str = ROOT) -> str:
    """Run a benchmark script, echo its output, return it."""
    print(f"\n$ {' '.join(argv[1:])}" + (f"   (ENVCHECK_CODE={env['ENVCHECK_CODE']})" if env and
                                          env.get("ENVCHECK_CODE") else "") + f"   [load {load()}]", flush=True)
    r = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    out = r.stdout + (r.stderr[-2000:] if r.returncode else "")
    print(out.rstrip(), flush=True)
    return out


def status_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    argv = [sys.executable, os.path.join(HERE, "status_vs_collect_env.py"), "--rounds", str(max(3, 7 * a.rounds))]
    if a.before:
        argv += ["--code", a.before]
    out = child(argv)
    bare = cpu_ms(out, "", exact_name="bare: python -c 'import click, packaging.version, json, subprocess'")
    for label, prefix in (("status --json", "envcheck status --json "), ("status (text)", "envcheck status "),
                          ("before: status --json", f"envcheck status --json ({os.path.basename(os.path.normpath(a.before or '-'))})")):
        got = cpu_ms(out, prefix, exact_name=prefix.strip())
        if got is not None and bare:
            rows.append((label, f"{got:.1f} ms CPU = {got / bare:.2f}x the bare start ({bare:.1f} ms)", "<= 1.5x",
                         "met" if got / bare <= 1.5 else "NOT met"))
    for m in re.finditer(r"^(python -m torch\.utils\.collect_env|cudnn-frontend[^:]*|env-doctor[^:]*): ([\d.]+)x the wall "
                         r"time, ([\d.]+)x the CPU time", out, re.M):
        rows.append((f"anchor: {m.group(1)}", f"{m.group(3)}x the CPU, {m.group(2)}x the wall time of status --json",
                     "", ""))


def cpu_ms(out: str, prefix: str, exact_name: Optional[str] = None) -> Optional[float]:
    for line in out.splitlines():
        name = line[:58].strip()
        if (exact_name is not None and name == exact_name) or (exact_name is None and line.startswith(prefix)):
            parts = line[58:].split()
            try:
                return float(parts[1])
            except (IndexError, ValueError):
                return None
    return None


SCALE = re.compile(r"^\s+(\d+)x\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
GREP = re.compile(r"^\s*grep -c -i -E\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")


# explain's three logs: (its name in the table, explain_throughput.py's flag, the writer's name in that script)
EXPLAIN_LOGS = (("training log", "", "write_log"),
                ("real-long log (real shapes)", "--real-long", "write_real_long_log"),
                ("real-failure log (stress case)", "--real", "write_real_log"))


def explain_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    codes = [("after", ROOT)] + ([("before", a.before)] if a.before else [])
    for what, flag, _ in EXPLAIN_LOGS:
        got: Dict[Tuple[str, str], List[float]] = {}
        grep: Dict[str, List[float]] = {}
        for turn in range(2 if a.rounds >= 2 else 1):  # each checkout in turn, twice, alternating (the load drifts)
            for name, code in (codes if turn == 0 else codes[::-1]):
                argv = [sys.executable, os.path.join(HERE, "explain_throughput.py"), "--scale", a.scales,
                        "--size-mb", "5", "--repeats", str(max(3, a.rounds + 1))] + ([flag] if flag else [])
                if turn == 0 and name == "after":
                    # (grep reads the stress log at ~1 MB/s of CPU, 8 minutes a call at 100x: session 13's run was
                    # stopped there; speed26) only its 1x
                    argv += ["--grep"] + (["--grep-upto", "10"] if flag == "--real" else [])
                out = child(argv, dict(os.environ, ENVCHECK_CODE=code))
                scale = None
                for line in out.splitlines():
                    m = SCALE.match(line)
                    if m:
                        scale = m.group(1) + "x"
                        got.setdefault((name, scale), []).append(float(m.group(4)))
                    m = GREP.match(line)
                    if m and scale:
                        grep.setdefault(scale, []).append(float(m.group(1)) / max(float(m.group(2)), 1e-9))
        for scale in a.scales.split(","):
            key = scale + "x"
            after = got.get(("after", key))
            if not after:
                continue
            fig = f"{statistics.median(after):.1f} MB/s of CPU"
            if a.before and got.get(("before", key)):
                b = statistics.median(got[("before", key)])
                fig += f" (before {b:.1f}: {statistics.median(after) / b:.2f}x)"
            if grep.get(key):
                fig += f"; grep {statistics.median(grep[key]):.0f} MB/s"
            rows.append((f"explain, {what}, {key}", fig, ">= 100 MB/s",
                         "met" if statistics.median(after) >= 100 else "NOT met"))


def instructions_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    sys.path.insert(0, HERE)
    import explain_throughput as et  # noqa: E402 - the same generated logs

    tmp = tempfile.mkdtemp(prefix="run-all-")
    try:
        for what, _, writer in EXPLAIN_LOGS:
            path = os.path.join(tmp, writer + ".log")
            getattr(et, writer)(path, 5)
            argv = [sys.executable, os.path.join(HERE, "explain_instructions.py"), path]
            if a.before:
                argv += ["--code", a.before]
            out = child(argv)
            counts = re.findall(r"([\d.]+) M instructions", out)
            if counts:
                fig = f"{float(counts[0]):.0f} M instructions per warm call"
                if len(counts) > 1:
                    fig += f" (before {float(counts[1]):.0f} M: {float(counts[0]) / float(counts[1]) - 1:+.1%})"
                rows.append((f"explain instructions, {what} 1x", fig, "", ""))
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


def guard_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    out = child([sys.executable, os.path.join(HERE, "guard_overhead.py"), "--framework", "torch", "--runs", "200",
                 "--blocks", str(max(5, 6 * a.rounds)), "--resnet-runs", "5", "--pairs", str(1000 * max(2, a.rounds)),
                 "--controls", "guard,noop-forward,noop-input"])
    for line in out.splitlines():
        m = re.search(r"paired\s+(-?[\d.]+)%", line)
        if m and line.startswith(("small CNN", "ResNet-18")):
            small = line.startswith("small CNN")
            rows.append((f"guard, {'small CNN' if small else 'ResNet-18'} (paired blocks, whole forward)",
                         f"{m.group(1)}%", "", ""))
        m = re.search(r"interleaved (guarded|no-op pre-hooks on the same layers|no-op forward wrappers on the same "
                      r"layers|no-op one-parameter forward wrappers on the same layers): plain +([\d.]+)us, "
                      r"+([+-][\d.]+)us = "
                      r"+([+-][\d.]+)% \(quarters: ([^)]*)\)", line)
        if m and line.startswith(("small CNN", "ResNet-18")):
            small = line.startswith("small CNN")
            name = "small CNN" if small else "ResNet-18"
            if m.group(1) == "guarded":
                pct = float(m.group(4))
                rows.append((f"guard, {name} (interleaved forward by forward, whole forward)",
                             f"{pct:+.2f}% ({m.group(3)} us of {m.group(2)} us; quarters {m.group(5)})",
                             "< 3%" if small else "< 1%", "met" if pct < (3 if small else 1) else "NOT met"))
            else:
                what = ("no-op pre-hooks (torch's hook path alone, the guard's mechanism before guard25)"
                        if "pre-hooks" in m.group(1) else
                        "no-op one-parameter forward wrappers where the guard puts its own (its floor since speed26)"
                        if "one-parameter" in m.group(1) else
                        "no-op forward wrappers (the guard's mechanism until speed26, no check)")
                rows.append((f"  {name}: the same with {what}",
                             f"{float(m.group(4)):+.2f}% ({m.group(3)} us; quarters {m.group(5)})", "", ""))
    own = re.findall(r"^(small CNN|ResNet-18).*= +([\d.]+)us per forward", out, re.M)
    plain = {name: float(us) for name, us in re.findall(r"^(small CNN|ResNet-18).*?\| cpu\s+([\d.]+)us", out, re.M)}
    for name, us in own:
        base = plain.get(name)
        pct = float(us) / base * 100 if base else None
        rows.append((f"guard, {name}: its own cost timed alone", f"{us} us per forward" +
                     (f" = {pct:.2f}% of the plain forward's CPU" if pct is not None else ""),
                     "< 3%" if name == "small CNN" else "< 1%",
                     "" if pct is None else ("met" if pct < (3 if name == "small CNN" else 1) else "NOT met")))


def guard_versus_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    """With --before: this checkout's guard and --before's in one process, each beside a plain copy, single forwards
    interleaved (``guard_overhead.py --versus``)."""
    out = child([sys.executable, os.path.join(HERE, "guard_overhead.py"), "--versus", a.before,
                 "--pairs", str(1500 * max(2, a.rounds)), "--resnet-pairs", str(150 * max(2, a.rounds))])
    for line in out.splitlines():
        m = re.search(r"^(small CNN|ResNet-18).*?(this guard|versus guard|this minus versus) *: plain +([\d.]+)us, "
                      r"+([+-][\d.]+)us = +([+-][\d.]+)% \(thirds: ([^;]*); their mean ([+-][\d.]+)%\)", line)
        if not m:
            continue
        what = {"this guard": "this checkout", "versus guard": "--before", "this minus versus": "this minus --before"}
        rows.append((f"guard, {m.group(1)}, interleaved triples: {what[m.group(2)]}",
                     f"{float(m.group(5)):+.2f}% ({m.group(4)} us of {m.group(3)} us; thirds {m.group(6)}, their mean "
                     f"{m.group(7)}%)", "", ""))


def fleet_part(a: argparse.Namespace, rows: List[Tuple[str, str, str, str]]) -> None:
    out = child([sys.executable, os.path.join(HERE, "fleet_summarize.py"), "--nodes", str(a.nodes), "--runs", "1"])
    for m in re.finditer(r"summarize (DIR|- \(cat reports/\*\.json \|\)) --json.*?median ([\d.]+) s wall, ([\d.]+) s CPU"
                         r".*?peak RSS (\d+) MiB", out):
        cpu = float(m.group(3))
        rows.append((f"fleet summarize {a.nodes} reports ({'folder' if m.group(1) == 'DIR' else 'stdin'})",
                     f"{cpu:.1f} s CPU, {m.group(2)} s wall, {m.group(4)} MiB peak", "< 20 s (100,000)",
                     "met" if a.nodes < 100000 or cpu < 20 else "NOT met"))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", help="another checkout to time beside this one (status interleaved, explain alternating)")
    ap.add_argument("--rounds", type=int, default=2, help="scales the rounds / repeats / blocks of every part")
    ap.add_argument("--scales", default="1,10,100", help="explain's input multiples of 5 MB")
    ap.add_argument("--nodes", type=int, default=100000, help="fleet reports")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: status,explain,guard,fleet")
    ap.add_argument("--instructions", action="store_true", help="also count explain's instructions (valgrind)")
    a = ap.parse_args(argv)
    skip = set(x.strip() for x in a.skip.split(",") if x.strip())
    rows: List[Tuple[str, str, str, str]] = []
    t0 = time.time()
    print(f"run_all: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load {load()}")
    parts = [("status", status_part), ("explain", explain_part), ("guard", guard_part), ("fleet", fleet_part)]
    if a.before:
        parts.insert(3, ("guard", guard_versus_part))
    if a.instructions:
        parts.append(("instructions", instructions_part))
    for name, fn in parts:
        if name in skip:
            continue
        before = load()
        fn(a, rows)
        rows.append((f"  (load during {name})", f"{before} -> {load()}", "", ""))
    print(f"\n== issue 24's figures ({time.time() - t0:.0f} s in all; load averages 1/5/15 min) ==")
    w = max(len(r[0]) for r in rows) if rows else 10
    for label, fig, bar, verdict in rows:
        print(f"{label:<{w}}  {fig}" + (f"   [bar {bar}: {verdict}]" if bar and verdict else f"   [bar {bar}]" if bar else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
