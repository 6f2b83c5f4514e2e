"""Session 25, the lead: acceptance30's misses mended by the lead (not blind any more; see heldout/acceptance30)."""

import os

from envcheck.parse.nvidia_smi import parse_list

# a GPU-operator guide's "Expected output" of `kubectl exec ... -- nvidia-smi -L` (find_string id 43638063666,
# heldout/acceptance30/captures): the MIG devices' UUIDs elided as "..."
_ELIDED_MIG = """GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)
  MIG 1g.10gb     Device 0: ...
  MIG 1g.10gb     Device 1: ...
GPU 1: NVIDIA H100 80GB HBM3 (UUID: ...)
  MIG 3g.40gb     Device 2: ...
GPU 3: NVIDIA H100 80GB HBM3 (UUID: ...)
  MIG 7g.80gb     Device 0: \u2026
"""


def test_mig_lines_with_elided_uuids_are_mig_devices_not_gpus():
    t = parse_list(_ELIDED_MIG)
    assert [g.index for g in t.gpus] == [0, 1, 3]
    assert t.mig_devices == 4
    assert all(g.mig_enabled for g in t.gpus)
    assert t.gpus_complete is False  # GPU 2 is not listed


def test_a_mig_line_must_end_at_its_ellipsis_or_hold_a_uuid():
    # "Device 0: ... something" is not the listing's elision: not counted as a MIG device
    t = parse_list("GPU 0: NVIDIA A100 (UUID: GPU-7fdaf0a5-179b-f636-d15d-daf243e3ff16)\n"
                   "  MIG 1g.10gb Device 0: ... and then the pod crashed\n")
    assert t.mig_devices == 0
    assert not t.gpus[0].mig_enabled


def test_an_ollama_gfx_target_no_table_knows_is_not_judged():
    """ollama/ollama#14921 (tests/data/logs/vlogs24, a healthy-labelled regression thread): "Strix halo (gfx1511)" is a
    typo for gfx1151; a target that no table of the matrix names is unknown, so its absence from Ollama's build lists
    says nothing (amd42's rule gave gpu-arch-unsupported). The same text with the real target, not in the thread's
    release list either, is still judged."""
    from envcheck.engine.ollama_amd import known_gfx
    from envcheck.matrix import load_matrix
    from tests.helpers import explain_cli_matches

    known = known_gfx(load_matrix())
    assert "gfx1151" in known and "gfx803" in known and "gfx1511" not in known
    path = os.path.join(os.path.dirname(__file__), "data", "logs", "vlogs24",
                        "ollama-0.18-rocm-strix-halo-filtering-device-didnt-fully-initialize-14921.log")
    assert [m["id"] for m in explain_cli_matches("--no-detect", path)] == []


def test_a_known_gfx_missing_from_the_stated_release_is_still_judged(tmp_path):
    # constructed from acceptance23's Ollama-for-AMD installer thread wording: an RX 580 (gfx803), which no Ollama
    # ROCm build lists
    from tests.helpers import explain_cli_matches

    p = tmp_path / "t.txt"
    p.write_text("# ollama does not use my RX 580 (gfx803)\n\nuser \u00b7 description \u00b7 2024-06-01\n"
                 "Ollama 0.1.41 on Linux: my RX 580 (gfx803) is not detected, it runs 100% on CPU.\n", encoding="utf-8")
    assert [m["id"] for m in explain_cli_matches("--no-detect", str(p))][:1] == ["gpu-arch-unsupported"]
