"""Facts added for issue 23, typed by hand from the primary sources below and asserted through the public
Matrix API and the CLI (never read back from the TOML text).

Sources (what each fact was typed from):
* pytorch/test-infra tools/scripts/generate_binary_build_matrix.py at the commit that sets
  CURRENT_STABLE_VERSION to each release (`git log -S'CURRENT_STABLE_VERSION = "X"'` in a snapshot of the repo),
  run with `--channel release --package-type wheel --build-python-only disable --operating-system OS`:
  every one lists a cpu build on linux, linux-aarch64, windows and macos-arm64; Linux installs it with
  '--index-url https://download.pytorch.org/whl/cpu'. Python lists (non-free-threaded) per commit below.
* unnonouno/cudnnenv@36c77483 cudnnenv/__init__.py: cudnn-9.0/9.2/10.0-linux-x64-v7.4.2.24.tgz,
  cudnn-10.2/11.2-linux-x64-v8.1.0.77.tgz, cudnn-linux-x86_64-8.3.1.22_cuda10.2/_cuda11.5-archive.tar.xz.
* NVIDIA release notes titles: 'CUDA Toolkit 13.4 - Release Notes' (archive/13.4.1: 'The CUDA Toolkit 13.4 GA
  release is versioned 13.4.1'), 'CUDA Toolkit 13.4 Update 1' (archive/13.4.2), 'CUDA Toolkit 13.5'.
* developer.download.nvidia.com/compute/nvidia-driver/redist/redistrib_620.70.06.json: cuda_compat
  cuda_variant ["13.5"].
* PyPI torch-2.15.0-cp311-cp311-manylinux_2_28_aarch64.whl: version.py '2.15.0+cu132', arch flags
  'sm_80 sm_90 sm_100 sm_110 sm_120', METADATA nvidia-cudnn-cu13==9.26.0.51.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from envcheck.matrix import load_matrix
from helpers import gpu_machine, make_snapshot

M = load_matrix()
ALL4 = {"linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-aarch64"}
P39_312 = ["3.9", "3.10", "3.11", "3.12"]
P39_313 = ["3.9", "3.10", "3.11", "3.12", "3.13"]
P310_314 = ["3.10", "3.11", "3.12", "3.13", "3.14"]
CPU = {  # release: (test-infra commit prefix, python)
    "2.4.1": ("ccfc962e9a75", ["3.8"] + P39_312),
    "2.5.0": ("5510fd052cc6", P39_312),
    "2.5.1": ("29912dec4567", P39_312),
    "2.6.0": ("b1bdc3323fa1", P39_313),
    "2.7.0": ("bad60f65d402", P39_313),
    "2.7.1": ("30ee1aaacba7", P39_313),
    "2.8.0": ("21480431af19", P39_313),
    "2.9.1": ("06789010bfc6", P310_314),
    "2.11.0": ("0cd5e78a1246", P310_314),
    "2.12.0": ("626d4e708156", P310_314),
    "2.12.1": ("77e179c3b70d", P310_314),
    "2.13.0": ("6d36e31f45e8", P310_314),
}


@pytest.mark.parametrize("version", sorted(CPU))
def test_cpu_rows_from_test_infra(version):
    commit, python = CPU[version]
    v = M.torch_variant(version, "cpu")
    assert v is not None and v["releases"] == [version]  # a row of its own
    assert set(v["platforms"]) == ALL4
    assert v["python"] == python
    assert v["index_url"] == "https://download.pytorch.org/whl/cpu"
    assert v["source"].startswith(f"pytorch/test-infra@{commit}")
    assert v["source"].endswith(":tools/scripts/generate_binary_build_matrix.py")


@pytest.mark.parametrize("name", ["cu126", "cu130"])
def test_2_9_1_variants_corroborated_by_test_infra(name):
    v = M.torch_variant("2.9.1", name)
    assert v is not None and "06789010bfc67d96cc1e4ce06c8c7c711435e692" in v["derived"]


# CUDA variants the script lists for each release (linux, release channel), typed from the runs
SCRIPT_CUDA = {
    "2.4.0": {"cu118", "cu121", "cu124"}, "2.4.1": {"cu118", "cu121", "cu124"},
    "2.5.0": {"cu118", "cu121", "cu124"}, "2.5.1": {"cu118", "cu121", "cu124"},
    "2.6.0": {"cu118", "cu124", "cu126"}, "2.7.0": {"cu118", "cu126", "cu128"}, "2.7.1": {"cu118", "cu126", "cu128"},
    "2.8.0": {"cu126", "cu128", "cu129"}, "2.9.0": {"cu126", "cu128", "cu130"}, "2.9.1": {"cu126", "cu128", "cu130"},
    "2.10.0": {"cu126", "cu128", "cu130"}, "2.11.0": {"cu126", "cu128", "cu130"},
    "2.12.0": {"cu126", "cu130", "cu132"}, "2.12.1": {"cu126", "cu130", "cu132"}, "2.13.0": {"cu126", "cu130", "cu132"},
}


@pytest.mark.parametrize("version", sorted(SCRIPT_CUDA))
def test_cuda_variants_match_test_infra(version):
    have = {v["variant"] for v in M.torch_variants(version) if str(v["variant"]).startswith("cu")}
    assert have == SCRIPT_CUDA[version]


# platforms the script lists per CUDA variant (linux / linux-aarch64 / windows), typed from the runs
SCRIPT_PLATFORMS = {
    ("2.4.1", "cu124"): {"linux-x86_64", "windows-x86_64", "linux-aarch64"},
    ("2.5.1", "cu118"): {"linux-x86_64", "windows-x86_64"},
    ("2.6.0", "cu126"): {"linux-x86_64", "windows-x86_64", "linux-aarch64"},
    ("2.7.1", "cu128"): {"linux-x86_64", "windows-x86_64", "linux-aarch64"},
    ("2.8.0", "cu129"): {"linux-x86_64", "windows-x86_64", "linux-aarch64"},
    ("2.8.0", "cu126"): {"linux-x86_64", "windows-x86_64"},
    ("2.11.0", "cu130"): {"linux-x86_64", "windows-x86_64", "linux-aarch64"},
}


@pytest.mark.parametrize("key", sorted(SCRIPT_PLATFORMS))
def test_platforms_from_test_infra(key):
    v = M.torch_variant(*key)
    assert set(v["platforms"]) == SCRIPT_PLATFORMS[key]
    if "linux-aarch64" in v["platforms"] and "compute_capabilities_aarch64" not in v:
        assert "no aarch64 arch list was read" in v["derived"]  # unknown, not the x86_64 list


@pytest.mark.parametrize("version, majors, layout", [
    ("7.4.2", [9, 10], "single"), ("8.1.0", [10, 11], "split"), ("8.3.1", [10, 11], "split"),
    ("8.1.0.77", [10, 11], "split"), ("8.3.1.22", [10, 11], "split"), ("7.4.2.24", [9, 10], "single")])
def test_cudnn_archive_rows(version, majors, layout):
    row = M.cudnn_release(version)
    assert row is not None and row["version"] == version[:5]
    assert sorted(e["major"] for e in row["cuda"]) == majors and all(set(e) == {"major"} for e in row["cuda"])
    assert row["layout"] == layout and "min_compute_capability" not in row
    assert row["source"].startswith("unnonouno/cudnnenv@36c774837efe76f084d25cc4e9040515bbef1592:")


def test_every_tensorflow_cudnn_has_a_cudnn_row():
    """The TF 1.13-2.0 rows pin cuDNN 7.4: no cross-table gap left."""
    for r in M.rows("tensorflow", "release"):
        for key in ("cudnn", "windows_cudnn"):
            want = r.get(key)
            if want:
                assert any(str(c["version"]).startswith(want + ".") or c["version"] == want
                           for c in M.rows("cudnn", "release")), (r["version"], want)


def test_cudnn_9_11_wording_says_what_the_sources_say():
    row = M.cudnn_release("9.12.0")
    assert row["min_compute_capability"] == "7.5"
    text = row["derived"]
    assert "support matrix" in text and "precompiled-engines" in text and "Maxwell/Pascal/Volta" in text
    # read in the nvidia-cudnn-cu12 9.11.0.98 wheel's fatbins: ops from sm_75, precompiled engines down to sm_50
    assert "nvidia-cudnn-cu12 9.11.0.98" in text and "SASS sm_75/80/90/100/120" in text and "sm_50/60/61/70" in text
    assert "no longer ship device code" not in text
    for r in M.rows("cudnn", "release"):
        assert "no longer ship device code" not in str(r.get("derived", "")) + str(r.get("notes", ""))


@pytest.mark.parametrize("version", ["13.4.1", "13.4.2", "13.5.0"])
def test_new_toolkit_rows_leave_unread_drivers_empty(version):
    rows = [r for r in M.rows("cuda", "toolkit") if r["version"] == version]
    assert len(rows) == 1
    assert "min_driver_linux" not in rows[0] and "min_driver_windows" not in rows[0]
    assert M.toolkit_min_driver(version[:4]) is None  # unknown stays unknown


def test_branch_620_from_the_driver_manifest():
    rows = [r for r in M.rows("cuda", "driver_branch") if r["branch"] == "620"]
    assert len(rows) == 1 and rows[0]["highest_cuda"] == "13.5" and "first_driver_linux" not in rows[0]
    assert rows[0]["source"].endswith("redistrib_620.70.06.json")



def test_branch_615_exists_with_what_its_manifest_states():
    """NVIDIA's R615 manifests (redistrib_615.71.09.json, 2026-09-09) list the driver but no cuda_compat
    package: the branch has a row, and the CUDA it provides stays unknown (not guessed from 610 / 620)."""
    rows = [r for r in M.rows("cuda", "driver_branch") if r["branch"] == "615"]
    assert len(rows) == 1 and "highest_cuda" not in rows[0] and "first_driver_linux" not in rows[0]
    assert rows[0]["source"].endswith("redistrib_615.71.09.json") and "release_date 2026-09-09" in rows[0]["derived"]
    # a 615 driver is still judged: by the branches below it whose CUDA is known, never above what 610 gives
    from envcheck.versions import DriverVersion

    assert M.driver_highest_cuda(DriverVersion.parse("615.71.09"))[0] == "13.3"
    assert M.driver_highest_cuda(DriverVersion.parse("615"))[0] == "13.3"


def test_2_15_0_aarch64_platform():
    v = M.torch_variant("2.15.0", "cu132")
    assert "linux-aarch64" in v["platforms"]
    assert v["compute_capabilities_aarch64"] == ["8.0", "9.0", "10.0", "11.0", "12.0"]
    assert v["cudnn_pin"] == "nvidia-cudnn-cu13==9.26.0.51"


def test_gh200_plan_is_2_15_0_from_pypi(tmp_path):
    """A GH200 on R580 (aarch64): the plan is the PyPI 2.15.0 cu132 wheel, not 2.14.1 cu130 (issue 23)."""
    files = gpu_machine("580.95.05", "13.0", [("NVIDIA GH200 480GB", 97871)], cc=["9.0"])
    files["python.json"] = {"version": "3.11.7", "implementation": "CPython", "platform": "linux",
                            "machine": "aarch64"}
    snap = make_snapshot(str(tmp_path / "gh200"), files)
    out = subprocess.run([sys.executable, "-m", "envcheck", "fix", "--snapshot", snap, "--want", "torch", "--json"],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    text = json.dumps(doc)
    assert '"2.15.0"' in text and "cu132" in text
    assert "download.pytorch.org/whl/cu132" not in text  # the PyPI wheel itself is cu132 on aarch64
    assert '"2.14.1"' not in text


@pytest.mark.parametrize("version, commit", [("13.3.0", "350ad9c964a78b80c405cb3f4ff24e6d027af492"),
                                             ("13.3.1", "65c8b54aec6efd0d941ab223d2478a6c91e2de10")])
def test_13_3_driver_floor_corroborated_by_nvidias_manifest(version, commit):
    """NVIDIA's redistrib_13.3.x.json (nixpkgs' copies) name nvidia_driver 610.43.02, the value the rows took from
    transcriptions of the release notes."""
    row = [r for r in M.rows("cuda", "toolkit") if r["version"] == version][0]
    assert row["min_driver_linux"] == "610.43.02"
    assert f"NixOS/nixpkgs@{commit}" in row["derived"] and f"redistrib_{version}.json" in row["derived"]


@pytest.mark.parametrize("version", ["13.4.1", "13.4.2"])
def test_13_4_manifests_say_why_there_is_no_driver(version):
    row = [r for r in M.rows("cuda", "toolkit") if r["version"] == version][0]
    assert f"redistrib_{version}.json" in row["derived"] and "no nvidia_driver component" in row["derived"]
