"""`envcheck matrix ...`, including `update` against a real HTTP server on 127.0.0.1."""

import http.server
import io
import json
import os
import tarfile
import threading
import time

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.matrix import bundled_dir


def invoke(*args, env=None):
    res = CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=False, env=env)
    code = res.return_value if isinstance(res.return_value, int) else res.exit_code
    return code, res.output


def test_query_torch_lists_variants_with_floors():
    code, out = invoke("matrix", "query", "torch==2.8.0", "--json")
    assert code == 0
    builds = json.loads(out)["builds"]
    cu128 = next(b for b in builds if b["variant"] == "cu128")
    # 12.x minor-version floor (CUDA compatibility guide) and CUDA 12.8 GA driver (release notes: 570.26)
    assert cu128["driver_min"] == "525.60.13" and cu128["driver_full"] == "570.26"
    assert "6.1" not in cu128["compute_capabilities"]


def test_query_nothing_matches_is_exit_1():
    assert invoke("matrix", "query", "torch==0.0.1")[0] == 1


def test_query_rejects_unknown_framework():
    from envcheck.errors import UsageError

    with pytest.raises(UsageError):
        invoke("matrix", "query", "leftpad==1.0")


def test_why_gtx1080ti_and_cu128():
    code, out = invoke("matrix", "why", "torch==2.8.0", "--driver", "570.86.10", "--gpu", "NVIDIA GeForce GTX 1080 Ti",
                       "--python", "3.12", "--json")
    res = {r["build"]["variant"]: r for r in json.loads(out)["results"]}
    assert res["cu128"]["runs"] is False and any("gpu 6.1: NO" in x for x in res["cu128"]["reasons"])
    assert res["cu126"]["runs"] is True
    assert code == 0


def test_why_old_driver_blocks_cu12():
    code, out = invoke("matrix", "why", "torch==2.8.0", "--driver", "470.82.01", "--cc", "8.0")
    assert code == 1 and "DOES NOT RUN" in out and "RUNS" not in out.replace("DOES NOT RUN", "")


def test_why_from_snapshot(tmp_path):
    from helpers import gpu_machine, make_snapshot

    d = make_snapshot(str(tmp_path / "s"), gpu_machine("535.104.05", "12.2", [("NVIDIA A100-SXM4-40GB", 40960)],
                                                        cc=["8.0"]))
    code, out = invoke("matrix", "why", "tensorflow==2.15.1", "--snapshot", d, "--json")
    r = json.loads(out)["results"][0]
    assert r["runs"] is True and any(x.startswith("python 3.11: ok") for x in r["reasons"])


def test_show_each_table():
    for t in ("cuda", "drivers", "gpus", "torch", "tensorflow", "cudnn", "jax"):
        code, out = invoke("matrix", "show", t, "--json")
        doc = json.loads(out)
        assert code == 0 and doc["rows"] and all("source" in r for r in doc["rows"]), t


# ---- update ---------------------------------------------------------------------------------------
def make_bundle(version="2099.1.1", drop=None, corrupt=None):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        def add(name, data):
            info = tarfile.TarInfo(f"matrix/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        add("bundle.toml", f'[bundle]\nschema = 1\nversion = "{version}"\nsource = "test"\n'.encode())
        for f in ("cuda", "gpus", "torch", "tensorflow", "cudnn", "jax"):
            if f == drop:
                continue
            data = open(os.path.join(bundled_dir(), f + ".toml"), "rb").read()
            if f == corrupt:
                data = data.replace(b'compute_capability = "8.6"', b'compute_capability = "eight"', 1)
            add(f + ".toml", data)
    return buf.getvalue()


class Handler(http.server.BaseHTTPRequestHandler):
    routes = {}

    def do_GET(self):  # noqa: N802
        kind, payload = self.routes.get(self.path, ("status", 404))
        if kind == "status":
            self.send_response(payload)
            self.end_headers()
            return
        if kind == "slow":
            time.sleep(payload)
            self.send_response(200)
            self.end_headers()
            return
        if kind == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload) * 2))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *a):
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", tmp_path / "cache"
    httpd.shutdown()
    httpd.server_close()


def active():
    from envcheck.matrix.bundle import active_directory
    return active_directory()[1]


def test_update_good_then_older_refused(server):
    url, cache = server
    Handler.routes = {"/good.tar.gz": ("ok", make_bundle("2099.1.1")), "/old.tar.gz": ("ok", make_bundle("2020.1.1"))}
    assert active().startswith("bundled")
    code, out = invoke("matrix", "update", "--from", url + "/good.tar.gz")
    assert code == 0 and "2099.1.1" in out
    assert active() == "updated 2099.1.1"
    code, out = invoke("matrix", "status", "--json")
    assert json.loads(out)["active"] == "updated 2099.1.1"
    from envcheck.errors import UsageError
    with pytest.raises(UsageError, match="downgrade"):
        invoke("matrix", "update", "--from", url + "/old.tar.gz")
    assert active() == "updated 2099.1.1"
    # the updated tables are the ones used from now on
    from envcheck.matrix import load_matrix
    assert load_matrix().origin == "updated 2099.1.1"


@pytest.mark.parametrize("route,match", [
    (("truncated", b"x" * 1000), "truncated|not a readable"),
    (("ok", b"this is not a tarball"), "not a readable"),
    (("ok", None), "not valid"),
    (("ok", "missing"), "missing"),
    (("status", 500), "HTTP 500"),
    (("slow", 5), "timed out"),
])
def test_update_failures_leave_cache_untouched(server, route, match):
    url, cache = server
    if route[1] is None:
        route = ("ok", make_bundle(corrupt="gpus"))
    elif route[1] == "missing":
        route = ("ok", make_bundle(drop="torch"))
    Handler.routes = {"/b.tar.gz": route}
    from envcheck.errors import UsageError
    with pytest.raises(UsageError, match=match):
        invoke("matrix", "update", "--from", url + "/b.tar.gz", "--timeout", "1")
    assert active().startswith("bundled")
    assert not (cache / "current").exists()


def test_update_from_local_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "m.tar.gz"
    f.write_bytes(make_bundle("2099.2.2"))
    assert invoke("matrix", "update", "--from", str(f))[0] == 0
    assert active() == "updated 2099.2.2"
