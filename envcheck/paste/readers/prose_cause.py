"""What a bug report's own sentences and lines say about the three causes a text often shows only in prose (issue 20,
"pastes not read"): a CPU-only framework build, a driver older than the build needs, and a GPU the build's CUDA
cannot target. This module only reads: each fact is evidence (``seen:<what>``, the line quoted), and whether it makes a
cause certain is decided in :mod:`envcheck.engine.prose_causes`, from the matrix.

* ``torch-cpu-label``: a torch version with PyTorch's CPU-only local label, ``+cpu`` (the label of every wheel of
  download.pytorch.org/whl/cpu and of PyPI's Windows / macOS wheels' ``torch.__version__``), where the line names torch
  (``Torch 2.0.1+cpu``, ``torch-2.6.0+cpu``, ``torch==2.1.0+cpu``) or names no other package at all (a web UI's System
  Info cell ``2.0.0+cpu``: the engine takes it only for a version that is a torch release); a ``+cpu`` of torchvision,
  torchaudio or Intel's extension is never read; also conda's CPU build string (``pytorch-1.10.0-py3.6_cpu_0``, a
  ``pytorch 1.8.1 py3.8_cpu_0`` row). Value ``version | line``.
* ``cpu-build-said``: the text says torch is the CPU build ("torch cpu version installed", "resulted in the CPU version
  of torch", "torch installed w/o gpu support", "CPU版本的torch", "it installed the cpu version", torch's own "Torch not
  compiled with CUDA enabled" retold: "torch is not compiled with CUDA", in Chinese "torch编译时未激活cuda"; the message
  itself is the knowledge base's). A
  question or a
  negation ("is it the cpu version?", "not the CPU version"), or a line naming a package that is no framework (ONNX
  Runtime, FAISS, llama.cpp...), is not it; each sentence of a line is judged alone ("go back to using pytorch CPU
  instead of GPU. ... requirements?" states it), and "I always have a CPU version", "the CPU-only binaries" say it.
* ``cpu-run``: the program says it runs on the CPU where it would use the GPU: openai-whisper's own warning "FP16 is not
  supported on CPU; using FP32 instead" (whisper/transcribe.py: said when the model's device is the CPU; whisper picks
  ``cuda`` whenever ``torch.cuda.is_available()``).
* ``driver-said-old``: a sentence says the reporter's driver is too old for the build ("My Nvidia driver is not
  supported for the pytorch-gpu version", "my driver is too old / outdated", a maintainer's "your driver version is a
  little too old"); Chinese "驱动版本太低" too; (drvold37) "the drivers are too old", "my Nvidia version is too old".
  Where the sentence reports the program's own message ("the msg is that my Nvidia version is too old", "运行时，出现显卡
  驱动过低异常") it is also ``driver-old-shown``: the program refused the driver, a failure in itself. That updating
  the driver *fixed* it ("Solved by updating the NVIDIA driver") is a thread's resolution: the one reader of those is
  :mod:`envcheck.paste.readers.resolution`, and compat_matrix/resolutions.toml maps it to the driver.
* ``driver-cuda-said``: the CUDA version a sentence says the card or driver supports at most ("my graphics card can only
  support cuda9.1", "my driver only supports CUDA 11.4"): the driver's highest CUDA, never a toolkit. Value
  ``version | line``.
* ``driver-need-said``: a sentence gives the lowest driver the build needs, as a driver version (three-digit major):
  a maintainer's "Yes, you'll need to update it to at least 418.39" (pytorch#31243, the reporter's driver 410.48 said
  in the post before), "requires driver >= 450.80.02", "the driver needs to be 525.60.13 or newer", "驱动需要升级到 450
  以上"; (drv32) the lowest driver a project supports or a build needs, as a version or a driver branch ("The earliest
  driver we support is R435", "Requires NVIDIA R495.89 driver or newer", "Optix 9 will need 590 driver"). Not a
  question, a condition or a doubt; the sentence names the driver, or updates "it" / "them" to the
  version. Value ``version | line``; whether the text's own driver is below it is the engine's (advice29).
* ``gpu-cuda-pair``: one sentence naming a GPU model and a CUDA version together ("RTX 2080Ti with Cuda 9.0", "The
  5070Ti cannot work with CUDA 11.8", "我的Cuda版本是10.2，不支持RTX3060"), and whether it says they do not go together
  (``not support``, ``cannot``, ``不支持``...). Value ``gpu | cuda | said-not | line``. Whose CUDA it is (the framework's
  build or a toolkit) the sentence does not say: the engine uses it only where no build of that CUDA can have code
  for the GPU. Not where a sentence naming the GPU or the CUDA asks a question or gives them to someone or something
  else ("My colleague's RTX 3060 ...", "On my other machine ...", "The docs say ...").
* ``gpu-wanted``: the reporter wants the GPU used ("How do i get it back to the gpu?", "How to switch CPU to GPU",
  "preventing native utilization of discrete GPUs"), names NVIDIA's stack ("nVidia CUDA toolkit detected"), or installs
  from a CUDA index of PyTorch (``--index-url https://download.pytorch.org/whl/cu128``: the CUDA build is what is wanted);
  not an issue template's question ("- Using GPU in script?: no", whose answer the template's reader reads), nor a
  sentence that says no GPU is there or wanted ("This laptop has no NVIDIA GPU, I run on the CPU on purpose").
* ``arch-said``: a sentence says the installed torch does not fit the GPU (model or series) it names ("you have
  installed a version of pytorch incompatible with your 4090"); not hedged (a question, ``if``, ``may``). Value
  ``gpu | line``.
* ``arch-floor-said``: a sentence says a build has code only for compute capability N and newer ("The PyTorch build used
  here (`torch 2.11.0+cu128`) only contains kernels for sm_75 and newer", WhisperJAV#326's maintainer; "It only
  supports sm_70 and above"; "only includes kernels for newer GPU architectures (sm_70+)"); not a question, a
  condition or a hedge. Value ``X.Y | line``; whether the text's GPU is below it is the engine's (advice29).
* ``gpu-cuda-need``: a line names one GPU (or series) and a sentence of it says it needs CUDA N at least ("Are you on a
  20 series graphics card? Those require a minimum of CUDA 10.", "RTX 3090 only supports cuda11 and above"). Value
  ``gpu | N | line``; whether the text's own CUDA is below N is the engine's.
* ``lib-path-conflict``: a CUDA library folder (``/usr/local/cuda-11.2/lib64``, ``CUDA/v11.2/bin`` on Windows) said to
  conflict, or taking it off LD_LIBRARY_PATH / PATH said to fix the failure; advice and questions are not it.
* ``python-said-unsupported``: a sentence says a Python minor version is not (yet) supported ("Python 3.12 is not
  supported yet", "does not support python 3.13", "目前在未支持Python3.12" (PaddleX#2174), "暂时不支持python3.12",
  "Python 3.12 には未対応"); not a question, a condition or a hedge, nor "will support" ("即将全面支持python3.12").
  Value ``X.Y | line``; whether the text's own Python is that version is the engine's.
* ``compiler-said-unsupported``: a sentence says a CUDA version does not support a host compiler version ("CUDA 10.1
  does not support GCC 9 or later", pytorch3d#416's maintainer; "gcc 12 is not supported by CUDA 11.8"); not a
  question, a condition or a hedge. Value ``compiler | cuda | line``; what it means for the build is the engine's.
* ``toolkit-said-mismatch``: one sentence names the CUDA of the system's toolkit and, differently, the CUDA the PyTorch
  build was made with ("you've installed CUDA `10.1.168` on your system, while the PyTorch binaries ship with CUDA
  `10.0.130`", apex#350's maintainer; "your system CUDA is 11.1 but PyTorch was compiled with CUDA 10.2"); not a
  question, a condition or a hedge. Value ``system | torch | line`` (``major.minor`` each).
* ``torch-cuda-said``: a sentence states the CUDA a torch build is made with, without the build's tag ("requirements.txt
  will bring a torch with Cuda version 10.2", ByteTrack#54; "pytorch built with CUDA 10.2"); not negated ("cannot use
  PyTorch with CUDA 10.2"), asked, hedged, or a removed / earlier / someone else's build. Value ``cuda | line``; whether
  that CUDA can target the text's GPU is the engine's (compat_matrix/cuda.toml targets).
* ``fw-cpu-said`` (inst32): the text says TensorFlow's, JAX's or Paddle's CPU build is the one installed: "it is
  uninstalling my tensorflow-gpu and installing tensorflow which is using CPU" (rcmalli/keras-vggface#33), "CPU-version
  of Tensorflow is used" (keras-team/keras-tuner#168), "The system installed the tensorlow with cpu version"
  (philipperemy/n-beats#30), "it blows off existing TF and installs the default, non-GPU version" (keras-team/keras#5776),
  "only comes with the CPU version of Jax" (gbionics/adam#50), "cpu版本paddle". The sentence names the framework; a
  question (also one without its mark: "Does ...", "Is ..."), a negation before it, or a build said removed just
  before it ("I uninstalled tensorflow cpu version") is not it. Value ``framework | line``.
* ``gpu-package``: the text names a framework's GPU package (``tensorflow-gpu``, ``paddlepaddle-gpu``,
  ``onnxruntime-gpu``, JAX's ``jax[cuda12]`` extra) outside a question: the GPU build was wanted.
* ``both-builds-said`` (inst32): a sentence says the CPU and the GPU build of one framework are both installed in one
  environment: "服务器上安装了CPU和GPU两个版本" (PaddlePaddle/Paddle#55409), "I installed both the CPU and GPU versions",
  "both onnxruntime and onnxruntime-gpu are installed"; not a question ("Do we need both paddlepaddle-gpu and
  paddlepaddle"). Value ``framework | line`` (the framework the line names, or ``framework``).
* ``lib-copy-shadowed`` (inst32): a sentence says one copy of cuDNN / a CUDA library is picked up, loaded or used instead
  of (ahead of, before) another: "my CONDA_PREFIX/lib contains libcudnn8.1.0 so TF will first use this version instead
  of the libcudnn8.6.0" (tensorflow/docs#2251), "TF will load the system library ahead of virtual environment one"
  (tensorflow/tensorflow#60750), "an older cuDNN version installed somewhere in the system, and it's the one getting
  picked up instead of the one we provide in the binaries" (pytorch/pytorch#986, a maintainer's diagnosis: a hedge
  does not undo it, a question or a negation does; advice does too).
* ``python-only-wheel`` (inst32): a sentence says a framework's wheel (a build, a download link, an inference library)
  exists for one Python only: "I need the torch==1.10.0 & python3.7 wheel on Jetson NX board, but I think there is
  only google drive url for torch==1.10.0 & python3.6" (Qengineering/PyTorch-Jetson-Nano#3), "paddle官方又只出了3.6的预测库";
  not a question or a condition; (jetson35) also the wheels said to be one Python's: "the torch 1.8 wheels in the Jetson
  Zoo are python 3.6" (dusty-nv/jetson-containers#156). Value ``only | other | line``: the Python the wheel is for, and another Python the
  same line names (the reporter's, or empty); whether the text's Python differs is the engine's.
* ``other-vendor``: another vendor's GPU stack named (XPU, Intel Arc, ROCm / HIP, Radeon, MPS, Apple silicon): a generic
  "the GPU" is then not NVIDIA's, and no CUDA advice may follow from it.

A driver said too old, a card's CUDA and a CPU build said are read only where stated: not in a question, nor after a
negation, a doubt or someone else's claim in the same sentence ("Is my driver too old?", "I don't think my driver is
too old", "It never installed the cpu version"); a CPU version said of another framework (Paddle's own "installed CPU
version PaddlePaddle") is not torch's. A torch CPU build (its ``+cpu`` label or a sentence) is not read where its
sentence makes it a removed, earlier or someone else's one ("I uninstalled torch 2.0.1+cpu", "I previously had",
"My colleague installed the cpu version"), nor a ``+cpu`` label on a line that also names a ``+cuXXX`` build or in a
sentence that advises it ("Try pip install torch==2.0.1+cpu to test on CPU").

Every pattern is bounded (linear on any line); a line longer than 400 characters is read in pieces of whole sentences
(:func:`envcheck.paste.readers.observe.prose_facts_of`, :func:`envcheck.paste.readers.prose_join.pieces`), and a sentence
split over lines joined (:class:`envcheck.paste.readers.prose_join.Joiner`).
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_gpu import gpu_models, gpu_series, modern_gpu_models
from envcheck.paste.readers.prose_join import SENTENCE_END, sentence_start, sentence_stop

__all__ = ["GONE_BEFORE", "line_facts"]

_HINTS = ("+cpu", "least", "sm_", "以上", " or newer", "cpu", "fp16", "driver", "cu", "gpu", "nvidia", "版本", "w/o", "without", "compiled", "built", "驱动",
          "显卡", "xpu", "rocm", "hip", "radeon", "amd", "intel", "arc", "mps", "metal", "apple", "compatib", "support",
          "require", "need", "lib", "path", "系", "python", "both",
          "-gpu", "_gpu", "jax[", "tf", "instead", "ahead", "only", "只")
#: a torch version with the +cpu label; the word before it names the package (group ``pkg``), if any
_CPU_LABEL = re.compile(r"(?i)(?P<pkg>[a-z_][\w-]{0,40})?[\s=:_-]{0,3}v?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\+cpu(?![\w.])")
#: a version with a CUDA build's label (``2.0.1+cu118``)
_CU_LABEL = re.compile(r"\d\.\d{1,2}(?:\.\d{1,3})?\+cu\d{2,3}(?!\w|\.\d)")
_OTHER_PKG = re.compile(r"(?i)torchvision|torchaudio|torchtext|ipex|intel|extension|paddle|jax|tensorflow|onnx|xformers"
                        r"|triton|mmcv|detectron")
_TORCH = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])")
#: the text says torch is the CPU build
_CPU_SAID = (
    re.compile(r"(?i)(?<![\w-])(?:py)?torch\b[^.?!\n]{0,40}?\b(?:cpu[\s-]{0,2}(?:only\s)?(?:version|build|variant)"
               r"|cpu[\s-]only|without\s(?:gpu|cuda)(?:\ssupport)?|w/o\s(?:gpu|cuda)(?:\ssupport)?)"),
    re.compile(r"(?i)\bcpu[\s-]{0,2}(?:only\s)?(?:version|build)\s(?:of\s)?(?:the\s)?(?:py)?torch\b"),
    # torch's own assertion ("Torch not compiled with CUDA enabled", torch/cuda/__init__.py) retold in a sentence
    re.compile(r"(?i)(?<![\w-])(?:py)?torch\b[^.?!\n]{0,24}?\b(?:is\s|was\s)?not\s(?:compiled|built)\s(?:with|for)\s(?:cuda|gpu)\b"),
    # the same assertion retold in Chinese: "就说torch编译时未激活cuda" (torch did not enable CUDA when it was compiled,
    # chatchat-space/Langchain-Chatchat#1453), "torch没有编译cuda", "torch编译的时候没有启用CUDA", "torch未编译cuda"
    # (cpuonly29, advice29: one pattern)
    re.compile(r"(?i)(?<![a-z0-9_-])(?:py)?torch\s{0,2}(?:在|的)?\s{0,2}(?:编译|構建|构建)(?:时|的时候)?\s{0,2}"
               r"(?:未|没有?|並未|并未)\s{0,2}(?:激活|启用|開啟|开启|支持|包含|带|编译|加入)?\s{0,2}cuda"
               r"|(?<![a-z0-9_-])(?:py)?torch\s{0,2}(?:未|没有?|并未)\s{0,2}(?:激活|启用|开启|编译|构建)\s{0,2}(?:进)?\s{0,2}"
               r"cuda(?:\s{0,2}编译)?"),
    re.compile(r"(?i)cpu\s{0,2}版本?的?\s{0,2}(?:py)?torch|(?:py)?torch\s{0,2}(?:的)?\s{0,2}cpu\s{0,2}版"
               r"|(?:安装|装)(?:的|了)?(?:是)?\s{0,2}cpu\s{0,2}版"
               # "pytorch版本还是cpu" / "检查了pytorch版本发现是cpu版本" (torch's version "is still / turned out" CPU), "识别的却是
               # 2.3.1的cpu版本" (a release's CPU build)
               r"|(?:py)?torch\s{0,2}的?\s{0,2}版本\s{0,2}(?:还是|仍然是|依然是|发现是|是|为)\s{0,2}cpu"
               r"|\d{1,2}\.\d{1,2}(?:\.\d{1,3})?\s{0,2}的\s{0,2}cpu\s{0,2}版"),
    # "it installed the cpu version", "pip got the CPU-only build" (a line naming no other package: see _NOT_FRAMEWORK)
    re.compile(r"(?i)\b(?:installed|installs|got|gets|getting|downloaded|pulled|defaults?\sto|ended\sup\swith|is|was|have|has"
               r"|had)\s(?:the\s|a\s|only\s)?cpu[\s-]{0,2}(?:only\s)?(?:version|build|variant|wheels?|binar(?:y|ies)|packages?)\b"),
    # the framework and the word CPU as its variant: "using pytorch CPU instead of GPU", "uninstall the pytorch CPU"
    re.compile(r"(?i)(?<![\w-])(?:py)?torch[\s-]cpu\b(?![\s-]{0,2}(?:usage|time|tensors?|threads?|memory|mode|load|"
               r"inference|training|performance|speed|side|ops?|fallback|offload)\b)"),
    # (r2nvp) an install step that put the CPU build in: "When Installing ClearerVoice-Studio it installs Torch for CPU"
    # (WhisperJAV#334's title: the step replaced torch 2.11.0+cu128), its subject the install itself (it, pip, uv,
    # conda, the installer / script / requirements); a README's "Note that this installs torch for CPU only" (an
    # instruction's note) and a Makefile's "## installs torch for CPU" have no such subject
    re.compile(r"(?i)\b(?:it|pip|uv|conda|installer|script|requirements?(?:\.txt)?)\s(?:\w{1,12}\s)?(?:installs|installed"
               r"|pulls|pulled|downloads|downloaded)\s(?:the\s|a\s)?(?:py)?torch\s(?:for|on)\s(?:the\s)?cpu\b"),
    # (r2nvp) a CUDA torch replaced by the CPU build: "pip then replaced it with the CPU build from PyPI" (a setup
    # script's note on a 4090 host, hidock), "replaces it with the CPU one" (WhisperJAV#334's maintainer), "silently
    # replaced it with the CPU wheel"; torch named in the line (see _cpu_said), a negation before it ("no longer")
    # is no statement
    re.compile(r"(?i)\b(?:replac|overwr[io]t|swapp?)\w{0,4}\s(?:it|them|my\s[\w.+-]{1,30}|the\s[\w.+-]{1,30})\s(?:with|by)\s"
               r"(?:the\s|a\s)?cpu(?:[\s-]only)?\s(?:one|build|wheel|version|variant|package)s?\b"),
)
#: a CPU build of something that is no framework (ONNX Runtime, FAISS, llama.cpp, ...): not this evidence
_NOT_FRAMEWORK = re.compile(r"(?i)onnx|faiss|llama|ctranslate|bitsandbytes|xformers|opencv|whisper\.cpp|ollama|docker|image")
#: another framework named where torch is not ("Cannot use GPU because you have installed CPU version PaddlePaddle.",
#: Paddle's own message): its CPU build is not torch's
_OTHER_FRAMEWORK = re.compile(r"(?i)paddle|tensorflow|(?<![a-z])jax|mxnet|mindspore|cupy")
_NOT_SAID = re.compile(r"(?i)\?|\bnot\s(?:the\s)?cpu|\bisn'?t\b|\bif\b|\bwhether\b|\binstead\sof\s(?:the\s|a\s)?(?:py)?(?:torch\s)?cpu"
                       r"|\bcheck\b|\bmake\ssure\b|\bdon'?t\b|\bwant\b|\bintentional"
                       # a Chinese question or condition: the full-width question mark, the particle 吗, 是否 (whether),
                       # 如果 (if)
                       r"|？|吗|是否|如果")
#: where one sentence of a line ends (a question later in the line does not make an earlier statement a question)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s{1,3}(?=\S)|(?<=[。！？])")
#: a conda package of PyTorch's CPU-only build: the install plan's ``pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0``, a conda
#: list row ``pytorch  1.10.0  py3.8_cpu_0`` (the CUDA builds' are ``py3.8_cuda11.3_cudnn8_0``)
_CONDA_CPU = re.compile(r"(?i)(?<![\w-])pytorch(?:-|\s{1,40})(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?:-|\s{1,40})py\d\.\d{1,2}_cpu_\d")
#: openai-whisper's warning (whisper/transcribe.py) when the model runs on the CPU
_WHISPER_CPU = re.compile(r"FP16 is not supported on CPU; using FP32 instead")
_DRIVER_OLD = re.compile(
    r"(?i)\b(?:my|our|the|your)\s(?:nvidia\s|gpu\s|graphics\s|video\s|display\s)?(?:card\s)?driver(?:\sversion)?\s{1,2}"
    r"(?:is\s|was\s)?(?:(?:a\s(?:little|bit)|slightly|way|much)\s)?(?:too\sold|outdated)"
    # "not supported" said of the reporter's own driver only ("the driver is not supported on WSL" is another matter)
    r"|\b(?:my|our)\s(?:nvidia\s|gpu\s|graphics\s|video\s|display\s)?(?:card\s)?driver(?:\sversion)?\s{1,2}"
    r"(?:is\s|was\s)?(?:not\ssupported|unsupported|not\scompatible|incompatible)\s(?:for|with|by)\b"
    r"|驱动(?:程序)?(?:的)?(?:版本)?(?:太|过)(?:低|旧|老)"
    # (drvold37) "the drivers are too old to support them" (jade-hpc-gpu#180), "my Nvidia version is too old" (the
    # driver named by its vendor alone, pytorch#28195)
    r"|\b(?:my|our|the|your)\s(?:nvidia\s|gpu\s|graphics\s|video\s|display\s)?(?:card\s)?drivers\s{1,2}(?:are\s|were\s)"
    r"(?:(?:a\s(?:little|bit)|slightly|way|much)\s)?(?:too\sold|outdated)"
    r"|\b(?:my|our|the|your)\snvidia\sversion\s{1,2}(?:is\s|was\s)?(?:(?:a\s(?:little|bit)|slightly|way|much)\s)?(?:too\sold|outdated)")
#: (drvold37) the sentence reports the program's own message saying it, not the writer's guess: "the msg is that my
#: Nvidia version is too old" (pytorch#28195), "运行时，出现显卡驱动过低异常" (a driver-too-low error appeared at run time,
#: LexiLaw#40), "提示驱动版本太低": the program refused the driver, a failure in itself
_OLD_SHOWN = re.compile(r"(?i)\b(?:msg|message|error|warning|it)\s(?:is|was|says|said|shows?|showed|tells?\sme)\s(?:that\s)?"
                        r"(?:my|our|the|your)\s|(?:出现|提示|报错?|显示)[^。！？,，]{0,6}驱动")
#: the lowest driver a sentence says the build needs: "update it to at least 418.39", "requires driver >= 450.80.02",
#: "the driver needs to be 525.60.13 or newer", "驱动需要升级到450以上" (a driver version: a three-digit major)
_DRIVER_NEED = re.compile(
    r"(?i)\b(?:updat\w{0,4}|upgrad\w{0,4}|need\w{0,2}|requir\w{1,3}|minimum)\b[^.?!\n]{0,40}?"
    r"(?:\bat\sleast|>=|\bminimum(?:\sof)?|\bmin\.?)\s{0,2}(?:version\s|driver\s|r)?(?P<v>[2-9]\d{2}\.\d{2,3}(?:\.\d{1,3})?)(?![\d.]\d)"
    r"|\b(?:need\w{0,2}|requir\w{1,3}|updat\w{0,4}|upgrad\w{0,4})\b[^.?!\n]{0,40}?(?<![\w.])[rR]?(?P<u>[2-9]\d{2}\.\d{2,3}(?:\.\d{1,3})?)"
    r"(?:\s{1,2}drivers?)?\s{1,2}or\s(?:newer|later|higher|above)\b"
    # (drv32) the lowest driver a project says it supports, as a version or a driver branch ("The earliest driver we
    # support is R435", owl-project/NVISII#91; "the minimum driver version is 450.80.02"), and a driver branch a build
    # needs ("Optix 9 will need 590 driver", NVIDIA/OWL#12)
    r"|\b(?:earliest|oldest|lowest|minimum|min\.?)\s(?:nvidia\s)?driver(?:\s(?:version|branch))?(?:\s(?:we|they|it|that|this)"
    r"\s(?:support\w{0,2}|need\w{0,2}|requir\w{1,3}))?\s(?:is|of)\s(?:version\s|branch\s)?[rR]?(?P<x>[2-9]\d{2}(?:\.\d{2,3}){0,2})(?![\w.]\w)"
    r"|\b(?:need\w{0,2}|requir\w{1,3})\s(?:an?\s|the\s)?(?:nvidia\s)?[rR]?(?P<y>[2-9]\d{2}(?:\.\d{2,3}){0,2})\s(?:series\s|branch\s)?drivers?\b"
    r"|驱动[^。！？?]{0,12}?(?:需要|要|应|必须)?(?:更新|升级)?(?:到|至)?\s{0,2}(?P<w>[2-9]\d{2}(?:\.\d{2,3}){0,2})\s{0,2}(?:及)?(?:以上|或更高|或以上)")
#: (adv57) the thread's answer tells the reader to update THEIR NVIDIA driver to a named driver version or for a named
#: CUDA ("you need to update your (Nvidia) driver to at least version 580 to have Cuda 13", ComfyUI#11771; "update your
#: host driver to R550+"), or reads the reader's driver as too low / not kept up to date ("看日志是驱动版本（572.83）太低",
#: ComfyUI-Mie-Package-Launcher#100; "people are just not keeping their Nvidia drivers relatively up to date",
#: StabilityMatrix#1507). Group ``v``: the driver advised, ``c``: the CUDA advised, ``h``: the driver the answer read
#: as too low; none of them: the untargeted "not up to date". An unaddressed step list ("- Update Nvidia drivers to at
#: least 580": the writer's own steps, ComfyUI PR 11718) and the portable's generic echo ("try updating your Nvidia
#: Drivers to the latest": no target) are not it.
_DRIVER_ADVISED = re.compile(
    r"(?i)\b(?:update|upgrade)\s(?:your\s)(?:\(?(?:nvidia|gpu|graphics|video|display|host|card)\)?\s){0,2}drivers?\b"
    r"[^.?!\n]{0,40}?(?:(?:\bto|>=|\bfor)\s{0,2}(?:at\sleast\s|version\s|v(?=\d)|r(?=\d)|the\s){0,3}"
    r"(?P<v>[3-9]\d{2}(?:\.\d{1,3}){0,2})(?![\d.]\d)|\b(?:to\s(?:have|run|support|use|get)|for)\s(?:the\s)?cuda\s{0,2}(?P<c>1\d(?:\.\d)?)(?![\d.]\d))"
    r"|驱动(?:程序)?(?:的)?(?:版本)?\s{0,2}[（(]\s{0,2}v?(?P<h>[3-9]\d{2}(?:\.\d{1,3}){0,2})\s{0,2}[）)]\s{0,2}(?:太|过)(?:低|旧|老)"
    r"|(?:建议|需要|请)[^。！？\n]{0,10}驱动[^。！？\n]{0,6}(?:更新|升级)(?:到|至)\s{0,2}[rR]?(?P<w>[3-9]\d{2}(?:\.\d{1,3}){0,2})"
    r"|\bnot\skeeping\s(?:your|their)\s(?:nvidia\s|gpu\s|graphics\s)?(?:gpu\s)?drivers?\s(?:\w{1,12}\s)?up\sto\sdate\b"
    r"|\b(?:your|their)\s(?:nvidia\s|gpu\s|graphics\s)?(?:gpu\s)?drivers?\s(?:is|are)\s(?:not\s(?:\w{1,12}\s)?up\sto\sdate|out\sof\sdate)\b")
#: the writer's own update, before the advice's words ("I updated my driver to 580", "after I upgraded ...")
_OWN_UPDATE = re.compile(r"(?i)(?:^|[^\w'])(?:i|we|i'?ve|we'?ve|i'd|after|already|tried)\s(?:[\w']{1,12}\s){0,3}$|我[^。！？\n]{0,6}$")
#: the sentence names the driver, or updates "it" / "them" to that version (a reply to "what is your driver?")
_DRIVER_NAMED = re.compile(r"(?i)\bdrivers?\b|驱动|\b(?:updat|upgrad)\w{0,4}\s(?:it|them)\b")
#: a build's code starts at compute capability N: "only contains kernels for sm_75 and newer", "only supports sm_70 and
#: above", "only includes kernels for newer GPU architectures (sm_70+)"
_ARCH_FLOOR = re.compile(
    r"(?i)\b(?:only\s(?:contains?|includes?|has|have|ships?|supports?|targets?|(?:built|compiled)\s(?:for|with))|supports?\sonly)\b"
    r"[^.!?\n]{0,50}?\bsm_?(?P<v>\d{2,3})\s{0,2}(?:\+|and\s(?:newer|above|later|up)\b|or\s(?:newer|above|later|higher)\b"
    r"|onwards?\b)")
#: another library, kernel or tool as the floor's subject (attack42): "flash-attention only supports sm_80 and above",
#: "xformers' kernels only target sm_75+", "TensorRT-LLM ... It only supports sm_80 and newer" - not the torch build's
_OTHER_LIB = re.compile(
    r"(?i)(?<![\w-])(?:flash[\s_-]?(?:attn|attention)\w{0,3}(?:[\s_-]?\d{1,2})?|fa[23]|sage[\s_-]?attention\w{0,3}"
    r"|xformers|bitsandbytes|bnb|triton|vllm|sglang|tensorrt(?:[\s_-]llm)?|trt[\s_-]llm|deepspeed|apex|cutlass|exllama\w{0,3}|auto[\s_-]?(?:gptq|awq)|gptq|awq|marlin"
    r"|unsloth|mamba(?:[\s_-]ssm)?|causal[\s_-]conv1d|transformer[\s_-]engine|fbgemm\w{0,4}|torchao|cupy|jax(?:lib)?"
    r"|tensorflow|onnxruntime|llama\.cpp|ollama|paddle\w{0,6}|mmcv|spconv|(?:this|that|the)\s(?:kernel|library|lib"
    r"|package|extension|op|operator|plugin|feature|model)s?)(?![\w-])")
_TORCH_NAMED = re.compile(r"(?i)(?<![\w-])(?:py)?torch(?![\w-])")
#: the card / driver / GPU supports CUDA X at most
_DRIVER_CUDA = re.compile(
    r"(?i)\b(?:my\s|the\s)?(?:computer\s)?(?:graphics\s|video\s)?(?:card|gpu|driver)\s(?:can\s)?only\s(?:support|supports|run|runs)"
    r"\s(?:up\sto\s)?cuda\s{0,2}v?(?P<v>\d{1,2}\.\d)(?!\d|\.\d)"
    # nvidia-smi's header retold in a sentence: "nvidia-smi shows CUDA Version: 11.4" (the driver's highest CUDA)
    r"|\bnvidia-smi\b[^.!?\n]{0,40}?\bcuda(?:\sversion)?\s{0,2}(?:is\s|of\s)?[:=]?\s{0,2}(?P<w>\d{1,2}\.\d)(?!\d|\.\d)")
_CUDA = re.compile(r"(?i)(?<![a-z0-9_.])cuda[\s_-]{0,3}(?:version\s{0,2}(?:is\s|:|=)?\s{0,2}|版本\s{0,2}(?:是|为)?\s{0,2}|toolkit\s)?v?"
                   r"(?P<v>\d{1,2}\.\d)(?:\.\d{1,3})?(?!\d|\.\d)"
                   # a build's compact label: +cu124, cu118, the conda cuda100 / cuda92 package
                   r"|(?<![a-z0-9_.])(?:\+|)cu(?:da)?(?P<c>(?:1[0-3]|[89])\d)(?!\d|\.\d)")
_SAID_NOT = re.compile(r"(?i)\bnot\s(?:support|compatible|work)|\bdoes\s?n[o']t\s(?:support|work)|\bcannot\b|\bcan'?t\b"
                       r"|\bunsupported\b|\bincompatible\b|不支持|不兼容")
#: (``nvidia`` as a folder of a path is no wish: TensorFlow's own "kernel driver does not appear to be running on this
#: host (xps13): /proc/driver/nvidia/version does not exist", printed on every machine without the driver; quiet38)
_WANTS_GPU = re.compile(r"(?i)\b(?:back\sto|switch\s(?:\w{1,8}\s)?to|use|using|utili[sz]\w{0,5}\sof|run\son|instead\sof)"
                        r"\s(?:the\s|my\s|discrete\s|an?\s)?(?:nvidia\s)?gpus?\b|(?<![/\\])\bnvidia\b(?![/\\])"
                        r"|download\.pytorch\.org/whl/(?:[a-z]{1,8}/)?cu\d{2,3}\b|(?:用|调用|使用)\s?gpu|显卡"
                        # the GPU build asked for: "install pytorch gpu version", conda's cudatoolkit=10.1 spec
                        r"|\binstall\w{0,3}\s(?:the\s)?(?:py)?(?:torch\s)?gpu\s(?:version|build)\b|\bcudatoolkit\s{0,2}=\s{0,2}\d"
                        # an install meant for the GPU: "Jax installation for GPU" (gbionics/adam#50's title)
                        r"|\binstall(?:ation|ing)?\sfor\s(?:the\s|an?\s)?(?:nvidia\s)?gpus?\b"
                        # (r2nvp) the GPU build to be put back: "you need to reinstall the GPU torch version"
                        # (WhisperJAV#334's maintainer), "reinstall the CUDA version of torch"
                        r"|\breinstall\w{0,3}\s(?:the\s|your\s|a\s)?(?:gpu|cuda)\s(?:(?:version|build)\sof\s)?(?:py)?torch\b"
                        # (r2nvp) the CPU build got although a GPU is there: "conda installing pytorch-cpu even when gpu is
                        # available", "install a cpu version of pytorch even on machines with GPU" (NRCan/geo-deep-learning#490),
                        # "although i have a gpu, i get torch.__version__ = "2.1.0"" (pytorch#116408)
                        r"|\b(?:even\s(?:when|though)|although|despite)\s(?:an?\s|my\s|the\s)?(?:nvidia\s)?gpus?\s(?:is|are)\s(?:available|present|there)\b"
                        r"|\b(?:even\s)?on\smachines?\swith\s(?:an?\s)?(?:nvidia\s)?gpus?\b|\balthough\si\shave\san?\s(?:nvidia\s)?gpu\b")


#: the text says the framework build does not fit the GPU the same sentence names: "you have installed a version of pytorch
#: incompatible with your 4090", "PyTorch doesn't work with my RTX 3060", "torch 1.7 does not support the 3090"
_ARCH_SAID = re.compile(
    r"(?i)(?<![\w-])(?:py)?torch\b[^.?!\n]{0,60}?(?:\bincompatible|\bnot\s(?:be\s)?compatible|\bisn'?t\scompatible"
    r"|\b(?:does|do|did)\s?n[o']t\s(?:support|work|run)|\bnot\s(?:support|work|run)(?:s|ing)?|\bcan(?:not|'t)\s(?:support|work|run))"
    r"\s(?:with|on|for)\b")
#: a sentence says the GPU needs a CUDA at least N: "Those require a minimum of CUDA 10", "my graphics card (RTX 2080)
#: requires at least CUDA 10", "you need cuda 10 for RTX cards", "RTX 3090 only supports cuda11 and above"
_NEEDS_CUDA = re.compile(
    r"(?i)\b(?:requires?|required|needs?)\s(?:a\s)?(?:minimum\sof\s|at\sleast\s|minimum\s)?cuda\s{0,2}v?(?P<v>\d{1,2}(?:\.\d)?)(?!\d|\.\d)"
    r"|\bonly\ssupports?\s(?:cuda\s{0,2})?v?(?P<w>\d{1,2}(?:\.\d)?)(?:\.x)?\s(?:and|or)\s(?:above|up|higher|later|newer)\b")
_HEDGED = re.compile(r"(?i)\?|\bif\b|\bwhether\b|\bmake\ssure\b|\bmay\b|\bmight\b|\bcould\b")
#: a Python minor version said not (yet) supported: the negated verb before it (English, Chinese) or after it
#: (English, Chinese, Japanese); group ``v`` or ``w`` is the version
_PY_UNSUPPORTED = re.compile(
    r"(?i)(?:(?<![a-z])(?:does\s{1,2}not|doesn't|do\s{1,2}not|don't|not(?:\s{1,2}yet)?|no\s{1,2}longer|cannot|can't)"
    r"\s{1,2}(?:yet\s{1,2})?(?:support(?:ed)?|work\s{1,2}with|compatible\s{1,2}with)(?:\s{1,2}(?:on|with|for))?"
    r"|(?:暂时|目前|还|暂|尚)?(?:在)?(?:不|未|没有|還?未)(?:被)?支持)\s{0,2}python\s{0,2}v?(?P<v>3\.\d{1,2})(?:\.\d{1,3})?(?![\d.])"
    r"|python\s{0,2}v?(?P<w>3\.\d{1,2})(?:\.\d{1,3})?(?![\d.])\s{0,2}(?:(?:is|are)\s{1,2}(?:not|no\s{1,2}longer)(?:\s{1,2}yet)?"
    r"\s{1,2}(?:yet\s{1,2})?supported|(?:not\s{1,2})?(?:yet\s{1,2})?unsupported|(?:暂时|目前|还|暂|尚)?(?:不|未)(?:被)?支持"
    r"|(?:は|に|には)?\s{0,2}(?:未対応|非対応|対応していません|サポートされていません))")
#: a condition, a question or a hedge in the sentence: no statement
_PY_HEDGED = re.compile(r"(?i)\?|？|吗|嘛|是否|\bif\b|\bwhether\b|\bmay\b|\bmight\b|如果|もし|ですか")
#: a CUDA version said not to support a host compiler: "CUDA 10.1 does not support GCC 9 or later", "cuda 11.3 doesn't
#: work with gcc 11", "gcc 12 is not supported by CUDA 11.8", "g++ 13 is not compatible with cuda 12.1"
_CC_UNSUPPORTED = re.compile(
    r"(?i)(?<![a-z])cuda\s{0,2}v?(?P<cuda>\d{1,2}(?:\.\d{1,2})?)(?:\.\d{1,3})?\s{1,2}(?:does\s{1,2}not|doesn't|doesn’t|do\s{1,2}not"
    r"|don't|cannot|can't|won't)\s{1,2}(?:support|work\s{1,2}with|accept)\s{1,2}(?P<cc>gcc|g\+\+|clang|msvc)"
    r"(?:\s{0,2}>=?|\s{1,2}(?:versions?\s{1,2})?(?:later|newer|higher)\s{1,2}than|\s{1,2}above)?[\s-]{0,2}v?(?P<ccv>\d{1,2})(?![\d])"
    r"|(?<![a-z])(?P<cc2>gcc|g\+\+|clang|msvc)[\s-]{0,2}v?(?P<ccv2>\d{1,2})(?:\.\d{1,3}){0,2}\s{1,2}(?:is|are)\s{1,2}(?:not|no\s{1,2}longer)"
    r"\s{1,2}(?:supported|compatible)\s{1,2}(?:by|with)\s{1,2}cuda\s{0,2}v?(?P<cuda2>\d{1,2}(?:\.\d{1,2})?)(?![\d])")
#: the CUDA a PyTorch build ships with / was built with, said in a sentence ("the PyTorch binaries ship with CUDA
#: `10.0.130`", "PyTorch was compiled with CUDA 10.2", "your torch is built with cuda 11.8")
_TORCH_CUDA_SAID = re.compile(
    r"(?i)(?<![a-z])(?:py)?torch(?:'s)?(?:\s{1,2}[a-z]{1,12}){0,2}\s{1,2}(?:ships?|shipped|(?:was|were|is|are)\s{1,2}(?:built|compiled)"
    r"|built|compiled|bundles?)\s{1,2}(?:with|for|against|using)\s{1,2}cuda\s{0,2}`?v?(?P<v>\d{1,2}\.\d{1,2})")
#: the system's toolkit CUDA, said in the same sentence ("installed CUDA `10.1.168` on your system", "your system CUDA
#: is 11.1", "the CUDA toolkit installed is 11.3")
_SYSTEM_CUDA_SAID = re.compile(
    r"(?i)(?<![a-z])(?:installed|have)\s{1,2}cuda\s{0,2}`?v?(?P<a>\d{1,2}\.\d{1,2})[\d.`]{0,10}\s{1,2}on\s{1,2}(?:your|the|my)"
    r"\s{1,2}(?:system|machine|computer|host)"
    r"|(?<![a-z])(?:system|local)\s{1,2}cuda(?:\s{1,2}toolkit)?\s{1,2}(?:is|=|:)?\s{0,2}`?v?(?P<b>\d{1,2}\.\d{1,2})"
    r"|(?<![a-z])cuda\s{1,2}toolkit\s{1,2}(?:installed\s{1,2})?(?:is|=|:)\s{0,2}`?v?(?P<c>\d{1,2}\.\d{1,2})")
#: a CUDA library folder (a toolkit's, on the search path) said to conflict, or taking it off the search path said to
#: fix the failure: "`/usr/local/cuda-11.2/lib64` was causing the conflict", "removing C:\...\CUDA\v10.1\bin from PATH
#: solved it" (a version's dot, "cuda-11.2", does not end the sentence); the one home of that wording
#: (compat_matrix/resolutions.toml reads no "removed ... from PATH")
_LIB_DIR = re.compile(r"(?i)/usr/local/cuda[\w.-]{0,12}/(?:lib64|lib|targets/[\w-]{1,20}/lib)\b"
                      r"|\\cuda\\v\d{1,2}\.\d\\(?:bin|lib)\b|/usr/local/cuda-\d{1,2}\.\d\b")
_CONFLICT = re.compile(r"(?i)\bconflict\w{0,3}\b|\bclash\w{0,3}\b"
                       r"|\bremov\w{1,4}\b(?:[^.!?]|\.\d){0,80}\b(?:ld_library_path|path)\b[^.!?]{0,40}\b(?:solve[ds]?|fix(?:e[ds])?"
                       r"|works?|worked|resolve[ds]?)\b")
#: a sentence that says no (NVIDIA) GPU is there or wanted ("This laptop has no NVIDIA GPU, I run on the CPU on
#: purpose", "I don't want to use the GPU"): its "NVIDIA" / "use the GPU" shows no GPU was wanted
_NO_GPU_WANTED = re.compile(
    r"(?i)(?<![\w'])(?:no|without(?:\s(?:an?|any))?)\s(?:nvidia\s|cuda\s|dedicated\s|discrete\s|nvidia\scuda\s)?"
    r"(?:gpus?|graphics\scards?|video\scards?)(?![\w'])"
    r"|(?<![\w'])(?:do(?:n'?t|\snot)|does(?:n'?t|\snot))\s(?:want|need|have)\s(?:to\suse\s)?(?:the\s|a\s|an\s|my\s|any\s)?"
    r"(?:nvidia\s)?(?:gpus?|cuda|graphics\scards?)(?![\w'])"
    r"|(?<![\w'])(?:on\spurpose|intentional\w{0,2})(?![\w'])"
    # (r2nvp) an instruction's condition addressed to the reader: "If you want to use a GPU, see the lines for Linux."
    # (a README's install note beside its CPU-only command: no reporter wants anything there)
    r"|(?<![\w'])if\syou\s(?:want|wish|need|would\slike|plan)\sto\s(?:use|run\son|train\son)\s(?:the\s|a\s|an\s|your\s)?"
    r"(?:nvidia\s)?gpus?(?![\w'])")
#: an issue template's question ("- Using GPU in script?: no"): its answer is read by the template's reader, not here
_TEMPLATE_FIELD = re.compile(r"(?i)\bgpu\b[^:\n]{0,40}\?\s{0,2}[:：]")
#: another vendor's GPU stack named (Intel XPU / Arc, AMD ROCm / Radeon, Apple MPS): "the GPU" there is not NVIDIA's
_OTHER_VENDOR = re.compile(r"(?i)(?<![a-z])(?:xpu|rocm|hip|radeon|amd\sgpu|intel\s(?:arc|gpu|iris|xe)|arc\sa\d{3}|mps|metal"
                           r"|apple\s(?:m\d|silicon))(?![a-z])")
#: a line of a traceback's source listing (IPython / Jupyter print the source around each frame with its line number:
#: "     91     if DEVICE_TYPE in ("cuda", "hip"):", "---> 85 raise NotImplementedError(...)"; read stripped): the
#: program's code, which names every vendor it handles ("hip", torch.xpu), not the machine's stack (newnv40: Unsloth's
#: device check on a DGX Spark read as an AMD and Intel host)
_SOURCE_LISTING = re.compile(r"-{1,6}>\s{0,3}\d{1,6}\s|\d{1,6}\s{1,12}(?:(?:if|elif|else|for|while|return|raise|def|class"
                             r"|import|from|try|except|with|pass|assert)\b|[A-Za-z_][\w.]{0,80}\s{0,2}(?:=[^=]|\())")


#: a word before the statement, in its sentence, that makes it no statement of the reporter's: a negation ("I don't
#: think my driver is too old", "It never installed the cpu version"), a doubt or a guess ("I doubt", "Could it be that"),
#: or someone else's claim ("the message claims", "somebody suggested"); "no matter which version" is no negation
_UNSAID_BEFORE = re.compile(r"(?i)(?<![\w'])(?:not|no(?!\s{1,3}matter\b)|never|nor|doubt\w{0,3}|whether|if|unless|maybe|perhaps|might|could"
                            r"|suspect\w{0,2}|suggest\w{0,3}|claim\w{0,2}|says?|said|rule\w{0,2}\sout)(?![\w'])"
                            r"|n't(?![a-z])|不|是否|是不是")
#: a torch build that is no longer, or never was, the reporter's: removed, replaced, earlier ("I uninstalled torch
#: 2.0.1+cpu", "I previously had torch 2.0.1+cpu", "Earlier it installed the CPU version"), or someone else's
#: ("My colleague installed the cpu version", "My friend's laptop has torch 2.0.1+cpu")
GONE_BEFORE = re.compile(r"(?i)(?<![\w'])(?:uninstall\w{0,3}|remov\w{1,3}|delet\w{1,3}"
                          r"|previous\w{0,2}|earlier|before|formerly|used\sto|switched\sfrom|instead\sof"
                          r"|(?:friend|colleague|co-?worker|team-?mate)(?:s|'s|s')?|someone|somebody"
                          r"|(?:an)?other\s(?:machine|computer|pc|laptop|desktop|server|box|node|system)s?)(?![\w'])")


#: TensorFlow, JAX or Paddle named as a package (``tensorflow-gpu``, ``tensorflow-cpu`` and ``jax[cuda12]`` are other
#: packages: the name must not go on with "-" or a word character); "tensorlow" is a reporter's spelling (n-beats#30)
_FW = r"tensor\s?f?low|tf|jax(?:lib)?|paddle(?:paddle)?"
#: the framework's CPU build said (see ``fw-cpu-said``): the framework then "(CPU)", "cpu version", "non-GPU version",
#: "which is using CPU"; "the CPU version of X"; Chinese "cpu版本paddle"
_FW_CPU_SAID = (
    re.compile(r"(?i)(?<![\w-])[`'\"]?(?P<fw>" + _FW + r")[`'\"]?(?![\w-])[^.?!\n]{0,40}?(?:\(cpu\)|\bcpu[\s-]{0,2}"
               r"(?:only\s)?(?:version|build|variant)\b|\bnon-gpu\s(?:version|build)\b|\b(?:which|that)\s(?:is\s)?"
               r"(?:using|uses|runs\son)\s(?:the\s)?cpu\b)"),
    re.compile(r"(?i)\bcpu[\s-]{0,2}(?:only\s)?(?:version|build)\s(?:of\s)?(?:the\s)?[`'\"]?(?P<fw>" + _FW
               + r")[`'\"]?(?![\w-])"),
    re.compile(r"(?i)cpu\s{0,2}版本?的?\s{0,2}(?P<fw>paddle(?:paddle)?|tensorflow|jax(?:lib)?)(?![\w-])"),
)
#: a sentence asking without its question mark (an issue title: "Does we require both paddlepaddle-gpu and paddlepaddle")
_ASKED = re.compile(r"(?i)^\W{0,4}(?:do|does|did|is|are|was|were|can|could|should|would|will|how|why|what|which|where)\b")
#: a framework's GPU package named
_GPU_PACKAGE = re.compile(r"(?i)(?<![\w-])(?:tensorflow[-_]gpu|paddlepaddle[-_]gpu|onnxruntime[-_]gpu)(?![\w-]*cpu)"
                          r"|(?<![\w-])jax\[cuda\d{0,2}")
#: both builds of one framework said installed (see ``both-builds-said``)
_BOTH_SAID = re.compile(
    r"(?i)(?:安装|装)了?\s{0,2}(?:cpu\s{0,2}(?:和|与|跟|及)\s{0,2}gpu|gpu\s{0,2}(?:和|与|跟|及)\s{0,2}cpu)\s{0,2}(?:的)?"
    r"\s{0,2}(?:两个|两种|2个)?\s{0,2}版本"
    r"|\b(?:installed|have|has|had)\s(?:both\s)?(?:the\s)?(?:cpu\sand\sgpu|gpu\sand\scpu)\s(?:versions?|builds?|packages?)\b"
    r"|\bboth\s[`'\"]?(?P<a>onnxruntime|paddlepaddle|paddle|tensorflow)[`'\"]?\s(?:and|&)\s[`'\"]?(?P=a)-gpu\b"
    r"|\bboth\s[`'\"]?(?P<b>onnxruntime|paddlepaddle|paddle|tensorflow)-gpu[`'\"]?\s(?:and|&)\s[`'\"]?(?P=b)(?![\w-])")
#: (a ``pip uninstall onnxruntime onnxruntime-gpu`` line is no evidence: it is as often the install step before the
#: failure, after which only the GPU package is there - facefusion/facefusion#32 - as the fix, facefusion#269)
_FW_IN_LINE = re.compile(r"(?i)(?<![\w-])(onnxruntime|paddle(?:paddle)?|tensorflow|jax(?:lib)?)")
#: a copy of cuDNN / a CUDA library (see ``lib-copy-shadowed``)
_LIB = (r"(?:lib)?cudnn[\w.`]{0,14}|libcu\w{2,10}[\w.`]{0,10}|cuda\s(?:runtime\s)?librar(?:y|ies)"
        r"|(?:system|conda|native|older|another|a\sdifferent)\s(?:cuda\s|cudnn\s)?librar(?:y|ies)")
_LIB_SHADOWED = re.compile(
    r"(?i)\b(?:picked\sup|pick(?:s|ing)?\sup|load(?:s|ed|ing)?|us(?:e|es|ed|ing)|find(?:s|ing)?|found)\s(?:first\s)?"
    r"(?:the\s|an?\s|this\s)?(?:older\s|wrong\s|conda\s)?(?:" + _LIB + r")[^.!?\n]{0,80}?\b(?:instead\sof|ahead\sof|rather\sthan)\b"
    r"|(?<![\w-])(?:" + _LIB + r")[^.!?\n]{0,100}?\b(?:getting\spicked\sup|picked\sup|loaded|(?:first\s)?us(?:e|es|ed)"
    r"|found)\b[^.!?\n]{0,60}?\b(?:instead\sof|ahead\sof|rather\sthan)\b")
#: advice ("you should make TF use the pip cuDNN instead of the system one"); "instead of" is the statement's own words
_LIB_ADVICE = re.compile(r"(?i)(?<![\w'])(?:try|you\s(?:can|could|should|need\sto)|should|recommend\w{0,3}|suggest\w{0,3}"
                         r"|make\ssure|if\syou)(?![\w'])")
#: a negation before the statement (a hedge of a maintainer's diagnosis, "It might be the case that ...", does not undo it)
_NEGATED = re.compile(r"(?i)(?<![\w'])(?:not|never|no|nor)(?![\w'])|n't(?![a-z])|不")


def _fw_name(raw: str) -> str:
    low = raw.lower().replace(" ", "")
    return "tensorflow" if low.startswith("tensor") or low == "tf" else "jax" if low.startswith("jax") else "paddle"


def _fw_cpu_said(s: str) -> Optional[Fact]:
    """``fw-cpu-said`` (``framework | line``): see the module's docstring."""
    for pattern in _FW_CPU_SAID:
        for m in pattern.finditer(s):
            part = _sentence(s, m.start(), m.end())
            if not _asserted(s, m.start(), m.end()) or _ASKED.search(part) or _ADVICE.search(part) \
                    or GONE_BEFORE.search(s[max(sentence_start(s, m.start()), m.start() - 25):m.start()]):
                continue
            return Fact("seen:fw-cpu-said", f"{_fw_name(m.group('fw'))} | {s}", s)
    return None


