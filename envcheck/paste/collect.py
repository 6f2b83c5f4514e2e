"""Keep the report sections of a streamed text, in the same single pass as explain's matcher.

``explain`` reads its input in blocks of whole lines (and lower-cases each block once for its own
prefilter); :class:`PasteCollector.feed` is handed the same ``(block, lowered block)`` pair. It looks for
a few anchor literals with ``bytes.find`` and keeps only a bounded window of lines around each hit (a
report section is short: a collect_env is ~60 lines, an nvidia-smi table ~30, a ``pip list`` a few
hundred), at most :data:`MAX_KEPT` bytes in all. A 50 MB log without a report costs a handful of
``find`` calls per megabyte and keeps nothing.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from envcheck.paste.sections import Report, read_lines

__all__ = ["PasteCollector", "ANCHORS", "MAX_KEPT"]

#: lower-cased literals that start (or sit inside) a report section
ANCHORS: Tuple[bytes, ...] = (
    b"pytorch version", b"cuda used to build pytorch", b"nvidia-smi", b"driver version", b"cuda compilation tools",
    b"nvcc: nvidia", b"(libc6", b"sys.platform", b"package  ", b"# name ", b"# packages in environment",
    b"[pip", b"[conda]", b"torch==", b"tensorflow==", b"jax==", b"jaxlib==", b"nvidia-cudnn-cu", b"jaxlib:", b"version (gpu?)", b"ultralytics", b"tensorflow version",
    b"gpu model and memory", b"nvrm version", b"cuda version ", b"gpu type", b"nvidia-cuda-runtime-cu",
    b"couldn't communicate", b"couldn\xe2\x80\x98t communicate", b"failed to initialize nvml",
    b"no devices were found", b"unable to determine the device handle",
)
BEFORE = 4  # lines kept before a hit
AFTER = 400  # lines kept after a hit
MAX_KEPT = 4 * 1024 * 1024  # bytes of report lines kept in all


class PasteCollector:
    """Collects the lines around report anchors of a streamed text; :meth:`finish` reads them."""

    def __init__(self, max_kept: int = MAX_KEPT):
        self.max_kept = max_kept
        self.kept: List[bytes] = []  # segments of whole lines, each ending with b"\n"
        self.size = 0
        self.truncated = False
        self._tail_from: Optional[int] = None  # lines still owed to the last hit's window (across blocks)
        self._last_line = -1  # absolute number of the last line kept

    def feed(self, block: bytes, low: bytes, base: int = 0) -> None:
        """``block``: whole lines ending with b"\\n"; ``low``: ``block.lower()``; ``base``: lines before it."""
        if self.size >= self.max_kept:
            self.truncated = True
            return
        owed = self._tail_from or 0
        starts: List[int] = []
        for a in ANCHORS:
            i = low.find(a)
            if i >= 0:
                starts.append(i)
                # a second hit far later in the same block (a report after a long log)
                j = low.find(a, i + 65536)
                if j >= 0:
                    starts.append(j)
        if not starts and not owed:
            return
        spans: List[Tuple[int, int]] = []
        if owed:
            spans.append((0, self._line_end(block, 0, owed)))
        for i in sorted(starts):
            k = block.rfind(b"\n", 0, i)  # end of the line before the hit
            for _ in range(BEFORE):
                if k <= 0:
                    break
                k = block.rfind(b"\n", 0, k)
            spans.append((k + 1 if k >= 0 else 0, self._line_end(block, i, AFTER)))
        spans.sort()
        merged: List[Tuple[int, int]] = []
        for s, e in spans:
            if merged and s <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], e))
            else:
                merged.append((s, e))
        for s, e in merged:
            seg = block[s:e]
            room = self.max_kept - self.size
            if room <= 0:
                self.truncated = True
                break
            if len(seg) > room:
                cut = seg.rfind(b"\n", 0, room)
                seg = seg[:cut + 1] if cut >= 0 else b""
                self.truncated = True
            if seg:
                if self.kept and s > 0:
                    self.kept.append(b"\n")  # a gap: sections stay apart
                self.kept.append(seg)
                self.size += len(seg)
        # lines of the last window that run past this block
        last_e = merged[-1][1] if merged else 0
        if last_e >= len(block) and merged:
            used = block.count(b"\n", merged[-1][0], last_e)
            self._tail_from = max(0, AFTER - used) if used < AFTER else 0
        else:
            self._tail_from = 0

    @staticmethod
    def _line_end(block: bytes, i: int, lines: int) -> int:
        e = i
        for _ in range(lines):
            k = block.find(b"\n", e)
            if k < 0:
                return len(block)
            e = k + 1
        return e

    def feed_text(self, text: str) -> None:
        """Feed a whole text (tests, ``explain_text``)."""
        b = text.encode("utf-8", "replace")
        if not b.endswith(b"\n"):
            b += b"\n"
        self.feed(b, b.lower())

    def finish(self) -> Report:
        """Read the kept lines; ``Report.found`` is false when the text held no report."""
        if not self.kept:
            return Report()
        text = b"".join(self.kept).decode("utf-8", "replace")
        return read_lines(text.splitlines())
