"""explain's linear-time matcher (envcheck/explain/matcher.py, docs/matcher.md).

* the dialect: what it refuses and accepts, on every machine (no engine needed);
* the knowledge-base patterns rewritten without look-arounds / \\b mean what they meant (the old
  spellings, verbatim from errors.toml before the change, run by Python's re, are the oracle);
* RE2 and the fallback (Python re, ASCII classes) agree on every knowledge-base pattern;
* explain over every real log (tests/data, heldout) gives what it gave before the change
  (tests/data/explain_golden_2926342.json, written by envcheck at 2926342, main before this change);
* the attack of issue 18 item 2: a signed bundle's pattern that is cubic under Python's re, end to end
  through the CLI: with RE2 it runs (linear), with the fallback it is not run and the report says so.
No timing assertions: a hang is caught by the subprocess timeouts.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import bundle_clock
import pytest

from envcheck.explain import matcher
from envcheck.explain.kb import kb_patterns, validate_kb
from envcheck.explain.matcher import backtrack_bound, compile_pattern, dialect_problems
from envcheck.matrix import bundled_dir

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_RE2 = matcher.engine() == "re2"
needs_re2 = pytest.mark.skipif(not HAVE_RE2, reason="google-re2 is not installed here")

# the attack: bounded repeats only, no nesting, no adjacent repeats: it passes the static check of
# regex_safety (and passed the timed one), yet Python's re takes O(n^4) on a line of "cudnn " repeated
ATTACK = r"cudnn[^\n]{0,1000}cudnn[^\n]{0,1000}cudnn[^\n]{0,1000}CUDNN_STATUS_ATTACK"

REFUSED = [r"(?<!x)y", r"(?<=x)y", r"x(?!y)", r"x(?=y)", r"(a)\1", r"(?P<a>a)(?P=a)", r"\bword\b", r"\Aword",
           r"word\Z", r"(?i)word", r"(?x)word", r"(?>atomic)", r"a++", r"a{2}+", r"a{,5}", r"a{1,1001}",
           r"\u00e9", r"[[:alpha:]]", r"[a&&b]", r"(?#comment)x", r"\pL", "a\\"]
ACCEPTED = [r"lib[\w+-]{1,80}\.so(?:\.\d{1,6}){0,3}", r"(?:^|\W)No (?P<lib>lib\w{1,40}) found!", r"[^\x27\"\n]{0,300}",
            r"a{3}", r"a{2,}", r"x*?y", r"[]a-c]", r"[^]a]", r"a{", r"\.\*\+\?\(\)\[\]\{\}\|\\", ATTACK]


@pytest.mark.parametrize("pattern", REFUSED)
def test_dialect_refuses_what_re2_cannot_run_alike(pattern):
    assert dialect_problems(pattern), pattern


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_dialect_accepts_plain_patterns(pattern):
    assert dialect_problems(pattern) == [], pattern


def _kb(path=None):
    with open(path or os.path.join(bundled_dir(), "errors.toml"), "rb") as fh:
        return tomllib.load(fh)


def test_every_knowledge_base_pattern_is_in_the_dialect():
    pats = kb_patterns(_kb())
    assert len(pats) > 100
    for p, flags, _, where in pats:
        assert dialect_problems(p, flags) == [], where


@needs_re2
def test_re2_compiles_every_knowledge_base_pattern():
    for p, flags, _, where in kb_patterns(_kb()):
        assert type(compile_pattern(p, flags)).__name__ == "_Re2Pattern", where


# the patterns as they were before (821e42c; amd-host-mentioned: 2926342) (with look-arounds and \b), and the names they belong to
OLD = {
    "signature 'invalid-device-ordinal' of 'no-gpu-visible'": r"invalid device ordinal|cudaErrorInvalidDevice\b",
    "signature 'could-not-load-library-bare' of 'cudnn-missing'":
        r"Could not load library (?P<lib>lib[\w+-]{1,80}\.so[\d.]{0,24})(?![\d.]{0,24}\s{0,3}Error)",
    "signature 'windows-dll-error-loading' of 'cudnn-missing'":
        r"""(?<![\w.+-])(?P<lib>[\w.+-]{1,80}\.dll)[\x27"]?\s{0,3}(?:or one of its dependencies|not found)""",
    "signature 'cuda-error-out-of-memory' of 'gpu-out-of-memory'":
        r"""CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|(?<![\x27"])OutOfMemoryError:\s{0,3}\S""",
    "signature 'cudnn-execution-failed' of 'cudnn-execution-failed'":
        r"(?<!create cudnn handle: )(?<!create cudnn handle:)CUDNN_STATUS_(?P<status>EXECUTION_FAILED|INTERNAL_ERROR"
        r"|MAPPING_ERROR)",
    "signature 'pip-framework-no-matching-distribution' of 'python-unsupported'":
        r"(?:No matching distribution found for|Could not find a version that satisfies the requirement) "
        r"(?P<package>torch|torchvision|torchaudio|tensorflow(?:-gpu|-cpu|-intel|-io)?|tf-nightly|jaxlib|jax|"
        r"cupy(?:-cuda\w{1,8})?|onnxruntime(?:-gpu)?|paddlepaddle(?:-gpu)?|mxnet(?:-cu\w{1,8})?)(?![\w-])",
    "signature 'pip-resolver-nvidia-pin-conflict' of 'framework-conflict'":
        r"(?<![\w.-])(?P<package>[\w.-]{1,60}) (?P<package_version>[\w.+]{1,30}) requires (?P<requirement>nvidia-"
        r"[\w-]{1,40}\s{0,2}(?:==|>=|<)[\w.]{1,20}),? but you have (?P<installed>nvidia-[\w-]{1,40} [\w.]{1,20}) which "
        r"is incompatible",
    "fact 'tensorflow'": r"\btensorflow(?:-gpu)?(?:==|-|\s{0,3}version:?\s{0,3})(?P<value>[12]\.\d{1,2}\.\d{1,2})\b",
    "fact 'torch'": r"(?:\btorch(?:==|-|\s{1,40})|PyTorch version:\s{0,3})(?P<value>\d\.\d{1,2}\.\d{1,2}"
                    r"(?:\+\w{1,12})?)\b",
    "signature 'bnb-no-lib-found' of 'cuda-runtime-missing'": r"\bNo (?P<lib>lib[\w+-]{1,40}\.so(?:\.\d{1,6}){0,3}) found!",
    # logs20m (2026-11-27): "rocm" followed by "_" is an identifier (rocm_path_dir(), rocm_v60102), not the host
    "signature 'amd-host-mentioned' of 'framework-vendor-mismatch'": r"\b(?-i:ROCm|rocm)(?!_)|\bAMD (?:Radeon|GPU)",
}
PIECES = ["  ", ".", ":", "-", "+", "'", '"', "_", "a", "e", "E", "r", "0", "8", "12", "\t", "/", "\\", "Error", "rror",
          "create cudnn handle", ": ", "handle:", "libcudnn.so", ".8", "torch", "2.1.0", "PyTorch version: ",
          "tensorflow", "==", "found!", "No ", ".dll", "not found", "torchvision", "-gpu", "x", "requires ",
          "nvidia-cudnn-cu12==8.9", " but you have ", "nvidia-cudnn-cu12 9.1", " which is incompatible",
          "CUDNN_STATUS_INTERNAL_ERROR", "OutOfMemoryError: ", "cudaErrorInvalidDevice", "Could not load library ",
          "ROCm", "rocm", "ROCM", "AMD GPU", "amd radeon", "XPU", "xpu", "UR_RESULT_ERROR_DEVICE_LOST"]