def _both_said(s: str) -> Optional[Fact]:
    """``both-builds-said`` (``framework | line``): see the module's docstring."""
    for m in _BOTH_SAID.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if not _asserted(s, m.start(), m.end()) or _ASKED.search(part):
            continue
        fw = m.group("a") or m.group("b") or next(iter(_FW_IN_LINE.findall(s)), "framework")
        return Fact("seen:both-builds-said", f"{fw.lower()} | {s}", s)
    return None


def _lib_shadowed(s: str) -> Optional[Fact]:
    """``lib-copy-shadowed``: see the module's docstring."""
    for m in _LIB_SHADOWED.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if "?" in part or "？" in part or _NEGATED.search(s[sentence_start(s, m.start()):m.start()]) \
                or _LIB_ADVICE.search(part):
            continue
        return Fact("seen:lib-copy-shadowed", s, s)
    return None


#: a wheel for one Python only (see ``python-only-wheel``): "only ... python3.6", "only ... cp36", "只出了3.6的"
_PY_ONLY = re.compile(
    r"(?i)\bonly\b(?:[^.!?\n]|\.\d){0,60}?(?:(?<![\w.])(?:python|py)\s{0,2}v?(?P<v>3\.\d{1,2})(?![\d.]\d)|(?<![\w-])cp3(?P<c>\d{1,2})(?!\d))"
    r"|只(?:出|有|提供|发布|支持)了?[^。！？\n]{0,12}?(?:python|py)?\s{0,2}(?P<z>3\.\d{1,2})(?![\d.]\d)"
    # (jetson35) the wheels said to BE one Python's: "the torch 1.8 wheels in the Jetson Zoo are python 3.6"
    # (dusty-nv/jetson-containers#156)
    r"|(?<![\w-])(?:wheels?|whls?)\s(?:[^.!?\n]|\.\d){0,60}?(?<![\w-])(?:are|is)\s{1,2}(?:(?:built|made|compiled)\s{1,2})?"
    r"(?:(?:for|with)\s{1,2})?(?:python|py)\s{0,2}v?(?P<w>3\.\d{1,2})(?![\d.]\d)")
