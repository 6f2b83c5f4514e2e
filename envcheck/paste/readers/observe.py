"""Facts a text shows outside any report, read from every line a reader starts at or leaves alone (not the
lines inside a report's block):

* the Python of an install path (``.../lib/python3.9/site-packages/torch/...``, ``...\\Python39\\lib\\site-packages``, a
  Windows Python's own library, ``...\\Python310\\lib\\runpy.py``), and
  native Windows from a drive-letter path to a Python's site-packages or python.exe (fact ``platform_path``: the
  platform only where a report read names none);
* a ``pip install paddlepaddle-gpu==2.4.2.post112`` command (fact ``pip_install``: which wheel label a
  report's bare ``Paddle version: 2.4.2`` is, where the versions agree);
* the program asking for the GPU (``device='cuda:0'``, ``.cuda()``, ``torch.device("cuda")``,
  ``list_physical_devices('GPU')``, ``torch.cuda.is_available()``, a command run with ``CUDA_VISIBLE_DEVICES=0``,
  a Chinese report's "GPU版本", the device index of Ultralytics / YOLOv5-style scripts (``device=0``, ``--device 0``,
  ``--device cuda:0``: ``select_device`` reads a bare index as a CUDA device), the ``tensorflow-gpu`` package named
  (asked for, installed, or not found: TensorFlow's GPU package name), PyTorch Lightning refusing the GPU it was asked
  for (``CUDAAccelerator can not run on your system since the accelerator is not available``, accelerator_connector.py;
  1.x's ``You requested GPUs: [0]``) - the GPU build wanted; not a program's
  own "CUDA not available", which a healthy CPU machine prints too, nor TensorFlow's deprecation advice "Use
  `tf.config.list_physical_devices('GPU')` instead."):
  evidence ``gpu-intent``;
* a Python import of a framework (``import torch``, ``>>> import jax.numpy as jnp``, ``python -c "import jax; ..."``,
  ``from tensorflow import keras``): evidence ``import-torch`` / ``import-tensorflow`` / ``import-jax`` (two frameworks
  imported in one program load their CUDA libraries into one process: the first cuDNN loaded is the one both use);
* a CUDA extension compiled from source (``python setup.py install``, ``pip install -e .``, ``FORCE_CUDA=1``,
  ``TORCH_CUDA_ARCH_LIST=``, cpp_extension's "building 'x' extension", nvcc failing, "building ... from source"):
  evidence ``ext-build``;
* pip pointed at a find-links page (``-f .../torch_stable.html``, "Looking in links:"): evidence ``find-links``;
* how torch was installed (pypi29): a ``pip install`` command naming torch (``pip3 install torch``, ``pip install
  torch==2.5.1 torchvision``), or the old PyTorch issue template's ``How you installed PyTorch (`conda`, `pip`,
  source): pip`` with pip as its value: evidence ``torch-pip``; the pip line's own index options (``--index-url``,
  ``--extra-index-url``, ``-i``), or pip's "Looking in indexes:" naming an index that is neither PyPI's nor a PyPI
  mirror's, give evidence ``torch-index`` (another index than PyPI's may serve another build); a ``conda install`` of pytorch, or that template field saying conda (or source): evidence ``torch-conda``
  (a conda build carries no label either, and is not PyPI's);
* an Apple silicon Mac named in a sentence (``on an M1 Macbook Pro``, ``Support M1 Macs``, ``under Rosetta on M1
  macOS``, ``my Mac M1 chip``, ``Apple Silicon``): fact ``apple_prose`` (used only with the Python's architecture the
  text prints: an x86_64 Python there runs under Rosetta 2, :mod:`envcheck.paste.report_vendors`);
* ONNX Runtime's available providers printed with no GPU provider in them (``get_available_providers()`` ->
  ``['AzureExecutionProvider', 'CPUExecutionProvider']``, "does not contain a subset of available providers
  ['CPUExecutionProvider']"; pyarch39: a bare printed list of the Azure and CPU providers, "  • ['AzureExecutionProvider',
  'CPUExecutionProvider']", no list a program assigns): evidence ``ort-cpu-providers`` (the files ``import onnxruntime`` loads are a build
  without CUDA: onnxruntime-gpu lists CUDAExecutionProvider there even where its libraries do not load); and a line
  naming the GPU package or its CUDA provider (``onnxruntime-gpu``, ``CUDAExecutionProvider``): evidence
  ``ort-gpu-wanted``;
* a tool's command line (``$ nvidia-smi``, ``nvcc -V``, ``python -m torch.utils.collect_env``, a label such as
  ``nvidia-smi output:``): fact ``ran`` (the report says so when its output is not in the text);

and, over the whole text (:func:`docker`), a ``docker run`` without a GPU option and a line from inside that
container showing no GPU (after it; or before it where a container's own shell prompt, ``root@00921839c781:``,
shows the line comes from inside one: a report often shows the output first, the steps after); with no ``docker run``
line, a GPU image named by its tag (or a container's prompt) and nvidia-smi missing there, which the NVIDIA Container
Toolkit mounts into every container it gives GPUs; or else the ``docker run`` line that gives the container its GPUs."""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from envcheck.paste.readers import (cublas_mem, cuda_unreached, cuda_used, gpu_unused, jetson_image, jetson_mem,
                                    jetson_mounts, jetson_prose, linux_kernel, prose_cause,
                                    prose_cudnn, prose_facts, prose_join, prose_lib, prose_pins, prose_vendor, py_bits,
                                    resolution, tf_gpu)
