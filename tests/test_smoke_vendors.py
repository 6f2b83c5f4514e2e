"""`envcheck smoke` on ROCm, XPU and MPS builds (contract §9, issue item 7), end to end through the real child process,
with a fake ``torch`` package on PYTHONPATH (no AMD, Intel or Apple GPU here): the device the build offers is picked
(``cuda:0`` through HIP on ROCm, ``xpu:0``, ``mps``), the report names the backend and, on ROCm, the gfx target;
``--device`` insists on one device and fails, naming why, when the build has no such device. The fake's tensor ops
are placeholders, so the numeric steps after ``device`` fail: only the selection and its reporting are tested."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAKE_TORCH = '''"""A fake torch: a ROCm, XPU or MPS build per FAKE_TORCH_KIND (envcheck smoke tests; not the real framework)."""
import os
import types

_KIND = os.environ.get("FAKE_TORCH_KIND", "rocm")
__version__ = {"rocm": "2.5.1+rocm6.2", "xpu": "2.7.1+xpu", "mps": "2.5.1"}[_KIND]


class _Any:
    def __init__(self, path):
        self._path = path

    def __getattr__(self, name):
        return _Any(self._path + "." + name)

    def __call__(self, *a, **k):
        return _Any(self._path + "()")

    def __iter__(self):
        return iter(())


def __getattr__(name):
    return _Any(name)


version = types.SimpleNamespace(cuda=None, hip="6.2.41133-dd7f95766" if _KIND == "rocm" else None,
                                xpu="20250101" if _KIND == "xpu" else None)
cuda = types.SimpleNamespace(is_available=lambda: _KIND == "rocm", device_count=lambda: 1,
                             get_device_name=lambda i: "AMD Radeon RX 7900 XTX",
                             get_device_capability=lambda i: (11, 0), synchronize=lambda: None,
                             get_device_properties=lambda i: types.SimpleNamespace(gcnArchName="gfx1100"))
xpu = types.SimpleNamespace(is_available=lambda: _KIND == "xpu", device_count=lambda: 1, synchronize=lambda: None,
                            get_device_name=lambda i: "Intel(R) Arc(TM) A770 Graphics")
mps = types.SimpleNamespace(synchronize=lambda: None)
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 3001000 if _KIND == "rocm" else None),
                                 mps=types.SimpleNamespace(is_built=lambda: _KIND == "mps",
                                                           is_available=lambda: _KIND == "mps"))


def ones(*a, **k):
    return _Any("ones()")
'''


@pytest.fixture
def fake_torch(tmp_path):
    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(FAKE_TORCH)
    return str(tmp_path)


def _smoke(path, kind, *args):
    env = dict(os.environ, FAKE_TORCH_KIND=kind, PYTHONPATH=os.pathsep.join((path, ROOT)))
    r = subprocess.run([sys.executable, "-m", "envcheck", "smoke", "--framework", "torch", *args], capture_output=True,
                       text=True, env=env, timeout=120)
    return r


@pytest.mark.parametrize("kind,device,backend,gfx,gpu", [
    ("rocm", "cuda:0", "rocm", "gfx1100", "AMD Radeon RX 7900 XTX"),
    ("xpu", "xpu:0", "xpu", None, "Intel(R) Arc(TM) A770 Graphics"),
    ("mps", "mps", "mps", None, "Apple MPS"),
])
def test_auto_picks_the_device_the_build_offers(fake_torch, kind, device, backend, gfx, gpu):
    r = _smoke(fake_torch, kind, "--json")
    fw = json.loads(r.stdout)["frameworks"][0]
    assert (fw["device"], fw["backend"], fw.get("gfx"), fw["gpus"]) == (device, backend, gfx, [gpu])
    steps = {s["name"]: s for s in fw["steps"]}
    assert steps["import"]["passed"] and steps["device"]["passed"]
    assert r.returncode == 1  # the placeholder tensors fail the numeric steps: never reported as a pass


def test_text_report_names_the_rocm_target(fake_torch):
    out = _smoke(fake_torch, "rocm").stdout
    assert "ROCm/HIP 6.2.41133" in out and "device cuda:0 gfx1100" in out


@pytest.mark.parametrize("kind,asked", [("rocm", "xpu"), ("xpu", "mps"), ("mps", "cuda")])
def test_asking_for_a_device_the_build_lacks_fails_and_says_why(fake_torch, kind, asked):
    r = _smoke(fake_torch, kind, "--device", asked, "--json")
    fw = json.loads(r.stdout)["frameworks"][0]
    dev = {s["name"]: s for s in fw["steps"]}["device"]
    assert not dev["passed"] and f"no {asked} device visible to torch" in (dev["error"] or "")
    assert fw["device"] == "cpu" and r.returncode == 1
