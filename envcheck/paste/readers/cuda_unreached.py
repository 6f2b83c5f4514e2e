"""The framework did not reach CUDA (issue 20, round res34): a line that says a program asked for CUDA and the framework
ran without it, evidence ``seen:cuda-unreached``.

The engine reads it beside a thread's resolution (:mod:`envcheck.engine.resolution`, a ``[[resolution]]`` row's
``when``): a fix that installs a CUDA build of the framework ("This worked: ``pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0
... pytorch-cuda=11.8``", model-angelo#78; "solution: ``pip install torch==2.0.1+cu118 ... --index-url
.../whl/cu118``", SEINE#9) names a CPU-only build only where the text shows CUDA was wanted and not reached; the same
command in a thread that asks which CUDA build exists for a toolkit (pytorch#50032: "+cu111 ... worked for me") names
no cause. The wordings, each from real threads:

* torch's autocast warning "User provided device_type of 'cuda', but CUDA is not available" (torch/amp/autocast_mode.py;
  model-angelo#78, min-dalle#66);
* torch's "Torch not compiled with CUDA enabled" and a reporter's "my torch couldn't compiled with cuda" (visprog#12);
* ``torch.cuda.is_available()`` False in words ("Why is my Pytorch's CUDA false after installing", anomalib#2068; "GPU
  unavailable");
* "cuda is not recognized" / "CUDA not available" / "missing cuda torch" (a title's, SEINE#9);
* "doesn't see my GPU" (jax#5231; jax's own "No GPU/TPU found" and "CUDA-enabled jaxlib is not installed" are
  errors.toml's signatures, read there);
* "trained on CPU instead of GPU" / "runs only on CPU";
* (vendor41) "falls back to CPU" (invoke-ai/InvokeAI#9321: a launcher on a Windows AMD machine), and InvokeAI's own
  "Using torch device: CPU" / "Using device_type cpu" (invoke-ai/InvokeAI#3527, #1763, #1322).

A line that says the machine has no GPU of NVIDIA's ("without a CUDA-capable GPU", a Mac) is not this: CPU was the
only choice there, and no CUDA build helps. Every pattern is bounded (linear on any line).
"""

from __future__ import annotations

import re
from typing import List

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts"]

_UNREACHED = re.compile(
    r"(?i)device_type\sof\s\\?'cuda\\?',\sbut\sCUDA\sis\snot\savailable"
    r"|\bnot\scompiled\swith\scuda\b|\bcouldn[’'`]?t\scompiled?\swith\scuda\b"
    r"|\bcuda\s(?:is\s)?(?:not|n[’'`]t)\s(?:available|recogni[sz]ed|detected|found|enabled|working)\b|\bcuda\sunavailable\b"
    r"|\b(?:py)?torch(?:[’']s)?\scuda\s(?:is\s)?false\b|\bgpu\s(?:is\s)?unavailable\b"
    r"|\bmissing\scuda\s(?:py)?torch\b"
    r"|\b(?:doesn[’'`]?t|does\snot|can[’'`]?t|cannot|won[’'`]?t)\s(?:see|find|detect|use|recogni[sz]e)\s(?:my|the|any)\sgpus?\b"
    r"|\b(?:trained|running|runs?)\s(?:only\s)?on\s(?:the\s)?cpu\sinstead\sof\s(?:the\s)?gpu\b"
    # vendor41: a launcher's fall-back said ("still falls back to CPU, does not detect my GPU", invoke-ai/InvokeAI#9321)
    r"|\bfall(?:s|ing)?\sback\sto\s(?:the\s)?cpu\b"
    # InvokeAI's start-up line of the device it chose: "Using torch device: CPU" (5.x), ">> Using device_type cpu" (2.x;
    # invoke-ai/InvokeAI#3527, #1763, #1322): torch reached no GPU
    r"|\bUsing\storch\sdevice:\sCPU\b|\bUsing\sdevice_type\scpu\b")
#: no NVIDIA GPU on the machine, said: the CPU was the only choice ("an x86 Apple laptop without a CUDA-capable GPU")
_NO_NVIDIA = re.compile(r"(?i)\bwithout\s(?:a\s|an\s)?(?:cuda-capable|nvidia|cuda)\s(?:gpu|card)\b|\b(?:macos|macbook|apple)\b")


def line_facts(s: str, low: str) -> List[Fact]:
    """``seen:cuda-unreached`` where the line (stripped, and lower-cased) says the framework did not reach CUDA."""
    if len(s) > 600 or ("cuda" not in low and "gpu" not in low and "fall" not in low
                         and "using" not in low):
        return []
    if _UNREACHED.search(s) and not _NO_NVIDIA.search(s):
        return [Fact("seen:cuda-unreached", s, s)]
    return []