from envcheck.paste.readers.base import MAXLINE, Fact, Partial, partial
from envcheck.paste.readers.log_facts import LineReader, no_gpu_line

__all__ = ["NAME", "line_facts", "prose_facts_of", "docker"]

NAME = "observed"
_PY_PATH = re.compile(r"(?i)(?:[/\\]lib[/\\]python(3)\.(\d{1,2})[/\\](?:site|dist)-packages|[/\\]python(?=3\d)(3)(\d{1,2})"
                      r"[/\\]lib[/\\](?:site-packages|\w{1,40}\.py\b))")  # Windows' "Python310\lib\runpy.py": its own library
#: a native Windows Python's own path: a drive letter, then its site-packages or its python.exe (``C:\\Users\\me\\
#: AppData\\...\\site-packages\\torch\\...``, ``D:\\ComfyUI_windows_portable\\python_embeded\\python.exe``); WSL's
#: ``/mnt/c/...`` and MSYS's ``/c/...`` are not it
_WIN_PY_PATH = re.compile(r"(?i)(?<![\w/])[a-z]:\\(?:[^\\\s\"']{1,80}\\){0,12}?(?:site-packages\\|python(?:w|3)?\.exe\b)")
#: a Linux Python's own path: its packages under a home folder (``/home/NAME/...``, ``/root/...``: a Mac's homes are
#: ``/Users/NAME``) or Debian's ``dist-packages``; a Python running in Linux (WSL, a container on a Mac too), not on macOS
_LINUX_PY_PATH = re.compile(r"(?<![\w.~-])/(?:home/[\w.-]{1,64}|root)/[^\s\"':]{0,200}?/(?:site|dist)-packages/"
                            r"|(?<![\w.~-])/usr/(?:local/)?lib/python3(?:\.\d{1,2})?/dist-packages/")
_PIP_INSTALL = re.compile(r"\bpip3?\s{1,3}install\s.{0,80}?\b(paddlepaddle-gpu)==(\d+\.\d+\.\d+\.post\d{2,3})\b")
_GPU_INTENT = re.compile(r"""(?i)device\s*=\s*['"]cuda|\.cuda\(\)|\.to\(\s*['"]cuda|list_physical_devices\(\s*['"]GPU"""
                         r"""|(?<![\w.])(?:torch\.)?cuda\.is_available\(\)|deserialize object on a CUDA device|['"]cuda:\d"""
                         r"""|torch\.device\(\s*['"]cuda|CUDA_VISIBLE_DEVICES=\d|(?<![\w-])tensorflow[-_]gpu(?![\w-])"""
                         r"""|(?:CUDA|GPU)Accelerator`?\s{0,2}can not run on your system|You requested GPUs:"""
                         r"""|(?<![a-z])gpu\s{0,2}版|providers\s{0,2}=\s{0,2}\[\s{0,2}\(?\s{0,2}['"]CUDAExecutionProvider""")
#: TensorFlow's own deprecation advice under "Instructions for updating:" ("Use `tf.config.list_physical_devices('GPU')`
#: instead.", printed where a tool calls ``tf.test.is_gpu_available``: transformers-cli env on a CPU machine,
#: huggingface/transformers#13270): the framework's text, not the program asking for the GPU (quiet38)
_DEPRECATION_ADVICE = re.compile(r"^\s{0,8}Use\s{1,3}`[^`\n]{1,120}`\s{1,3}instead\.?\s{0,8}$")
#: Ultralytics' ``select_device`` (ultralytics/utils/torch_utils.py) and YOLOv5's take a bare index (``device=0``,
#: ``device=0,1``, ``--device 0``) as CUDA device(s); ``--device cuda:0`` (mmdetection's demos, ...) names CUDA itself
_DEVICE_INDEX = re.compile(r"""(?<![\w-])(?:--device(?:=|\s{1,3})|device\s{0,2}=\s{0,2})['"]?(?:cuda:?)?\d{1,2}"""
                           r"""(?:\s{0,2},\s{0,2}\d{1,2}){0,7}['"]?(?![\w.])""", re.I)
#: a Python statement importing a framework, at the start of a line (after a REPL prompt) or after ``;`` / a quote
_FW_IMPORT = re.compile(r"""(?:^\s{0,40}(?:>>>|\.\.\.|In \[\d{1,4}\]:)?|[;"'])\s{0,3}(?:import|from)\s{1,3}(torch|tensorflow|jax|jaxlib)"""
                        r"""(?=[\s.;,"']|$)""")
#: a CUDA extension being compiled from source: setup.py / an editable pip install, the build switches of
#: MMCV / detectron2 / apex style setups, torch's cpp_extension output, nvcc failing, the reporter's "build ... from source"
_EXT_BUILD = re.compile(r"(?i)\bsetup\.py\s{1,3}(?:install|develop|build_ext|bdist_wheel)\b|\bpip3?\s{1,3}install\s{1,3}"
                        r"(?:-v\s{1,3})?(?:-e|--editable)\s{1,3}\.|\b(?:MMCV_WITH_OPS|FORCE_CUDA)=1|TORCH_CUDA_ARCH_LIST="
                        r"|\bbuilding '[\w.]{1,80}' extension|torch\.utils\.cpp_extension|\bnvcc fatal\b"
                        r"|error: command '[^'\n]{0,120}nvcc(?:\.exe)?' failed|\bbuild(?:ing)?\b[^\n]{0,40}\bfrom source\b")
