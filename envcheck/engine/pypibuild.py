"""The build a torch release named without its build label most likely is, where the text shows it came from PyPI's
default index (pypi29), and the driver check that follows.

A paste often names the torch release alone ("PyTorch Version: 1.3", ``pip install torch``) beside the driver, with
no ``+cuXXX`` label and no collect_env "CUDA used to build PyTorch": the build's CUDA is then unknown and the driver
is never compared with it. PyPI serves one build per release and platform; compat_matrix/torch.toml records, per
release, the variant PyPI's Linux x86_64 wheel is (``pypi_default_variant``, read from the wheels). Where the text
shows pip installed torch (a ``pip install torch`` line without its own index options, or the old issue template's
"How you installed PyTorch: pip"), on Linux x86_64 (the text's Python platform; an unknown machine is taken as
x86_64, the only Linux platform of PyPI's CUDA wheels before 2.6), :func:`pypi_default_build` derives the build's
CUDA as an *assumed* fact, with its provenance, never as certain:

* no evidence of the source (a version in a package list, collect_env without its CUDA line): nothing is assumed -
  a conda build (``[conda] pytorch``) or a PyTorch-index wheel shows no label either (the threads: pytorch#28321,
  pytorch#33469 are conda installs of the same releases);
* a conda install shown, a find-links page (``-f torch_stable.html``: its old wheels carried no label whatever their
  CUDA), or an index on the pip line: nothing is assumed;
* a version naming a series ("1.3") stands for each of its releases in the matrix ("1.3.0", "1.3.1"); their default
  variants must agree, else nothing is assumed.

Windows and macOS need no assumption of a CUDA: PyPI's torch there is the CPU build
(:func:`envcheck.engine.builds.pypi_torch_is_cpu`; :func:`envcheck.engine.cpubuild.windows_torch_unlabelled` says it
as likely). TensorFlow and jaxlib are not covered: their matrix rows do not record which build PyPI serves unlabelled.

:func:`pypi_driver_too_old` is the driver check on that assumption (:func:`envcheck.engine.rules.driver_runs`, the
driver floors of compat_matrix/cuda.toml): ``driver-too-old``, its message saying the condition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

from envcheck.engine.textclaims import TextClaims
from envcheck.model import Environment, Finding, Framework, Severity
from envcheck.versions import DriverVersion

__all__ = ["AssumedBuild", "assume_build", "assumed_from_facts", "driver_check", "prose_driver_too_old", "pypi_default_build",
           "pypi_driver_too_old"]

_PLATFORM = "linux-x86_64"
_SERIES = re.compile(r"^\d{1,2}\.\d{1,2}$")


@dataclass(frozen=True)
class AssumedBuild:
    """The build PyPI's default index serves for a release on a platform: an assumption, with what it rests on."""

    framework: str
    version: str  # as the text names it ("1.3", "2.5.1")
    releases: Tuple[str, ...]  # the matrix's releases it stands for ("1.3.0", "1.3.1")
    variant: str  # "cu101"
    cuda: str  # "10.1"
    platform: str  # "linux-x86_64"
    evidence: str  # the line showing pip installed it
    source: str  # the matrix row's source

    @property
    def said(self) -> str:
        rel = f" ({', '.join(self.releases)})" if self.releases != (self.version,) else ""
        return (f"PyPI's default build of {self.framework} {self.version}{rel} on Linux x86_64 is {self.variant} "
                f"(CUDA {self.cuda})")

    @property
    def condition(self) -> str:
        return f"if this {self.framework} came from PyPI's default index"

    def to_dict(self) -> Dict[str, Any]:
        """Contract §4 ``facts.assumed.<framework>``."""
        return {"cuda": self.cuda, "variant": self.variant, "platform": self.platform, "if": self.condition,
                "said": self.said, "evidence": self.evidence, "source": self.source}


def _release_rows(matrix: Any, version: str) -> List[Dict[str, Any]]:
    row = matrix.torch_release(version)
    if row is not None:
        return [row]
    if not _SERIES.match(version):
        return []
    return [r for r in matrix.rows("torch", "release") if str(r.get("version") or "").startswith(version + ".")]


def _labelled(fw: Framework) -> bool:
    """The build itself is known or another vendor's: a label, a CUDA, a CPU-only flag, an arch list, ROCm / XPU."""
    from envcheck.engine.builds import jetson_build

    return bool("+" in (fw.version or "") or fw.cuda or fw.cuda_major or fw.cpu_only is not None or fw.arch_list
                or fw.rocm or fw.hip or fw.xpu or jetson_build(fw.version))


def pypi_default_build(matrix: Any, env: Environment, claims: TextClaims,
                       framework: str = "torch") -> Optional[AssumedBuild]:
    """The build the report's unlabelled ``framework`` is if it came from PyPI's default index (see the module), or
    None where the text does not show a pip install from it on Linux x86_64, or the matrix does not know the build."""
    fw = env.frameworks.get(framework)
    if fw is None or _labelled(fw):
        return None
    return assume_build(matrix, framework, fw.version, env.python.platform, env.python.machine, claims.torch_pip,
                        bool(claims.torch_index or claims.torch_conda or claims.find_links))


