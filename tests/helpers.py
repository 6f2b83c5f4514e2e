"""Build snapshot folders for tests from small, real-format pieces."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from typing import Dict, List, Optional, Tuple

#: the prefilter cover's bound (anchors): 100 until session 20, raised to 128 there (the RE2 path reads all literals in
#: one set pass whatever the cover's size; the python-re fallback's cost is its regexes, ~3 MB/s with 100 anchors), and
#: to 130 in session 25 (oldnv42's "cudnn.h:", apple42's "/users/"; the python-re fallback measured 2.3-2.4 MB/s CPU at
#: 129 anchors against 2.0-2.2 at 127, benchmarks/explain_throughput.py --size-mb 3 with ENVCHECK_MATCHER=python-re)
COVER_BOUND = 130

DATA = os.path.join(os.path.dirname(__file__), "data")
#: the checkout's root (tests/..)
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: contract §3 finding / cause ids (../shared/spec/contract.md), typed by hand
CONTRACT_IDS = {
    "no-gpu-driver", "driver-library-mismatch", "driver-too-old", "no-gpu-visible", "cuda-runtime-missing",
    "cudnn-missing", "cudnn-version-mismatch", "cuda-toolkit-mismatch", "gpu-arch-unsupported", "framework-cpu-only",
    "python-unsupported", "duplicate-libraries", "framework-conflict", "cudnn-bad-param", "cudnn-not-initialized",
    "cudnn-no-algorithm", "cudnn-execution-failed", "gpu-out-of-memory", "cublas-error",
    "forward-compat-unsupported", "known-bad-combination", "gpu-not-initialized", "gpu-fault",
    "host-compiler-unsupported", "extension-abi-mismatch", "tensorrt-engine-mismatch",
    # contract §9 (AMD / Intel / Apple), typed by hand from its table
    "device-permission", "rocm-runtime-missing", "framework-vendor-mismatch", "gpu-memory-fault", "mps-os-too-old",
    "mps-op-unsupported", "python-arch-mismatch", "xpu-level-zero-missing", "oneapi-runtime-missing",
    "matrix-stale",
}


def fixture(*parts: str) -> str:
    with open(os.path.join(DATA, *parts), encoding="utf-8") as fh:
        return fh.read()


def smi_table(driver: str, cuda: Optional[str], gpus) -> str:
    """An nvidia-smi table in the 535-era layout (see tests/data/nvidia-smi for real ones)."""
    cuda_field = f"CUDA Version: {cuda}" if cuda else ""
    lines = [
        "+---------------------------------------------------------------------------------------+",
        f"| NVIDIA-SMI {driver:<22} Driver Version: {driver:<13} {cuda_field:<22}|",
        "|-----------------------------------------+----------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                      |               MIG M. |",
        "|=========================================+======================+======================|",
    ]
    for i, (name, mem) in enumerate(gpus):
        lines += [
            f"|   {i}  {name:<28}       On  | 00000000:{i + 1:02X}:00.0 Off |                    0 |",
            f"| N/A   34C    P0              61W / 400W |      4MiB / {mem:>5}MiB |      0%      Default |",
            "|                                         |                      |             Disabled |",
            "+-----------------------------------------+----------------------+----------------------+",
        ]
    return "\n".join(lines) + "\n"


def make_snapshot(root: str, files: Dict[str, object]) -> str:
    """Write a snapshot folder: str values verbatim, dict/list values as JSON."""
    os.makedirs(root, exist_ok=True)
    base = {
        "meta.json": {"schema": "envcheck/snapshot/1", "created": "2026-11-22T00:00:00+00:00", "hostname": "node01"},
        "python.json": {"version": "3.11.7", "implementation": "CPython", "platform": "linux", "machine": "x86_64"},
        "environ.json": {},
        "packages.json": {},
    }
    base.update(files)
    for k, v in base.items():
        if v is None:
            continue
        with open(os.path.join(root, k), "w", encoding="utf-8") as fh:
            fh.write(v if isinstance(v, str) else json.dumps(v))
    return root


#: ``captures.json`` of a machine where ``envcheck snapshot`` looked for the NVIDIA driver and found none (no nvidia-smi,
#: no kernel module, no libcuda / NVML). Without it a snapshot made by hand that holds no driver file says the driver
#: is unknown (contract §1: not captured), not that there is none.
NO_DRIVER_FOUND: Dict[str, object] = {"captures.json": {
    k: {"status": "not-found", "detail": f"{k}: not found", "origin": k.split(".")[0]}
    for k in ("nvidia-smi.txt", "nvidia-smi-query.csv", "proc-driver-version.txt", "sys-module-nvidia-version.txt",
              "libcuda.json", "nvml.json")}}
#: the same, by the name tests/test_attack28.py and tests/test_fix*.py use
NO_DRIVER_LOOKED_FOR = NO_DRIVER_FOUND


def gpu_machine(driver: str, cuda: Optional[str], gpus, *, cc=None) -> Dict[str, object]:
    """Captures of a machine with a working driver: /proc, nvidia-smi table and query CSV."""
    query = "index, name, driver_version, compute_cap, memory.total [MiB]\n" + "".join(
        f"{i}, {name}, {driver}, {cc[i] if cc else '[N/A]'}, {mem} MiB\n" for i, (name, mem) in enumerate(gpus))
    return {
        "proc-driver-version.txt": f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  Sat Aug 19 01:15:15 "
                                   "UTC 2023\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n",
        "nvidia-smi.txt": smi_table(driver, cuda, gpus),
        "nvidia-smi-query.csv": query,
        "ldconfig.txt": "2 libs found in cache `/etc/ld.so.cache'\n"
                        "\tlibnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
                        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n",
    }


def torch_install(version: str, cuda: Optional[str], requires=(), packages=None) -> Dict[str, object]:
    pk = {"torch": version}
    pk.update(packages or {})
    return {
        "torch.json": {"version": version, "cuda": cuda, "cudnn": None, "arch_list": None},
        "packages.json": pk,
        "requires.json": {"torch": list(requires)},
    }


def default_stop_signals() -> None:
    """``preexec_fn`` for a child that a test stops with a signal: SIGINT, SIGHUP and SIGQUIT at their defaults,
    as for a command started in a terminal or by a job runner. A suite run as a shell's background job (or
    under nohup) inherits them ignored (POSIX), and envcheck rightly leaves an ignored stop signal ignored."""
    import signal

    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)


def status_json(snap) -> dict:
    """``envcheck status --json --snapshot SNAP`` through the CLI in a real child run from the
    checkout's root; its exit status must be 0 or 1 (a finding), never a crash."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--json", "--snapshot", str(snap)],
                       capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def write_snapshot_files(tmp_path, files: dict):
    """A snapshot folder ``tmp_path/snap`` holding ``files`` (name -> text, written as UTF-8); returns its path."""
    snap = tmp_path / "snap"
    snap.mkdir(parents=True)
    for name, text in files.items():
        (snap / name).write_text(text, encoding="utf-8")
    return snap


