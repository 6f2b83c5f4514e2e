"""Host, Python and installed-package facts."""

from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

from envcheck import lazyre
from envcheck.environment._common import Caps, s
from envcheck.model import Host, PythonInfo
from envcheck.parse.captures import is_wsl, load_json_object, parse_os_release

__all__ = ["build_host", "build_python", "build_packages"]


def build_host(c: Caps) -> Tuple[Host, Dict[str, str]]:
    """The host facts and the captured environment variables."""
    meta = load_json_object(c.text("meta.json")) or {}
    env_raw = load_json_object(c.text("environ.json")) or {}
    env = {str(k): str(v) for k, v in env_raw.items() if isinstance(v, (str, int, float))}
    osr = parse_os_release(c.text("os-release.txt"))
    wsl = is_wsl(c.text("proc-version.txt"))
    cont = load_json_object(c.text("container.json")) or {}
    container = None
    cgroup = str(cont.get("cgroup", ""))
    if "kubepods" in cgroup or env.get("KUBERNETES_SERVICE_HOST"):
        container = "kubernetes"
    elif cont.get("dockerenv") or "docker" in cgroup:
        container = "docker"
    elif cont.get("containerenv"):
        container = "podman"
    dev = cont.get("dev_nvidia")
    host = Host(hostname=s(meta.get("hostname")), os_name=osr.get("PRETTY_NAME"), wsl=wsl, container=container,
                env=env, dev_nvidia=tuple(x for x in dev if isinstance(x, str)) if isinstance(dev, list) else ())
    return host, env


#: what ``sys.platform`` / ``platform.machine()`` print ("linux", "win32", "darwin"; "x86_64", "AMD64", "arm64"): a
#: value of other characters (a hand-edited or hostile python.json) is unknown, never a platform of its own
_TOKEN = lazyre.compile(r"^[A-Za-z0-9_.-]{1,32}$")


def _token(v: object) -> Optional[str]:
    t = s(v)
    return t if t is not None and _TOKEN.match(t) else None


def build_python(c: Caps) -> PythonInfo:
    """The examined Python, from ``python.json``; a snapshot without that file takes the version a Jetson's
    ``jetson-release.txt`` names (contract §9), with a note saying so - never over anything python.json gives."""
    raw = c.text("python.json")
    jr = c.text("jetson-release.txt") if raw is None else None
    if jr:
        from envcheck.parse.tegra import jetson_release_python  # only a Jetson's snapshot: off the status path

        jp = jetson_release_python(jr)
        if jp is not None:
            c.note(f"Python {jp[0]} is read from jetson-release.txt ({jp[1]}): the snapshot has no python.json. "
                   "Where the framework runs under another Python (a venv, a container), capture python.json with it.")
            return PythonInfo(version=jp[0])
    pj = load_json_object(raw) or {}
    return PythonInfo(version=s(pj.get("version")), implementation=s(pj.get("implementation")),
                      platform=_token(pj.get("platform")), machine=_token(pj.get("machine")), glibc=s(pj.get("glibc")),
                      executable=s(pj.get("executable")))


# the distributions whose version status reads (a value that is not a version is said, not shown as one)
_NOTED_VERSIONS = frozenset(("torch", "tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel",
                             "jax", "jaxlib", "cupy"))


def build_packages(c: Caps) -> Dict[str, str]:
    """``{normalized distribution name: version}`` of ``packages.json`` (PEP 503 names: lower case, runs of
    ``-_.`` as one ``-``, so a hand-written ``Torch`` or ``jax_cuda12_plugin`` is found too)."""
    pk = load_json_object(c.text("packages.json")) or {}
    out: Dict[str, str] = {}
    for k, v in pk.items():
        if isinstance(v, str):
            name = re.sub(r"[-_.]+", "-", str(k)).lower()
            if name in _NOTED_VERSIONS and v.strip() and not re.match(r"[vV]?[0-9]", v.strip()):
                c.note(f"packages.json gives {name} the version {v.strip()[:40]!r}, which is not a version: {name}'s "
                       "version is unknown (supply the real one, e.g. from `pip list --format json`).")
            out.setdefault(name, v.strip())
    return out