def assume_build(matrix: Any, framework: str, version: Optional[str], platform: Optional[str],
                 machine: Optional[str], pip_line: Optional[str], elsewhere: bool) -> Optional[AssumedBuild]:
    """:func:`pypi_default_build` on plain values: ``version`` as the text names it (no label), the text's Python
    ``platform`` / ``machine``, ``pip_line`` the line showing pip installed it, ``elsewhere`` the text shows another
    source too (a conda install, a find-links page, an index on the pip line)."""
    if framework != "torch" or not version or "+" in version or not pip_line or elsewhere:
        return None
    plat, mach = (platform or "").lower(), (machine or "").lower()
    if not plat.startswith("linux") or mach not in ("", "x86_64", "amd64"):
        return None
    rows = _release_rows(matrix, version)
    got: Set[Tuple[str, str, str]] = set()
    for rel in rows:
        name = rel.get("pypi_default_variant")
        var = matrix.torch_variant(str(rel.get("version")), name) if isinstance(name, str) else None
        if var is None or not var.get("cuda") or _PLATFORM not in (var.get("pypi_platforms") or [_PLATFORM]):
            return None  # a release whose default build the matrix does not know: unknown
        got.add((str(name), str(var["cuda"]), str(rel.get("source") or "compat_matrix/torch.toml")))  # the release row's
    if len({(n, c) for n, c, _ in got}) != 1:
        return None  # no release, or the releases of a series differ
    name, cuda, source = sorted(got)[0]
    from envcheck.engine.builds import version_key

    releases = tuple(sorted((str(r["version"]) for r in rows), key=version_key))
    return AssumedBuild(framework=framework, version=version, releases=releases, variant=name, cuda=cuda,
                        platform=_PLATFORM, evidence=pip_line, source=source)


def pypi_driver_too_old(matrix: Any, env: Environment, claims: TextClaims) -> List[Finding]:
    """``driver-too-old`` on the assumption of :func:`pypi_default_build`: the driver the report shows does not run
    the CUDA of PyPI's default build of its torch release. Not where torch is shown reaching the GPU."""
    if env.driver.version is None or claims.cuda_available is True or claims.gpu_works:
        return []
    build = pypi_default_build(matrix, env, claims)
    found = driver_check(matrix, build, env.driver.version, env.driver.cuda) if build is not None else None
    return [found] if found is not None else []


def prose_driver_too_old(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """The same for a driver only a sentence states (evidence ``driver-prose``: no report's driver), the torch release
    the text's facts give, beside a GPU failure the text shows or the program asking for the GPU (a retyped REPL's
    ``torch.cuda.is_available()`` / ``false`` is no failure line to the readers: pytorch#30071)."""
    drv = (facts.get("driver") or {}).get("version") if isinstance(facts.get("driver"), dict) else None
    torch = (facts.get("frameworks") or {}).get("torch") if isinstance(facts.get("frameworks"), dict) else None
    if not (failed or lines.get("gpu-intent")) or not drv or lines.get("driver-prose") != str(drv) or not isinstance(torch, dict) \
            or torch.get("cuda") or lines.get("cuda-available", "").lower().rstrip().endswith(("true", "yes")):
        return None
    build = assumed_from_facts(matrix, facts, lines)
    have = DriverVersion.parse(str(drv))
    return driver_check(matrix, build, have, None) if build is not None and have is not None else None


def assumed_from_facts(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[AssumedBuild]:
    """:func:`assume_build` from explain's contract §4 ``facts`` and the text's evidence lines (``torch-pip``,
    ``torch-index``, ``torch-conda``, ``find-links``, ``python-platform``): ``facts.assumed.torch``."""
    fws = facts.get("frameworks") if isinstance(facts.get("frameworks"), dict) else {}
    torch = fws.get("torch") if isinstance(fws, dict) else None
    if not isinstance(torch, dict) or torch.get("cuda") or torch.get("hip") or torch.get("xpu"):
        return None
    from envcheck.engine.builds import jetson_build

    if jetson_build(torch.get("version")):
        return None
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    return assume_build(matrix, "torch", torch.get("version"), (py or {}).get("platform") or lines.get("python-platform"),
                        (py or {}).get("machine"), lines.get("torch-pip"),
                        bool(lines.get("torch-index") or lines.get("torch-conda") or lines.get("find-links")))


def driver_check(matrix: Any, build: AssumedBuild, driver: DriverVersion, driver_cuda: Optional[str]) -> Optional[Finding]:
    """``driver-too-old`` where ``driver`` does not run the assumed build's CUDA
    (:func:`envcheck.engine.rules.driver_runs`), its message saying the assumption; None where it runs or is unknown."""
    from envcheck.engine import rules

    ok, how = rules.driver_runs(matrix, driver_cuda, driver, build.cuda)
    if ok is not False:
        return None
    low = rules.driver_need(matrix, build.cuda, windows=False, ptx_needed=False)
    need = str(low) if low is not None else None
    needs = f", which needs driver >= {need}" if need else ""
    msg = (f"Assumed, not verified: {build.condition} ({build.evidence[:120]}), it is built for CUDA {build.cuda}"
           f"{needs}; the driver is {driver} ({how}). {build.said}; the text shows no build label (+cuXXX) and no "
           "torch.version.cuda.")
    fix = ("Upgrade the NVIDIA driver" + (f" to >= {need}" if need else "") + ", or install a torch build for a CUDA "
           "this driver runs (`envcheck fix --want torch` lists them). Check the build first: "
           "`python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`.")
    ev = (f"driver {driver}; torch {build.version} with no build label; {build.said} "
          f"(compat_matrix/torch.toml pypi_default_variant, {build.source})")
    return Finding("driver-too-old", Severity.WARNING, msg, fix, ev, "torch")
