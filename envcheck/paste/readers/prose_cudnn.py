"""What a thread's sentences say of the machine's cuDNN against the one a build needs (issue 20, session 22 cudnn36):
the causes ``cudnn-missing`` and ``cudnn-version-mismatch`` where the loader's or the framework's own line is not in
the text (a screenshot, a retelling, a maintainer's answer). This module only reads: each fact is evidence; which of
the two ids it makes (the build's major absent, or the same major with another minor: docs/contract.md §3, the
acceptance24 README's convention) is decided in :mod:`envcheck.engine.cudnn_prose`.

* ``cudnn-built-run``: one sentence gives the cuDNN a build was compiled with and, apart from it, the one loaded or
  installed at run time: "TensorFlow which was compiled against 8.0.4 vs using 8.0.0 at runtime" (Kaggle/docker-python
  PR 1007, a sentence wrapped over two lines), TensorFlow's check wrapped over lines in a paste ("Loaded runtime CuDNN
  library: 7.3.1 but source was / compiled with: 7.4.2", conda/conda#8736: the one-line form is the knowledge base's),
  "Paddle是用cudnn7.6编译的，运行机器上使用的是cudnn7.0" (PaddlePaddle/Paddle#26009's maintainer). Value
  ``built | run | named | line``: ``named`` is ``cudnn`` where the sentence names cuDNN (else the engine needs a title
  naming it, ``cudnn-title``, and a sentence naming no CUDA).
* ``cudnn-said-old``: a sentence says the cuDNN is too old for the build: "cudnn版本太低与pytorch不兼容 pytorch2.0.1需要cudnn8.5"
  (EasyPhoto#27's title), "cuda11.2应该需要使用cudnn8，应该是你的cudnn版本太低了" (PaddlePaddle/Paddle#36039's maintainer),
  "your cuDNN is too old"; and a floor to upgrade it to ("升级cudnn至7+版本以上", PaddleNLP#232's maintainer; "upgrade
  cuDNN to 8.1 or newer"). Value ``need | have | line``: the version the sentence says is needed (``8.5``, ``8``) and
  the machine's it names ("my cudnn is 8.2.4"), each empty where it names none.
* ``cudnn-not-set-up``: a sentence says cuDNN is not installed or not configured: "您的环境中没有正确配置cudnn库"
  (PaddlePaddle/Paddle#45122's maintainer on ``run_check``'s "Cannot load cudnn shared library"), "cuDNN is not
  installed", "cudnn未安装". Value the line.
* ``cudnn-title``: an issue title (a ``# `` line) that names cuDNN. Value the line.

None of them in a question, a condition ("if cuDNN is not installed", "如果") or a negated statement ("cuDNN is not too
old"). Every pattern is bounded (linear on any line); lines longer than 400 characters are read in pieces by the
caller.
"""

from __future__ import annotations

import re
from typing import List, Optional

from envcheck.paste.readers.base import Fact
from envcheck.paste.readers.prose_join import sentence_start, sentence_stop

__all__ = ["line_facts"]

#: a cuDNN version with its minor (``8.0.4``, ``7.6``)
_VM = r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"
#: a cuDNN version, the major alone allowed (``8``, ``8.5``)
_V = r"\d{1,2}(?:\.\d{1,2}(?:\.\d{1,3})?)?"
_CUDNN = r"cu\s?dnn"
#: the version a build was compiled with: "compiled against 8.0.4", "source was compiled with: 7.4.2", "built with
#: cuDNN 7.6", "是用cudnn7.6编译的", "编译时使用的cudnn版本是7.6"
_BUILT = re.compile(
    r"(?i)(?:compiled|built)\s{1,2}(?:with|against|for|using)\s{0,2}:?\s{0,2}(?:the\s{1,2})?(?:" + _CUDNN
    + r"\s{0,2}(?:version\s{0,2}|library\s{0,2})?v?)?(?P<b1>" + _VM + r")(?!\w|\.\d)"
    r"|(?:用|基于)\s{0,2}" + _CUDNN + r"\s{0,2}v?(?P<b2>" + _VM + r")\s{0,2}(?:版本\s{0,2})?编译"
    r"|编译(?:时)?(?:使用)?的?\s{0,2}" + _CUDNN + r"\s{0,2}(?:版本)?\s{0,2}(?:是|为|:|：)\s{0,2}v?(?P<b3>" + _VM + r")(?!\w|\.\d)")