#: ``docker run`` (not ``nvidia-docker run``, which adds the GPUs itself) and the options that give a container GPUs
_DOCKER_RUN = re.compile(r"(?<![\w-])docker\s{1,4}(?:container\s{1,4})?run\s")
_NVIDIA_DOCKER_RUN = re.compile(r"\bnvidia-docker\s{1,4}run\b")
_DOCKER_GPU_OPT = re.compile(r"--gpus\b|--runtime[= ]{1,3}nvidia|NVIDIA_VISIBLE_DEVICES|nvidia\.com/gpu|--device[= ]{1,3}/dev/nvidia")
#: inside that container: no GPU, no driver, no nvidia-smi (the toolkit mounts it only into GPU containers). The
#: framework's own failure lines ("no CUDA-capable device is detected", "Found no NVIDIA driver on your system", "No
#: CUDA GPUs are available") are the knowledge base's (errors.toml signatures, :data:`log_facts.NO_GPU_RULES`, read
#: through explain's line reader); here only what no signature reads: nvidia-smi missing (a shell's message, no
#: cause by itself) and a state line ("CUDA available: False", ``torch.cuda.is_available() -> False``)
_NO_GPU_STATE = re.compile(
    r"(?i)nvidia-smi\b.{0,40}?\bnot found|nvidia-smi.{0,20}?command not found|executable file not found.{0,40}?nvidia-smi"
    r"|CUDA available\s{0,3}[:=]?\s{0,3}False\b|cuda\.is_available\(\)\s{0,3}(?:->|=|:|returns?)?\s{0,3}False\b")
#: a shell prompt or a label before a tool's command: ``$ ``, ``# ``, ``(venv) user@host:~$ ``, ``PS C:\\> ``, ``C:\\x> ``
_PROMPT = r"(?:(?:\([\w.-]{1,40}\)\s{0,2})?(?:[\w.@:~/\\-]{0,80}\s{0,2})?[$#>%]\s{0,3}|PS\s[^>]{1,80}>\s{0,3})?"
_RAN = re.compile(r"^" + _PROMPT + r"(?:(?P<smi>nvidia-smi)(?:\.exe)?|(?P<nvcc>nvcc)\s{1,3}(?:-V|--version)"
                  r"|(?P<ce>python3?(?:\.\d{1,2})?\s{1,3}(?:-m\s{1,3}torch\.utils\.collect_env|[\w./\\-]{0,80}collect_env\.py)))"
                  r"\s{0,3}(?:output\s{0,3})?[:：]?\s{0,3}$", re.I)
_RAN_LABEL = re.compile(r"^(?:#{1,6}\s{0,3})?(?:\*\*)?\s{0,2}(?:(?:the\s{1,3})?output\s{1,3}of\s{1,3})?`?(?P<smi>nvidia-smi)"
                        r"`?\s{0,3}(?:output|result)?\s{0,3}(?:\*\*)?\s{0,3}[:：]\s{0,3}(?:\*\*)?\s{0,3}$", re.I)
#: the reporter saying their machine has no (NVIDIA) GPU: "I don't have gpu", "I do not have an NVIDIA GPU", "I have
#: no GPU", "my system is not gpu enabled" (tensorflow#43361); not one too small ("I don't have a GPU with 24 GB"),
#: not a build ("Pytorch with cpuonly (which is not GPU enabled)"), not the loader's own "if you do not have a GPU"
_NO_GPU_SAID = re.compile(
    r"(?i)(?<![\w'’])i\s{1,3}(?:(?:do\s{1,3}not|don['’]?t|dont)\s{1,3}have\s{1,3}(?:a\s{1,3}|an\s{1,3}|any\s{1,3})?"
    r"|have\s{1,3}no\s{1,3})(?:(?:nvidia|dedicated|discrete|cuda(?:[- ]capable)?)\s{1,3}){0,2}(?:gpus?|graphics\s{1,3}cards?)"
    r"(?!\s{0,3}(?:with|that|which|big|large|powerful|strong|fast|good|enough|of|capable|than)\b)"
    r"|\b(?:my|the|this)\s{1,3}(?:system|machine|computer|laptop|pc)\s{1,3}is\s{1,3}not\s{1,3}gpu[- ]enabled\b")
#: pip pointed at a find-links page (``-f https://download.pytorch.org/whl/torch_stable.html``, pip's "Looking in links:"):
#: a wheel pip then names without its URL may come from that page, whose old CUDA wheels carried no label
_FIND_LINKS = re.compile(r"(?i)^Looking in links:|(?:^|\s)(?:-f|--find-links)(?:=|\s{1,3})\S|torch_stable\.html")
#: ONNX Runtime's available providers (``get_available_providers()``, the "available providers" of its ValueError)
#: holding only the CPU and Azure providers: the CPU build's list (microsoft/onnxruntime#3326, #4809)
_ORT_CPU_PROVIDERS = re.compile(r"(?i)available[\s_]providers?\W{0,6}[^\[\n]{0,40}\[\s{0,2}(?P<q>['\"])(?:CPU|Azure)"
                                r"ExecutionProvider(?P=q)(?:\s{0,2},\s{0,2}(?P=q)(?:CPU|Azure)ExecutionProvider(?P=q)){0,2}\s{0,2}\]")
