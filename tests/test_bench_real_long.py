"""benchmarks/explain_throughput.py --real-long: the log of real shapes is made of the real long logs of
benchmarks/data/real-long, unedited, each one cited in that folder's README.md (issue 24)."""

from __future__ import annotations

import gzip
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "benchmarks", "data", "real-long")


def _bench():
    spec = importlib.util.spec_from_file_location("explain_throughput_under_test",
                                                  os.path.join(ROOT, "benchmarks", "explain_throughput.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _logs():
    return sorted(f for f in os.listdir(DATA) if f.endswith(".log.gz"))


def test_each_real_long_log_is_long_and_cited_with_its_source_and_licence():
    names = _logs()
    assert len(names) >= 6
    readme = open(os.path.join(DATA, "README.md"), encoding="utf-8").read()
    rows = {line.split("`")[1]: line for line in readme.splitlines() if line.startswith("| `")}
    assert set(rows) == set(names)
    for name in names:
        with gzip.open(os.path.join(DATA, name), "rb") as fh:
            size = len(fh.read())
        assert size >= 200 * 1000, name
        row = rows[name]
        assert "https://github.com/" in row and "/blob/" in row, name  # the source, at a commit
        assert "Apache-2.0" in row or "MIT" in row, name
        assert f"{size:,} B" in row, name  # the size as published: the file is the whole log
    total = sum(os.path.getsize(os.path.join(DATA, n)) for n in names)
    assert total <= 8 * 1000 * 1000


def test_the_real_long_log_is_the_logs_back_to_back_cut_at_a_line_end(tmp_path):
    et = _bench()
    logs = et.real_long_logs()
    joined = b"".join(data for _, data in logs)
    assert [n for n, _ in logs] == [n[:-3] for n in _logs()]
    small = tmp_path / "small.log"
    et.write_real_long_log(str(small), 0.5)
    got = small.read_bytes()
    assert len(got) >= 0.5 * 1024 * 1024 and got.endswith(b"\n")
    assert joined.startswith(got)  # the first logs in their order, nothing changed
    target = int(0.5 * 1024 * 1024)
    assert b"\n" not in got[target - 1:-1]  # cut at the first line end at or after the size asked for
    big = tmp_path / "big.log"
    et.write_real_long_log(str(big), 1.5 * len(joined) / (1024 * 1024))
    data = big.read_bytes()
    assert data.startswith(joined + joined[: len(data) - len(joined)])  # over again from the first log
    assert len(data) >= 1.5 * len(joined) and data.endswith(b"\n")
    lines = set(joined.split(b"\n"))
    assert all(x in lines for x in data.split(b"\n"))
