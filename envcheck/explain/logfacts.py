"""Facts of the machine that framework log lines state, read with the knowledge base's own patterns (the named
groups of compat_matrix/errors.toml's signatures and ``[[fact]]`` rows): the paste readers below explain in the
layers get them through :func:`line_reader`, so there is one regex set for log lines.

:func:`line_reader` returns a function of one line -> the captures of each pattern it matched
(``{"rule": NAME, ...named groups}``), or None;
:func:`envcheck.paste.readers.log_facts.facts_from_captures` turns the captures into a paste's facts.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["line_reader", "SIGNATURES"]

#: the signatures whose named groups are facts of the machine (cuDNN loaded / built with, CUDA JAX found / was
#: built against, the CUDA the driver supports, torch's arch list, the torch in use xformers names, the GPU torch's
#: incompatible-device warning names, the CUDA torch was built with that an extension builder names)
SIGNATURES = ("xla-tf-loaded-runtime", "jax-found-cudnn-built-against", "found-cuda-version-built-against",
              "torch-driver-too-old", "torch-supported-capabilities", "xformers-built-for-other-torch",
              "xformers-built-for-cuda-you-have-cpu", "torchvision-torchaudio-cuda-differs",
              "xformers-built-for-unlabelled-torch", "torch-incompatible-gpu-instructions",
              "triton-gpu-too-old",  # torch's GPUTooOldForTriton: "Found <GPU> which is too old ... capability 6.0"
              # the CUDA torch was built with, as the extension builders print it beside their toolkit's
              "deepspeed-op-builder-cuda-mismatch", "op-builder-installed-cuda-mismatch",
              "apex-cuda-extensions-version-mismatch", "torch-ext-detected-cuda-mismatch",
              "torch-ext-compiled-cuda-detail",
              # no GPU reachable in the process (torch's "Found no NVIDIA driver on your system", the runtime's "no
              # CUDA-capable device is detected", torch's "No CUDA GPUs are available", CUDA_ERROR_NO_DEVICE): no fact
              # of the machine, but the paste readers take these lines from here (prose_facts, observe.docker)
              "torch-found-no-driver", "no-cuda-capable-device", "torch-no-cuda-gpus", "cuinit-no-device")
# and every ``[[fact]]`` row with scope = "report" (kb.report_facts): a GPU with its index or compute capability
# (value = the name; index, cc or cc_major + cc_minor, sm, arch_list), "Found device N with properties" (gpu_found),
# the compute-capability floor a framework states (cc_floor: read by the paste reader of old GPUs, prose_gpu)

Reader = Callable[[str], Optional[List[Dict[str, str]]]]


def line_reader(kb: Any) -> Reader:
    """A function of one line -> the named captures of each knowledge-base pattern of a machine fact it matches
    (with ``rule``: the signature's or fact's name), else None."""
    from envcheck.explain import _normalize_captures

    rows: List[Tuple[str, Tuple[str, ...], Any, bool]] = []
    for sg in kb.signatures:
        if sg.name in SIGNATURES:
            rows.append((sg.name, sg.literals, sg.regex, True))
    for fc in kb.report_facts:
        rows.append((fc.name, fc.literals, fc.regex, False))

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
        for name, literals, rx, is_sig in rows:
            if not any(lit in low for lit in literals):
                continue
            m = rx.search(line)
            if m is None:
                continue
            caps = {k: v for k, v in m.groupdict().items() if v}
            caps = _normalize_captures(name, caps) if is_sig else {k: v.strip() for k, v in caps.items()}
            caps["rule"] = name
            out.append(caps)
        return out or None

    return read
