"""Keep the report sections of a streamed text, in the same single pass as explain's matcher.

``explain`` reads its input in blocks of whole lines (and lower-cases each block once for its own
prefilter); :class:`PasteCollector.feed` is handed the same ``(block, lowered block)`` pair. It looks for
a few anchor literals with ``bytes.find`` and keeps only a bounded window of lines around each hit (a
report section is short: a collect_env is ~60 lines, an nvidia-smi table ~30, a ``pip list`` a few
hundred), at most :data:`MAX_KEPT` bytes in all. Blocks are first searched for a few *cover* literals
(one ``find`` each); only the anchors under a cover found are then looked for. The first
:data:`HEAD_SCAN` bytes are searched as they stream, and of the rest only the last :data:`TAIL_BLOCKS`
blocks (kept until the end): a pasted report sits at the top or the bottom of a bug report, and a long
program log in between is not searched block by block. A 50 MB log without a report costs a few
``find`` calls per megabyte of its first 8 MB and keeps nothing.
"""

from __future__ import annotations

import re
from typing import AbstractSet, Callable, List, Optional, Tuple

from envcheck.paste.sections import LineReader, Report, read_lines

__all__ = ["PasteCollector", "ANCHORS", "SECTION_ANCHORS", "LINE_ANCHORS", "MAX_KEPT"]

#: lower-cased literals that start a multi-line report section: the window after them is long
SECTION_ANCHORS: Tuple[bytes, ...] = (
    b"pytorch version", b"nvidia-smi", b"nvcc: nvidia", b"sys.platform", b"package  ", b"# name ", b"jaxlib:",
    b"version (gpu?)", b"ultralytics", b"tensorflow version", b"yolov", b"which accelerator",
    # the header of nvidia-smi --query-gpu's CSV (readers/smi_csv.py)
    b"driver_version", b"compute_cap", b"memory.total",
    # nvidia-smi -q -x's root element (readers/smi_xml.py): a multi-GPU XML is far over WHOLE (~1,100 lines a GPU)
    b"<nvidia_smi_log>",
    # collect_env cut above its first lines (ROCm / XPU fields), its Intel GPU lists, Paddle's summary_env
    b"is xpu available", b"xpu used to build", b"rocm used to build", b"intel gpu models", b"paddle version:",
    # DeepSpeed's ds_report environment block (readers/ds_report.py)
    b"deepspeed general environment info",
    # cupy.show_config() (readers/cupy_config.py)
    b"cupy version",
    # python -m xformers.info (readers/xformers_info.py)
    b"pytorch.version:",
)
#: literals of one-line facts (a pip freeze row, an ldconfig entry, an nvidia-smi error): a short window
LINE_ANCHORS: Tuple[bytes, ...] = (
    b"driver version", b"cuda compilation tools", b"(libc6", b"torch==", b"tensorflow==", b"jax==", b"jaxlib==",
    b"nvidia-cudnn-cu", b"nvidia-cuda-runtime-cu", b"nvrm version", b"cuda version ", b"communicate with the nvidia",
    b"failed to initialize nvml", b"::jaxlib-", b"::pytorch-", b"::tensorflow", b"::jax-", b"::cudatoolkit-",
    b"nvidia-cublas-cu",
    b"no devices were found", b"unable to determine the device handle",
    # framework log lines that state facts (sections.read_log_fact)
    b"with cuda capability sm_", b"compute capability:", b"loaded cudnn version", b"loaded runtime cudnn library",
    b"but jax was built against", b"is too old (found version", b"(uuid: gpu-",
    # Chinese issue templates' environment bullets (sections._read_zh_bullet)
    "系统环境".encode(), "操作系统".encode(), "显卡".encode(), "驱动版本".encode(), "python版本".encode(),
    "python 版本".encode(), "torch版本".encode(), "torch 版本".encode(), "型号".encode(), "paddle版本".encode(),
    "nvidia-smi版本".encode(),
    # a container started without GPUs, and what shows it inside (sections._docker_no_gpus)
    b"docker run", b"docker container run", b"nvidia-smi: command not found", b"nvidia-smi not found",
    b"no cuda-capable device", b"found no nvidia driver", b"no cuda gpus are available", b"cuda available",
    b"is_available()",
    # a bare torch build string in a bullet list, an install path that names the Python (issue 20)
    b"+cu11", b"+cu12", b"+cu13", b"+cu10", b"+cpu", b"/lib/python3.",
    # nvidia-smi -q: its banner and each GPU's product line (sections._read_smi_q)
    b"nvsmi log", b"product name  ",
    # the program asks for the GPU (sections._GPU_INTENT)
    b"list_physical_devices(", b"device='cuda", b'device="cuda', b"device('cuda", b'device("cuda', b".cuda()",
    b"'cuda:", b'"cuda:',
    b"on a cuda device",
    # a header-less --query-gpu row ("0, NVIDIA H100 80GB HBM3, 580.159.04, 9.0"), an nvidia-smi -L line
    b", nvidia ", b", tesla ", b", geforce ", b", quadro ",
    # framework log lines read by the knowledge base's patterns (TF's device properties, Paddle's device lines)
    b"found device ", b"memoryclockrate", b"streamexecutor device", b"runtime api version", b"cudnn version:",
    b"paddlepaddle works well",
    # macOS: sw_vers, Python's platform string; torch.xpu's device properties; Paddle's version.show() and install line
    b"productversion", b"-arm64-arm-64bit", b"-x86_64-i386-64bit", b"_xpudeviceproperties", b"install paddlepaddle-gpu==",
    b"version.show()", b"\ncudnn: ",
    # ONNX Runtime's issue templates (readers/ort_template.py)
    b"onnx runtime version",
    # values printed in a REPL / notebook / python -c (readers/printed.py)
    b"torch.__version__", b"tf.__version__", b"torch.version.cuda", b"cudnn.version()",
    # Stable Diffusion web UI's footer ("python: 3.10.11  •  torch: 2.0.1+cu118  •  ...")
    "\u2022  torch:".encode(),
    # conda info's virtual package of the driver's CUDA (readers/conda_info.py)
    b"__cuda=",
    # an old GPU named in a sentence, a compute-capability floor (readers/prose_gpu.py)
    b"tesla k", b"geforce gt", b"gtx ", b"quadro k", b"minimum required", b"minimum cuda capability",
    b"minimum compute capability",
    # uv's hint that a release has wheels for other platforms only (readers/pip_output.py)
    b"only has wheels for the following platform",
)
ANCHORS = SECTION_ANCHORS + LINE_ANCHORS
#: first-level literals: a block is searched for an anchor only when it holds the anchor's cover
#: (one ``find`` per cover per block instead of one per anchor; most blocks of a log hold none)
COVERS: Tuple[bytes, ...] = (b"version", b"nvidia", b"sys.platform", b"package  ", b"# name ", b"jax", b"ultralytics",
                             b"compilation tools", b"(libc6", b"torch==", b"tensorflow==", b"nvml",
                             b"no devices were found", b"device handle", b"yolov", b"accelerator", b"::", b"capability",
                             b"cudnn", b"uuid", "版本".encode(), "系统".encode(), "显卡".encode(), "型号".encode(), b"docker",
                             b"gpus are available", b"cuda-capable", b"driver", b"available", b"+cu", b"+cpu",
                             b"python3", b"nvsmi", b"product name", b"list_physical", b"'cuda", b'"cuda',
                             b".cuda(", b"cuda device", b"compute_cap", b"memory.total",
                             b"tesla", b"geforce", b"quadro",
                             b"found device", b"memoryclockrate", b"streamexecutor", b"paddlepaddle",
                             b"xpu", b"intel gpu", b"paddle version", b"productversion", b"64bit", b"rocm",
                             b"deepspeed general", b"__cuda=", "\u2022".encode(), b"gtx", b"minimum", b"only has wheels")
