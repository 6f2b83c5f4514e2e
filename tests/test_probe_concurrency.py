"""The live probe runs nvidia-smi's table and its --query-gpu CSV at the same time (issue 24: on a real H100 the
table takes ~100 ms and the query ~20 ms; one after the other cost their sum), keeps the query only when the
table succeeded, and never runs one capture twice when two threads ask for it.

The fake nvidia-smi proves the overlap without timing anything: each call marks that it started, then waits
(bounded) until the other kind of call has started too. Run one after the other, the first call would wait in
vain and fail."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from envcheck.probe.live import LiveSource
from envcheck.proc import NOT_FOUND, OK
from helpers import gpu_machine

#: each call: mark "started.<kind>", wait up to 30 s for the other kind's mark, then print its capture;
#: alone at the end of the wait, it says so and fails (exit 3); every call is also logged in calls.log
FAKE = """#!/bin/sh
D={d}
case "$1" in --query-gpu=*) me=query; other=table;; *) me=table; other=query;; esac
echo "$me" >> "$D/calls.log"
: > "$D/started.$me"
i=0
while [ ! -e "$D/started.$other" ]; do
  i=$((i+1))
  if [ $i -gt 600 ]; then echo "alone: $me ran without $other"; exit 3; fi
  sleep 0.05
done
{body}
"""

TABLE_OK = 'if [ $me = query ]; then cat "$D/query.csv"; else cat "$D/table.txt"; fi'
QUERY = ("index, name, driver_version, compute_cap, memory.total [MiB]\n"
         "0, NVIDIA H100 80GB HBM3, 580.159.04, 9.0, 81559 MiB\n")


def _fake(tmp_path, monkeypatch, body: str = TABLE_OK) -> str:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (tmp_path / "table.txt").write_text(gpu_machine("580.159.04", "13.0", [("NVIDIA H100 80GB HBM3", 81559)])
                                        ["nvidia-smi.txt"])
    (tmp_path / "query.csv").write_text(QUERY)
    exe = bindir / "nvidia-smi"
    exe.write_text(FAKE.format(d=tmp_path, body=body))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}/usr/bin:/bin")
    return str(tmp_path)


def _calls(d: str):
    with open(os.path.join(d, "calls.log")) as fh:
        return sorted(fh.read().split())


@pytest.mark.parametrize("how", ["all", "query alone", "query first"])
def test_table_and_query_run_at_the_same_time(tmp_path, monkeypatch, how):
    d = _fake(tmp_path, monkeypatch)
    src = LiveSource(timeout=120)
    if how == "all":
        caps = src.all()
        table, query = caps["nvidia-smi.txt"], caps["nvidia-smi-query.csv"]
    else:
        query = src.get("nvidia-smi-query.csv")
        table = src.get("nvidia-smi.txt")
    assert table.status == OK, table.detail
    assert "alone" not in (table.text or "") and "NVIDIA H100 80GB HBM3" in (table.text or "")
    assert query.status == OK, query.detail
    assert query.text == QUERY
    assert _calls(d) == ["query", "table"]  # each ran once


def test_query_is_dropped_when_the_table_fails(tmp_path, monkeypatch):
    # the table fails as a driver that lost the GPU does; the query answers: its answer is not kept
    body = ('if [ $me = query ]; then cat "$D/query.csv"; else '
            'echo "Unable to determine the device handle for GPU0000:00:04.0: Unknown Error"; exit 15; fi')
    d = _fake(tmp_path, monkeypatch, body)
    caps = LiveSource(timeout=120).all()
    assert caps["nvidia-smi.txt"].status != OK
    q = caps["nvidia-smi-query.csv"]
    assert q.status == NOT_FOUND and q.text in (None, "")
    assert q.detail == "skipped: plain nvidia-smi did not succeed"
    assert _calls(d) == ["query", "table"]


def test_a_capture_asked_by_two_threads_runs_once(tmp_path, monkeypatch):
    d = _fake(tmp_path, monkeypatch)
    src = LiveSource(timeout=120)
    got = []
    threads = [threading.Thread(target=lambda: got.append(src.get("nvidia-smi-query.csv"))) for _ in range(3)]
    threads.append(threading.Thread(target=lambda: got.append(src.get("nvidia-smi.txt"))))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(got) == 4 and all(c.status == OK for c in got)
    assert _calls(d) == ["query", "table"]


def test_a_capture_that_asks_for_itself_does_not_wait_for_itself(monkeypatch, tmp_path):
    # a capture whose reading asks for its own key (no such capture today; the guard keeps a future one from
    # hanging status): answered at once, in a thread joined with a bound
    calls = []

    class Src(LiveSource):
        def _k_proc_version_txt(self):
            calls.append(1)
            if len(calls) == 1:
                inner = self.get("proc-version.txt")
                return inner
            return super()._k_proc_version_txt()

    src = Src(timeout=10)
    got = []
    t = threading.Thread(target=lambda: got.append(src.get("proc-version.txt")), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive() and len(got) == 1 and len(calls) == 2


def test_a_thread_only_for_a_group_that_can_run_a_command(tmp_path, monkeypatch):
    """Issue 24, seventh round: ``all()`` starts a thread only for a group of captures that can start a command on
    the machine; where there is no nvidia-smi, no AMD or Intel GPU (a root without /sys) and no macOS, those groups
    are captured in the calling thread, each key with the same answer as asked alone (and nvidia-smi's, present,
    still in threads of their own: the test above)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", str(bindir))  # no nvidia-smi, no vendor tool (nor ldconfig, nvcc: their threads)
    started = []
    real_thread = threading.Thread

    class Counted(real_thread):
        def start(self):
            started.append(self)
            super().start()

    monkeypatch.setattr(threading, "Thread", Counted)
    caps = LiveSource(timeout=30, root=str(tmp_path)).all()
    monkeypatch.setattr(threading, "Thread", real_thread)
    from envcheck.probe.vendors import AMD_COMMAND_KEYS, INTEL_COMMAND_KEYS, MAC_COMMAND_KEYS

    import sys

    # the ldconfig / NVML group and nvcc's: they may run a command (and on macOS its tools' group)
    assert len(started) == 2 + (sys.platform == "darwin")
    alone = LiveSource(timeout=30, root=str(tmp_path))
    for key in ("nvidia-smi.txt", "nvidia-smi-query.csv", *AMD_COMMAND_KEYS, *INTEL_COMMAND_KEYS, *MAC_COMMAND_KEYS):
        got, want = caps[key], alone.get(key)
        assert (got.status, got.text, got.detail) == (want.status, want.text, want.detail), key
        assert got.status == NOT_FOUND