#: the version loaded or installed at run time: "Loaded runtime CuDNN library: 7.3.1", "using 8.0.0 at runtime",
#: "运行机器上使用的是cudnn7.0", "linked against 7.5.1"
_RUN = re.compile(
    r"(?i)(?:loaded|runtime|using|uses|linked|running|machine|system|installed|found|detected|运行|本机|机器)"
    r"[^\d\n.?!。？]{0,30}?v?(?P<r>" + _VM + r")(?!\w|\.\d)")
#: the cuDNN said too old / low
_OLD = re.compile(
    r"(?i)" + _CUDNN + r"(?:\s{0,2}(?:version|library|lib|库))?[^.?!\n。？！]{0,24}?(?:(?:too|very|quite)\s{1,2}(?:old|low)"
    r"|outdated|版本\s{0,2}(?:太|过)(?:低|旧|老)|(?:太|过)(?:低|旧|老))"
    r"|(?:too\s{1,2}old|outdated|older)\s{1,2}(?:a\s{1,2})?(?:version\s{1,2}of\s{1,2})?" + _CUDNN + r"(?![\w])")
#: a floor to upgrade cuDNN to: "升级cudnn至7+版本以上", "upgrade cuDNN to 8.1 or newer"
_FLOOR = re.compile(
    r"(?i)(?:升级|upgrade)\s{0,2}(?:your\s{1,2}|the\s{1,2})?" + _CUDNN + r"\s{0,2}(?:至|到|to)\s{0,2}v?(?P<f>" + _V
    + r")\s{0,2}(?:\+|以上|or\s{1,2}(?:later|newer|higher|above))")
#: the version needed: "需要cudnn8.5", "需要使用cudnn8", "needs cuDNN 8.5", "requires cudnn >= 8.1"
_NEED = re.compile(
    r"(?i)(?:需要|要求|needs?|requires?|at\s{1,2}least)\s{0,2}(?:使用|a\s{1,2}|the\s{1,2})?\s{0,2}" + _CUDNN
    + r"\s{0,2}(?:version\s{0,2})?(?:>=\s{0,2})?v?(?P<n>" + _V + r")(?!\w|\.\d)")
#: the machine's version named: "my cudnn is 8.2.4", "I have cudnn 8.1", "我的cudnn是5.0"
_HAVE = re.compile(
    r"(?i)(?:\bmy|\bi\s{1,2}have|我的|本机的?)\s{0,2}" + _CUDNN + r"\s{0,2}(?:version\s{0,2})?(?:is|是|:|：)?\s{0,2}v?(?P<h>"
    + _V + r")(?!\w|\.\d)")
#: cuDNN said not installed / not configured
_NOT_SET = re.compile(
    r"(?i)(?:没有|未|没)(?:正确|成功)?地?(?:配置|安装|装)好?的?\s{0,2}" + _CUDNN
    + r"|" + _CUDNN + r"\s{0,2}(?:库|的?路径)?\s{0,2}(?:没有|未|没)(?:正确)?(?:配置|安装|装)"
    r"|" + _CUDNN + r"\s{1,2}(?:librar(?:y|ies)\s{1,2})?(?:is|was|are)\s{1,2}not\s{1,2}(?:properly\s{1,2}|correctly\s{1,2})?"
    r"(?:installed|configured|set\s{1,2}up)"
    r"|" + _CUDNN + r"\s{1,2}(?:isn't|wasn't)\s{1,2}installed"
    r"|(?:didn't|did\s{1,2}not|forgot\s{1,2}to)\s{1,2}install\s{1,2}(?:the\s{1,2})?" + _CUDNN)
