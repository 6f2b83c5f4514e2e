"""Issue 10, file I/O, writes, terminal: each test reproduces an attack on the real CLI (subprocesses)
and checks that envcheck now neither destroys, hangs, crashes (exit 70) nor prints control sequences."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time

import pytest

from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="needs root (device nodes, chown to another user)")
OTHER_UID = 12345


def env_for(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_") or k == "ENVCHECK_CACHE_DIR"}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1"})
    env.update(extra)
    return env


def envcheck(args, timeout=60, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, timeout=timeout,
                          env=env or env_for(), **kw)


@pytest.fixture
def snap(tmp_path):
    return make_snapshot(str(tmp_path / "snap"), {**gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-80GB", 81920)]),
                                                  **torch_install("2.5.1+cu124", "12.4")})


# -- item 1: --report never destroys a device node ----------------------------------------------

@needs_root
@pytest.mark.parametrize("how", ["status", "run", "ENVCHECK_REPORT", "link"])
def test_report_onto_a_device_node_writes_in_place(tmp_path, snap, how):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.chmod(dev, 0o666)
    target = dev
    if how == "link":  # like /dev/stderr -> /proc/self/fd/2
        target = tmp_path / "stderr"
        os.symlink(dev, target)
    if how == "status" or how == "link":
        r = envcheck(["status", "--snapshot", snap, "--report", str(target), "-q"])
    elif how == "run":
        r = envcheck(["run", "--snapshot", snap, "--report", str(target), "--", "true"])
    else:
        r = envcheck(["run", "--", "true"], env=env_for(ENVCHECK_REPORT=str(target), ENVCHECK_SNAPSHOT=snap))
    assert r.returncode in (0, 1), r.stderr  # 1: the snapshot's findings (status); `true` gives 0
    assert b"warning:" not in r.stderr and b"unchecked" not in r.stderr and b"cannot write" not in r.stderr
    st = os.lstat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3) and stat.S_IMODE(st.st_mode) == 0o666
    if how == "link":
        assert os.path.islink(target)


def test_report_to_a_fifo_is_written_in_place_or_refused_never_replaced(tmp_path, snap):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = envcheck(["status", "--snapshot", snap, "--report", str(fifo), "-q"], timeout=30)  # nobody reads it
    assert r.returncode == 2 and b"FIFO that nobody reads" in r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    time.sleep(0.2)
    r = envcheck(["status", "--snapshot", snap, "--report", str(fifo), "-q"], timeout=30)
    out = reader.communicate(timeout=30)[0]
    assert r.returncode in (0, 1) and json.loads(out)["schema"] == "envcheck/report/1"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_report_refuses_a_folder(tmp_path, snap):
    r = envcheck(["status", "--snapshot", snap, "--report", str(tmp_path), "-q"])
    assert r.returncode == 2 and b"is a folder" in r.stderr and os.path.isdir(snap)


# -- item 12: --report replaces only its own reports; modes follow the umask and are kept ---------

def test_report_replaces_an_envcheck_report_but_needs_force_for_other_files(tmp_path, snap):
    report = tmp_path / "report.json"
    r = envcheck(["status", "--snapshot", snap, "--report", str(report), "-q"], preexec_fn=lambda: os.umask(0o002))
    assert r.returncode in (0, 1), r.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o664  # 0666 & ~umask, readable by a collector
    report.chmod(0o640)
    r = envcheck(["status", "--snapshot", snap, "--report", str(report), "-q"])  # the entrypoint re-writes it
    assert r.returncode in (0, 1), r.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o640 and json.loads(report.read_text())["schema"]
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    r = envcheck(["status", "--snapshot", snap, "--report", str(notes), "-q"])
    assert r.returncode == 2 and b"--force" in r.stderr and notes.read_text() == "my notes\n"
    r = envcheck(["run", "--snapshot", snap, "--report", str(notes), "--", "true"])
    assert r.returncode == 0 and b"--force" in r.stderr and notes.read_text() == "my notes\n"
    r = envcheck(["status", "--snapshot", snap, "--report", str(notes), "-q", "--force"])
    assert r.returncode in (0, 1) and json.loads(notes.read_text())["schema"] == "envcheck/report/1"


def test_json_diagnosis_keeps_a_foreign_file(tmp_path, snap):
    diag = tmp_path / "diag.json"
    diag.write_text('{"schema": "someone-else/1"}')
    job = "echo 'RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED' >&2; exit 1"
    r = envcheck(["run", "--snapshot", snap, "--json-diagnosis", str(diag), "--", "sh", "-c", job])
    assert r.returncode == 1 and diag.read_text() == '{"schema": "someone-else/1"}'
    diag.unlink()
    r = envcheck(["run", "--snapshot", snap, "--json-diagnosis", str(diag), "--", "sh", "-c", job])
    assert json.loads(diag.read_text())["matches"][0]["id"] == "cudnn-not-initialized"
    r = envcheck(["run", "--snapshot", snap, "--json-diagnosis", str(diag), "--", "sh", "-c", job])
    assert r.returncode == 1 and b"cannot write" not in r.stderr  # its own earlier diagnosis is replaced


def test_write_env_is_all_or_nothing_and_keeps_modes(tmp_path, snap):
    out = tmp_path / "envdir"
    r = envcheck(["fix", "--snapshot", snap, "--write-env", str(out)], preexec_fn=lambda: os.umask(0o022))
    assert r.returncode == 0, r.stderr
    names = sorted(os.listdir(out))
    assert names == ["envcheck.env", "environment.yml", "requirements.txt"]
    assert {stat.S_IMODE((out / n).stat().st_mode) for n in names} == {0o644}
    (out / "requirements.txt").chmod(0o600)
    (out / "envcheck.env").unlink()
    (out / "envcheck.env").mkdir()  # one target cannot be written: nothing may change
    before = (out / "requirements.txt").read_bytes()
    r = envcheck(["fix", "--snapshot", snap, "--write-env", str(out), "--force"])
    assert r.returncode == 2 and (out / "requirements.txt").read_bytes() == before
    assert not [n for n in os.listdir(out) if n.startswith(".envcheck")]
    (out / "envcheck.env").rmdir()
    r = envcheck(["fix", "--snapshot", snap, "--write-env", str(out), "--force"])
    assert r.returncode == 0 and stat.S_IMODE((out / "requirements.txt").stat().st_mode) == 0o600


def test_write_files_holds_signals_during_the_renames(tmp_path):
    # the three renames run with SIGINT/SIGTERM held: a Ctrl-C arriving then is delivered after them
    code = ("import os, signal, envcheck.safe_io as s\n"
            "real = os.replace\n"
            "def rep(a, b):\n    real(a, b)\n    os.kill(os.getpid(), signal.SIGTERM)\n"
            "os.replace = rep\n"
            f"s.write_files({str(tmp_path / 'd')!r}, {{'a': b'1', 'b': b'2', 'c': b'3'}})\n")
    (tmp_path / "d").mkdir()
    r = subprocess.run([sys.executable, "-c", code], env=env_for(), timeout=60)
    assert r.returncode == -15
    assert sorted(os.listdir(tmp_path / "d")) == ["a", "b", "c"]


def test_snapshot_force_is_atomic_and_removes_only_its_own_files(tmp_path, snap):
    dest = tmp_path / "out"
    assert envcheck(["snapshot", str(dest), "--from", snap]).returncode == 0
    dest.chmod(0o750)
    ino = dest.stat().st_ino
    assert envcheck(["snapshot", str(dest), "--from", snap, "--force"]).returncode == 0
    assert dest.stat().st_ino != ino and stat.S_IMODE(dest.stat().st_mode) == 0o750
    assert sorted(os.listdir(tmp_path)) == ["out", "snap"]  # nothing left aside
    (dest / "nvcc.txt").mkdir()
    (dest / "nvcc.txt" / "thesis.tex").write_text("two years of work")
    r = envcheck(["snapshot", str(dest), "--from", snap, "--force"])
    assert r.returncode == 2 and (dest / "nvcc.txt" / "thesis.tex").read_text() == "two years of work"


def test_snapshot_files_follow_the_umask(tmp_path, snap):
    dest = tmp_path / "out"
    r = envcheck(["snapshot", str(dest), "--from", snap], preexec_fn=lambda: os.umask(0o027))
    assert r.returncode == 0
    assert stat.S_IMODE(dest.stat().st_mode) == 0o750
    assert {stat.S_IMODE((dest / n).stat().st_mode) for n in os.listdir(dest)} == {0o640}
    r = envcheck(["snapshot", str(dest), "--from", snap, "--archive"], preexec_fn=lambda: os.umask(0o022))
    assert r.returncode == 0 and stat.S_IMODE(os.stat(str(dest) + ".tar.gz").st_mode) == 0o644


# -- item 4: cache folders of another user -----------------------------------------------------

def _matrix_file():
    from envcheck.matrix import bundled_dir

    return os.path.join(bundled_dir(), "gpus.toml")


def _poison(cache_dir):
    from envcheck.matrix import _cache_path

    os.environ["ENVCHECK_CACHE_DIR"] = str(cache_dir)
    path = _cache_path(_matrix_file())
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump({"poisoned": True}, fh)
    return path


def test_own_cache_is_used(tmp_path, monkeypatch):
    from envcheck.matrix import load_cached

    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    _poison(cache)
    assert load_cached(_matrix_file()) == {"poisoned": True}  # the test can fail: a trusted cache is read


@needs_root
@pytest.mark.parametrize("how", ["other-owner", "world-writable"])
def test_a_foreign_cache_is_neither_read_nor_written(tmp_path, monkeypatch, how):
    from envcheck.matrix import load_cached

    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(cache))
    path = _poison(cache)
    if how == "other-owner":
        os.chown(cache, OTHER_UID, OTHER_UID)
    else:
        cache.chmod(0o777)
    assert "poisoned" not in load_cached(_matrix_file())
    assert json.load(open(path)) == {"poisoned": True}  # not rewritten either
    r = envcheck(["status", "--snapshot", str(tmp_path), "--json"], env=env_for(ENVCHECK_CACHE_DIR=str(cache)))
    assert r.returncode == 2  # (no snapshot there) but no crash
    bundle = tmp_path / "b.tar.gz"
    bundle.write_bytes(b"x")
    r = envcheck(["matrix", "update", "--from", str(bundle)], env=env_for(ENVCHECK_CACHE_DIR=str(cache)))
    assert r.returncode == 2
    assert not os.path.exists(cache / "matrix")


@needs_root
def test_a_planted_link_in_the_cache_is_not_written_through(tmp_path, monkeypatch):
    from envcheck.matrix import _cache_path, load_cached

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(cache))
    (cache / "parsed").mkdir(mode=0o700)
    path = _cache_path(_matrix_file())
    os.symlink(victim, path)  # a link to a file root can write
    assert "poisoned" not in load_cached(_matrix_file())
    assert victim.read_text() == "precious\n"
    os.unlink(path)
    os.rmdir(cache / "parsed")
    os.symlink(tmp_path, cache / "parsed")  # a linked sub-folder
    load_cached(_matrix_file())
    assert sorted(os.listdir(tmp_path)) == ["c", "victim"]


# -- item 5: no terminal control sequences from untrusted text ----------------------------------

EVIL = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b]0;pwned\x07\x9b31m\u202e"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_status_text_and_markdown_strip_control_sequences(tmp_path):
    files = gpu_machine("550.54.15", "12.4", [(f"NVIDIA A100{EVIL}", 81920)])
    files["nvml.json"] = {"driver_version": "550.54.15", "gpus": [{"name": f"GPU{EVIL}"}]}
    files["meta.json"] = {"schema": "envcheck/snapshot/1", "hostname": f"node{EVIL}"}
    files["libraries.txt"] = f"/opt/{EVIL}/libcudnn.so.8\n"
    files["environ.json"] = {"CUDA_HOME": f"/x{EVIL}", "CUDA_VISIBLE_DEVICES": EVIL}
    files.update(torch_install(f"2.5.1{EVIL}", "12.4"))
    snap = make_snapshot(str(tmp_path / "s"), files)
    for fmt in ([], ["--markdown"]):
        r = envcheck(["status", "--snapshot", snap, *fmt])
        out = r.stdout.decode("utf-8")
        assert r.returncode in (0, 1) and "node" in out
        assert not CONTROL.search(out), repr(CONTROL.findall(out))
    r = envcheck(["status", "--snapshot", snap, "--json"])
    assert json.loads(r.stdout)["hostname"] == f"node{EVIL}"  # JSON stays exact


def test_explain_and_run_strip_control_sequences_from_log_lines(tmp_path):
    log = tmp_path / "log"
    log.write_text(f"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED {EVIL}\n")
    for fmt in ([], ["--markdown"]):
        r = envcheck(["explain", str(log), "--no-detect", *fmt])
        assert r.returncode == 0 and not CONTROL.search(r.stdout.decode()), r.stdout
    r = envcheck(["run", "--mode", "off", "--", "sh", "-c", f"cat {log} >&2; exit 1"])
    diag = r.stderr.decode().split("envcheck run:", 1)[1]
    assert "cudnn-not-initialized" in diag and not CONTROL.search(diag)


def test_error_messages_strip_control_sequences(tmp_path):
    bad = tmp_path / f"x{EVIL}"
    r = envcheck(["status", "--snapshot", str(bad)])
    assert r.returncode == 2 and not CONTROL.search(r.stderr.decode())


# -- item 7: reads never block -------------------------------------------------------------------

def test_fifo_in_a_snapshot_is_refused_not_waited_on(tmp_path, snap):
    os.mkfifo(os.path.join(snap, "nvcc.txt"))
    t = time.monotonic()
    r = envcheck(["status", "--snapshot", snap], timeout=30)
    assert r.returncode == 2 and b"FIFO" in r.stderr and time.monotonic() - t < 20


@pytest.mark.parametrize("kind", ["fifo", "stdin-link"])
def test_cuda_home_version_json_that_would_block(tmp_path, kind):
    home = tmp_path / "cuda"
    home.mkdir()
    if kind == "fifo":
        os.mkfifo(home / "version.json")
    else:
        os.symlink("/proc/self/fd/0", home / "version.json")
    # stdin is a pipe kept open and silent: reading it would wait for ever
    p = subprocess.Popen([sys.executable, "-m", "envcheck", "status", "--json"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env_for(CUDA_HOME=str(home), ENVCHECK_PROBE_TIMEOUT="5"))
    try:
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode in (0, 1), err
    problems = json.loads(out)["problems"]
    assert any("version.json" in (x["detail"] or "") and "not a regular file" in x["detail"] for x in problems), problems


def test_matrix_update_from_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "f")
    r = envcheck(["matrix", "update", "--from", str(tmp_path / "f")], timeout=30)
    assert r.returncode == 2 and b"FIFO" in r.stderr


def test_read_text_reads_proc_pseudo_files_and_refuses_devices():
    from envcheck.proc import OK, UNREADABLE, read_text

    c = read_text("/proc/self/status")  # size 0 in stat, yet it has content
    assert c.status == OK and "Pid:" in (c.text or "")
    c = read_text("/dev/zero")
    assert c.status == UNREADABLE and "character device" in c.detail
    assert read_text("/proc/self/status", max_bytes=10).text == c.text or len(read_text("/proc/self/status",
                                                                                          max_bytes=10).text) == 10


# -- item 8: no exit 70 on bad input -------------------------------------------------------------

@pytest.mark.parametrize("key", ["meta.json", "captures.json", "nvml.json", "torch.json", "packages.json"])
def test_deeply_nested_json(tmp_path, snap, key):
    with open(os.path.join(snap, key), "w") as fh:
        fh.write("[" * 100000)
    r = envcheck(["status", "--snapshot", snap, "--json"])
    assert r.returncode in ((2,) if key == "meta.json" else (0, 1)), r.stderr
    if key != "meta.json":
        json.loads(r.stdout)


def test_deeply_nested_interpreter_answer(tmp_path):
    py = tmp_path / "python3"
    py.write_text("#!/bin/sh\nprintf '%100000s' '' | tr ' ' '['\n")
    py.chmod(0o755)
    r = envcheck(["status", "--json", "--interpreter", str(py)], env=env_for(ENVCHECK_PROBE_TIMEOUT="5"))
    assert r.returncode in (0, 1), r.stderr
    assert any("printed no interpreter facts" in (p["detail"] or "") for p in json.loads(r.stdout)["problems"])


@pytest.mark.parametrize("version", ["1e9", "12.", "", "latest", "2.5.1+cu124+x", "0" * 5000])
def test_fix_with_a_non_pep440_installed_version(tmp_path, version):
    files = {**gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-80GB", 81920)]),
             **torch_install(version, "12.4")}
    files["packages.json"] = {"torch": version, "nvidia-cudnn-cu12": "12."}
    snap = make_snapshot(str(tmp_path / "s"), files)
    for cmd in (["fix"], ["fix", "--json"], ["status"]):
        r = envcheck([*cmd, "--snapshot", snap])
        assert r.returncode in (0, 1) or b"nothing to plan" in r.stderr, (cmd, r.stderr)


def test_non_utf8_library_paths_survive_snapshot_and_json(tmp_path):
    libdir = os.path.join(os.fsencode(str(tmp_path)), b"lib\xff\xfe")
    os.makedirs(libdir)
    open(os.path.join(libdir, b"libcudnn.so.8"), "w").close()
    env = env_for()
    env_b = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    env_b[b"LD_LIBRARY_PATH"] = libdir
    dest = str(tmp_path / "snap")
    r = subprocess.run([sys.executable, "-m", "envcheck", "snapshot", dest], env=env_b, capture_output=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(dest, "libraries.txt"), "rb") as fh:
        assert os.path.join(libdir, b"libcudnn.so.8") in fh.read().splitlines()  # the bytes as they were
    r = envcheck(["status", "--snapshot", dest, "--json"])
    _assert_strict_json(r.stdout)
    assert any("lib\ufffd\ufffd" in c["path"] for c in json.loads(r.stdout)["cudnn"])
    r = envcheck(["status", "--snapshot", dest])
    assert r.returncode in (0, 1) and "lib\ufffd\ufffd/libcudnn.so.8" in r.stdout.decode("utf-8")


def _assert_strict_json(raw: bytes):
    doc = json.loads(raw.decode("utf-8"))
    stack = [doc]
    while stack:  # a strict parser rejects lone surrogates; Python's accepts them, so look
        v = stack.pop()
        if isinstance(v, str):
            v.encode("utf-8")
        elif isinstance(v, dict):
            stack += list(v.keys()) + list(v.values())
        elif isinstance(v, list):
            stack += v


def test_json_output_has_no_lone_surrogates(tmp_path, snap):
    with open(os.path.join(snap, "environ.json"), "w") as fh:
        fh.write('{"CUDA_HOME": "/x\\ud800y", "LD_LIBRARY_PATH": "/a\\udcffb", "NOTE": "ok \\ud83d\\ude00"}')
    with open(os.path.join(snap, "libraries.txt"), "wb") as fh:
        fh.write(b"/opt/\xff\xfe/libcudnn.so.8\n")
    r = envcheck(["status", "--snapshot", snap, "--json"])
    assert r.returncode in (0, 1)
    _assert_strict_json(r.stdout)
    rep = tmp_path / "r.json"
    assert envcheck(["status", "--snapshot", snap, "--report", str(rep), "-q"]).returncode in (0, 1)
    _assert_strict_json(rep.read_bytes())


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["fix"], ["explain", "--no-detect", "-"]])
def test_output_to_a_full_disk_is_a_clear_error(snap, args):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    if args[0] != "explain":
        args = args + ["--snapshot", snap]
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "envcheck", *args], stdout=full, stderr=subprocess.PIPE,
                           input=b"CUDNN_STATUS_NOT_INITIALIZED\n", env=env_for(), timeout=60)
    assert r.returncode == 2, r.stderr
    assert b"cannot write the output: No space left on device" in r.stderr and b"internal error" not in r.stderr


# -- item 9: bounded time and memory -------------------------------------------------------------

# peak RSS of the envcheck process itself: VmHWM (ru_maxrss would carry pytest's own over the exec)
_MEASURE = ("import sys, time\nfrom envcheck.cli import main\nt = time.monotonic()\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "hwm = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')][0]\n"
            "sys.stderr.write('\\nRESULT %s %.2f %d\\n' % (code, time.monotonic() - t, hwm // 1024))\n")


def measured(args):
    r = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, env=env_for(), timeout=120)
    code, secs, mib = r.stderr.decode().rsplit("RESULT ", 1)[1].split()
    return int(code), float(secs), int(mib), r


def _tar(members, compress=True) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if isinstance(data, int):
                info.size = data

                class Zeros:
                    def read(self, n):
                        return b"\0" * n
                tf.addfile(info, Zeros())
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), 9) if compress else buf.getvalue()


META = json.dumps({"schema": "envcheck/snapshot/1"}).encode()


def test_archive_bomb_is_cut_short(tmp_path):
    p = tmp_path / "bomb.tar.gz"
    p.write_bytes(_tar([("s/meta.json", META), ("s/filler", 1 << 30)]))  # 1 GiB of zeros, ~1 MB packed
    code, secs, mib, r = measured(["status", "--snapshot", str(p)])
    assert code == 2 and b"unpacks to more than" in r.stderr
    assert secs < 10 and mib < 200, (secs, mib)


def test_archive_of_many_members_and_duplicates(tmp_path):
    big = b"/usr/lib/libcudnn.so.8\n" * ((15 << 20) // 23)
    members = [("s/meta.json", META)] + [(f"s{i}/libraries.txt", big) for i in range(8)]
    p = tmp_path / "dup.tar.gz"
    p.write_bytes(_tar(members))
    code, secs, mib, r = measured(["status", "--snapshot", str(p)])
    assert code in (0, 1, 2) and secs < 10 and mib < 250, (code, secs, mib, r.stderr[-300:])
    p2 = tmp_path / "many.tar"
    p2.write_bytes(_tar([("s/meta.json", META)] + [(f"s/x{i}", b"") for i in range(6000)], compress=False))
    code, secs, mib, r = measured(["status", "--snapshot", str(p2)])
    assert code == 2 and b"members" in r.stderr and secs < 10


@pytest.mark.parametrize("key,line", [("libraries.txt", "/opt/lib{i}/libcudnn_ops.so.9.{i}\n"),
                                      ("ldconfig.txt", "\tlibcudnn.so.{i} (libc6,x86-64) => /l{i}/libcudnn.so.{i}\n"),
                                      ("nvidia-smi-query.csv", "{i}, NVIDIA A100, 550.54.15, 8.0, 81920 MiB\n")])
def test_huge_captures_are_refused_as_unreadable(tmp_path, key, line):
    lines = []
    size = 0
    i = 0
    while size < (3 << 20):
        s = line.format(i=i)
        lines.append(s)
        size += len(s)
        i += 1
    snap = make_snapshot(str(tmp_path / "s"), {key: "".join(lines)})
    code, secs, mib, r = measured(["status", "--snapshot", snap, "--json"])
    assert code in (0, 1), r.stderr
    assert secs < 10 and mib < 200, (secs, mib)
    rep = json.loads(r.stdout)
    assert any(p["capture"] == key and "far more than a real capture" in p["detail"] for p in rep["problems"])


def test_snapshot_total_is_capped(tmp_path):
    files = {k: "x" * ((15 << 20)) for k in ("ldconfig.txt", "libraries.txt", "packages.json", "environ.json")}
    snap = make_snapshot(str(tmp_path / "s"), files)
    code, secs, mib, r = measured(["status", "--snapshot", snap])
    assert code == 2 and b"more than" in r.stderr and mib < 200


# -- item 13: an unreadable folder says so --------------------------------------------------------

def test_unreadable_snapshot_folder_says_permission_denied(snap):
    from envcheck.errors import SnapshotError
    from envcheck.snapshot import open_snapshot

    base = tempfile.mkdtemp(prefix="envcheck-perm-")
    try:
        os.chmod(base, 0o755)
        s = os.path.join(base, "snap")
        shutil.copytree(snap, s)
        os.chmod(s, 0o000)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child: as nobody (root reads everything)
            msg = "no error"
            try:
                if IS_ROOT:
                    os.setgid(65534)
                    os.setuid(65534)
                open_snapshot(s)
            except SnapshotError as exc:
                msg = str(exc)
            except BaseException as exc:  # noqa: BLE001
                msg = f"{type(exc).__name__}: {exc}"
            os.write(wfd, msg.encode())
            os._exit(0)
        os.close(wfd)
        msg = os.read(rfd, 4096).decode()
        os.waitpid(pid, 0)
        assert "permission denied" in msg and "holds none" not in msg, msg
    finally:
        shutil.rmtree(base, ignore_errors=True)
