"""compat_matrix/jax.toml checked against facts typed by hand from the primary sources, through the Matrix API.

Sources of the typed values (never read back from the matrix):
* jax wheel/sdist METADATA on PyPI (Requires-Dist of the cuda / cuda11_pip / cuda12_pip / cuda11_cudnn82 extras),
  read with ``pip install --dry-run --no-deps --ignore-installed --report`` on 2026-11-22:
  - jax 0.4.1: ``jaxlib==0.4.1+cuda11.cudnn82; extra == "cuda11-cudnn82"``, ``jaxlib==0.4.1+cuda11.cudnn86; extra == "cuda"``
  - jax 0.4.5: its extras pin ``jaxlib==0.4.4+cuda11.cudnn86``; jax 0.4.8: ``jaxlib==0.4.7+cuda12.cudnn88``
  - jax 0.4.7: first ``cuda11-pip`` / ``cuda12-pip`` extras, ``jaxlib==0.4.7+cuda12.cudnn88``
  - jax 0.4.17: ``nvidia-cuda-runtime-cu12 >=12.2.140 ; extra == 'cuda12_pip'``
  - jax 0.4.22: ``jax-cuda12-plugin ==0.4.22 ; extra == 'cuda12'`` and still ``jaxlib ==0.4.22+cuda11.cudnn86 ; extra == 'cuda11_pip'``
  - jax-cuda12-plugin 0.9.0.1: ``nvidia-cuda-runtime-cu12>=12.1.105``, ``nvidia-cudnn-cu12<10.0,>=9.8``
* jax-ml/jax CHANGELOG.md (commit 00528b9858a0a6da2c32434f46fa6ab53149cebc): "jax 0.4.1 (Dec 13, 2022)", "jax 0.4.30
  (June 18, 2024)", jax 0.4.8 "CUDA 11.4 support has been dropped. JAX GPU wheels only support CUDA 11.8 and CUDA 12",
  jaxlib 0.4.26 "JAX now supports CUDA 12.1 or newer only. Support for CUDA 11.8 has been dropped."
* JAX install docs: "the driver version must be >= 525.60.13 for CUDA 12 and >= 450.80.02 for CUDA 11 on Linux"
  (docs/installation.md 2023-2024), "... >= 525 for CUDA 12 on Linux, and >= 580 for CUDA 13 on Linux"
  (https://docs.jax.dev/en/latest/_sources/installation.md).
* ``pip index versions jax-cuda13-plugin`` (2026-11-22): oldest release 0.7.2.
"""

import json
import subprocess
import sys

import pytest
from packaging.version import Version

from envcheck.matrix import Matrix, bundled_dir
from envcheck.model import DriverVersion

M = Matrix(bundled_dir())


def rel(v):
    rows = [r for r in M.rows("jax", "release") if r.get("jax") == v]
    assert len(rows) == 1, f"jax {v}: {len(rows)} rows"
    return rows[0]


def majors(row):
    return {int(x.strip().split(".")[0]) for x in row.get("cuda", "").split(",") if x.strip()}


# --- (a) releases before the plugins: jaxlib local-version CUDA builds ---------------------------------
@pytest.mark.parametrize("jax,jaxlib", [("0.4.1", "0.4.1"), ("0.4.5", "0.4.4"), ("0.4.7", "0.4.7"), ("0.4.8", "0.4.7"),
                                        ("0.4.13", "0.4.13"), ("0.4.21", "0.4.21")])
def test_jaxlib_pinned_by_the_cuda_extras(jax, jaxlib):
    assert rel(jax)["jaxlib"] == jaxlib


@pytest.mark.parametrize("v", ["0.4.1", "0.4.2", "0.4.3", "0.4.4", "0.4.5", "0.4.6"])
def test_before_047_cuda11_only_with_a_cudnn82_build(v):
    r = rel(v)
    assert majors(r) == {11}
    assert (r["cuda_min"], r["cudnn_min"]) == ("11.4", "8.2")
    assert "cudnn82" in r["notes"] and r.get("derived")


def test_047_first_cuda12_build_and_pip_extras():
    r = rel("0.4.7")
    assert majors(r) == {11, 12}
    assert "+cuda12.cudnn88" in r["notes"] and "cuda12_pip" in r["notes"]
    assert majors(rel("0.4.6")) == {11}


@pytest.mark.parametrize("v", ["0.4.9", "0.4.13", "0.4.17", "0.4.21", "0.4.25"])
def test_cuda_11_8_floor_after_048(v):
    r = rel(v)
    assert majors(r) == {11, 12}
    assert (r["cuda_min"], r["cudnn_min"]) == ("11.8", "8.6")


def test_0417_cuda12_runtime_floor_in_notes():
    assert "nvidia-cuda-runtime-cu12>=12.2.140" in rel("0.4.17")["notes"]


def test_cuda11_ends_with_0425():
    assert 11 in majors(rel("0.4.25"))
    for r in M.rows("jax", "release"):
        if Version(r["jax"]) >= Version("0.4.26"):
            assert 11 not in majors(r), r["jax"]


def test_pre_plugin_rows_have_no_plugins_and_no_python():
    for r in M.rows("jax", "release"):
        if Version(r["jax"]) < Version("0.4.22"):
            assert r.get("cuda_plugins") == [], r["jax"]
            assert "python" not in r, r["jax"]  # CUDA jaxlib wheels were not on PyPI: left out, not guessed


def test_first_plugin_release_is_0422_and_it_kept_cuda11():
    r = rel("0.4.22")
    assert r["cuda_plugins"] == ["jax-cuda11-plugin", "jax-cuda12-plugin"]
    assert majors(r) == {11, 12}
    assert "jaxlib==0.4.22+cuda11.cudnn86" in r["notes"]


