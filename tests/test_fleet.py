"""``envcheck fleet summarize`` on generated reports with planted differences, malformed inputs,
stdin JSON lines and tar archives (of reports and of snapshot folders)."""

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

from envcheck.fleet import compact_hostlist
from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIP_LIBS = ("/opt/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12\n"
            "/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n"
            "/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12\n")


def stack(driver, driver_cuda, torch=None, torch_cuda=None, gpu="NVIDIA H100 80GB HBM3"):
    files = gpu_machine(driver, driver_cuda, [(gpu, 81559)], cc=["9.0"])
    if torch:
        files.update(torch_install(torch, torch_cuda, packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
        files["libraries.txt"] = PIP_LIBS
    return files


def envcheck(args, stdin=None):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], input=stdin, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"), timeout=120)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Real reports, made by `envcheck status --json` from snapshots: a good stack, a failing one
    (old driver), another torch build."""
    d = tmp_path_factory.mktemp("stacks")
    out = {}
    for name, files in (("good", stack("550.54.15", "12.4", "2.5.1+cu124", "12.4")),
                        ("old", stack("470.57.02", "11.4", "2.5.1+cu124", "12.4")),
                        ("other", stack("550.54.15", "12.4", "2.4.1+cu121", "12.1"))):
        snap = make_snapshot(str(d / name), files)
        r = envcheck(["status", "--json", "--snapshot", snap])
        out[name] = json.loads(r.stdout)
        out[name + "-snapshot"] = snap
    assert out["good"]["ok"] and not out["old"]["ok"] and out["other"]["ok"]
    return out


def write_fleet(d, reports, n=12, old=("node07",), other=("node03", "node11")):
    d.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        host = f"node{i:02d}"
        kind = "old" if host in old else "other" if host in other else "good"
        (d / f"{host}.json").write_text(json.dumps(dict(reports[kind], hostname=host), indent=2))
    return d


def summarize(*args, stdin=None):
    r = envcheck(["fleet", "summarize", *args, "--json"], stdin=stdin)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr.decode()


def test_planted_differences_and_failures(tmp_path, reports):
    d = write_fleet(tmp_path / "reports", reports)
    code, s, err = summarize(str(d))
    assert code == 1, err
    assert s["schema"] == "envcheck/fleet/1" and s["nodes"] == 12
    assert s["failing"] == ["node07"] and s["unreadable"] == []
    diff = {x["field"]: x["values"] for x in s["differences"]}
    assert diff["driver.version"] == {"550.54.15": [f"node{i:02d}" for i in range(1, 13) if i != 7],
                                      "470.57.02": ["node07"]}
    assert diff["frameworks.torch.version"]["2.4.1+cu121"] == ["node03", "node11"]
    assert diff["frameworks.torch.cuda"] == {"12.4": [f"node{i:02d}" for i in range(1, 13) if i not in (3, 11)],
                                             "12.1": ["node03", "node11"]}
    assert "gpus" not in diff and "python.version" not in diff
    assert [g["count"] for g in s["groups"]] == [9, 2, 1]
    assert s["groups"][0]["nodes_compact"] == "node[01-02,04-06,08-10,12]"
    assert s["groups"][2]["failing"] == ["node07"]
    ids = {f["id"]: f["nodes"] for f in s["findings"]}
    assert ids["driver-too-old"] == ["node07"]


def test_identical_fleet_is_exit_0(tmp_path, reports):
    d = write_fleet(tmp_path / "r", reports, n=5, old=(), other=())
    code, s, _ = summarize(str(d))
    assert code == 0 and s["differences"] == [] and s["failing"] == [] and len(s["groups"]) == 1
    r = envcheck(["fleet", "summarize", str(d)])
    assert r.returncode == 0 and b"node[01-05]" in r.stdout and b"OK: every node" in r.stdout


def test_gpu_model_difference(tmp_path, reports):
    d = write_fleet(tmp_path / "r", reports, n=3, old=(), other=())
    rep = json.loads((d / "node02.json").read_text())
    rep["gpus"][0]["name"] = "NVIDIA A100-SXM4-80GB"
    (d / "node02.json").write_text(json.dumps(rep))
    code, s, _ = summarize(str(d))
    diff = {x["field"]: x["values"] for x in s["differences"]}
    assert code == 1 and diff == {"gpus": {"1x NVIDIA H100 80GB HBM3": ["node01", "node03"],
                                           "1x NVIDIA A100-SXM4-80GB": ["node02"]}}


def test_malformed_inputs_are_skipped_and_listed(tmp_path, reports):
    d = write_fleet(tmp_path / "r", reports, n=4, old=(), other=())
    good = (d / "node01.json").read_text()
    (d / "truncated.json").write_text(good[: len(good) // 2])
    (d / "schema.json").write_text(json.dumps({"schema": "envcheck/plan/1", "ok": True}))
    (d / "binary.json").write_bytes(bytes(range(256)) * 4)
    (d / "empty.json").write_bytes(b"")
    (d / "list.json").write_text("[1, 2]")
    (d / "dir.json").mkdir()  # a folder named like a report holds nothing
    (d / "notes.txt").write_text("not a report, not looked at")
    code, s, err = summarize(str(d), str(tmp_path / "missing.json"))
    assert code == 1  # §7: an unreadable input makes the exit status non-zero
    assert s["nodes"] == 4 and s["failing"] == [] and s["differences"] == []
    bad = sorted(os.path.basename(u.split(":")[0]) for u in s["unreadable"])
    assert bad == ["binary.json", "empty.json", "list.json", "missing.json", "schema.json", "truncated.json"]
    reasons = {os.path.basename(x["input"]): x["reason"] for x in s["unreadable_reasons"]}
    assert "truncated" in reasons["truncated.json"] and "binary" in reasons["binary.json"]
    assert "empty" in reasons["empty.json"] and "schema" in reasons["schema.json"]
    assert "Traceback" not in err and "skipped" in err
    # issue 14: three good reports plus truncated, empty and binary files are not "OK"
    r = envcheck(["fleet", "summarize", str(d)])
    assert r.returncode == 1 and b"OK: every node" not in r.stdout
    assert b"NOT OK: 5 input(s) could not be read" in r.stdout, r.stdout


def test_exit_status_with_only_unreadable_is_2(tmp_path):
    (tmp_path / "a.json").write_text("{")
    code, s, err = summarize(str(tmp_path / "a.json"))
    assert code == 2 and s["nodes"] == 0 and s["unreadable"] == [str(tmp_path / "a.json")]
    assert "no report could be read" in err
    empty = tmp_path / "emptydir"
    empty.mkdir()
    code, s, _ = summarize(str(empty))
    assert code == 2


def test_stdin_json_lines(reports):
    lines = [json.dumps(dict(reports["good"], hostname=f"n{i}")) for i in range(1, 4)]
    lines.insert(1, "")
    lines.append('{"schema": "envcheck/report/1", "hostname": "n')  # cut off mid-line
    lines.append(json.dumps(dict(reports["old"], hostname="n9")))
    code, s, _ = summarize("-", stdin="\n".join(lines).encode())
    assert code == 1 and s["nodes"] == 4 and s["failing"] == ["n9"]
    assert s["unreadable"] == ["stdin:5"]
    assert "truncated" in s["unreadable_reasons"][0]["reason"]
    # one pretty-printed report on stdin works too
    code, s, _ = summarize("-", stdin=json.dumps(reports["good"], indent=2).encode())
    assert code == 0 and s["nodes"] == 1


def test_hostname_fallback_is_the_file_name(tmp_path, reports):
    rep = dict(reports["good"])
    rep.pop("hostname")
    (tmp_path / "gpu-a17.json").write_text(json.dumps(rep))
    code, s, _ = summarize(str(tmp_path / "gpu-a17.json"))
    assert code == 0 and s["groups"][0]["nodes"] == ["gpu-a17"]


def test_duplicate_hostnames_count_once_newest_wins(tmp_path, reports):
    # the newer report (by its "created" time) counts, whatever the file order
    (tmp_path / "a.json").write_text(json.dumps(dict(reports["old"], hostname="x1", created="2024-06-01T12:00:00Z")))
    (tmp_path / "b.json").write_text(json.dumps(dict(reports["good"], hostname="x1",
                                                     created="2024-06-01T11:00:00+00:00")))
    untimed = dict(reports["good"], hostname="x2")
    untimed.pop("created")  # a report of an older envcheck
    (tmp_path / "c.json").write_text(json.dumps(untimed))
    code, s, err = summarize(str(tmp_path))
    assert s["nodes"] == 2 and s["failing"] == ["x1"] and s["duplicate_hostnames"] == ["x1"]
    assert s["duplicates"] == [{"node": "x1", "kept": str(tmp_path / "a.json"), "dropped": [str(tmp_path / "b.json")],
                                "dropped_count": 1}]
    assert s["per_node"]["x1"]["created"] == "2024-06-01T12:00:00Z"
    assert "several reports for x1" in err
    # a report without a time is older than one with a time; equal times: the one read last
    (tmp_path / "d.json").write_text(json.dumps(dict(reports["old"], hostname="x2", created="2024-01-01T00:00:00Z")))
    code, s, _ = summarize(str(tmp_path))
    assert s["failing"] == ["x1", "x2"] and s["nodes"] == 2


def test_tar_of_reports_and_of_snapshots(tmp_path, reports):
    d = write_fleet(tmp_path / "reports", reports, n=3, old=("node02",), other=())
    tgz = tmp_path / "reports.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        tf.add(str(d), arcname="reports")
        data = b"garbage{"
        info = tarfile.TarInfo("reports/broken.json")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    code, s, _ = summarize(str(tgz))
    assert code == 1 and s["nodes"] == 3 and s["failing"] == ["node02"]
    assert s["unreadable"] == [f"{tgz}:reports/broken.json"]
    # a plain .tar of snapshot folders: each is checked with envcheck's own pipeline
    snaps = tmp_path / "snaps"
    for host, kind in (("s1", "good"), ("s2", "old")):
        shutil.copytree(reports[kind + "-snapshot"], snaps / host)
        meta = json.loads((snaps / host / "meta.json").read_text())
        (snaps / host / "meta.json").write_text(json.dumps(dict(meta, hostname=host)))
    tar = tmp_path / "snaps.tar"
    with tarfile.open(tar, "w") as tf:
        tf.add(str(snaps), arcname="snaps")
    code, s, _ = summarize(str(tar))
    assert s["nodes"] == 2 and s["failing"] == ["s2"], s
    diff = {x["field"]: x["values"] for x in s["differences"]}
    assert diff["driver.version"] == {"550.54.15": ["s1"], "470.57.02": ["s2"]}
    # the same snapshot folders, given as a folder
    code, s2, _ = summarize(str(snaps))
    assert s2["failing"] == ["s2"] and s2["differences"] == s["differences"]
    # a corrupt archive is unreadable, not a crash
    (tmp_path / "bad.tar.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    code, s, _ = summarize(str(tmp_path / "bad.tar.gz"), str(d))
    assert code == 1 and s["unreadable"] == [str(tmp_path / "bad.tar.gz")] and s["nodes"] == 3


def test_markdown_and_text_renderings(tmp_path, reports):
    d = write_fleet(tmp_path / "r", reports)
    r = envcheck(["fleet", "summarize", str(d), "--markdown"])
    md = r.stdout.decode()
    assert r.returncode == 1 and md.startswith("### envcheck fleet: NOT OK")
    assert "| 1 | `" in md and "node[01-02,04-06,08-10,12]" in md and "`driver.version`" in md
    r = envcheck(["fleet", "summarize", str(d)])
    text = r.stdout.decode()
    assert "Failing: node07" in text and "2.4.1+cu121: 2 node(s): node[03,11]" in text
    assert envcheck(["fleet", "summarize", str(d), "--json", "--markdown"]).returncode == 2
    assert envcheck(["fleet", "summarize"]).returncode == 2


@pytest.mark.parametrize("names,want", [
    ([f"node{i:02d}" for i in range(1, 64)], "node[01-63]"),
    (["a1", "a2", "a4", "b"], "a[1-2,4],b"),
    (["gpu9", "gpu10", "gpu11"], "gpu[9-11]"),
    (["n09", "n10", "n8"], "n[8,09-10]"),
    (["solo"], "solo"),
    (["x1"], "x1"),
    (["rack1-n01", "rack1-n02", "rack2-n01"], "rack1-n[01-02],rack2-n01"),
])
def test_compact_hostlist(names, want):
    assert compact_hostlist(names) == want
