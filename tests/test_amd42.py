"""amd42 (session 25): Ollama leaving an AMD GPU unused because its own ROCm build has no code for the GPU's gfx
target - "runs 100% on cpu" on a 780M with Ollama 0.4.7, "uses CPU only" on a Radeon 890M with Windows Ollama 0.22.0,
"gfx1103 not detected", "I didn't see gfx803 in the list" - decided from the gfx targets Ollama's ROCm build is
compiled for by release and platform (compat_matrix/rocm.toml ``[[ollama_rocm]]``, read at each release tag), with
AMD model names resolved by ``[[amd_model_gfx]]``.

Real threads in tests/data/amd42 (README: file, label, source); a third was held back in heldout/amd42-held before the
rules were written (scored by scripts/score_pastes.py, never asserted here). What the rules read:
envcheck/paste/readers/ollama_amd.py (evidence), envcheck/engine/ollama_amd.py (the finding, called from
envcheck/engine/vendors_prose.py).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches, sample_rows  # noqa: E402

from envcheck.engine.ollama_amd import gpu_gfx, ollama_target_missing, rows_for  # noqa: E402
from envcheck.matrix import load_matrix  # noqa: E402
from envcheck.paste.readers.ollama_amd import ollama_facts  # noqa: E402
from envcheck.versions import version_tuple  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "amd42", "pastes")
HELD = os.path.join(ROOT, "heldout", "amd42-held", "pastes")
MATRIX = load_matrix()

PASTES = sample_rows(DEV, ".txt")
#: Vega 10 is named by its die, which no table resolves to gfx900: the rule cannot tell (a known limit)
KNOWN_LIMIT = {"ollama-12774-0.12.5-rocm-vega-10-failure-during-gpu-discovery-worked-on-0.12.3.txt"}
#: the spent samples of the family (acceptance23 / 29), read as they are
SPENT = [
    os.path.join(ROOT, "heldout", "acceptance29", "pastes",
                 "ollama-12698-rocm-7.0-from-source-gfx1103-igpu-not-detected-rocm-smi-concise-info.txt"),
    os.path.join(ROOT, "heldout", "acceptance23", "pastes",
                 "ollama-for-amd-installer-6-rx580-gfx803-not-in-list-only-rocm-5.7-build-supports-gfx803.txt"),
]


def test_listing():
    files = sorted(f for f in os.listdir(DEV) if f.endswith(".txt"))
    assert sorted(r[0] for r in PASTES) == files
    held_rows = sample_rows(HELD, ".txt")
    assert sorted(r[0] for r in held_rows) == sorted(f for f in os.listdir(HELD) if f.endswith(".txt"))
    urls = [r[2] for r in PASTES + held_rows]
    assert len(urls) == len(set(urls))  # each thread once
    assert sum(1 for r in PASTES if r[1] == "none") >= 4


def _ours(matches):
    return [m for m in matches if "Ollama" in str(m.get("evidence")) and "gfx targets the ROCm build" in str(m.get("evidence"))]


@pytest.mark.parametrize("name,label,source", PASTES, ids=[r[0][:60] for r in PASTES])
def test_dev_thread(name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    if name in KNOWN_LIMIT:
        assert not _ours(matches)
        return
    assert any(m["id"] == label for m in matches), [(m["id"], m["score"], m["evidence"]) for m in matches]
    if "3497" not in name:  # Ollama's CUDA probe line ("cudart init failure: 35") still ranks first there
        assert matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]


@pytest.mark.parametrize("path", SPENT, ids=["ollama-12698", "installer-6"])
def test_spent_family_samples(path):
    matches = explain_cli_matches("--no-detect", path)
    assert matches and matches[0]["id"] == "gpu-arch-unsupported", [(m["id"], m["evidence"]) for m in matches]
    assert _ours(matches)


# --- the reader's evidence ------------------------------------------------------------------------------------------

def _seen(text):
    return {f.field[5:]: str(f.value) for f in ollama_facts(text.splitlines()).facts}


def test_reader_form_answers_and_date():
    got = _seen("# 9070XT not being used despite being detected on log\n\nme · description · 2025-05-21\n"
                "### OS\n\nWindows\n\n### Ollama version\n\n0.7.0\n"
                'time=x msg="inference compute" id=0 library=rocm compute=gfx1201 name="AMD Radeon RX 9070 XT"\n')
    assert got["ollama-version"].split(" | ")[0] == "0.7.0"
    assert got["ollama-os"].split(" | ")[0] == "windows"
    assert got["text-date"] == "2025-05-21"
    assert got["ollama-gfx"] == "gfx1201"
    assert "9070XT" in got["ollama-amd-model"]


def test_reader_list_of_targets_is_not_the_gpu():
    line = ('level=WARN source=amd_linux.go:376 msg="amdgpu is not supported (supported types:[gfx1010 gfx1030 gfx1100 '
            'gfx900])" gpu_type=gfx1031 gpu=0 library=/usr/lib/ollama\nno compatible amdgpu devices detected')
    assert _seen(line)["ollama-gfx"] == "gfx1031"
    assert _seen("ollama: Support lists: gfx906, gfx1030, gfx1103\nollama does not use my GPU").get("ollama-gfx") is None


def test_reader_needs_ollama_and_a_symptom():
    assert _seen("my RX 6600 runs 100% on cpu with llama.cpp") == {}  # no Ollama named
    assert _seen("ollama 0.5.7 with my RX 6600 XT, great speed") == {}  # no GPU left unused
    got = _seen("i tried ollama 0.4.7 (on win11)\nbut it still runs 100% on cpu.")
    assert got["ollama-version"].startswith("0.4.7 | ") and got["ollama-os"].startswith("windows")


def test_reader_platform_unknown_when_both_named():
    got = _seen("ollama on windows runs on the CPU\nAlso I use ollama with linux")
    assert "ollama-os" not in got


# --- the table and the rule -----------------------------------------------------------------------------------------

def _rows(platform):
    rows = [r for r in MATRIX.rows("rocm", "ollama_rocm") if r["platform"] == platform]
    return sorted(rows, key=lambda r: version_tuple(r["since"]))


@pytest.mark.parametrize("platform", ["linux", "windows"])
def test_table_releases_do_not_overlap(platform):
    rows = _rows(platform)
    assert rows
    for a, b in zip(rows, rows[1:]):
        assert version_tuple(a["since"]) <= version_tuple(a["until"]) < version_tuple(b["since"])
        assert a["date"] <= b["date"]
    for r in rows:
        assert r["source"].startswith("ollama/ollama@") and len(r["source"].split("@")[1].split(":")[0]) == 40


def _lines(**kw):
    out = {"ollama-gpu-unused": kw.pop("said", "it still runs 100% on cpu")}
    out.update({k.replace("_", "-"): v for k, v in kw.items()})
    return out


def test_rule_release_stated_and_a_newer_release_covers_it():
    lines = _lines(ollama_gfx="gfx1103", ollama_os="linux | Ubuntu", ollama_version="0.17.7 | ollama 0.17.7")
    f = ollama_target_missing(MATRIX, {}, lines)
    assert f is not None and f.id == "gpu-arch-unsupported" and "0.18.0" in f.fix
    # the release that lists it: the build has its code, nothing is said
    lines["ollama-version"] = "0.18.0 | ollama 0.18.0"
    assert ollama_target_missing(MATRIX, {}, lines) is None


def test_rule_platform_matters():
    # gfx1150 is in the Linux ROCm 7 build of 0.22.0, not in the Windows ROCm 6 one (ollama/ollama#15878)
    win = _lines(ollama_amd_model="Radeon 890M", ollama_os="windows | ### OS: windows", ollama_version="0.22.0 | x")
    assert ollama_target_missing(MATRIX, {}, win) is not None
    lin = dict(win, **{"ollama-os": "linux | Ubuntu"})
    assert ollama_target_missing(MATRIX, {}, lin) is None
    both = {k: v for k, v in win.items() if k != "ollama-os"}  # unknown platform: every platform must lack it
    assert ollama_target_missing(MATRIX, {}, both) is None


def test_rule_release_by_the_threads_date():
    lines = _lines(ollama_gfx="gfx1103", ollama_os="linux | x", text_date="2025-10-19")
    f = ollama_target_missing(MATRIX, {}, lines)
    assert f is not None and "2025-10-19" in f.message
    lines["text-date"] = "2026-04-10"  # the newest release then (0.20) builds gfx1103 for Linux
    assert ollama_target_missing(MATRIX, {}, lines) is None


def test_rule_dropped_target_says_so():
    lines = _lines(ollama_gfx="gfx900", ollama_os="linux | x", ollama_version="0.12.5 | x")
    f = ollama_target_missing(MATRIX, {}, lines)
    assert f is not None and "earlier releases" in f.fix


def test_rule_a_supported_gpu_beside_keeps_it_silent():
    # a 7900 XTX (gfx1100) beside a Raphael iGPU (gfx1036): Ollama has code for the first
    facts = {"gpus": [{"vendor": "amd", "device_id": "0x744c"}, {"vendor": "amd", "gfx": "gfx1036"}]}
    assert {g for g, _ in gpu_gfx(MATRIX, facts, {})} >= {"gfx1036"}
    assert ollama_target_missing(MATRIX, facts, _lines(ollama_os="linux | x", ollama_version="0.3.0 | x")) is None


def test_rule_unknown_decides_nothing():
    assert ollama_target_missing(MATRIX, {}, _lines(ollama_amd_model="Vega 10")) is None  # no exact model
    assert ollama_target_missing(MATRIX, {}, {"ollama-gfx": "gfx803"}) is None  # no GPU said unused
    assert ollama_target_missing(None, {}, _lines(ollama_gfx="gfx803")) is None


def test_rows_for_falls_back_to_the_newest():
    rows, how = rows_for(MATRIX, "linux", "9.9.9", None)
    assert how == "newest" and rows and rows[0]["until"] == _rows("linux")[-1]["until"]


def test_reader_another_authors_example_target_is_not_the_gpu():
    # ollama/ollama#3781's answer: "search `gfx1102` , add your gpu" - the reporter's GPU is the RX 6600 XT
    text = ("# How to run Ollama using AMD RX 6600 XT on Windows 11?\n\nme · description · 2024-04-20\n"
            "The responses are slow as the CPU is prioritised.\n\nhelper · comment · 2024-04-21\n"
            "then search `gfx1102` , add your gpu where ever `gfx1102` show\n")
    got = _seen(text)
    assert "ollama-gfx" not in got and got["ollama-amd-model"] == "RX 6600 XT"
    # only another author names the GPU: theirs is read
    got = _seen("# no GPU\n\nme · description · 2025-10-24\nollama runs on the CPU\n\nhelper · comment · 2025-10-24\n"
                "your gfx1035 is not in the list\n")
    assert got["ollama-gfx"] == "gfx1035"


def test_rule_not_beside_an_nvidia_gpu():
    facts = {"gpus": [{"name": "NVIDIA GeForce RTX 4070", "vendor": "nvidia"}, {"vendor": "amd", "gfx": "gfx1036"}]}
    lines = _lines(ollama_os="linux | x", ollama_version="0.5.7 | x")
    assert ollama_target_missing(MATRIX, {"gpus": facts["gpus"][1:]}, lines) is not None
    assert ollama_target_missing(MATRIX, facts, lines) is None
