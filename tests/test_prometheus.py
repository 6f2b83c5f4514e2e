"""`envcheck status --prometheus`: valid Prometheus text exposition (HELP/TYPE before samples, escaped
label values, envcheck_* names, no duplicate series), checked by prometheus_client's own parser (a test
extra) and by a strict hand parser, on real reports made from snapshots and on hostile label values."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from envcheck.render.prometheus import escape_label_value, render_prometheus
from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SP = "/opt/venv/lib/python3.11/site-packages"
PIP_LIBS = (f"{SP}/nvidia/cuda_runtime/lib/libcudart.so.12\n{SP}/nvidia/cudnn/lib/libcudnn.so.9\n"
            f"{SP}/nvidia/cublas/lib/libcublas.so.12\n")


def envcheck(args, env=None):
    e = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, env=e, timeout=120)


@pytest.fixture(scope="module")
def snaps(tmp_path_factory):
    d = tmp_path_factory.mktemp("snaps")
    out = {}
    for name, driver, cuda in (("good", "550.54.15", "12.4"), ("old", "470.57.02", "11.4")):
        files = dict(gpu_machine(driver, cuda, [("NVIDIA H100 80GB HBM3", 81559)] * 2, cc=["9.0", "9.0"]),
                     **torch_install("2.5.1+cu124", "12.4", packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
        files["libraries.txt"] = PIP_LIBS
        out[name] = make_snapshot(str(d / name), files)
    return out


# -- a strict parser of the text format (version 0.0.4) -----------------------------------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"'
_SAMPLE = re.compile(rf"^({_NAME})(?:\{{((?:{_LABEL})(?:,{_LABEL})*)?\}})? (-?[0-9.eE+]+|NaN|[+-]Inf)$")


def strict_parse(text):
    """{name: {"help": str, "type": str, "samples": [(labels dict, value)]}}; AssertionError on anything
    off: a sample before its HELP/TYPE, a duplicate series, a bad escape, a blank or stray line."""
    assert text.endswith("\n") and "\r" not in text
    families = {}
    current = None
    seen = set()
    for line in text.split("\n")[:-1]:
        assert line, "blank line"
        if line.startswith("# HELP "):
            name, help_text = line[7:].split(" ", 1)
            assert name not in families, f"{name} described twice"
            families[name] = {"help": help_text, "type": None, "samples": []}
            current = name
            continue
        if line.startswith("# TYPE "):
            name, kind = line[7:].split(" ")
            assert name == current and families[name]["type"] is None and kind in ("gauge", "counter")
            families[name]["type"] = kind
            continue
        assert not line.startswith("#"), line
        m = _SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name = m.group(1)
        assert name == current and families[name]["type"], f"{name}: sample before its HELP/TYPE"
        labels = dict(re.findall(_LABEL, m.group(2) or ""))
        key = (name, tuple(sorted(labels.items())))
        assert key not in seen, f"duplicate series {key}"
        seen.add(key)
        unescaped = {k: re.sub(r"\\(.)", lambda e: {"n": "\n"}.get(e.group(1), e.group(1)), v)
                     for k, v in labels.items()}
        families[name]["samples"].append((unescaped, float(m.group(m.lastindex))))
    for name, fam in families.items():
        assert name.startswith("envcheck_") and fam["type"] == "gauge", name
    return families


def client_parse(text):
    parser = pytest.importorskip("prometheus_client.parser")
    return {f.name: f for f in parser.text_string_to_metric_families(text)}


def test_failing_report_as_metrics(snaps):
    r = envcheck(["status", "--prometheus", "--snapshot", snaps["old"], "--hostname", "gpu-node-7"])
    assert r.returncode == 1  # the same exit status as `status`
    text = r.stdout.decode()
    fams = strict_parse(text)
    assert fams["envcheck_ok"]["samples"] == [({}, 0.0)]
    by_sev = {lab["severity"]: v for lab, v in fams["envcheck_findings"]["samples"]}
    assert set(by_sev) >= {"error", "warning", "info"} and by_sev["error"] >= 1
    ids = {(lab["id"], lab["severity"]) for lab, _ in fams["envcheck_finding"]["samples"]}
    assert ("driver-too-old", "error") in ids
    (info, one), = fams["envcheck_info"]["samples"]
    assert one == 1 and info["hostname"] == "gpu-node-7" and info["driver_version"] == "470.57.02"
    assert info["driver_cuda"] == "11.4" and info["python_version"] == "3.11.7" and info["matrix_version"]
    fw = {lab["framework"]: lab for lab, _ in fams["envcheck_framework_info"]["samples"]}
    assert fw["torch"]["version"] == "2.5.1+cu124" and fw["torch"]["cuda"] == "12.4"
    assert fams["envcheck_gpus"]["samples"] == [({}, 2.0)]
    assert len(fams["envcheck_gpu_info"]["samples"]) == 2
    assert fams["envcheck_report_created_timestamp_seconds"]["samples"][0][1] > 1.7e9
    # prometheus_client reads the same
    client = client_parse(text)
    assert client["envcheck_ok"].samples[0].value == 0
    assert client["envcheck_info"].samples[0].labels["hostname"] == "gpu-node-7"
    assert {s.labels["id"] for s in client["envcheck_finding"].samples} >= {"driver-too-old"}
    # a passing node
    r = envcheck(["status", "--prometheus", "--snapshot", snaps["good"]])
    assert r.returncode == 0 and strict_parse(r.stdout.decode())["envcheck_ok"]["samples"] == [({}, 1.0)]
    assert envcheck(["status", "--prometheus", "--json", "--snapshot", snaps["good"]]).returncode == 2


def test_label_values_are_escaped(snaps):
    hostile = 'a"b\\c\nd\x1b[31me\x00f{g}=h,i'
    rep = json.loads(envcheck(["status", "--json", "--snapshot", snaps["old"]]).stdout)
    rep["hostname"] = hostile
    rep["gpus"][0]["name"] = hostile
    rep["gpus"][1]["index"] = rep["gpus"][0]["index"]  # two GPUs claiming one index: one series
    rep["frameworks"]["evil\"fw"] = {"version": "1\n2", "cuda": None, "cudnn": None}
    rep["findings"].append(dict(rep["findings"][0]))  # the same id twice: counted, not repeated
    rep["findings"].append({"id": 'x"y', "severity": "warning"})
    text = render_prometheus(rep)
    fams = strict_parse(text)
    want = hostile.replace("\x1b", "").replace("\x00", "")
    assert fams["envcheck_info"]["samples"][0][0]["hostname"] == want
    assert len(fams["envcheck_gpu_info"]["samples"]) == 1
    counts = {lab["id"]: v for lab, v in fams["envcheck_finding"]["samples"]}
    assert counts["driver-too-old"] == 2 and counts['x"y'] == 1
    client = client_parse(text)
    assert client["envcheck_info"].samples[0].labels["hostname"] == want
    assert {s.labels["framework"] for s in client["envcheck_framework_info"].samples} >= {'evil"fw'}
    assert escape_label_value(None) == "" and escape_label_value("x" * 1000) == "x" * 512


def test_textfile_collector_recipe(tmp_path, snaps):
    """The README's recipe: write to a temporary file in the collector's folder, then rename (atomic: the
    collector never reads half a file); exit 1 (findings) still publishes, a usage error does not."""
    recipe = ('out=$1/envcheck.prom; envcheck_cmd status --prometheus --snapshot "$2" > "$out.$$"; rc=$?; '
              'if [ "$rc" -le 1 ]; then mv "$out.$$" "$out"; else rm -f "$out.$$"; fi')
    wrapper = tmp_path / "envcheck_cmd"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m envcheck "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=ROOT, PATH=f"{tmp_path}:{os.environ['PATH']}")
    d = tmp_path / "textfile"
    d.mkdir()
    subprocess.run(["sh", "-c", recipe, "sh", str(d), snaps["old"]], env=env, check=True, timeout=120)
    assert sorted(os.listdir(d)) == ["envcheck.prom"]
    strict_parse((d / "envcheck.prom").read_text())
    subprocess.run(["sh", "-c", recipe, "sh", str(d), str(tmp_path / "missing")], env=env, check=True, timeout=120)
    assert sorted(os.listdir(d)) == ["envcheck.prom"]  # the last good file stays