#: what the sentence must be about: a wheel, a build, a download, a framework
_PY_ONLY_SUBJECT = re.compile(r"(?i)wheel|whl|\bbuild|\bbinar|\burl\b|\blink|\bpackage|库|包|torch|paddle|tensorflow"
                              r"|onnxruntime|jetson|jetpack")
_PY_VERSION = re.compile(r"(?i)(?<![\w.])(?:python|py)\s{0,2}v?(3\.\d{1,2})(?![\d.]\d)")


def _python_only(s: str) -> Optional[Fact]:
    """``python-only-wheel`` (``only | other | line``): see the module's docstring."""
    for m in _PY_ONLY.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if _PY_HEDGED.search(part) or _ASKED.search(part) or not _PY_ONLY_SUBJECT.search(part):
            continue
        only = m.group("v") or m.group("z") or m.group("w") or f"3.{m.group('c')}"
        other = next((v for v in _PY_VERSION.findall(s) if v != only), "")
        return Fact("seen:python-only-wheel", f"{only} | {other} | {s}", s)
    return None


def _sentence(s: str, start: int, end: int) -> str:
    """The sentence holding ``s[start:end]``."""
    return s[sentence_start(s, start):sentence_stop(s, end)]


def _asserted(s: str, start: int, end: int, build: bool = False) -> bool:
    """Whether the words at ``s[start:end]`` are stated: their sentence asks no question (``?``, ``吗``) and no
    negation, doubt or other's claim comes before them in it (see ``_UNSAID_BEFORE``); for a torch build (``build``),
    nor a word that makes it a removed, earlier or someone else's one (``GONE_BEFORE``)."""
    begin = sentence_start(s, start)
    tail = s[end:sentence_stop(s, end)]
    sentence = s[begin:start] + tail
    before = s[begin:start]
    return not any(q in sentence for q in ("?", "？", "吗")) and not _UNSAID_BEFORE.search(before) \
        and not (build and GONE_BEFORE.search(before))


