"""intel34 (session 21): Battlemage (Arc B-series, Xe2) on a Linux kernel older than the GPU, read by ``envcheck explain``.

Real threads in tests/data/intel34 (README: file, label, source); a third of the collection was held back in
heldout/intel34-held/pastes before any rule was written (scored by scripts/score_pastes.py, never asserted here). What
the rules read:

* compat_matrix/xpu.toml ``[[intel_kernel]]`` gives Battlemage (the bmg-g21 group: B570, B580, Pro B50, Pro B60) the
  floor Intel's compute-runtime maintainer states, Linux 6.12 (intel/compute-runtime#836), and the family's code name
  (``codenames``) for a text that names the family only (lspci's "Battlemage G21 [Intel Graphics]");
* envcheck/paste/readers/linux_kernel.py reads that code name and a release written before its word
  ("with 6.8.0-51-generic kernel"); the engine (``intel_kernel_too_old``) does not judge Canonical's Intel enablement
  kernels ("6.11.0-1005-intel": a B580 runs on xe there).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_dev_sample, check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "intel34")
HELD = os.path.join(ROOT, "heldout", "intel34-held", "pastes")


def _rows(folder):
    return sample_rows(folder, ".txt")


DEV_ROWS = _rows(DEV)


def test_listing():
    check_split_listing(DEV, HELD, ".txt", min_dev=5, min_held=3, min_none=4)


@pytest.mark.parametrize("name,label,source", DEV_ROWS, ids=[r[0][:60] for r in DEV_ROWS])
def test_dev_thread(name, label, source):
    check_dev_sample(os.path.join(DEV, name), label)


def test_battlemage_on_6_8_names_the_floor_and_its_source():
    m = explain_cli_matches("--no-detect", os.path.join(
        DEV, "intel-gpu-i915-backports-209-battlemage-g21-ubuntu-24.04-kernel-6.8.0-51-not-loaded.txt"))[0]
    assert m["id"] == "driver-too-old"
    assert "6.8.0-51-generic" in m["evidence"] and "Linux 6.12" in m["evidence"] and "Battlemage" in m["evidence"]
    assert "compute-runtime/issues/836" in m["evidence"]
    assert "NVIDIA" not in m["title"]


def test_spent_docker_boinc_battlemage_on_6_11():
    # acceptance23's miss: an Ubuntu 24.04.2 base image (Linux Kernel 6.11) and "Intel arc/battlemage iGPUs"
    path = os.path.join(ROOT, "heldout", "acceptance23", "pastes",
                        "docker-boinc-28-ubuntu-24.04.2-kernel-6.11-base-image-no-support-for-newer-intel-arc-"
                        "battlemage-igpus.txt")
    m = explain_cli_matches("--no-detect", path)[0]
    assert m["id"] == "driver-too-old" and "6.11" in m["evidence"] and "Linux 6.12" in m["evidence"]


# -- the evidence (envcheck/paste/readers/linux_kernel.py), on real lines ------------------------------------------------
def _facts(line):
    from envcheck.paste.readers.linux_kernel import line_facts

    s = line.strip()
    return {f.field: str(f.value).split(" | ")[0] for f in line_facts(s, s.lower())}


@pytest.mark.parametrize("line,gpu", [
    # intel-gpu/intel-gpu-i915-backports#209, canonical/intel-graphics-preview#14 (lspci)
    ("03:00.0 VGA compatible controller: Intel Corporation Battlemage G21 [Intel Graphics]", "Battlemage"),
    # linuxserver/docker-boinc#28 (a title)
    ("# [FEAT] Ubuntu 24.04.2 LTS w/ Linux Kernel 6.11 doesn't support Intel arc/battlemage iGPUs", "Battlemage"),
    # an Arc model still wins over the code name on its line (intel/compute-runtime#947)
    ("Intel Arc B580 (Battlemage G21, PCI 8086:b080) with Level Zero 26.22", "Intel(R) Arc(TM) B580 Graphics"),
    # a support list names no one GPU of the machine (PyTorch's XPU page, as xpu.toml's gpus quote it)
    ("Intel Arc A-Series (Alchemist), Intel Arc B-Series (Battlemage), Intel Core Ultra (Meteor Lake)", None),
    ("Intel® Arc™ B-Series (Battlemage) and Intel® Core™ Ultra 200V (Lunar Lake)", None),
    # a game's class, no word of a GPU (one word only is read)
    ("Battle Mage: tier 2 striker", None),
])
def test_battlemage_named(line, gpu):
    assert _facts(line).get("seen:intel-gpu-named") == gpu


@pytest.mark.parametrize("line,release", [
    # intel-gpu/intel-gpu-i915-backports#209
    ("I managed to build the i915 dkms module on ubuntu 24.04 with 6.8.0-51-generic kernel, but I still don't see "
     "i915 being loaded.", "6.8.0-51-generic"),
])
def test_release_before_its_word(line, release):
    assert _facts(line).get("seen:linux-kernel") == release


@pytest.mark.parametrize("line", [
    # the same thread: a kernel to come, no local version: not read
    "Regarding Battlemage support, I will just wait for a month for the ubuntu 24.04.2 released with 6.11 kernel.",
    "launching a CUDA 7.5 kernel on the device",  # a CUDA release before "kernel": no local version, not read
    "the 2.6 kernel interface",
])
def test_no_release_before_its_word(line):
    assert "seen:linux-kernel" not in _facts(line)


# -- the engine's rule ---------------------------------------------------------------------------------------------------
def _rule(lines, facts=None):
    from envcheck.engine.vendors_prose import intel_kernel_too_old
    from envcheck.matrix import load_matrix

    return intel_kernel_too_old(load_matrix(), facts or {}, lines)


B580 = "Intel(R) Arc(TM) B580 Graphics | Arc B580"
BMG = "Battlemage | 03:00.0 VGA compatible controller: Intel Corporation Battlemage G21 [Intel Graphics]"


@pytest.mark.parametrize("kernel,gpu,says", [
    ("6.8.0-51-generic | ...", BMG, True),
    ("6.11.0-19-generic | ...", B580, True),
    ("6.12.35 | ...", B580, False),  # the floor itself (intel/compute-runtime#836)
    ("6.17.0-35 | ...", B580, False),
    ("6.10.3-1-default | ...", "0xe20b | Intel Corporation Device e20b", True),  # a B580 by its PCI id
    # Canonical's Intel enablement kernel: a B580 runs on xe there (canonical/intel-graphics-preview#14)
    ("6.11.0-1005-intel | Kernel: 6.11.0-1005-intel", B580, False),
    ("6.11.0-1006-intel | ...", BMG, False),
    # a Battlemage G31 (Pro B70) by its id: no floor of its own in the matrix, nothing
    ("6.8.0-51-generic | ...", "0xe223 | 8086:e223", False),
])
def test_battlemage_floor(kernel, gpu, says):
    got = _rule({"linux-kernel": kernel, "intel-gpu-named": gpu})
    assert (got is not None) is says, got
    if says:
        assert got.id == "driver-too-old" and "6.12" in got.message


def test_matrix_row_cites_intel():
    from envcheck.matrix import load_matrix

    rows = [r for r in load_matrix().rows("xpu", "intel_kernel") if "bmg-g21" in (r.get("groups") or [])]
    assert len(rows) == 1
    row = rows[0]
    assert row["min_kernel"] == "6.12" and row["codenames"] == ["Battlemage"]
    assert row["source"] == "https://github.com/intel/compute-runtime/issues/836"
    assert "bmg-g31" not in row["groups"]  # no statement of Intel's for G31: not judged by id
