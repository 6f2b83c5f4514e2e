"""cuDNN facts typed by hand from the cited NVIDIA sources, asserted through the Matrix API.

Nothing here is read from compat_matrix/cudnn.toml to build the expectations: every expected value
below was copied from the page named in the comment next to it, so a wrong or lost row fails.

Support matrices (docs.nvidia.com/deeplearning/cudnn/...):
  archives/cudnn-803/support-matrix/index.html     7.5.1-7.6.2, 7.6.3, 7.6.4-7.6.5, 8.0.0-8.0.1, 8.0.2-8.0.3
  archives/cudnn-822/support-matrix/index.html     8.2.0-8.2.1, 8.2.2
  archives/cudnn-840/support-matrix/index.html     8.4.0
  archives/cudnn-891/support-matrix/index.html     8.9.1
  archives/cudnn-896/support-matrix               8.9.6
  backend/v9.0.0/reference/support-matrix.html     9.0.0
  support-matrix/ (stored copy showing 9.1.0)      9.1.0
  backend/v9.5.1/reference/support-matrix.html     9.5.1
  latest/support-matrix/index.html (9.10.2)        9.10.2
  sdk/cudnn-support-matrix/index.html (9.17.0)     9.17.0
NVIDIA redist manifests (developer.download.nvidia.com/compute/cudnn/redist/redistrib_X.json, read as the
copies in NixOS/nixpkgs pkgs/development/cuda-modules/{cudnn,_cuda}/manifests/): "cuda_variant" per release.
Pre-Turing drop from cuDNN 9.11: https://github.com/conda-forge/tensorflow-feedstock/pull/457
TF 2.15 vs cuDNN 8.8: https://github.com/tensorflow/docs/pull/2291
"""

from __future__ import annotations

import re

import pytest

from envcheck.checks import Context
from envcheck.checks.frameworks import check_known_bad
from envcheck.matrix import load_matrix
from envcheck.model import Driver, Environment, Framework, Host, LibCopy, PythonInfo, Toolkit


@pytest.fixture(scope="module")
def m():
    return load_matrix()


def entry(row, major):
    """The cuda entry of one CUDA major in a release row (None when the release has no build for it)."""
    for e in row.get("cuda") or []:
        if e.get("major") == major:
            return e
    return None


def test_active_matrix_is_the_bundled_one(m):
    assert m.origin.startswith("bundled")


# --- support-matrix facts ---------------------------------------------------------------------------
# (version, CUDA major, lowest minor, highest minor) as the support matrix lists them
RANGES = [
    ("7.6.0", 9, "9.0", "9.2"), ("7.6.0", 10, "10.0", "10.1"),      # 7.5.1-7.6.2: 10.1.105, 10.0.x, 9.2.88, 9.0.176
    ("7.6.2", 10, "10.0", "10.1"),                                   # same group
    ("7.6.3", 10, "10.0", "10.1"),                                   # 7.6.3: 10.1.243, 10.0.x, 9.2.148, 9.0.176
    ("7.6.5", 10, "10.0", "10.2"), ("7.6.5", 9, "9.0", "9.2"),      # 7.6.4-7.6.5: 10.2 (r440) ... 9.0.176
    ("8.0.1", 11, "11.0", "11.0"), ("8.0.1", 10, "10.2", "10.2"),   # 8.0.0-8.0.1 Preview: 11.0 (r450), 10.2 (r440)
    ("8.0.3", 10, "10.1", "10.2"),                                   # 8.0.2-8.0.3: 11.0, 10.2, 10.1 Update 2
    ("8.2.1", 11, "11.0", "11.3"),                                   # 8.2.0 and 8.2.1: 11.3 (r465) ... 11.0 (r450)
    ("8.2.2", 11, "11.0", "11.4"), ("8.2.2", 10, "10.2", "10.2"),   # 8.2.2: 11.4 (r470) ... 11.0; 10.2 (r440)
    ("8.4.0", 11, "11.0", "11.6"), ("8.4.0", 10, "10.2", "10.2"),   # 8.4.0 for CUDA 11.x: 11.6 ... 11.0; for CUDA 10.2
    ("8.9.1", 12, "12.0", "12.1"), ("8.9.1", 11, "11.0", "11.8"),   # 8.9.1 for CUDA 12.x: 12.1, 12.0; 11.x: 11.8 ... 11.0
    ("8.9.6", 12, "12.0", "12.2"), ("8.9.6", 11, "11.0", "11.8"),   # 8.9.6 for CUDA 12.x: 12.2, 12.1, 12.0
    ("9.0.0", 12, "12.0", "12.3"), ("9.0.0", 11, "11.0", "11.8"),   # 9.0.0: 12.3 (static), 12.2-12.0; 11.8, 11.7-11.0
    ("9.5.1", 12, "12.0", "12.6"),                                   # 9.5.1 for CUDA 12.x: 12.6 ... 12.0
    ("9.10.2", 12, "12.0", "12.9"),                                  # 9.10.2 for CUDA 12.x: 12.9, 12.8, 12.6 ... 12.0
    ("9.17.0", 13, "13.0", "13.1"), ("9.17.0", 12, "12.0", "12.9"), # 9.17.0 for CUDA 13.x: 13.1, 13.0; 12.x: 12.9 ... 12.0
]


