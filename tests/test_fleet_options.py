"""Fleet an SRE can run every hour (issue 14 point 4): status --hostname / ENVCHECK_HOSTNAME, reports with
their time and versions, written with the caller's umask; fleet summarize --expect (Slurm host lists),
--max-age, per-node findings and one "fix first" line per group."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from envcheck.errors import UsageError
from envcheck.fleet import expand_hostlist, parse_age
from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def envcheck(args, stdin=None, env=None, **kw):
    e = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    e.pop("ENVCHECK_HOSTNAME", None)
    e.update(env or {})
    r = subprocess.run([sys.executable, "-m", "envcheck", *args], input=stdin, capture_output=True, env=e,
                       timeout=120, **kw)
    assert b"Traceback" not in r.stderr, r.stderr.decode()
    return r


SP = "/opt/venv/lib/python3.11/site-packages"
PIP_LIBS = (f"{SP}/nvidia/cuda_runtime/lib/libcudart.so.12\n{SP}/nvidia/cudnn/lib/libcudnn.so.9\n"
            f"{SP}/nvidia/cublas/lib/libcublas.so.12\n")


def _stack(driver, driver_cuda):
    files = dict(gpu_machine(driver, driver_cuda, [("NVIDIA H100 80GB HBM3", 81559)], cc=["9.0"]),
                 **torch_install("2.5.1+cu124", "12.4", packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
    files["libraries.txt"] = PIP_LIBS
    return files


@pytest.fixture(scope="module")
def snaps(tmp_path_factory):
    d = tmp_path_factory.mktemp("snaps")
    return {"good": make_snapshot(str(d / "good"), _stack("550.54.15", "12.4")),
            "old": make_snapshot(str(d / "old"), _stack("470.57.02", "11.4"))}


def _iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


# -- the reports --------------------------------------------------------------------------------

def test_status_hostname_created_versions_and_umask(tmp_path, snaps):
    before = time.time()
    r = envcheck(["status", "--json", "--snapshot", snaps["good"], "--hostname", "gpu-node-7"])
    rep = json.loads(r.stdout)
    assert rep["hostname"] == "gpu-node-7"  # the snapshot says node01
    created = time.mktime(time.strptime(rep["created"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert before - 2 <= created <= time.time() + 2
    assert rep["envcheck"] and rep["matrix_version"] and rep["matrix"].endswith(rep["matrix_version"])
    # ENVCHECK_HOSTNAME (a pod's spec.nodeName); --hostname wins over it; empty means unset
    rep = json.loads(envcheck(["status", "--json", "--snapshot", snaps["good"]],
                              env={"ENVCHECK_HOSTNAME": "pod-node"}).stdout)
    assert rep["hostname"] == "pod-node"
    rep = json.loads(envcheck(["status", "--json", "--snapshot", snaps["good"], "--hostname", "cli"],
                              env={"ENVCHECK_HOSTNAME": "pod-node"}).stdout)
    assert rep["hostname"] == "cli"
    rep = json.loads(envcheck(["status", "--json", "--snapshot", snaps["good"]], env={"ENVCHECK_HOSTNAME": ""}).stdout)
    assert rep["hostname"] == "node01"
    for bad in ("two words", "tab\there", "x" * 300, "esc\x1b[31m"):
        r = envcheck(["status", "--json", "--snapshot", snaps["good"], "--hostname", bad])
        assert r.returncode == 2 and b"--hostname" in r.stderr
    # --report: the caller's umask (was 0600, unreadable by a collector running as another user)
    for mask, want in ((0o022, 0o644), (0o027, 0o640)):
        path = tmp_path / f"r{mask:o}.json"
        r = envcheck(["status", "--snapshot", snaps["good"], "--report", str(path), "-q"],
                     preexec_fn=lambda m=mask: os.umask(m))
        assert r.returncode == 0 and stat.S_IMODE(path.stat().st_mode) == want
        assert json.loads(path.read_text())["created"]
    # a replaced report keeps its mode
    os.chmod(path, 0o604)
    envcheck(["status", "--snapshot", snaps["good"], "--report", str(path), "-q"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o604


# -- --expect, --max-age ------------------------------------------------------------------------

@pytest.mark.parametrize("text,want", [
    ("node[01-04]", ["node01", "node02", "node03", "node04"]),
    ("a[1-3,5],b07", ["a1", "a2", "a3", "a5", "b07"]),
    ("gpu[9-11]", ["gpu9", "gpu10", "gpu11"]),
    ("r[1-2]-n[01-02]", ["r1-n01", "r1-n02", "r2-n01", "r2-n02"]),
    ("solo", ["solo"]),
    ("x[098-101]", ["x098", "x099", "x100", "x101"]),
    ("n1,n1,n[1-2]", ["n1", "n2"]),
    ("a1 b[1-2]\n", ["a1", "b1", "b2"]),
])
def test_expand_hostlist(text, want):
    assert expand_hostlist(text) == want


@pytest.mark.parametrize("text", ["node[01-", "node]1[", "n[3-1]", "n[a-b]", "n[[1]]", "n[1-9999999]",
                                  "n;rm", "n[1 -2]x"])
def test_expand_hostlist_refuses(text):
    with pytest.raises(UsageError):
        expand_hostlist(text)


@pytest.mark.parametrize("text,want", [("3600", 3600), ("90m", 5400), ("2h", 7200), ("1d", 86400),
                                       ("1h30m", 5400), ("45s", 45), ("1.5h", 5400), ("2H", 7200)])
def test_parse_age(text, want):
    assert parse_age(text) == want


@pytest.mark.parametrize("text", ["", "h", "-1h", "2x", "0", "forever", "1e9d"])
def test_parse_age_refuses(text):
    with pytest.raises(UsageError):
        parse_age(text)


def _rep(tmp, host, ok=True, created=None, finding=None):
    findings = [finding] if finding else []
    rep = {"schema": "envcheck/report/1", "hostname": host, "ok": ok, "driver": {"version": "550.54.15"},
           "findings": findings}
    if created is not None:
        rep["created"] = created
    (tmp / f"{host}.json").write_text(json.dumps(rep))


def test_expect_missing_and_max_age_stale(tmp_path):
    now = time.time()
    d = tmp_path / "r"
    d.mkdir()
    _rep(d, "node01", created=_iso(now - 600))
    _rep(d, "node02", created=_iso(now - 3 * 3600))  # stopped reporting three hours ago
    _rep(d, "node03")  # an older envcheck: no time
    _rep(d, "node05", created=_iso(now - 60))
    _rep(d, "login1", created=_iso(now))
    r = envcheck(["fleet", "summarize", str(d), "--expect", "node[01-05]", "--max-age", "2h", "--json"])
    s = json.loads(r.stdout)
    assert r.returncode == 1
    assert s["missing"] == ["node04"] and s["unexpected"] == ["login1"]
    assert s["stale"] == ["node02", "node03"]
    why = {x["node"]: x["reason"] for x in s["stale_reasons"]}
    assert "3h" in why["node02"] and "no readable creation time" in why["node03"]
    # text and Markdown say it too
    text = envcheck(["fleet", "summarize", str(d), "--expect", "node[01-05]", "--max-age", "2h"]).stdout.decode()
    assert "Missing (expected, no report): node04" in text and "Stale (older than --max-age): node[02-03]" in text
    assert "NOT OK:" in text and "1 expected node(s) never reported" in text
    md = envcheck(["fleet", "summarize", str(d), "--expect", "node[01-05]", "--markdown"]).stdout.decode()
    assert md.startswith("### envcheck fleet: NOT OK") and "#### Missing" in md
    # every expected node fresh: exit 0; several --expect add up
    for n in ("node02", "node03", "node04"):
        _rep(d, n, created=_iso(now))
    r = envcheck(["fleet", "summarize", str(d), "--expect", "node[01-03]", "--expect", "node[04-05]",
                  "--max-age", "90m", "--json"])
    s = json.loads(r.stdout)
    assert r.returncode == 0, s
    assert s["missing"] == [] and s["stale"] == []
    # without the options the keys are absent (contract §7: added "with --expect" / "with --max-age")
    s = json.loads(envcheck(["fleet", "summarize", str(d), "--json"]).stdout)
    assert "missing" not in s and "stale" not in s
    assert envcheck(["fleet", "summarize", str(d), "--expect", "node[1-"]).returncode == 2
    assert envcheck(["fleet", "summarize", str(d), "--max-age", "soon"]).returncode == 2


def test_fix_first_per_group_and_per_node_findings(tmp_path, snaps):
    d = tmp_path / "r"
    d.mkdir()
    for host, kind in (("n1", "good"), ("n2", "good"), ("n3", "old"), ("n4", "old")):
        r = envcheck(["status", "--json", "--snapshot", snaps[kind], "--hostname", host])
        (d / f"{host}.json").write_bytes(r.stdout)
    s = json.loads(envcheck(["fleet", "summarize", str(d), "--json"]).stdout)
    groups = {tuple(g["nodes"]): g for g in s["groups"]}
    bad = groups[("n3", "n4")]["fix_first"]
    assert bad["id"] == "driver-too-old" and bad["severity"] == "error" and bad["nodes"] == ["n3", "n4"]
    assert bad["fix"] and "driver" in bad["fix"].lower()
    assert s["per_node"]["n3"]["ok"] is False and s["per_node"]["n3"]["created"]
    assert any(f["id"] == "driver-too-old" and f["message"] for f in s["per_node"]["n3"]["findings"])
    assert s["per_node"]["n3"]["origin"].endswith("n3.json")
    assert set(s["versions"]["envcheck"]) == {json.loads((d / "n1.json").read_text())["envcheck"]}
    text = envcheck(["fleet", "summarize", str(d)]).stdout.decode()
    assert "fix first: [driver-too-old] (error, 2 node(s))" in text
    assert "  n3: [driver-too-old]" in text  # per failing node, its errors
    md = envcheck(["fleet", "summarize", str(d), "--markdown"]).stdout.decode()
    assert "| fix first |" in md and "`driver-too-old`" in md


def test_help_example_cat_into_stdin(tmp_path, snaps):
    """The --help example: `cat reports/*.json | envcheck fleet summarize - --json` (status --json is
    pretty-printed; this read 0 nodes)."""
    help_text = envcheck(["fleet", "summarize", "--help"]).stdout.decode()
    assert "cat reports/*.json | envcheck fleet summarize - --json" in help_text
    d = tmp_path / "reports"
    d.mkdir()
    for host, kind in (("a1", "good"), ("a2", "old"), ("a3", "good")):
        (d / f"{host}.json").write_bytes(
            envcheck(["status", "--json", "--snapshot", snaps[kind], "--hostname", host]).stdout)
    cat = subprocess.run(f"cat {d}/*.json", shell=True, capture_output=True, check=True).stdout
    r = envcheck(["fleet", "summarize", "-", "--json"], stdin=cat)
    s = json.loads(r.stdout)
    assert r.returncode == 1 and s["nodes"] == 3 and s["failing"] == ["a2"] and s["unreadable"] == []
    assert envcheck(["fleet", "summarize", "-", "-"], stdin=b"").returncode == 2