#: (pyarch39) a printed list of exactly ONNX Runtime's CPU and Azure providers, both of them, with no label before it on
#: its line ("  • ['AzureExecutionProvider', 'CPUExecutionProvider']" under "ONNX Runtime Providers:",
#: TaterTotterson/microWakeWord-Trainer-Nvidia-Docker#1): only ``get_available_providers()`` of the CPU package lists the
#: Azure provider (1.16+; the GPU package lists CUDA / TensorRT before it, a session's own providers hold no Azure one).
#: Not a list assigned or passed (``providers=[...]``, ``f(..., [...])``: what a program asks for, not what the build has)
_ORT_AZURE_CPU = re.compile(r"(?i)\[\s{0,2}(?P<q>['\"])(?:Azure(?P<a>)|CPU(?P<c>))ExecutionProvider(?P=q)"
                            r"\s{0,2},\s{0,2}(?P=q)(?:Azure(?P<a2>)|CPU(?P<c2>))ExecutionProvider(?P=q)\s{0,2}\]")
#: the same line asking for the CUDA provider: optimum's "Asked to use CUDAExecutionProvider as an ONNX Runtime execution
#: provider, but the available execution providers are [...]" (optimum/onnxruntime/utils.py validate_provider_availability)
_ORT_ASKED = re.compile(r"(?i)asked\s{1,2}to\s{1,2}use\s{1,2}(?:CUDA|Tensorrt)ExecutionProvider")
#: a pip command installing torch (pypi29): ``pip install torch``, ``pip3 install -U torch==1.3.0 torchvision``; not
#: ``torchvision`` / ``torch-scatter`` alone (a word boundary that is no ``-`` or ``_``)
_TORCH_PIP = re.compile(r"(?i)\bpip3?(?:\.exe)?\s{1,3}install\s(?:[^|;&#]{0,200}?\s)?[\"']?torch(?![\w-])(?:\s{0,2}[=<>~!]=?=?\s{0,2}"
                        r"[\w.+]{1,30})?[\"']?(?:\s|$)")
#: words before a pip command that make it advice, not what was done ("try", "you can", "please", "should", "instead")
_PIP_ADVICE = re.compile(r"(?i)\b(?:try|trying|you\s{1,2}(?:can|could|should|need|may)|please|should|recommend\w*|"
                         r"suggest\w*|instead|maybe|if\s{1,2}you)\b")
#: the pip line's own index options: another index than PyPI's
_PIP_INDEX = re.compile(r"(?:^|\s)(?:--(?:extra-)?index-url|-i)(?:=|\s{1,3})\S")
#: PyPI's own index or a PyPI mirror's in pip's "Looking in indexes:" line (pypi.org/simple, pypi.tuna.tsinghua.edu.cn/simple,
#: mirrors.aliyun.com/pypi/simple/): any other index there (download.pytorch.org/whl/cu118, a company's index) may
#: serve another build of torch (pytorch#43493: a second index beside PyPI's, and a torch that would not reach the GPU)
_PYPI_INDEX = re.compile(r"(?i)^https?://(?:[^/\s@]{1,80}@)?(?:pypi\.org/simple|pypi\.[\w.-]{1,60}(?::\d{1,5})?/"
                         r"|[\w.-]{1,60}(?::\d{1,5})?/(?:[\w.-]{1,40}/){0,3}pypi/)")