def _stated(pattern: "re.Pattern[str]", s: str, build: bool = False) -> bool:
    """Whether ``pattern`` matches ``s`` somewhere that is stated (:func:`_asserted`)."""
    return any(_asserted(s, m.start(), m.end(), build) for m in pattern.finditer(s))


def _gpu_wanted(s: str) -> bool:
    """Whether a sentence of ``s`` shows the GPU wanted (``_WANTS_GPU``) and does not say no GPU is there or wanted
    (``_NO_GPU_WANTED``)."""
    return any(not _NO_GPU_WANTED.search(_sentence(s, m.start(), m.end())) for m in _WANTS_GPU.finditer(s))


#: a sentence that advises a build rather than shows the one installed ("Try pip install torch==2.0.1+cpu to test on
#: CPU", "For a machine without a GPU you can run pip install torch==2.0.1+cpu instead")
_ADVICE = re.compile(r"(?i)(?<![\w'])(?:try|you\s(?:can|could|should|may|might)|should|recommend\w{0,3}|suggest\w{0,3}"
                     r"|instead|if\syou|for\s(?:a|any)\s(?:machine|computer|laptop|pc|system)s?\swithout)(?![\w'])")


def _cpu_label(s: str) -> Optional[Fact]:
    if _CU_LABEL.search(s):
        return None  # a CUDA build of torch named on the same line: which one is installed the line does not make certain
    for m in _CPU_LABEL.finditer(s):
        pkg = (m.group("pkg") or "").rstrip("-_")
        if _OTHER_PKG.search(pkg) or not _asserted(s, m.start(), m.end(), build=True) \
                or _ADVICE.search(_sentence(s, m.start(), m.end())):
            continue
        # the word before the version is no package where the sentence named torch before it ("checking the torch
        # version reveals 2.0.0+cpu")
        before = s[sentence_start(s, m.start()):m.start()]
        if _TORCH.search(pkg) or (not _OTHER_PKG.search(s) and not re.search(r"[a-z]", pkg, re.I)) \
                or (_TORCH.search(before) and not _OTHER_PKG.search(before)):
            return Fact("seen:torch-cpu-label", f"{m.group('v')} | {s}", s)
    return None