def _lines(seed, n, extra=()):
    rnd = random.Random(seed)
    pieces = PIECES + list(extra)
    return ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 8))) for _ in range(n)]


def _outcome(m):
    return None if m is None else m.groupdict()


@pytest.mark.parametrize("where", sorted(OLD))
def test_rewritten_patterns_mean_what_the_look_around_ones_meant(where):
    new = {w: (p, f) for p, f, _, w in kb_patterns(_kb())}
    assert where in new, where
    old_rx = re.compile(OLD[where], re.I)
    new_py = re.compile(new[where][0], re.I)  # Python's re, Unicode classes, as before the change
    new_engine = compile_pattern(*new[where])
    for line in _lines(hash(where) & 0xffff, 4000):
        want = _outcome(old_rx.search(line))
        assert _outcome(new_py.search(line)) == want, (where, line)
        assert _outcome(new_engine.search(line)) == want, (where, line)


@needs_re2
def test_re2_and_the_fallback_agree_on_every_pattern_including_non_ascii_text():
    # the dialect's classes are ASCII in both engines: \w does not match é or a Kelvin sign there
    for p, f, lits, where in kb_patterns(_kb()):
        r2 = compile_pattern(p, f)
        py = re.compile(p, f | re.ASCII)
        for line in _lines(len(p), 300, extra=lits + ["é", "\u212a", "\u0663", "\u00a0", "ſ"]):
            assert _outcome(r2.search(line)) == _outcome(py.search(line)), (where, line)


