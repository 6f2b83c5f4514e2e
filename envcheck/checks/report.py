"""The status report as a plain dictionary (contract §2): the status document; text and Markdown render from it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, cast

from envcheck import __version__
from envcheck.environment.vendors import accel_gpu_entries, framework_keys, report_keys
from envcheck.model import Environment, Finding

if TYPE_CHECKING:
    from envcheck.checks.document_types import DriverDoc, FindingDoc, GpuDoc, StatusDocument  # noqa: F401

__all__ = ["REPORT_SCHEMA", "build_report", "build_document", "is_ok", "StatusDocument", "DriverDoc", "GpuDoc", "FindingDoc"]

REPORT_SCHEMA = "envcheck/report/1"


#: the typed shape of the report (TypedDicts), in envcheck.checks.document_types: building TypedDicts costs a
#: status run ~1.2 ms (each string annotation compiled as a ForwardRef), and only type checkers and tests need them
_DOCUMENT_TYPES = frozenset({"StatusDocument", "DriverDoc", "GpuDoc", "FindingDoc"})


def __getattr__(name: str) -> Any:
    """``StatusDocument``, ``DriverDoc``, ``GpuDoc``, ``FindingDoc``: envcheck.checks.document_types', on first use."""
    if name in _DOCUMENT_TYPES:
        from envcheck.checks import document_types

        return getattr(document_types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_ok(findings: List[Finding]) -> bool:
    return not any(f.severity == "error" for f in findings)


def _short_cudnn(v: Optional[str]) -> Optional[str]:
    if not v:
        return None
    return ".".join(v.split(".")[:3])


def matrix_version(origin: str) -> Optional[str]:
    """The matrix bundle's version in a matrix origin (``"bundled 2026.11.22"`` -> ``"2026.11.22"``)."""
    parts = (origin or "").split()
    return parts[1] if len(parts) == 2 and parts[0] in ("bundled", "updated") else None


def now_iso() -> str:
    """The time now, ISO-8601 in UTC to the second (``2024-06-01T12:00:00Z``): ``datetime.now(timezone.utc)``'s
    second (the system clock's nanoseconds, floored) without importing datetime (issue 24)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time_ns() // 1_000_000_000))


def build_report(env: Environment, findings: List[Finding], matrix_origin: str = "bundled",
                 hostname: Optional[str] = None, created: Optional[str] = None) -> Dict[str, Any]:
    """The §2 report as a plain dictionary (callers may add their own private keys); typed:
    :func:`build_document`."""
    return dict(build_document(env, findings, matrix_origin, hostname, created))


def build_document(env: Environment, findings: List[Finding], matrix_origin: str = "bundled",
                   hostname: Optional[str] = None, created: Optional[str] = None) -> StatusDocument:
    """The §2 report. ``hostname`` (``status --hostname``) replaces the machine's own name;
    ``created`` defaults to now."""
    d = env.driver
    frameworks: Dict[str, Any] = {}
    for name, fw in env.frameworks.items():
        entry: Dict[str, Any] = {"version": fw.version, "cuda": fw.cuda, "cudnn": _short_cudnn(fw.cudnn)}
        entry.update({"cuda_source": fw.cuda_source, "cuda_major": fw.cuda_major,
                      "distribution": fw.distribution, "cpu_only": fw.cpu_only,
                      "arch_list": list(fw.arch_list) if fw.arch_list else None, "arch_source": fw.arch_source,
                      "cudnn_source": fw.cudnn_source, "requires": list(fw.requires)})
        entry.update(framework_keys(fw))  # contract §9: rocm (major.minor), hip, xpu, mps
        if fw.runtime:
            entry["runtime"] = fw.runtime
        if name in ("jax", "cupy"):
            entry["build_info"] = fw.build_info
        if name == "onnxruntime":  # contract §4: {"version", "package", "cuda", "cudnn"}; the builds per feed
            entry["package"] = fw.distribution
            entry["build_info"] = fw.build_info
        frameworks[name] = entry
    libs = []
    for c in env.libraries:
        libs.append({"family": c.family, "major": c.major, "version": c.version, "path": c.path,
                     "source": c.source, "owner": c.owner, "on_search_path": c.on_search_path,
                     "version_source": c.version_source})
    doc: Dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "envcheck": __version__,
        "hostname": hostname or env.host.hostname,
        "created": created or now_iso(),
        "matrix_version": matrix_version(matrix_origin),
        "source": env.source,
        "ok": is_ok(findings),
        "driver": {
            "version": d.version.raw if d.version else None,
            "cuda": d.cuda,
            "cuda_source": d.cuda_source,
            "source": d.source,
            "kernel_module": d.kernel_module,
            "kernel_version": d.kernel_version.raw if d.kernel_version else None,
            "libcuda_cuda": d.libcuda_cuda,
            "libcuda_path": d.libcuda_path,
            "libcuda_stub": d.libcuda_stub,
            "override": d.override,
            "error": d.error,
            "error_text": d.error_text,
            "nvidia_smi": d.smi_state,
            "nvidia_smi_text": d.smi_text,
            "nvidia_smi_form": d.smi_form,
        },
        "gpus": [{"index": g.index, "name": g.name, "compute_capability": g.compute_capability,
                  "memory_mib": g.memory_mib, "visible": g.visible, "mig": g.mig, "uuid": g.uuid,
                  "compute_capability_source": g.cc_source, "bus_id": g.bus_id, "fault": g.fault,
                  "vendor": "nvidia"}
                 for g in env.gpus] + accel_gpu_entries(env) if (env.gpus or env.gpus_known or env.accel.gpus
                                                 or env.accel.nvidia_gpus)
        else None,
        "gpus_known": env.gpus_known,
        "visible_devices": {"CUDA_VISIBLE_DEVICES": env.visible_devices,
                            "NVIDIA_VISIBLE_DEVICES": env.nvidia_visible_devices},
        "toolkit": {"version": env.toolkit.version, "nvcc": env.toolkit.nvcc,
                    "full_version": env.toolkit.full_version, "root": env.toolkit.root},
        "cudnn": [{"version": _short_cudnn(c.version), "path": c.path, "source": c.source, "major": c.major,
                   "owner": c.owner, "version_source": c.version_source} for c in env.copies("cudnn")],
        "libraries": libs,
        "python": {"version": env.python.version, "implementation": env.python.implementation,
                   "platform": env.python.platform, "machine": env.python.machine, "glibc": env.python.glibc},
        "host": {"os": env.host.os_name, "wsl": env.host.wsl, "container": env.host.container},
        "frameworks": frameworks,
        **report_keys(env),  # contract §9: vendor, rocm, xpu, mps (+ envcheck's accelerator)
        "findings": [{"id": f.id, "severity": f.severity, "message": f.message, "fix": f.fix,
                      "evidence": f.evidence, "component": f.component} for f in findings],
        "problems": [{"capture": p.key, "status": p.status, "detail": p.detail} for p in env.problems],
        "notes": list(env.notes),
        "not_captured": list(env.not_captured),
        "matrix": matrix_origin,
    }
    from envcheck.engine.vendors import builds_vendor

    accel = doc.get("accelerator")
    if isinstance(accel, dict):
        accel["builds_for"] = builds_vendor(env)  # contract §9: the vendor the GPU builds are for, when not seen
    return cast("StatusDocument", doc)