#: a GPU and a CUDA given to someone or something else: another person's, another machine's, a page's quoted claim
_ELSEWHERE = re.compile(r"(?i)(?<![a-z])(?:friend|colleague|co-?worker|team-?mate|boss|brother|sister|partner|he|she"
                        r"|his|her|their|someone|somebody|people|other|another|second|said|says|wrote|reported|quot\w{0,6}"
                        r"|docs?|documentation|readme|guide|faq|according)(?![a-z])|@\w")


#: a move that did not help: "still fails", "the same error", "didn't help", "no luck", "the problem persists"
_STILL_FAILS = re.compile(r"(?i)(?<![a-z])(?:still|same (?:error|problem|issue|result)|did ?n[o'’]?t (?:help|work|fix|solve)"
                          r"|does ?n[o'’]?t (?:help|work)|no luck|nothing changed|persists?)(?![a-z])")


#: a move from one CUDA to another: "from CUDA 10.2 to 11.3", "CUDA 10.1 -> 11.0"
_MOVE = re.compile(r"(?i)cuda[ -]?v?\d{1,2}\.\d{1,2}(?:\.\d{1,3})?[ \t]{0,3}(?:to|->|=>|→)[ \t]{0,3}(?:cuda[ -]?)?v?"
                   r"(?P<to>\d{1,2}\.\d{1,2})")


