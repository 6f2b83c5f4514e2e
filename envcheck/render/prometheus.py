"""The status report (contract §2) in the Prometheus text exposition format (version 0.0.4), for
node-exporter's textfile collector (``--collector.textfile.directory``).

Every metric is named ``envcheck_*`` and has ``# HELP`` and ``# TYPE`` lines; label values are
escaped (backslash, double quote, newline) and other control characters dropped; no two samples share
a name and label set (findings are counted per id and severity). Unknown versions are empty labels.

Metrics:

* ``envcheck_ok`` 1 when no finding is an error, else 0.
* ``envcheck_findings{severity}`` the number of findings per severity (error, warning, info; 0 included).
* ``envcheck_finding{id,severity}`` one series per finding id of this run: how many times it was found.
* ``envcheck_info{hostname,envcheck_version,matrix_version,driver_version,driver_cuda,toolkit_version,
  nvcc_version,cudnn_version,python_version}`` always 1: the versions as labels.
* ``envcheck_framework_info{framework,version,cuda,cudnn}`` always 1, per installed framework.
* ``envcheck_gpus`` the number of GPUs seen (no sample when the GPU list is unknown or may be incomplete); ``envcheck_gpu_info{index,name,compute_capability}`` 1 each.
* ``envcheck_report_created_timestamp_seconds`` when the report was made (Unix time): alert when it
  stops moving (the check stopped running).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["render_prometheus", "escape_label_value"]

SEVERITIES = ("error", "warning", "info")
#: C0/C1 controls but newline (escaped), bidi overrides, lone surrogates (undecodable bytes: the file must
#: stay valid UTF-8, or the textfile collector drops every metric of the node)
_DROP = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
MAX_LABEL = 512


def escape_label_value(value: Any) -> str:
    """A label value as the exposition format wants it: ``\\`` -> ``\\\\``, ``"`` -> ``\\"``, newline
    -> ``\\n``; other control characters (C1, bidi overrides) and lone surrogates dropped; at most
    :data:`MAX_LABEL` characters."""
    s = "" if value is None else (value if isinstance(value, str) else str(value))
    s = _DROP.sub("", s)[:MAX_LABEL]
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: Sequence[Tuple[str, Any]]) -> str:
    if not pairs:
        return ""
    for k, _ in pairs:
        assert _LABEL_NAME.match(k), k
    return "{" + ",".join(f'{k}="{escape_label_value(v)}"' for k, v in pairs) + "}"


def _num(v: float) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int) or float(v).is_integer():
        return str(int(v))
    return repr(float(v))


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _created(rep: Dict[str, Any]) -> Optional[float]:
    from envcheck.fleet.read import parse_created  # one reading of ``created`` for fleets and metrics

    return parse_created(rep.get("created"))


def render_prometheus(rep: Dict[str, Any]) -> str:
    out: List[str] = []

    def metric(name: str, help_text: str, samples: Sequence[Tuple[Sequence[Tuple[str, Any]], float]]) -> None:
        out.append(f"# HELP {name} {help_text}")
        out.append(f"# TYPE {name} gauge")
        for labels, value in samples:
            out.append(f"{name}{_labels(labels)} {_num(value)}")

    findings = [f for f in rep.get("findings") or [] if isinstance(f, dict)]
    metric("envcheck_ok", "1 when no envcheck finding is an error (envcheck status exit status 0), else 0.",
           [([], 1 if rep.get("ok") else 0)])
    by_sev = {s: 0 for s in SEVERITIES}
    by_id: Dict[Tuple[str, str], int] = {}
    for f in findings:
        sev = str(f.get("severity") or "info")
        by_sev[sev] = by_sev.get(sev, 0) + 1
        key = (str(f.get("id") or "unknown"), sev)
        by_id[key] = by_id.get(key, 0) + 1
    metric("envcheck_findings", "Number of envcheck findings by severity.",
           [([("severity", s)], n) for s, n in by_sev.items()])
    metric("envcheck_finding", "envcheck findings of this run by finding id and severity (how many of each).",
           [([("id", i), ("severity", s)], n) for (i, s), n in sorted(by_id.items())])
    cudnn = sorted({str(c.get("version")) for c in rep.get("cudnn") or [] if isinstance(c, dict)
                    and c.get("version")})
    metric("envcheck_info", "Versions envcheck read on this machine, as labels (empty: unknown); always 1.",
           [([("hostname", rep.get("hostname")), ("envcheck_version", rep.get("envcheck")),
              ("matrix_version", rep.get("matrix_version")),
              ("driver_version", _get(rep, "driver", "version")), ("driver_cuda", _get(rep, "driver", "cuda")),
              ("toolkit_version", _get(rep, "toolkit", "version")), ("nvcc_version", _get(rep, "toolkit", "nvcc")),
              ("cudnn_version", ",".join(cudnn)), ("python_version", _get(rep, "python", "version"))], 1)])
    fws = rep.get("frameworks") if isinstance(rep.get("frameworks"), dict) else {}
    metric("envcheck_framework_info", "Installed frameworks and the CUDA / cuDNN they were built for; always 1.",
           [([("framework", name), ("version", _get(fw, "version")), ("cuda", _get(fw, "cuda")),
              ("cudnn", _get(fw, "cudnn"))], 1) for name, fw in sorted((fws or {}).items())])
    gpus = [g for g in rep.get("gpus") or [] if isinstance(g, dict)]
    # no GPU listing captured (gpus null) or a listing that may be incomplete: the count is unknown, not 0 / n
    known = isinstance(rep.get("gpus"), list) and rep.get("gpus_known") is not False
    metric("envcheck_gpus", "Number of NVIDIA GPUs envcheck saw (absent when the GPU list is not known).",
           [([], len(gpus))] if known else [])
    seen = set()
    gsamples: List[Tuple[List[Tuple[str, Any]], float]] = []
    for i, g in enumerate(gpus):
        idx = g.get("index") if g.get("index") is not None else i
        if idx in seen:
            continue
        seen.add(idx)
        gsamples.append(([("index", idx), ("name", g.get("name")), ("compute_capability", g.get("compute_capability"))],
                         1))
    metric("envcheck_gpu_info", "GPUs envcheck saw, with name and compute capability; always 1.", gsamples)
    created = _created(rep)
    if created is not None:
        metric("envcheck_report_created_timestamp_seconds", "When envcheck made this report (Unix time).",
               [([], created)])
    return "\n".join(out) + "\n"
