"""Issue 23, end to end as a user meets it: a real GH200 capture planned on its own driver (R570) and on R580,
`matrix why` naming the driver advice, `matrix status` saying where `matrix update` looks (nowhere, while envcheck
has no published address), the bundle job publishing exactly there, and the drift job reading torch 2.15.0's real
METADATA (its CUDA pin is `cuda-toolkit[...]==13.2.2`, no runtime wheel) and NVIDIA's R615 manifest (no
cuda_compat: nothing guessed).

Expected values come from sources, not from the code:
* tests/data/snapshots/gh200-570.124.06-warpik/: the nvidia-smi table of a GH200 (aarch64, Neoverse-V2) in
  hu-po/warp-ik docs/specs/arm-gh200.md (tests/data/README.md);
* torch 2.15.0's only known build is the PyPI wheel, cu132 by its version.py (compat_matrix/torch.toml), published
  for linux-aarch64; torch 2.14.x lists cu126 / cu130 / cu132 for linux-aarch64 in pytorch/test-infra; CUDA 12.x
  runs from driver 525.60.13 on, CUDA 13.x from R580 on (NVIDIA's CUDA compatibility guide);
* torch 2.7.1 is the newest release with a cu118 build (pytorch/test-infra), CUDA 11.x runs from 450.80.02 on.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile

import pytest

from envcheck.matrix import Matrix, bundled_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GH200 = os.path.join(ROOT, "tests", "data", "snapshots", "gh200-570.124.06-warpik")
DRIFT = os.path.join(ROOT, "tests", "data", "drift")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=dict(os.environ, NO_COLOR="1"))


# ---- a real GH200 ------------------------------------------------------------------------------------------
def test_gh200_capture_reads_as_an_aarch64_hopper():
    out = _run("status", "--snapshot", GH200, "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["driver"]["version"] == "570.124.06" and rep["driver"]["cuda"] == "12.8"
    assert [(g["name"], g["compute_capability"]) for g in rep["gpus"]] == [("NVIDIA GH200 480GB", "9.0")]
    assert rep["python"]["machine"] == "aarch64"


def test_gh200_on_its_own_r570_gets_the_newest_cuda_12_aarch64_build():
    out = _run("fix", "--snapshot", GH200, "--want", "torch", "--python", "3.12", "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    pkg = plan["packages"][0]
    # 2.15.0 exists only as cu132 (needs R580); 2.14.1's cu126 build is published for linux-aarch64
    assert (pkg["name"], pkg["version"], pkg["variant"]) == ("torch", "2.14.1", "cu126")
    assert "download.pytorch.org/whl/cu126" in json.dumps(plan)


def test_gh200_on_r580_gets_2_15_0_from_pypi():
    out = _run("fix", "--snapshot", GH200, "--want", "torch", "--python", "3.12", "--driver", "580.95.05", "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    pkg = plan["packages"][0]
    assert (pkg["version"], pkg["variant"]) == ("2.15.0", "cu132")
    text = json.dumps(plan)
    assert "linux-aarch64" in text and "download.pytorch.org/whl/cu132" not in text  # the PyPI wheel is cu132 there
    human = _run("fix", "--snapshot", GH200, "--want", "torch", "--python", "3.12", "--driver", "580.95.05").stdout
    assert "python -m pip install torch==2.15.0\n" in human


def test_matrix_why_on_the_gh200_names_the_driver_that_lifts_it():
    out = _run("matrix", "why", "torch==2.15.0", "--snapshot", GH200, "--python", "3.12", "--json")
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    assert [r["verdict"] for r in doc["results"]] and not any(r["runs"] for r in doc["results"])
    assert doc["driver_advice"]["smallest_min"] == "580" and doc["driver_advice"]["newest_build"] == "torch 2.15.0 (cu132)"
    text = _run("matrix", "why", "torch==2.15.0", "--snapshot", GH200, "--python", "3.12").stdout
    assert text.rstrip().splitlines()[-1] == ("no build runs on this driver: upgrade the NVIDIA driver from 570.124.06 "
                                              "to >= 580 (torch 2.15.0 (cu132) runs there)")
    ok = _run("matrix", "why", "torch==2.15.0", "--snapshot", GH200, "--python", "3.12", "--driver", "580.95.05",
              "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["driver_advice"] is None


def test_matrix_why_offers_both_upgrades_on_an_old_driver():
    out = _run("matrix", "why", "torch", "--driver", "418.39", "--cc", "8.0", "--python", "3.11", "--json")
    assert out.returncode == 1
    adv = json.loads(out.stdout)["driver_advice"]
    assert (adv["smallest_min"], adv["smallest_build"]) == ("450.80.02", "torch 2.7.1 (cu118)")
    assert adv["newest_min"] == "580" and adv["newest_build"] == "torch 2.15.0 (cu132)"


# ---- where `matrix update` looks, and where the bundle job publishes ---------------------------------------
def test_matrix_status_says_there_is_no_default_update_source():
    from envcheck.matrix.download import DEFAULT_SOURCE

    out = _run("matrix", "status", "--json")
    assert out.returncode == 0
    assert json.loads(out.stdout)["update_source"] == (DEFAULT_SOURCE or None)
    text = _run("matrix", "status").stdout
    if not DEFAULT_SOURCE:
        assert "update source: none configured" in text and "--from URL|FILE" in text
        r = _run("matrix", "update")
        assert r.returncode == 2 and "--from" in r.stderr
        # the help does not promise a default that does not exist: its examples all give --from
        examples = _run("matrix", "update", "--help").stdout.split("Example:")[1].split("Options:")[0]
        assert all("--from" in line for line in examples.splitlines() if "envcheck matrix update" in line)


def test_one_address_sets_the_default_source_and_the_bundle_job_publishes_there(monkeypatch):
    """A maintainer sets envcheck.known.PROJECT_URL at release; the default source follows from it and is the
    asset the bundle job uploads (release `matrix`, file envcheck-matrix.tar.gz)."""
    import envcheck.known
    import envcheck.matrix.download as download
    from envcheck.render.matrix import render_status_text

    wf = open(os.path.join(ROOT, ".github", "workflows", "matrix-bundle.yml"), encoding="utf-8").read()
    m = re.search(r"gh release upload (\S+) --repo \"\$REPO\" --clobber dist/(\S+) ", wf)
    assert m, "the bundle job uploads to a release"
    tag, asset = m.groups()
    assert "scripts/matrix_bundle.py build --key-env ENVCHECK_MATRIX_SIGNING_KEY" in wf and "--out dist/" in wf
    url = "https://github.com/example-owner/example-envcheck"  # a made-up address: only the derivation is tested
    monkeypatch.setattr(envcheck.known, "PROJECT_URL", url)
    try:
        importlib.reload(download)
        assert download.DEFAULT_SOURCE == f"{url}/releases/download/{tag}/{asset}"
        info = {"kind": "bundled", "version": "2026.11.22", "source": "bundled with envcheck", "trusted_keys": [],
                "test_keys": None, "directory": "d", "tables": {}, "cache": "c", "update_source": download.DEFAULT_SOURCE}
        assert f"update source: {url}/releases/download/{tag}/{asset}" in render_status_text(info)
    finally:
        monkeypatch.undo()
        importlib.reload(download)
    assert download.DEFAULT_SOURCE == (f"{envcheck.known.PROJECT_URL}/releases/download/{tag}/{asset}"
                                       if envcheck.known.PROJECT_URL else "")


# ---- the drift job on real responses -----------------------------------------------------------------------
def _drift_module():
    spec = importlib.util.spec_from_file_location("check_matrix_drift", os.path.join(ROOT, "scripts",
                                                                                      "check_matrix_drift.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_drift_reads_the_cuda_of_torch_2_15_0_from_its_cuda_toolkit_pin(served):
    root, base = served
    name = "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    with open(os.path.join(DRIFT, name.replace(".whl", ".METADATA")), encoding="utf-8") as fh:
        meta = fh.read()
    assert "nvidia-cuda-runtime" not in meta and "cuda-toolkit[" in meta  # what makes the old reading say "cpu"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("torch/__init__.py", "")
        zf.writestr("torch-2.15.0.dist-info/METADATA", meta)
    (root / name).write_bytes(buf.getvalue())
    (root / (name + ".metadata")).write_text(meta, encoding="utf-8")  # served as PEP 658 metadata
    drift = _drift_module()
    files = [{"filename": name, "url": f"{base}/{name}", "size": len(buf.getvalue()), "core_metadata": True,
              "upload_time_iso_8601": "2026-10-28T15:17:47Z"}]
    cannot: list = []
    got = drift.row_for("torch", "2.15.0", files, base, 30.0, cannot)
    assert got is not None and got[:2] == ("torch", "release")
    row = got[2]
    # compat_matrix/torch.toml took cu132 from the same wheel's version.py ('2.15.0+cu132'): the pin agrees
    assert row["pypi_default_variant"] == "cu132" == Matrix(bundled_dir()).torch_release("2.15.0")["pypi_default_variant"]
    assert "cuda-toolkit==13.2.2" in row["derived"] and row["date"] == "2026-10-28"
    assert any("torch 2.15.0" in c for c in cannot)


@pytest.mark.parametrize("pins, want", [
    ({"nvidia-cuda-runtime-cu12": "==12.8.90"}, "12.8"),
    ({"nvidia-cuda-runtime": "==13.0.96"}, "13.0"),
    ({"cuda-toolkit": "==13.2.2"}, "13.2"),
    ({"cuda-toolkit": "==13.*"}, None),  # cupy's [ctk] extra: a major only fixes no X.Y
    ({"nvidia-cudnn-cu13": "==9.26.0.51"}, None),
])
def test_cuda_pin_forms(pins, want):
    drift = _drift_module()
    pin = drift._cuda_pin(pins)
    assert (drift._cuda_of(pin[1]) if pin else None) == want


def _index_with(extra_names):
    with open(os.path.join(DRIFT, "nvidia-driver-redist-index.html"), encoding="utf-8") as fh:
        html = fh.read()
    lines = "".join(f'<a href="{n}">{n}</a>\n' for n in extra_names)
    return html.replace("</pre>", lines + "</pre>")


def test_drift_job_names_what_the_r615_manifest_lacks_and_fills_nothing(served, tmp_path):
    root, base = served
    (root / "redist").mkdir()
    for n in ("redistrib_615.71.09.json", "redistrib_620.70.06.json", "redistrib_610.57.04.json"):
        shutil.copy(os.path.join(DRIFT, n), root / "redist" / n)
    (root / "redist" / "index.html").write_text(_index_with(["redistrib_615.71.09.json"]))
    tables = tmp_path / "compat_matrix"
    shutil.copytree(bundled_dir(), tables)
    cuda = (tables / "cuda.toml").read_text()
    # a copy whose 615 row is gone (as before issue 23) and whose 620 row lost its highest_cuda
    cuda = re.sub(r'\n\[\[driver_branch\]\]\nbranch = "615"\n(?:[^\[\n].*\n)*', "\n", cuda)
    cuda = re.sub(r'(branch = "620"\n)highest_cuda = "13.5"\n', r"\1", cuda)
    (tables / "cuda.toml").write_text(cuda)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_matrix_drift.py"), "--index", base,
                        "--projects", "torch", "--nvidia-driver-index", base + "/redist/", "--tables", str(tables)],
                       capture_output=True, text=True, timeout=300)
    rep = json.loads(r.stdout[r.stdout.index("{"):])
    assert "nvidia-driver-index" not in rep["errors"], rep["errors"]
    assert "nvidia-driver-branch" not in rep["new"]  # 615: no cuda_compat, so no row is written from it
    assert any(c.startswith("driver branch 615:") and "names no cuda_compat variant" in c for c in rep["cannot_source"])
    fill = [c for c in rep["cannot_source"] if c.startswith("driver branch 620:")]
    assert fill and 'fill highest_cuda = "13.5"' in fill[0] and "redistrib_620.70.06.json" in fill[0]


def _bundle_module():
    spec = importlib.util.spec_from_file_location("matrix_bundle", os.path.join(ROOT, "scripts", "matrix_bundle.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_bundle_job_refuses_to_publish_where_nobody_looks(capsys):
    tool = _bundle_module()
    here = "https://github.com/example-owner/example-envcheck/releases/download/matrix/envcheck-matrix.tar.gz"
    assert tool.check_target("example-owner/example-envcheck", here) == 0
    assert "looks there by default" in capsys.readouterr().out
    assert tool.check_target("example-owner/example-envcheck", "") == 0  # no address yet: a warning, not a stop
    assert "PROJECT_URL is empty" in capsys.readouterr().err
    assert tool.check_target("someone-else/fork", here) == 1
    assert "reaches nobody" in capsys.readouterr().err
    assert tool.check_target("not a repo; rm -rf /", here) == 2
    wf = open(os.path.join(ROOT, ".github", "workflows", "matrix-bundle.yml"), encoding="utf-8").read()
    check, build = wf.index("matrix_bundle.py check-target --repository"), wf.index("matrix_bundle.py build")
    assert check < build  # checked before anything is signed
    # as the job runs it: the script, with this checkout's envcheck
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "matrix_bundle.py"), "check-target",
                        "--repository", "example-owner/example-envcheck"], capture_output=True, text=True, timeout=120)
    from envcheck.matrix.download import DEFAULT_SOURCE

    assert r.returncode == (0 if not DEFAULT_SOURCE or DEFAULT_SOURCE == here else 1), r.stderr


def _drift_run(base, tables, *extra):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_matrix_drift.py"), "--index", base,
                        "--tables", str(tables), "--nvidia-driver-index", "none", *extra],
                       capture_output=True, text=True, timeout=300)
    return r, json.loads(r.stdout[r.stdout.index("{"):])


def test_drift_job_names_cuda_toolkit_releases_the_tables_lack(served, tmp_path):
    """PyPI's cuda-toolkit metapackage (recorded simple page) lists 13.4.1, 13.4.2, 13.4.3 and 13.5.0; a matrix
    without the issue-23 toolkit rows must be told about all four, and the current matrix about none."""
    root, base = served
    (root / "simple" / "cuda-toolkit").mkdir(parents=True)
    shutil.copy(os.path.join(DRIFT, "pypi-simple-cuda-toolkit.json"), root / "simple" / "cuda-toolkit" / "index.html")
    tables = tmp_path / "compat_matrix"
    shutil.copytree(bundled_dir(), tables)
    r, rep = _drift_run(base, tables, "--projects", "cuda-toolkit")
    assert r.returncode == 0 and rep["new"] == {} and rep["errors"] == {}, rep
    cuda = (tables / "cuda.toml").read_text()
    for v in ("13.4.1", "13.4.2", "13.5.0"):  # the tables as they were before issue 23
        cuda = re.sub(r'\n\[\[toolkit\]\]\n(?:#.*\n)*version = "' + re.escape(v) + r'"\n(?:[^\[\n].*\n)*', "\n", cuda)
    (tables / "cuda.toml").write_text(cuda)
    assert not [x for x in Matrix(str(tables)).rows("cuda", "toolkit") if x["version"].startswith(("13.4", "13.5"))]
    r, rep = _drift_run(base, tables, "--projects", "cuda-toolkit")
    assert r.returncode == 1, r.stderr
    # as PyPI spells them (13.4.1.0); 13.4.0rc1 is not a release
    assert rep["new"] == {"cuda-toolkit": ["13.4.1.0", "13.4.2", "13.4.3", "13.5.0"]}
    assert rep["rows"] == []  # nothing written: the driver floors are in the release notes
    notes = [c for c in rep["cannot_source"] if c.startswith("CUDA toolkit ")]
    assert len(notes) == 4 and "docs.nvidia.com/cuda/archive/13.5.0/cuda-toolkit-release-notes/" in notes[-1]
    assert notes[0].startswith("CUDA toolkit 13.4.1:") and "archive/13.4.1/" in notes[0]


def test_drift_workflow_shows_the_report_even_without_a_pull_request():
    wf = open(os.path.join(ROOT, ".github", "workflows", "matrix-drift.yml"), encoding="utf-8").read()
    assert 'cat drift-pr.md >> "$GITHUB_STEP_SUMMARY"' in wf
    assert "add-paths: compat_matrix/*.toml" in wf  # a pull request carries table rows only
