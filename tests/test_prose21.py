"""Issue 20, prose21: what the paste readers left unread or read wrongly.

* A sentence split over lines (a command on its own line in the middle of a sentence, a hard-wrapped sentence, a
  bullet continued on the next line): ``paste/readers/prose_join.Joiner`` reads the joined sentence.
* A prose line over 400 characters: read in pieces of whole sentences (``prose_join.pieces``), not skipped.
* attack34's finds: ANSI colour codes inside a message, a cut-off nvcc capture, HIP's insufficient-driver error on a
  machine of unknown vendor, a maintainer's environment pasted in the thread, ``cat requirements.txt`` pins.

Real samples: tests/data/pastes/prose21/ (README.md cites each thread); heldout/prose21 is scored by
scripts/score_pastes.py, not here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import observe
from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_join import LIMIT, Joiner, pieces
from tests.helpers import assert_top_is_label, check_hand_written_facts, doc_matches, paste_readme_rows

if TYPE_CHECKING:
    from envcheck.capture import Capture

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pastes" / "prose21"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}

#: the working part's misses, each with the answer it gets today (so that a fix, or a new wrong answer, is seen)
KNOWN_MISSES = {
    # "No GPU being used" and the fix "--extra-index-url .../cu121": nothing in the text names the CPU build
    "bark-437-windows-rtx4090-cuda-12.2-no-gpu-being-used-extra-index-cu121.txt": None,
    # the app's own "NVIDIA CUDA test failed" / "No GPUs detected" inside a container run without --gpus: no
    # signature of the knowledge base reads that app's lines
    "media-preview-generator-124-docker-run-without-gpus-cuda-test-failed-wrapped.txt": None,
    # "Pytorch cannot detect the GPUs" after a `docker run` of pytorch/pytorch:latest (no CUDA in its tag): nothing
    # shows the container was meant to use a GPU (engine.container needs the host's GPUs, a GPU image or nvcc)
    "nvidia-docker-1113-docker-run-pytorch-latest-without-gpus-nvidia-smi-unusable.txt": None,
}


def _doc(text: str) -> dict:
    return explain_text_document(text)


def _ids(text: str) -> List[str]:
    return [m["id"] for m in _doc(text).get("matches") or []]


def test_the_set_is_whole():
    assert len(ROWS) == 12
    assert sorted(ROWS) == sorted(p.name for p in DATA.glob("*.txt"))
    held = {p.name for p in (ROOT / "heldout" / "prose21").glob("*.txt")}
    assert len(held) == 8 and not held & set(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_top_cause_is_the_label(name):
    doc = _doc((DATA / name).read_text(encoding="utf-8"))
    assert_top_is_label(doc_matches(doc), name, ROWS[name], KNOWN_MISSES)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_hand_written_facts(name):
    want = json.loads((DATA / name).with_suffix(".facts.json").read_text())
    check_hand_written_facts(want, _doc((DATA / name).read_text(encoding="utf-8")).get("facts") or {})


# --- a sentence split over lines ---------------------------------------------------------------------------------------
#: iot-salzburg/gpu-jupyter#22 (heldout/acceptance10): the fix said around the command on its own line
GPU_JUPYTER = ['adding "--gpus all" to', "",
               "docker run -d -it -p 8848:8888 --gpus all -v $(pwd)/data:/home/jovyan/work -e GRANT_SUDO=yes -e "
               "JUPYTER_ENABLE_LAB=yes --user root --restart always --name gpu-jupyter_1 gpu-jupyter", "",
               "fixed the problem."]


def _joined(lines: List[str]) -> List[Fact]:
    joiner = Joiner(lambda text: observe.prose_facts_of(text))
    out: List[Fact] = []
    for s in lines:
        out += joiner.feed(s, observe.line_facts(s, s.lower()) if s else [])
    return out


def test_a_fix_said_around_a_command_line_is_read():
    got = _joined(GPU_JUPYTER)
    assert {f.field for f in got} == {"seen:resolution"}  # a thread's resolution: resolutions.toml maps --gpus
    assert any("--gpus all" in str(f.value) and "fixed the problem" in str(f.value) for f in got)
    # no line alone says the fix with its outcome (the last one alone is a bare "fixed the problem.")
    assert not any(f.field == "seen:resolution" and "--gpus" in str(f.value) for s in GPU_JUPYTER
                   for f in observe.line_facts(s, s.lower()))


def test_the_acceptance_paste_with_the_split_fix_is_no_gpu_visible():
    path = ROOT / "heldout" / "acceptance10" / "pastes" / "gpu-jupyter-22-container-without-gpus-all-driver-450.51.05.txt"
    assert _ids(path.read_text(encoding="utf-8"))[:1] == ["no-gpu-visible"]


@pytest.mark.parametrize("lines", [
    # a closed sentence is not continued
    ['adding "--gpus all" to the command.', "", GPU_JUPYTER[2], "", "Fixed the problem."],
    # two blank lines end the sentence
    GPU_JUPYTER[:2] + ["", GPU_JUPYTER[2], "", "", "fixed the problem."],
    # a header, a list item or a thread's author line starts no continuation
    ["# adding --gpus all to", "fixed the problem."],
    ["adding --gpus all to", "- fixed the problem."],
    ["adding --gpus all to", "tristanstoeber · comment · 2020-08-04", "fixed the problem."],
    # a line a report reader takes (None) ends the sentence
    GPU_JUPYTER[:1] + [None, "fixed the problem."],  # type: ignore[list-item]
])
def test_lines_that_make_no_sentence_are_not_joined(lines):
    joiner = Joiner(lambda text: observe.prose_facts_of(text))
    got: List[Fact] = []
    for s in lines:
        got += joiner.feed(s, observe.line_facts(s, s.lower()) if s else [])
    # (a joined "docker run ... --gpus all ... Fixed the problem." may be read: the phrase table wants the fix said
    # with what was done to the option, "adding", "with", "using": a bare command line is none)
    from envcheck.engine.resolution import causes_of
    from envcheck.matrix import load_matrix

    said = [str(f.value) for f in got if f.field == "seen:resolution"]
    assert not any(c == "no-gpu-visible" for v in said for c, _ in causes_of(load_matrix(), v)), said


def test_a_joined_sentence_spans_at_most_three_lines_and_each_line_is_read_a_bounded_number_of_times():
    calls: List[str] = []

    def read(text: str) -> List[Fact]:
        calls.append(text)
        return []

    joiner = Joiner(read)
    for _ in range(1000):
        joiner.feed("and then the torch install with", [])
    assert len(calls) == 999 and max(len(c) for c in calls) <= LIMIT
    assert max(c.count("with") for c in calls) <= 3


# --- a long prose line -------------------------------------------------------------------------------------------------
#: zzzyuqing/DreamMat#14, XZYW7's comment: the fix in the second sentence of a 400+ character line
DREAMMAT = ("I encountered the same problem and the command `nvidia-smi` didn’t work in docker. I solved this by installing "
            "the NVIDIA Container Toolkit and adding the parameter `--gpus all` when running docker. If you haven’t "
            "installed it, you can refer to this [issue](https://github.com/NVIDIA/nvidia-docker/issues/1071), and the "
            "[installation guide](https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/"
            "install-guide.html)")
#: tensorflow/tensorflow#43947 (tests/data/pastes/pastes20t): a 468-character line of links
TF_43947 = ("Folks, please refer to the [CUDA Toolkit Major Component Versions](https://docs.nvidia.com/cuda/archive/11.3.0/"
            "cuda-toolkit-release-notes/index.html#cuda-major-component-versions) of the specific CUDA version you are "
            "using. I have played around with [CUDA 11.0](https://docs.nvidia.com/cuda/archive/11.0/cuda-toolkit-release-"
            "notes/index.html#cuda-major-component-versions), and it has issues importing libcusolver.so.11 since only "
            "libcusolver.so.10 is available there.")


def test_a_long_line_is_read_in_pieces():
    assert len(DREAMMAT) > LIMIT
    got = observe.line_facts(DREAMMAT, DREAMMAT.lower())
    assert any(f.field == "seen:resolution" and "--gpus all" in str(f.value) for f in got)
    assert _ids("# CUDA not found in docker image\n\nI'm getting torch.cuda.is_available() = False.\n\n" + DREAMMAT
                + "\n")[:1] == ["no-gpu-visible"]


def test_pieces_are_bounded_whole_sentences_without_link_targets():
    got = pieces(TF_43947)
    assert got and all(len(p) <= LIMIT for p in got)
    assert not any("https://" in p for p in got)
    assert got[0].startswith("Folks, please refer") and got[-1].endswith("is available there.")
    # a sentence over the limit is cut at a blank; the next piece repeats at most 80 characters before the cut
    # (attack35: the words before a version stay with it), so every word is read, none more than twice
    words = pieces("word " * 300)
    assert all(len(p) <= LIMIT for p in words)
    assert 300 <= sum(p.count("word") for p in words) <= 300 + 16 * (len(words) - 1)


def test_a_version_played_around_with_is_no_claim():
    doc = _doc("# CUDA 11.1 error\n\n" + TF_43947 + "\n")
    assert not (doc.get("facts") or {}).get("claims")


def test_a_five_megabyte_single_line_paste_returns():
    text = ("my driver is too old and torch 2.1.0+cpu is installed, " * 95000)[:5 * 1024 * 1024]
    doc = _doc(text)
    assert isinstance(doc, dict)
    assert len(pieces(text[:20000])) >= 20000 // LIMIT


# --- a torch version named before its +cpu label -----------------------------------------------------------------------
@pytest.mark.parametrize("line,read", [
    ("Also checking the torch version reveals 2.0.0+cpu", True),  # oobabooga/textgen#369
    ("The torchvision version reveals 0.15.0+cpu", False),  # another package's label
    ("torch is fine but the torchaudio version shows 2.0.0+cpu", False),
])
def test_torch_named_before_the_cpu_label(line, read):
    got = [f for f in observe.line_facts(line, line.lower()) if f.field == "seen:torch-cpu-label"]
    assert bool(got) is read


# --- attack34 (a): a terminal's colour codes inside a message ---------------------------------------------------------
#: torch's real "no kernel image" line (tests/data/logs), coloured as a terminal copy keeps it: the escape sits inside
#: the message, splitting the knowledge base's literal
_COLOURED = ("\x1b[1;31mRuntimeError\x1b[0m: CUDA error: no kernel \x1b[33mimage\x1b[0m is available for execution on "
             "the device\n")


def test_colour_codes_inside_a_message_do_not_hide_it_from_explain():
    assert _ids(_COLOURED)[:1] == ["gpu-arch-unsupported"]  # explain (file, stdin, paste): explain_stream


def test_colour_codes_inside_a_message_do_not_hide_it_from_run():
    from envcheck.explain import explain_lines  # envcheck run's diagnosis of the job's stderr tail

    assert [m.id for m in explain_lines(_COLOURED.splitlines())][:1] == ["gpu-arch-unsupported"]
    eight_bit = _COLOURED.replace("\x1b[", "\x9b")
    assert [m.id for m in explain_lines(eight_bit.splitlines())][:1] == ["gpu-arch-unsupported"]


def test_an_escape_never_joins_two_lines():
    # an OSC sequence without its end stops at the line's end: the next line is read as itself
    text = "\x1b]0;title without end\n" + _COLOURED
    assert _ids(text)[:1] == ["gpu-arch-unsupported"]


# --- attack34 (b): a capture cut off gives no fact -------------------------------------------------------------------
def _toolkit(nvcc: "Capture") -> "Optional[str]":
    from envcheck.environment import build_environment
    from envcheck.matrix import load_matrix

    return build_environment({"nvcc.txt": nvcc}, load_matrix()).toolkit.version


#: nvcc --version's real first lines (tests/data), then what a flooding wrapper printed until the probe killed it
_NVCC_HEAD = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA Corporation\n"
              "Cuda compilation tools, release 12.4, V12.4.131\n" + "y\n" * 2000)


def test_a_cut_off_nvcc_capture_gives_no_toolkit():
    from envcheck.capture import CUT_OFF, FAILED, OK, Capture

    cut = Capture(FAILED, text=_NVCC_HEAD, detail=f"nvcc: {CUT_OFF} 4194304 bytes (killed)", origin="nvcc --version")
    assert cut.cut_off and _toolkit(cut) is None
    # the same text from a run that ended: read (a failed exit with the version printed still says it)
    assert _toolkit(Capture(OK, text=_NVCC_HEAD, origin="nvcc --version")) == "12.4"
    assert _toolkit(Capture(FAILED, text=_NVCC_HEAD, detail="nvcc: exit status 1", origin="nvcc --version")) == "12.4"


def test_the_probe_marks_a_flooding_program_cut_off(tmp_path, monkeypatch):
    import envcheck.proc as proc

    exe = tmp_path / "nvcc"
    exe.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\nyes y\n")
    exe.chmod(0o755)
    monkeypatch.setattr(proc, "MAX_OUTPUT", 10000)
    cap = proc.run_command([str(exe), "--version"], timeout=10)
    assert cap.cut_off and _toolkit(cap) is None


# --- attack34 (c): HIP's insufficient-driver error gets HIP's fix ----------------------------------------------------
@pytest.mark.parametrize("line", [
    "RuntimeError: HIP error: hipErrorInsufficientDriver\n",  # torch's "HIP error: <enum name>" form
    "RuntimeError: HIP error: driver version is insufficient for runtime version\n",  # hipGetErrorString's text
])
def test_hips_insufficient_driver_gets_the_rocm_way(line):
    m = _doc(line)["matches"][0]
    assert (m["id"], m["signature"]) == ("driver-too-old", "hip-error-insufficient-driver")
    assert "amdgpu kernel driver" in m["fixes"][0]
    assert not any("CUDA 11.x builds need a driver" in f for f in m["fixes"])  # no CUDA driver floors first or at all


def test_cudas_insufficient_driver_keeps_the_cuda_way():
    m = _doc("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n")["matches"][0]
    assert m["id"] == "driver-too-old" and not any("amdgpu" in f for f in m["fixes"])
    assert any("NVIDIA driver" in f for f in m["fixes"])


# --- attack34 (d): another author's environment in the thread --------------------------------------------------------
#: pytorch/pytorch#85332's description (the reporter's nvidia-smi header and torch), then a comment by another author
#: giving their own environment: pytorch/pytorch#33469's collect_env lines
_REPORTER = ("# torch.cuda.is_available()=false\n\nbanbsyip · description · 2022-09-20\nimport torch\n"
             "print(torch.cuda.is_available())\n\nreturn False\n\n### Versions\n\n"
             "nvidia-smi:NVIDIA-SMI 450.51.05    Driver Version: 450.51.05    CUDA Version: 11.0 \n"
             "print(torch.__version__)\n1.8.1+cu102\n\n")
_THEIR_ENV = ("Collecting environment information...\nPyTorch version: 1.4.0\nIs debug build: No\n"
              "CUDA used to build PyTorch: 10.0\n\nOS: Ubuntu 16.04.6 LTS\nPython version: 3.7\nIs CUDA available: Yes\n"
              "CUDA runtime version: Could not collect\nGPU models and configuration: \nGPU 0: TITAN Xp\nGPU 1: TITAN Xp\n\n"
              "Nvidia driver version: 410.129\ncuDNN version: Could not collect\n")


def _facts(text: str) -> dict:
    return _doc(text).get("facts") or {}


@pytest.mark.parametrize("intro,quote", [
    ("I can't reproduce it, my env:", ""),  # a maintainer's own environment in their comment
    ("Works on my machine.", ""),
    ("> my env:", "> "),  # someone's environment quoted
])
def test_another_authors_environment_is_not_the_reporters(intro, quote):
    reply = "awreed · comment · 2022-09-21\n" + intro + "\n" + "".join(quote + ln + "\n" for ln in _THEIR_ENV.splitlines())
    facts = _facts(_REPORTER + reply)
    assert (facts.get("driver") or {}).get("version") == "450.51.05"
    assert len(facts.get("gpus") or []) == 0 and "1.4.0" not in json.dumps(facts)


def test_the_reporters_own_environment_in_a_later_comment_is_read():
    reply = "banbsyip · comment · 2022-09-21\nmy env:\n" + _THEIR_ENV
    facts = _facts(_REPORTER + reply)
    assert [g.get("name") for g in facts.get("gpus") or []][:1] == ["TITAN Xp"]


def test_a_thread_without_author_lines_is_one_authors():
    facts = _facts("my env:\n" + _THEIR_ENV)
    assert (facts.get("driver") or {}).get("version") == "410.129"


# --- attack34 (e): a requirements file's pins are wishes, not installs ----------------------------------------------
#: clovaai/CRAFT-pytorch#196: the project's requirements.txt quoted in a sentence that names it
_CRAFT = ("nyck33 · description · 2023-07-15\nI tried running this on Colab and had to change the requirements.txt from\n"
          "```\ntorch==0.4.1.post2\ntorchvision==0.2.1\nopencv-python==3.4.2.17\nscikit-image==0.14.2\nscipy==1.1.0\n```\n")
_PINS = "torch==0.4.1.post2\ntorchvision==0.2.1\nopencv-python==3.4.2.17\n"


@pytest.mark.parametrize("text", [
    _CRAFT,
    "$ cat requirements.txt\n" + _PINS,
    "(venv) user@host:~/CRAFT-pytorch$ cat requirements.txt\n" + _PINS,
    "PS C:\\CRAFT-pytorch> type requirements.txt\n" + _PINS,
    "requirements.txt:\n```\n" + _PINS + "```\n",
])
def test_a_requirements_files_pins_are_no_installed_torch(text):
    assert "torch" not in ((_facts(text).get("frameworks")) or {})


@pytest.mark.parametrize("text", [
    "$ pip freeze\n" + _PINS,  # what is installed
    "$ pip install -r requirements.txt\n\n$ pip freeze\n" + _PINS,
    "I installed everything from requirements.txt.\n\n" + _PINS,  # the pins after a blank line: their own block
])
def test_installed_pins_are_still_read(text):
    assert ((_facts(text).get("frameworks") or {}).get("torch") or {}).get("version") == "0.4.1.post2"
