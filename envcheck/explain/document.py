"""The ``envcheck/explain/1`` document of one log: the one home of what ``envcheck explain`` and the
Python API (:func:`envcheck.api.explain`) do with a text.

An environment report inside the text (collect_env, pip list, nvidia-smi, ...) describes the machine the
error came from: its facts stand in for detection (no live probe at all then); ``snapshot_path``, being
explicit, still wins; ``detect=False`` explains from the text alone.
"""

from __future__ import annotations

import io
import os
from typing import IO, Any, Callable, Dict, List, Optional, Tuple, Union

from envcheck.errors import UsageError


def _detect(snapshot_path: Optional[str], matrix: Any) -> Tuple[Any, Optional[str], List[str]]:
    """The Environment (or None), what it came from, and notes. Never raises for probe problems."""
    from envcheck.environment import collect
    from envcheck.probe.open import open_source

    if snapshot_path and not os.path.exists(snapshot_path):
        raise UsageError(f"no such snapshot: {snapshot_path}")
    if snapshot_path and not (os.path.isdir(snapshot_path) or os.path.isfile(snapshot_path)):
        # a FIFO or a device given as --snapshot (refused as the log would be): exit 2, with status's message; a
        # file that is no snapshot archive is noted below and the text explained alone
        from envcheck.safe_io import file_kind

        raise UsageError(f"snapshot {snapshot_path!r} is {file_kind(os.stat(snapshot_path).st_mode)}, not a snapshot "
                         "folder or archive")
    try:
        env = collect(open_source(snapshot_path), matrix)
    except Exception as exc:  # noqa: BLE001 - detection must never make explain fail
        what = f"snapshot {snapshot_path}" if snapshot_path else "this machine"
        return None, None, [f"could not read {what} ({type(exc).__name__}: {exc}); explained from the text alone"]
    return env, (f"snapshot {snapshot_path}" if snapshot_path else "live"), []


def _paste_env(report: Any, matrix: Any) -> Tuple[Any, Optional[str], List[str]]:
    """The Environment of the pasted report (same parsers and checks as ``status``)."""
    from envcheck.environment import collect
    from envcheck.paste import PasteSource

    what = "pasted report (" + ", ".join(report.formats) + ")"
    try:
        return collect(PasteSource(report), matrix), what, []
    except Exception as exc:  # noqa: BLE001 - a report oddity must never make explain fail
        return None, None, [f"could not read the {what} ({type(exc).__name__}: {exc}); explained from the text alone"]


def _prose_findings(matches: List[Any], facts: Dict[str, Any], lines: Dict[str, str], matrix: Any) -> List[Any]:
    """``matches`` with the report-level causes the text's own sentences and lines show (engine.prose: a
    CUDA_VISIBLE_DEVICES that hides GPU 0, the forward-compatibility package on a GPU NVIDIA's list leaves out, a
    stated driver below the torch build's CUDA), merged as the pasted report's findings are."""
    from envcheck.engine.prose import findings
    from envcheck.explain.rank import merge_findings

    failed = bool(matches) or bool(lines.get("no-gpu-seen") or lines.get("gpu-fails"))
    from envcheck.explain.rank import gpu_ran, no_build

    found = findings(matrix, facts or {}, lines or {}, failed, gpu_ran(matches), no_build(matches))
    matches = merge_findings(matches, found, matrix, lines or {}, []) if found else matches
    return _resolution(matches, lines or {}, matrix) if (lines or {}).get("resolution") else matches


