"""The keys a pasted environment line names a fact by, in the languages reports are written in (issue 20, facts22).

One table (:data:`KEYS`): a key as people type it, lower-cased, without its parenthesised hint, blanks collapsed ->
the kind of fact its value is. The kinds are ``driver`` (the NVIDIA driver's version), ``python``, ``torch``,
``tensorflow``, ``gpu`` (a GPU's name), ``cuda`` and ``cudnn`` (what the user says is installed: a claim, never a
detected version), and ``os``. Each value is still checked by the reader of its kind
(:func:`envcheck.paste.readers.fields.bullet_field`): a key says what a value should be, never that it is one.

The keys come from real reports (the README of each data folder cites them): English bullets and forms
(tests/data/pastes/*), Chinese issue templates (PaddlePaddle, Langchain-Chatchat, ChatGLM: ``驱动版本：``, ``显卡型号``),
Japanese, Korean, Russian, German, French, Spanish and Portuguese labels of the same fields as their users type them
(``ドライバのバージョン``, ``드라이버 버전``, ``Версия драйвера``, ``Treiberversion``, ``version du pilote``,
``versión del controlador``, ``versão do driver``). A bilingual label ("Python 版本 / Python version", "Python version |
Python 版本") is looked up part by part (:func:`kind_of`).

Data only: no pattern here reads a line.
"""

from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

__all__ = ["KEYS", "kind_of", "keys_of", "CANONICAL", "not_mine_hint"]

_DRIVER = (
    # English (bullets, forms, nvidia-smi's own words)
    "nvidia driver version", "nvidia driver", "driver version", "gpu driver version", "gpu driver", "driver",
    "nvidia-smi", "graphics driver", "graphics driver version", "display driver", "display driver version",
    "nvidia graphics driver", "video driver",
    # Chinese
    "驱动版本", "驱动", "显卡驱动", "显卡驱动版本", "nvidia驱动版本", "nvidia 驱动版本", "gpu驱动版本", "nvidia-smi版本",
    "nvidia-smi 版本", "驱动程序版本", "显卡驱动程序版本", "驅動版本", "顯卡驅動版本",
    # Japanese
    "ドライバのバージョン", "ドライバーのバージョン", "ドライババージョン", "ドライバーバージョン", "ドライバ", "ドライバー",
    "nvidiaドライバ", "nvidiaドライバー",
    # Korean
    "드라이버 버전", "드라이버", "그래픽 드라이버", "그래픽 드라이버 버전", "nvidia 드라이버",
    # Russian
    "версия драйвера", "драйвер", "драйвер nvidia", "версия драйвера nvidia", "драйвер видеокарты",
    # German
    "treiberversion", "treiber", "nvidia-treiber", "nvidia treiber", "grafiktreiber",
    # French
    "version du pilote", "pilote", "pilote nvidia", "version du pilote nvidia",
    # Spanish, Portuguese
    "versión del controlador", "controlador", "controlador nvidia", "versão do driver", "driver nvidia",
)
_PYTHON = (
    "python", "python version", "python版本", "python 版本", "python版本号", "python 版本号", "python のバージョン",
    "pythonのバージョン", "python 버전", "версия python", "python-version", "pythonversion", "version de python",
    "versión de python", "versão do python",
)
_TORCH = (
    "pytorch version", "pytorch", "torch version", "torch", "pytorch版本", "pytorch 版本", "torch版本", "torch 版本",
    "pytorchのバージョン", "pytorch のバージョン", "pytorch 버전", "версия pytorch", "pytorch-version",
    "version de pytorch", "versión de pytorch", "versão do pytorch",
)
_TENSORFLOW = (
    "tensorflow version", "tensorflow", "tensorflow版本", "tensorflow 版本", "tensorflowのバージョン", "tensorflow 버전",
    "версия tensorflow",
)
_GPU = (
    "gpu", "gpus", "gpu model", "gpu models", "gpu models and configuration", "graphics card", "video card", "显卡", "显卡型号", "gpu型号", "gpu 型号", "显卡信息", "gpu信息", "顯卡", "显卡名称", "グラフィックボード",
    "グラフィックカード", "gpuモデル", "그래픽카드", "그래픽 카드", "видеокарта", "графический процессор", "grafikkarte",
    "carte graphique", "tarjeta gráfica", "placa de vídeo",
)
_CUDA = (
    "cuda", "cuda version", "cuda toolkit", "cuda toolkit version", "cuda版本", "cuda 版本", "cudaのバージョン",
    "cuda のバージョン", "cuda 버전", "версия cuda",
)
_CUDNN = ("cudnn", "cudnn version", "cudnn版本", "cudnn 版本", "cudnnのバージョン", "cudnn 버전", "версия cudnn")
_OS = (
    "操作系统", "操作系统及版本", "操作系统版本", "系统环境", "系统", "系统版本", "运行环境", "system environment",
    "operating system and version", "operating system", "os",
)

