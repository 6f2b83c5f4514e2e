"""Attacks of helper attack36 (session 13): each test failed before its fix.

* A thread's resolution (paste/readers/resolution.py) read a fix where the sentence says it failed or was someone
  else's: a negation that is the subject ("Even after updating the NVIDIA driver, nothing worked."), a negation after
  the outcome ("helped nobody", Chinese "解决不了", Japanese "解決しませんでした", Korean "해결되지 않았습니다", "无法解决"),
  another's machine after it ("worked for others, but not for me", "solved it for some users"), a report of others
  ("Other users reported that ..."), a question without its mark ("Has anyone solved it by ..."), a later clause that
  takes it back ("... but this server still fails"): ``explain`` said driver-too-old first, above the text's own
  out-of-memory message.
* A resolution's sentence took the sentence before it even where that one is a failed attempt and the resolution names
  its own fix: "Updating the NVIDIA driver did not help. Restarting the notebook solved it." said driver-too-old.
* "The problem wasn't X" / "The problem was not X" was read as naming the cause X.

The sentences are bent from real threads: KanaHayama/KanCollePlayerSimulator#37 ("已将NVIDIA的显卡驱动更新到最新，仍旧无法
解决CUDA错误弹窗"), heldout/acceptance11's sdnext-3547 ("tried to upgrade torch, nothing helped"), heldout/pastes21b's
elearn-614471 ("Updating the Nvidia driver to a newer one fixed the problem for me"), stereolabs/zed-sdk#331 ("I did
try to reboot the pc but no avail").
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers.resolution import line_facts, resolution_of

_OOM = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.94 GiB total capacity)\n"


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


@pytest.mark.parametrize("sentence", [
    "Even after updating the NVIDIA driver, nothing worked.",
    "Updating the NVIDIA driver, reinstalling CUDA - nothing worked.",
    "Updating the Nvidia driver to a newer one helped nobody.",
    "Updating the Nvidia driver to a newer one fixed the problem for some users.",
    "Updating the Nvidia driver to a newer one worked for others, but not for me.",
    "For him, updating the Nvidia driver to a newer one fixed the problem.",
    "Other users reported that updating the Nvidia driver to a newer one fixed the problem.",
    "Some users reported that updating the Nvidia driver to a newer one fixed the problem.",
    "Updating the Nvidia driver is supposed to have fixed the problem.",
    "Has anyone solved it by updating the Nvidia driver",
    "Updating the Nvidia driver fixed it on my laptop but this server still fails.",
    "I thought updating the Nvidia driver fixed it, but the error came back.",
    "已将NVIDIA的显卡驱动更新到最新，无法解决CUDA错误弹窗",
    "更新显卡驱动后依旧无法解决",
    "更新显卡驱动解决不了",
    "ドライバを更新しましたが、解決しませんでした。",
    "드라이버를 업데이트했지만 해결되지 않았습니다",
])
def test_a_failed_or_anothers_fix_is_no_resolution(sentence):
    assert resolution_of(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The problem wasn't secure boot, I checked.",
    "The problem was not the driver.",
])
def test_a_denied_cause_is_no_resolution(sentence):
    assert resolution_of(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Updating the Nvidia driver to a newer one fixed the problem for me.",  # elearn-614471 as written
    "I reported this to NVIDIA; updating the Nvidia driver to a newer one fixed the problem.",
    "更新显卡驱动后解决了",
    "but I found a reboot did solve this issue.",
])
def test_a_resolution_stays_read(sentence):
    assert resolution_of(sentence) == "fix"


def test_nothing_worked_says_no_driver_cause_above_the_message():
    ids = _ids(_OOM + "Even after updating the NVIDIA driver, nothing worked.\n")
    assert ids and ids[0] == "gpu-out-of-memory" and "driver-too-old" not in ids


def test_a_failed_attempt_before_the_fix_is_not_its_fix():
    line = "Updating the NVIDIA driver did not help. Restarting the notebook solved it."
    got = line_facts(line, line.lower())
    assert [f.value for f in got] == ["fix | Restarting the notebook solved it."]
    assert "driver-too-old" not in _ids("Training hangs on my GPU.\n" + line + "\n")
    line = "I tried updating the NVIDIA driver, it did nothing. Then I reduced the batch size and that fixed it."
    assert "driver-too-old" not in _ids(_OOM + line + "\n")


def test_a_bare_outcome_still_takes_the_fix_said_before_it():
    line = "I updated the NVIDIA driver. It worked!"
    got = line_facts(line, line.lower())
    assert [f.value for f in got] == ["fix | I updated the NVIDIA driver. It worked!"]
    assert _ids("Training hangs.\n" + line + "\n")[:1] == ["driver-too-old"]


# --- a value that says a change -----------------------------------------------------------------------------------------
def _facts(text: str) -> dict:
    return explain_text_document(text).get("facts") or {}


@pytest.mark.parametrize("line", [
    # bent from a real training-hardware block ("Driver Version: 531.41"): the upgrade said in the value
    "Driver Version: 516.94 -> 531.41",
    "- NVIDIA driver version: 516.94 → 531.41",
    "驱动版本：516.94 → 531.41",
    "Driver version: 516.94 (old), now 531.41",
])
def test_a_driver_changed_from_one_version_to_another_is_neither(line):
    assert (_facts(line).get("driver") or {}).get("version") is None


@pytest.mark.parametrize("line", ["PyTorch version: 1.13.1 -> 2.0.0", "- PyTorch: 1.13.1 → 2.0.0",
                                  "PyTorch版本：1.13.1 → 2.0.0"])
def test_a_torch_changed_from_one_version_to_another_is_neither(line):
    assert "torch" not in (_facts(line).get("frameworks") or {})


def test_a_gpu_changed_for_another_is_no_gpu_name():
    assert not _facts("GPU: RTX 2080 -> RTX 4090").get("gpus")


def test_a_plain_value_is_still_read():
    assert _facts("Driver Version: 531.41")["driver"]["version"] == "531.41"
    assert _facts("- PyTorch: 2.0.0")["frameworks"]["torch"]["version"] == "2.0.0"


# --- a quoted resolution is someone else's ------------------------------------------------------------------------------
_THREAD_QUOTE = """alice · description · 2024-01-01
RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 3.94 GiB total capacity)
bob · comment · 2024-01-02
Updating the NVIDIA driver fixed it for me.
alice · comment · 2024-01-03
> Updating the NVIDIA driver fixed it for me.