# -- explain over every real log: the same as before the change ---------------------------------------------
def _golden():
    with open(os.path.join(ROOT, "tests", "data", "explain_golden_2926342.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _compact(res):
    return {"lines": res.lines, "facts": res.facts,
            "matches": [[m.id, m.signature, m.line_no, m.count, m.captures, m.explained_by] for m in res.matches]}


def _run_all(monkeypatch, engine_name):
    import io

    from envcheck.explain import explain_stream, kb, scan_lines

    if engine_name == "python-re":
        monkeypatch.setenv("ENVCHECK_MATCHER", "python-re")
    else:
        monkeypatch.delenv("ENVCHECK_MATCHER", raising=False)
    kb._CACHE.clear()
    golden = _golden()
    assert len(golden) > 500
    differ = []
    for rel, want in sorted(golden.items()):
        if rel.endswith("README.md"):
            continue  # the folders' source lists, not logs: they grow with the data (the logs themselves never change)
        with open(os.path.join(ROOT, rel), "rb") as fh:
            data = fh.read()
        got_stream = json.loads(json.dumps(_compact(explain_stream(io.BytesIO(data)))))
        got_lines = json.loads(json.dumps(_compact(scan_lines(data.decode("utf-8", "replace").splitlines()))))
        if got_stream != want["stream"] or got_lines != want.get("lines", want["stream"]):
            differ.append((rel, got_stream, want["stream"]))
    kb._CACHE.clear()
    return differ


@needs_re2
def test_explain_with_re2_equals_the_old_matcher_on_every_real_log(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    differ = _run_all(monkeypatch, "re2")
    assert differ == [], differ[:2]


def test_explain_with_the_fallback_gives_the_same_causes_on_every_real_log(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    from envcheck.explain.kb import load_kb

    differ = _run_all(monkeypatch, "python-re")
    monkeypatch.setenv("ENVCHECK_MATCHER", "python-re")
    skipped = {w for w, _ in load_kb().skipped}
    # the fallback does not run the patterns over its budget (listed in matcher_skipped); where one of
    # them was the wording, the same cause is still found, from another wording of it
    for rel, got, want in differ:
        assert {m[0] for m in got["matches"]} == {m[0] for m in want["matches"]}, rel
        lost = {m[1] for m in want["matches"]} - {m[1] for m in got["matches"]}
        # no signature lost: the fallback's result is simply not the golden file's (a count or a line changed with the
        # knowledge base; RE2's test fails on it too), not the two engines choosing differently
        assert lost, (rel, "differs from tests/data/explain_golden_2926342.json with no signature skipped",
                      got["matches"], want["matches"])
        assert all(any(f"signature {s!r}" in w for w in skipped) for s in lost), (rel, lost)
    assert len(differ) < 20


# -- the one rule that picks a cause's evidence among its candidates, the same on every path --------------------
# heldout/logs/tf-win-loaded-8301-cudnn-cnn-infer64-8-dll.log (huckiyang/QuantumSpeech-QCNN#9): cuDNN 8's Windows loader
# says one failure on two neighbouring lines, each read by a signature of cudnn-missing
_CUDNN_WIN = ("2021-12-12 23:48:46.254332: I tensorflow/stream_executor/cuda/cuda_dnn.cc:359] Loaded cuDNN version 8301\n"
              "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
              "Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n")


def _every_path(monkeypatch, text):
    """(engine, path) -> [(id, signature, line, count, evidence)] of ``text`` through explain_stream (RE2's line set
    where the engine is RE2), the literal prefilter line by line (``line_set`` off) and scan_lines, with each engine."""
    import io

    from envcheck.explain import explain_stream, kb, scan_lines
    from envcheck.explain.kb import KnowledgeBase

    def key(ms):
        return [(m.id, m.signature, m.line_no, m.count, m.evidence) for m in ms]

    out = {}
    for name in (["re2"] if HAVE_RE2 else []) + ["python-re"]:
        monkeypatch.setenv("ENVCHECK_MATCHER", name)
        kb._CACHE.clear()
        out[(name, "stream")] = key(explain_stream(io.BytesIO(text.encode())).matches)
        out[(name, "lines")] = key(scan_lines(text.splitlines()).matches)
        with monkeypatch.context() as m:
            m.setattr(KnowledgeBase, "line_set", lambda self: None)
            out[(name, "prefilter")] = key(explain_stream(io.BytesIO(text.encode())).matches)
    kb._CACHE.clear()
    return out


def test_two_wordings_of_one_cause_on_neighbouring_lines_keep_the_first_line_on_every_path(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    got = _every_path(monkeypatch, _CUDNN_WIN)
    want = [("cudnn-missing", "windows-could-not-locate-dll", 2, 2,
             "Could not load library cudnn_cnn_infer64_8.dll. Error code 126")]
    assert got and all(v == want for v in got.values()), got
    # the second line alone (an issue's title) is the same cause, read by its own wording
    alone = _every_path(monkeypatch, _CUDNN_WIN.splitlines()[2] + "\n")
    assert all([m[:3] for m in v] == [("cudnn-missing", "windows-dll-not-in-library-path", 1)]
               for v in alone.values()), alone
    # the two lines the other way round: the first line in the file is the evidence, whichever wording it is
    swapped = _every_path(monkeypatch, "\n".join(_CUDNN_WIN.splitlines()[:0:-1]) + "\n")
    assert all([m[:4] for m in v] == [("cudnn-missing", "windows-dll-not-in-library-path", 1, 2)]
               for v in swapped.values()), swapped


def test_a_specific_wording_after_a_generic_one_takes_the_evidence_on_every_path(monkeypatch, tmp_path):
    # tests/data/pastes/pastes20t's wording said in a sentence (generic), then the loader's own line (specific)
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    text = "the file cudnn_cnn_infer64_8.dll is missing here\n" + _CUDNN_WIN.splitlines()[1] + "\n"
    got = _every_path(monkeypatch, text)
    assert all([m[:4] for m in v] == [("cudnn-missing", "windows-could-not-locate-dll", 2, 2)] for v in got.values()), got


# -- the attack of issue 18 item 2, end to end through the CLI ----------------------------------------------
def _envcheck(args, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update({"PYTHONPATH": ROOT, "NO_COLOR": "1"}, **extra)
    return subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, timeout=300,
                          env=bundle_clock.child_env(env))


def test_attack_pattern_passes_the_old_static_check_and_is_super_linear_for_python_re():
    from envcheck.explain.regex_safety import static_problems

    assert static_problems(ATTACK) == []
    assert dialect_problems(ATTACK) == []
    # the fallback's bound says what Python's re could cost on one line: far over its budget
    assert backtrack_bound(ATTACK) > matcher.BUDGET


def bundle_kb() -> str:
    """The bundled errors.toml with every fix text made plain prose: what these tests send in a bundle (the
    bundle's fix-text rules, another test's matter, refuse some of the bundled prose as shell text)."""
    with open(os.path.join(bundled_dir(), "errors.toml"), encoding="utf-8") as fh:
        text = fh.read()
    return re.sub(r'(?m)^(text|fix) = ".*"$', lambda m: m.group(1) + ' = "Follow the source of this cause."', text)


@pytest.fixture
def attack_bundle(tmp_path):
    from envcheck.matrix.bundle import FILES
    from envcheck.matrix.signing import build_bundle, generate_key

    pem, pub = generate_key()
    (tmp_path / "k.pub").write_text(pub)
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), encoding="utf-8") as fh:
            tables[f + ".toml"] = fh.read()
    tables["errors.toml"] = bundle_kb() + ("\n[[signature]]\ncause = \"cudnn-execution-failed\"\nname = \"attack\"\n"
                              "literal = \"cudnn\"\nregex = '" + ATTACK + "'\n"
                              "source = \"https://github.com/google/re2/wiki/WhyRE2\"\n")
    bundle = tmp_path / "b.tar.gz"
    # dated by the bundle tests' calendar (newer than the bundled matrix, whatever the real date)
    bundle.write_bytes(build_bundle({k: v.encode() for k, v in tables.items()}, pem, bundle_clock.day(),
                                    expires=bundle_clock.day(90)))
    log = tmp_path / "attack.log"
    # one 3.2 KB line that costs Python's re minutes, and one line the pattern matches
    log.write_text("cudnn " * 540 + "\n" + "cudnn a cudnn b cudnn c CUDNN_STATUS_ATTACK\n")
    env = {"ENVCHECK_CACHE_DIR": str(tmp_path / "cache"), "ENVCHECK_MATRIX_PUBKEY": str(tmp_path / "k.pub")}
    r = _envcheck(["matrix", "update", "--from", str(bundle)], **env)
    return r, str(log), env


@needs_re2
def test_attack_bundle_runs_in_linear_time_with_re2(attack_bundle):
    r, log, env = attack_bundle
    assert r.returncode == 0, r.stderr[-2000:]
    r = _envcheck(["explain", log, "--no-detect", "--json"], **env)
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(r.stdout)
    assert rep["matcher"] == "re2"
    hit = [m for m in rep["matches"] if m["signature"] == "attack"]
    assert hit and hit[0]["line_no"] == 2


def test_attack_bundle_is_not_run_by_the_fallback(attack_bundle):
    r, log, env = attack_bundle
    assert r.returncode == 0, r.stderr[-2000:]  # whether a bundle is accepted does not depend on the engine
    r = _envcheck(["explain", log, "--no-detect", "--json"], ENVCHECK_MATCHER="python-re", **env)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    rep = json.loads(r.stdout)
    assert rep["matcher"] == "python-re"
    assert any("'attack'" in s for s in rep["matcher_skipped"])
    assert not [m for m in rep["matches"] if m["signature"] == "attack"]


def test_a_look_around_in_a_signed_bundle_is_refused(tmp_path):
    from envcheck.matrix.bundle import FILES
    from envcheck.matrix.signing import build_bundle, generate_key

    pem, pub = generate_key()
    (tmp_path / "k.pub").write_text(pub)
    tables = {}
    for f in FILES:
        with open(os.path.join(bundled_dir(), f + ".toml"), encoding="utf-8") as fh:
            tables[f + ".toml"] = fh.read()
    tables["errors.toml"] = bundle_kb() + ("\n[[signature]]\ncause = \"cudnn-execution-failed\"\nname = \"lookbehind\"\n"
                              "literal = \"cudnn\"\nregex = '(?<!x)cudnn_status_y'\n"
                              "source = \"https://github.com/google/re2/wiki/Syntax\"\n")
    bundle = tmp_path / "b.tar.gz"
    # dated by the bundle tests' calendar (newer than the bundled matrix, whatever the real date)
    bundle.write_bytes(build_bundle({k: v.encode() for k, v in tables.items()}, pem, bundle_clock.day(),
                                    expires=bundle_clock.day(90)))
    r = _envcheck(["matrix", "update", "--from", str(bundle)], ENVCHECK_CACHE_DIR=str(tmp_path / "cache"),
                  ENVCHECK_MATRIX_PUBKEY=str(tmp_path / "k.pub"))
    assert r.returncode == 2, r.stderr[-2000:]
    assert b"look-arounds" in r.stderr


def test_version_and_json_name_the_engine(tmp_path):
    r = _envcheck(["--version"], ENVCHECK_MATCHER="python-re")
    assert r.returncode == 0 and b"matcher: python-re" in r.stdout, r.stdout
    log = tmp_path / "l.log"
    log.write_text("RuntimeError: CUDNN_STATUS_BAD_PARAM\n")
    r = _envcheck(["explain", str(log), "--no-detect", "--json"], ENVCHECK_CACHE_DIR=str(tmp_path / "c"))
    assert json.loads(r.stdout)["matcher"] == ("re2" if HAVE_RE2 else "python-re")


def test_validate_kb_takes_the_bundled_errors_toml():
    assert validate_kb(_kb()) == []


@needs_re2
def test_re2_path_equals_the_literal_prefilter_path_on_hostile_bytes(monkeypatch, tmp_path):
    """Invalid UTF-8, NUL, \\r, non-ASCII, very long and repeated lines around real failure lines: the
    RE2 path (literal pass + Set per line) and the literal prefilter path (Python re, run here without
    its budget and line cap) read the same lines the same way."""
    import io

    from envcheck.explain import explain_stream, kb, scan_lines

    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    rnd = random.Random(7)
    real = []
    for rel in sorted(_golden())[:120]:
        with open(os.path.join(ROOT, rel), "rb") as fh:
            real += [x for x in fh.read().splitlines() if x.strip()][:40]
    junk = [b"\xff\xfe", b"\x00", b"\r", "é ٣ K ſ".encode(), b"\xe2\x82", b"cudnn " * 700, b"\t", b"libcudnn.so.8\xff"]
    lines = []
    for _ in range(3000):
        line = rnd.choice(real)
        if rnd.random() < 0.5:
            k = rnd.randrange(len(line) + 1)
            line = line[:k] + rnd.choice(junk) + line[k:]
        lines.append(line)
    data = b"\n".join(lines) + b"\n"

    def run():
        kb._CACHE.clear()
        a = _compact(explain_stream(io.BytesIO(data)))
        b = _compact(scan_lines(data.decode("utf-8", "replace").splitlines()))
        return json.loads(json.dumps(a)), json.loads(json.dumps(b))

    monkeypatch.delenv("ENVCHECK_MATCHER", raising=False)
    fast = run()
    monkeypatch.setenv("ENVCHECK_MATCHER", "python-re")
    monkeypatch.setattr(matcher, "BUDGET", 1 << 62)
    monkeypatch.setattr(matcher, "LINE_CAP", 20000)
    import envcheck.explain.kb as kbmod

    monkeypatch.setattr(kbmod, "BUDGET", 1 << 62)
    monkeypatch.setattr(kbmod, "LINE_CAP", 20000)
    slow = run()
    kb._CACHE.clear()
    assert fast[0]["matches"] and fast[0] == slow[0]
    assert fast[1] == slow[1]


def test_the_xpu_fact_in_two_rows_reads_what_the_one_with_word_boundaries_read():
    old = re.compile(r"(?P<value>\bXPU\b|UR_RESULT_ERROR_\w{1,40})", re.I)
    # the rows that replaced the old one (issue 21 later added a third xpu row, SYCL's PI_ERROR_OUT_OF_RESOURCES,
    # which the old pattern never read; intel35 a fourth, the SYCL runtime's Windows DLLs, likewise; newnv40 a veto
    # row, a traceback's source listing, which reads no value)
    rows = [compile_pattern(p, f) for p, f, _, w in kb_patterns(_kb())
            if w == "fact 'xpu'" and "PI_ERROR" not in p and "pi_level_zero" not in p and "?P<value>" in p]
    assert len(rows) == 2
    for line in _lines(11, 4000, extra=["XPU", "xpu", "UR_RESULT_ERROR_DEVICE_LOST", "XPUs", "intel-XPU"]):
        want = old.search(line)
        got = next((m for m in (r.search(line) for r in rows) if m is not None), None)
        if want is None or got is None:
            assert want is None and got is None, line
        elif not ("xpu" in line.lower() and "ur_result_error_" in line.lower()):
            # both spellings on one line: the first row wins (the old one took the leftmost); none in the logs
            assert got.group("value") == want.group("value"), line