def _unsaid_pair(line: str) -> bool:
    """Whether a sentence of ``line`` that names a GPU or a CUDA asks a question or gives them to someone or something
    else ("My colleague's RTX 3060 did not work with CUDA 10.2", "On my other machine, ...", "RTX 3060 with CUDA 10.2?")."""
    begin = 0
    for end in [m.end() for m in SENTENCE_END.finditer(line)] + [len(line)]:
        s, begin = line[begin:end], end
        if not ("?" in s or "？" in s or "吗" in s or _ELSEWHERE.search(s)):
            continue
        if _CUDA.search(s) or modern_gpu_models(s) or gpu_models(s):
            return True
    return False


def _pair(s: str) -> Optional[Fact]:
    gpus = _line_gpus(s)  # one model read by both readers, or one series
    cudas = list(dict.fromkeys(m.group("v") or f"{m.group('c')[:-1]}.{m.group('c')[-1]}" for m in _CUDA.finditer(s)))
    if len(gpus) != 1 or not cudas or _unsaid_pair(s):
        return None
    said_not = "1" if _SAID_NOT.search(s) else "0"
    # the oldest CUDA the sentence names with the GPU (an upgrade "from 10.2 to 11.1" names the failing one first);
    # the newest where the sentence says the move did not help ("upgraded from CUDA 10.2 to 11.3, still fails": the
    # CUDA the user left is no longer the one failing, newgpu39)
    still = _STILL_FAILS.search(s)
    move = _MOVE.search(s) if still else None
    if move:
        cuda = move.group("to")
    else:
        order = [tuple(int(x) for x in v.split(".")) for v in cudas]
        cuda = cudas[order.index((max if len(cudas) > 1 and still else min)(order))]
    return Fact("seen:gpu-cuda-pair", f"{gpus[0]} | {cuda} | {said_not} | {s}", s)