#: key (lower case, hint dropped, blanks collapsed) -> kind
KEYS: Dict[str, str] = {
    **dict.fromkeys(_OS, "os"), **dict.fromkeys(_PYTHON, "python"), **dict.fromkeys(_GPU, "gpu"),
    **dict.fromkeys(_DRIVER, "driver"), **dict.fromkeys(_TORCH, "torch"), **dict.fromkeys(_TENSORFLOW, "tensorflow"),
    **dict.fromkeys(_CUDA, "cuda"), **dict.fromkeys(_CUDNN, "cudnn"),
}

#: the English bullet key each kind is read with (:func:`envcheck.paste.readers.fields.bullet_field`)
CANONICAL: Dict[str, str] = {"driver": "driver version", "python": "python version", "torch": "pytorch version",
                             "gpu": "gpu", "cuda": "cuda version", "cudnn": "cudnn version"}

#: a key's parenthesised hint ("PyTorch Version (e.g., 1.0)", "驱动版本（nvidia-smi）"), Markdown marks around it
_HINT = re.compile(r"[(\uff08][^)\uff09]{0,60}[)\uff09]")
_MARKS = re.compile(r"[`*_]")
#: a label written in CJK characters only
_CJK_ONLY = re.compile(r"^[\u3000-\u303f\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef\s]{1,40}$")


def _norm(part: str) -> str:
    p = _MARKS.sub("", _HINT.sub("", part[:120])).strip().lower()
    return re.sub(r"\s{2,}", " ", p)


#: a key's hint that says its value is not this machine's installed one: another machine's ("(colleague's machine)",
#: "(friend's PC)", "(working machine)"), a requirement ("(required)", "(minimum)") or the past ("(before update)")
_NOT_MINE_HINT = re.compile(
    r"(?i)[(\uff08][^)\uff09]{0,60}?(?:colleague|friend|co-?worker|\bother\b|another|working|\bold\b|previous|before"
    r"|former|required|requirement|recommended|minimum|expected|needed|wanted)[^)\uff09]{0,60}[)\uff09]")


def not_mine_hint(key: str) -> bool:
    """Whether ``key``'s parenthesised hint says its value is not this machine's installed one (:data:`_NOT_MINE_HINT`)."""
    return bool(_NOT_MINE_HINT.search(key[:160]))


def kind_of(key: str) -> Optional[str]:
    """The kind of fact ``key`` names, or None; a bilingual key ("Python 版本 / Python version", "Python version |
    Python 版本") is looked up part by part: every part a key of the table (a CJK label the table lacks is left out),
    all of one kind (a path's or an image's "nvidia/cuda" is no key, "CUDA/cuDNN version" names two kinds). A key
    whose hint says the value is another machine's, a requirement or a past one names none (attack36)."""
    if not_mine_hint(key):
        return None
    parts = [_norm(p) for p in re.split(r"[/|\uff5c]", _HINT.sub("", key[:160]))]
    # a Chinese template's second label of the same field is left out where the table lacks it ("GPU型号/显存")
    kinds = {KEYS.get(p) for p in parts if p in KEYS or not _CJK_ONLY.match(p)}
    return kinds.pop() if len(kinds) == 1 else None


def keys_of(kind: str) -> Tuple[str, ...]:
    """Every key of ``kind`` in the table."""
    return tuple(k for k, v in KEYS.items() if v == kind)
