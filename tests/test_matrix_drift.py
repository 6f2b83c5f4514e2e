"""The weekly drift job's logic (scripts/check_matrix_drift.py, .github/workflows/matrix-drift.yml), offline:
a real HTTP server on 127.0.0.1 serves RECORDED responses of PyPI and NVIDIA's driver redist index
(tests/data/drift/README.md says where each came from). The matrix copy lacks what the recordings show
(cupy-cuda13x 14.2.0, driver branch 620), so the job must find it, write rows with their sources, and describe
them in the pull-request body; a second run finds no drift."""

from __future__ import annotations

import http.server
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

from envcheck.matrix import Matrix, bundled_dir, validate_tables

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "drift")
SCRIPT = os.path.join(ROOT, "scripts", "check_matrix_drift.py")


def _read(name, mode="r"):
    with open(os.path.join(DATA, name), mode) as fh:
        return fh.read()


class Recorded(http.server.BaseHTTPRequestHandler):
    files: dict = {}
    seen: list = []

    def do_GET(self):  # noqa: N802
        self.seen.append(self.path)
        data = self.files.get(self.path)
        if data is None:
            self.send_response(404)
            self.end_headers()
            return
        rng = self.headers.get("Range")
        if rng:
            a, b = (int(x) for x in re.match(r"bytes=(\d+)-(\d+)", rng).groups())
            part = data[a:b + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {a}-{a + len(part) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            self.wfile.write(part)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorded)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("cupy/__init__.py", "")
        zf.writestr("cupy_cuda13x-14.2.0.dist-info/METADATA",
                    _read("cupy_cuda13x-14.2.0-cp312-cp312-manylinux2014_x86_64.METADATA"))
    wheel = buf.getvalue()
    page = json.loads(_read("pypi-simple-cupy-cuda13x.json"))
    files = {}
    for f in page["files"]:
        path = "/packages/" + f["filename"]
        f["url"] = base + path
        if "-14.2.0-" in f["filename"]:  # the release the job will read: a small wheel with the recorded METADATA
            f["size"] = len(wheel)
            files[path] = wheel
    files["/simple/cupy-cuda13x/"] = json.dumps(page).encode()
    files["/redist/"] = _read("nvidia-driver-redist-index.html", "rb")
    for name in ("redistrib_620.70.06.json", "redistrib_610.57.04.json"):
        files["/redist/" + name] = _read(name, "rb")
    Recorded.files, Recorded.seen = files, []
    yield base
    httpd.shutdown()
    httpd.server_close()


def _tables_without_what_was_recorded(tmp_path):
    tables = tmp_path / "compat_matrix"
    shutil.copytree(bundled_dir(), tables)
    cupy = (tables / "cupy.toml").read_text()
    cupy = re.sub(r'\n\[\[package\]\]\ndistribution = "cupy-cuda13x"\nversion = "14\.2\.0"\n(?:[^\[\n].*\n)*', "\n", cupy)
    (tables / "cupy.toml").write_text(cupy)
    cuda = (tables / "cuda.toml").read_text()
    cuda = re.sub(r'\n\[\[driver_branch\]\]\nbranch = "620"\n(?:[^\[\n].*\n)*', "\n", cuda)
    (tables / "cuda.toml").write_text(cuda)
    m = Matrix(str(tables))
    assert not [r for r in m.rows("cupy", "package") if r["distribution"] == "cupy-cuda13x" and r["version"] == "14.2.0"]
    assert not [r for r in m.rows("cuda", "driver_branch") if r["branch"] == "620"]
    return tables


def _run(base, tables, *extra):
    return subprocess.run([sys.executable, SCRIPT, "--index", base, "--projects", "cupy-cuda13x",
                           "--nvidia-driver-index", base + "/redist/", "--tables", str(tables), *extra],
                          capture_output=True, text=True, timeout=300)


def test_drift_job_finds_sources_and_describes_new_rows(server, tmp_path):
    tables = _tables_without_what_was_recorded(tmp_path)
    body = tmp_path / "pr.md"
    r = _run(server, tables, "--apply", "--pr-body", str(body))
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr
    rep = json.loads(r.stdout)
    assert rep["errors"] == {}
    assert rep["new"] == {"cupy-cuda13x": ["14.2.0"], "nvidia-driver-branch": ["620"]}
    assert "/pypi/cupy-cuda13x/json" in Recorded.seen and "/simple/cupy-cuda13x/" in Recorded.seen
    rows = {(x["file"], x["table"]): x["row"] for x in rep["rows"]}
    c = rows[("cupy", "package")]
    # what the recorded METADATA and file list say (cf. compat_matrix/cupy.toml, typed from the same sources)
    assert (c["distribution"], c["version"], c["cuda_major"], c["date"]) == ("cupy-cuda13x", "14.2.0", 13, "2026-08-20")
    assert c["python"] == ["3.10", "3.11", "3.12", "3.13", "3.14"]
    assert c["platforms"] == ["linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"]
    assert c["cuda_libraries"] == ["cublas", "cudart", "cufft", "curand", "cusolver", "cusparse", "nvrtc"]
    assert c["ctk_extra"] == "cuda-toolkit[cublas,cudart,cufft,curand,cusolver,cusparse,nvrtc]==13.*"
    assert c["source"] == f"{server}/project/cupy-cuda13x/14.2.0/" and "HTTP ranges" in c["derived"]
    d = rows[("cuda", "driver_branch")]
    assert (d["branch"], d["highest_cuda"]) == ("620", "13.5") and "first_driver_linux" not in d
    assert d["source"] == f"{server}/redist/redistrib_620.70.06.json"
    assert any("cupy-cuda13x 14.2.0: cuda_min" in x for x in rep["cannot_source"])
    # the rows are in the tables, which still validate; the matrix agrees with the hand-typed rows
    m = Matrix(str(tables))
    assert [r["version"] for r in m.rows("cupy", "package") if r["distribution"] == "cupy-cuda13x"][-1] == "14.2.0"
    assert [r["highest_cuda"] for r in m.rows("cuda", "driver_branch") if r["branch"] == "620"] == ["13.5"]
    import tomllib  # noqa: F401  (3.11+: the job runs on 3.12)
    for name in ("cupy", "cuda"):
        assert validate_tables(name, tomllib.loads((tables / f"{name}.toml").read_text())) == []
    text = body.read_text()
    assert "## New rows" in text and "cupy-cuda13x 14.2.0" in text and f"{server}/redist/redistrib_620.70.06.json" in text
    assert "## Not sourced" in text
    # a second run: nothing new
    r2 = _run(server, tables, "--pr-body", str(body))
    assert r2.returncode == 0, r2.stdout[-2000:]
    assert "No drift" in body.read_text()


def test_pr_body_cannot_carry_markup_from_a_source():
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import check_matrix_drift as d

    text = d.pr_body({"rows": [{"file": "cupy", "table": "package", "row": {
        "distribution": "cupy-cuda13x", "version": "1<script>", "source": "x\x1b[31m", "derived": "y\nz"}}],
        "cannot_source": [], "latest": {}, "errors": {}, "new": {"cupy-cuda13x": ["1"]}})
    assert "<script>" not in text and "\x1b" not in text


def test_unreachable_nvidia_index_is_an_error(server, tmp_path):
    tables = _tables_without_what_was_recorded(tmp_path)
    r = subprocess.run([sys.executable, SCRIPT, "--index", server, "--projects", "cupy-cuda13x",
                        "--nvidia-driver-index", server + "/nowhere/", "--tables", str(tables)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "nvidia-driver-index" in json.loads(r.stdout)["errors"]


def test_workflow_runs_the_script_weekly_and_opens_a_pull_request():
    wf = open(os.path.join(ROOT, ".github", "workflows", "matrix-drift.yml")).read()
    assert re.search(r"schedule:\s*\n\s*- cron: ", wf) and "workflow_dispatch" in wf
    assert "scripts/check_matrix_drift.py" in wf and "--apply" in wf and "--pr-body" in wf
    assert "peter-evans/create-pull-request" in wf


def test_unknown_project_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, SCRIPT, "--projects", "cupy-cuda99x", "--nvidia-driver-index", "none"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not tracked" in r.stderr


def test_simple_api_page_reads_as_releases():
    """The recorded PEP 691 page as the JSON API's releases: every version PyPI lists, yanked files dropped."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import check_matrix_drift as d

    page = json.loads(_read("pypi-simple-cupy-cuda13x.json"))
    rel = d.stable_versions(d.simple_to_project("cupy-cuda13x", page))
    assert sorted(rel, key=d._vkey) == page["versions"]  # 13.6.0 ... 14.2.0, as the page's own list says
    assert all(f["upload_time_iso_8601"] for fs in rel.values() for f in fs)
    page["files"][0]["yanked"] = "broken build"
    first = page["files"][0]["filename"]
    rel2 = d.stable_versions(d.simple_to_project("cupy-cuda13x", page))
    assert first not in {f["filename"] for fs in rel2.values() for f in fs}
