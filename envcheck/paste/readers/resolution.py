"""The one reader of a thread's resolution (issue 20, round resolve22): a sentence that says what fixed the failure.

A pasted thread often says what its error text does not: "Solved by updating the NVIDIA driver", "the problem was
that I enabled Secure Boot", "adding my user to the video group worked", "I uninstalled and reinstalled the flash_attn
module to solve the problem", "zlibwapi.dll 缺失导致的报错.找到对应zlip资源问题修正". This module reads only the *shape*
of such a sentence, never which cause it names: that is :mod:`envcheck.engine.resolution`'s, from the phrase table
``compat_matrix/resolutions.toml`` (the paste side reads no matrix).

A sentence is a resolution when it states an outcome of a fix (``solved``, ``fixed`` / ``fixes``, ``resolved`` /
``resolves`` (an additional ``usermod -a -G render`` "fixes the issue", intel/compute-runtime#701), ``works`` /
``worked``, ``did the trick``, ``that did it`` / ``that was it``, "... fix the issue" (a reporter's "Updating driver from
version 461.40 to 526.47 fix the issue", dotnet/machinelearning-modelbuilder#2357), ``went away``, ``解决`` / ``修正`` / ``好了`` / ``可以了``, ``解決`` / ``直りました``,
``해결``) or names the cause ("the problem was ...", "turns out ...", "it was indeed my ...", "I forgot to ...",
``导致``, ``原来是``), and is none of:

* a question ("Did updating the driver fix it?", a ``？``, ``吗``);
* a negation or a failure before the outcome in its clause ("it did not work", "I updated the driver but it still
  fails", "no luck", "nothing worked"; "I did nothing but ..." is no negation; a contraction's apostrophe as keyboards
  write it, ' ’ ´ ‘ ʼ or `: "HSA_OVERRIDE_GFX_VERSION doesn´t work", ollama/ollama#3107), or after it ("helped nobody", "worked
  for others", "解决不了", "解決しませんでした", "해결되지 않았습니다"), or a later clause that takes it back ("... but this
  server still fails");
* advice, a hedge or a condition before the outcome ("try ... and it should work", "you need to ...", "maybe ...",
  "if you use python=3.8, it works", "will work");
* someone else's or a page's claim ("Someone on the forum said it was solved by ...", "For my colleague it worked
  after ...", "According to the FAQ ...");
* a fix of another problem or one that did not last ("Unrelated, but updating the driver fixed my flickering
  screen", "temporarily fixed it", "worked in WSL but not in Docker").

Each resolution is evidence ``seen:resolution`` with value ``KIND | TEXT``: ``KIND`` is ``cause`` (the sentence names
the cause) or ``fix`` (it names what was done), ``TEXT`` the sentence with the one before it where that one belongs
to it (a fix said in one sentence, its bare outcome in the next: "I did nothing but disable secure boot. ... boom, it
worked!"; not a failed attempt: "Updating the driver did not help. Restarting the notebook solved it."). Who said it
is the thread's (:meth:`envcheck.paste.thread.ThreadWatch.speaker`, added by :mod:`envcheck.paste.sections`).

Every pattern is bounded (linear on any line); a line longer than 400 characters is read in pieces of whole sentences
by the caller (:func:`envcheck.paste.readers.observe.prose_facts_of`).
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import Fact

__all__ = ["line_facts", "resolution_of", "confirms", "rejects", "introduces", "followed"]

#: a word of an outcome (what a fix did): English, Chinese, Japanese, Korean
_OUTCOME = re.compile(
    r"(?i)(?<![\w/\\.$-])(?:solved|solves|fixed|fixes|resolved|resolves|works?|worked|working|helped|succeeded)(?![\w/\\-])"
    r"|\ballow\w{0,3}\s(?:it|me|us|them|(?:the|our|my)\s\w{1,15})\sto\s(?:finish|complete|run|train|proceed|succeed)\b"
    r"|\bdid\s(?:the\strick|solve|fix)\b|(?<=\bi\s)[^.?!]{0,80}?\bto\s(?:solve|fix|resolve)\s(?:the|this|that|it|my)\b|\bgot\sit\s(?:working|to\swork)\b|\b(?:went|goes)\saway\b|\bis\sgone\b"
    # tfcudnn38: the work itself said to go on now ("I downgraded to cuDNN 7.6.2 and my model is training now",
    # tensorflow/tensorflow#34355)
    r"|\b(?:is|are)\s(?:now\s)?(?:training|running)\s(?:now|fine|again)\b"
    r"|\b(?:that|this)\s(?:did|was)\sit\b(?!\s(?:not|n[’'´‘ʼ`]t)\b)"
    r"|(?<!\bto\s)(?<!\bhow\s)(?<!\bcan\s)(?<!\bwill\s)(?<!\bwould\s)\bfix\s(?:the|this|that|my)\s(?:issue|problem|error)\b"
    r"|解决(?!方法|办法|方案|思路)|解決(?!方法|策)|修正|修好|搞定|好了|就好|可以了|正常了|直りました|動きました|해결(?!\s?(?:방법|책))")
#: a sentence naming the cause: "the problem was", "turns out", "it was indeed my torch set up", "I forgot to add"
_CAUSE = re.compile(
    r"(?i)\bthe\s(?:problem|issue|reason|cause|culprit)\s(?:was|is|were|occurred|occured)\b"
    r"(?!\s(?:now\s)?(?:solved|fixed|resolved|gone|not|never)\b|n[’'´‘ʼ`]t)|\bturn(?:s|ed)\sout\b"
    r"|\bcaused\sby\b|\bit\swas\s(?:indeed\s)?(?:my|the|because)\b|\bi\s(?:had\s)?forg[eo]t\w{0,2}\sto\b"
    r"|\b(?:it|they|this|that)\s(?:was|were)\s(?:just\s|simply\s)?missing\s(?:from|in)\b"
    r"|\b(?:it|this|that)\s(?:is|was)\s(?:all\s|simply\s|just\s)?due\sto\b"
    # (drvold37) "Apparently I just needed to update my Graphics Driver" (video2x#109): what the writer only had to do
    r"|\b(?:i|we)\s(?:just|only|simply)\s(?:needed|had)\sto\b"
    r"|导致|原来是|原因是|原因は|(?:仍然|仍|依然|还是){1,2}(?:太|过)(?:老|旧|低)了"
    # tfgpu39: "这个问题主要是 GPU的编号没有指定对" (the problem is mainly ...), "CUDA_VISIBLE_DEVICES变量设置问题" (a
    # problem of the variable's setting, PaddlePaddle/Paddle#17857), "您使用的cuda有些高" (the CUDA used is somewhat too
    # high, a maintainer's, PaddlePaddle/Paddle#61528): the Chinese shapes of "the problem was" / "too new"
    r"|问题(?:主要|应该|就)?是|(?:设置|配置)(?:的)?问题|(?:有些|有点|太|过)(?:高|新)(?:了)?(?=[\s，。,.！!]|$)")
#: a sentence that says the cause was found and leaves it to the next one ("Finally find the problem. Looks Spacy
#: conflicts with tensorflow.", colabtools#692): the resolution is that next sentence
_FOUND = re.compile(r"(?i)\b(?:found|find|figured\sout|discovered)\s(?:the|my)\s(?:problem|issue|reason|cause|culprit)"
                    r"[\s.!:]{0,3}$")
#: a clause ends here (a negation or an advice in an earlier clause does not undo a later outcome)
_CLAUSE = re.compile(r"[,;:，；：]|\s-\s|\s—\s")
#: a negation, a failure or a denial before the outcome in its clause
_NEGATED = re.compile(
    r"(?i)(?<![\w'])(?:not|never|no|none|nor|neither|nothing|nobody|no\sone|still|but|however|unfortunately"
    r"|without\sluck)(?![\w'])|n[’'´‘ʼ`]t(?![a-z])|没|不|未|无法|無法|还是|仍|依然|依旧")
#: a negation or another's machine right after the outcome: "fixed nothing", "helped nobody", "worked for others"
#: (, but not for me), "solved it for some users"; Chinese / Japanese / Korean negate after the verb ("解决不了",
#: "解決しませんでした", "해결되지 않았습니다")
_NEGATED_AFTER = re.compile(
    r"(?i)\s(?:nothing|not|nobody|no\sone|none)\b"
    r"|\s(?:(?:it|this|that|the\s\w{1,20})\s)?for\s(?:him|her|them|others|other\s\w{1,12}|some|many|most|a\sfew"
    r"|several|people|users|everyone\selse|my\s(?:friend|colleague|co-?worker|teammate))\b"
    r"|\s?(?:不|没|沒|し?ませ|しな|でき(?:な|ませ)|され(?:な|ませ|ていな|ていませ)|(?:되|하)지\s?(?:않|못)|(?:이|가)?\s?(?:안|못)\s)")
#: a later clause that takes the outcome back: "fixed it on my laptop but this server still fails", "... but it came
#: back"
_TAKEN_BACK = re.compile(r"(?i)\b(?:but|however|though|yet)\b[^.!?]{0,80}?\b(?:still|came\sback|comes\sback|returned"
                         r"|persists?|persisted|reappear\w{0,3})\b|\bbut\snot\s(?:in|on|for|with|when|inside|under)\b|\bfor\sa\s(?:while|day|few\s\w{1,10})\b"
                         r"|\bfirst\srun\sonly\b|\bthen\sit\s(?:came|comes)\sback\b")
#: the fix was of another problem, or did not last: "unrelated, but ... fixed my flickering screen", "solved a different
#: issue I had, not this one", "Side note: ...", "temporarily fixed it"
_ANOTHER_PROBLEM = re.compile(
    r"(?i)\b(?:unrelated|off-?topic|side\s?note|temporar\w{1,5}\s(?:fix|solv|work|help|resolv)\w{0,3}"
    r"|(?:fix|solv|work|help|resolv)\w{0,3}\s(?:it\s|this\s)?(?:only\s)?temporar\w{1,5}|(?:a\s)?different\s(?:issue|problem|error|bug)"
    r"|another\s(?:issue|problem|error|bug)|the\sother\s(?:issue|problem|error|bug)|not\s(?:this|that)\sone)\b")
#: "I did nothing but X", "no longer happens" and a sentence's leading "But I found ..." are no negation of the outcome;
#: nor is a Chinese adjective made with 不 that names the cause ("和GPU驱动、CUDA 版本不兼容导致的", a maintainer's diagnosis,
#: PaddleClas#965: incompatible; 不匹配 mismatched, 不支持 unsupported, 不一致 inconsistent, 不足 insufficient: advice29)
_NOT_NEGATION = re.compile(r"(?i)\bnothing\sbut\b|\bno\slonger\b|^\s{0,3}but\b|不(?:兼容|匹配|支持|一致|对应|适配|足)")
#: an outcome in the passive is no state: "... and then I reinstalled the nvidia-container-toolkit and it was fixed"
#: (nvidia-docker#1034), "it was solved by ..."
_PASSIVE = re.compile(r"(?i)(?:fixed|solved|resolved)$")
#: a state, not the outcome of a fix: "it used to work", "CPU-only code was working", "it only works with"
_STATE = re.compile(r"(?i)\b(?:used\sto|was|were|had\sbeen|only|always|never)\s{1,3}$")
#: advice, a hedge, a condition or a future before the outcome
_ADVICE = re.compile(
    r"(?i)(?<![\w'])(?:try|trying|should|shall|could|would|will|might|may|maybe|perhaps|if|unless|hope\w{0,3}|please"
    r"|need\sto|have\sto|must|(?<!your\s)(?<!the\s)(?:suggest|recommend)\w{0,6}|can\syou|you\scan|you\sneed|whether"
    r"|doubt\w{0,2})"
    r"(?![\w'])"
    r"|如果|应该|可能|试试|建议")
#: the claim is someone else's or a page's: a person, a forum, the docs
_ELSEWHERE = re.compile(
    r"(?i)(?<![a-z])(?:someone|somebody|anyone|anybody|people|colleague|friend|co-?worker|he|she|they|him|her|forum"
    r"|docs?|documentation|faq|readme|guide|according|said|says|claims?|reportedly|supposedly|supposed"
    r"|other\s(?:users|people|folks)|(?:users|others|folks)\s(?:have\s|had\s)?(?:reported|found))(?![a-z])")
#: a link: its words ("docs.docker.com", "cloud-native") are no claim of another's, no advice nor negation
_URL = re.compile(r"(?i)\bhttps?://[^\s)\]>]{1,300}")
#: an infinitive "to work" is a purpose or a requirement ("requires X to be set to 10.3.0 in order for the card to work
#: in ROCm", ACE-Step-1.5#658), not an outcome, unless a verb of achievement governs it ("got it to work", "made X to work")
_PURPOSE = re.compile(r"(?i)\bto\s$")
_ACHIEVED = re.compile(r"(?i)\b(?:allow\w{0,3}|enabl\w{0,3}|manag\w{0,3}|got|get\w{0,4}|able|made|make)\b[^.,;:]{0,40}\bto\s$")
#: a question mark (English, full-width) or the Chinese question particle
_QUESTION = ("?", "？", "吗")
#: where one sentence ends (a version's dot is followed by a digit, not by a space)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s{1,3}(?=\S)|(?<=[。！？])")
_HINTS = ("solv", "fix", "allow", "missing", "due to", "太老", "太旧", "太低", "过低", "过旧", "it was", "did it", "was it", "resolv", "work", "help", "succe", "trick", "away", "gone", "problem", "issue", "reason",
          "cause", "turn", "forg", "culprit", "解", "修", "搞定", "好", "可以了", "正常了", "导致", "原", "直り",
          "動き", "해결", "needed to", "had to", "training now", "running now", "running fine", "running again",
          "training fine", "training again", "问题", "高", "新")


#: a bare confirmation of the post before: "That fixed it, thanks!", "Your suggestion fixed the issue", "Works for me!",
#: "It works. Thanks." (no fix named: the fix is the one the post before gave)
_CONFIRMS = re.compile(
    r"(?i)^\W{0,3}(?:(?:ok(?:ay)?|yes|great|awesome|thanks?|thank\syou)\W{1,3}){0,2}(?:[^,.!?]{0,30},\s{0,2})?"
    r"(?:(?:that|this|it|your\s(?:suggestion|solution|fix|answer|advice|method|command|tip))\s(?:\w{1,12}\s)?"
    r"(?:fixed|solved|resolved|fixes|solves|resolves|worked|works|helped|did\sthe\strick)|works\sfor\sme)(?![\w-])[^.!?]{0,30}[.!?]{0,3}"
    r"(?:\s{1,3}(?:thanks?|thank\syou)[^.!?]{0,30}[.!?]{0,3})?\s{0,3}$")


#: a bare rejection of the post before: "Tried that, still crashes.", "Didn't work for me.", "No luck, same error.",
#: "Not for me, I still get the error." (the fix that post gave failed here)
_REJECTS = re.compile(
    r"(?i)^\W{0,3}(?:(?:no|nope|yes|yeah|yep|ok(?:ay)?|unfortunately|sadly|sorry|thanks?(?:\syou)?|hmm?)\W{1,3}){0,2}"
    r"(?:(?:i\s(?:have\s|had\s)?)?tried\s(?:that|this|it|your\s\w{1,12})\W{1,3}(?:but\s)?)?"
    r"(?:(?:it|that|this)\s)?(?:still\s)?"
    r"(?:(?:did\snot|didn[’'´‘ʼ`]t|does\snot|doesn[’'´‘ʼ`]t|won[’'´‘ʼ`]t)\s(?:work|help|fix|solve|change)\w{0,8}"
    r"|no\sluck|not\sfor\sme|the\ssame(?:\s(?:error|problem|issue|result|crash))?|same\s(?:error|problem|issue|result|crash)"
    r"|(?:crash|fail|happen)\w{0,4})"
    r"(?:[^.!?]{0,40})[.!?]{0,3}\s{0,3}$")


def rejects(line: str) -> bool:
    """Whether ``line`` is a bare rejection of the post before it (the fix it gave did not work here)."""
    return len(line) <= 200 and bool(_REJECTS.match(line.strip()))


#: more bare confirmations (prose28): "That did it.. Thank you. :)", "That was it!", "Thanks, it's working now.", "Solved,
#: thanks!", "it works again"; Chinese "问题解决了", "版本问题已解决", "可以了，谢谢"
_CONFIRMS_MORE = re.compile(
    r"(?i)^\W{0,3}(?:(?:ok(?:ay)?|yes|yep|yeah|great|awesome|perfect|thanks?|thank\syou)\W{1,3}){0,2}"
    r"(?:(?:that|this)\s(?:did|was)\sit|(?:(?:it|everything|all)(?:[’']s|\sis)?\s)?(?:now\s)?(?:works?|working)\s"
    r"(?:now|again|fine\snow|perfectly\snow)|(?:(?:it|this|that)(?:[’']s|\sis)\s)?(?:now\s)?(?:solved|fixed|resolved)"
    r"(?:\snow)?)(?![\w-])\W{0,6}(?:(?:thanks?|thank\syou)[^.!?]{0,30}[.!?]{0,3})?\s{0,3}$"
    r"|^\W{0,3}(?:谢谢|感谢|多谢)?[，,!！。\s]{0,3}(?:[\u4e00-\u9fff]{0,4}问题)?(?:已经?|就|都)?(?:解决了?|好了|可以了|正常了)"
    r"[，,!！。~\s]{0,3}(?:谢谢|感谢|多谢)?[^。！!？?]{0,10}[。！!~\s]{0,3}$")
#: a sentence of thanks or an emoticon after the confirmation ("That did it.. Thank you. :)"): not its last word
_THANKS_ONLY = re.compile(r"(?i)^\W{0,3}(?:(?:thanks?|thank\syou|thx|ty|谢谢|感谢|多谢)[^.!?。！]{0,30})?[^\w]{0,8}$")


def confirms(value: str) -> bool:
    """Whether a resolution (``KIND | TEXT`` of :func:`line_facts`) is a bare confirmation of the post before it
    (no fix of its own named): its last sentence, thanks and emoticons after it aside, is one."""
    text = value.split(" | ", 1)[-1]
    parts = [t for _, t in _sentences(text)] if text.strip() else [""]
    while len(parts) > 1 and _THANKS_ONLY.match(parts[-1]):
        parts.pop()
    last = parts[-1]
    return bool(_CONFIRMS.match(last) or _CONFIRMS_MORE.match(last))


def _outcome_stated(sentence: str) -> bool:
    """Whether an outcome word of ``sentence`` is stated: no negation, advice or other's claim before it in its
    clause (and none of the latter two anywhere before it in the sentence)."""
    sentence = _URL.sub(lambda u: " " * len(u.group()), sentence)
    for m in _OUTCOME.finditer(sentence):
        before = sentence[:m.start()]
        if m.group().lower().startswith("work") and _PURPOSE.search(before) and not _ACHIEVED.search(before):
            continue  # "... in order for the card to work": a purpose, not an outcome
        cut = 0
        for c in _CLAUSE.finditer(before):
            cut = c.end()
        clause = before[cut:]
        end = _CLAUSE.search(sentence, m.end())
        if any(q in sentence[cut:end.start() if end else len(sentence)] for q in _QUESTION):
            continue  # the outcome's own clause asks
        # an earlier clause that says an attempt failed ends what goes before: "I tried various methods but they didn't
        # work, and then I reinstalled the nvidia-container-toolkit and it was fixed" (nvidia-docker#1034: "they" are
        # the methods, no other person's claim)
        scope, start = 0, 0
        for c in _CLAUSE.finditer(before):
            if _FAILED.search(_NOT_NEGATION.sub(" ", before[start:c.start()])):
                scope = c.end()
            start = c.end()
        if _NEGATED.search(_NOT_NEGATION.sub(" ", clause)) or _ADVICE.search(before[scope:]) \
                or _ELSEWHERE.search(before[scope:]) \
                or (_STATE.search(before) and not _PASSIVE.match(m.group())):
            continue
        if _NEGATED_AFTER.match(sentence, m.end()) or _TAKEN_BACK.search(sentence, m.end(), m.end() + 160):
            continue
        return True
    return False


#: a cause denied after its "turns out": "Turns out secure boot wasn't the problem.", "... it was not secure boot"
_CAUSE_DENIED = re.compile(r"(?i)\b(?:was|is|were)(?:\s(?:not|never)|n[’'´‘ʼ`]t)\s(?:really\s)?(?:the\s|a\s)?"
                           r"(?:problem|cause|issue|culprit|reason)\b|\bit\s(?:was|is)(?:\s(?:not|never)|n[’'´‘ʼ`]t)\s")


def _cause_stated(sentence: str) -> bool:
    sentence = _URL.sub(lambda u: " " * len(u.group()), sentence)
    m = _CAUSE.search(sentence)
    if m is None or any(q in sentence for q in _QUESTION) or _CAUSE_DENIED.search(sentence, m.start()):
        return False
    before = sentence[:m.start()]
    return not (_ADVICE.search(before) or _ELSEWHERE.search(before) or _NEGATED.search(_NOT_NEGATION.sub(" ", before)))


#: (tfgpu39) a preface that addresses the thread's later readers, not a claim of someone else's nor a condition of the
#: fix: "If someone is solving the same issue, I've installed `cuda toolkit` and `cudnn`, updated `LD_LIBRARY_PATH` and it
#: worked" (tensorflow#62328); "In case anyone has the same problem:"
_PREFACE = re.compile(
    r"(?i)^(?:if|in\scase|for)\s(?:someone|somebody|anyone|anybody|others?|people)(?:\selse)?\s(?:\w{1,12}\s){0,3}?"
    r"(?:the\s|a\s)?(?:same|similar)\s(?:issue|problem|error)s?\s?[,:]\s?")


def resolution_of(sentence: str) -> Optional[str]:
    """``cause`` or ``fix`` where ``sentence`` states a resolution (see the module's docstring), else None."""
    if len(sentence) > 400 or _ANOTHER_PROBLEM.search(sentence):
        return None
    sentence = _PREFACE.sub("", sentence, count=1)
    if _cause_stated(sentence):
        return "cause"
    return "fix" if _outcome_stated(sentence) else None


def _sentences(s: str) -> List[Tuple[int, str]]:
    out: List[Tuple[int, str]] = []
    begin = 0
    for m in _SENTENCE.finditer(s):
        out.append((begin, s[begin:m.start()].strip()))
        begin = m.end()
    out.append((begin, s[begin:].strip()))
    return [(i, t) for i, t in out if t]


#: a bare outcome, its fix said before it: "boom, it worked!", "and that solved it", "I fixed ths now" (the clause holds
#: a pronoun and the outcome only)
_BARE_OUTCOME = re.compile(
    r"(?i)^\W{0,3}(?:(?:and|but|so|then|now|boom|finally|after\sthat)\W{1,3}){0,3}"
    r"(?:(?:it|that|this|everything|all|i|we)\s(?:\w{1,10}\s)?)?$")
#: a sentence that says a fix failed ("Updating the driver did not help.", "it did nothing", "no luck"); a negation of
#: something else is no failed fix ("I didn't actually get a gpu allocated": the cause, model-angelo#60)
_FAILED = re.compile(r"(?i)\b(?:did\snot|didn[’'´‘ʼ`]t|does\snot|doesn[’'´‘ʼ`]t|won[’'´‘ʼ`]t|would\snot)\s(?:\w{1,12}\s){0,2}"
                     r"(?:help|work|fix|solve|resolve|change|matter)|\b(?:no\sluck|nothing|failed|no\savail)\b"
                     r"|没|不|未|无法|無法")


def _joins(before: str, sentence: str, kind: str) -> bool:
    """Whether the sentence ``before`` belongs to ``sentence``'s resolution: it is no failed attempt ("Updating the
    driver did not help. Restarting the notebook solved it." names no driver fix) and, for a fix, ``sentence`` names no
    fix of its own (its outcome's clause is a bare "boom, it worked")."""
    if _FAILED.search(_NOT_NEGATION.sub(" ", before)):
        return False
    if kind == "cause":
        return True
    for m in _OUTCOME.finditer(sentence):
        cut = 0
        for c in _CLAUSE.finditer(sentence, 0, m.start()):
            cut = c.end()
        if _BARE_OUTCOME.match(sentence[cut:m.start()]):
            return True
    return False


#: a resolution whose sentence ends in a colon introduces its fix on the lines after it (res34): "Can you be more specific
#: in your installation statement?  This worked:" above the conda spec ``pytorch==2.0.0=py3.10_cuda11.8_cudnn8.7.0_0 ...``
#: (model-angelo#78), "I was able to solve this simply by replacing this:" above two pip lines (jax#5231)
_INTRODUCES = re.compile(r"[:：]\s{0,3}$")
#: a bare heading of a fix, the fix on the lines after it: "solution:" above the pip line of the reporter's own post
#: (Vchitect/SEINE#9), "Fix:", "Workaround:", "解决方法："
_HEADING = re.compile(r"(?i)^\W{0,3}(?:my\s|the\s|a\s)?(?:solution|fix|workaround|解决方法|解决办法|解决方案)\s{0,2}[:：]\s{0,3}$")
#: a line that only opens or closes a code block, or is a thread's author line: no words of the fix
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,}|´{3,})\s{0,3}[\w-]{0,20}\s{0,3}$")
_AUTHOR_LINE = re.compile(r"\s·\s(?:description|comment|review)\s·\s")
#: how much of the lines after a colon a resolution takes (the thread's fact keeps 300 characters in all)
FOLLOW_LINES = 6
FOLLOW_CHARS = 220