def _resolution(matches: List[Any], lines: Dict[str, str], matrix: Any) -> List[Any]:
    """``matches`` with the cause the thread's resolution names (engine.resolution decides the cause and its weight
    beside the text's error messages; here it is ranked by that weight): ``settles`` first, ``beside`` just below the
    conclusive message of another cause, ``likely`` below every error message; ``corroborates`` adds to the match."""
    from envcheck.engine.resolution import CONCLUSIVE, resolution_finding
    from envcheck.explain.kb import load_kb
    from envcheck.explain.rank import merge_findings

    kb = load_kb(matrix)
    logged = [m for m in matches if m.signature != "paste-finding"]
    text_causes = [(m.id, int(kb.causes[m.id].weight) if m.id in kb.causes else 0) for m in logged]
    got = resolution_finding(matrix, lines, text_causes, {cid: c.downstream for cid, c in kb.causes.items()})
    if got is None:
        return matches
    before = {m.id for m in matches}
    matches = merge_findings(matches, [got.finding], matrix, lines, [])
    new = [m for m in matches if m.id == got.finding.id and m.id not in before]
    settled = next((x for x in matches if x.id == got.finding.id), None) if got.strength == "settles" else None
    if settled is not None:  # first, whether the cause was new or a paste finding of the report's checks already
        settled.score = max([settled.score] + [x.score + 1.0 for x in matches if x is not settled])
        matches.sort(key=lambda x: (-x.score, x.line_no))
    elif new:  # (a settling cause the report's facts contradict was not merged: neither is there)
        m = new[0]
        if got.strength == "beside":
            top = max(x.score for x in logged if x.id in kb.causes and int(kb.causes[x.id].weight) >= CONCLUSIVE)
            m.score = min(m.score, top - 1.0)
        elif got.strength == "likely":
            m.score = min([m.score - 10.0] + [x.score - 1.0 for x in logged])
        matches.sort(key=lambda x: (-x.score, x.line_no))
    return matches