@pytest.mark.parametrize("version,major,lo,hi", RANGES)
def test_support_matrix_cuda_range(m, version, major, lo, hi):
    row = m.cudnn_release(version)
    assert row is not None, version
    e = entry(row, major)
    assert e is not None, (version, major)
    assert (e.get("min"), e.get("max")) == (lo, hi)


# (version, CUDA major, Linux driver floor, Windows driver floor or None where the page says N/A)
DRIVERS = [
    ("8.9.1", 12, "525.60.13", "527.41"), ("8.9.1", 11, "450.80.02", "452.39"),
    ("9.0.0", 12, "525.60.13", "527.41"),
    ("9.1.0", 12, "525.60.13", "527.41"), ("9.1.0", 11, "450.80.02", "452.39"),   # stored 9.1.0 page
    ("9.5.1", 12, "525.60.13", "527.41"), ("9.5.1", 11, "450.80.02", "452.39"),
    ("9.17.0", 13, "580.65.06", None), ("9.17.0", 12, "525.60.13", "527.41"),      # CUDA 13.x: Windows 'N/A'
]


@pytest.mark.parametrize("version,major,linux,windows", DRIVERS)
def test_support_matrix_drivers(m, version, major, linux, windows):
    e = entry(m.cudnn_release(version), major)
    assert e is not None
    assert e.get("min_driver_linux") == linux
    assert e.get("min_driver_windows") == windows


def test_9_1_0_partial_row(m):
    """The stored 9.1.0 page kept 'for CUDA 11.x: 11.8 (static)' but lost the CUDA 12 minor list."""
    row = m.cudnn_release("9.1.0")
    assert row["version"] == "9.1.0" and row["layout"] == "split9"
    assert entry(row, 11).get("max") == "11.8"
    assert "min" not in entry(row, 12) and "max" not in entry(row, 12)
    assert "min_compute_capability" not in row


@pytest.mark.parametrize("version,cc", [
    ("7.6.4", "3.0"),   # Kepler (3.x)
    ("8.2.2", "3.0"),   # 10.2 build: SM 3.0 and later
    ("8.9.1", "5.0"), ("9.5.1", "5.0"), ("9.10.2", "5.0"),   # CC lists end at 5.0 (Maxwell)
    ("9.17.0", "7.5"),  # CUDA 13.x and 12.x builds: 12.0 ... 7.5 (Turing)
])
def test_min_compute_capability(m, version, cc):
    assert m.cudnn_release(version)["min_compute_capability"] == cc


