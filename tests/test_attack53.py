"""attack53 (session 24): false statements found in session 24's round-two merges (cpu41, vendor41, jetctr41), each
with the smallest fix in the rule's own home.

Real threads were tried first (search corpus ``issues``; cited at each): vendor41's Windows AMD CPU fall-back rule and
jetctr41's container mounts read every real text tried right (they stay here as controls). cpu41's answer rule
(``cuda-build-advised`` -> engine.prose_causes.cuda_build_advised -> framework-cpu-only) said a CPU-only torch where
the text shows the opposite; the probes are CONSTRUCTED at the rule's boundary from the real threads' sentences (said
so at each):

* the writer's own install of the CUDA build, done and not curing ("Even after installing pytorch with CUDA the GPU is
  not used", "Tried reinstalling torch with cuda 12.1, still ...", "Installing the CUDA version of PyTorch didn't change
  anything", "已经安装GPU版本的pytorch", "安装cuda版本的torch后还是没有用到GPU"): the reader's _MINE only knew "I / we";
* a launcher's own progress line ("CUDA not available, reinstalling PyTorch with CUDA support..."): the program installs
  the CUDA build itself;
* torch.cuda.is_available() said True ("why this program is not using my gpu? but "torch.cuda.is_available" is true",
  syorami/DDC-transfer-learning#3; "torch.cuda.is_available()返回为True", yeyupiaoling/VoiceprintRecognition-Pytorch#66):
  only a CUDA build says True, so no CPU-only cause where the text says False nowhere.
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import gpu_unused


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _keys(line: str) -> set:
    return {f.field[5:] for f in gpu_unused.line_facts(line, line.lower())}


# ------------------------------------------------------------------ real threads: read right before and after (controls)

#: yeyupiaoling/VoiceprintRecognition-Pytorch#66 (the description, as pasted): a CUDA build, is_available() True
VOICEPRINT_66 = """\
# GPU利用率为0

安装了GPU版本的Pytorch，并且torch.cuda.is_available()返回为True，使用train.py时打印设备print(trainer.device)为cuda，但资源管理器中GPU使用率一直为0

代码版本是release-0.x，没有将mp3转为wav，是因为mp3读取太慢了吗
"""

#: syorami/DDC-transfer-learning#3 (title and the one comment)
DDC_3 = """\
# why this program is not using my gpu? but "torch.cuda.is_available" is true

Durding debug, my torch.cudais_available is false. Try to change " os.environ["CUDA_VISIBLE_DEVICES"] = "2" " to  " os.environ["CUDA_VISIBLE_DEVICES"] = "0". It will use GPU
"""

#: dusty-nv/jetson-containers#77: a feature request; the maintainer says l4t-base HAS the libraries (mounted)
JETSON_CONTAINERS_77 = """\
# base + tensorrt container?

turowicz · description · 2021-07-29
Can we please also get the `base` container with just `tensorrt` and it's dependencies installed?

dusty-nv · comment · 2021-07-29
l4t-base already has CUDA/cuDNN/TensorRT.  These get mounted in from the host with `--runtime nvidia`.   The version of TensorRT/CUDA/cuDNN needs to match what's in your version of JetPack-L4T.

turowicz · comment · 2021-08-04
OK thank you
"""

#: NVIDIA/nvidia-docker#1072: asking for cuDNN headers in the l4t image (a feature request, no failure)
NVIDIA_DOCKER_1072 = """\
# Cudnn Header files in L4T Docker

ohlr · description · 2019-09-15
Is there a way to get cudnn header files inside the l4t image?

RenaudWasTaken · comment · 2019-09-18
Thanks for the input, we'll likely publish a CUDA container in a future release.