def _line_gpus(s: str) -> List[str]:
    """The GPU models a line names (each once), then the GeForce series it names (``RTX 20 series``)."""
    models = list({g.lower(): g for g in modern_gpu_models(s) + gpu_models(s)}.values())
    return models + [f"{x} series" for x in gpu_series(s)]


def _cpu_said(s: str, low: str) -> Optional[Fact]:
    if not ("cpu" in low or "w/o" in low or "without" in low or "compiled" in low or "built" in low or "编译" in s
            or "启用" in s or "激活" in s or "构建" in s) \
            or "cuda enabled" in low or _NOT_FRAMEWORK.search(s) or (_OTHER_FRAMEWORK.search(s) and not _TORCH.search(s)):
        return None
    for part in _SENTENCE.split(s):
        if not _NOT_SAID.search(part) and any(_stated(p, part, build=True) for p in _CPU_SAID):
            return Fact("seen:cpu-build-said", s, s)
    return None


def _arch_facts(s: str) -> List[Fact]:
    """``arch-said`` (``gpu | line``) and ``gpu-cuda-need`` (``gpu | cuda | line``): see the module's docstring."""
    gpus = _line_gpus(s)
    if not gpus:
        return []
    out: List[Fact] = []
    for part in _SENTENCE.split(s):
        if _HEDGED.search(part):
            continue
        m = _ARCH_SAID.search(part)
        named = _line_gpus(part[m.end():]) if m else []
        if named and not any(f.field == "seen:arch-said" for f in out):
            out.append(Fact("seen:arch-said", f"{named[0]} | {s}", s))
        n = _NEEDS_CUDA.search(part)
        if n and len(gpus) == 1 and not any(f.field == "seen:gpu-cuda-need" for f in out):
            v = n.group("v") or n.group("w")
            out.append(Fact("seen:gpu-cuda-need", f"{gpus[0]} | {v if '.' in v else v + '.0'} | {s}", s))
    return out


def _other_subject(s: str, start: int) -> bool:
    """Whether the floor stated at ``s[start]`` is another library's (``_OTHER_LIB``): named before it in its
    sentence, or, where its sentence names nothing ("It only supports ..."), in the sentence before it and no torch
    there."""
    begin = sentence_start(s, start)
    before = s[begin:start]
    if _OTHER_LIB.search(before):
        return True
    if _TORCH_NAMED.search(before) or begin < 2:
        return False
    prev = s[max(sentence_start(s, begin - 2), begin - 400):begin]
    return bool(_OTHER_LIB.search(prev)) and not _TORCH_NAMED.search(prev)


