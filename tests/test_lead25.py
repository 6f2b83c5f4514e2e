"""Session 25, the lead: acceptance30's misses mended by the lead (not blind any more; see heldout/acceptance30)."""

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
