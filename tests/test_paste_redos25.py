"""Review of the paste readers (review25): patterns compiled with Python's backtracking ``re`` that took time
quadratic or worse in a line's length, so that a crafted paste of half a megabyte (the most explain keeps of a
text) held ``envcheck explain`` for tens of seconds to minutes. Each case below took 0.1-0.3 s per 2,000-character
line before the fix (300 lines: 30-90 s); linear patterns read them in milliseconds. As in
tests/test_parsers_property.py, the bound is far above a linear run and far below a quadratic one: not a speed
test. The facts read from ordinary lines of the same forms are checked too (the fix must keep what they read)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from envcheck.paste import read_report
from envcheck.paste.readers.base import MEM

LINES = 300
HOSTILE = {
    # the Chinese template's key: value (zh_template._ZH_KV): a lazy value of up to 500 characters before \s*$
    "zh-kv-spaces": '"cuda:' + " " * 1990 + "x",
    # a GPU's memory cut off its name (base.MEM), in TensorFlow's template and in bullets: \d+ from every digit
    "tf-gpu-digits": "GPU model and memory: NVIDIA " + "0" * 1990 + "x",
    "bullet-gpu-digits": "- GPU model and memory: NVIDIA " + "0" * 1990 + "x",
    "bullet-gpu-blanks": "- GPU: NVIDIA" + " ," * 995 + "x",
}


@pytest.mark.parametrize("label", sorted(HOSTILE))
def test_hostile_lines_are_read_in_linear_time(label):
    line = HOSTILE[label]
    text = line if "\n" in line else (line + "\n") * LINES
    t0 = time.perf_counter()
    read_report(text)
    elapsed = time.perf_counter() - t0
    assert elapsed < 10.0, "%.1f s for %d characters" % (elapsed, len(text))


def test_paddle_summary_lines_are_read_in_linear_time():
    r"""Paddle's summary_env ``key: value`` (paddle_env._KV, a lazy value of up to 200 characters before \s*$):
    its reader handed 3,000 lines of blanks directly (a block in a paste is cut shorter)."""
    from envcheck.paste.readers import paddle_env

    t0 = time.perf_counter()
    paddle_env.read(["****** Paddle Environment ******"] + ["Paddle version:" + " " * 1990 + "x"] * 3000)
    elapsed = time.perf_counter() - t0
    assert elapsed < 10.0, "%.1f s" % elapsed


def test_paddle_summary_fields_still_read():
    from envcheck.paste.readers import paddle_env

    p = paddle_env.read(["****** Paddle Environment ******", "Paddle version: 2.5.2   ", "CUDA version: 11.8.89",
                         "Build cuda_11.8.r11.8/compiler.31833905_0", "Paddle With CUDA:    True", "Paddle version: " + "9" * 300])
    assert ("nvcc!", "Cuda compilation tools, release 11.8, V11.8.89\n") in [(f.field, f.value) for f in p.facts]
    assert "2.5.2" in [f.value[1] for f in p.facts if f.field == "package" and isinstance(f.value, tuple)]


@pytest.mark.parametrize("text, want", [
    ("GeForce RTX 3090 24GB", "GeForce RTX 3090"),
    ("Tesla V100-SXM2 (16 GB)", "Tesla V100-SXM2"),
    ("NVIDIA A100, 40GB", "NVIDIA A100"),
    ("RTX 4090 24 GiB", "RTX 4090"),
    ("A10080GB", "A"),  # the whole digit run is the size, as before
    ("T4 15.1GB", "T4"),
    ("x 1.2.5GB", "x 1."),  # the leftmost match: "2.5GB"
    ("GPU 5(16GB)", "GPU 5"),
    ("RTX 3090", "RTX 3090"),
    ("no size 24GBx", "no size 24GBx"),
])
def test_mem_cuts_the_same_text_as_before(text, want):
    assert MEM.sub("", text).strip(" ,(") == want


def test_zh_template_lines_still_read():
    r = read_report("- 显卡：NVIDIA GeForce RTX 3090   \n- 驱动版本: 535.104.05\n- Python 版本 / Python version:  3.10.12  \n")
    assert r.facts["python"]["version"] == "3.10.12"
    assert [g.get("name") for g in r.facts["gpus"]] == ["NVIDIA GeForce RTX 3090"]
    assert r.facts["driver"]["version"] == "535.104.05"


def test_zh_template_value_over_500_characters_is_not_read():
    """As before: a value of more than 500 characters (trailing blanks apart) is no template's field."""
    r = read_report("- 显卡：NVIDIA " + "A" * 600 + "\n")
    assert not r.facts.get("gpus")


def test_explain_cli_on_a_hostile_paste_ends(tmp_path):
    """End to end, as a user runs it: an nvidia-smi header line, then 100 crafted lines, three times (600 KB; what
    explain keeps of it is read by the paste readers). 28.6 s before the fix, 0.35 s after (review25, 2-core
    machine): the timeout is far from both."""
    f = tmp_path / "paste.txt"
    f.write_text(("nvidia-smi 535.54 driver version\n" + ('"cuda:' + " " * 1990 + "x\n") * 100) * 3)
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", "--no-detect", str(f)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert json.loads(r.stdout)["schema"] == "envcheck/explain/1"