#: a conda install of pytorch (``conda install pytorch torchvision cudatoolkit=10.1 -c pytorch``)
_TORCH_CONDA = re.compile(r"(?i)\b(?:conda|mamba|micromamba)\s{1,3}install\s[^|;&#]{0,200}?\bpytorch(?![\w-])")
#: the old PyTorch issue template's install field, its value after the colon: ``How you installed PyTorch (`conda`,
#: `pip`, source): pip install``
_HOW_INSTALLED = re.compile(r"(?i)how\s{1,2}you\s{1,2}installed\s{1,2}pytorch[^:：]{0,60}[:：]\s{0,3}(?P<v>.{1,80})$")
_ORT_GPU = re.compile(r"(?i)(?<![\w-])onnxruntime-gpu(?![\w-])|CUDAExecutionProvider")
#: an Apple silicon Mac or chip named in prose: "M1 Mac(s)", "M2 Pro MacBook Air", "M1 macOS", "M1 chip", "Mac M1",
#: "MacBook Pro M3 Max", "Apple Silicon", "for M1" before a Mac word or at a line's end (not a bare "M1": a product code
#: elsewhere)
_APPLE_SILICON = re.compile(
    # (cpu41) the bounds are ASCII ones: a Chinese character next to the chip is no word of it ("用mac M2报错", zai-org/
    # CodeGeeX2#183; in Python's re a CJK character is \w, which kept "mac M2报错" and "苹果M1芯片" unread)
    r"(?i)(?<![a-z0-9_-])(?:(?:apple\s{1,2})?m[1-5](?:\s{1,2}(?:pro|max|ultra))?\s{1,2}(?:mac(?:book|os|s|\s{1,2}mini)?|imac"
    r"|chip)|mac(?:book(?:\s{1,2}(?:pro|air))?)?\s{1,2}(?:with\s{1,2}(?:an?\s{1,2})?)?(?:apple\s{1,2})?m[1-5](?:\s{1,2}"
    r"(?:pro|max|ultra))?|apple\s{1,2}silicon"
    # macarch40: "Apple M3 Max" (jax-ml/jax#26207's "Mac Chip: Apple M3 Max"), a Mac's model word before the chip ("Mac
    # Mini M4", oobabooga/textgen#6527; "my new mac machine M5 pro", vllm-project/vllm-metal#379) and the Chinese "M3 的
    # Mac" (jev-chat/jev-chat-jarvis-mac#19)
    r"|apple\s{1,2}m[1-5](?:\s{1,2}(?:pro|max|ultra))?"
    r"|mac(?:book)?\s{1,2}(?:pro|air|mini|studio|machine|laptop)\s{1,2}(?:with\s{1,2}(?:an?\s{1,2})?)?m[1-5](?:\s{1,2}(?:pro|max|ultra))?"
    r"|m[1-5](?:\s{0,2}(?:pro|max|ultra))?\s{0,2}的\s{0,2}mac"
    # "the TF for M1 tarball", "Installing TensorFlow for M1" (a title's end)
    r"|for\s{1,2}(?:the\s{1,2})?m[1-5](?=\s{1,2}(?:tarballs?|macs?|chips?|macbooks?)\b|\s{0,2}$)"
    # (cpu41) the chip named in Chinese: Apple's ("苹果M1芯片", "苹果的M2", zai-org/GLM-TTS#31; "蘋果M1"), Apple's chip
    # ("苹果芯片", "苹果 silicon"), the M chip as a chip ("M1芯片", "M2 Pro晶片", "M1チップ") or as the machine something
    # runs on ("M1上无法运行", zai-org/ChatGLM-6B#549: "on M1"; "M2电脑", "M3笔记本"); not "苹果电脑" alone (an Intel Mac
    # is one too: no chip is named)
    r"|(?:苹果|蘋果)\s{0,2}(?:的\s{0,2})?(?:(?:电脑|電腦|笔记本|筆記本|芯片|晶片)\s{0,2})?m[1-5](?:\s{0,2}(?:pro|max|ultra))?"
    r"|(?:苹果|蘋果)\s{0,2}(?:的\s{0,2})?(?:芯片|晶片|silicon|m\s{0,2}系列)"
    r"|m[1-5](?:\s{0,2}(?:pro|max|ultra))?\s{0,2}(?:芯片|晶片|チップ|上|电脑|電腦|笔记本|筆記本))(?![a-z0-9_-])")
#: (attack52) an Intel Mac named: "an Intel Mac", "Intel-based MacBook", "the Intel iMac", "Macs with Intel chips", "a
#: 2019 MacBook Pro with an Intel i7", "an old Mac (Intel)", "MacBook Pro 2019 (Intel Core i9)"
_INTEL_MAC = re.compile(
    r"(?i)(?<![\w-])intel(?:[\s-]{1,2}based)?\s{1,2}(?:i[3579]\s{1,2})?(?:i?mac(?:book(?:\s{1,2}(?:pro|air))?|s|\s{1,2}mini"
    r"|\s{1,2}pro)?)(?![\w-])"
    r"|(?<![\w-])i?mac(?:book(?:\s{1,2}(?:pro|air))?|s|\s{1,2}mini|\s{1,2}pro)?(?:\s{1,2}(?:19|20)\d\d)?"
    r"(?:\s{1,2}(?:with|on)\s{1,2}(?:an?\s{1,2})?|\s{0,2}\((?:(?:19|20)\d\d,?\s{0,2})?)intel(?![\w-])")
#: a negation or a Rosetta / Intel-mode word: the Intel Mac is said not to be the machine, or is the Python's emulation
_INTEL_MAC_NOT = re.compile(r"(?i)(?<![\w'])(?:not|no|isn't|never)\s{1,2}(?:an?\s{1,2}|the\s{1,2})?$")
_ROSETTA = re.compile(r"(?i)rosetta|intel\s{1,2}mode")
#: (edge33) an Apple-silicon macOS wheel named ("tensorflow_macos-0.1a0-cp38-cp38-macosx_11_0_arm64.whl is not a supported
#: wheel on this platform", mwidjaja1/DSOnMacARM#3): arm64 macOS runs only on Apple silicon, so the Mac it was fetched for
#: is one (evidence only; no chip is named)
_ARM64_MAC_WHEEL = re.compile(r"(?i)[\w.-]macosx_\d{1,2}_\d{1,2}_arm64\.whl(?![\w-])")
#: (macarch40) a Mac said to be an ARM one ("on an ARM-based mac", sensein/b2aiprep#127; "have a MacOS ARM",
#: jax-ml/jax#13886; "arm64 Macbook Pros", ContinuumIO/anaconda-issues#13174): macOS on ARM runs only on Apple silicon
#: (evidence only; no chip is named)
_ARM_MAC = re.compile(r"(?i)(?<![\w-])(?:arm(?:64)?(?:[\s-]{1,2}based)?\s{1,2}mac(?:book(?:\s{1,2}(?:pro|air)s?)?|s)?"
                      r"|mac\s{0,2}os\s{1,2}arm(?:64)?)(?![\w-])")
_GPU_REACHED = re.compile(r"(?i)CUDA available\s{0,3}[:=]?\s{0,3}True\b|cuda\.is_available\(\)\s{0,3}(?:->|=|:|returns?)?\s{0,3}True\b")


