"""benchmarks/explain_throughput.py: the logs made from tests/data/logs (the stress log of --real, the real lines of
the generated training log) come from fixed, pinned lists of files with their sha256 (issue 24: figures that compare
across sessions); a pinned file changed or gone is said, never silently used."""

from __future__ import annotations

import hashlib
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bench():
    spec = importlib.util.spec_from_file_location("explain_throughput_pinned_under_test",
                                                  os.path.join(ROOT, "benchmarks", "explain_throughput.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_pinned_lists_are_failure_logs_by_path_and_match_the_files_here():
    et = _bench()
    stress = et.pinned_list(et.STRESS_FILES)
    training = et.pinned_list(et.TRAINING_FILES)
    for rows in (stress, training):
        paths = [p for _, p in rows]
        assert paths == sorted(set(paths))  # by path, each once
        assert all(p.startswith("tests/data/logs/") and p.endswith(".log") for p in paths)  # no README, no manifest
        assert all(len(d) == 64 and int(d, 16) >= 0 for d, _ in rows)
    assert len(stress) >= 1000
    # the training log draws from the logs directly in tests/data/logs, each pinned in the stress list too
    assert all(p.count("/") == 3 for _, p in training) and set(training) <= set(stress)
    try:
        got = et.pinned_files(et.STRESS_FILES)
    except et.PinnedChanged as e:  # a data batch edited or removed a pinned log
        pytest.fail(f"{e}. Restore the file, or re-pin with `python benchmarks/explain_throughput.py --repin` and say "
                    f"in benchmarks/README.md that the stress log changed")
    assert len(got) == len(stress)
    assert [hashlib.sha256(x).hexdigest() for x in got] == [d for d, _ in stress]


def _pinned_copy(et, tmp_path, n=4):
    """A root holding the first ``n`` pinned logs and a list of them."""
    rows = et.pinned_list(et.STRESS_FILES)[:n]
    for _, p in rows:
        dest = tmp_path / p
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(os.path.join(ROOT, p), "rb") as fh:
            dest.write_bytes(fh.read())
    listing = tmp_path / "list.txt"
    listing.write_text("# a note\n" + "".join(f"{d}  {p}\n" for d, p in rows), encoding="utf-8")
    return rows, str(listing)


def test_a_changed_or_gone_pinned_file_is_said_not_used(tmp_path):
    et = _bench()
    rows, listing = _pinned_copy(et, tmp_path)
    got = et.pinned_files(listing, root=str(tmp_path))
    assert len(got) == 4
    changed, gone = rows[1][1], rows[2][1]
    with open(tmp_path / changed, "ab") as fh:
        fh.write(b"one more line\n")
    os.unlink(tmp_path / gone)
    with pytest.raises(et.PinnedChanged) as e:
        et.pinned_files(listing, root=str(tmp_path))
    assert f"{changed} (changed)" in str(e.value) and f"{gone} (gone)" in str(e.value)
    assert rows[0][1] not in str(e.value) and rows[3][1] not in str(e.value)
    # re-pinning takes the file as it is now and drops the one gone; the notes stay
    assert et.repin(listing, root=str(tmp_path)) == 2
    again = et.pinned_list(listing)
    assert [p for _, p in again] == [rows[0][1], changed, rows[3][1]]
    assert open(listing, encoding="utf-8").read().startswith("# a note\n")
    assert et.pinned_files(listing, root=str(tmp_path))[1].endswith(b"one more line\n")


def test_the_stress_log_is_the_pinned_logs_back_to_back_in_their_order(tmp_path):
    et = _bench()
    one = b"".join(d if d.endswith(b"\n") else d + b"\n" for d in et.pinned_files(et.STRESS_FILES))
    path = tmp_path / "stress.log"
    et.write_real_log(str(path), 2.5 * len(one) / (1024 * 1024))
    data = path.read_bytes()
    assert data == one * 3  # whole copies, over and over, up to the size asked for


def test_the_training_log_draws_its_real_lines_from_the_pinned_logs_only():
    et = _bench()
    lines = et.real_lines()
    pinned = set()
    for data in et.pinned_files(et.TRAINING_FILES):
        pinned.update(x.strip() for x in data.decode("utf-8", "replace").replace("\r", "\n").split("\n"))
    assert lines and all(x.strip() in pinned for x in lines)
    assert all(x.strip() for x in lines)