def status_of_files(tmp_path, files: dict) -> dict:
    """``envcheck status --json --snapshot`` of a snapshot folder holding ``files`` (name -> text), through the CLI
    in a real child; its exit status must be 0 or 1 (a finding), never a crash."""
    return status_json(write_snapshot_files(tmp_path, files))


def explain_file(path: str):
    """explain's matches for a log file, read as the CLI reads it (envcheck.explain.reader.iter_lines)."""
    from envcheck.explain import explain_lines
    from envcheck.explain.reader import iter_lines

    with open(path, "rb") as fh:
        return explain_lines(iter_lines(fh))


def log_readme_rows(folder: str):
    """The rows ``| FILE.log | label | source |`` of a log folder's README.md (its files, expected ids and
    sources: the thread's URL, or ``find_string id N`` for a text the index names no URL for, either may be followed
    by a remark in brackets), in order, as (file, label, source) (:func:`readme_rows`)."""
    return [r[:3] for r in readme_rows(folder, ".log", source=r"https://\S+|find_string id \d+", label="[a-z-]+",
                                       remark=r" \([^|]*\)")]


def check_batch_threads_new(dev_rows, held: str, batch: str) -> None:
    """A log batch's threads (its working rows ``dev_rows`` and the held-back folder ``held``'s) are each used once,
    and none is in an earlier set (:func:`earlier_log_threads`, the batch's two folders ``batch`` and ``batch-held``
    apart)."""
    urls = [r[2] for r in list(dev_rows) + log_readme_rows(held)]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads((batch, batch + "-held"))