trn84 · comment · 2020-03-12
If you add the official nvidia jetson and common deb sources to your apt you can install libcudnn7 etc in your l4t docker image. I have used this install TensorRT, libnvinfer etc...
"""


@pytest.mark.parametrize("text", [VOICEPRINT_66, DDC_3, JETSON_CONTAINERS_77, NVIDIA_DOCKER_1072])
def test_real_controls_stay_silent(text):
    assert _ids(text) == []


@pytest.mark.parametrize("line", [
    'why this program is not using my gpu? but "torch.cuda.is_available" is true',  # DDC-transfer-learning#3
    "安装了GPU版本的Pytorch，并且torch.cuda.is_available()返回为True，使用train.py时打印设备print(trainer.device)为cuda",
    "torch.cuda.is_available() returns True and my RTX 3060 is detected.",
])
def test_is_available_true_is_read(line):
    assert "cuda-reached-said" in _keys(line)


@pytest.mark.parametrize("line", [
    "Is torch.cuda.is_available() True?",
    "Does torch.cuda.is_available() return True?",
    "make sure torch.cuda.is_available() returns True",
    "@hanlinniu Can you check gpu utilization in  nvidia-smi? Is torch.cuda.is_available() returning True?",  # avatarify#15
])
def test_is_available_asked_is_not_read(line):
    assert "cuda-reached-said" not in _keys(line)


# ------------------------------------------------------------------ cpu41: constructed probes at the rule's boundary

#: CONSTRUCTED: is_available() True said (DDC#3's sentence), and the answer to reinstall torch with CUDA
REACHED_AND_ADVISED = """\
why is it not using my GPU? torch.cuda.is_available() returns True and my RTX 3060 is detected.
Try to reinstall pytorch with cuda support.
"""

#: CONSTRUCTED: the same with another run's is_available() False: the answer's reading stays
REACHED_ELSEWHERE = """\
On the server torch.cuda.is_available() returns True, but on my laptop with an RTX 3060 torch.cuda.is_available() returns False and it is not using my GPU.
Try to reinstall pytorch with cuda support.
"""


def test_is_available_true_is_no_cpu_build():
    assert "framework-cpu-only" not in _ids(REACHED_AND_ADVISED)


def test_is_available_false_elsewhere_keeps_the_rule():
    assert _ids(REACHED_ELSEWHERE)[:1] == ["framework-cpu-only"]


@pytest.mark.parametrize("line", [
    "Even after installing pytorch with CUDA the GPU is not used on my RTX 4090.",
    "After installing torch with cuda 11.8 it's still not using my GPU (RTX 3060).",
    "Tried reinstalling torch with cuda 12.1, still not using my GPU (RTX 3060).",
    "Reinstalling pytorch with cuda support did not help, my RTX 3060 is not being used.",
    "已经安装GPU版本的pytorch，但是GPU没有被调用，显卡是RTX 3060",
    "安装cuda版本的torch后还是没有用到GPU，显卡RTX 3060",
])
def test_the_writers_own_install_is_no_advice(line):  # CONSTRUCTED (one line each)
    assert "cuda-build-advised" not in _keys(line)
    assert "framework-cpu-only" not in _ids(line)


def test_a_done_install_after_the_symptom():  # CONSTRUCTED
    text = "My RTX 3060 is not being used. Installing the CUDA version of PyTorch didn't change anything.\n"
    assert "framework-cpu-only" not in _ids(text)


@pytest.mark.parametrize("line", [
    "CUDA not available, reinstalling PyTorch with CUDA support...",  # a launcher's .bat echo line (public code)
    "[REPAIR] Reinstalling PyTorch with CUDA cu121...",
])
def test_a_launchers_progress_line_is_no_advice(line):
    assert "cuda-build-advised" not in _keys(line)


@pytest.mark.parametrize("line", [
    "Try reinstalling pytorch with cuda support",
    "You need to verify if you Pytorch is installed correctly with GPU support",  # ultralytics#290
    "install torch with cuda",  # KyanChen/TTP#6
    "Uninstall it, then install torch with CUDA from the official website, it will still be slow otherwise",
])
def test_advice_is_still_read(line):
    assert "cuda-build-advised" in _keys(line)


# ------------------------------------------------------------------ vendor41: an AMD CPU beside an NVIDIA GPU (constructed)

def test_ryzen_cpu_is_no_amd_gpu():
    text = ("### Operating system\n\nWindows\n\n### GPU vendor\n\nNvidia (CUDA)\n\n### System Information\n\n"
            "AMD Ryzen 7 5800x, 32GB RAM, Windows 11, python 3.12\n\n### What happened\n\n"
            "when loading, still falls back to CPU, does not detect my GPU\n")
    assert "framework-vendor-mismatch" not in _ids(text)