def test_first_cuda13_plugin_is_072():
    with13 = [r["jax"] for r in M.rows("jax", "release") if "jax-cuda13-plugin" in (r.get("cuda_plugins") or [])]
    assert min(with13, key=Version) == "0.7.2"
    assert "jax-cuda13-plugin" not in rel("0.7.1")["cuda_plugins"]


def test_09_0_1_floors_now_read():
    r = rel("0.9.0.1")
    assert (r["cuda_min"], r["cudnn_min"]) == ("12.1", "9.8")
    assert "nvidia-cudnn-cu13>=9.12.0.46" in r["notes"]


@pytest.mark.parametrize("v,date", [("0.4.1", "2022-12-13"), ("0.4.7", "2023-03-27"), ("0.4.22", "2023-12-13"),
                                    ("0.4.30", "2024-06-18")])
def test_release_dates_from_changelog(v, date):
    assert rel(v)["date"] == date


# --- (b) driver floors ---------------------------------------------------------------------------------
FLOOR = {11: "450.80.02", 12: "525.60.13"}


def test_every_row_has_the_driver_floor_of_its_lowest_cuda_major():
    for r in M.rows("jax", "release"):
        assert r.get("min_driver_linux") == FLOOR[min(majors(r))], r["jax"]
        assert "min_driver_linux" in r.get("derived", ""), r["jax"]


@pytest.mark.parametrize("major", [11, 12])
def test_jax_driver_floors_equal_the_cuda_tables_minor_compat_floor(major):
    """JAX's documented floors are NVIDIA's minor-version-compatibility floors (cuda.toml)."""
    assert M.minor_compat_floor(major) == DriverVersion.parse(FLOOR[major])


def test_cuda13_rows_state_the_580_floor():
    for r in M.rows("jax", "release"):
        if "jax-cuda13-plugin" in (r.get("cuda_plugins") or []):
            assert ">= 580" in r["derived"], r["jax"]


# --- (c) coverage and hygiene --------------------------------------------------------------------------
def test_coverage_and_order():
    versions = [r["jax"] for r in M.rows("jax", "release")]
    assert len(versions) == len(set(versions))
    assert versions == sorted(versions, key=Version)
    assert versions[0] == "0.4.1" and "0.10.2" in versions
    for missing in ("0.4.0", "0.4.15", "0.4.32"):  # yanked / never on PyPI
        assert missing not in versions


def test_no_row_is_left_unverified():
    assert [r["jax"] for r in M.rows("jax", "release") if "NOT RE-VERIFIED" in r.get("notes", "")] == []


# --- (d) facts read on 2026-11-23 (pip index versions / METADATA, see the module docstring) -----------------
@pytest.mark.parametrize("v", ["0.4.22", "0.4.23", "0.4.24", "0.4.25"])
def test_jax_cuda11_plugin_releases(v):
    """``pip index versions jax-cuda11-plugin``: exactly 0.4.25, 0.4.24, 0.4.23, 0.4.22."""
    assert "jax-cuda11-plugin" in rel(v)["cuda_plugins"]


def test_jax_cuda11_plugin_only_there():
    with11 = sorted((r["jax"] for r in M.rows("jax", "release") if "jax-cuda11-plugin" in (r.get("cuda_plugins") or [])),
                    key=Version)
    assert with11 == ["0.4.22", "0.4.23", "0.4.24", "0.4.25"]


@pytest.mark.parametrize("v,py315", [("0.11.0", False), ("0.11.1", True), ("0.11.2", True), ("0.12.0", True),
                                     ("0.12.0.1", True)])
def test_python_315_wheels(v, py315):
    """``pip index versions jax-cuda12-plugin --python-version 3.15 --only-binary=:all:`` lists 0.12.0.1, 0.12.0,
    0.11.2, 0.11.1; --python-version 3.12 starts at 0.11.0 (Requires-Python >=3.12)."""
    py = rel(v)["python"]
    assert py[0] == "3.12" and "3.11" not in py
    assert ("3.15" in py) == py315


@pytest.mark.parametrize("v,jaxlib", [("0.4.37", "0.4.36"), ("0.5.2", "0.5.1")])
def test_releases_without_own_jaxlib(v, jaxlib):
    """jax 0.4.37 METADATA: ``jaxlib==0.4.36; extra == "cuda12"``, ``jax-cuda12-plugin[with_cuda]<=0.4.37,>=0.4.36``;
    jax 0.5.2: ``jaxlib==0.5.1``, ``jax-cuda12-plugin[with_cuda]<=0.5.2,>=0.5.1``."""
    r = rel(v)
    assert r["jaxlib"] == jaxlib
    assert r["cuda_plugins"] == ["jax-cuda12-plugin"]
    assert (r["cuda_min"], r["cudnn_min"]) == ("12.1", "9.1")


def test_012_pins_reread():
    """jax-cuda12-plugin 0.12.0.1 [with-cuda]: ``nvidia-cudnn-cu12<10.0,>=9.10.2.21``; 0.11.1: ``>=9.8``."""
    assert rel("0.12.0.1")["cudnn_min"] == "9.10"
    assert rel("0.11.1")["cudnn_min"] == "9.8"


def test_cli_shows_the_jax_table():
    out = subprocess.run([sys.executable, "-m", "envcheck", "matrix", "show", "jax", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = {r["jax"]: r for r in data["rows"]}
    assert rows["0.4.7"]["cuda"] == "11.x, 12.x"
    assert rows["0.4.26"]["min_driver_linux"] == "525.60.13"
    assert "580" in data["meta"]["notes"]
