"""Facts of the machine that framework log lines state, read with the knowledge base's own patterns (the named
groups of compat_matrix/errors.toml's signatures and ``[[fact]]`` rows): the paste readers below explain in the
layers get them through :func:`line_reader`, so there is one regex set for log lines.

:func:`line_reader` returns a function of one line -> the captures of each pattern it matched
(``{"rule": NAME, ...named groups}``), or None;
:func:`envcheck.paste.readers.log_facts.facts_from_captures` turns the captures into a paste's facts.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["line_reader"]

#: the signatures read are those whose ``reports`` (errors.toml, :data:`envcheck.explain.kb.REPORTS`) names a fact of
#: the machine their line states (cuDNN loaded / built with, CUDA JAX was built against, the CUDA the driver supports,
#: torch's arch list, the torch in use xformers names, the GPU torch's incompatible-device warning names, the CUDA torch
#: was built with that an extension builder names), or no GPU / no driver reachable in the process (no fact of the
#: machine, but the paste readers take these lines from here: prose_facts, observe.docker); their captures carry it
#: as ``reports``
# and every ``[[fact]]`` row with scope = "report" (kb.report_facts): a GPU with its index or compute capability
# (value = the name; index, cc or cc_major + cc_minor, sm, arch_list), "Found device N with properties" (gpu_found),
# the compute-capability floor a framework states (cc_floor: read by the paste reader of old GPUs, prose_gpu)

Reader = Callable[[str], Optional[List[Dict[str, str]]]]


def line_reader(kb: Any) -> Reader:
    """A function of one line -> the named captures of each knowledge-base pattern of a machine fact it matches
    (with ``rule``: the signature's or fact's name), else None."""
    from envcheck.explain import normalize_captures

    rows: List[Tuple[str, Tuple[str, ...], Any, str, str]] = []
    for sg in kb.signatures:
        if sg.reports:
            rows.append((sg.name, sg.literals, sg.regex, sg.reports, sg.framework))
    for fc in kb.report_facts:
        rows.append((fc.name, fc.literals, fc.regex, "", ""))

    seen: Dict[str, Optional[List[Dict[str, str]]]] = {}  # a log repeats its lines: their answers (bounded)

    def read(line: str) -> Optional[List[Dict[str, str]]]:
        if line in seen:
            got = seen[line]
            return None if got is None else [dict(c) for c in got]  # copies: a caller may change its own
        got = _read(line)
        if len(seen) >= 4096:
            seen.clear()
        seen[line] = got
        return None if got is None else [dict(c) for c in got]

    def _read(line: str) -> Optional[List[Dict[str, str]]]:
        low = line.lower()
        out: List[Dict[str, str]] = []
        for name, literals, rx, reports, framework in rows:
            if not any(lit in low for lit in literals):
                continue
            m = rx.search(line)
            if m is None:
                continue
            caps = {k: v for k, v in m.groupdict().items() if v}
            caps = normalize_captures(framework, caps) if reports else {k: v.strip() for k, v in caps.items()}
            caps["rule"] = name
            if reports:
                caps["reports"] = reports
            out.append(caps)
        return out or None

    return read