def test_per_major_compute_capability_8_2(m):
    row = m.cudnn_release("8.2.0")
    assert entry(row, 11)["min_compute_capability"] == "3.5"   # SM 3.5 and later
    assert entry(row, 10)["min_compute_capability"] == "3.0"   # SM 3.0 and later


def test_9_17_0_has_no_cuda_11_build(m):
    assert entry(m.cudnn_release("9.17.0"), 11) is None


# --- patch grouping ---------------------------------------------------------------------------------
@pytest.mark.parametrize("version,row_version", [
    ("7.6.1", "7.6.0"), ("7.6.2", "7.6.0"), ("7.6.5", "7.6.4"), ("8.0.1", "8.0.0"), ("8.0.3", "8.0.2"),
    ("8.2.1", "8.2.0"), ("9.1.0", "9.1.0"), ("9.1.1", "9.1.1"), ("9.7.1", "9.7.1"),
])
def test_patch_lookup(m, version, row_version):
    assert m.cudnn_release(version)["version"] == row_version


@pytest.mark.parametrize("version", ["7.4.1", "7.4.1.5", "7.5.0", "8.1.2"])
def test_uncovered_releases_stay_unknown(m, version):
    """Releases without a row stay unknown: the prefix lookup does not map 7.4.1 to the 7.4.2 row (8.1.0 / 8.3.1 / 7.4.2
    got rows in issue 23, see tests/test_matrix_issue23_facts.py)."""
    assert m.cudnn_release(version) is None


# --- NVIDIA redist manifests: CUDA majors per release (cuda_variant) ------------------------------------
MAJORS = {
    "8.5.0": [10, 11], "8.6.0": [10, 11], "8.7.0": [10, 11],
    "8.8.0": [11, 12], "8.8.1": [11, 12], "8.9.0": [11, 12], "8.9.2": [11, 12], "8.9.3": [11, 12],
    "8.9.4": [11, 12], "8.9.7": [11, 12],
    "9.1.0": [11, 12], "9.1.1": [11, 12], "9.2.0": [11, 12], "9.2.1": [11, 12], "9.3.0": [11, 12],
    "9.4.0": [11, 12], "9.6.0": [11, 12], "9.7.0": [11, 12], "9.7.1": [11, 12], "9.8.0": [11, 12],
    "9.9.0": [11, 12], "9.10.0": [11, 12],
    "9.12.0": [12, 13], "9.13.0": [12, 13], "9.20.0": [12, 13], "9.22.0": [12, 13], "9.27.0": [12, 13],
}


@pytest.mark.parametrize("version", sorted(MAJORS))
def test_manifest_cuda_majors(m, version):
    row = m.cudnn_release(version)
    assert row is not None and row["version"] == version
    assert sorted(e["major"] for e in row["cuda"]) == MAJORS[version]


def test_manifest_rows_claim_no_minor_ranges(m):
    """A manifest names CUDA majors only: rows derived from one must not carry ranges or drivers."""
    rows = [r for r in m.rows("cudnn", "release") if str(r.get("derived", "")).startswith("CUDA majors only")]
    assert len(rows) >= 45
    for r in rows:
        from_manifest = "/manifests/" in r["source"] and "redistrib_" in r["source"]
        from_pypi = r["source"].startswith("https://pypi.org/project/nvidia-cudnn-cu1")
        from_archives = (r["source"].startswith("NixOS/nixpkgs@") and r["source"].endswith(".nix")) or re.match(
            r"^unnonouno/cudnnenv@[0-9a-f]{40}:cudnnenv/__init__\.py$", r["source"]) is not None
        assert from_manifest or from_pypi or from_archives, r["version"]
        for e in r["cuda"]:
            assert set(e) == {"major"}, r["version"]


def test_layout_follows_major(m):
    for v, layout in [("7.6.4", "single"), ("8.6.0", "split"), ("8.9.7", "split"), ("9.1.1", "split9"),
                      ("9.27.0", "split9")]:
        assert m.cudnn_release(v)["layout"] == layout