HEAD_SCAN = 8 * 1024 * 1024  # bytes of a stream searched block by block; after that only its last blocks
TAIL_BLOCKS = 2
#: a section anchor's line must also look like a section start (a log line merely naming nvidia-smi keeps nothing)
_SECTION_START = re.compile(
    rb"pytorch version|cuda used to build pytorch|nvidia-smi\s+\d+\.\d+|nvcc: nvidia|^\s*sys\.platform\s{2}"
    rb"|^\s*package\s+version\s*$|^#\s*name\s+version|^# packages in environment|^\s*jaxlib:\s"
    rb"|version \(gpu\?\)|ultralytics\s+(?:yolo|\d)|tensorflow version|gpu model and memory"
    rb"|yolov\d+\S*\s.*python-\d|which accelerator"
    rb"|^\s*(?:is xpu available|xpu used to build|rocm used to build|intel gpu models|paddle version:)"
    rb"|^\s*deepspeed general environment info|^\s*<nvidia_smi_log>"
    rb"|^\s*cupy version\s{1,40}:"
    rb"|^\s*pytorch\.version:"
    rb"|^\s*(?:index|name|driver_version|compute_cap|memory\.total|uuid|pci\.bus_id)\b[^,\n]{0,20},")
BEFORE = 4  # lines kept before a hit
AFTER = 150  # lines kept after a section anchor (a collect_env is ~60-120 lines, an nvidia-smi table ~30)
AFTER_LIST = 1000  # after a `pip list` / `conda list` header (a few hundred rows)
AFTER_LINE = 3  # lines kept after a one-line anchor
MAX_KEPT = 512 * 1024  # bytes of report lines kept in all (real pastes are well under 100 KB)
WHOLE = 64 * 1024  # a text up to this size is read whole (every line, as read_report does), not by its windows