def earlier_log_threads(batches) -> set:
    """The sources of every log set with a README under tests/data/logs and heldout/ but the folders named in
    ``batches`` (a batch's own parts): a new batch's threads must be none of them."""
    tests = os.path.dirname(os.path.abspath(__file__))
    earlier = set()
    for base in (os.path.join(tests, "data", "logs"), os.path.join(os.path.dirname(tests), "heldout")):
        for folder in os.listdir(base):
            path = os.path.join(base, folder)
            if folder not in batches and os.path.exists(os.path.join(path, "README.md")):
                earlier |= {r[2] for r in log_readme_rows(path)}
    return earlier


def label_pairs(path: str):
    """The ``name label`` lines of a held-back set's labels file (``#`` comments and blank lines skipped), sorted."""
    with open(path, encoding="utf-8") as fh:
        return sorted(tuple(ln.split()) for ln in fh if ln.strip() and not ln.startswith("#"))


def check_log_batch(dev: str, held: str, *, min_dev: int = 0, min_held: int = 0, min_total: int = 0,
                    min_healthy: int = 0, min_none: int = 0, labels_txt: bool = True, held_listed: bool = False,
                    one_log_per_thread: bool = True, threads_on_both_sides=frozenset()):
    """The listing checks of a batch of real logs split before its rules (``dev`` under tests/data/logs, ``held``
    under heldout/), common to every batch's test file: every dev log is a row of its README (file, label,
    source) and every row a log; every label a contract id or ``none``; the held-back part apart (no file name and
    no thread on both sides but ``threads_on_both_sides``; with ``one_log_per_thread`` no thread twice at all);
    with ``labels_txt`` each part's labels.txt (the scorer's input) says what its README says; with
    ``held_listed`` every held-back log is a row of its README too. The minimums are each batch's sizes: healthy
    controls are the rows whose file starts with ``healthy-`` (both parts), ``min_none`` counts the dev rows
    labelled ``none``. Returns the held-back rows."""
    files = sorted(f for f in os.listdir(dev) if f.endswith(".log"))
    dev_rows = log_readme_rows(dev)
    held_rows = log_readme_rows(held)
    assert sorted(r[0] for r in dev_rows) == files and len(files) >= min_dev
    for rows in (dev_rows, held_rows):
        assert {r[1] for r in rows} <= CONTRACT_IDS | {"none"}
    held_files = sorted(f for f in os.listdir(held) if f.endswith(".log"))
    if held_listed:
        assert sorted(r[0] for r in held_rows) == held_files
    assert len(held_files) >= min_held and not set(held_files) & set(files)
    assert not ({r[2] for r in held_rows} & {r[2] for r in dev_rows}) - set(threads_on_both_sides)
    if one_log_per_thread:
        assert len({r[2] for r in dev_rows + held_rows}) == len(dev_rows) + len(held_rows)
    if labels_txt:
        for folder, rows in ((dev, dev_rows), (held, held_rows)):
            assert label_pairs(os.path.join(folder, "labels.txt")) == sorted((r[0], r[1]) for r in rows)
    assert len(dev_rows) + len(held_rows) >= min_total
    assert sum(1 for r in dev_rows + held_rows if r[0].startswith("healthy-")) >= min_healthy
    assert sum(1 for r in dev_rows if r[1] == "none") >= min_none
    return held_rows