@pytest.mark.parametrize("version", ["9.12.0", "9.13.0", "9.20.0", "9.22.0", "9.27.0"])
def test_pre_turing_dropped_from_9_11(m, version):
    """cuDNN 9.11+: NVIDIA's support matrix starts at Turing (CC 7.5); the main libraries lack Maxwell/Pascal/Volta kernels."""
    row = m.cudnn_release(version)
    assert row["min_compute_capability"] == "7.5"
    assert entry(row, 11) is None


def test_sources_are_versioned(m):
    for r in m.rows("cudnn", "release"):
        src = r["source"]
        assert src.startswith("https://") or re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+\.(json|nix|py)$", src), src


def test_meta_not_covered_list_is_true(m):
    """No release that has a row is listed as not covered."""
    notes = m.meta("cudnn")["notes"]
    start = notes.index("NOT covered")
    text = notes[start:notes.index("envcheck's prefix lookup", start)]
    for r in m.rows("cudnn", "release"):
        for v in r.get("patches") or [r["version"]]:
            assert re.search(r"(?<![\d.])" + re.escape(v) + r"(?!\.?\d)", text) is None, v


# --- known_bad: TF 2.15 was compiled with cuDNN 8.9.4 (tensorflow/docs#2291) -------------------------------
def _env(tf_version, cudnn_version):
    copy = LibCopy(family="cudnn", major=int(cudnn_version.split(".")[0]), version=cudnn_version,
                   version_source="pip distribution",
                   path="/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.8",
                   directory="/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", source="pip",
                   owner="nvidia-cudnn-cu12")
    return Environment(source="test", host=Host(), python=PythonInfo(version="3.11.7"), driver=Driver(), gpus=(),
                       toolkit=Toolkit(), libraries=(copy,),
                       frameworks={"tensorflow": Framework(name="tensorflow", version=tf_version)},
                       packages={"tensorflow": tf_version, "nvidia-cudnn-cu12": cudnn_version})


def _rule_ids(findings):
    return {re.search(r"known_bad (\S+):", f.evidence).group(1) for f in findings if f.id == "known-bad-combination"}


def test_tf_2_15_with_cudnn_8_8_is_known_bad(m):
    # the log line in tensorflow/docs#2291: 'Loaded runtime CuDNN library: 8.8.0 but source was compiled with: 8.9.4'
    assert "tf-2.15-cudnn-older-than-8.9" in _rule_ids(check_known_bad(_env("2.15.1", "8.8.0"), m, Context()))


@pytest.mark.parametrize("tf,cudnn", [("2.15.1", "8.9.4"), ("2.15.0", "8.9.7"), ("2.16.1", "8.8.0")])
def test_tf_2_15_rule_does_not_fire_elsewhere(m, tf, cudnn):
    assert "tf-2.15-cudnn-older-than-8.9" not in _rule_ids(check_known_bad(_env(tf, cudnn), m, Context()))


# --- 8.3.0's CUDA 10.2 build (cudnn-10.2-linux-x64-v8.3.0.98; second hardware row of the 8.3.0 matrix) -------
def test_8_3_0_has_a_cuda_10_2_build_from_sm_30(m):
    row = m.cudnn_release("8.3.0.98")
    assert row["version"] == "8.3.0"
    e10 = entry(row, 10)
    assert (e10["min"], e10["max"], e10["min_compute_capability"]) == ("10.2", "10.2", "3.0")
    assert entry(row, 11)["max"] == "11.5" and entry(row, 11)["min_compute_capability"] == "3.5"   # 11.5 (R495)
    assert row["min_compute_capability"] == "3.0"


@pytest.mark.parametrize("version", ["8.0.0", "8.0.2", "8.2.0", "8.2.2", "8.3.0", "8.4.0"])
def test_cuda_10_2_builds_of_8_0_to_8_4_start_at_sm_30(m, version):
    assert entry(m.cudnn_release(version), 10)["min_compute_capability"] == "3.0"


