"""Issue 20 (facts22): facts in every form a thread states them - a key in any language, half- or full-width colons,
``=`` / ``->`` / tab / aligned columns or a blank alone, and a bare answer to a question in the next comment.

46 real pastes in two batches (tests/data/pastes/facts22, README.md cites each thread; a seeded 40% of each batch held
back in heldout/facts22-held, scored by scripts/score_pastes.py, not here). The reader: :mod:`envcheck.paste.readers.key_value` with the one key table
:mod:`envcheck.paste.readers.kv_keys` (the bullets', the Chinese template's and the issue form's keys are its entries);
the question -> answer pairing: :mod:`envcheck.paste.thread`.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import List, Optional

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import key_value, kv_keys
from envcheck.paste.thread import ThreadWatch
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "facts22"
HELD = ROOT / "heldout" / "facts22-held"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's top-1 misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # CUDA 9.1 is said only as "I used 9.1" under the reporter's own question, and failure code 35's meaning only in
    # the maintainer's quote of driver_types.h: nothing the engine reads names the toolkit the driver is too old for
    "tsdf-fusion-14-my-nvidia-driver-version-is-384.111-quadro-m2200-cuda-9.1.txt": None,
    # the driver only as "(The same drive 397.64)" (a typo of the key) and CUDA 10.0 only in the maintainer's reply
    "waifu2x-caffe-130-gtx1060-the-same-drive-397.64-cuda-10.0-needs-411.31.txt": None,
}
#: facts the hand-written files state that explain keeps elsewhere by an older rule (field -> what explain gives)
KNOWN_FACT_MISSES = {
    # a typed "CUDA toolkit 12.8" / "Cuda Toolkit: 10.1" / "用的是CUDA11.0" is the user's claim (facts.claims), never
    # the detected toolkit (fields._typed_claim, tests/data/pastes/facts20s/tf-36426-*); nvcc's path is not read
    "aoneus-2-control-rtx5060-driver-13.0-is-a-cuda-torch-2.9.1-cu128.txt": {"toolkit.version": None},
    "pytorch-112500-control-driver-version-no-colon-545.23.08-cuda-toolkit-10.1-worked.txt": {"toolkit.version": None},
    "lfd-12-zh-my-gpu-is-3090-using-cuda11.0-sm86-not-in-list.txt": {"toolkit.version": None},
    # Paddle's "Driver API Version: 12.2" stays in the merged view: facts keep driver.cuda to nvidia-smi's field
    # (paste/report.py)
    "paddleocr-11248-title-cuda11.8-cudnn8.9.6-paddlepaddle-gpu2.5.2-pascal-not-in-arch-70-86.txt": {"driver.cuda": None},
    # "drive 397.64": no key of the table
    "waifu2x-caffe-130-gtx1060-the-same-drive-397.64-cuda-10.0-needs-411.31.txt": {"driver.version": None},
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _facts(text: str) -> dict:
    return _doc(text).get("facts") or {}


def _at(d: dict, key: str):
    for part in key.split("."):
        d = d.get(part) if isinstance(d, dict) else None
    return d


def test_the_set_is_whole_and_split():
    held = {p.name for p in HELD.glob("*.txt")}
    assert len(ROWS) == 28 and len(held) == 18 and not held & set(ROWS)  # two batches: 19 + 9 and 12 + 6
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert all((DATA / n).with_suffix(".facts.json").is_file() for n in ROWS)
    assert sum(1 for v in ROWS.values() if v == "none") == 8


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    assert_top_is_label(doc_matches(_doc((DATA / name).read_text(encoding="utf-8"))), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    """Every field of the hand-written file, nulls included; a known miss gives exactly what it gives today."""
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text(encoding="utf-8"))
    got = _facts((DATA / name).read_text(encoding="utf-8"))
    misses = KNOWN_FACT_MISSES.get(name, {})
    rest = copy.deepcopy(want)
    for key, today in misses.items():
        assert _at(got, key) == today and _at(want, key) != today, key
        head, _, leaf = key.rpartition(".")
        del _at(rest, head)[leaf]
    check_hand_written_facts(rest, got)


# --- the key table ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key,kind", [
    ("Driver Version", "driver"), ("驱动版本", "driver"), ("显卡驱动版本", "driver"), ("ドライバのバージョン", "driver"),
    ("드라이버 버전", "driver"), ("Версия драйвера", "driver"), ("Treiberversion", "driver"),
    ("version du pilote", "driver"), ("versión del controlador", "driver"), ("versão do driver", "driver"),
    ("Python 版本 / Python version", "python"), ("Python version | Python 版本", "python"), ("**PyTorch版本**", "torch"),
    ("PyTorch Version (e.g., 1.0)", "torch"), ("CUDA版本", "cuda"), ("显卡型号", "gpu"), ("Видеокарта", "gpu"),
    ("Python version / 驱动版本", None),  # two kinds: no label
    ("Version number", None), ("GPU VRAM", None),
    ("$ docker run --gpus all --rm nvidia/cuda", None),  # a path's last part is no key
    ("GPU型号/显存", "gpu"),  # a second Chinese label the table lacks is left out
    ("使用的模型（ChatGLM2-6B / Qwen-7B 等）", None),  # a slash inside the hint parts nothing
])
def test_kind_of_a_key(key, kind):
    assert kv_keys.kind_of(key) == kind


def test_the_bullets_and_the_chinese_template_read_the_same_table():
    from envcheck.paste.readers import fields, zh_template

    assert set(fields._BULLET_DRIVER) == set(kv_keys.keys_of("driver"))
    assert {"驱动版本", "nvidia-smi", "driver version"} <= set(fields._BULLET_DRIVER)
    assert set(zh_template._ZH_KINDS) <= set(kv_keys.KEYS.values())


# --- one key-value line ---------------------------------------------------------------------------------------------------
def _line(s: str) -> dict:
    return {f.field: f.value for f in key_value._facts(s) if not f.field.startswith(("seen:", "format"))}


@pytest.mark.parametrize("line,want", [
    ("driver：430.64", {"driver": "430.64"}),  # a full-width colon
    ("Версия драйвера: 470.82.01", {"driver": "470.82.01"}),
    ("ドライバのバージョン 531.14", {"driver": "531.14"}),  # a blank alone after a driver's key
    ("드라이버 버전: 531.41", {"driver": "531.41"}),
    ("Treiberversion: 546.33", {"driver": "546.33"}),
    ("- version du pilote : 537.58", {"driver": "537.58"}),
    ("Driver Version = 535.54.03", {"driver": "535.54.03"}),
    ("Driver Version 545.23.08", {"driver": "545.23.08"}),  # pytorch/pytorch#112500
    ("Driver version       : 595.71.05", {"driver": "595.71.05"}),  # NVIDIA/cudnn-frontend#400's aligned columns
    ("Driver\t550.54.15", {"driver": "550.54.15"}),
    ("NVIDIA driver -> 470.57.02", {"driver": "470.57.02"}),
    ("Python            : 3.10.12 (main, Feb  4 2025, 14:57:36) [GCC 11.4.0]", {"python": "3.10.12"}),
    ("# torch version: 2.4.0a0+git0b331fd", {"torch.version": "2.4.0a0+git0b331fd"}),  # NVIDIA/Fuser#2578
    ("CUDA版本：10.2", {"claim.cuda": "10.2", "claim.from": "CUDA/cuDNN version: CUDA 10.2"}),  # a claim, not a toolkit
])
def test_a_key_value_line_is_read(line, want):
    assert _line(line) == want


@pytest.mark.parametrize("line", [
    "Driver 13.0",  # kzhang2/aoneus#2: a CUDA version under a driver's key
    "Driver: CUDA 12.2",  # a CUDA version under a driver key
    "显卡驱动版本 430",  # a branch, not a version
    "- Python版本：py31013",  # zzc0721/torch-performance-test-data#131: no version
    "- PyTorch版本：torch270cu128",
    "What is your driver version?",  # a question
    "驱动版本是多少？",
    "CUDA 11.x or later",  # a range
    "Driver version: 450 or later",
    "驱动版本：450.80.02 以上",  # a floor
    "CUDA version: 11.8 is required",  # a wish
    "python=3.8",  # a package pin, not a key and a value
    "# CUDA 10.2",  # xbpeng/MimicKit#6: a comment labelling the install command under it
    "CUDA                12.8",  # a tool's column, or a toolkit tried: CUDA is read after a separator only
    "- CUDA Toolkit 11.2.0",
    "$ docker run --gpus all --shm-size 16G -it --rm nvidia/cuda:11.6.0-cudnn8-devel-ubuntu20.04 /bin/bash",
    "## Driver version: 535.54.03",  # a Markdown heading, not a code comment
    "My favourite driver: 535.54.03 on the other machine is fine",  # no key of the table
])
def test_a_line_that_states_no_fact(line):
    assert _line(line) == {}


def test_a_long_line_of_blanks_and_separators_returns_at_once():
    for s in (" " * 5000 + ":" + " " * 5000, "Driver" + " " * 3000 + "1" * 3000, "=" * 10000, "：" * 10000):
        t = time.perf_counter()
        key_value._facts(s)
        key_value.answer("driver", s)
        assert time.perf_counter() - t < 0.05


# --- a question and its answer in the thread --------------------------------------------------------------------------------
def _thread(*parts: str) -> str:
    return "\n".join(parts) + "\n"


#: pytorch/pytorch#31243 (heldout/acceptance11): the maintainer's question, the reporter's bare answer
Q_31243 = _thread(
    "# torch.cuda.is_available() is False", "", "ucasiggcas · description · 2019-12-13",
    "$ pip install torch===1.3.0 torchvision===0.4.1 -f https://download.pytorch.org/whl/torch_stable.html",
    "", "peterjc123 · comment · 2019-12-13",
    "Would you please update the gpu driver? What's the output of nvidia-smi?", "",
    "ucasiggcas · comment · 2019-12-13", "@peterjc123 ", "410.48,,", "need higher ??")


def test_a_bare_answer_to_a_driver_question_is_the_driver():
    assert _at(_facts(Q_31243), "driver.version") == "410.48"


def test_the_same_bare_value_without_the_question_is_no_fact():
    text = Q_31243.replace("Would you please update the gpu driver? What's the output of nvidia-smi?", "Thanks.")
    assert _at(_facts(text), "driver.version") is None


def test_a_question_not_answered_reads_nothing_later():
    # the asker's own later comment is no answer, and only the first lines of the reporter's next comment may be one
    text = _thread(
        "a · description · 2020-01-01", "torch fails", "", "b · comment · 2020-01-02", "What's your driver version?",
        "", "b · comment · 2020-01-03", "410.48", "", "a · comment · 2020-01-04", "I will look tomorrow", "Thanks!",
        "410.48", "", "a · comment · 2020-01-05", "410.48")
    assert _at(_facts(text), "driver.version") is None


def test_an_answer_with_a_cuda_version_is_no_driver():
    # "CUDA's 12.2 is not a driver": the bare answer must look like what was asked for
    text = Q_31243.replace("410.48,,", "12.2")
    assert _at(_facts(text), "driver.version") is None


def test_a_question_of_several_kinds_pairs_no_bare_value():
    text = Q_31243.replace("What's the output of nvidia-smi?", "What are your torch and CUDA versions?")
    f = _facts(text)
    assert _at(f, "frameworks.torch.version") in (None, "1.3.0") and _at(f, "driver.version") is None


def _foreign(text: str) -> List[bool]:
    w = ThreadWatch()
    return [w.foreign(ln) for ln in text.splitlines()]


#: Fediory/HVI-CIDNet#71: the reporter asks the author's CUDA; the author answers with their own nvidia-smi lines
HVI = _thread("# cuda版本", "", "lxr1137805288 · description · 2025-03-25", "想知道作者在此项目使用的cuda版本，谢谢！", "",
              "Fediory · comment · 2025-03-25", "NVIDIA-SMI 517.00       ", "Driver Version: 517.00       ",
              "CUDA Version: 11.7")


def test_the_answer_of_another_author_is_their_machine():
    assert _foreign(HVI)[-3:] == [True, True, True]
    assert _at(_facts(HVI), "driver.version") is None


def test_the_reporters_own_answer_stays_theirs():
    text = _thread("a · description · 2020-01-01", "torch fails", "", "b · comment · 2020-01-02",
                   "Which GPU do you have?", "", "a · comment · 2020-01-03", "- Driver Version: 535.54.03")
    assert not any(_foreign(text)) and _at(_facts(text), "driver.version") == "535.54.03"


def test_a_reporters_later_comment_after_anothers_answer_is_theirs_again():
    text = HVI + _thread("", "lxr1137805288 · comment · 2025-03-26", "- Driver Version: 470.82.01")
    assert _foreign(text)[-1] is False and _at(_facts(text), "driver.version") == "470.82.01"


@pytest.mark.parametrize("line,own", [
    ("I'm using RTX 2080Ti, CUDA 10.2, Ubuntu 16.04, cuDNN8.3.0;", True),  # VinAIResearch/CPM#9, a third user
    ("I trained and tested the code on _RTX 2080Ti, CUDA 10.2, Ubuntu 18.04_", True),  # the maintainer there
    ("I'm using the default config", False),
    ("It fails when I'm using it on Windows", False),
])
def test_a_comment_that_gives_the_writers_own_machine(line, own):
    text = _thread("a · description · 2020-01-01", "torch fails", "", "b · comment · 2020-01-02", line,
                   "- Driver Version: 535.54.03")
    assert _foreign(text)[-1] is own


@pytest.mark.parametrize("line,kind", [
    ("What's the output of nvidia-smi?", None),  # no addressee: a question to anyone
    ("Would you please update the gpu driver? What's the output of nvidia-smi?", "driver"),
    ("Which version of PyTorch are you using?", "torch"),
    ("Btw, what's your GPU?", "gpu"),
    ("想知道作者在此项目使用的cuda版本，谢谢！", "cuda"),
    ("What are your torch and CUDA versions?", ""),
    ("Can you share your environment?", ""),
    ("I updated the driver to 535.", None),  # no question
    ("你好，我在训练时报了这个错误，是cuda的问题吗？", None),  # a greeting is no addressee
])
def test_what_a_question_asks_for(line, kind):
    from envcheck.paste.thread import _asked_kind

    assert _asked_kind(line) == kind


def test_many_author_lines_and_questions_are_linear():
    one = _thread("a · description · 2020-01-01", "x", "b · comment · 2020-01-02", "What's your driver version?",
                  "a · comment · 2020-01-03", "410.48")
    text = one * 3000
    t = time.perf_counter()
    _foreign(text)
    assert time.perf_counter() - t < 2.0


def _answer(kind: str, line: str) -> Optional[str]:
    p = key_value.answer(kind, line)
    return p.get("driver") or p.get("torch.version") or p.get("python")


@pytest.mark.parametrize("kind,line,want", [
    ("driver", "410.48,,", "410.48"), ("driver", "`535.54.03`", "535.54.03"), ("driver", "470", None),
    ("driver", "need higher ??", None), ("torch", "1.13.1+cu117", "1.13.1+cu117"), ("python", "3.10.6", "3.10.6"),
    ("gpu", "410.48", None), ("driver", "x" * 100, None),
])
def test_a_bare_answer_is_checked_like_its_key(kind, line, want):
    assert _answer(kind, line) == want
