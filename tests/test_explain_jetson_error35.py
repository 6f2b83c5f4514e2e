"""CUDA's error 35 ("CUDA driver version is insufficient for CUDA runtime version") on a Jetson: the GPU driver is L4T's,
flashed with JetPack, never upgraded on its own, and inside a container the error most often means the container's L4T
/ JetPack is not the host's or the container was started without the NVIDIA runtime. The Jetson reading says that
(driver-too-old's fix with ``when = "jetson"``), and none of the desktop / server driver advice (the x86 fixes have
``when = "!jetson"``; explain/machine.py's driver floors are not given on a Jetson). Read on obico-server#515's real
text (heldout/vlogs21s: a darknet container on a Jetson Nano)."""

from __future__ import annotations

import os

from envcheck.explain.document import explain_text_document

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OBICO = os.path.join(ROOT, "heldout", "vlogs21s", "jetson-obico-darknet-insufficient-driver-devicequery-10.2-10.0-515.log")
_DESKTOP = os.path.join(ROOT, "tests", "data", "logs", "bladebit-cudaErrorInsufficientDriver.log")


def _top(path):
    with open(path, encoding="utf-8") as fh:
        doc = explain_text_document(fh.read())
    assert doc["matches"], path
    return doc["matches"][0]


def test_error_35_on_a_jetson_says_l4t_and_the_container():
    m = _top(_OBICO)
    assert (m["id"], m["signature"]) == ("driver-too-old", "cuda-35-insufficient")
    first = m["fixes"][0]
    assert first.startswith("On a Jetson the GPU driver is part of L4T")
    assert "container" in first and "L4T" in first and "nvidia" in first
    text = " ".join(m["fixes"])
    assert "Upgrade the NVIDIA driver" not in text  # a desktop / server driver upgrade
    assert "cu118 PyTorch wheel" not in text
    assert "builds need a driver >=" not in text  # the matrix's desktop driver floors


def test_error_35_elsewhere_keeps_the_driver_upgrade():
    m = _top(_DESKTOP)
    assert m["id"] == "driver-too-old"
    text = " ".join(m["fixes"])
    assert "Upgrade the NVIDIA driver" in text and "part of L4T" not in text


def test_a_pasted_reports_own_finding_keeps_to_the_fixes_conditions():
    # pytorch#28321's collect_env (a T4 with driver 410): driver-too-old comes from the pasted report's checks (no log
    # line), made with the cause's fixes; a fix for a Jetson (when = "jetson") is no fix of this desktop machine
    m = _top(os.path.join(ROOT, "tests", "data", "pastes", "dev",
                          "torch-28321-collect-env-1.3.0-conda-cuda10.1-driver-410-t4.txt"))
    assert (m["id"], m["signature"]) == ("driver-too-old", "paste-finding")
    assert not any("part of L4T" in f for f in m["fixes"]), m["fixes"]
    assert any(f.startswith("Upgrade the NVIDIA driver") for f in m["fixes"])
