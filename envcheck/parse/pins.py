"""The package pins of a project's dependency files, as PEP 508 requirement texts with where each came
from: ``requirements*.txt`` (pip's format), ``environment.yml`` (conda's, with its ``pip:`` list) and
``pyproject.toml`` (``[project] dependencies``, ``[project.optional-dependencies]``,
``[dependency-groups]``). Used by ``envcheck fix --check-pins`` (the pre-commit hook).

Nothing here decides compatibility; lines that are not package pins (options, URLs, local paths,
editable installs, includes) are returned as skipped with the reason, never guessed at."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

__all__ = ["Pin", "read_pins", "conda_to_pep508"]

#: bytes read of one file at most (a dependency file is kilobytes)
MAX_BYTES = 4 << 20


@dataclass(frozen=True)
class Pin:
    file: str
    line: int  # 1-based; 0 when the format has no line (pyproject tables)
    text: str  # a PEP 508 requirement ("torch==2.5.1", "tensorflow[and-cuda]>=2.15")
    skipped: Optional[str] = None  # why the line is not a pin (then ``text`` is the line as written)


_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

#: conda package names of the frameworks -> their PyPI names
CONDA_NAMES = {"pytorch": "torch", "pytorch-gpu": "torch", "pytorch-cuda": None, "torchvision": "torchvision",
               "torchaudio": "torchaudio", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow",
               "jax": "jax", "jaxlib": "jaxlib"}


def _requirements(path: str, text: str) -> List[Pin]:
    out: List[Pin] = []
    logical, start = "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not logical:
            start = n
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical = (logical + line).strip()
        if not logical:
            continue
        if logical.startswith("-"):
            out.append(Pin(path, start, logical, skipped="an option line (-r/-c/--index-url ...), not a pin"))
        elif re.search(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}", logical):
            # pip expands ${NAME} from the environment at install time: the pin is not known here
            out.append(Pin(path, start, logical, skipped="names an environment variable that pip expands at "
                                                          "install time (${NAME}), so its version is not known here"))
        elif re.match(r"^[a-z+]+://|^\.{0,2}/|^~|^[^\s;<>=!~\[]*[/\\]", logical) or " @ " in logical:
            # a URL, or a path (a name has no slash: `submodules/simple-knn` is a folder)
            out.append(Pin(path, start, logical, skipped="a URL or a path, not a version pin"))
        else:
            out.append(Pin(path, start, re.sub(r"\s+--hash[= ]\S+", "", logical).strip()))
        logical = ""
    return out


def conda_to_pep508(spec: str) -> Tuple[Optional[str], Optional[str]]:
    """A conda match spec (``pytorch=2.5.1=py3.11_cuda12.1_0``, ``conda-forge::pytorch>=2.5``,
    ``tensorflow 2.15.*``) -> (PEP 508 text, None), or (None, why it is not one of the frameworks' pins)."""
    s = spec.strip().strip("'\"")
    s = s.split("::", 1)[-1]
    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$", s)
    if not m:
        return None, "not a conda package spec"
    name, rest = m.group(1).lower(), m.group(2).strip().replace(" ", "")
    if name == "python":  # the environment's Python: the machine the pins are checked for
        v = re.match(r"^==?([0-9]+\.[0-9]+)", rest)
        return (f"python=={v.group(1)}", None) if v else (None, "a Python range, not one version")
    if name not in CONDA_NAMES:
        return None, "not a framework (only torch, torchvision, torchaudio, tensorflow and jax are checked)"
    pypi = CONDA_NAMES[name]
    if pypi is None:
        return None, "pytorch-cuda selects a CUDA variant; the pytorch pin beside it is what is checked"
    if not rest:
        return pypi, None
    version_re = r"[0-9][0-9A-Za-z.*+!]*"
    if rest.startswith("=="):  # exact; a build string may follow after another '='
        version = rest[2:].split("=", 1)[0]
        op = "=="
    elif rest.startswith("="):  # conda's fuzzy '=': 2.5 means 2.5.*
        version = rest[1:].split("=", 1)[0]
        op = "=="
        if "*" not in version:
            version += ".*"
    elif rest[0] in "<>!~":
        return (pypi + rest, None) if re.fullmatch(r"[<>!~=]{1,2}" + version_re + r"(,[<>!~=]{1,2}" + version_re + ")*",
                                                    rest) else (None, f"cannot read the version of {spec!r}")
    else:  # "tensorflow 2.15.*" (a space, removed above)
        version, op = rest.split("=", 1)[0], "=="
    if not re.fullmatch(version_re, version):
        return None, f"cannot read the version of {spec!r}"
    return f"{pypi}{op}{version}", None


def _environment_yml(path: str, text: str) -> List[Pin]:
    """The ``dependencies:`` list (conda specs) and its ``- pip:`` list (PEP 508), read line by line (no
    YAML parser at run time): the block sequences conda's own files use."""
    out: List[Pin] = []
    in_deps, in_pip, deps_indent, pip_indent = False, False, -1, -1
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if re.match(r"^dependencies\s*:\s*$", line):
            in_deps, in_pip, deps_indent = True, False, -1
            continue
        if indent == 0 and not line.lstrip().startswith("-"):
            in_deps = in_pip = False
            continue
        if not in_deps:
            continue
        item = re.match(r"^(\s*)-\s*(.*)$", line)
        if not item:
            continue
        if in_pip and len(item.group(1)) > pip_indent:
            out += [Pin(path, n, p.text, p.skipped) for p in _requirements(path, item.group(2))]
            continue
        in_pip = False
        if deps_indent < 0:
            deps_indent = len(item.group(1))
        body = item.group(2).strip()
        if re.match(r"^pip\s*:\s*$", body):
            in_pip, pip_indent = True, len(item.group(1))
            continue
        pep, why = conda_to_pep508(body)
        out.append(Pin(path, n, pep) if pep else Pin(path, n, body, skipped=why))
    return out


def _pyproject(path: str, raw: bytes) -> List[Pin]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python < 3.11
        import tomli as tomllib
    from envcheck.errors import UsageError

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not a TOML file ({exc})") from exc
    project: Any = data.get("project") if isinstance(data.get("project"), dict) else {}
    lists: List[Any] = [project.get("dependencies") or []]
    lists += list((project.get("optional-dependencies") or {}).values())
    groups = data.get("dependency-groups") if isinstance(data.get("dependency-groups"), dict) else {}
    lists += list(groups.values())
    out: List[Pin] = []
    for lst in lists:
        for req in lst if isinstance(lst, list) else []:
            if isinstance(req, str):
                out.append(Pin(path, 0, req.strip()))
    return out


def read_pins(path: str) -> List[Pin]:
    """The pins of one file, by its name: ``*.toml`` is a pyproject, ``*.yml`` / ``*.yaml`` a conda
    environment, anything else pip's requirements format. A usage error when it cannot be read."""
    from envcheck.errors import UsageError
    from envcheck.safe_io import FileTooLarge, describe_error, read_bytes

    try:  # only a regular file: a FIFO or /dev/zero is refused, never waited on or read for ever
        raw = read_bytes(path, MAX_BYTES, strict=True)
    except FileTooLarge:
        raise UsageError(f"{path}: larger than {MAX_BYTES >> 20} MiB; not a dependency file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {describe_error(exc)}") from exc
    base = os.path.basename(path).lower()
    if base.endswith(".toml"):
        return _pyproject(path, raw)
    text = raw.decode("utf-8", "replace")
    if base.endswith((".yml", ".yaml")):
        return _environment_yml(path, text)
    return _requirements(path, text)
