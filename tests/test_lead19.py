"""Session 19's lead changes, each from a real H200 run (heldout/realgpu20, tests/data/real/h200-580.159.04-broken-states).

- nvcc 13.0's own words for an architecture it dropped, ``nvcc fatal : Unsupported gpu architecture 'sm_35'`` (the
  ``sm_`` spelling; the rule read only ``compute_XX``), made for real on the H200 by ``nvcc -arch=sm_35``: now
  ``cuda-toolkit-mismatch``, and the fix says from the matrix's toolkit targets which toolkits build it (Kepler sm_35
  was last built by CUDA 11.8: CUDA 12.0's release notes drop it), or that a newer one is needed (compute_120 first in
  CUDA 12.8, Blackwell's first toolkit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REAL = Path(__file__).parent.parent / "heldout" / "realgpu20" / "logs"


def _explain(text: str, *args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "envcheck", "explain", "--json", *args, "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_the_real_nvcc_13_refusal_of_sm_35_is_read():
    text = (REAL / "nvcc-13.0-arch-sm35-unsupported-gpu-architecture.log").read_text()
    doc = _explain(text, "--no-detect")
    assert [m["id"] for m in doc["matches"]][:1] == ["cuda-toolkit-mismatch"]


@pytest.mark.parametrize("arch,says", [
    ("sm_35", "CUDA 11.8 or older"),       # Kepler: dropped by CUDA 12.0
    ("compute_30", "CUDA 10.2 or older"),  # dropped by CUDA 11.0
    ("compute_120", "CUDA 12.8+"),         # Blackwell consumer: first in CUDA 12.8
    ("sm_90", "CUDA 11.8+"),               # Hopper: first in CUDA 11.8
])
def test_the_fix_says_which_toolkits_build_the_architecture(arch, says):
    doc = _explain(f"nvcc fatal   : Unsupported gpu architecture '{arch}'\n")
    m = doc["matches"][0]
    assert m["id"] == "cuda-toolkit-mismatch"
    assert says in m["fixes"][0], m["fixes"][0]


def test_an_architecture_no_toolkit_builds_is_said_so():
    doc = _explain("nvcc fatal   : Unsupported gpu architecture 'sm_99'\n")
    m = doc["matches"][0]
    assert m["id"] == "cuda-toolkit-mismatch" and "No CUDA toolkit envcheck's matrix lists builds sm_99" in m["fixes"][0]
