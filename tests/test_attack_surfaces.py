"""Attacks on the surfaces that landed with the AMD / Intel / Apple / Jetson work and the signed matrix
bundles, each reproduced end to end through the real CLI (``python -m envcheck ...`` in a subprocess),
with HTTP on 127.0.0.1 where a download is involved. Each test names the attack it reproduces."""

import http.server
import os
import subprocess
import sys
import threading

import pytest

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import FILES
from envcheck.matrix.signing import build_bundle, generate_key

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def envcheck(*args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "envcheck", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=bundle_clock.child_env(e))


# ---- snapshot folders: nothing outside the snapshot is read ---------------------------------------------

def _kfd_node(folder, name="gfx90a\n"):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "name"), "w") as fh:
        fh.write(name)
    with open(os.path.join(folder, "properties"), "w") as fh:
        fh.write("cpu_cores_count 0\nsimd_count 440\ngfx_target_version 90010\n")


@pytest.mark.parametrize("link", ["kfd-topology", "kfd-topology/0"])
def test_symlinked_kfd_topology_folder_is_not_followed_out_of_the_snapshot(tmp_path, link):
    outside = tmp_path / "outside"
    _kfd_node(str(outside / "0"), name="read-from-outside\n")
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "meta.json").write_text('{"schema": "envcheck/snapshot/1"}')
    if link == "kfd-topology":
        os.symlink(str(outside), str(snap / "kfd-topology"))
    else:
        (snap / "kfd-topology").mkdir()
        os.symlink(str(outside / "0"), str(snap / "kfd-topology" / "0"))
    r = envcheck("status", "--snapshot", str(snap), "--json")
    assert r.returncode == 2, r.stdout[-2000:]
    assert "symbolic link" in r.stderr and "Traceback" not in r.stderr
    assert "read-from-outside" not in r.stdout + r.stderr


def test_real_kfd_topology_folder_is_still_read(tmp_path):
    snap = tmp_path / "snap"
    _kfd_node(str(snap / "kfd-topology" / "1"))
    (snap / "meta.json").write_text('{"schema": "envcheck/snapshot/1"}')
    r = envcheck("status", "--snapshot", str(snap), "--json")
    assert r.returncode in (0, 1), r.stderr
    assert '"gfx": "gfx90a"' in r.stdout


# ---- signed bundles: an allowed index's prefix does not carry shell --------------------------------------

_today = bundle_clock.day  # dates from the bundled matrix's version, not the real date (tests/bundle_clock.py)


def _tables(name, change):
    out = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), encoding="utf-8") as fh:
            text = fh.read()
        if f == name:
            new = change(text)
            assert new != text  # the attack really is in the bundle
            text = new
        out[f + ".toml"] = text.encode()
    return out


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    pem, pub = generate_key()
    p = tmp_path_factory.mktemp("key") / "test.pub"
    p.write_text(pub)
    return pem, str(p)


@pytest.fixture
def served(tmp_path):
    """An HTTP server on 127.0.0.1 serving the bytes put in the returned dict under /b.tar.gz."""
    content = {}

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = content.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield content, f"http://127.0.0.1:{srv.server_address[1]}/b.tar.gz"
    srv.shutdown()
    srv.server_close()


SHELL = "$(touch${IFS}/tmp/pwned)"


