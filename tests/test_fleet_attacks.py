"""Hostile fleet inputs (issue 10): deep nesting, huge stdin, byte caps, symbolic link loops, FIFOs,
1,000-deep folders, archive bombs; and the stream decoder's edges (chunk boundaries, resync).
Every case runs the real CLI in a child process; none may crash (exit 70 / Traceback), hang or grow
memory with the input."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import re
import socket
import subprocess
import sys
import tarfile
import time

import pytest

from envcheck.fleet.read import MAX_JSON_DEPTH, Reader, bytes_reader, nesting_depth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")


def report(host, ok=True, created="2026-11-22T10:00:00Z", **extra):
    """A status report in the §2 shape (as `envcheck status --json` writes it: "schema" first)."""
    rep = {"schema": "envcheck/report/1", "envcheck": "0.1.0", "hostname": host, "created": created,
           "matrix_version": "2026.11.22", "ok": ok,
           "driver": {"version": "550.54.15", "cuda": "12.4"},
           "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "memory_mib": 81559}],
           "toolkit": {"version": None, "nvcc": None},
           "cudnn": [{"version": "9.1.0", "path": "/x/libcudnn.so.9", "source": "pip"}],
           "python": {"version": "3.11.7"},
           "frameworks": {"torch": {"version": "2.5.1+cu124", "cuda": "12.4", "cudnn": "9.1.0"}},
           "findings": [] if ok else [{"id": "driver-too-old", "severity": "error", "message": "old", "fix": "upgrade"}]}
    rep.update(extra)
    return rep


def run(args, stdin=None, timeout=120, **kw):
    r = subprocess.run([sys.executable, "-m", "envcheck", "fleet", "summarize", *args], input=stdin,
                       capture_output=True, env=ENV, timeout=timeout, **kw)
    assert b"Traceback" not in r.stderr and r.returncode != 70, r.stderr.decode()[-3000:]
    return r


def summary(args, stdin=None, **kw):
    r = run([*args, "--json"], stdin=stdin, **kw)
    return r.returncode, json.loads(r.stdout), r.stderr.decode()


def reasons(s):
    return {os.path.basename(u["input"]): u["reason"] for u in s["unreadable_reasons"]}


# -- nesting ------------------------------------------------------------------------------------

def _ref_depth(v):
    if isinstance(v, list):
        return 1 + max((_ref_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((_ref_depth(x) for x in v.values()), default=0)
    return 0


def _random_json(rng, depth=0):
    k = rng.random()
    if depth > 12 or k < 0.3:
        return rng.choice([1, 2.5, None, True, "a[b]{c}", 'q"[[[', "\\]]", ""])
    if k < 0.65:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {f"k{i}[": _random_json(rng, depth + 1) for i in range(rng.randint(0, 3))}


def test_nesting_depth_matches_a_recursive_count_and_ignores_brackets_in_strings():
    rng = random.Random(7)
    for _ in range(500):
        v = _random_json(rng)
        assert nesting_depth(json.dumps(v)) == _ref_depth(v)
    assert nesting_depth("[" * 100000) == MAX_JSON_DEPTH + 1  # unbalanced counts as open levels
    assert nesting_depth('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}') == 1
    assert nesting_depth("[" * 64 + "]" * 64) == 64 and nesting_depth("[" * 65 + "]" * 65) == 65


@pytest.mark.parametrize("bomb", ["[" * 100000, "{\"a\":" * 100000, "[" * 100000 + "]" * 100000], ids=["open", "objects", "balanced"])
def test_deeply_nested_json_is_unreadable_not_a_crash(tmp_path, bomb):
    d = tmp_path / "r"
    d.mkdir()
    for i in range(3):
        (d / f"n{i}.json").write_text(json.dumps(report(f"n{i}")))
    (d / "deep.json").write_text(bomb)
    # within the recursion limit but deeper than a report ever nests: refused too
    (d / "deep2.json").write_text(json.dumps(report("n9", notes=[[[[[]]]]] * 2, x=json.loads("[" * 70 + "]" * 70))))
    code, s, err = summary([str(d)])
    assert code == 1 and s["nodes"] == 3 and s["failing"] == []
    why = reasons(s)
    assert "nested deeper" in why["deep.json"] and "nested deeper" in why["deep2.json"], why
    # the same on stdin, between good reports, and inside an archive
    stream = json.dumps(report("a")) + "\n" + bomb + "\n" + json.dumps(report("b")) + "\n"
    code, s, _ = summary(["-"], stdin=stream.encode())
    assert s["nodes"] >= 1 and "a" in s["per_node"] and s["unreadable"] and code == 1
    tgz = tmp_path / "x.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        for name, text in (("r/deep.json", bomb), ("r/ok.json", json.dumps(report("ok")))):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    code, s, _ = summary([str(tgz)])
    assert s["nodes"] == 1 and "nested deeper" in reasons(s)["deep.json"]


# -- streaming, caps ----------------------------------------------------------------------------

_HWM = ("import atexit, runpy, sys\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            sys.stderr.write('\\nPEAK ' + line.split()[1] + '\\n')\n"
        "atexit.register(hwm)\n"
        "sys.argv = ['envcheck'] + sys.argv[1:]\n"
        "runpy.run_module('envcheck', run_name='__main__')\n")


def _rss_run(args, producer_bytes, chunk):
    """Run summarize with ``producer_bytes`` of JSON lines written to its stdin; (peak RSS MiB, summary).
    The peak is the child's own VmHWM (reset by exec), not ru_maxrss, which keeps the size of the
    (large) test process it was forked from."""
    p = subprocess.Popen([sys.executable, "-c", _HWM, "fleet", "summarize", *args, "--json", "-q"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    import threading

    out = {}

    def drain():
        out["stdout"] = p.stdout.read()
        out["stderr"] = p.stderr.read()

    t = threading.Thread(target=drain)
    t.start()
    sent = 0
    try:
        while sent < producer_bytes:
            p.stdin.write(chunk)
            sent += len(chunk)
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.wait()
    t.join()
    assert b"Traceback" not in out["stderr"], out["stderr"][-2000:]
    peak = int(re.search(rb"PEAK (\d+)", out["stderr"]).group(1)) / 1024
    return peak, json.loads(out["stdout"]), p.returncode


def test_stdin_is_streamed_memory_stays_flat():
    # 1,000 distinct nodes, reported over and over (an hourly log of JSON lines)
    lines = "".join(json.dumps(report(f"gpu{i:04d}", created=f"2026-11-22T{i % 24:02d}:00:00Z")) + "\n"
                    for i in range(1000)).encode()
    small_rss, s_small, code = _rss_run(["-"], 8 * 1024 * 1024, lines)
    assert code == 0 and s_small["nodes"] == 1000
    t0 = time.monotonic()
    big_rss, s_big, code = _rss_run(["-"], 96 * 1024 * 1024, lines)
    took = time.monotonic() - t0
    assert code == 0 and s_big["nodes"] == 1000 and s_big["bytes_read"] >= 96 * 1024 * 1024
    assert s_big["duplicates"][0]["dropped_count"] > 100
    # 12x the input, the same memory (the old reader held all the text plus every parsed report)
    assert big_rss < small_rss + 40, (small_rss, big_rss)
    assert big_rss < 200, big_rss
    print(f"stdin 8 MiB: peak RSS {small_rss:.0f} MiB; 96 MiB: {big_rss:.0f} MiB in {took:.1f} s")


def test_total_byte_cap(tmp_path):
    line = (json.dumps(report("x")) + "\n").encode()
    code, s, err = summary(["-", "--max-bytes", "64K"], stdin=line * 200)
    assert code == 1 and s["nodes"] == 1
    assert "input limit" in reasons(s)["stdin"] and s["bytes_read"] <= 64 * 1024 + (1 << 20)
    # inputs after the limit are listed, not read
    (tmp_path / "later.json").write_text(json.dumps(report("later")))
    code, s, _ = summary(["-", str(tmp_path / "later.json"), "--max-bytes", "64K"], stdin=line * 200)
    assert "later" not in s["per_node"] and "limit" in reasons(s)["later.json"]
    assert run(["-", "--max-bytes", "lots"], stdin=b"").returncode == 2


def test_archive_bombs_are_bounded(tmp_path):
    # a member that inflates to 20 MiB (compressed: 20 KiB) is refused by its size
    bomb = tmp_path / "bomb.tar.gz"
    with tarfile.open(bomb, "w:gz") as tf:
        data = json.dumps(report("fine")).encode()
        info = tarfile.TarInfo("r/fine.json")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("r/huge.json")
        info.size = 20 * 1024 * 1024
        tf.addfile(info, io.BytesIO(b" " * info.size))
    t0 = time.monotonic()
    code, s, _ = summary([str(bomb)])
    assert time.monotonic() - t0 < 60
    assert s["nodes"] == 1 and "larger than" in reasons(s)["huge.json"]
    # many small members past the run's byte limit
    many = tmp_path / "many.tar.gz"
    with tarfile.open(many, "w:gz") as tf:
        data = json.dumps(report("n")).encode()
        for i in range(400):
            info = tarfile.TarInfo(f"r/n{i}.json")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    code, s, _ = summary([str(many), "--max-bytes", "100K"])
    assert code == 1 and any("input limit" in u["reason"] for u in s["unreadable_reasons"])


def test_gzip_garbage_and_fake_tar(tmp_path):
    (tmp_path / "a.tar.gz").write_bytes(gzip.compress(b"not a tar at all" * 100))
    (tmp_path / "b.json").write_bytes(b"\x1f\x8b" + os.urandom(200))
    code, s, _ = summary([str(tmp_path / "a.tar.gz"), str(tmp_path / "b.json")])
    assert code == 2 and s["nodes"] == 0 and len(s["unreadable"]) == 2


# -- files that are not regular files ---------------------------------------------------------

def _rmdeep(bottom):
    """Remove a 1,000-deep chain bottom-up (shutil.rmtree, pytest's cleanup included, recurses)."""
    path = bottom
    while os.path.basename(path) == "d":
        for name in os.listdir(path):
            if not os.path.isdir(os.path.join(path, name)):
                os.unlink(os.path.join(path, name))
        os.rmdir(path)
        path = os.path.dirname(path)


def test_links_fifos_sockets_and_deep_folders_are_listed(tmp_path):
    d = tmp_path / "reports"
    d.mkdir()
    (d / "good.json").write_text(json.dumps(report("good")))
    os.symlink("loop.json", d / "loop.json")  # a link to itself
    os.symlink(".", d / "again")  # a folder link back to its own folder
    os.symlink("missing.json", d / "dangling.json")
    os.symlink("good.json", d / "alias.json")
    os.mkfifo(d / "fifo.json")  # nobody writes to it: opening it for reading would block
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock.json"))
    deep = str(d)
    for _ in range(1000):  # (os.makedirs recurses: one mkdir at a time)
        deep += "/d"
        os.mkdir(deep)
    deep = d / deep[len(str(d)) + 1:]
    (deep / "bottom.json").write_text(json.dumps(report("bottom")))
    shallow = d / "d" / "d" / "d"
    (shallow / "three.json").write_text(json.dumps(report("three")))
    try:
        t0 = time.monotonic()
        code, s, err = summary([str(d)], timeout=60)
    finally:
        sock.close()
        _rmdeep(str(deep))
    assert time.monotonic() - t0 < 30
    assert code == 1 and sorted(s["per_node"]) == ["good", "three"]
    why = {k: v for k, v in reasons(s).items()}
    for name in ("loop.json", "again", "dangling.json", "alias.json"):
        assert "symbolic link" in why[name], (name, why)
    assert "FIFO" in why["fifo.json"] and "socket" in why["sock.json"]
    assert any("nested more than" in u["reason"] for u in s["unreadable_reasons"]), s["unreadable_reasons"]
    assert "bottom" not in s["per_node"]
    # named on the command line: a link is followed to a regular file; a FIFO is refused, not read
    code, s, _ = summary([str(d / "alias.json"), str(d / "fifo.json")], timeout=30)
    assert list(s["per_node"]) == ["good"] and "FIFO" in reasons(s)["fifo.json"] and code == 1
    code, s, _ = summary([str(d / "loop.json")], timeout=30)
    assert code == 2 and s["unreadable"] == [str(d / "loop.json")]


# -- the stream decoder -------------------------------------------------------------------------

def _read(data: bytes, origin="stdin"):
    r = Reader()
    r.read_stream(bytes_reader(data), origin)
    return r.out


def test_concatenated_pretty_reports_as_cat_prints_them(tmp_path):
    """issue 14: `cat reports/*.json | envcheck fleet summarize - --json` read 0 nodes."""
    d = tmp_path / "reports"
    d.mkdir()
    for i in range(1, 6):
        (d / f"node{i:02d}.json").write_text(json.dumps(report(f"node{i:02d}", ok=i != 3), indent=2) + "\n")
    cat = subprocess.run(f"cat {d}/*.json", shell=True, capture_output=True, check=True).stdout
    code, s, _ = summary(["-"], stdin=cat)
    assert code == 1 and s["nodes"] == 5 and s["failing"] == ["node03"] and s["unreadable"] == []
    # without trailing newlines (`cat` of files written without one) and with a BOM, too
    glued = b"\xef\xbb\xbf" + b"".join(json.dumps(report(f"n{i}"), indent=2).encode() for i in range(4))
    assert sorted(_read(glued).nodes) == ["n0", "n1", "n2", "n3"]


def test_malformed_documents_in_a_stream_are_listed_and_reading_goes_on():
    good = [json.dumps(report(f"n{i}")) for i in range(4)]
    pretty = json.dumps(report("p1"), indent=2)
    text = "\n".join([good[0], good[1][:70], good[2], "{not json}", pretty, pretty[:200], good[3], "42", ""])
    out = _read(text.encode())
    assert sorted(out.nodes) == ["n0", "n2", "n3", "p1"]
    bad = dict(out.unreadable)
    assert "truncated" in bad["stdin:2"] and "malformed" in bad["stdin:4"]
    assert any("not a JSON object" in why for why in bad.values())
    assert len(out.unreadable) == 4, out.unreadable


def test_chunk_boundaries_multibyte_and_large_documents():
    from envcheck.fleet import read as fr

    # a 3 MiB document (read across several 1 MiB chunks), multi-byte characters and \u escapes
    # falling on every chunk boundary
    big = report("big", findings=[{"id": "x", "severity": "warning", "message": "é" * ((3 << 20) // 2), "fix": None}])
    docs = [json.dumps(report("a", notes="\u00e9\u4e2d" * 1000), ensure_ascii=False),
            json.dumps(big, ensure_ascii=False), json.dumps(report("c", notes="\u00e9" * 5000))]
    data = "\n".join(docs).encode()
    for shift in range(0, 8):
        pad = b" " * shift
        out = _read(pad + data)
        assert sorted(out.nodes) == ["a", "big", "c"] and out.unreadable == [], (shift, out.unreadable)
    # longer than one document may be: refused, the next one still read
    huge = json.dumps(report("huge", blob="x" * (fr.MAX_DOC_BYTES + 10)))
    out = _read((huge + "\n" + docs[0]).encode())
    assert sorted(out.nodes) == ["a"] and "longer than" in out.unreadable[0][1]


def test_binary_and_bad_utf8_on_stdin():
    code, s, _ = summary(["-"], stdin=(json.dumps(report("a")) + "\n").encode() + bytes(range(256)))
    assert code == 1 and s["nodes"] == 1 and "binary" in s["unreadable_reasons"][0]["reason"]
    # `cat` of a folder holding a stray binary file: what follows it is still read
    pretty = [json.dumps(report(h), indent=2).encode() for h in ("a", "b", "c")]
    code, s, _ = summary(["-"], stdin=pretty[0] + b"\n" + bytes(range(256)) * 64 + b"\n" + pretty[1] + b"\xff\xfe\n"
                         + pretty[2])
    assert sorted(s["per_node"]) == ["a", "b", "c"] and code == 1
    assert len(s["unreadable"]) == 2, s["unreadable_reasons"]
    assert all("binary" in u["reason"] for u in s["unreadable_reasons"])
    code, s, _ = summary(["-"], stdin=b"\xff\xfe{}")
    assert code == 2 and "UTF-8" in s["unreadable_reasons"][0]["reason"]
    code, s, err = summary(["-"], stdin=b"")
    assert code == 2 and s["unreadable"] == ["stdin"] and "no report could be read" in err


# -- a report from the future ---------------------------------------------------------------------

def test_a_report_dated_in_the_future_neither_wins_nor_counts_as_fresh(tmp_path):
    """A forged or wrong-clock report (created 9999-12-31) must not shadow the node's real, newer-looking
    report forever, and with --max-age it is stale (its time cannot be believed), not fresh."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (tmp_path / "a-real.json").write_text(json.dumps(report("n1", ok=False, created=now)))
    (tmp_path / "b-forged.json").write_text(json.dumps(report("n1", ok=True, created="9999-12-31T00:00:00Z")))
    (tmp_path / "c-future.json").write_text(json.dumps(report("n2", ok=True, created="9999-12-31T00:00:00Z")))
    code, s, _ = summary([str(tmp_path), "--max-age", "1d"])
    assert s["failing"] == ["n1"]  # the real report of n1 (failing) is kept, not the forged healthy one
    assert [d["kept"] for d in s["duplicates"]] == [str(tmp_path / "a-real.json")]
    assert s["stale"] == ["n2"] and "in the future" in s["stale_reasons"][0]["reason"]
    assert code == 1


# -- issue 18: archive bombs by member size and by compression ratio -----------------------------

class _Zeros(io.RawIOBase):
    def __init__(self, n):
        self.n = n

    def readinto(self, b):
        k = min(len(b), self.n)
        b[:k] = bytes(k)
        self.n -= k
        return k


def _add(tf, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def test_a_member_of_100_mb_zeros_is_refused_at_its_header(tmp_path):
    """The issue's archive: 105 KB holding 100 MB of zeros. The member is refused by its size (reports
    are kilobytes) before it is unpacked; the reports read before it stay."""
    bomb = tmp_path / "zeros.tar.gz"
    with tarfile.open(bomb, "w:gz") as tf:
        _add(tf, "r/a.json", json.dumps(report("node-a")).encode())
        info = tarfile.TarInfo("r/zeros.bin")
        info.size = 100 * 1024 * 1024
        tf.addfile(info, _Zeros(info.size))
        _add(tf, "r/b.json", json.dumps(report("node-b")).encode())
    assert bomb.stat().st_size < 200_000
    code, s, err = summary([str(bomb)])
    assert s["nodes"] == 1 and s["groups"][0]["nodes_compact"] == "node-a"
    (why,) = [u["reason"] for u in s["unreadable_reasons"] if u["input"].endswith("r/zeros.bin")]
    assert "larger than 16777216 bytes (104857600)" in why and "not read" in why


def test_many_mid_size_members_stop_at_the_compression_ratio(tmp_path):
    """Members under the size cap that together unpack to ~1000 times the archive: the archive is
    stopped by its ratio (listed with the reason), not unpacked to the end."""
    bomb = tmp_path / "many-zeros.tar.gz"
    with tarfile.open(bomb, "w:gz") as tf:
        _add(tf, "r/a.json", json.dumps(report("node-a")).encode())
        for i in range(40):
            info = tarfile.TarInfo(f"r/z{i}.bin")
            info.size = 15 * 1024 * 1024
            tf.addfile(info, _Zeros(info.size))
        _add(tf, "r/late.json", json.dumps(report("node-late")).encode())
    code, s, err = summary([str(bomb)])
    assert s["nodes"] == 1
    (why,) = [u["reason"] for u in s["unreadable_reasons"] if u["input"] == str(bomb)]
    assert "more than 200 times its compressed size" in why


def test_a_large_genuine_fleet_archive_is_not_taken_for_a_bomb(tmp_path):
    """6,000 near-identical pretty-printed reports compress about 80:1: all of them are read."""
    arch = tmp_path / "fleet.tar.gz"
    with tarfile.open(arch, "w:gz") as tf:
        for k in range(6000):
            rep = report(f"gpu-node-{k:05d}", created=f"2026-11-22T10:{k % 60:02d}:{k % 59:02d}Z")
            _add(tf, f"r/gpu-node-{k:05d}.json", json.dumps(rep, indent=2).encode())
    code, s, _ = summary([str(arch)])
    assert code == 0 and s["nodes"] == 6000 and s["unreadable"] == []


# -- issue 18: report strings cannot inject lines or Markdown --------------------------------------

EVIL = "evil\n| injected | row | 1 | 2 | 3 | 4 | 5 |\n@maintainers [click](https://example.invalid) <img src=x> **b** `c`\r\tend"


def test_a_hostname_cannot_inject_lines_or_markdown(tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    (d / "plain.json").write_text(json.dumps(report("plain-1", ok=False)))
    bad = report(EVIL, ok=False)
    bad["findings"][0]["fix"] = "run this\n| fake | table |\n@team please"
    bad["driver"]["version"] = "535.1\n# heading"
    (d / "evil.json").write_text(json.dumps(bad))
    md = run([str(d), "--markdown"]).stdout.decode()
    # outside code spans (where Markdown makes nothing of it) no mention, link or HTML survives
    prose = re.sub(r"`[^`\n]*`", "", md)
    assert "@maintainers" not in prose and "@team" not in prose and "@&#8203;team" in prose
    assert "<img" not in prose and "](https://" not in prose and "**b**" not in prose
    lines = md.splitlines()
    assert not any(line.startswith(("| injected", "| fake", "# heading", "@")) for line in lines)
    # every table row has exactly as many cells as its header: count the pipes not escaped by a backslash
    cells = None
    for line in lines:
        if not line.startswith("|"):
            cells = None
            continue
        n = len(re.findall(r"(?<!\\)\|", line))
        if cells is None:
            cells = n
        assert n == cells, line
    text = run([str(d)]).stdout.decode()
    assert "\\x0a| injected" in text and not any(line.startswith(("| injected", "| fake", "# heading"))
                                                    for line in text.splitlines())
    plain = run([str(d / "plain.json")]).stdout.decode()
    assert "\x1b" not in text and "\r" not in text and "\t" not in text.replace("\n", "")
    assert plain.count("\n") < text.count("\n")  # two nodes, but every value on its own line