#: a Python's full version said in a sentence ("Using python 3.12.1 on Windows 11", "I have Python 3.10.6 installed",
#: "python version: 3.11.4"): three parts, after the word; not a requirement or an advice ("requires Python 3.8.1",
#: "install python 3.10.6", "python >= 3.9.0": the words before it on the line say so), not one used before ("Before
#: that i used ... python 3.12.2, 3.8"), not one of a list
_PY_PROSE = re.compile(r"(?i)(?<![\w./-])python(?:\s{1,2}version)?\s{0,2}[:=-]?\s{0,2}v?(3\.\d{1,2}\.\d{1,3})(?![\w.+])")
_PY_NOT_MINE = re.compile(r"(?i)requir|\bneed|support|\binstall(?!ed)|upgrad|downgrad|\bswitch|\btry|\buse (?:a |an )?"
                          r"|recommend|[<>]=?|\bthan\b|\bor (?:later|newer|higher|above)|\bmin(?:imum)?\b|\bmax"
                          r"|\bbefore\b|\bused\b|previous|earlier|\btried\b|\bhad\b|\bwas\b|\bformer|\bold\b"
                          r"|^\s{0,2}(?:,|/|and|or)\s{0,2}v?\d")  # the past, or a list of Pythons ("3.12.2, 3.8")


def _python_prose(s: str) -> List[Fact]:
    m = _PY_PROSE.search(s)
    if m is None or _PY_NOT_MINE.search(s[:m.start()]) or _PY_NOT_MINE.search(s[m.end():m.end() + 24]):
        return []
    return [Fact("python_prose", m.group(1), s)]


def prose_facts_of(s: str, reader: Optional[LineReader] = None) -> List[Fact]:
    """What the sentences of ``s`` (one line, or a sentence joined from several: :mod:`prose_join`) state; a text
    longer than :data:`prose_join.LIMIT` is read in pieces of whole sentences (:func:`prose_join.pieces`)."""
    out: List[Fact] = []
    for p in prose_join.pieces(s) if len(s) > prose_join.LIMIT else [s]:
        low = p.lower()
        out += _python_prose(p) if "python" in low and len(p) <= 300 else []
        out += prose_facts.line_facts(p, low, reader)
        out += prose_cause.line_facts(p, low)
        out += prose_vendor.line_facts(p, low)
        out += prose_lib.line_facts(p, low)
        out += prose_lib.present_facts(p, low)  # (attack52) a library said loaded or there
        out += prose_cudnn.line_facts(p, low)
        out += prose_pins.line_facts(p, low)
        out += resolution.line_facts(p, low)
        out += py_bits.line_facts(p, low)
        out += tf_gpu.line_facts(p, low)
        out += cublas_mem.line_facts(p, low)
        out += gpu_unused.line_facts(p, low)
    return out


def _azure_cpu_list(s: str) -> bool:
    """A list of the CPU and the Azure providers, one each (:data:`_ORT_AZURE_CPU`)."""
    m = _ORT_AZURE_CPU.search(s)
    if m is None or s[:m.start()].rstrip().endswith(("=", "(", ",")):
        return False
    return (m.group("a") is not None) != (m.group("a2") is not None) \
        and (m.group("c") is not None) != (m.group("c2") is not None)


def line_facts(s: str, low: str, reader: Optional[LineReader] = None) -> List[Fact]:
    """What one line (stripped, and lower-cased) shows outside a report."""
    out: List[Fact] = prose_facts_of(s, reader)
    if "-packages" in low or ".exe" in low or "\\lib\\" in low:
        pm = _PY_PATH.search(s)
        if pm:
            major, minor = [g for g in pm.groups() if g]
            out.append(Fact("python_path", f"{major}.{minor}", s))
        if ":\\" in s and _WIN_PY_PATH.search(s):
            out.append(Fact("platform_path", "win32", s))
        elif "/" in s and _LINUX_PY_PATH.search(s):  # evidence only (report.lines["python-platform"]), no python.json
            out.append(Fact("seen:linux-python-path", s, s))
    if "paddlepaddle-gpu==" in low:
        im = _PIP_INSTALL.search(s)
        if im:
            out.append(Fact("pip_install", (im.group(1), im.group(2)), s))
    if ("gpu" in low or "graphics" in low) and len(s) <= 600:
        if _NO_GPU_SAID.search(s):
            out.append(Fact("seen:no-gpu-said", s, s))
    if ("cuda" in low or "gpu" in low) and _GPU_INTENT.search(s) and not _DEPRECATION_ADVICE.match(s):
        out.append(Fact("seen:gpu-intent", s, s))
    elif "device" in low and _DEVICE_INDEX.search(s):
        out.append(Fact("seen:gpu-intent", s, s))
    if ("links" in low or "-f" in low or "torch_stable" in low) and _FIND_LINKS.search(s):
        out.append(Fact("seen:find-links", s, s))
    out += _torch_install(s, low)
    if "import" in low:
        for fm in _FW_IMPORT.finditer(s):
            fw = "jax" if fm.group(1) == "jaxlib" else fm.group(1)
            out.append(Fact("seen:import-" + fw, s, s))
    if ("setup" in low or "install" in low or "=1" in low or "arch_list" in low or "extension" in low or "nvcc" in low
            or "source" in low) and _EXT_BUILD.search(s):
        out.append(Fact("seen:ext-build", s, s))
    if "executionprovider" in low and (("available" in low and _ORT_CPU_PROVIDERS.search(s))
                                       or ("azureexecutionprovider" in low and _azure_cpu_list(s))):
        out.append(Fact("seen:ort-cpu-providers", s, s))
        if "azureexecutionprovider" in low and _ORT_ASKED.search(s):  # optimum's "Asked to use CUDAExecutionProvider ..."
            out.append(Fact("seen:ort-gpu-wanted", s, s))
    elif ("onnxruntime-gpu" in low or "cudaexecutionprovider" in low) and _ORT_GPU.search(s):
        out.append(Fact("seen:ort-gpu-wanted", s, s))
    out += _apple_silicon(s, low)
    out += _intel_mac(s, low)
    out += linux_kernel.line_facts(s, low)  # an Intel GPU on a kernel older than it (readers/linux_kernel.py)
    out += cuda_unreached.line_facts(s, low)  # the framework did not reach CUDA (readers/cuda_unreached.py, res34)
    out += cuda_used.line_facts(s, low)  # the CUDA a build / image is made with, a GPU said too new for it (newgpu39)
    out += jetson_prose.line_facts(s, low)  # a Jetson's release and the Pythons named (readers/jetson_prose.py, jetson35)
    out += jetson_image.line_facts(s, low)  # a Jetson image's L4T release and the host's (readers/jetson_image.py, jetson38)
    out += jetson_mem.line_facts(s, low)  # a Jetson's shared RAM running out (readers/jetson_mem.py, jetmem39)
    out += jetson_mounts.line_facts(s, low)  # CUDA-stack libraries empty or lacking in a container (jetctr41)
    if ("nvidia-smi" in low or "nvcc" in low or "collect_env" in low) and len(s) <= 200:
        rm = _RAN.match(s) or _RAN_LABEL.match(s)
        if rm:
            tool = "nvidia-smi" if rm.group("smi") else "nvcc" if rm.groupdict().get("nvcc") else "collect_env"
            out.append(Fact("ran", (tool, s), s))
    return out


