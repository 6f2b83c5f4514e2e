"""``envcheck fix --check-pins FILE...`` (the pre-commit hook): can the framework pins of a project's
dependency files work together on the target machine?

The pins come from :mod:`envcheck.parse.pins`; the answer is the plan's (:func:`envcheck.plan.resolve.resolve`),
so it is the one `fix`, `status` and `matrix why` give: no rule is decided here. A pinned CUDA variant
(``torch==2.5.1+cu121``) is checked as that build (:func:`envcheck.engine.evaluate`).

The machine: a snapshot's, else the one the options describe (``--driver``, ``--gpu`` / ``--cc``,
``--python``, ``--platform``); without ``--driver`` the newest driver branch the matrix knows is assumed
(the question is whether the pins can work at all on an up-to-date GPU machine), and the notes say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from envcheck.errors import UsageError
from envcheck.matrix import Matrix
from envcheck.model import Environment
from envcheck.parse.pins import Pin
from envcheck.plan.resolve import Plan, Want, resolve, target_from_env

__all__ = ["PinCheck", "check_pins", "FRAMEWORK_NAMES"]

#: PyPI names -> the framework they pin; None: read but not a framework pin of its own
FRAMEWORK_NAMES: Dict[str, Optional[str]] = {
    "torch": "torch", "pytorch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio",
    "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "jax": "jax",
    "tensorflow-cpu": None, "jaxlib": None, "jax-cuda12-plugin": None, "jax-cuda13-plugin": None,
    "jax-cuda12-pjrt": None, "jax-cuda13-pjrt": None,
}


@dataclass
class PinCheck:
    plan: Optional[Plan]  # None when no framework is pinned
    pins: List[Pin]  # the framework pins read
    notes: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)  # besides an unsatisfiable plan

    #: where the machine's platform is not known (no --platform, no python.json naming its platform and machine):
    #: the platforms the pins were checked on, each with whether they can work there (None: it was known)
    platforms: Optional[Dict[str, bool]] = None

    @property
    def ok(self) -> bool:
        return not self.problems and (self.plan is None or self.plan.satisfiable)

    @property
    def platform_unknown(self) -> bool:
        """The pins work on some of the platforms checked and not on others: whether they work here is unknown."""
        return bool(self.platforms) and len(set(self.platforms.values())) > 1  # type: ignore[union-attr]


#: the platforms a CUDA build of the pinned frameworks is published for (``envcheck fix --platform``'s choices),
#: each checked where the machine's platform is not known
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64")


def platform_known(env: Environment) -> bool:
    """Whether the Environment names its platform and its machine (python.json's ``platform`` and ``machine``)."""
    return bool(env.python.platform and env.python.machine)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _where(p: Pin) -> str:
    return f"{p.file}:{p.line}" if p.line else p.file


@dataclass
class _Read:
    """What the pins say, gathered pin by pin (:func:`_read_pin`)."""

    python: Optional[str]
    notes: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    read: List[Pin] = field(default_factory=list)
    specs: Dict[str, Tuple[Any, Set[str], List[str]]] = field(default_factory=dict)  # fw -> (spec, extras, texts)
    variants: List[Tuple[str, str, str, Pin]] = field(default_factory=list)  # (framework, version, variant, pin)


def check_pins(matrix: Matrix, env: Environment, pins: Sequence[Pin], *, python: Optional[str] = None,
               driver: Optional[str] = None, gpus: Sequence[str] = (), ccs: Sequence[str] = (),
               platform: Optional[str] = None, assume_driver: bool = True) -> PinCheck:
    """The pins' plan on the machine. Where its platform is not known, the pins are checked on each of
    :data:`PLATFORMS` (never one of them assumed): the result says on which they can work."""
    kw = dict(python=python, driver=driver, gpus=gpus, ccs=ccs, assume_driver=assume_driver)
    if platform or platform_known(env):
        return _check_pins_on(matrix, env, pins, platform=platform, **kw)  # type: ignore[arg-type]
    each = {p: _check_pins_on(matrix, env, pins, platform=p, **kw) for p in PLATFORMS}  # type: ignore[arg-type]
    first = each[PLATFORMS[0]]
    if first.plan is None:
        return first
    fits = [p for p, r in each.items() if r.ok]
    res = each[fits[0]] if fits else first
    res.platforms = {p: r.ok for p, r in each.items()}
    why = "no --platform, and no python.json naming its platform and machine"
    unconfirmed = [p for p in fits if _unconfirmed(each[p])]
    said = ", ".join(p + (" (not confirmed by the matrix)" if p in unconfirmed else "") for p in fits)
    if fits and len(fits) < len(PLATFORMS):
        fails = "; ".join(f"{p}: {each[p].plan.reason or '; '.join(each[p].problems)}"  # type: ignore[union-attr]
                          for p in PLATFORMS if p not in fits)
        note = (f"the platform is not known ({why}): these pins can work on {said} (the plan shown is "
                f"{fits[0]}'s) and not on the others ({fails}); give --platform to check yours")
    elif fits:
        note = f"the platform is not known ({why}): these pins can work on each of {said}"
    else:
        note = (f"the platform is not known ({why}): these pins can work on none of {', '.join(PLATFORMS)} (the "
                f"plan shown is {PLATFORMS[0]}'s)")
    if res.plan is not None:
        res.plan.notes = [n for n in res.plan.notes if not n.startswith("the platform is not known")] + [note]
    return res


def _unconfirmed(res: PinCheck) -> bool:
    """A plan whose builds the matrix does not confirm for its platform (engine: "not confirmed by the matrix")."""
    return res.plan is not None and any("not confirmed by the matrix" in u for v in res.plan.verdicts for u in v.unknown)


def _check_pins_on(matrix: Matrix, env: Environment, pins: Sequence[Pin], *, python: Optional[str],
                   driver: Optional[str], gpus: Sequence[str], ccs: Sequence[str], platform: Optional[str],
                   assume_driver: bool) -> PinCheck:
    acc = _Read(python)
    for p in pins:
        _read_pin(matrix, env, p, platform, acc)
    notes, problems, python = acc.notes, acc.problems, acc.python
    if not acc.specs:
        return PinCheck(None, acc.read, notes, problems)
    wants = [Want(name=fw, spec=s, text=f"{fw}{s}" if str(s) else fw, extras=tuple(sorted(e)))
             for fw, (s, e, _texts) in acc.specs.items()]
    if driver is None and assume_driver:
        newest = matrix.newest_driver(windows=(platform or "").startswith("windows"))
        if newest is not None:
            driver = str(newest)
            notes.append(f"driver {driver} assumed (the newest driver branch the matrix knows); give --driver "
                         "VERSION or --snapshot to check for your machines")
    target = target_from_env(env, matrix, python=python, driver=driver, ccs=ccs, gpus=gpus, platform=platform)
    if driver is None and assume_driver:  # no driver branch of this platform in the matrix: unknown, not absent
        import dataclasses

        target = dataclasses.replace(target, driver_captured=False)
        notes.append(f"no driver assumed: the matrix lists no driver branch for {platform or target.platform}; "
                     "give --driver VERSION or --snapshot to check the driver")
    try:
        plan = resolve(matrix, target, wants, require_gpu=True)
    except UsageError as exc:
        raise UsageError(f"--check-pins: {exc}") from exc
    problems += _variant_problems(matrix, target, acc.variants)
    if plan.satisfiable and len(plan.builds) > 1:
        notes += _other_variant_notes(plan, acc.variants)
    return PinCheck(plan, acc.read, notes, problems)


def _other_variant_notes(plan: Plan, variants: Sequence[Tuple[str, str, str, Pin]]) -> List[str]:
    """A pinned variant other than the one the plan fits the others with (torch+cu118 beside jax[cuda12]):
    said, not failed (the planner prefers one build; the pinned one may pair as well)."""
    chosen = {b.framework: (b.variant or "").lower() for b in plan.builds}
    notes = []
    for fw, _version, variant, p in variants:
        base = "torch" if fw in ("torchvision", "torchaudio") else fw
        if base in chosen and chosen[base] != variant:
            notes.append(f"{_where(p)}: {p.text}: the plan fits the other pins with the {chosen[base]} build "
                         f"of {base}, not {variant}: check the pair with `envcheck fix --want ...` before "
                         "relying on it")
    return notes


def _read_pin(matrix: Matrix, env: Environment, p: Pin, platform: Optional[str], acc: _Read) -> None:
    """One pin into ``acc``: a framework requirement to check, a note on why it is not checked, or a problem."""
    from packaging.requirements import InvalidRequirement, Requirement

    if p.skipped:
        first = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", p.text)
        if first and _norm(first.group(1)) in FRAMEWORK_NAMES:  # a framework line not read: said, not dropped
            acc.notes.append(f"{_where(p)}: {p.text}: {p.skipped}: not checked")
        return
    pv = re.fullmatch(r"python==([0-9]+\.[0-9]+)", p.text)
    if pv:  # environment.yml's python=3.11: the Python to check for, unless --python says otherwise
        if acc.python is None:
            acc.python = pv.group(1)
            acc.notes.append(f"{_where(p)}: Python {acc.python} (the environment's)")
        return
    try:
        r = Requirement(p.text)
    except InvalidRequirement as exc:
        name = _norm((re.match(r"\s*([A-Za-z0-9._-]+)", p.text) or [""])[0].strip() or "?")
        if name in FRAMEWORK_NAMES:
            acc.problems.append(f"{_where(p)}: {p.text!r} is not a PEP 508 requirement ({exc})")
        return
    name = _norm(r.name)
    if name not in FRAMEWORK_NAMES:
        return
    fw = FRAMEWORK_NAMES[name]
    why_not = _not_checked(matrix, env, p, r, fw, platform, acc)
    if why_not is not None:
        acc.notes.append(why_not)
        return
    assert fw is not None  # _not_checked said why for a pin that follows its framework
    acc.read.append(p)
    _add_spec(fw, r, p, acc)


def _not_checked(matrix: Matrix, env: Environment, p: Pin, r: Any, fw: Optional[str], platform: Optional[str],
                 acc: _Read) -> Optional[str]:
    """Why a framework requirement is not checked (None: it is); a marker that holds is noted in ``acc``."""
    if fw is None:
        return f"{_where(p)}: {r.name} follows its framework's pin (not checked on its own)"
    if r.url:
        return f"{_where(p)}: {r.name} from a URL is not checked"
    if r.marker is not None:
        here = platform or _env_platform(env)
        holds = _marker_holds(r.marker, here, acc.python)
        if holds is False:  # a pin for another platform (or Python): not this machine's
            return (f"{_where(p)}: {p.text}: its marker does not hold on {here}"
                    + (f", Python {acc.python}" if acc.python else "") + ": not checked here")
        acc.notes.append(f"{_where(p)}: {p.text}: " + ("its marker holds here" if holds else
                                                       "checked without its marker"))
    unlisted = _unlisted_pin(matrix, fw, r.specifier)
    if unlisted:  # a nightly or a release newer than the matrix: whether it works is not known
        return f"{_where(p)}: {p.text}: {unlisted}, so whether it works is not known: not checked"
    return None


def _add_spec(fw: str, r: Any, p: Pin, acc: _Read) -> None:
    """The requirement's specifier joined to the framework's (a pinned local variant kept apart)."""
    from packaging.specifiers import SpecifierSet

    spec_texts = []
    for s in r.specifier:
        local = s.version.split("+", 1)
        if s.operator in ("==", "===") and len(local) == 2:  # torch==2.5.1+cu121: the variant is pinned
            acc.variants.append((fw, local[0], local[1].lower(), p))
            spec_texts.append(f"=={local[0]}")
        else:
            spec_texts.append(str(s))
    spec = SpecifierSet(",".join(spec_texts))
    old = acc.specs.get(fw)
    extras = set(r.extras) | (old[1] if old else set())
    acc.specs[fw] = ((old[0] & spec) if old else spec, extras, (old[2] if old else []) + [p.text])


def _unlisted_pin(matrix: Matrix, fw: str, spec: Any) -> Optional[str]:
    """Why an exact pin (``torch==2.7.0.dev20250226+cu128``) names a release the matrix does not list because it is a
    pre-release / nightly or newer than the matrix (engine.freshness.not_in_matrix); None otherwise (an old unlisted
    release is judged as before: the plan says that no listed build matches)."""
    from packaging.version import InvalidVersion, Version

    from envcheck.engine.freshness import not_in_matrix

    exact = [x.version for x in spec if x.operator in ("==", "===") and "*" not in x.version]
    if len(exact) != 1:
        return None
    version = exact[0].split("+", 1)[0]
    if fw in ("torchvision", "torchaudio"):  # their own numbers: only a pre-release is known to be unlisted
        try:
            pre = Version(version).is_prerelease
        except InvalidVersion:
            return None
        return f"{fw} {version} is a pre-release or development build, which the matrix does not list" if pre else None
    got = not_in_matrix(matrix, fw, version)
    if got is None or got[0] == "unlisted":
        return None
    return f"{fw} {version} is {got[1]}"


def _env_platform(env: Environment) -> str:
    """The platform a snapshot describes (linux-x86_64 when it does not say), as the planner names it."""
    plat = (env.python.platform or "linux").lower()
    mach = {"amd64": "x86_64", "arm64": "aarch64"}.get((env.python.machine or "x86_64").lower(),
                                                       (env.python.machine or "x86_64").lower())
    if plat.startswith("win"):
        return f"windows-{mach}"
    if plat.startswith(("darwin", "mac")):
        return f"macos-{mach}"
    return f"linux-{mach}"


def _marker_holds(marker: Any, platform: str, python: Optional[str]) -> Optional[bool]:
    """Whether a requirement's environment marker (``sys_platform == "win32"``) holds on the target platform and
    Python; None when it asks what the target does not tell (the Python version when it is not given, or any
    other variable). packaging would fill a missing variable from the Python running envcheck: never used."""
    from packaging.markers import UndefinedComparison, UndefinedEnvironmentName

    system, _, machine = platform.partition("-")
    env = {"linux": ("linux", "Linux", "posix"), "windows": ("win32", "Windows", "nt"),
           "macos": ("darwin", "Darwin", "posix")}.get(system)
    if env is None:
        return None
    text = str(marker)
    names = set(re.findall(r"\b(python_full_version|python_version|implementation_name|platform_python_"
                           r"implementation|implementation_version|platform_release|platform_version|extra|"
                           r"sys_platform|platform_system|os_name|platform_machine)\b", text))
    known = {"sys_platform", "platform_system", "os_name", "platform_machine"} | (
        {"python_version", "python_full_version"} if python else set())
    if not names or names - known:
        return None
    win_machine = {"x86_64": "AMD64", "aarch64": "ARM64"}.get(machine, machine)
    mac_machine = {"aarch64": "arm64"}.get(machine, machine)
    values = {"sys_platform": env[0], "platform_system": env[1], "os_name": env[2],
              "platform_machine": win_machine if system == "windows" else mac_machine if system == "macos" else machine,
              "python_version": python or "", "python_full_version": (python + ".0") if python else "",
              "implementation_name": "cpython", "platform_python_implementation": "CPython",
              "implementation_version": (python + ".0") if python else "", "platform_release": "",
              "platform_version": "", "extra": ""}
    try:
        return bool(marker.evaluate(values))
    except (UndefinedComparison, UndefinedEnvironmentName, ValueError, TypeError):
        return None


def _variant_problems(matrix: Matrix, target: Any, variants: List[Tuple[str, str, str, Pin]]) -> List[str]:
    """A pinned variant (torch==2.5.1+cu121) that does not run on the target, or does not exist."""
    from envcheck.engine import Status, evaluate
    from envcheck.engine.builds import builds_for

    out: List[str] = []
    for fw, version, variant, p in variants:
        builds = [b for b in builds_for(matrix, f"{fw}=={version}", target.platform)
                  if (b.variant or "").lower() == variant]
        if not builds:
            out.append(f"{_where(p)}: {p.text}: the matrix knows no {variant} build of {fw} {version}")
            continue
        v = evaluate(matrix, builds[0], target)
        if v.status == Status.NO:
            failed = list(getattr(v, "failed", {}).values())
            why = "; ".join(str(x) for x in (failed or v.lines)[:3]) or "it does not run there"
            out.append(f"{_where(p)}: {p.text}: {builds[0].label} does not run on this machine: {why}")
    return out