# --- PyPI rows: `pip index versions nvidia-cudnn-cu11 / -cu12 / -cu13` (2026-11-23), typed by hand -------------
PYPI = {
    "9.10.1.4": [11, 12],      # cu11 9.10.1.4 and cu12 9.10.1.4; no cu13 before 9.12.0.46
    "9.11.0.98": [12], "9.11.1.4": [12],
    "9.13.1.26": [12, 13], "9.14.0.64": [12, 13], "9.15.0.57": [12, 13], "9.15.1.9": [12, 13],
    "9.16.0.29": [12, 13], "9.17.1.4": [12, 13], "9.18.0.77": [12, 13], "9.18.1.3": [12, 13],
    "9.19.0.56": [12, 13], "9.19.1.2": [13],      # 9.19.1.2 only in nvidia-cudnn-cu13
    "9.21.0.82": [12, 13], "9.21.1.3": [12, 13], "9.23.0.39": [12, 13], "9.23.1.3": [12, 13],
    "9.23.2.1": [12, 13], "9.24.0.43": [12, 13], "9.24.1.1": [12, 13], "9.25.1.1": [12, 13],
    "9.26.0.51": [12, 13], "9.26.1.1": [12, 13], "9.28.0.42": [12, 13], "9.28.1.4": [13],
}


@pytest.mark.parametrize("wheel", sorted(PYPI))
def test_pypi_release_rows(m, wheel):
    row = m.cudnn_release(wheel)
    assert row is not None and row["version"] == ".".join(wheel.split(".")[:3])
    assert sorted(e["major"] for e in row["cuda"]) == PYPI[wheel]
    if tuple(int(x) for x in wheel.split(".")[:2]) >= (9, 11):   # no pre-Turing code from 9.11 (see above)
        assert row["min_compute_capability"] == "7.5"
    else:
        assert "min_compute_capability" not in row


# --- archive-name rows: NVIDIA's cuDNN download files as listed (with sha256) in nixpkgs, typed by hand -------------
# NixOS/nixpkgs@93e47e5c pkgs/development/cuda-modules/cudnn/releases.nix: cudnn-10.2-linux-x64-v8.1.1.33.tgz,
# cudnn-11.2-linux-x64-v8.1.1.33.tgz, cudnn-10.2-/cudnn-11.4-linux-x64-v8.2.4.15.tgz, 8.3.3.40_cuda10.2/_cuda11.5,
# 8.4.1.50_cuda10.2/_cuda11.6; NixOS/nixpkgs@1199d0ba .../cudnn/extension.nix: 8.3.2.44_cuda10.2/_cuda11.5.
@pytest.mark.parametrize("full", ["8.1.1.33", "8.2.4.15", "8.3.2.44", "8.3.3.40", "8.4.1.50"])
def test_archive_name_rows(m, full):
    row = m.cudnn_release(full)
    xyz = ".".join(full.split(".")[:3])
    assert row is not None and row["version"] == xyz and row["patches"] == [xyz]
    assert sorted(e["major"] for e in row["cuda"]) == [10, 11]
    assert all(set(e) == {"major"} for e in row["cuda"])      # names give majors only: no minors, drivers or SM floor
    assert "min_compute_capability" not in row and row["layout"] == "split"


def test_archive_rows_do_not_swallow_neighbouring_releases(m):
    assert m.cudnn_release("8.2.3") is None and m.cudnn_release("8.4.0")["version"] == "8.4.0"
    assert m.cudnn_release("8.2.2")["version"] == "8.2.2" and m.cudnn_release("8.3.0.98")["version"] == "8.3.0"


def test_9_11_0_is_the_first_release_without_pre_turing_code(m):
    assert "min_compute_capability" not in m.cudnn_release("9.10.1")
    assert m.cudnn_release("9.11.0")["min_compute_capability"] == "7.5"
    assert m.cudnn_release("9.10.2")["min_compute_capability"] == "5.0"