@pytest.mark.parametrize("name,change", [
    # a fix template's index: the prefix is allowed, the rest is a command substitution
    ("errors", lambda t: t.replace("{{pip torch index=cu124}}",
                                   "{{pip torch index=https://download.pytorch.org/whl/cu124" + "$(id)}}", 1)),
    ("errors", lambda t: t.replace("{{pip torch index=cu124}}",
                                   "{{pip torch index=https://pypi.org/simple/`id`}}", 1)),
    ("errors", lambda t: t.replace("{{pip torch index=cu124}}",
                                   "{{pip torch index=https://download.pytorch.org/whl/cu124;id}}", 1)),
    # a table's index_url: `envcheck fix` prints it unquoted after --index-url
    ("torch", lambda t: t.replace('index_url = "https://download.pytorch.org/whl/cu126"',
                                  'index_url = "https://download.pytorch.org/whl/cu126' + SHELL + '"', 1)),
    ("torch", lambda t: t.replace('index_url = "https://download.pytorch.org/whl/cu126"',
                                  'index_url = "https://download.pytorch.org/whl/../../evil/simple"', 1)),
])
def test_bundle_with_shell_after_an_allowed_index_prefix_is_refused(tmp_path, key, served, name, change):
    pem, pub = key
    content, url = served
    content["/b.tar.gz"] = build_bundle(_tables(name, change), pem, _today(), expires=_today(90))
    cache = tmp_path / "cache"
    env = {"ENVCHECK_CACHE_DIR": str(cache), "ENVCHECK_MATRIX_PUBKEY": pub}
    r = envcheck("matrix", "update", "--from", url, "--timeout", "20", env=env)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "not an allowed package index" in r.stderr and "Traceback" not in r.stderr
    st = envcheck("matrix", "status", env=env)
    assert "bundled" in st.stdout


def test_bundle_with_a_plain_index_path_still_installs(tmp_path, key, served):
    pem, pub = key
    content, url = served
    def change(t):
        return t.replace("{{pip torch index=cu124}}", "{{pip torch index=https://download.pytorch.org/whl/cu124}}", 1)

    content["/b.tar.gz"] = build_bundle(_tables("errors", change), pem, _today(), expires=_today(90))
    env = {"ENVCHECK_CACHE_DIR": str(tmp_path / "cache"), "ENVCHECK_MATRIX_PUBKEY": pub}
    r = envcheck("matrix", "update", "--from", url, "--timeout", "20", env=env)
    assert r.returncode == 0, r.stdout + r.stderr


# ---- snapshot --redact: a password holding "@" ---------------------------------------------------------

def test_redact_masks_a_url_password_that_holds_an_at_sign(tmp_path):
    # urllib and pip take the user information up to the authority's LAST "@": "p@ssw0rdSECRET" is the password
    src = tmp_path / "in"
    src.mkdir()
    (src / "meta.json").write_text('{"schema": "envcheck/snapshot/1"}')
    (src / "environ.json").write_text('{"PYTHONPATH": "https://bob:p@ssw0rdSECRET1@host.example/x", "PATH": "/usr/bin"}')
    (src / "requires.json").write_text('{"torch": ["nvidia-cudnn @ https://alice:hunter2@SECRET2@pypi.example.com/x.whl",'
                                       ' "y @ https://host.example/y?mail=a@b"]}')
    r = envcheck("snapshot", "--from", str(src), "--redact", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    out = {f: (tmp_path / "out" / f).read_text() for f in ("environ.json", "requires.json")}
    for text in out.values():
        assert "SECRET" not in text and "hunter2" not in text and "ssw0rd" not in text
    assert "https://***@host.example/x" in out["environ.json"]
    assert "https://***@pypi.example.com/x.whl" in out["requires.json"]
    assert "https://host.example/y?mail=a@b" in out["requires.json"]  # a query's "@" is no user information


# ---- vendor readers: numbers of thousands of digits, crafted long lines ---------------------------------

def _snap(tmp_path, files):
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "meta.json").write_text('{"schema": "envcheck/snapshot/1"}')
    for name, text in files.items():
        (snap / name).write_text(text)
    return str(snap)


HUGE = "9" * 5000  # over Python's 4300-digit limit of int(str)


