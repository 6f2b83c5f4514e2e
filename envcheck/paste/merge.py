"""Fold the readers' :class:`~envcheck.paste.readers.base.Partial` results into one :class:`Merged` view.

The merge order (docs/explain.md, "How a paste is read"): the partials are folded **in the order of the text**
(the order the segmenter of :mod:`envcheck.paste.sections` met their lines), and each fact merges by its field:

* a field ending in ``!`` (``nvcc!``: nvcc's own output; ``torch.hip!``; ``jax.devices!``) **replaces** the
  value before it: a tool's own output beats a value derived from another report;
* the list fields (:data:`LISTS`: ``format``, ``smi``, ``ld``, ``cudnn_loaded``, ``gpu_works``, ``gpu_fails``,
  ``pip_install``, ``note``: what could not be read, said as unknown; ``ran``: a tool's command line; ``gpu_prose``: a
  GPU model named in a sentence) **append**;
* ``gpu`` (index, name, compute capability, memory MiB[, gfx]) fills each part of GPU *index* once (a GPU whose
  name is not printed but whose compute capability is, is kept with an unknown name); ``gpu.named``
  (name, compute capability: a warning that names a GPU but not its index) adds the capability to the listed GPU
  of that name, or is GPU 0 when no GPU is listed yet; ``package`` (name, version, build) keeps the first row of a
  relevant package, a conda build string completing a plain row of the same version, and no version at all once
  a row of another version of it is read (two installs shown, before and after: which one is there is not
  certain); ``package.fetched`` (a wheel pip
  fetched) stands for the package only until a ``package`` row of it arrives, and not at all once pip fetched a
  second version of it (it was resolving) or ``pip_failed`` (pip's ERROR for the install: nothing was installed);
* ``vgpu`` (index, name, vendor, gfx, source[, device id]: an AMD / Intel GPU, contract §9) fills each part of GPU *index* of
  :attr:`Merged.vgpus` once, apart from NVIDIA's ``gpus``;
* ``python.tf`` (a "### Python version" heading) counts only once a TensorFlow template was read;
* ``python_path`` (the Python of an install path) keeps the first, and is unknown once another path names another
  Python;
* ``tf.version`` keeps the first value, but a later one that makes it more precise replaces it (``2.18`` then
  ``2.18.0``: the same release, said in full; :func:`refines`); one that contradicts it does not;
* ``torch.version`` keeps the first value, made more precise by a later one of the same release (``2.1.0`` then
  ``2.1.0+cu121``), and is unknown once another release, or another build of the release (``+cu124`` then ``+cu121``),
  is shown (noted: which one ran is not certain);
* ``seen:<what>`` keeps the first line that showed *what* (the evidence explain quotes), but ``seen:resolution`` keeps
  every resolution the thread states (up to :data:`RESOLUTIONS`, one a line of ``lines["resolution"]``);
* every other field keeps **the first value read** (an earlier report in the text wins over a later one).

Only this module changes the merged view; the readers see nothing but their own lines.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from envcheck.paste.readers.base import RELEVANT, Fact, Partial, norm

__all__ = ["Merged", "merge", "LISTS", "refines"]

LISTS = ("format", "smi", "ld", "cudnn_loaded", "gpu_works", "gpu_fails", "pip_install", "note", "ran", "gpu_prose",
         "tool", "pci", "torch_release_prose", "gpu_series_prose")


#: at most this many resolutions of one thread are kept (a long thread restating fixes says nothing more)
RESOLUTIONS = 8

_VERSION_TAIL = re.compile(r"^\.\d+(?:\.\d+)*(?:[a-z]+\d*)?(?:\+[\w.]+)?$")


def refines(old: Optional[str], new: Optional[str]) -> bool:
    """Whether version ``new`` says ``old`` more precisely: ``2.18`` -> ``2.18.0`` / ``2.18.0rc1`` (``old`` followed
    by more components), never ``2.1`` -> ``2.10.0`` nor a contradicting release."""
    if not old or not new or not re.match(r"^\d+(?:\.\d+)*$", old) or len(new) > 40:
        return False
    return new.startswith(old) and bool(_VERSION_TAIL.match(new[len(old):]))


def _cut_of(old: Any, name: str) -> bool:
    """``old`` is ``name`` with its first word cut short (a pasted line that lost its first characters, "VIDIA
    GeForce RTX 5090" beside torch's own "If you want to use the NVIDIA GeForce RTX 5090 GPU" line): the same GPU."""
    if not isinstance(old, str) or " " not in old or len(name) <= len(old) or not name.endswith(old):
        return False
    return not any(ch.isspace() for ch in name[:len(name) - len(old)])


class Merged:
    """The facts of a text after the merge: ``values`` (first-wins and replaced fields), ``lists``, ``gpus``
    (index -> {name, cc, mem, gfx}), ``packages`` (normalised name -> "version[=build]"), ``conda_pypi``,
    ``lines`` (evidence: what -> the first line that showed it)."""

    def __init__(self) -> None:
        self.values: Dict[str, Any] = {}
        self.lists: Dict[str, List[Any]] = {k: [] for k in LISTS}
        self.gpus: Dict[int, Dict[str, Any]] = {}
        #: AMD / Intel / Apple GPUs (contract §9): (vendor, index) -> {name, vendor, gfx}; each vendor's tool numbers
        #: its own GPUs from 0, so an AMD GPU 0 and an Intel GPU 0 of one text are two GPUs
        self.vgpus: Dict[Tuple[str, int], Dict[str, Any]] = {}
        self.packages: Dict[str, str] = {}
        self.conda_pypi: List[str] = []
        self.lines: Dict[str, str] = {}
        self.fetched: Dict[str, Optional[str]] = {}  # packages known only from a fetched wheel (None: not certain)
        self.conflicted: Dict[str, List[str]] = {}  # packages listed with two different versions: unknown

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def prefix(self, head: str) -> Dict[str, Any]:
        """``torch.version`` ... as {"version": ...} for ``head`` "torch"."""
        n = len(head) + 1
        return {k[n:]: v for k, v in self.values.items() if k.startswith(head + ".")}

    @property
    def formats(self) -> List[str]:
        return list(dict.fromkeys(self.lists["format"]))

    # ----------------------------------------------------------------------------------- the fold
    def add(self, fact: Fact) -> None:
        f = fact.field
        if f == "seen:resolution":
            self.resolution(str(fact.value).strip()[:300])
        elif f.startswith("seen:"):
            self.lines.setdefault(f[5:], str(fact.value).strip()[:300])
        elif f in self.lists:
            self.lists[f].append(fact.value)
        elif f.endswith("!"):
            self.values[f[:-1]] = fact.value
        elif f in _SPECIAL:
            _SPECIAL[f](self, fact.value)
        elif fact.value is not None:
            self.values.setdefault(f, fact.value)

    def resolution(self, value: str) -> None:
        """Every resolution of the thread (``WHO | KIND | TEXT``, :mod:`envcheck.paste.readers.resolution`), one a line
        of ``lines["resolution"]``, in the text's order; at most :data:`RESOLUTIONS` (a repeated one once)."""
        have = self.lines.get("resolution")
        got = have.split("\n") if have else []
        if len(got) < RESOLUTIONS and value not in got:
            self.lines["resolution"] = "\n".join(got + [value])

    def tf_version(self, value: Any) -> None:
        if value is None:
            return
        if refines(self.values.get("tf.version"), value):
            self.values["tf.version"] = value
        self.values.setdefault("tf.version", value)

    def gpu(self, value: Sequence[Any]) -> None:
        idx, name, cc, mem = value[:4]
        gfx = value[4] if len(value) > 4 else None
        if not (name or cc) or idx is None or idx < 0 or idx > 1024:
            return  # a GPU is named, or at least its compute capability is known (Paddle's device line)
        d = self.gpus.setdefault(idx, {})
        if name:
            if _cut_of(d.setdefault("name", name), name):
                d["name"] = name
        for k, v in (("cc", cc), ("mem", mem), ("gfx", gfx)):
            if v:
                d.setdefault(k, v)

    def vgpu(self, value: Sequence[Any]) -> None:
        idx, name, vendor, gfx = value[:4]
        dev = value[5] if len(value) > 5 else None  # the PCI device id ("0x744c") where the tool printed it
        # a row of rocm-smi's GPU list, a GPU block of amd-smi list, a GPU of xpu-smi (2.0.1 leaves a B580's name
        # empty): a GPU, even unnamed
        listed = len(value) > 4 and value[4] in ("rocm-smi", "amd-smi list", "xpu-smi")
        if idx is None or idx < 0 or idx > 1024 or not (name or gfx or dev or listed):
            return
        d = self.vgpus.setdefault((str(vendor), idx), {"vendor": vendor})
        for k, v in (("name", name), ("gfx", gfx), ("device_id", dev)):
            if v:
                d.setdefault(k, v)

    def gpu_named(self, value: Sequence[Any]) -> None:
        name, cc = value
        if not name:
            return
        for g in self.gpus.values():
            if _cut_of(g.get("name"), name):
                g["name"] = name
        same = [i for i, g in self.gpus.items() if g.get("name") == name]
        for i in same:
            self.gpus[i].setdefault("cc", cc)
        if not same and not self.gpus:
            self.gpu((0, name, cc, None))

    def package(self, value: Sequence[Any]) -> None:
        name, version, build = value
        n = norm(name)
        if not RELEVANT.match(n):
            return
        if n in self.fetched:  # a package row beats what pip only fetched
            del self.fetched[n]
            self.packages.pop(n, None)
        if self._conflicts(n, version):
            return
        v = version + (f"={build}" if build and not build.startswith(("pypi", "<", "pip")) and build != "pypi_0" else "")
        if build and build.startswith("pypi"):
            self.conda_pypi.append(n)
        if "=" in v and n in self.packages and "=" not in self.packages[n] and self.packages[n] == version:
            self.packages[n] = v  # `[pip3] torch==2.1.0` then `[conda] pytorch 2.1.0 py3.9_cuda12.1_...`: keep the build
        self.packages.setdefault(n, v)

    def _conflicts(self, n: str, version: str) -> bool:
        """Whether package ``n`` at ``version`` contradicts a row read before (another release, not the same one
        with or without its local ``+cu121`` label): the package then has no version (which one is installed is not
        certain)."""
        if n in self.conflicted:
            self.conflicted[n].append(version)
            return True
        old = self.packages.get(n)
        if old is None or n in self.fetched:
            return False
        o, v = old.split("=")[0].split("+")[0], version.split("+")[0]
        if o == v:
            return False
        self.conflicted[n] = [old.split("=")[0], version]
        del self.packages[n]
        return True

    def package_fetched(self, value: Sequence[Any]) -> None:
        name, version, _build = value
        n = norm(name)
        if not RELEVANT.match(n) or (n in self.packages and n not in self.fetched):
            return  # a package row of it came first
        if n in self.fetched and self.fetched[n] != version:
            self.fetched[n] = None  # a second version fetched (pip backtracking) or pip failed: which one, if any, is not known
            self.packages.pop(n, None)
            return
        self.fetched[n] = version
        self.packages[n] = version

    def pip_failed(self, _value: Any) -> None:
        for n, v in self.fetched.items():
            if v is not None:
                self.fetched[n] = None
                self.packages.pop(n, None)

    def python_path(self, value: Any) -> None:
        """The Python of install paths: unknown (removed) once two paths name different Pythons (a venv's and the
        system's, two environments): which one ran is not certain."""
        old = self.values.get("python_path")
        if old is None and "python_path" not in self.conflicted:
            self.values["python_path"] = value
        elif old is not None and old != value:
            self.conflicted["python_path"] = [old, value]
            del self.values["python_path"]

    def python_prose(self, value: Any) -> None:
        """A Python version a sentence states: unknown (removed) once another sentence states another."""
        old = self.values.get("python_prose")
        if old is None and "python_prose" not in self.conflicted:
            self.values["python_prose"] = value
        elif old is not None and refines(str(old), str(value)):
            self.values["python_prose"] = value  # "Python 3.8" then "python 3.8.10": the same, said in full
        elif old is not None and old != value and not refines(str(value), str(old)):
            self.conflicted["python_prose"] = [old, value]
            del self.values["python_prose"]

    def torch_version(self, value: Any) -> None:
        """The torch in use: the first value, made more precise by a later one of the same release (``2.1.0`` then
        ``2.1.0+cu121``); unknown (removed, noted) once another release is shown (a template's typed version and the
        one a log prints, before and after an upgrade): which one ran is not certain."""
        if not value:
            return
        if "torch" in self.conflicted:
            self.conflicted["torch"].append(value)
            return
        old = self.values.get("torch.version")
        if old is None or old == value:
            self.values["torch.version"] = value
        elif str(old).split("+")[0] == str(value).split("+")[0]:
            if "+" not in str(old):
                self.values["torch.version"] = value  # the same release, now with its local label
            elif "+" in str(value):
                # two builds of one release ("2.6.0+cu124", then "2.6.0+cu121": both tried, facts22): which ran is not
                # certain either
                self.conflicted["torch"] = [old, value]
                del self.values["torch.version"]
        elif refines(str(old), str(value)):
            self.values["torch.version"] = value
        elif not refines(str(value), str(old)):
            self.conflicted["torch"] = [old, value]
            del self.values["torch.version"]

    def tf_cuda_build(self, value: Any) -> None:
        """TensorFlow's own "built with CUDA?" answer: unknown (removed, noted) once the text shows both answers (a
        paste of before and after a reinstall, two environments): which binary ran is not certain."""
        if value is None or "tf.build.is_cuda_build" in self.conflicted:
            return
        old = self.values.get("tf.build.is_cuda_build")
        if old is None:
            self.values["tf.build.is_cuda_build"] = value
        elif old != value:
            self.conflicted["tf.build.is_cuda_build"] = [str(old), str(value)]
            del self.values["tf.build.is_cuda_build"]

    def python_tf(self, value: Any) -> None:
        if self.prefix("tf") or "tensorflow template" in self.lists["format"]:
            self.values.setdefault("python", value)


_SPECIAL = {"gpu": Merged.gpu, "vgpu": Merged.vgpu, "gpu.named": Merged.gpu_named, "package": Merged.package,
            "package.fetched": Merged.package_fetched, "pip_failed": Merged.pip_failed, "python.tf": Merged.python_tf,
            "python_path": Merged.python_path, "python_prose": Merged.python_prose,
            "tf.build.is_cuda_build": Merged.tf_cuda_build, "tf.version": Merged.tf_version,
            "torch.version": Merged.torch_version}


def merge(partials: Sequence[Partial], into: Optional[Merged] = None) -> Merged:
    """Fold ``partials`` (in the order of the text) into one :class:`Merged`."""
    m = into if into is not None else Merged()
    for p in partials:
        for fact in p.facts:
            m.add(fact)
    return m
