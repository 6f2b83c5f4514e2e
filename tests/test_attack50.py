"""attack50 (session 23): false statements found in the session's first merges, each with the smallest fix.

* lead (e113f544), CuPy's targets as a floor: ``cupy-cuda11x`` on a GPU newer than every CUDA 11.x target (a Blackwell
  GPU: compute capability 10.0 / 12.0; CUDA 11.8's newest target is 9.0, compat_matrix/cuda.toml ``[[targets]]``) was
  "not checked ... a newer CUDA 11.x NVRTC may target it" - no CUDA 11.x NVRTC does: cupy-cuda11x loads only
  ``libnvrtc.so.11.2`` (CUDA 11.2 - 11.8; cupy/cupy cupy_backends/cuda/libs/_cnvrtc.pxi), and CuPy caps the target at
  the NVRTC's newest (``_get_max_compute_capability``: '90' for 11.8, cupy/cupy cupy/cuda/compiler.py), building a
  cubin the Blackwell GPU cannot run (cupy/cupy#9121 with NVRTC 12.6). The floor now applies only while some toolkit
  of the build's CUDA major targets the GPU (envcheck/engine/__init__.py ``_check_arch``); otherwise
  gpu-arch-unsupported, as before e113f544. Constructed snapshots (tests/helpers gpu_machine / make_snapshot).
* jetson38, ``container_l4t``: a REAL docs page listing NVIDIA's l4t-pytorch tags under their JetPack headings
  ("JetPack 5.1 (L4T R35.2.1)" ... "JetPack 4.6.1 (L4T R32.7.1)", and "If there is difference of minor version x.x.1,
  it does not work"; akihitron/dm compute/src/README.md, the whole file) was driver-too-old: the first heading read as
  the board's release, an r32 tag as the image it ran. No board is named there: an L4T release of the image's own
  line named outside an image (a heading over its tags) leaves the board unknown (the reader's ``l4t-hosts-*`` facts,
  envcheck/engine/jetson_prose.py). The spent drvold37-held #725 thread (the image's release named only as a tag and
  "r35.4", the board's as "[L4T 36.4.0]") still says driver-too-old (tests/test_jetson38.py).
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import explain_cli_matches, gpu_machine, make_snapshot  # noqa: E402

from envcheck.paste.readers.jetson_image import line_facts  # noqa: E402


# -- CuPy on a GPU no toolkit of its CUDA major targets ------------------------------------------------------------
def _cupy_findings(tmp_path, name, cc, packages):
    files = gpu_machine("580.65.06", "13.0", [(name, 32607)], cc=[cc])
    files["packages.json"] = packages
    snap = make_snapshot(str(tmp_path / "snap"), files)
    r = subprocess.run([sys.executable, "-m", "envcheck", "status", "--snapshot", snap, "--json"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
    return [f for f in json.loads(r.stdout)["findings"] if f.get("component") == "cupy"]


@pytest.mark.parametrize("name,cc,packages", [
    ("NVIDIA GeForce RTX 5090", "12.0", {"cupy-cuda11x": "13.6.0"}),
    ("NVIDIA B200", "10.0", {"cupy-cuda11x": "13.6.0", "nvidia-cuda-nvrtc-cu11": "11.8.89"}),
])
def test_cupy_cuda11x_on_a_blackwell_gpu_fails(tmp_path, name, cc, packages):
    got = _cupy_findings(tmp_path, name, cc, packages)
    arch = [f for f in got if f["id"] == "gpu-arch-unsupported"]
    assert arch and f"compute capability {cc}" in arch[0]["message"], [(f["id"], f["message"][:120]) for f in got]
    assert not [f for f in got if "may target it" in f["message"]]


def test_cupy_cuda11x_on_a_hopper_gpu_stays_unknown(tmp_path):
    # CUDA 11.8 targets compute capability 9.0: a newer 11.x NVRTC than the floor (11.2) may reach it
    got = _cupy_findings(tmp_path, "NVIDIA H100 80GB HBM3", "9.0", {"cupy-cuda11x": "13.6.0"})
    assert not [f for f in got if f["id"] == "gpu-arch-unsupported"]
    assert [f for f in got if f["id"] == "not-checked" and "compute capability 9.0" in f["message"]]


# -- a docs list of Jetson image tags under their JetPack headings -------------------------------------------------
AKIHITRON_DM_README = """### Installation for nvidia-docker