@pytest.mark.parametrize("name,text", [
    ("amd-smi-static.json", '[\n  {\n    "gpu": ' + HUGE + ',\n    "asic": {\n      "market_name": "MI300X",\n'),
    ("amd-smi-static.txt", "GPU: " + HUGE + "\n    ASIC:\n        MARKET_NAME: MI300X\n"),
    ("rocm-smi.json", '{"card' + HUGE + '": {"Card series": "MI300X"}}'),
    ("rocm-smi-product.txt", "GPU[" + HUGE + "]\t\t: Card series: \t\tMI300X\n"),
    ("rocm-smi.txt", "=== ROCm System Management Interface ===\nGPU  Temp  AvgPwr  SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%\n"
                     + HUGE + "  30c  20W  800Mhz  1600Mhz  0%  auto  300W  0%  0%\n"),
    ("xpu-smi-discovery.txt", "| " + HUGE + "  | Device Name: Intel(R) Arc(TM) A770 Graphics |\n"),
    ("nvidia-smi.txt", "==============NVSMI LOG==============\nDriver Version    : 535.104.05\nAttached GPUs     : "
                       + HUGE + "\n"),
    ("nvidia-smi.txt", "==============NVSMI LOG==============\nDriver Version    : 535.104.05\nAttached GPUs     : \u00b2\n"),
    # found by the 20,000-case fuzz run on the merged code (seed 3003): a -q FB memory total and the query
    # CSV's index and memory of thousands of digits
    ("nvidia-smi.txt", "==============NVSMI LOG==============\nDriver Version    : 535.104.05\nAttached GPUs     : 1\n"
                       "GPU 00000000:07:00.0\n    FB Memory Usage\n        Total      : " + HUGE + " MiB\n"),
    ("environ.json", '{"CUDA_VISIBLE_DEVICES": "' + HUGE + '", "NVIDIA_VISIBLE_DEVICES": "all"}'),
    ("nvidia-smi-query.csv", "index, name, driver_version, compute_cap, memory.total [MiB]\n"
                             + HUGE + ", NVIDIA A100, 535.104.05, 8.0, " + HUGE + " MiB\n"),
])
def test_a_number_of_thousands_of_digits_is_unknown_not_a_crash(tmp_path, name, text):
    r = envcheck("status", "--snapshot", _snap(tmp_path, {name: text}), "--json")
    assert r.returncode in (0, 1), r.stderr[-2000:]  # was 70: "internal error: ValueError: Exceeds the limit"
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_rocm_smi_section_line_of_spaces_is_read_in_bounded_time(tmp_path):
    # "GPU[0] : " and 200 KB of spaces: the old (.*?)\s*:\s*(.*?)\s*$ took 258 s at 10 KB
    text = "GPU[0]\t\t: Card series: \t\tMI100\nGPU[1] : " + " " * 200000 + "x\n"
    r = envcheck("status", "--snapshot", _snap(tmp_path, {"rocm-smi-product.txt": text}), "--json", timeout=120)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert '"MI100"' in r.stdout


def test_nvidia_smi_q_line_of_dots_is_read_in_bounded_time(tmp_path):
    # a -q key line "A . . . . x" without a colon: the old key regex was quadratic (24 s at 200 KB,
    # hours at the 2 MB the snapshot allows)
    text = ("==============NVSMI LOG==============\n\nDriver Version                      : 535.104.05\n"
            "Attached GPUs                       : 1\nGPU 00000000:07:00.0\n    Product Name                    : "
            "NVIDIA A100-SXM4-80GB\n    A" + ". " * 700000 + "x\n")
    r = envcheck("status", "--snapshot", _snap(tmp_path, {"nvidia-smi.txt": text}), "--json", timeout=120)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert "535.104.05" in r.stdout and "A100" in r.stdout


@pytest.mark.parametrize("args", [
    ("matrix", "why", "torch==" + HUGE, "--json"),
    ("fix", "--want", "torch==" + HUGE, "--driver", "535.104.05", "--gpu", "A100", "--json"),
])
def test_a_requirement_of_thousands_of_digits_matches_nothing_instead_of_crashing(args):
    # packaging's Version() raises a plain ValueError (int() limit), not InvalidVersion, on such a release:
    # every SpecifierSet.contains goes through versions.spec_contains (found by the fuzz run: exit 70)
    r = envcheck(*args)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