def top_id_signature(text: str):
    """:func:`top_match` as ``(id, signature)``; ``(None, None)`` where explain names none."""
    m = top_match(text)
    return (m.id, m.signature) if m else (None, None)


def explain_cli_matches(*args: str, text: Optional[str] = None):
    """``envcheck explain --json ARGS`` run as a child (``text`` on its standard input): its ``matches``; exit 0 or 1."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", *args], input=text,
                       capture_output=True, text=True, timeout=120, cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["matches"]


def check_hand_written_facts(want: dict, got: dict, gpus_by_name: bool = False) -> None:
    """explain's ``facts`` (``got``) against a hand-written facts file (``want``): every leaf of ``want`` is in
    ``got`` with that value; ``gpus``, where the file has it, is the exact list (every GPU read, none made up; with
    ``gpus_by_name`` their indexes and names: files that leave an unknown compute capability out, where explain's facts
    say null); a file without ``gpus`` names its GPU only in prose, which is not judged."""
    if "gpus" in want:
        if gpus_by_name:
            assert [(g["index"], g["name"]) for g in got.get("gpus") or []] == \
                [(g["index"], g["name"]) for g in want["gpus"]]
        else:
            assert (got.get("gpus") or []) == want["gpus"]

    def leaves(d, prefix=""):
        if isinstance(d, dict):
            for k, v in d.items():
                yield from leaves(v, f"{prefix}.{k}" if prefix else k)
        else:
            yield prefix, d

    for key, val in leaves({k: v for k, v in want.items() if k != "gpus"}):
        cur = got
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        assert cur == val, key


def assert_top_is_label(matches, name: str, label: str, known_misses: Dict[str, Optional[str]]) -> None:
    """A dev log's verdict: its top match is its label with a title and fixes shown (none at all for a ``none``
    control); a known miss gives exactly the wrong answer recorded for it (so that a fix, or a new wrong answer,
    is seen)."""
    if name in known_misses:
        got = matches[0].id if matches else None
        assert got == known_misses[name] and got != label, [(m.id, m.evidence) for m in matches]
        return
    if label == "none":
        assert matches == [], [(m.id, m.evidence) for m in matches]
        return
    assert matches and matches[0].id == label, [(m.id, m.score, m.evidence) for m in matches]
    assert matches[0].fixes and matches[0].title
    assert not any("[fix not shown" in t for t in matches[0].fixes + matches[0].dead_ends)


def assert_leads_with_own_fix(matches, signature: str) -> None:
    """A new wording's verdict: the top match is its signature's cause, its evidence is the line that signature
    reads, and the signature's own fix comes first (the cause's general fixes follow)."""
    from envcheck.explain.kb import load_kb

    sig = next(s for s in load_kb().signatures if s.name == signature)
    assert matches, signature
    m = matches[0]
    assert m.id == sig.cause and sig.regex.search(m.evidence), (m.id, m.evidence)
    assert sig.fix is not None
    head = sig.fix[0].split("{{", 1)[0][:60]  # the prose before any command template
    assert m.fixes[0].startswith(head), (m.fixes[0][:80], head)


def errors_section_names(start: str, stop) -> set:
    """The signature names of the compat_matrix/errors.toml section that starts after ``start`` and ends before
    ``stop`` (a string, or a compiled pattern for a stop marker other helpers' sections share)."""
    with open(os.path.join(REPO_ROOT, "compat_matrix", "errors.toml"), encoding="utf-8") as fh:
        section = fh.read().split(start, 1)[1]
    section = stop.split(section, maxsplit=1)[0] if isinstance(stop, re.Pattern) else section.split(stop, 1)[0]
    return set(re.findall(r'^name = "([a-z0-9-]+)"', section, re.M))


def check_literals_hold(names, lines, *, cover: bool = True, own_anchors=(), new_anchors=()) -> set:
    """Each signature of ``names`` (all of them the knowledge base's) sits behind its literal (the prefilter): every
    line of ``lines`` it matches holds one of its literals (lower-cased), so the prefilter never hides a wording the
    regex reads; with ``cover`` every literal contains an existing cover anchor (the cover list is at its bound,
    tests/test_explain_families.py::test_prefilter_is_sound) but those of ``own_anchors`` (not checked) and of
    ``new_anchors`` (each literal an anchor itself). Returns the names some line matched."""
    from envcheck.explain.kb import load_kb

    kb = load_kb()
    sigs = [s for s in kb.signatures if s.name in names]
    assert len(sigs) == len(names), sorted(set(names) - {s.name for s in sigs})
    seen = set()
    for s in sigs:
        for lit in s.literals if cover and s.name not in own_anchors else ():
            if s.name in new_anchors:
                assert lit in kb.cover, lit
            else:
                assert any(a in lit for a in kb.cover if a not in s.literals), (s.name, lit)  # an existing anchor
        for ln in lines:
            if s.regex.search(ln):
                seen.add(s.name)
                assert any(lit in ln.lower() for lit in s.literals), (s.name, ln)
    return seen


def paste_top(doc: dict) -> str:
    """The top cause of explain's document for a pasted report (``none`` where it names no cause)."""
    return doc["matches"][0]["id"] if doc.get("matches") else "none"


def check_paste_top_is_label(folder, name: str, label: str, unreached: Dict[str, str]) -> None:
    """A pasted report's verdict: the top cause explain reads in ``folder/name`` is its label; a report in
    ``unreached`` (name -> why the text alone cannot reach its label) is an expected failure, kept, not hidden."""
    import pytest

    from envcheck.explain.document import explain_text_document

    if name in unreached:
        pytest.xfail(unreached[name])
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        assert paste_top(explain_text_document(fh.read())) == label


def check_paste_facts(folder, name: str, unreached: Optional[Dict[str, str]] = None) -> None:
    """A hand-written ``X.facts.json`` of ``folder`` against the facts explain reads in its report ``X.txt``
    (:func:`check_hand_written_facts`); a report in ``unreached`` is an expected failure."""
    import pytest

    from envcheck.explain.document import explain_text_document

    txt = name.replace(".facts.json", ".txt")
    if unreached and txt in unreached:
        pytest.xfail(unreached[txt])
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        want = json.load(fh)
    with open(os.path.join(folder, txt), encoding="utf-8") as fh:
        check_hand_written_facts(want, explain_text_document(fh.read())["facts"])


def status_text(snap) -> str:
    """``envcheck status --snapshot SNAP``'s text report, through the CLI in this process."""
    from click.testing import CliRunner

    from envcheck.cli import cli

    return CliRunner().invoke(cli, ["status", "--snapshot", str(snap)], catch_exceptions=False).output


def report_with_text(snap, run_status) -> dict:
    """The JSON report of a snapshot (the ``run_status`` fixture) with its text report under ``_text``, the input
    of scripts/score_vendors21f.py's ``compare``."""
    _, rep, _ = run_status(snap)
    rep["_text"] = status_text(snap)
    return rep


def check_vendor_captures_cited(expected: dict, held_readme: str) -> None:
    """Every capture of a vendor batch's expected facts cites its source (``find_string id N``) and is listed, with
    that source, in its held-out README and in tests/data/README.md."""
    with open(held_readme, encoding="utf-8") as fh:
        readme = fh.read()
    with open(os.path.join(DATA, "README.md"), encoding="utf-8") as fh:
        data_readme = fh.read()
    for name, e in expected.items():
        assert re.match(r"find_string id \d+[ :]", e["source"]), name
        assert name in readme and e["source"] in readme
        assert "vendors/" + name in data_readme


#: words of advice that only an NVIDIA machine can use (independent of envcheck's own filter)
NVIDIA_ADVICE = re.compile(r"nvidia-smi|/dev/nvidia|index=cu|download\.pytorch\.org/whl/cu|cu1[1-3]\d\b|"
                           r"CUDA toolkit|NVIDIA driver|nvidia-container|libcudnn")


def check_no_nvidia_only_advice(log_path: str, *, exit_codes=(0, 1)) -> None:
    """``envcheck explain --json --no-detect LOG`` in a real child (exit status in ``exit_codes``): none of its
    fixes or dead ends is NVIDIA-only advice (:data:`NVIDIA_ADVICE`) - the log is another vendor's."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", log_path],
                       capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert r.returncode in exit_codes, r.stderr
    for m in json.loads(r.stdout)["matches"]:
        for text in m["fixes"] + m["dead_ends"]:
            assert not NVIDIA_ADVICE.search(text), (m["id"], text)


def expect_text(exp_path) -> str:
    """The capture ``X.txt`` beside an expected-facts file ``X.expect.json`` (a pathlib.Path)."""
    return exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text(encoding="utf-8")


def check_smi_form_reads_as_expected(exp_path):
    """nvidia_smi.parse_smi of a capture against its hand-written ``X.expect.json``: its form, driver and CUDA
    versions, GPUs (index, name, memory) and whether the list is whole; nvidia-smi is not what ran, so its state
    stays unknown (never "failed" / "no-driver"). Returns (the parse, the expected facts) for a file's own checks."""
    from envcheck.parse import nvidia_smi

    exp = json.loads(exp_path.read_text(encoding="utf-8"))
    t = nvidia_smi.parse_smi(expect_text(exp_path))
    assert t.form == exp["form"]
    assert (t.driver_version, t.cuda_version) == (exp["driver_version"], exp["cuda_version"])
    assert [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus] == exp["gpus"]
    assert bool(t.gpus_complete) is exp["gpus_complete"]
    assert t.state is None
    return t, exp


#: the dev logs' folders (one a batch) and the held-back parts' (heldout/BATCH)
LOGS = os.path.join(DATA, "logs")
HELDOUT = os.path.join(REPO_ROOT, "heldout")


def read_text_file(folder, name: str) -> str:
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def top_match(text: str):
    """explain's top match for a text, or None."""
    from envcheck.explain import explain_text

    ms = explain_text(text)
    return ms[0] if ms else None


def check_dev_log(folder, name: str, label: str, known_misses: Dict[str, Optional[str]]) -> None:
    """:func:`assert_top_is_label` for the dev log ``folder/name`` (read whole, explained as one text)."""
    from envcheck.explain import explain_text

    assert_top_is_label(explain_text(read_text_file(folder, name)), name, label, known_misses)


def batch_threads(dev: dict, held: dict) -> list:
    """The sources of every row of the batches' dev and held-back READMEs (folders by batch), in order."""
    return [r[2] for b in dev for r in log_readme_rows(dev[b]) + log_readme_rows(held[b])]


def paste_readme_rows(folder, any_host: bool = False) -> Dict[str, tuple]:
    """The rows ``| FILE.txt | label | https://github.com/... |`` of a paste folder's README.md: name -> (label,
    source); ``any_host``: a source on any web site (forum, Q&A and blog pages), not only GitHub's (:func:`readme_rows`)."""
    host = r"https?://" if any_host else r"https://github\.com/"
    return {r[0]: (r[1], r[2]) for r in readme_rows(folder, ".txt", source=host + r"\S+")}


def column_wrap(text: str, width: int) -> str:
    """``text`` as a terminal of ``width`` columns shows it when pasted with its line breaks: every longer line cut at
    the column, whatever the characters there."""
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return "\n".join(out)


def check_section_signatures(section_marker: str, names) -> None:
    """Every signature in ``names`` is written inside the errors.toml section that begins at ``section_marker`` (up to
    the next ``# ====`` rule), and each of its literals holds a prefilter anchor shorter than itself (no new entry in
    the cover list, which stays within its bound, COVER_BOUND)."""
    from envcheck.explain.kb import load_kb

    kb = load_kb()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "compat_matrix", "errors.toml"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index(section_marker)
    end = text.find("\n# ====", start + len(section_marker))  # the next helper's section, if any
    section = text[start:] if end < 0 else text[start:end]
    assert len(kb.cover) <= COVER_BOUND  # the prefilter's bound (tests/test_explain_families.py)
    for name in names:
        assert f'name = "{name}"' in section, name
        sig = next(s for s in kb.signatures if s.name == name)
        assert all(any(c in lit and c != lit for c in kb.cover) for lit in sig.literals), name


def doc_matches(doc: dict) -> list:
    """explain's document's matches as objects with the attributes :func:`assert_top_is_label` reads."""
    from types import SimpleNamespace

    return [SimpleNamespace(id=m["id"], score=m.get("score"), evidence=m.get("evidence"), title=m.get("title"),
                            fixes=m.get("fixes") or [], dead_ends=m.get("dead_ends") or []) for m in doc["matches"]]


def seen_evidence(line: str) -> dict:
    """The evidence (``seen:`` facts) the prose cause reader takes from one line: {kind: value}."""
    from envcheck.paste.readers.prose_cause import line_facts

    return {f.field[5:]: str(f.value) for f in line_facts(line, line.lower()) if f.field.startswith("seen:")}


def build_wheel(outdir: str, name: str, version: str, files, requires=()) -> str:
    """A minimal, valid py3-none-any wheel (METADATA, WHEEL, RECORD with hashes)."""
    dist = f"{name.replace('-', '_')}-{version}"
    info = f"{dist}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    members = dict(files)
    members[f"{info}/METADATA"] = meta
    members[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: envcheck-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, text in members.items():
        data = text.encode() if isinstance(text, str) else text
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    members[f"{info}/RECORD"] = "\n".join(record) + "\n"
    path = os.path.join(outdir, f"{dist}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as zf:
        for p, text in members.items():
            zf.writestr(p, text)
    return path


def matrix_why(*args: str) -> Tuple[int, str]:
    """``envcheck matrix why ARGS`` in a child process (colour off): its exit status (0: runs, 1: does not) and its
    output; any other status fails the calling test with the child's standard error."""
    cp = subprocess.run([sys.executable, "-m", "envcheck", "matrix", "why", *args], capture_output=True, text=True,
                        timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert cp.returncode in (0, 1), cp.stderr
    return cp.returncode, cp.stdout


def sample_rows(folder: str, ext: str = ".txt", source: str = r"https://\S+"):
    """The rows ``| FILE | label | source |`` of a sample folder's README.md whose file ends with ``ext`` (``.txt``,
    ``.log``) and whose source matches ``source`` (by default a URL), as ``(file, label, source)`` in order
    (:func:`readme_rows`)."""
    return [r[:3] for r in readme_rows(folder, ext, source=source, label="[a-z-]+")]


def readme_rows(folder, ext=(".txt",), source: Optional[str] = None, label: str = r"[a-z0-9-]+",
                remark: str = "") -> List[Tuple[str, str, str, str]]:
    """The listing of a sample folder's README.md, the one reading of it the family tests share: its rows
    ``| FILE | label | source | note |`` whose file ends with one of ``ext`` (a suffix or a tuple of them) and whose label
    matches ``label``, as (file, label, source, note), in order (a row listed twice is there twice). ``source``: a
    pattern the third cell must match (a URL: ``r"https://\\S+"``, GitHub's only: ``r"https://github\\.com/\\S+"``);
    None: any third cell, or none. ``remark``: a pattern of what may follow the source in its cell (``r" \\([^|]*\\)"``:
    a remark in brackets), not part of the source. The note is the rest of the row (the cells after the source, the
    closing bar dropped), stripped."""
    exts = (ext,) if isinstance(ext, str) else tuple(ext)
    head = r"^\| (\S+(?:" + "|".join(re.escape(e) for e in exts) + r")) \| (" + label + r") \|"
    if source is None:
        row = re.compile(head + r"(?: ([^|]*?) \|)?(.*)$")
    else:
        row = re.compile(head + r" (" + source + r")" + (f"(?:{remark})?" if remark else "") + r" \|(.*)$")
    out = []
    with open(os.path.join(str(folder), "README.md"), encoding="utf-8") as fh:
        for m in map(row.match, fh.read().splitlines()):
            if m:
                note = m.group(4).strip()
                out.append((m.group(1), m.group(2), m.group(3) or "", note[:-1].strip() if note.endswith("|") else note))
    return out


def readme_labels(folder, ext=(".txt",), source: Optional[str] = None) -> Dict[str, str]:
    """file -> label of a sample folder's README rows (:func:`readme_rows`)."""
    return {r[0]: r[1] for r in readme_rows(folder, ext, source)}


def check_every_file_listed(folder, rows, ext=None) -> None:
    """Every file of ``folder`` (those ending with ``ext``, else all but the README itself) is a row of ``rows`` (its
    README listing: file names) and every row a file."""
    files = sorted(f for f in os.listdir(str(folder)) if f != "README.md" and (ext is None or f.endswith(ext)))
    assert sorted(rows) == files, folder


def check_split_listing(dev: str, held: str, ext: str = ".txt", *, min_dev: int, min_held: int, min_none: int = 0,
                        min_held_none: int = 0, source: str = r"https://\S+") -> None:
    """A family's samples split before its rules were written: every file of ``dev`` and of ``held`` is a row of its
    README (:func:`sample_rows`) and every row a file, no file on both sides, no source twice, and the sizes:
    ``min_none`` counts the controls (``none``) of both parts, ``min_held_none`` those of the held-back part."""
    dev_rows, held_rows = sample_rows(dev, ext, source), sample_rows(held, ext, source)
    for folder, rows, least in ((dev, dev_rows, min_dev), (held, held_rows, min_held)):
        files = sorted(f for f in os.listdir(folder) if f.endswith(ext))
        assert sorted(r[0] for r in rows) == files and len(files) >= least, folder
    assert not {r[0] for r in dev_rows} & {r[0] for r in held_rows}
    sources = [r[2] for r in dev_rows + held_rows]
    assert len(sources) == len(set(sources))
    assert sum(1 for r in dev_rows + held_rows if r[1] == "none") >= min_none
    assert sum(1 for r in held_rows if r[1] == "none") >= min_held_none


def check_dev_sample(path: str, label: str) -> None:
    """``envcheck explain --no-detect PATH`` (a child process): a control (``none``) names no cause; any other sample's
    top cause is its label, with fixes."""
    matches = explain_cli_matches("--no-detect", path)
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


def errors_section_text(marker: str) -> str:
    """The text of compat_matrix/errors.toml's section opened by the comment line ``marker`` (``# ---- name ----``),
    up to the next such line."""
    with open(os.path.join(REPO_ROOT, "compat_matrix", "errors.toml"), encoding="utf-8") as fh:
        text = fh.read()
    section = text[text.index(marker):]
    nxt = section.find("\n# ---- ", len(marker))
    return section if nxt < 0 else section[:nxt]


def check_section_literals(marker: str, signatures, new_anchors, folders) -> set:
    """A family's errors.toml block (``marker``): it holds every signature of ``signatures``; the prefilter's cover
    stays within :data:`COVER_BOUND` and holds ``new_anchors``; every line of the samples in ``folders`` that a
    signature reads holds one of its literals (:func:`check_literals_hold`). Returns the signatures some sample
    line matched."""
    from envcheck.explain.kb import load_kb

    section = errors_section_text(marker)
    for name in signatures:
        assert f'name = "{name}"' in section, name
    cover = set(load_kb().cover)
    assert len(cover) <= COVER_BOUND and set(new_anchors) <= cover
    lines = []
    for folder in folders:
        for f in sorted(os.listdir(folder)):
            with open(os.path.join(folder, f), encoding="utf-8", errors="replace") as fh:
                lines += fh.read().splitlines()
    return check_literals_hold(set(signatures), lines, cover=False)
