"""install_scripts/install.sh for real: into a temporary HOME whose path has a space, quotes, `$` and a
backquote, from this checkout (one pip install per test session, about 10 s), then the installed
envcheck reads a *training* venv's frameworks. Also from the built wheel and from a git URL."""

import json
import os
import shutil
import subprocess

import pytest

from helpers import gpu_machine, make_snapshot, torch_install
from test_interpreter import make_training_venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL = os.path.join(ROOT, "install_scripts", "install.sh")
SHELL = shutil.which("dash") or "/bin/sh"


def base_env(home):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVCHECK_", "VIRTUAL_ENV", "CONDA_", "PYTHON")) or k == "ENVCHECK_CACHE_DIR"}
    env.update({"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "NO_COLOR": "1"})
    env.pop("XDG_DATA_HOME", None)
    env.pop("PREFIX", None)
    return env


def install(env, *args):
    return subprocess.run([SHELL, INSTALL, *args], env=env, capture_output=True, text=True, timeout=600)


def tree(path):
    out = set()
    for d, _dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            out.add((os.path.relpath(p, path), os.path.getsize(p)))
    return out


# every character the generated wrapper must quote: a space, both quotes, $ and a backquote
HOSTILE = "it's a \"home\" $HOME `x`"


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    home = tmp_path_factory.mktemp("home") / HOSTILE
    home.mkdir()
    train_py, _ = make_training_venv(tmp_path_factory.mktemp("train") / "venv")
    train_dir = os.path.dirname(os.path.dirname(train_py))
    before = tree(train_dir)
    env = dict(base_env(home), ENVCHECK_SOURCE=ROOT, VIRTUAL_ENV=train_dir)
    r = install(env)
    if r.returncode != 0 and "No matching distribution found" in r.stderr:
        pytest.skip("pip cannot reach a package index for the build backend: " + r.stderr[-300:])
    assert r.returncode == 0, r.stderr
    return {"home": home, "bin": home / ".local" / "bin", "venv": home / ".local/share/envcheck/venv",
            "train_py": train_py, "train_dir": train_dir, "before": before, "env": env, "first": r}


def test_installs_into_its_own_venv_and_path(installed):
    b = installed["bin"]
    assert (b / "envcheck").is_file() and os.access(b / "envcheck", os.X_OK)
    assert (installed["venv"] / "bin" / "envcheck").exists()
    assert (installed["venv"] / ".envcheck-venv").exists()
    # the training environment was not touched
    assert tree(installed["train_dir"]) == installed["before"]
    r = subprocess.run([str(b / "envcheck"), "--version"], capture_output=True, text=True, timeout=60,
                       env=installed["env"])
    assert r.returncode == 0 and r.stdout.startswith("envcheck, version ")
    assert "is not on PATH" in installed["first"].stderr
    # the wrapper names the venv's paths literally, quoted: run with no HOME at all, it still works
    wrapper = (b / "envcheck").read_text()
    assert HOSTILE.replace("'", "'\\''") in wrapper
    env = {k: v for k, v in installed["env"].items() if k != "HOME"}
    r = subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True, timeout=120,
                       env=env)
    assert json.loads(r.stdout)["schema"] == "envcheck/report/1", r.stderr
    # the hint it printed is a working shell command
    hint = installed["first"].stderr.split("e.g. ", 1)[1].splitlines()[0]
    r = subprocess.run(["sh", "-c", hint + '; command -v envcheck'], capture_output=True, text=True, timeout=30,
                       env=dict(env, PATH="/usr/bin:/bin"))
    assert r.stdout.strip() == str(b / "envcheck"), (hint, r.stdout, r.stderr)


def test_installed_envcheck_reads_the_training_interpreter(installed):
    b = installed["bin"]
    # activated training venv: $VIRTUAL_ENV/bin/python
    env = dict(installed["env"], VIRTUAL_ENV=installed["train_dir"])
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert rep["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    # no venv variables, but the training venv's python3 first on PATH
    env = {k: v for k, v in installed["env"].items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.path.dirname(installed["train_py"]) + ":" + env["PATH"]
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert rep["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    # an explicit ENVCHECK_INTERPRETER wins; the venv's own python means "envcheck's own packages"
    env["ENVCHECK_INTERPRETER"] = str(installed["venv"] / "bin" / "python")
    rep = json.loads(subprocess.run([str(b / "envcheck"), "status", "--json"], capture_output=True, text=True,
                                    timeout=120, env=env).stdout)
    assert "torch" not in rep["frameworks"]


def test_installed_entrypoint_blocks_with_installed_envcheck(installed, tmp_path):
    bad = make_snapshot(str(tmp_path / "bad"), dict(gpu_machine("470.57.02", "11.4", [("NVIDIA A100-SXM4-40GB",
                                                                                        40960)], cc=["8.0"]),
                                                    **torch_install("2.5.1+cu124", "12.4")))
    env = dict(installed["env"], PATH=f"{installed['bin']}:" + installed["env"]["PATH"], ENVCHECK_MODE="block",
               ENVCHECK_SNAPSHOT=bad)
    r = subprocess.run([str(installed["bin"] / "envcheck-entrypoint"), "echo", "job"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 3 and "driver-too-old" in r.stderr and r.stdout == ""
    env["ENVCHECK_MODE"] = "warn"
    r = subprocess.run([str(installed["bin"] / "envcheck-entrypoint"), "echo", "job"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout == "job\n"


def test_idempotent(installed):
    wrapper = (installed["bin"] / "envcheck").read_text()
    r = install(installed["env"])
    assert r.returncode == 0, r.stderr
    assert (installed["bin"] / "envcheck").read_text() == wrapper
    assert "creating" not in r.stderr  # the venv was reused


def test_refuses_to_clobber_a_foreign_file(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "envcheck").write_text("#!/bin/sh\necho someone else's tool\n")
    env = dict(base_env(tmp_path / "home"), PREFIX=str(prefix), ENVCHECK_SOURCE=ROOT)
    r = install(env)
    assert r.returncode == 1 and "not written by this installer" in r.stderr
    assert (prefix / "bin" / "envcheck").read_text() == "#!/bin/sh\necho someone else's tool\n"
    assert not (tmp_path / "home" / ".local/share/envcheck").exists()
    # a venv folder that is not ours is refused too
    venv = tmp_path / "home" / "myvenv"
    venv.mkdir(parents=True)
    r = install(dict(env, PREFIX=str(tmp_path / "p2"), ENVCHECK_VENV=str(venv)))
    assert r.returncode == 1 and "not an envcheck venv" in r.stderr


def test_bad_settings(tmp_path):
    env = base_env(tmp_path)
    r = install(dict(env, ENVCHECK_INSTALLER="conda"))
    assert r.returncode == 1 and "venv, pipx or uv" in r.stderr
    r = install(dict(env, ENVCHECK_SOURCE=str(tmp_path / "nope")))
    assert r.returncode == 1 and "does not exist" in r.stderr
    r = install(env, "--bogus")
    assert r.returncode == 1


def test_uninstall_removes_only_its_own_files(installed, tmp_path):
    # a copy of the installation's layout in another HOME: uninstall must not touch foreign files
    home = tmp_path / "h"
    (home / ".local/bin").mkdir(parents=True)
    (home / ".local/bin/envcheck").write_text("#!/bin/sh\nforeign\n")
    r = install(base_env(home), "--uninstall")
    assert r.returncode == 0 and (home / ".local/bin/envcheck").exists() and "left" in r.stderr


@pytest.mark.parametrize("source,spec", [
    (None, ROOT),  # the checkout that holds the script: envcheck is on no index yet
    ("git+https://example.org/you/envcheck.git@v0.1.0", "git+https://example.org/you/envcheck.git@v0.1.0"),
    ("https://example.org/you/envcheck.git", "git+https://example.org/you/envcheck.git"),
    ("ssh://git@example.org/you/envcheck.git", "git+ssh://git@example.org/you/envcheck.git"),
    ("https://example.org/dl/envcheck_gpu-0.1.0-py3-none-any.whl",
     "https://example.org/dl/envcheck_gpu-0.1.0-py3-none-any.whl"),
    (".", ROOT),
])
def test_dry_run_names_what_it_would_install(tmp_path, source, spec):
    env = base_env(tmp_path / "h")
    if source is not None:
        env["ENVCHECK_SOURCE"] = source
    r = subprocess.run([SHELL, INSTALL, "--dry-run"], env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"would install: {spec}"
    assert not (tmp_path / "h").exists()  # nothing was made
    r = subprocess.run([SHELL, INSTALL, "--dry-run"], env=dict(env, ENVCHECK_VERSION="0.1.0"), capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    # a release, pinned, only when asked for by version (and only when no source is given)
    assert r.stdout.splitlines()[0] == ("would install: envcheck-gpu==0.1.0" if source is None else f"would install: {spec}")


def test_refuses_sources_it_cannot_install(tmp_path):
    env = base_env(tmp_path)
    r = install(dict(env, ENVCHECK_SOURCE="https://example.org/you/envcheck"))
    assert r.returncode == 1 and "not a git URL" in r.stderr
    r = install(dict(env, ENVCHECK_SOURCE=str(tmp_path)))
    assert r.returncode == 1 and "without pyproject.toml" in r.stderr


def test_without_a_checkout_or_source_it_says_what_to_give(tmp_path):
    """A copy of install.sh outside a checkout (downloaded on its own) has nothing to install: envcheck
    is on no package index yet, so it stops at once and names the sources it takes."""
    alone = tmp_path / "install.sh"
    shutil.copy(INSTALL, alone)
    env = base_env(tmp_path / "h")
    r = subprocess.run([SHELL, str(alone)], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "not inside an envcheck checkout" in r.stderr and "ENVCHECK_SOURCE" in r.stderr
    assert not (tmp_path / "h").exists()
    # a folder that is some other project is refused too (its pyproject names another distribution)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "envcheck"\n')
    r = install(dict(env, ENVCHECK_SOURCE=str(other)))
    assert r.returncode == 1 and "not an envcheck checkout" in r.stderr


def _closed_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


@pytest.mark.parametrize("source", ["https://127.0.0.1:{port}/dl/envcheck_gpu-0.1.0-py3-none-any.whl",
                                    "git+https://127.0.0.1:{port}/you/envcheck.git@v0.1.0"])
def test_an_unreachable_source_stops_before_pip_with_the_reason(tmp_path, source):
    """A network source nobody answers for: the script says so and stops before it makes a venv or
    runs pip (whose retries took 44 s), naming the address."""
    src = source.format(port=_closed_port())
    home = tmp_path / "h"
    home.mkdir()
    r = install(dict(base_env(home), ENVCHECK_SOURCE=src))
    assert r.returncode == 1
    assert "cannot be reached" in r.stderr and "127.0.0.1" in r.stderr, r.stderr
    assert "installing" not in r.stderr and not (home / ".local/share/envcheck").exists()


def test_a_release_the_index_does_not_have_is_named(tmp_path):
    """ENVCHECK_VERSION asks the index (here a real HTTP server on 127.0.0.1 as PIP_INDEX_URL) for the
    release first: a project it does not list, and a version it lacks, are each said at once."""
    import http.server
    import threading

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            if self.path.rstrip("/") == "/simple/envcheck-gpu":
                body = b'<a href="envcheck_gpu-0.1.0-py3-none-any.whl">envcheck_gpu-0.1.0-py3-none-any.whl</a>'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        home = tmp_path / "h"
        home.mkdir()
        env = dict(base_env(home), PIP_INDEX_URL=f"http://127.0.0.1:{srv.server_port}/simple")
        env.pop("PIP_FIND_LINKS", None)  # a local wheel folder may hold the release: then pip is asked
        env.pop("PIP_NO_INDEX", None)
        r = install(dict(env, ENVCHECK_VERSION="0.2.0"))
        assert r.returncode == 1 and "has no release 0.2.0 of envcheck-gpu" in r.stderr, r.stderr
        r = install(dict(env, ENVCHECK_VERSION="0.1.0", PIP_INDEX_URL=env["PIP_INDEX_URL"] + "/nothing"))
        assert r.returncode == 1 and "envcheck-gpu is not published on" in r.stderr, r.stderr
        assert not (home / ".local/share/envcheck").exists()
        r = install(dict(env, ENVCHECK_VERSION="1.0; rm -rf /"))
        assert r.returncode == 1 and "is not a version" in r.stderr
    finally:
        srv.shutdown()


def test_installs_the_built_wheel_offline_and_a_git_url(wheelhouse, tmp_path):
    """The wheel file, then a git URL (a real clone of a commit, built by pip), both with no index."""
    home = tmp_path / "home"
    home.mkdir()
    env = dict(base_env(home), **wheelhouse["env"], ENVCHECK_SOURCE=wheelhouse["wheel"])
    r = install(env)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(home / ".local/bin/envcheck"), "--version"], capture_output=True, text=True,
                       timeout=60, env=env)
    assert r.returncode == 0 and "envcheck, version" in r.stdout
    assert (home / ".local/share/envcheck/venv/lib").exists()
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    for part in ("envcheck", "compat_matrix"):
        shutil.copytree(os.path.join(ROOT, part), repo / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, f), repo / f)
    g = dict(env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
             GIT_COMMITTER_EMAIL="t@example.org")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "x"],
                 ["git", "tag", "v9.9.9"]):
        subprocess.run(argv, cwd=repo, env=g, check=True, capture_output=True, timeout=60)
    home2 = tmp_path / "home2"
    home2.mkdir()
    env2 = dict(g, HOME=str(home2), ENVCHECK_SOURCE=f"git+file://{repo}@v9.9.9")
    r = install(env2)
    assert r.returncode == 0, r.stderr
    assert f"installing git+file://{repo}@v9.9.9" in r.stderr
    r = subprocess.run([str(home2 / ".local/bin/envcheck"), "status", "--json"], capture_output=True, text=True,
                       timeout=120, env=env2)
    assert json.loads(r.stdout)["schema"] == "envcheck/report/1", r.stderr


def test_syntax_and_lint():
    r = subprocess.run([SHELL, "-n", INSTALL], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", "-s", "sh", INSTALL], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout


def test_uninstall_the_real_installation(installed):
    """Last in this file (pytest keeps definition order): removes the session's installation."""
    r = install(installed["env"], "--uninstall")
    assert r.returncode == 0, r.stderr
    assert not (installed["bin"] / "envcheck").exists() and not (installed["bin"] / "envcheck-entrypoint").exists()
    assert not installed["venv"].exists()
    assert tree(installed["train_dir"]) == installed["before"]