def explain_document(stream: IO[bytes], name: str, *, matrix: Any = None, snapshot_path: Optional[str] = None,
                     detect: bool = True,
                     on_block: Optional[Callable[[int], None]] = None) -> Dict[str, Any]:
    """Read ``stream`` (bytes, streamed: any size) and return the explain document. ``on_block`` is
    called with the number of lines read so far after each block (progress)."""
    from envcheck.explain import build_explain_report, explain_stream
    from envcheck.paste import PasteCollector

    if matrix is None:
        from envcheck.matrix import load_matrix

        matrix = load_matrix()
    from envcheck.explain.matcher import byte_literal_set
    from envcheck.paste.collect import ANCHORS

    collector = PasteCollector(present=byte_literal_set(ANCHORS))
    got: Dict[str, Any] = {"detected": None, "notes": [], "report": None, "env": None}
    text: Dict[str, str] = {}  # facts of the text's machine the paste reader shows, for the log's causes (below)

    def machine() -> Any:
        from envcheck.explain.kb import load_kb
        from envcheck.explain.logfacts import line_reader

        report = collector.finish(line_reader(load_kb(matrix))) if not snapshot_path else None
        got["text_facts"] = report.facts if report is not None else {}  # log lines alone may state facts
        got["paste_notes"] = list(report.notes) if report is not None else []  # what the text shows but was not read
        got["report_lines"] = dict(report.lines) if report is not None else {}  # what the text shows, report or not
        if got["report_lines"].get("python-platform"):  # the OS of the text's Python (read before the causes are refined)
            text["text_platform"] = got["report_lines"]["python-platform"]
        if got["report_lines"].get("intel-gpu-said"):  # the reporter's own Intel GPU (readers/prose_intel.py)
            text["intel_gpu_said"] = got["report_lines"]["intel-gpu-said"]
        if got["report_lines"].get("intel-gpu-named"):  # an Intel Arc GPU the text names (readers/linux_kernel.py)
            text["intel_gpu_named"] = got["report_lines"]["intel-gpu-named"].split(" | ", 1)[0]
        if got["report_lines"].get("apple-silicon"):  # an Apple-silicon Mac a sentence names (readers/observe.py), in
            # any wording or language its reader knows ("苹果M1芯片", "Mac with M1/M2 chip"): the log's Mac fact, as the
            # knowledge base's apple_mac is on an English "M1 Mac" (cpu41; engine.vendors.text_machine_facts still sets
            # it aside where the text shows a Windows or Linux Python)
            text.setdefault("apple_mac", got["report_lines"]["apple-silicon"][:120])
        said = ((got["text_facts"].get("frameworks") or {}).get("torch") or {}).get("cuda")
        if said:  # the torch build a sentence names ("torch 2.0.1+cu118"), where no report was pasted (attack44)
            text["text_torch_cuda"] = str(said)
        if report is not None and report.found:
            got["report"] = report
            got["env"], got["detected"], got["notes"] = _paste_env(report, matrix)
        elif detect:
            got["env"], got["detected"], got["notes"] = _detect(snapshot_path, matrix)
        return got["env"]

    def tap(block: bytes, lowered: bytes, lines_before: int) -> None:
        collector.feed(block, lowered, lines_before)
        if on_block is not None:
            on_block(lines_before)

    # ``text`` is filled by machine(), which explain_stream calls once the text is read and before it refines the causes
    res = explain_stream(stream, env=machine, matrix=matrix, facts=text, tap=tap)  # type: ignore[arg-type]
    matches = res.matches
    report = got["report"]
    if report is not None:
        from envcheck.explain.rank import add_findings, add_old_gpu, two_frameworks_cudnn

        matches = add_findings(matches, got["env"], matrix, report.lines, {**res.facts, **res.fix_facts})
        matches = add_old_gpu(matches, got["env"], matrix, report.lines)
        matches = two_frameworks_cudnn(matches, report.lines, matrix)
        matches = asked_build_matches(matches, got["env"], matrix, report.lines)
    elif got.get("report_lines"):
        from envcheck.explain.rank import add_old_gpu, add_text_findings, drop_contradicted_by_text, two_frameworks_cudnn

        drop_contradicted_by_text(matches, got["report_lines"])
        matches = add_text_findings(matches, matrix, got["report_lines"])
        matches = add_old_gpu(matches, None, matrix, got["report_lines"], got.get("text_facts") or {})
        matches = two_frameworks_cudnn(matches, got["report_lines"], matrix)
    from envcheck.explain.rank import drop_killed_in_build, drop_tf_probe_unwanted, drop_uv_platform_only

    # TensorFlow's start-up probe lines alone, on a text that shows no GPU wanted or present: a CPU run as intended
    drop_tf_probe_unwanted(matches, report.lines if report is not None else got.get("report_lines") or {},
                           got["env"] if report is not None else None, got.get("text_facts") or {})
    drop_uv_platform_only(matches, report.lines if report is not None else got.get("report_lines") or {})
    drop_killed_in_build(matches, report.lines if report is not None else got.get("report_lines") or {})
    from envcheck.explain.rank import ort_line_decides

    ort_line_decides(matches, report.facts if report is not None else got.get("text_facts") or {},
                     report.lines if report is not None else got.get("report_lines") or {}, matrix)
    matches = _prose_findings(matches, report.facts if report is not None else got.get("text_facts") or {},
                              report.lines if report is not None else got.get("report_lines") or {}, matrix)
    from envcheck.explain.rank import drop_pip_mac_x86

    drop_pip_mac_x86(matches, matrix)  # after the engine read pip's line (engine.prose_causes.apple_x86_wheels)
    # the causes the pasted report, its sentences or the thread's resolution added here took their cause's fixes
    # unsorted: on an AMD / Intel / Apple machine or log, its NVIDIA-only ones go, as for the log's own matches
    # (a resolution's device-permission on a ROCm log offered /dev/nvidia* checks)
    added = [m for m in matches if m.signature == "paste-finding"]
    if added:
        from envcheck.explain.vendors import drop_nvidia_only

        shown = {**res.facts, **res.vendor_facts}
        arc = (report.lines if report is not None else got.get("report_lines") or {}).get("intel-gpu-named")
        if arc and not shown.get("xpu"):
            # the text names an Intel Arc GPU (its model or PCI id, readers/linux_kernel.py): where no report shows
            # the machine's vendor (or its GPUs are all another maker's than NVIDIA), its stack is Intel's, as a
            # Level Zero line would show it (engine.vendors.log_stack_vendor)
            shown["xpu"] = arc.split(" | ", 1)[0]
        drop_nvidia_only(added, got["env"] if report is not None else None, shown)
    # the fixes a pasted report or its sentences added above, on a Jetson (the report's L4T, or the log names the
    # board): no fix that only a server / desktop NVIDIA machine can follow
    acc = got["env"].accel if report is not None and got.get("env") is not None else None
    from envcheck.engine.vendors import UNDECIDED, text_machine_facts

    board = (text_machine_facts(None, res.facts) or {}).get("jetson")  # undecided: a desktop GPU named beside it
    if (acc is not None and acc.l4t) or (isinstance(board, str) and board and board != UNDECIDED):
        from envcheck.explain.vendors import drop_server_only

        drop_server_only(matches, f"L4T {acc.l4t}" + (f", JetPack {acc.jetpack}" if acc.jetpack else "")
                         if acc is not None and acc.l4t else str(board))
    said = ((got.get("text_facts") or {}).get("python") or {}).get("version")
    if report is None and said:  # no report to check, but the text states its Python: pip's "no build" is judged by it
        from envcheck.explain.rank import drop_pip_not_python

        drop_pip_not_python(matches, None, matrix, said,
                            ((got.get("text_facts") or {}).get("python") or {}).get("platform"),
                            bits32=bool((got.get("report_lines") or {}).get("python-32bit")))
    if report is not None and got.get("env") is not None:
        _ort_needs_fact(report.facts, got["env"])
    _assumed_fact(report.facts if report is not None else got.get("text_facts") or {},
                  report.lines if report is not None else got.get("report_lines") or {}, matrix)
    notes = list(got["notes"]) + [n for n in got.get("paste_notes", []) if n not in got["notes"]]
    notes += [n for n in res.notes if n not in notes]
    doc: Dict[str, Any] = build_explain_report(
        matches, got["detected"], notes=notes or None, lines_scanned=res.lines, input=name,
        log_facts=res.facts or None,
        facts=report.facts if report is not None else got.get("text_facts") or {})
    return doc