def _arch_floor(s: str) -> Optional[Fact]:
    """``arch-floor-said`` (``X.Y | line``): see the module's docstring."""
    for m in _ARCH_FLOOR.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if _asserted(s, m.start(), m.end()) and not _HEDGED.search(part) and not _other_subject(s, m.start()):
            v = m.group("v")
            if not 2 <= int(v[:-1]) <= 15:  # no CUDA architecture ("sm_999", "sm_00"): no floor (attack42)
                continue
            return Fact("seen:arch-floor-said", f"{v[:-1]}.{v[-1]} | {s}", s)
    return None


def _driver_need(s: str) -> Optional[Fact]:
    """``driver-need-said`` (``version | line``): see the module's docstring."""
    for m in _DRIVER_NEED.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if _asserted(s, m.start(), m.end()) and _DRIVER_NAMED.search(part) and not _HEDGED.search(part):
            got = m.group('v') or m.group('u') or m.group('w') or m.group('x') or m.group('y')
            return Fact("seen:driver-need-said", f"{got} | {s}", s)
    return None


def _driver_advised(s: str) -> Optional[Fact]:
    """``driver-update-advised`` (``target | line``, target ``driver 580`` / ``CUDA 13`` / ``low 572.83`` / ``none``):
    see ``_DRIVER_ADVISED``; stated (no question, condition or doubt), not the writer's own update."""
    for m in _DRIVER_ADVISED.finditer(s):
        part = _sentence(s, m.start(), m.end())
        if not _asserted(s, m.start(), m.end()) or _HEDGED.search(part) \
                or _OWN_UPDATE.search(s[sentence_start(s, m.start()):m.start()]):
            continue
        got = (f"driver {m.group('v') or m.group('w')}" if m.group("v") or m.group("w") else f"CUDA {m.group('c')}"
               if m.group("c") else f"low {m.group('h')}" if m.group("h") else "none")
        return Fact("seen:driver-update-advised", f"{got} | {s}", s)
    return None


def _python_said(s: str) -> Optional[Fact]:
    """``python-said-unsupported`` (``X.Y | line``): see the module's docstring."""
    for part in _SENTENCE.split(s):
        m = _PY_UNSUPPORTED.search(part)
        if m and not _PY_HEDGED.search(part):
            return Fact("seen:python-said-unsupported", f"{m.group('v') or m.group('w')} | {s}", s)
    return None


def _compiler_said(s: str) -> Optional[Fact]:
    """``compiler-said-unsupported`` (``compiler | cuda | line``): see the module's docstring."""
    for part in _SENTENCE.split(s):
        m = _CC_UNSUPPORTED.search(part)
        if m and not _PY_HEDGED.search(part):
            cc = f"{(m.group('cc') or m.group('cc2')).lower()} {m.group('ccv') or m.group('ccv2')}"
            return Fact("seen:compiler-said-unsupported", f"{cc} | {m.group('cuda') or m.group('cuda2')} | {s}", s)
    return None


def _toolkit_said(s: str) -> Optional[Fact]:
    """``toolkit-said-mismatch`` (``system | torch | line``): see the module's docstring."""
    for part in _SENTENCE.split(s):
        t, m = _TORCH_CUDA_SAID.search(part), _SYSTEM_CUDA_SAID.search(part)
        if t and m and not _PY_HEDGED.search(part):
            system = m.group("a") or m.group("b") or m.group("c")
            if system != t.group("v"):
                return Fact("seen:toolkit-said-mismatch", f"{system} | {t.group('v')} | {s}", s)
    return None


#: a torch build's CUDA said in a sentence: "a torch with Cuda version 10.2", "pytorch built with CUDA 10.2", "torch
#: compiled for cuda 11.3"
_TORCH_CUDA = re.compile(r"(?i)(?<![\w-])(?:py)?torch\s{1,2}(?:(?:build|wheel|binary|package)\s{1,2})?"
                         r"(?:(?:built|compiled|made)\s{1,2})?(?:with|for)\s{1,2}(?:the\s{1,2})?cuda\s{0,2}"
                         r"(?:version\s{0,2})?v?(?P<v>\d{1,2}\.\d)(?!\d|\.\d)")
#: a negation the shared ``_UNSAID_BEFORE`` does not hold ("cannot use PyTorch with CUDA 10.2", "unable to")
_CANNOT = re.compile(r"(?i)\bcan(?:not|'t)\b|\bunable\b")


def _torch_cuda(s: str) -> Optional[Fact]:
    """``torch-cuda-said`` (``cuda | line``): see the module's docstring."""
    for m in _TORCH_CUDA.finditer(s):
        if _asserted(s, m.start(), m.end(), build=True) and not _HEDGED.search(_sentence(s, m.start(), m.end())) \
                and not _CANNOT.search(s[sentence_start(s, m.start()):m.start()]) \
                and not _ELSEWHERE.search(_sentence(s, m.start(), m.end())):
            return Fact("seen:torch-cuda-said", f"{m.group('v')} | {s}", s)
    return None


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    if len(s) > 400 or not any(h in low for h in _HINTS):
        return []
    out: List[Fact] = []
    if "+cpu" in low:
        got = _cpu_label(s)
        if got:
            out.append(got)
    elif "_cpu_" in low:
        conda = _CONDA_CPU.search(s)
        if conda:
            out.append(Fact("seen:torch-cpu-label", f"{conda.group('v')} | {s}", s))
    said = _cpu_said(s, low)
    if said:
        out.append(said)
    if "fp16" in low and _WHISPER_CPU.search(s):
        out.append(Fact("seen:cpu-run", s, s))
    if ("driver" in low or "驱动" in s or "nvidia version" in low) and _stated(_DRIVER_OLD, s):
        out.append(Fact("seen:driver-said-old", s, s))
        if _OLD_SHOWN.search(s):
            out.append(Fact("seen:driver-old-shown", s, s))
    floor = _arch_floor(s) if "sm" in low else None
    if floor:
        out.append(floor)
    need = _driver_need(s) if ("driver" in low or "驱动" in s or " it " in low or " them " in low) else None
    advised = _driver_advised(s) if ("driver" in low or "驱动" in s) else None
    if advised:
        out.append(advised)
    if need:
        out.append(need)
    if "cu" in low:
        out += _cuda_facts(s, low)
    if ("gpu" in low or "nvidia" in low or "/cu" in low or "显卡" in s or "cudatoolkit" in low) and _gpu_wanted(s) \
            and not _TEMPLATE_FIELD.search(s):
        out.append(Fact("seen:gpu-wanted", s, s))
    if any(h in low for h in ("compatib", "support", "work", "run", "require", "need")):
        out += _arch_facts(s)
    if ("cuda" in low or "\\" in s) and _LIB_DIR.search(s) and not _HEDGED.search(s) and _CONFLICT.search(s):
        out.append(Fact("seen:lib-path-conflict", s, s))
    out += _builds_and_copies(s, low)
    if _OTHER_VENDOR.search(s) and not _SOURCE_LISTING.match(s):
        out.append(Fact("seen:other-vendor", s, s))
    if "python" in low:
        py = _python_said(s)
        if py:
            out.append(py)
    return out + _build_said(s, low)


def _builds_and_copies(s: str, low: str) -> List[Fact]:
    """``fw-cpu-said``, ``gpu-package``, ``both-builds-said``, ``lib-copy-shadowed``, ``python-only-wheel`` (inst32)."""
    got: List[Optional[Fact]] = []
    if "cpu" in low or "non-gpu" in low:
        got.append(_fw_cpu_said(s))
    if ("-gpu" in low or "_gpu" in low or "jax[" in low) and _GPU_PACKAGE.search(s) \
            and not any(q in s for q in ("?", "？")) and not _ASKED.search(s):
        got.append(Fact("seen:gpu-package", s, s))
    if "both" in low or "版本" in s:
        got.append(_both_said(s))
    if ("cudnn" in low or "libcu" in low or "librar" in low) and ("instead" in low or "ahead" in low or "rather" in low):
        got.append(_lib_shadowed(s))
    if "only" in low or "只" in s or ("whl" in low or "wheel" in low) and "python" in low:
        got.append(_python_only(s))
    return [f for f in got if f is not None]


def _cuda_facts(s: str, low: str) -> List[Fact]:
    """What a line naming CUDA says of it (``driver-cuda-said``, a version pair, ``torch-cuda-said``)."""
    out: List[Fact] = []
    dm = next((m for m in _DRIVER_CUDA.finditer(s) if _asserted(s, m.start(), m.end())), None) \
        if "cuda" in low else None
    if dm:
        out.append(Fact("seen:driver-cuda-said", f"{dm.group('v') or dm.group('w')} | {s}", s))
    pair = _pair(s)
    if pair:
        out.append(pair)
    said_cuda = _torch_cuda(s) if "torch" in low and "cuda" in low else None
    if said_cuda:
        out.append(said_cuda)
    return out


def _build_said(s: str, low: str) -> List[Fact]:
    """What a sentence says of an extension build's tools: ``toolkit-said-mismatch``, ``compiler-said-unsupported``."""
    if "cuda" not in low:
        return []
    got = [_toolkit_said(s) if "torch" in low else None,
           _compiler_said(s) if any(w in low for w in ("gcc", "g++", "clang", "msvc")) else None]
    return [f for f in got if f is not None]
