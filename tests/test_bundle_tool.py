"""scripts/check_matrix_drift.py (the maintainers' monthly update) and scripts/matrix_bundle.py, offline:
a real HTTP server on 127.0.0.1 plays PyPI (JSON API in PyPI's shape, a PEP 658 .metadata file for one
wheel, byte ranges for another), serving small wheels the test builds. The bundle the tool builds is
then installed by `envcheck matrix update`."""

import datetime
import http.server
import importlib.metadata
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

from envcheck.matrix import bundled_dir
from envcheck.matrix.signing import generate_key

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the version of the bundle the monthly update builds and installs: counted from the bundled matrix's own
#: version (tests/bundle_clock.py), so that it is newer whatever the real date
TODAY = bundle_clock.day()
#: what scripts/matrix_bundle.py names a bundle built without --version (the real date)
REAL_TODAY = datetime.datetime.now(datetime.timezone.utc).strftime("%Y.%m.%d")


def torch_metadata(version):
    """The METADATA of the installed torch (a real one), as the PyPI Linux wheel of ``version`` has it:
    that wheel pins the CUDA runtime and cuDNN wheels (as torch 2.8.0's PyPI METADATA does)."""
    try:
        text = importlib.metadata.distribution("torch").read_text("METADATA") or ""
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("torch is not installed: these tests serve its real METADATA (pip install torch==2.13.0; "
                    ".ci/run installs it)")
    head, _, body = text.partition("\n\n")
    head = re.sub(r"(?m)^Version: .*$", f"Version: {version}", head)
    head = re.sub(r"(?m)^Requires-Dist: nvidia-.*\n?", "", head).rstrip("\n")
    head += ('\nRequires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux"'
             '\nRequires-Dist: nvidia-cudnn-cu12==9.10.2.21; platform_system == "Linux"\n')
    return head + "\n" + body


CUDNN_METADATA = "Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\nVersion: {v}\nRequires-Dist: nvidia-cublas-cu12\n"
CUDNN_HEADER = b"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 98\n#define CUDNN_PATCHLEVEL 3\n"


def wheel(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


class PyPI(http.server.BaseHTTPRequestHandler):
    files = {}

    def do_GET(self):  # noqa: N802
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
def pypi():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PyPI)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"

    def entry(name, fn, data, meta=False):
        url = f"{base}/packages/{fn}"
        PyPI.files[f"/packages/{fn}"] = data
        e = {"filename": fn, "url": url, "size": len(data), "yanked": False, "packagetype": "bdist_wheel",
             "upload_time_iso_8601": "2026-11-20T17:02:11.123456Z"}
        if meta:
            e["core_metadata"] = {"sha256": "0" * 64}
        return e

    tw = "torch-2.99.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    twheel = wheel({"torch/__init__.py": "", "torch-2.99.0.dist-info/METADATA": torch_metadata("2.99.0")})
    PyPI.files = {}
    torch_files = [entry("torch", tw, twheel, meta=True)]
    PyPI.files[f"/packages/{tw}.metadata"] = torch_metadata("2.99.0").encode()
    cw = "nvidia_cudnn_cu12-9.98.3.7-py3-none-manylinux_2_27_x86_64.whl"
    cwheel = wheel({"nvidia/cudnn/include/cudnn_version.h": CUDNN_HEADER,
                    "nvidia_cudnn_cu12-9.98.3.7.dist-info/METADATA": CUDNN_METADATA.format(v="9.98.3.7")})
    cudnn_files = [entry("nvidia-cudnn-cu12", cw, cwheel)]
    known_torch = "2.5.1"
    docs = {
        "torch": {"info": {"name": "torch"}, "releases": {known_torch: [dict(torch_files[0], filename="x.whl")],
                                                          "2.99.0": torch_files, "3.0.0rc1": torch_files}},
        "nvidia-cudnn-cu12": {"info": {"name": "nvidia-cudnn-cu12"}, "releases": {"9.98.3.7": cudnn_files}},
    }
    for name in ("tensorflow", "jax", "nvidia-cudnn-cu13", "torchvision", "torchaudio", "jaxlib", "jax-cuda12-plugin",
                 "jax-cuda13-plugin", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime", "cuda-toolkit", "cupy-cuda11x",
                 "cupy-cuda12x", "cupy-cuda13x"):
        docs.setdefault(name, {"info": {"name": name}, "releases": {}})
    for name, doc in docs.items():
        PyPI.files[f"/pypi/{name}/json"] = json.dumps(doc).encode()
    yield base
    httpd.shutdown()
    httpd.server_close()