_COVER_OF = {a: next((c for c in COVERS if c in a), None) for a in ANCHORS}
assert all(_COVER_OF.values()), [a for a, c in _COVER_OF.items() if c is None]


class PasteCollector:
    """Collects the lines around report anchors of a streamed text; :meth:`finish` reads them."""

    def __init__(self, max_kept: int = MAX_KEPT,
                 present: Optional[Callable[[bytes], Optional[AbstractSet[bytes]]]] = None):
        self.max_kept = max_kept
        #: which of :data:`ANCHORS` a lower-cased block holds, found in one pass (explain hands its RE2 set of
        #: them); None from it, or none given: each cover is looked for, then the anchors under those found
        self._present = present
        self.kept: List[bytes] = []  # segments of whole lines, each ending with b"\n"
        self.size = 0
        self.truncated = False
        self._tail_from: Optional[int] = None  # lines still owed to the last hit's window (across blocks)
        self.seen = 0  # bytes fed
        self._tail: List[Tuple[bytes, bytes]] = []  # the last blocks past HEAD_SCAN, searched at the end
        self._whole: List[bytes] = []  # the text itself while it is no longer than WHOLE

    def feed(self, block: bytes, low: bytes, base: int = 0) -> None:
        """``block``: whole lines ending with b"\\n"; ``low``: ``block.lower()``; ``base``: lines before it.

        The first :data:`HEAD_SCAN` bytes are searched as they come; after that only the last
        :data:`TAIL_BLOCKS` blocks are (a report sits at the top or the bottom of a paste; a long program
        log in between is not searched block by block)."""
        self.seen += len(block)
        if self.seen <= WHOLE:
            self._whole.append(block)
        else:
            self._whole = []
        if self.seen > HEAD_SCAN + len(block):
            self._tail.append((block, low))
            del self._tail[:-TAIL_BLOCKS]
            self._tail_from = 0
            return
        self._scan(block, low)

    def _scan(self, block: bytes, low: bytes) -> None:
        if self.truncated or self.size >= self.max_kept:
            self.truncated = True
            return
        owed = self._tail_from or 0
        starts: List[Tuple[int, int]] = []
        found = self._present(low) if self._present is not None else None
        present = {c for c in COVERS if low.find(c) >= 0} if found is None else set()
        for anchors, after in ((SECTION_ANCHORS, AFTER), (LINE_ANCHORS, AFTER_LINE)):
            for a in anchors:
                if (a not in found) if found is not None else (_COVER_OF.get(a) not in present):
                    continue
                i = low.find(a)
                hits = 0
                while i >= 0 and hits < 4:
                    ls = low.rfind(b"\n", 0, i) + 1
                    le = low.find(b"\n", i)
                    if after == AFTER_LINE or _SECTION_START.search(low[ls:le if le >= 0 else len(low)]):
                        starts.append((i, AFTER_LIST if a in (b"package  ", b"# name ", b"<nvidia_smi_log>")
                                       else after))
                        hits += 1
                        i = low.find(a, i + 65536)  # another hit far later (a report after a long log)
                    else:
                        i = low.find(a, le) if le >= 0 else -1
        if not starts and not owed:
            return
        spans: List[Tuple[int, int]] = []
        if owed:
            spans.append((0, self._line_end(block, 0, owed)))
        for i, after in sorted(starts):
            k = block.rfind(b"\n", 0, i)  # end of the line before the hit
            for _ in range(BEFORE):
                if k <= 0:
                    break
                k = block.rfind(b"\n", 0, k)
            spans.append((k + 1 if k >= 0 else 0, self._line_end(block, i, after)))
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

    def finish(self, log_reader: Optional[LineReader] = None) -> Report:
        """Read the kept lines (a short text: all of it); ``Report.found`` is false when the text held no report.
        ``log_reader``: explain's reader of framework log lines (:func:`envcheck.paste.sections.partials`)."""
        if self._whole and self.seen <= WHOLE and not self.truncated:
            return read_lines(b"".join(self._whole).decode("utf-8", "replace").splitlines(), log_reader)
        tail, self._tail = self._tail, []
        for k, (block, low) in enumerate(tail):
            if k == 0:
                self._tail_from = 0
            self._scan(block, low)
        if not self.kept:
            return Report()
        text = b"".join(self.kept).decode("utf-8", "replace")
        return read_lines(text.splitlines(), log_reader)
