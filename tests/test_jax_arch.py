"""JAX's CUDA architecture lists (compat_matrix/jax.toml compute_capabilities_cudaNN / ptx_cudaNN) and the engine's use
of them: candidate builds (fix, matrix why) and the installed build (status).

Facts typed by hand here, never read back from the matrix:
* tests/data/jax-wheel-arch/readings.txt: the SASS / PTX targets of 24 jax CUDA plugin wheels from PyPI, read with
  cuobjdump (scripts/wheel_cuda_arch.py); the matrix rows that name a wheel in arch_wheels must equal its reading.
* JAX install docs (jax-ml/jax@a1521744c6dc074443fe549f19f48d7197abf759:docs/installation.md): "On CUDA 12, JAX supports
  NVIDIA GPUs that have SM version 5.2 (Maxwell) or newer"; "On CUDA 13, JAX supports NVIDIA GPUs that have SM version
  7.5 or newer".
* jax-ml/jax CHANGELOG.md: jaxlib 0.4.4 "Support for NVIDIA Kepler series GPUs has been removed from the default jaxlib
  builds"; jaxlib 0.4.12 "Includes PTX/SASS for Hopper (SM version 9.0+) GPUs. Previous versions of jaxlib should work
  on Hopper but would have a long JIT-compilation delay" (i.e. Hopper through PTX before 0.4.12).
* NVIDIA: CUDA 13.0 dropped offline compilation for Maxwell, Pascal and Volta (compute capability < 7.5).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

import pytest
from packaging.version import Version

import oracle
from helpers import gpu_machine, make_snapshot, status_json

from envcheck.engine import Machine, evaluate
from envcheck.engine.builds import installed_build, jax_builds, jax_release_row
from envcheck.matrix import Matrix, bundled_dir
from envcheck.model import DriverVersion, Framework

M = Matrix(bundled_dir())
READINGS = os.path.join(os.path.dirname(__file__), "data", "jax-wheel-arch", "readings.txt")
ROWS = M.rows("jax", "release")


def _majors(row) -> List[int]:
    return [int(x.strip().split(".")[0]) for x in str(row["cuda"]).split(",")]


def _readings() -> Dict[str, Tuple[List[str], List[str]]]:
    out: Dict[str, Tuple[List[str], List[str]]] = {}
    wheel = None
    for line in open(READINGS, encoding="utf-8"):
        if line.startswith("#"):
            continue
        if line.endswith(".whl\n") and not line.startswith(" "):
            wheel = line.strip()
        m = re.match(r"^  compute_capabilities = \[(.*?)\]  ptx = \[(.*?)\]", line)
        if m and wheel:
            out[wheel] = (re.findall(r"'([\d.]+)'", m.group(1)), re.findall(r"'([\d.]+)'", m.group(2)))
    return out


def _cuda_list(row, major):
    return row.get(f"compute_capabilities_cuda{major}"), row.get(f"ptx_cuda{major}")


def _arch(row, major):
    caps, ptx = _cuda_list(row, major)
    return [f"sm_{c.replace('.', '')}" for c in caps or []] + [f"compute_{c.replace('.', '')}" for c in ptx or []]


# ---------------------------------------------------------------------------------------------------------------
# the data


def test_every_wheel_read_equals_the_rows_that_cite_it():
    readings = _readings()
    assert len(readings) == 24
    cited = 0
    for wheel, (caps, ptx) in readings.items():
        m = re.match(r"^jax_cuda(\d+)_plugin-([\d.]+)-", wheel)
        assert m, wheel
        major, version = int(m.group(1)), m.group(2)
        rows = [r for r in ROWS if r.get("jaxlib") == version]
        assert rows, wheel
        for r in rows:
            assert _cuda_list(r, major) == (caps, ptx), (wheel, r["jax"])
        cited += sum(1 for r in ROWS if wheel in (r.get("arch_wheels") or []))
    assert cited >= 24
    # and every wheel a row cites was read (the pjrt wheel's reading is a comment line in the file)
    text = open(READINGS, encoding="utf-8").read()
    for r in ROWS:
        for w in r.get("arch_wheels") or []:
            assert w in text, (r["jax"], w)


def test_every_cuda_build_of_every_release_has_a_sourced_list():
    for r in ROWS:
        assert r.get("arch_source"), r["jax"]
        for major in _majors(r):
            caps, ptx = _cuda_list(r, major)
            assert caps and ptx is not None, (r["jax"], major)
            assert set(ptx) <= set(caps), r["jax"]  # compute_XY = SASS for XY plus PTX for XY
        for key in r:
            m = re.match(r"^(?:compute_capabilities|ptx)_cuda(\d+)$", key)
            assert not m or int(m.group(1)) in _majors(r), (r["jax"], key)  # no list for a build that does not exist


def test_lists_agree_with_the_install_docs_and_the_changelog():
    for r in ROWS:
        jaxlib = Version(r["jaxlib"])
        for major in _majors(r):
            arch = _arch(r, major)
            if major == 13:
                assert oracle.arch_ok(arch, "7.5") and not oracle.arch_ok(arch, "7.0"), r["jax"]
            if major == 12 and jaxlib >= Version("0.4.26"):
                assert oracle.arch_ok(arch, "5.2"), r["jax"]
            # Kepler left the default builds with jaxlib 0.4.4
            assert oracle.arch_ok(arch, "3.7") is (jaxlib < Version("0.4.4")), r["jax"]
            # Hopper: SASS from jaxlib 0.4.12, PTX (JIT delay) before
            assert oracle.arch_via(arch, "9.0") == (True, "sass" if jaxlib >= Version("0.4.12") else "ptx"), r["jax"]


def test_jax_rows_of_a_shared_jaxlib_have_the_same_lists():
    # jax 0.4.37 / 0.5.2 have no jaxlib of their own: their builds are 0.4.36's / 0.5.1's
    for a, b in (("0.4.37", "0.4.36"), ("0.5.2", "0.5.1"), ("0.4.5", "0.4.4"), ("0.4.8", "0.4.7")):
        ra = next(r for r in ROWS if r["jax"] == a)
        rb = next(r for r in ROWS if r["jax"] == b)
        assert ra["jaxlib"] == rb["jax"]
        for major in _majors(ra):
            assert _cuda_list(ra, major) == _cuda_list(rb, major)


# ---------------------------------------------------------------------------------------------------------------
# the engine: candidate builds


CCS = sorted({r["compute_capability"] for r in M.rows("gpus", "gpu")}, key=lambda c: tuple(map(int, c.split("."))))


def test_every_candidate_build_carries_its_rows_list_and_the_engine_agrees_with_the_oracle():
    builds = jax_builds(M)
    assert builds and all(b.arch for b in builds)
    machine = dict(driver=DriverVersion.parse("580.65.06"), driver_cuda="13.0", python="3.12")
    for b in builds:
        row = next(r for r in ROWS if r["jax"] == b.version)
        major = int(b.variant.replace("cuda", ""))
        arch = _arch(row, major)
        assert list(b.arch) == arch
        for cc in CCS:
            v = evaluate(M, b, Machine(ccs=(cc,), **machine))
            assert ("arch" in v.failed) == (oracle.arch_ok(arch, cc) is False), (b.label, cc, v.failed)
            assert not [u for u in v.unknown if "architecture list" in u], (b.label, cc)


def _why(req: str, *args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "matrix", "why", req, "--json", *args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return {x["build"]["variant"]: x for x in json.loads(r.stdout)["results"]}


def test_matrix_why_maxwell_runs_the_cuda12_plugin_not_the_cuda13_one():
    got = _why("jax==0.11.2", "--gpu", "GeForce GTX 980", "--driver", "580.65.06", "--python", "3.12")
    assert got["cuda13"]["verdict"] == "does-not-run"
    assert any(x.startswith("arch: NO") and "sm_52" in x for x in got["cuda13"]["reasons"])
    assert got["cuda12"]["verdict"] != "does-not-run"
    assert got["cuda12"]["build"]["compute_capabilities"][0] == "5.0"
    assert not any("architecture list" in x for x in got["cuda12"]["reasons"] + got["cuda12"]["missing"])


def test_blackwell_runs_an_old_release_through_ptx_and_a_new_one_through_sass():
    # jax 0.5.3's CUDA 12 build stops at sm_90 + compute_90: an RTX 5090 (12.0) JIT-compiles the PTX
    row = next(r for r in ROWS if r["jax"] == "0.5.3")
    assert oracle.arch_via(_arch(row, 12), "12.0") == (True, "ptx")
    row = next(r for r in ROWS if r["jax"] == "0.11.2")
    assert oracle.arch_via(_arch(row, 12), "12.0") == (True, "sass")
    assert oracle.arch_via(_arch(row, 13), "12.1") == (True, "sass")  # GB10: sm_120 SASS runs on 12.1
    for version in ("0.5.3", "0.11.2"):
        got = _why(f"jax-cuda12-plugin=={version}", "--gpu", "GeForce RTX 5090", "--driver", "570.86.10",
                   "--python", "3.12")
        assert got["cuda12"]["verdict"] == "runs", got["cuda12"]["reasons"]


def test_a_ptx_only_gpu_needs_full_driver_support_of_the_build():
    # the engine's PTX rule applied to jax lists: minor-version compatibility runs SASS, never PTX JIT
    b = next(x for x in jax_builds(M) if x.version == "0.5.3" and x.variant == "cuda12")
    assert b.cuda == "12.1"
    h100_old_driver = Machine(driver=DriverVersion.parse("525.60.13"), driver_cuda="12.0", ccs=("9.0",),
                              python="3.12")
    assert evaluate(M, b, h100_old_driver).ok  # sm_90 SASS: minor-version compatibility is enough
    # jaxlib 0.4.11's list (sm_52 sm_60 sm_70 compute_80 in its .bazelrc) reaches Hopper only through PTX
    b.arch = tuple(_arch(next(r for r in ROWS if r["jax"] == "0.4.11"), 12))
    assert b.arch == ("sm_52", "sm_60", "sm_70", "sm_80", "compute_80")
    v = evaluate(M, b, h100_old_driver)
    assert "driver" in v.failed and "PTX" in v.failed["driver"], v.failed
    full = Machine(driver=DriverVersion.parse("530.30.02"), driver_cuda="12.1", ccs=("9.0",), python="3.12")
    assert evaluate(M, b, full).ok


# ---------------------------------------------------------------------------------------------------------------
# the engine: the installed build


def _fw(**kw) -> Framework:
    base = dict(name="jax", version="0.11.2", distribution="jax", cuda_major=13, cpu_only=False,
                build_info={"jaxlib": "0.11.2", "cuda_plugin": "jax-cuda13-pjrt", "plugin_version": "0.11.2",
                            "cuda_major": 13})
    base.update(kw)
    return Framework(**base)  # type: ignore[arg-type]


def test_installed_plugin_gets_the_list_of_its_own_version_and_major():
    b = installed_build(M, _fw())
    assert b.arch[0] == "sm_75" and "sm_110" in b.arch and b.arch[-1] == "compute_120"
    b12 = installed_build(M, _fw(cuda_major=12, build_info={"jaxlib": "0.11.2", "cuda_plugin": "jax-cuda12-plugin",
                                                            "plugin_version": "0.11.2", "cuda_major": 12}))
    assert b12.arch[0] == "sm_50" and "sm_101" in b12.arch and "sm_110" not in b12.arch
    # jax 0.4.37 runs the 0.4.36 plugin (its extra pins >=0.4.36,<=0.4.37): the plugin's row is the source
    old = installed_build(M, _fw(version="0.4.37", cuda_major=12,
                                 build_info={"jaxlib": "0.4.36", "cuda_plugin": "jax-cuda12-plugin",
                                             "plugin_version": "0.4.36", "cuda_major": 12}))
    assert old.arch == ("sm_50", "sm_60", "sm_70", "sm_80", "sm_90", "compute_90")
    assert "jax 0.4.36" in (old.arch_source or "")
    assert jax_release_row(M, "0.4.37", "0.4.36")["jax"] == "0.4.36"
    # a +cuda11 jaxlib (before plugins): the CUDA 11 list of its release
    local = installed_build(M, _fw(version="0.4.20", cuda="11.8", cuda_major=11,
                                   build_info={"jaxlib": "0.4.20+cuda11.cudnn86", "cuda_plugin": None,
                                               "plugin_version": None, "cuda_major": 11}))
    # jax-v0.4.20 .bazelrc: TF_CUDA_COMPUTE_CAPABILITIES="sm_52,sm_60,sm_70,sm_80,compute_90"
    assert local.arch == ("sm_52", "sm_60", "sm_70", "sm_80", "sm_90", "compute_90")


def test_installed_builds_the_matrix_does_not_describe_stay_unknown():
    conda = installed_build(M, _fw(version="0.4.23", cuda="12.0", cuda_major=12,
                                   build_info={"jaxlib": "0.4.23=cuda120py311h1234567_200", "cuda_plugin": None,
                                               "plugin_version": None, "cuda_major": 12}))
    assert conda.arch == () and conda.gpu  # conda-forge compiles its own target list
    dev = installed_build(M, _fw(version="0.4.31.dev20240701", build_info={
        "jaxlib": "0.4.31.dev20240701", "cuda_plugin": "jax-cuda12-plugin", "plugin_version": "0.4.31.dev20240701",
        "cuda_major": 12}))
    assert dev.arch == ()
    assert installed_build(M, _fw(cpu_only=True, cuda_major=None, build_info={})).arch == ()
    v = evaluate(M, conda, Machine(driver=DriverVersion.parse("580.65.06"), driver_cuda="13.0", ccs=("9.0",)))
    assert any("architecture list" in u for u in v.unknown)



def test_a_plugin_the_matrix_has_no_row_for_is_not_given_its_jax_releases_list():
    """review25: a stable jax beside a nightly (or source-built, locally labelled) plugin. The device code is the
    plugin's, and no matrix row describes that plugin: its list is unknown, not the jax release's (issue 20,
    nothing guessed)."""
    nightly = installed_build(M, _fw(version="0.11.2", build_info={
        "jaxlib": "0.11.3.dev20260101", "cuda_plugin": "jax-cuda13-pjrt", "plugin_version": "0.11.3.dev20260101",
        "cuda_major": 13}))
    assert nightly.arch == ()
    assert jax_release_row(M, "0.11.2", "0.11.3.dev20260101") == {}
    # the same plugin version as jax: the release's own row, as before
    assert jax_release_row(M, "0.11.2", "0.11.2")["jax"] == "0.11.2"
    assert jax_release_row(M, "0.11.2")["jax"] == "0.11.2"

def _status(tmp_path, name, packages, gpu=("NVIDIA GeForce GTX 980", "5.2")) -> dict:
    files = {**gpu_machine("580.65.06", "13.0", [(gpu[0], 4096)], cc=[gpu[1]]),
             "python.json": {"version": "3.12.3", "implementation": "CPython", "platform": "linux",
                             "machine": "x86_64"},
             "packages.json": packages}
    return status_json(make_snapshot(str(tmp_path / name), files))


def test_status_maxwell_with_a_cuda13_jax_is_gpu_arch_unsupported_and_cuda12_is_fine(tmp_path):
    pk13 = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.2", "jax-cuda13-pjrt": "0.11.2"}
    rep = _status(tmp_path, "c13", pk13)
    (f,) = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert f["severity"] == "error" and "jax 0.11.2" in f["message"] and "sm_75" in f["message"]
    assert "jax[cuda12]==0.11.2" in f["fix"]  # the engine's pick: the CUDA 12 build has sm_50
    pk12 = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda12-plugin": "0.11.2", "jax-cuda12-pjrt": "0.11.2"}
    rep = _status(tmp_path, "c12", pk12)
    assert not [f for f in rep["findings"] if f["id"] in ("gpu-arch-unsupported", "not-checked")], rep["findings"]
    # the same cuda13 install on an H100 runs: nothing said
    rep = _status(tmp_path, "h100", pk13, gpu=("NVIDIA H100 80GB HBM3", "9.0"))
    assert not [f for f in rep["findings"] if f["id"] in ("gpu-arch-unsupported", "not-checked")], rep["findings"]


@pytest.mark.parametrize("version", ["0.12.0.1", "0.7.2"])
def test_fix_plans_the_cuda12_build_for_a_maxwell_gpu(tmp_path, version):
    files = {**gpu_machine("580.65.06", "13.0", [("NVIDIA GeForce GTX 980", 4096)], cc=["5.2"]),
             "python.json": {"version": "3.12.3", "implementation": "CPython", "platform": "linux",
                             "machine": "x86_64"},
             "packages.json": {"jax": version, "jaxlib": version, "jax-cuda13-plugin": version,
                               "jax-cuda13-pjrt": version}}
    d = make_snapshot(str(tmp_path / "s"), files)
    r = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot", d, "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    jax = next(p for p in plan["packages"] if p["name"] == "jax")
    assert jax["variant"] == "cuda12", plan


def test_an_architecture_dropped_by_one_cuda_major_is_not_dropped_from_another():
    # jax 0.7.2's CUDA 13 build starts at sm_75; the same release's CUDA 12 build still has sm_50. A later CUDA 12
    # build the matrix has no list for (a release newer than the rows) is unknown on a Maxwell GPU, not "dropped"
    from envcheck.engine import dropped_arch
    from envcheck.engine.builds import Build

    m = Machine(driver=DriverVersion.parse("580.65.06"), driver_cuda="13.0", ccs=("5.2",), python="3.12")
    c13 = next(x for x in jax_builds(M) if x.version == "0.7.2" and x.variant == "cuda13")
    new12 = Build(framework="jax", version="0.99.0", variant="cuda12", cuda="12.1", is_gpu=True)
    new13 = Build(framework="jax", version="0.99.0", variant="cuda13", cuda="13.0", is_gpu=True)
    vs = [evaluate(M, b, m) for b in (c13, new12, new13)]
    dropped_arch(vs, m.ccs)
    assert "arch" in vs[0].failed and "arch" in vs[2].failed  # CUDA 13 cannot reach 5.2 at all
    assert "arch" not in vs[1].failed and any("5.2" in u for u in vs[1].unknown), vs[1].failed
    # within one CUDA major the rule holds: a verified build starting at sm_80 drops 7.5 for later unverified ones
    old = Build(framework="jax", version="0.98.0", variant="cuda12", cuda="12.1", arch=("sm_80", "compute_80"))
    m75 = Machine(driver=DriverVersion.parse("580.65.06"), driver_cuda="13.0", ccs=("7.5",), python="3.12")
    vs = [evaluate(M, b, m75) for b in (old, new12, new13)]
    dropped_arch(vs, m75.ccs)
    assert "already dropped" in vs[1].failed.get("arch", "")
    assert "arch" not in vs[2].failed


def test_the_wheel_reader_turns_real_cuobjdump_output_into_the_matrix_form(tmp_path):
    # the real `cuobjdump --list-elf --list-ptx` of jax_cuda13_plugin-0.11.2's _prng.so (cuobjdump 13.5.37), replayed
    # by a fake cuobjdump for a wheel holding that member
    import zipfile

    capture = os.path.join(os.path.dirname(READINGS), "cuobjdump-list-elf-ptx-jax_cuda13_plugin-0.11.2-_prng.so.txt")
    fake = tmp_path / "cuobjdump"
    fake.write_text(f"#!/bin/sh\ncat '{capture}'\n")
    fake.chmod(0o755)
    wheel = tmp_path / "jax_cuda13_plugin-0.11.2-cp312-cp312-manylinux_2_27_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("jax_cuda13_plugin/_prng.so", b"\x7fELF")
        zf.writestr("jax_cuda13_plugin/__init__.py", "")
    script = os.path.join(os.path.dirname(__file__), "..", "scripts", "wheel_cuda_arch.py")
    r = subprocess.run([sys.executable, script, "--cuobjdump", str(fake), str(wheel)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "compute_capabilities = ['7.5', '8.0', '9.0', '10.0', '11.0', '12.0']  ptx = ['12.0']" in r.stdout
    assert "jax_cuda13_plugin/_prng.so: 7.5 8.0 9.0 10.0 11.0 12.0 ptx 12.0" in r.stdout
    assert "__init__" not in r.stdout
