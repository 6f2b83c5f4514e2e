"""The one subprocess/file helper, with real fake executables."""

import os
import stat
import time

from envcheck.proc import FAILED, NOT_FOUND, OK, TIMED_OUT, UNREADABLE, read_text, run_command


def make_exe(d, name, body):
    p = d / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(p)


def test_ok_passes_exact_argv_and_c_locale(tmp_path):
    exe = make_exe(tmp_path, "tool", 'printf "%s|" "$@"; echo "LC_ALL=$LC_ALL"')
    c = run_command([exe, "--query-gpu=a,b", "two words"], timeout=5)
    assert c.status == OK and c.returncode == 0
    assert c.text == "--query-gpu=a,b|two words|LC_ALL=C\n"
    assert c.argv == (exe, "--query-gpu=a,b", "two words")


def test_not_found():
    c = run_command(["envcheck-no-such-tool-xyz"], timeout=5)
    assert c.status == NOT_FOUND and c.text is None
    c = run_command(["/nonexistent/dir/nvidia-smi"], timeout=5)
    assert c.status == NOT_FOUND


def test_exit_status_9_keeps_text(tmp_path):
    exe = make_exe(tmp_path, "nvidia-smi", 'echo "NVIDIA-SMI has failed because it couldn\'t communicate"; exit 9')
    c = run_command([exe], timeout=5)
    assert c.status == FAILED and c.returncode == 9
    assert "couldn't communicate" in c.text and "exit status 9" in c.detail


def test_stderr_is_kept_on_failure(tmp_path):
    exe = make_exe(tmp_path, "t", 'echo oops >&2; exit 3')
    c = run_command([exe], timeout=5)
    assert c.status == FAILED and "oops" in c.text


def test_hang_is_killed_with_its_children(tmp_path):
    marker = tmp_path / "child-alive"
    exe = make_exe(tmp_path, "hang", f'(sleep 30; touch {marker}) & sleep 30')
    t0 = time.monotonic()
    c = run_command([exe], timeout=0.5)
    assert c.status == TIMED_OUT and c.text is None
    assert time.monotonic() - t0 < 5
    assert "0.5" in c.detail


def test_crash_by_signal(tmp_path):
    exe = make_exe(tmp_path, "crash", "kill -SEGV $$")
    c = run_command([exe], timeout=5)
    assert c.status == FAILED and "SIGSEGV" in c.detail


def test_endless_output_is_bounded(tmp_path, monkeypatch):
    import envcheck.proc as r

    monkeypatch.setattr(r, "MAX_OUTPUT", 10000)
    exe = make_exe(tmp_path, "babble", "yes garbage")
    c = r.run_command([exe], timeout=10)
    assert c.status == FAILED and "more than" in c.detail
    assert len(c.text) == 10000


def test_binary_garbage_is_decoded(tmp_path):
    exe = make_exe(tmp_path, "garbage", r"printf '\377\376\000abc'")
    c = run_command([exe], timeout=5)
    assert c.status == OK and "abc" in c.text


def test_not_executable(tmp_path):
    p = tmp_path / "noexec"
    p.write_text("#!/bin/sh\necho hi\n")
    c = run_command([str(p)], timeout=5)
    assert c.status == FAILED and "cannot run" in c.detail


def test_read_text_cases(tmp_path):
    f = tmp_path / "version"
    f.write_text("535.104.05\n")
    assert read_text(str(f)).text == "535.104.05\n"
    assert read_text(str(tmp_path / "missing")).status == NOT_FOUND
    link = tmp_path / "broken"
    os.symlink(str(tmp_path / "nowhere"), str(link))
    c = read_text(str(link))
    assert c.status == NOT_FOUND and "broken symbolic link" in c.detail
    assert read_text(str(tmp_path)).status == UNREADABLE