def _apple_silicon(s: str, low: str) -> List[Fact]:
    """An Apple-silicon Mac or chip named in prose (``apple_prose`` and the evidence ``apple-silicon`` for the engine's
    prose rules, engine.vendors_prose), or an arm64 macOS wheel named (the evidence only: no chip is named)."""
    am = _APPLE_SILICON.search(s) if any(w in low for w in ("m1", "m2", "m3", "m4", "m5", "silicon", "苹果", "蘋果")) \
        else None
    if am:
        return [Fact("apple_prose", am.group(0), s), Fact("seen:apple-silicon", s, s)]
    if "arm64.whl" in low and _ARM64_MAC_WHEEL.search(s):
        return [Fact("seen:apple-silicon", s, s)]
    if "arm" in low and "mac" in low and _ARM_MAC.search(s):
        return [Fact("seen:apple-silicon", s, s)]
    return []


def _intel_mac(s: str, low: str) -> List[Fact]:
    """(attack52) An Intel Mac named (evidence ``intel-mac``: where it is named too, which Mac a text's pip list is of is
    not known), not where the line says it is not one or speaks of Rosetta 2's emulation ("Intel Mac / Rosetta")."""
    m = _INTEL_MAC.search(s) if "intel" in low and "mac" in low else None
    if m is None or _INTEL_MAC_NOT.search(s[max(0, m.start() - 16):m.start()]) or _ROSETTA.search(s):
        return []
    return [Fact("seen:intel-mac", s, s)]


def _torch_install(s: str, low: str) -> List[Fact]:
    """How torch was installed (pypi29): evidence ``torch-pip`` (and ``torch-index`` for the pip line's own index
    options) or ``torch-conda``."""
    if low.startswith("looking in indexes:"):
        other = [u for u in s.split(":", 1)[1].replace(",", " ").split() if not _PYPI_INDEX.match(u)]
        return [Fact("seen:torch-index", s, s)] if other else []
    if "torch" not in low or "install" not in low:
        return []
    hm = _HOW_INSTALLED.search(s)
    if hm:
        v = hm.group("v").lower()
        if "conda" in v or "source" in v:
            return [Fact("seen:torch-conda", s, s)]
        return [Fact("seen:torch-pip", s, s)] if re.search(r"\bpip3?\b", v) else []
    if "conda" in low and _TORCH_CONDA.search(s):
        return [Fact("seen:torch-conda", s, s)]
    pm = _TORCH_PIP.search(s) if "pip" in low else None
    if pm is None or _PIP_ADVICE.search(s[:pm.start()]):
        return []  # no pip install of torch, or one advised ("try `pip install torch==2.1.0`"), not the one done
    return [Fact("seen:torch-pip", s, s)] + ([Fact("seen:torch-index", s, s)] if _PIP_INDEX.search(s) else [])


def _docker_gpus(lines: Sequence[str]) -> Optional[str]:
    """The first ``docker run`` line of the text that gives the container GPUs (``--gpus``, the nvidia runtime, ...)."""
    for raw in lines[:20000]:
        s = raw[:MAXLINE].strip()
        if "run" in s and _DOCKER_RUN.search(s) and _DOCKER_GPU_OPT.search(s):
            return s
    return None