def _assumed_fact(facts: Dict[str, Any], lines: Dict[str, str], matrix: Any) -> None:
    """Contract §4 ``facts.assumed.torch``: the build an unlabelled torch is if it came from PyPI's default index, where
    the text shows pip installed it on Linux x86_64 (engine.pypibuild): an assumption with its provenance, never put in
    ``frameworks.torch.cuda``."""
    from envcheck.engine.pypibuild import assumed_from_facts

    if not isinstance(facts, dict) or not facts.get("frameworks"):
        return
    build = assumed_from_facts(matrix, facts, lines)
    if build is not None:
        facts.setdefault("assumed", {})[build.framework] = build.to_dict()


def _ort_needs_fact(facts: Dict[str, Any], env: Any) -> None:
    """Contract §4 ``frameworks.onnxruntime.cuda`` / ``cudnn``: what the report's onnxruntime-gpu release needs, as the
    report's environment has it from the matrix (the CUDA the requirements table states, "12" for 12.x; the cuDNN
    major); null where the release is not in the matrix or its package feeds differ."""
    ort = (facts.get("frameworks") or {}).get("onnxruntime") if isinstance(facts, dict) else None
    fw = getattr(env, "frameworks", {}).get("onnxruntime")
    if not isinstance(ort, dict) or fw is None or fw.distribution != "onnxruntime-gpu" or ort.get("package") != \
            "onnxruntime-gpu" or ort.get("version") != fw.version:
        return
    ort["cuda"] = fw.cuda or (str(fw.cuda_major) if fw.cuda_major else None)
    ort["cudnn"] = fw.cudnn


def explain_text_document(text: Union[str, bytes], *, snapshot: Optional[str] = None, detect: bool = False,
                          name: str = "text") -> Dict[str, Any]:
    """The ``envcheck/explain/1`` document of a log, a traceback or a pasted bug report, as
    ``envcheck explain --json`` prints it (the Python API's ``envcheck.explain``). By default the text
    alone is used (``--no-detect``), plus the facts of any environment report inside it;
    ``detect=True`` uses this machine's facts and ``snapshot`` a snapshot's."""
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
    return explain_document(io.BytesIO(data), name, snapshot_path=snapshot, detect=detect or snapshot is not None)


def asked_build_matches(matches: List[Any], env: Any, matrix: Any, lines: Dict[str, str]) -> List[Any]:
    """``matches`` with engine.asked_build's findings (a CPU-only binary whose own package is the CUDA build) merged
    in as the pasted report's findings are."""
    from envcheck.engine.asked_build import asked_build_findings
    from envcheck.explain.rank import merge_findings

    found = asked_build_findings(env)
    return merge_findings(matches, found, matrix, lines, []) if found and matrix is not None else matches
