"""The lead's session-18 checks (issue 20): a /dev/dri node that Mesa's libEGL may not open is no cause of a CUDA
failure on an NVIDIA machine, and still device-permission where nothing shows NVIDIA's GPU."""
from pathlib import Path

from envcheck.explain import explain_text

DATA = Path(__file__).parent / "data" / "lead18"


def _ids(text: str):
    return [m.id for m in explain_text(text)]


def test_dri_denied_alone_is_device_permission():
    # dm_control#214: the warnings alone (no vendor in the text): the node's access is what the thread fixed
    text = (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text()
    assert _ids(text)[:1] == ["device-permission"]


def test_dri_denied_beside_nvidia_gpu_is_dropped():
    # the same warnings in a text that shows NVIDIA's driver and GPUs (dm_control#415's server lines): CUDA never opens
    # a DRI node, so the warning names no cause there
    text = (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text() \
        + (DATA / "dm-control-415-server-smi-versions.txt").read_text()
    assert "device-permission" not in _ids(text)


def test_dri_denied_beside_amd_gpu_stays():
    # an AMD GPU named beside the same line keeps it (ROCm opens the render node)
    text = "rocminfo\nROCk module is loaded\nName: gfx1100\nMarketing Name: AMD Radeon RX 7900 XTX\n" \
        + (DATA / "dm-control-214-libegl-renderd-permission-mujoco-egl.log").read_text()
    assert "device-permission" in _ids(text)