Not for me, I still get the error.
"""


def test_a_resolution_the_reporter_quotes_is_not_the_reporters():
    ids = _ids(_THREAD_QUOTE)
    assert ids[:1] == ["gpu-out-of-memory"]  # another's unconfirmed fix stays below the message


def test_a_quoted_resolution_is_hedged():
    doc = explain_text_document("Training crashes with a segfault.\n> Updating the NVIDIA driver fixed it.\n\n"
                                "Tried that, still crashes.\n")
    for m in doc.get("matches") or []:
        assert "Likely, not verified" in str(m.get("evidence"))


# --- ONNX Runtime: conda's CUDA build under the CPU package's name ------------------------------------------------------
def _ort_status(tmp_path, packages: dict) -> list:
    import json

    from tests.helpers import gpu_machine, status_of_files

    files = gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-80GB", 81920)], cc=["8.0"])
    files.update({"packages.json": json.dumps(packages), "libraries.txt": "",
                  "python.json": json.dumps({"version": "3.11.7", "implementation": "CPython", "platform": "linux",
                                             "machine": "x86_64"})})
    return status_of_files(tmp_path, files)["findings"]


@pytest.mark.parametrize("value", ["1.17.1=py311h5bbf1a5_0_cuda118", "1.17.1 gpu_cuda118py311h05d824c_0"])
def test_a_conda_cuda_build_of_onnxruntime_beside_onnxruntime_gpu_is_no_cpu_build(tmp_path, value):
    # conda-forge ships ORT's CUDA builds under the name onnxruntime (the build strings tests/test_onnxruntime.py reads)
    findings = _ort_status(tmp_path, {"onnxruntime": value, "onnxruntime-gpu": "1.17.1"})
    assert not [f for f in findings if f["id"] == "framework-cpu-only"]


def test_the_pip_cpu_package_beside_onnxruntime_gpu_is_still_said(tmp_path):
    findings = _ort_status(tmp_path, {"onnxruntime": "1.17.1", "onnxruntime-gpu": "1.17.1"})
    assert [f for f in findings if f["id"] == "framework-cpu-only"]


# --- fix --want onnxruntime-gpu where no CUDA plan is made ----------------------------------------------------------------
def _fix(*args: str) -> str:
    import subprocess
    import sys
    from pathlib import Path

    got = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--want", "onnxruntime-gpu", *args],
                         capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parent.parent)
    assert got.returncode == 1, got.stderr
    return got.stdout


def test_fix_onnxruntime_gpu_on_an_amd_machine_does_not_offer_cpu_builds():
    from pathlib import Path

    snap = Path(__file__).resolve().parent / "data" / "snapshots" / "amd-rx7600xt-raphael-legacy4380"
    out = _fix("--snapshot", str(snap))
    assert "--cpu" not in out and "no CPU build" in out  # --cpu plans no onnxruntime-gpu: it lifted nothing


def test_fix_onnxruntime_gpu_as_cpu_builds_says_why_none():
    out = _fix("--cpu", "--python", "3.11")
    assert "no release matches" not in out and "onnxruntime-gpu has no CPU build" in out


# --- explain --markdown: a fix that quotes the pasted text -------------------------------------------------------------
def _markdown(text: str) -> str:
    from envcheck.render.explain import render_explain_markdown

    return render_explain_markdown(explain_text_document(text))


def test_a_quoted_resolution_in_a_posted_fix_is_masked_and_escaped():
    md = _markdown("Training hangs.\n@octocat Solved by updating the NVIDIA driver <img src=x> [click](https://evil.example)"
                   " with HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456 set.\n")
    fix = md.split("**Fix**", 1)[1]
    assert "hf_abcdefghijklmnopqrstuvwxyz123456" not in md  # the documented promise: what it quotes is masked
    assert "<img" not in fix.replace("\\<", "") and "[click](" not in fix and "@octocat" not in fix


def test_the_knowledge_bases_code_spans_stay_code_in_a_posted_fix():
    md = _markdown("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    fix = md.split("**Fix**", 1)[1].split("**Dead ends**", 1)[0]
    assert "`" in fix and "\\`" not in fix


# --- a bare answer of another kind ----------------------------------------------------------------------------------------
def _answered(question: str, answer: str) -> dict:
    return _facts("alice · description · 2024-01-01\n"
                  "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                  f"bob · comment · 2024-01-02\n{question}\nalice · comment · 2024-01-03\n{answer}\n")


@pytest.mark.parametrize("answer", ["410.48,,", "12.1", "535.54.03 on the host, 470 in docker"])
def test_a_driver_or_cuda_given_for_torch_is_no_torch(answer):
    # the real answer "410.48,," (tests/data/pastes/facts22) given to a torch question instead of nvidia-smi's
    assert "torch" not in (_answered("What torch version are you on?", answer).get("frameworks") or {})


def test_a_version_given_for_the_gpu_is_no_gpu_name():
    assert not _answered("What GPU are you using?", "535.54.03 on the host, 470 in docker").get("gpus")


def test_an_ngc_container_tag_is_no_torch():
    assert "torch" not in (_facts("pytorch:22.04\n").get("frameworks") or {})
    assert _answered("What torch version are you on?", "0.4.1")["frameworks"]["torch"]["version"] == "0.4.1"


# --- a Jetson named beside a desktop GPU --------------------------------------------------------------------------------
_INSUFFICIENT = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"


def _fixes(text: str) -> list:
    return explain_text_document(text)["matches"][0]["fixes"]


@pytest.mark.parametrize("lead", ["I'm on a desktop RTX 3090, not a Jetson.\n",
                                  "This works on my Jetson Nano but fails on my desktop RTX 3090:\n"])
def test_a_jetson_beside_a_desktop_gpu_keeps_the_desktop_driver_advice(lead):
    fixes = _fixes(lead + _INSUFFICIENT)
    assert any(f.startswith("Upgrade the NVIDIA driver") for f in fixes)  # was "flash that JetPack" alone


@pytest.mark.parametrize("lead", ["Jetson Orin Nano, JetPack 5.1.2\n", "Jetson AGX Orin, torch.cuda.get_device_name(): "
                                                                        "NVIDIA GA10B\n"])
def test_a_jetson_alone_keeps_its_own_advice(lead):
    fixes = _fixes(lead + _INSUFFICIENT)
    assert fixes[0].startswith("On a Jetson") and not any(f.startswith("Upgrade the NVIDIA driver") for f in fixes)


# --- a fix of another problem, or one that did not last ------------------------------------------------------------------
@pytest.mark.parametrize("sentence", [
    "I also had an unrelated issue with the display which updating the NVIDIA driver solved.",
    "Updating the NVIDIA driver solved a different issue I had, not this one.",
    "Unrelated, but updating the NVIDIA driver fixed my flickering screen.",
    "Side note: updating the NVIDIA driver fixed the fan noise.",
    "Updating the NVIDIA driver temporarily fixed it.",
    "Updating the NVIDIA driver solved it for a while, then it came back.",
    "Updating the NVIDIA driver worked in WSL but not in Docker.",
    "I doubt updating the NVIDIA driver fixed it.",
])
def test_a_fix_of_another_problem_or_that_did_not_last_is_no_resolution(sentence):
    assert resolution_of(sentence) is None


def test_a_fix_done_temporarily_is_still_a_fix():
    assert resolution_of("I temporarily disabled secure boot and it worked.") == "fix"


def test_an_unrelated_fix_names_no_cause_above_the_message():
    ids = _ids(_OOM + "Unrelated, but updating the NVIDIA driver fixed my flickering screen.\n")
    assert ids == ["gpu-out-of-memory"]


# --- another's fix the reporter answers with "Tried that, still crashes." -------------------------------------------------
def _thread(error: str, reply: str) -> str:
    return (f"alice · description · 2024-01-01\n{error}\nbob · comment · 2024-01-02\n"
            f"Updating the NVIDIA driver fixed it for me.\nalice · comment · 2024-01-03\n{reply}\n")


@pytest.mark.parametrize("reply", ["Tried that, still crashes.", "Didn't work for me.", "No luck, same error.",
                                   "Not for me, I still get the error.", "Yes, didn't work."])
def test_a_fix_the_next_post_rejects_counts_for_nothing(reply):
    assert _ids(_thread("Training crashes with a segfault.", reply)) == []
    assert _ids(_thread(_OOM.strip(), reply)) == ["gpu-out-of-memory"]


@pytest.mark.parametrize("reply", ["That fixed it, thanks!", "Same here", "Yes, that worked!"])
def test_a_confirmation_is_no_rejection(reply):
    ids = _ids(_thread("Training crashes with a segfault.", reply))
    assert ids == (["driver-too-old"] if "fixed" in reply else ids)
    from envcheck.paste.readers.resolution import rejects

    assert not rejects(reply)


@pytest.mark.parametrize("sentence", ["Turns out secure boot wasn't the problem.",
                                      "It turned out that secure boot was not the cause.",
                                      "Turns out it was not secure boot after all."])
def test_a_cause_denied_after_turns_out_is_no_resolution(sentence):
    assert resolution_of(sentence) is None


@pytest.mark.parametrize("sentence", ["Turns out secure boot was the problem.",
                                      "The problem was that I did not install cuDNN."])
def test_a_cause_with_a_negation_of_its_own_stays_read(sentence):
    assert resolution_of(sentence) == "cause"


# --- a key's hint that says the value is not this machine's ---------------------------------------------------------------
@pytest.mark.parametrize("line", ["Driver version (colleague's machine): 535.54.03",
                                  "Driver version (working machine): 535.54.03",
                                  "Driver version (required): 535.54.03",
                                  "- NVIDIA driver version (before update): 470.82.01"])
def test_a_driver_whose_key_says_another_machine_or_a_requirement_is_none(line):
    assert (_facts(line).get("driver") or {}).get("version") is None


def test_a_gpu_whose_key_says_a_friends_pc_is_none():
    assert not _facts("- GPU (friend's PC): RTX 4090").get("gpus")


@pytest.mark.parametrize("line, want", [("Driver version (e.g. 535.54.03): 470.82.01", "470.82.01"),
                                        ("驱动版本（nvidia-smi）：535.54.03", "535.54.03")])
def test_a_template_hint_still_reads_the_value(line, want):
    assert _facts(line)["driver"]["version"] == want


# --- ONNX Runtime's template: a list or a change of versions ------------------------------------------------------------
@pytest.mark.parametrize("line", ["- ONNX Runtime version: 1.17.1 -> 1.18.0", "- ONNX Runtime version: 1.17.1, 1.16.3"])
def test_an_ort_template_list_or_change_states_no_version(line):
    assert "onnxruntime" not in (_facts(line).get("frameworks") or {})


def test_an_ort_template_version_is_still_read():
    # microsoft/onnxruntime#6183's "- ONNX Runtime version: 1.6.0" (tests/test_onnxruntime.py)
    assert _facts("- ONNX Runtime version: 1.6.0")["frameworks"]["onnxruntime"]["version"] == "1.6.0"


def test_a_jetson_machine_keeps_its_own_advice_whatever_the_text_names():
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    snap = root / "tests" / "data" / "snapshots" / "jetson-orin-nano-jp5.1.4-cuda12.3-jetson-fpv"
    got = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--snapshot", str(snap), "--json", "-"],
                         input="This works on my Jetson Nano but fails on my desktop RTX 3090:\n" + _INSUFFICIENT,
                         capture_output=True, text=True, timeout=300, cwd=root)
    fixes = json.loads(got.stdout)["matches"][0]["fixes"]
    assert fixes[0].startswith("On a Jetson") and not any(f.startswith("Upgrade the NVIDIA driver") for f in fixes)
