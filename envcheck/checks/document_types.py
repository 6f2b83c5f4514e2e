"""The typed shape of ``envcheck status --json`` (docs/contract.md §2): TypedDicts for type checkers and tests,
imported by nothing on the status path (envcheck.checks.report names them lazily)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict

__all__ = ["StatusDocument", "DriverDoc", "GpuDoc", "FindingDoc"]


class DriverDoc(TypedDict):
    """§2 ``driver``."""

    version: Optional[str]
    cuda: Optional[str]
    cuda_source: Optional[str]
    source: Optional[str]
    kernel_module: Optional[str]
    kernel_version: Optional[str]
    libcuda_cuda: Optional[str]
    libcuda_path: Optional[str]
    libcuda_stub: bool
    override: Optional[str]
    error: Optional[str]
    error_text: Optional[str]
    nvidia_smi: Optional[str]
    nvidia_smi_text: Optional[str]
    nvidia_smi_form: Optional[str]


class GpuDoc(TypedDict):
    """One of §2 ``gpus``."""

    index: Optional[int]
    name: Optional[str]
    compute_capability: Optional[str]
    memory_mib: Optional[int]
    visible: bool
    mig: Any
    uuid: Optional[str]
    compute_capability_source: Optional[str]
    bus_id: Optional[str]
    fault: Optional[str]
    vendor: str


class FindingDoc(TypedDict):
    """One of §2 ``findings`` (§3 ids)."""

    id: str
    severity: str
    message: str
    fix: Optional[str]
    evidence: Optional[str]
    component: Optional[str]


class _StatusDocumentBase(TypedDict):
    schema: str
    envcheck: str
    hostname: Optional[str]
    created: str
    matrix_version: Optional[str]
    source: str
    ok: bool
    driver: DriverDoc
    gpus: Optional[List[Dict[str, Any]]]  # NVIDIA GPUs (GpuDoc) and, §9, other vendors' (their own keys)
    gpus_known: bool
    visible_devices: Dict[str, Optional[str]]
    toolkit: Dict[str, Optional[str]]
    cudnn: List[Dict[str, Any]]
    libraries: List[Dict[str, Any]]
    python: Dict[str, Optional[str]]
    host: Dict[str, Any]
    frameworks: Dict[str, Dict[str, Any]]
    findings: List[FindingDoc]
    problems: List[Dict[str, Any]]
    notes: List[str]
    not_captured: List[str]
    matrix: str


class StatusDocument(_StatusDocumentBase, total=False):
    """The §2 report: what ``envcheck status --json`` prints (docs/contract.md); the §9 keys (AMD, Intel,
    Apple, Jetson) are envcheck.environment.vendors.report_keys'."""

    vendor: Optional[str]
    rocm: Dict[str, Any]
    xpu: Dict[str, Any]
    mps: Dict[str, Any]
    accelerator: Dict[str, Any]
