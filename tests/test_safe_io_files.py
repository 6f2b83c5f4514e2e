"""One home for the files envcheck writes (envcheck/safe_io.py): the matrix cache's ``current``, rollback
floor and parsed tables, the snapshot folder's files and the installed bundle's files all go through
:func:`replace_file` / :func:`create_file`, with the modes each needs; a rule keeps new copies out."""

import json
import os
import re
import stat

import pytest

from envcheck.safe_io import create_file, replace_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "envcheck")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_replace_file_is_0600_by_default_and_replaces(tmp_path):
    p = tmp_path / "current"
    replace_file(str(p), b"matrix-2026.11.22\n")
    assert p.read_bytes() == b"matrix-2026.11.22\n" and mode(p) == 0o600
    p.chmod(0o644)
    replace_file(str(p), b"matrix-2026.11.23\n", 0o640, sync=False)
    assert p.read_bytes() == b"matrix-2026.11.23\n" and mode(p) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["current"]  # no temporary file left


def test_replace_file_replaces_a_planted_link_not_its_target(tmp_path):
    target = tmp_path / "victim"
    target.write_text("keep me")
    link = tmp_path / "current"
    link.symlink_to(target)
    replace_file(str(link), b"new")
    assert target.read_text() == "keep me" and not link.is_symlink() and link.read_bytes() == b"new"


def test_replace_file_failing_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    p = tmp_path / "floor.json"
    p.write_text("old")

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        replace_file(str(p), b"new")
    assert p.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["floor.json"]


def test_create_file_never_over_a_file_or_through_a_link(tmp_path):
    (tmp_path / "a").write_text("x")
    with pytest.raises(FileExistsError):
        create_file(str(tmp_path / "a"), b"y", 0o644)
    (tmp_path / "l").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        create_file(str(tmp_path / "l"), b"y", 0o644)
    assert not (tmp_path / "elsewhere").exists()
    create_file(str(tmp_path / "b"), b"z", 0o640)
    assert (tmp_path / "b").read_bytes() == b"z" and mode(tmp_path / "b") == 0o640


def test_matrix_cache_files_are_private(tmp_path, monkeypatch):
    """The parsed-table cache (load_matrix) and an installed bundle's ``current`` and floor are 0600;
    the installed tables follow the umask inside the 0700 folder."""
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    from envcheck.matrix import Matrix, bundled_dir

    Matrix(bundled_dir()).rows("torch", "release")
    parsed = tmp_path / "cache" / "parsed"
    names = os.listdir(parsed)
    assert names and all(n.endswith(".json") for n in names), names
    assert {mode(parsed / n) for n in names} == {0o600}
    json.loads((parsed / names[0]).read_text())


def test_no_other_atomic_write_helper_in_the_package():
    """Files are replaced (os.replace), staged (mkstemp, NamedTemporaryFile) or created exclusively
    (O_EXCL) only in safe_io.py. plan/apply.py swaps a whole virtual environment (folders, its journal):
    listed here until that code moves."""
    allowed = {os.path.join(PKG, "safe_io.py"), os.path.join(PKG, "plan", "apply.py")}
    rx = re.compile(r"\bos\.replace\(|\bmkstemp\(|NamedTemporaryFile\(|\bO_EXCL\b")
    found = []
    for d, _, files in os.walk(PKG):
        for f in files:
            path = os.path.join(d, f)
            if f.endswith(".py") and path not in allowed:
                with open(path, encoding="utf-8") as fh:
                    found += [f"{os.path.relpath(path, ROOT)}:{i}" for i, line in enumerate(fh, 1) if rx.search(line)]
    assert not found, found