#: a question, a condition or a negation of the statement in its sentence
_NOT_STATED = re.compile(r"(?i)\?|？|(?<![\w'])(?:if|whether|unless|in\s{1,2}case|not\s{1,2}(?:too|very))(?!\w|\.\d)"
                         r"|如果|是否|吗")
_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]{1,2000}")
#: Paddle's own check line ("The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.5"):
#: the knowledge base's (errors.toml), one line always
_PADDLE_CHECK = re.compile(r"(?i)installed\s{1,2}paddle\s{1,2}is\s{1,2}compiled\s{1,2}with")
_CUDA_WORD = re.compile(r"(?i)cuda(?!\w)")


def _sentence(s: str, start: int, end: int) -> str:
    return s[sentence_start(s, start):sentence_stop(s, end)]


#: where a clause ends: a comma or a sentence's mark (a Chinese one needs no blank after it; a dot does, or a version's
#: dot would end it)
_CLAUSE_END = re.compile(r"[,，;；。！？!?：]|\.(?:\s|$)")


def _clause(s: str, start: int, end: int) -> str:
    """The clause holding ``s[start:end]``, with the mark that ends it (a question's ``?``)."""
    begin = 0
    for m in _CLAUSE_END.finditer(s, 0, start):
        begin = m.end()
    stop = _CLAUSE_END.search(s, end)
    return s[begin:stop.end() if stop else len(s)]


def _stated(s: str, start: int, end: int) -> bool:
    """Not in a question, a condition or a negation: judged on the match's clause and, for a question, its
    sentence."""
    sentence = _URL.sub("", _sentence(s, start, end))
    return not _NOT_STATED.search(_clause(s, start, end)) and "?" not in sentence and "？" not in sentence


def _built_run(s: str) -> Optional[Fact]:
    b = _BUILT.search(s)
    if b is None or not _stated(s, b.start(), b.end()) or _PADDLE_CHECK.search(s):
        return None
    built = b.group("b1") or b.group("b2") or b.group("b3")
    sent_start, sent_stop = sentence_start(s, b.start()), sentence_stop(s, b.end())
    for r in _RUN.finditer(s, sent_start, sent_stop):
        if r.start("r") < b.end() and r.end("r") > b.start():
            continue  # the built version itself
        run = r.group("r")
        if run == built:
            return None
        sentence = s[sent_start:sent_stop]
        named = "cudnn" if re.search(r"(?i)" + _CUDNN, sentence) else ("cuda" if _CUDA_WORD.search(sentence) else "")
        return Fact("seen:cudnn-built-run", f"{built} | {run} | {named} | {s}", s)
    return None


def _said_old(s: str) -> Optional[Fact]:
    m = _OLD.search(s) or _FLOOR.search(s)
    if m is None or not _stated(s, m.start(), m.end()):
        return None
    floor = m.groupdict().get("f")
    n = _NEED.search(s)
    h = _HAVE.search(s)
    need = floor or (n.group("n") if n else "")
    return Fact("seen:cudnn-said-old", f"{need} | {h.group('h') if h else ''} | {s}", s)


def line_facts(s: str, low: str) -> List[Fact]:
    """The evidence one line (stripped, and lower-cased) shows: see the module's docstring."""
    built = "compiled" in low or "built" in low or "编译" in s
    if len(s) > 400 or ("dnn" not in low and not built):
        return []
    out: List[Fact] = []
    fact = _built_run(s) if built else None
    if fact is not None:
        out.append(fact)
    if "dnn" not in low:
        return out
    if s.startswith("# ") and re.search(r"(?i)" + _CUDNN, s):
        out.append(Fact("seen:cudnn-title", s, s))
    old = _said_old(s)
    if old is not None:
        out.append(old)
    m = _NOT_SET.search(s)
    if m is not None and _stated(s, m.start(), m.end()):
        out.append(Fact("seen:cudnn-not-set-up", s, s))
    return out