#: a shell prompt inside a container: Docker names the container's host after the first 12 hex digits of its id
#: (``root@00921839c781:/anomalib#``)
_CONTAINER_PROMPT = re.compile(r"^(?:\([\w.-]{1,40}\)\s{0,2})?[\w.-]{1,32}@[0-9a-f]{12}:")
#: a REPL's ``torch.cuda.is_available()`` alone on its line, its value printed on the next (``Out[2]: False``)
_ASKED = re.compile(r"(?:^|[>:\]]\s{0,3})torch\.cuda\.is_available\(\)\s*$")
_PRINTED = re.compile(r"^(?:Out\[\d{1,4}\]:\s{0,3}|>>>\s{0,3})?(True|False)\s*$")


#: a GPU image named by its tag (``nvidia/cuda:11.8.0-devel-ubuntu22.04``, ``nvcr.io/nvidia/pytorch:23.10-py3``,
#: ``pytorch/pytorch:1.13.1-cuda11.6-cudnn8-devel``, ``pytorch:1.13.1-py3.8.16-cuda11.7.1-devel-ubuntu20.04``): a tag
#: carrying a CUDA version with its dot, not a word such as ``device:cuda``
_GPU_IMAGE = re.compile(r"(?i)(?<![\w/.-])(?:nvidia/cuda:[\w.-]{1,80}|nvcr\.io/[\w./-]{1,120}:[\w.-]{1,80}"
                        r"|[\w.-]{1,60}(?:/[\w.-]{1,60}){0,2}:[\w.-]{0,60}?cuda\d{1,2}\.\d[\w.-]{0,60})")
#: nvidia-smi missing: in a container the NVIDIA Container Toolkit mounts it in only when the container is given GPUs
_SMI_MISSING = re.compile(r"(?i)nvidia-smi\b.{0,40}?\bnot found|executable file not found.{0,40}?nvidia-smi")


def _image_without_smi(lines: Sequence[str]) -> Optional[str]:
    """With no ``docker run`` line in the text: a GPU image named by its tag (or a container's own shell prompt) and
    nvidia-smi missing ("command not found"): the NVIDIA Container Toolkit puts nvidia-smi into every container it
    gives GPUs (also under a daemon whose default runtime is nvidia), so inside a GPU image its absence shows the
    container got none. "image | failure line", or None. A GPU that works anywhere in the text contradicts it."""
    where: Optional[str] = None
    fail: Optional[str] = None
    for raw in lines[:20000]:
        s = raw[:MAXLINE].strip()
        if _GPU_REACHED.search(s):
            return None
        if where is None:
            m = _GPU_IMAGE.search(s) if ":" in s else None
            if m or _CONTAINER_PROMPT.match(s):
                where = m.group(0) if m else s
        if fail is None and "nvidia-smi" in s.lower() and _SMI_MISSING.search(s):
            fail = s
    return f"{where[:200]} | {fail[:200]}" if where and fail else None


def _docker_line(lines: Sequence[str], reader: Optional[LineReader]) -> Optional[str]:
    run: Optional[str] = None
    fail: Optional[str] = None
    prev = ""
    inside = -10  # the last line a container's shell prompt was seen on
    for i, raw in enumerate(lines[:20000]):
        s = raw[:MAXLINE].strip()
        printed = _PRINTED.match(s) if _ASKED.search(prev) else None
        prev = s
        if _CONTAINER_PROMPT.match(s):
            inside = i
        if _DOCKER_RUN.search(s):
            if _DOCKER_GPU_OPT.search(s):
                return None
            run = run or s
        elif _GPU_REACHED.search(s) or (printed and printed.group(1) == "True"):
            return None  # a GPU reached after all (another try, another container): not this cause
        elif not fail and (run or i - inside <= 2) and (printed or _NO_GPU_STATE.search(s) or no_gpu_line(reader, s)):
            # after the run line; or before it (a report's output first, its "To reproduce: docker run ..." after)
            # where a container's own shell prompt shows the line comes from inside one, not from the host
            fail = s if not printed else f"torch.cuda.is_available() -> {printed.group(1)}"
    if run and fail:
        return f"{run[:200]} | {fail[:200]}"
    if any(_DOCKER_GPU_OPT.search(raw[:MAXLINE]) or _NVIDIA_DOCKER_RUN.search(raw[:MAXLINE]) for raw in lines[:20000]):
        return None  # some container was given GPUs: nvidia-smi missing is then the image's own (no driver tools in it)
    # with a run line the failure must be placed inside its container (above); without one, a GPU image and nvidia-smi
    # missing say it
    return _image_without_smi(lines) if run is None else None


def docker(lines: Sequence[str], reader: Optional[LineReader] = None) -> Partial:
    """A ``docker run`` line without a GPU option, then (from inside that container) a line showing no GPU there:
    fact ``docker`` = "docker run line | failure line"; nothing when the text shows any container started with GPUs
    (a daemon whose default runtime is nvidia gives GPUs without the option, so the failure must be shown, not
    assumed). Else fact ``docker_gpus`` = the first ``docker run`` line that does give the container GPUs: what
    the container was started with is then shown, not guessed. ``reader``: explain's line reader
    (:func:`envcheck.explain.logfacts.line_reader`), which reads the framework's no-GPU lines by the knowledge base's
    signatures; without it only nvidia-smi missing and a "CUDA available: False" line show the failure inside."""
    found = _docker_line(lines, reader)
    if found:
        return partial("docker", [Fact("docker", found, found)])
    with_gpus = _docker_gpus(lines)
    return partial("docker", [Fact("docker_gpus", with_gpus[:200], with_gpus)] if with_gpus else [])