def introduces(value: str) -> bool:
    """Whether a resolution (``[WHO | ]KIND | TEXT``) ends in a colon: the fix it names is on the lines after it."""
    return bool(_INTRODUCES.search(value.rsplit(" | ", 1)[-1]))


def followed(value: str, after: Sequence[str]) -> str:
    """``value`` (a resolution that :func:`introduces` its fix) with the words of the lines ``after`` it appended: up to
    :data:`FOLLOW_LINES` non-empty lines and :data:`FOLLOW_CHARS` characters, code fences left out, up to the next
    author line of the thread."""
    words: List[str] = []
    size = 0
    for ln in after:
        t = ln.strip()
        if _AUTHOR_LINE.search(t):
            break
        if not t or _FENCE.match(t):
            continue
        t = t.strip("`").strip()
        if not t:
            continue
        words.append(t)
        size += len(t) + 1
        if len(words) >= FOLLOW_LINES or size >= FOLLOW_CHARS:
            break
    extra = " ".join(words)[:FOLLOW_CHARS]
    return f"{value} {extra}" if extra else value


def line_facts(s: str, low: str) -> List[Fact]:
    """The resolutions one line (stripped, and lower-cased) states: ``seen:resolution`` = ``KIND | TEXT`` for each
    sentence that states one; a bare heading of a fix ("solution:") is one whose fix is on the lines after it."""
    if len(s) <= 40 and _HEADING.match(s):
        return [Fact("seen:resolution", f"fix | {s}", s)]
    if len(s) > 400 or not any(h in low for h in _HINTS):
        return []
    parts = _sentences(s)
    out: List[Fact] = []
    for k, (_, sentence) in enumerate(parts):
        kind = resolution_of(sentence)
        if kind is None and k + 1 < len(parts) and _FOUND.search(sentence) and not any(q in sentence for q in _QUESTION):
            kind, sentence = "cause", sentence + " " + parts[k + 1][1]  # the cause found, said in the next sentence
        if kind is not None:
            text = (parts[k - 1][1] + " " + sentence) if k and _joins(parts[k - 1][1], sentence, kind) else sentence
            out.append(Fact("seen:resolution", f"{kind} | {text}", s))
    return out