JetPack image is super restricted compatibility. If there is difference of minor version x.x.1, it does not work.

NGC Catalog : [https://catalog.ngc.nvidia.com/orgs/nvidia/containers/l4t-pytorch](https://catalog.ngc.nvidia.com/orgs/nvidia/containers/l4t-pytorch)

JetPack 5.1 (L4T R35.2.1)

- nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3
  - PyTorchv2.0.0
  - torchvisionv0.14.1
  - torchaudiov0.13.1

JetPack 5.0.2 (L4T R35.1.0)

- nvcr.io/nvidia/l4t-pytorch:r35.1.0-pth1.11-py3
  - PyTorchv1.11.0
  - torchvisionv0.12.0
  - torchaudiov0.11.0
- nvcr.io/nvidia/l4t-pytorch:r35.1.0-pth1.12-py3
  - PyTorchv1.12.0
  - torchvisionv0.13.0
  - torchaudiov0.12.0
- nvcr.io/nvidia/l4t-pytorch:r35.1.0-pth1.13-py3
  - PyTorchv1.13.0
  - torchvisionv0.13.0
  - torchaudiov0.12.0

JetPack 5.0.1 Developer Preview (L4T R34.1.1)

- nvcr.io/nvidia/l4t-pytorch:r34.1.1-pth1.11-py3
  - PyTorchv1.11.0
  - torchvisionv0.12.0
  - torchaudiov0.11.0
- nvcr.io/nvidia/l4t-pytorch:r34.1.1-pth1.12-py3
  - PyTorchv1.12.0
  - torchvisionv0.12.0
  - torchaudiov0.11.0

JetPack 5.0.0 Developer Preview (L4T R34.1.0)

- nvcr.io/nvidia/l4t-pytorch:r34.1.0-pth1.12-py3
  - PyTorchv1.12.0
  - torchvisionv0.12.0
  - torchaudiov0.11.0

JetPack 4.6.1 (L4T R32.7.1)

- nvcr.io/nvidia/l4t-pytorch:r32.7.1-pth1.9-py3
  - PyTorchv1.9.0
  - torchvisionv0.10.0
  - torchaudiov0.9.0
- nvcr.io/nvidia/l4t-pytorch:r32.7.1-pth1.10-py3
  - PyTorchv1.10.0
  - torchvisionv0.11.0
  - torchaudiov0.10.0

JetPack 4.6 (L4T R32.6.1)

- nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.8-py3
  - PyTorchv1.8.0
  - torchvisionv0.9.0
  - torchaudiov0.8.0
- nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.9-py3
  - PyTorchv1.9.0
  - torchvisionv0.10.0
  - torchaudiov0.9.0

JetPack 4.5 (L4T R32.5.0)

- nvcr.io/nvidia/l4t-pytorch:r32.5.0-pth1.6-py3
  - PyTorchv1.6.0
  - torchvisionv0.7.0
  - torchaudiov0.6.0
- nvcr.io/nvidia/l4t-pytorch:r32.5.0-pth1.7-py3
  - PyTorchv1.7.0
  - torchvisionv0.8.0
  - torchaudiov0.7.0

JetPack 4.4.1 (L4T R32.4.4)

- nvcr.io/nvidia/l4t-pytorch:r32.4.4-pth1.6-py3
  - PyTorchv1.6.0
  - torchvisionv0.7.0
  - torchaudiov0.6.0

JetPack 4.4 (L4T R32.4.3)

- nvcr.io/nvidia/l4t-pytorch:r32.4.3-pth1.6-py3
  - PyTorchv1.6.0
  - torchvisionv0.7.0
  - torchaudiov0.6.0

JetPack 4.4 Developer Preview (L4T R32.4.2)

- nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.5-py3
  - PyTorchv1.5.0
  - torchvisionv0.6.0
- nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.4-py3
  - PyTorchv1.4.0
  - torchvisionv0.5.0
- nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.3-py3
  - PyTorchv1.3.0
  - torchvisionv0.4.2
- nvcr.io/nvidia/l4t-pytorch:r32.4.2-pth1.2-py3
  - PyTorchv1.2.0
  - torchvisionv0.4.0
"""


def test_docs_list_of_l4t_tags_under_jetpack_headings_is_no_container_mismatch():
    matches = explain_cli_matches("--no-detect", "-", text=AKIHITRON_DM_README)
    assert "driver-too-old" not in [m["id"] for m in matches], [(m["id"], m["evidence"][:100]) for m in matches]


def test_every_host_release_a_line_names_is_read_by_its_major():
    line = "JetPack 4.6.1 (L4T R32.7.1)"
    facts = {f.field[len("seen:"):]: f.value for f in line_facts(line, line.lower())}
    assert facts["l4t-host"].split(" | ", 1)[0] == "jetpack|4.6.1"
    assert facts["l4t-hosts-l4t-32"].split(" | ", 1)[0] == "l4t|32.7.1"
    assert facts["l4t-hosts-jetpack-4"].split(" | ", 1)[0] == "jetpack|4.6.1"


def test_board_release_of_another_line_than_the_image_still_judged():
    # constructed: the board's release said once ("L4T_VERSION=32.7.4"), an r36 image failing on it
    text = ("-- L4T_VERSION=32.7.4  JETPACK_VERSION=4.6.4  CUDA_VERSION=10.2.300\n"
            "docker run --runtime nvidia -it --rm dustynv/opencv:4.8.1-r36.2.0\n"
            "ImportError: libnvrm.so: cannot open shared object file: No such file or directory\n")
    matches = explain_cli_matches("--no-detect", "-", text=text)
    assert "driver-too-old" in [m["id"] for m in matches], [(m["id"], m["evidence"][:100]) for m in matches]


# dusty-nv/jetson-containers#875 (a TX2 on L4T 32.7.6, the head of its description, cut at a line end): autotag, whose
# table lacked 32.7.6, printed "JETPACK_VERSION=5.1" beside "L4T_VERSION=32.7.6" and suggested an r36 image; nothing
# ran in it (the error is Python 3.6 refusing ``str | None``). The host's own line names two JetPack lines: no board
# release is known, so no container mismatch is claimed.
JETSON_CONTAINERS_875 = """I tried to use jetson-containers on a Jetson TX2, unfortunately, it seems that there are some issues with the code. Autotag doesn't work properly.

In the utils.py file, line 135 (`def handle_text_request(url) -> str | None:`) throws an error, I replaced it with `def handle_text_request(url) -> str:` so that autotag at least works

Now, `autotag pytorch` returns the following
```
Namespace(disable=[''], output='/tmp/autotag', packages=['pytorch'], prefer=['local', 'registry', 'build'], quiet=False, user='dustynv', verbose=False)
-- L4T_VERSION=32.7.6  JETPACK_VERSION=5.1  CUDA_VERSION=10.2
-- Finding compatible container image for ['pytorch']
dustynv/pytorch:2.6-r36.4.0-cu128
```
It seems it does not properly recognize the JETPACK_VERSION, it should be 4.6.6. Looking at l4t_version.py, I see there is no line for L4T 32.7.6. After adding it (i.e., `"32.7.6": "4.6.6",` in line 110, `autotag pytorch` works better, but still returns the wrong image name:
"""


def test_host_line_naming_two_jetpack_lines_is_no_known_board():
    matches = explain_cli_matches("--no-detect", "-", text=JETSON_CONTAINERS_875)
    assert "driver-too-old" not in [m["id"] for m in matches], [(m["id"], m["evidence"][:100]) for m in matches]


# constructed boundary probes (no real thread found in the time): a release said of another board is not this one's
@pytest.mark.parametrize("line", [
    "On my other board (Jetson Nano, JetPack 4.6) everything works fine.",
    "Works on another Jetson with L4T 35.4.1 but here it fails",
])
def test_release_of_another_board_is_no_host(line):
    assert not [f for f in line_facts(line, line.lower()) if f.field.startswith("seen:l4t-host")]


def test_other_board_release_does_not_make_a_container_mismatch():
    text = ("On my other board (Jetson Nano, JetPack 4.6) everything works fine.\n"
            "On the Orin I run docker run --runtime nvidia -it dustynv/l4t-pytorch:r36.2.0 and get\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    matches = explain_cli_matches("--no-detect", "-", text=text)
    assert "driver-too-old" not in [m["id"] for m in matches], [(m["id"], m["evidence"][:100]) for m in matches]


def test_own_board_release_still_read_beside_other_words():
    line = "My Orin runs JetPack 6.0 and the other devices too"
    facts = {f.field[len("seen:"):]: f.value for f in line_facts(line, line.lower())}
    assert facts["l4t-host"].split(" | ", 1)[0] == "jetpack|6.0"