def test_monthly_update_writes_sourced_rows_and_builds_an_installable_bundle(pypi, tmp_path):
    tables = tmp_path / "compat_matrix"
    shutil.copytree(bundled_dir(), tables)
    pem, pub = generate_key()
    (tmp_path / "k.pem").write_bytes(pem)
    (tmp_path / "k.pub").write_text(pub)
    env = bundle_clock.child_env(dict(os.environ, ENVCHECK_CACHE_DIR=str(tmp_path / "cache"),
                                      ENVCHECK_MATRIX_PUBKEY=str(tmp_path / "k.pub")))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_matrix_drift.py"), "--index", pypi,
                        "--nvidia-driver-index", "none", "--tables", str(tables), "--apply", "--key", str(tmp_path / "k.pem"), "--out",
                        str(tmp_path / "dist"), "--version", TODAY], capture_output=True, text=True, timeout=300,
                       env=env)
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout[r.stdout.index("{\n"):])
    assert rep["errors"] == {} and rep["new"] == {"torch": ["2.99.0"], "nvidia-cudnn-cu12": ["9.98.3.7"]}
    rows = {x["file"]: x["row"] for x in rep["rows"]}
    t = rows["torch"]
    assert t["version"] == "2.99.0" and t["pypi_default_variant"] == "cu128" and t["date"] == "2026-11-20"
    assert "3.12" in t["python"] and t["source"] == f"{pypi}/project/torch/2.99.0/"
    assert "PEP 658" in t["derived"]
    c = rows["cudnn"]
    # the version comes from cudnn_version.h read out of the wheel through byte ranges
    assert c["version"] == "9.98.3" and c["patches"] == ["9.98.3.7"] and c["cuda"] == [{"major": 12}]
    assert "cudnn_version.h" in c["derived"] and "HTTP ranges" in c["derived"]
    assert any("torch 2.99.0" in x and "[[variant]]" in x for x in rep["cannot_source"])
    # the rows are in the tables, which still validate, and the bundle installs
    from envcheck.matrix import Matrix

    assert Matrix(str(tables)).torch_release("2.99.0")["pypi_default_variant"] == "cu128"
    bundle = tmp_path / "dist" / f"envcheck-matrix-{TODAY}.tar.gz"
    assert rep["bundle"].endswith(bundle.name) and bundle.exists()
    u = subprocess.run([sys.executable, "-m", "envcheck", "matrix", "update", "--from", str(bundle)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env=env)
    assert u.returncode == 0, u.stderr
    q = subprocess.run([sys.executable, "-m", "envcheck", "matrix", "show", "torch", "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, env=env)
    assert json.loads(q.stdout)["matrix"] == f"updated {TODAY}"


def test_second_run_finds_no_drift(pypi, tmp_path):
    tables = tmp_path / "compat_matrix"
    shutil.copytree(bundled_dir(), tables)
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "check_matrix_drift.py"), "--index", pypi,
           "--nvidia-driver-index", "none", "--tables", str(tables)]
    assert subprocess.run(cmd + ["--apply"], capture_output=True, timeout=300).returncode == 1
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:]


def test_unreachable_index_is_exit_2(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_matrix_drift.py"), "--index",
                        "http://127.0.0.1:9", "--nvidia-driver-index", "http://127.0.0.1:9/redist/", "--timeout", "5"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and json.loads(r.stdout)["errors"]["torch"]


def test_keygen_refuses_the_repository_and_build_signs(tmp_path):
    script = os.path.join(ROOT, "scripts", "matrix_bundle.py")
    r = subprocess.run([sys.executable, script, "keygen", "--out", os.path.join(ROOT, "x.key")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and not os.path.exists(os.path.join(ROOT, "x.key"))
    key = tmp_path / "k.key"
    r = subprocess.run([sys.executable, script, "keygen", "--out", str(key)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and oct(key.stat().st_mode & 0o777) == "0o600"
    pub = tmp_path / "k.pub"
    pub.write_text(r.stdout.splitlines()[-1] + "\n")
    r = subprocess.run([sys.executable, script, "build", "--key", str(key), "--out", str(tmp_path / "d")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, ENVCHECK_MATRIX_PUBKEY=str(pub)))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "d" / f"envcheck-matrix-{REAL_TODAY}.tar.gz").exists()
