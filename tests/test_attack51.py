"""attack51 (session 24): false statements found in session 23's second-round merges, each with the smallest fix.

Real threads were tried first (search corpus ``issues``; cited below): every one of them was read right, and they stay
here as controls. The false statements were found with constructed probes at the rules' boundaries (said so at each):

* newgpu39, ``arch_stated``: a CUDA a sentence states of ANOTHER machine's GPU ("My old workstation with a GTX 1080 Ti
  uses CUDA 10.0. The new RTX 3090 requires CUDA 11 ...") was judged against the GPU the other sentence names:
  gpu-arch-unsupported ranked above the text's own out-of-memory failure. The reader now keeps the GPUs the CUDA's
  sentence names before it (``cuda-used-gpus``) and the engine does not give that CUDA to a GPU of another compute
  capability. Also: a CUDA stated outside the running build (the repo's Dockerfile's ``nvidia/cuda:10.2-...``, "but I
  don't use docker") where the torch build the text runs (``+cu118``) reaches the GPU.
* pyarch39, ``_amd64_refused``: pip refusing a ``win_amd64`` torch wheel of the named Python's version was said to be a
  32-bit Python also where the text says the Python runs on Ubuntu, or shows it 64-bit ("[MSC v.1929 64 bit (AMD64)]").
* jetmem39, ``jetson_memory``: TensorRT's std::bad_alloc in a text that builds the engine on a desktop RTX and names the
  Jetson only as where it will be deployed was "The Jetson ran out of the memory its GPU shares": which machine's memory
  ran out is not known where a desktop GPU is named too.
"""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.paste.readers import cuda_used


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _evidence(line: str) -> dict:
    return {f.field[5:]: f.value for f in cuda_used.line_facts(line, line.lower())}


# ------------------------------------------------------------------ newgpu39: the CUDA of another machine (constructed)

OTHER_MACHINE_OOM = """\
My old workstation with a GTX 1080 Ti uses CUDA 10.0. The new RTX 3090 requires CUDA 11, so on the new one I installed CUDA 11.1 and torch 1.8.0+cu111.
Now training on the 3090 fails with:
RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.70 GiB total capacity; 20.1 GiB already allocated)
"""

COMPARISON = """\
Comparison: RTX 3090 vs RTX 2080 Ti. The 2080 Ti runs CUDA 10.0 fine. The 3090 requires CUDA 11.
Benchmark results: 3090 is 1.5x faster.
"""

V100_SERVER = """\
Our server has a Tesla V100 using CUDA 10.1, the RTX 3090 is not compatible with CUDA 10.1 so we run it on the V100.
RuntimeError: CUDA error: device-side assert triggered
"""

DOCKERFILE_NOT_USED = """\
The repo's Dockerfile is based on nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04, but I don't use docker; I run it natively with torch 2.0.1+cu118 on an RTX 4090.
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total capacity; 22.68 GiB already allocated)
"""


def test_the_cuda_of_an_older_machine_is_not_the_new_gpus():
    assert _ids(OTHER_MACHINE_OOM)[0] == "gpu-out-of-memory"
    assert "gpu-arch-unsupported" not in _ids(OTHER_MACHINE_OOM)


@pytest.mark.parametrize("text", [COMPARISON, V100_SERVER], ids=["comparison", "v100-server"])
def test_a_cuda_said_of_another_gpu_says_nothing_of_the_3090(text):
    assert "gpu-arch-unsupported" not in _ids(text)


def test_a_dockerfile_the_reporter_does_not_run_is_not_the_failing_cuda():
    assert _ids(DOCKERFILE_NOT_USED) == ["gpu-out-of-memory"]


def test_the_reader_keeps_the_gpu_the_cudas_sentence_names():
    got = _evidence("My old workstation with a GTX 1080 Ti uses CUDA 10.0. The new RTX 3090 requires CUDA 11.")
    assert got["cuda-used-said"].startswith("10.0 | ")
    assert got["cuda-used-gpus"].split(" | ")[0] == "GTX 1080 Ti"
    # a sentence naming no GPU before its CUDA has no owner (newgpu39's own neural-audio-fp#20 line)
    got = _evidence("The docker image provided is built with `cuda 10.1`. However, 3090 GPU requires `cuda 11`.")
    assert "cuda-used-gpus" not in got


def test_the_same_gpu_owning_the_cuda_still_fails():
    # the boundary the other way: the sentence's GPU is the one judged ("I have an RTX 3090 and use CUDA 10.2")
    text = ("I have an RTX 3090 and use CUDA 10.2. The 3090 requires CUDA 11.\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert _ids(text)[0] == "gpu-arch-unsupported"
    text = "I have an RTX 3090 and use CUDA 10.2, and the RTX 3090 requires CUDA 11, so nothing runs.\n"
    assert _ids(text)[:1] == ["gpu-arch-unsupported"]


# ------------------------------------------------------------------ real threads (controls; all read right before too)

REAL = {
    # gpustack/gpustack#3807: a question whether a Blackwell card that "requires cuda-toolkit-12-9" is supported
    "gpustack-3807": ("""\
# support for NVIDIA RTX PRO 6000 Blackwell 96GB GDDR7 - cuda 12.9

travelyoga · description · 2025-12-09
### 📝 Your Question

the rtx pro 6000 blackwell requires
cuda-toolkit-12-9
is this supported on gpustack 2.0.1?

pengjiang80 · comment · 2025-12-10
RTX6000 should work with CUDA 12.8+ instead of CUDA 13.0+. You can try with the standard installation.
""", "none"),
    # advimman/CIPS#12: a title asking of an RTX 3090 and CUDA 11, answered "it works fine"
    "cips-12": ("""\
# Is this code compatible with RTX 3090, CUDA Version 11 ?

shlee625 · comment · 2021-09-15
I've tried and it works fine.
""", "none"),
    # km2ii/JVP_TG-PLUS#31: "11.0 is not supported" of the RTX 30 series said to a GTX 1080 owner
    "jvp-31": ("""\
# works only with cuda 11.1?

gef12 · description · 2021-09-07
I have cuda 11.0 installed and I can't install cuda 11.1 due to incompatibility with another application, it would have some way of working on 11.0, I did the installation, but I see little use of dedicated video card and Vram 0.2 in cuda 11.0

km2ii · comment · 2021-09-08
CUDA 11.1 start support for NVIDIA GeForce RTX 30 Series. 11.0 is not supported.

gef12 · comment · 2021-09-08
thanks for the mod, I have GTX 1080 so it won't work.
""", "none"),
    # TencentYoutuResearch/ActionDetection-AFSD#44: two machines (one's CUDA 11.2, the 3090 server's 11.1 / 11.4)
    "afsd-44": ("""\
# setup.py in 3090

neauniko · description · 2022-06-12
你好，我在我自己的电脑上（cuda11.2）可以进行setup.py并运行后续程序，但是在3090的服务器中（cuda11.1 cuda11.4）进行训练时，在boundary_max_pooling_cuda处总是会报错 cuda runtime error（209）:no kernel image is available foe execution on the device.
我调整了好多torch和cuda版本，但好像并不是版本不匹配的问题
""", "gpu-arch-unsupported"),
    # dusty-nv/jetson-inference#1333: a Jetson Nano segfault, "I have a 6 GB swap file, so memory isn't the issue" (numpy)
    "jetson-inference-1333": ("# Segmentation Fault (Core Dumped) Error while training\n\nCiaranMcDermott · description · 2022-01-06\nHi Dusty, \nI am following your tutorial on training an object detector on the Jetson nano. When I run the training command:\n\n```python3 train_ssd.py --data=data/fruit --model-dir=models/fruit --batch-size=4 --epochs=3```\n\nIt gives the following error:\n\n```Segmentation fault (core dumped)```\n\nNothing else is printed to the screen at all, so I'm assuming it doesn't even begin the training process. I have searched online and in other issues here and have found no solution that works for me. I have a 6 GB  swap file, so memory isn't the issue. I ran tegrastats while it was running and saw that memory was not an issue. I also tried disabling the desktop GUI but no luck.\n\nI tried re-downloading the files from github using ```git clone --recursive https://github.com/dusty-nv/jetson-inference``` but the issue remained. \n\nI am using Jetpack version 4.6 and python 3.6. Using the docker container is not an option for me as it doesn't suit my project.\nI am at a loss and have run out of ideas. If you have any suggestions at all they would be greatly appreciated.\n\nThanks in advance,\n\nCiaran\n\ndusty-nv · comment · 2022-01-06\nHi @CiaranMcDermott, are you able to run `python3 -c 'import numpy'` ?\n\nIf not, can you try running `export OPENBLAS_CORETYPE=ARMV8` first?\nhttps://github.com/numpy/numpy/issues/18131#issuecomment-756140369\n", "none"),
    # AlexeyAB/darknet#6711: a Jetson Nano segfault, "Possibly Jetson is out memory" answered "not due to memory issue"
    "darknet-6711": ("# Segmentation fault when running darknet.py file for yolov4-tiny model in Jetson Nano\n\nsrikar242 · description · 2020-09-22\nHey @AlexeyAB , I am getting segmentation fault while trying to run yolov4-tiny model in Jetson Nano using darknet.py file. However, the same thing with the same code is working fine on my system. But on nano, I am getting segmentation fault after the model gets loaded in memory. I have attached screenshot below. Any thoughts on this?\n\n![Screenshot from 2020-09-22 17-54-12](https://user-images.githubusercontent.com/61647908/93881607-c24ce980-fcfc-11ea-9877-b46349a5e59c.png)\n\nbulatnv88 · comment · 2020-09-25\nHello @srikar242, I think segmentation fault is common problem on Jetson Nano. Possibly Jetson is out memory.\nCheck this forum.\nhttps://forums.developer.nvidia.com/t/run-the-jetson-inference-error-segmentation-fault-core-dumped/75047\n\nHope it will help you.\n\nsrikar242 · comment · 2020-09-25\nHi @bulatnv88 \nThanks for your reply. Segmentation fault problem on my nano was not due to memory issue. I think there was a small bug in code of this repo and that bug was resolved later on. I downloaded fresh repo and recompiled it again. Now there is no issue in nano. I'm closing this issue now.\n\nItsHelloWod · comment · 2020-10-09\nHowever, I cloned the newest version it still does not work in nano.\n", "none"),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_threads(name):
    text, label = REAL[name]
    ids = _ids(text)
    assert (ids[0] if ids else "none") == label, ids


# ------------------------------------------------------------------ pyarch39: a win_amd64 wheel refused (constructed)

LINUX_WIN_WHEEL = """\
I am on Ubuntu 20.04 with Python 3.8 and tried to install the wheel I downloaded:
$ pip install torch-1.8.1+cpu-cp38-cp38-win_amd64.whl
ERROR: torch-1.8.1+cpu-cp38-cp38-win_amd64.whl is not a supported wheel on this platform.
"""

BANNER_64 = """\
Python 3.10.4 (tags/v3.10.4:9d38120, Mar 23 2022, 23:13:41) [MSC v.1929 64 bit (AMD64)] on win32
C:\\Users\\me> pip install torch-1.12.0+cu116-cp310-cp310-win_amd64.whl
WARNING: Requirement 'torch-1.12.0+cu116-cp310-cp310-win_amd64.whl' looks like a filename, but the file does not exist
ERROR: torch-1.12.0+cu116-cp310-cp310-win_amd64.whl is not a supported wheel on this platform.
"""


@pytest.mark.parametrize("text", [LINUX_WIN_WHEEL, BANNER_64], ids=["ubuntu", "64-bit-banner"])
def test_a_win_amd64_wheel_refused_is_no_32_bit_python_where_the_text_says_otherwise(text):
    assert "python-arch-mismatch" not in _ids(text)


def test_a_64_bit_windows_system_still_leaves_the_python_32_bit():
    # pytorch/pytorch#16633's shape with the system's bitness said: "64 bit" of Windows is not the Python's
    text = ("I try install pytorch on windows 10 64 bit and Python 3.7 with below command:\n"
            "pip3 install https://download.pytorch.org/whl/cpu/torch-1.0.0-cp37-cp37m-win_amd64.whl\n"
            "torch-1.0.0-cp37-cp37m-win_amd64.whl is not a supported wheel on this platform.\n")
    assert _ids(text)[0] == "python-arch-mismatch"


# ------------------------------------------------------------------ jetmem39: a desktop named too (constructed)

DESKTOP_BUILD = """\
I build the engine on my desktop (RTX 3080, Ubuntu 20.04) and later deploy on a Jetson Xavier NX.
trtexec --onnx=model.onnx --saveEngine=model.engine --fp16
[E] [TRT] 1: Unexpected exception std::bad_alloc
"""


def test_a_desktop_build_naming_the_jetson_as_its_target_is_not_the_jetsons_memory():
    assert "gpu-out-of-memory" not in _ids(DESKTOP_BUILD)


def test_the_jetson_alone_still_runs_out():
    text = DESKTOP_BUILD.replace("I build the engine on my desktop (RTX 3080, Ubuntu 20.04) and later deploy on a",
                                 "I build the engine on my")
    assert _ids(text)[:1] == ["gpu-out-of-memory"]


WHEEL_NOT_SWAP = """\
Jetson Nano, JetPack 4.6.1
>>> import torch
Segmentation fault (core dumped)
Someone on the forum said to increase the swap, so I added 4GB swap, still the same.
Solved: the wheel I installed was built for JetPack 5 (cp38); installing NVIDIA's torch-1.10.0-cp36-cp36m-linux_aarch64.whl for JetPack 4.6 fixed it.
"""


def test_more_swap_that_did_not_help_is_no_memory_shortage():
    # constructed: a crash beside more swap said NOT to help (the wheel of another JetPack was the cause)
    assert "gpu-out-of-memory" not in _ids(WHEEL_NOT_SWAP)
    # the same sentence without the "still the same" is the jetmem39 reading (crash + more swap on a Jetson)
    assert _ids(WHEEL_NOT_SWAP.replace(", still the same.", " and it works now.")
                .replace("Solved: the wheel I installed was built for JetPack 5 (cp38); installing NVIDIA's "
                         "torch-1.10.0-cp36-cp36m-linux_aarch64.whl for JetPack 4.6 fixed it.\n", ""))[:1] == ["gpu-out-of-memory"]


def test_the_no_help_words_before_the_fix_are_the_other_things():
    from envcheck.paste.readers import jetson_mem
    line = "If that still doesn't work, adding a swap might likely help."
    assert [f.field for f in jetson_mem.line_facts(line, line.lower())] == ["seen:memory-fix-said"]


OTHER_32_BIT_PYTHON = """\
Can't install tensorflow: pip says ERROR: No matching distribution found for tensorflow
Python 3.13.0 (tags/v3.13.0:60403a5, Oct  7 2024, 09:38:07) [MSC v.1941 64 bit (AMD64)] on win32
Also I have an old 32-bit Python 2.7 for another tool.
"""


def test_a_32_bit_python_of_another_tool_beside_a_64_bit_banner_is_not_the_cause():
    # constructed: the banner of the Python that runs pip is 64-bit; the 32-bit Python said is another tool's
    assert "python-arch-mismatch" not in _ids(OTHER_32_BIT_PYTHON)
    # without the banner the 32-bit Python said is still read (pyarch39's "can't install" + 32-bit said)
    assert _ids(OTHER_32_BIT_PYTHON.replace(OTHER_32_BIT_PYTHON.splitlines()[1] + "\n", ""))[0] == "python-arch-mismatch"


README_IMAGE = """\
The README suggests the docker image tensorflow/tensorflow:1.15.5-gpu-py3, but I installed tensorflow 2.5.0 with pip on my RTX 3090 (CUDA 11.2, cuDNN 8.1).
tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[64,256,128,128] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
"""


def test_an_image_the_readme_suggests_is_not_the_image_that_ran():
    # constructed (newgpu39's tf-image-said): the README's TF 1.15 image, a pip TF 2.5 on the 3090 that ran out of memory
    assert _ids(README_IMAGE) == ["gpu-out-of-memory"]
    line = README_IMAGE.splitlines()[0]
    assert "tf-image-said" not in _evidence(line)
    # the same tag the reporter ran is still read
    assert _evidence("I run the docker image tensorflow/tensorflow:1.15.5-gpu-py3 on my RTX 3090.")["tf-image-said"] \
        .startswith("1.15 | ")


EMMC_FULL = """\
Jetson Xavier NX, JetPack 5.1
E: Write error - write (28: No space left on device)
There is not enough memory on the eMMC, 16GB is too small. I flashed to NVMe instead.
"""


def test_storage_called_memory_is_no_ram_running_out():
    # constructed: the eMMC (storage) called memory on a Jetson; a real storage thread (JetsonHacksNano/rootOnUSB#1,
    # "16 GB SD card is not enough to build kernel") was silent before and stays so
    assert "gpu-out-of-memory" not in _ids(EMMC_FULL)
    # the RAM running out beside a swap file on an NVMe drive is still the Jetson's memory
    text = ("Jetson Nano 4GB, JetPack 4.6\n[TRT] Building the TensorRT engine...\n"
            "The engine build ran out of memory at the end, and I could only finish it after creating an 8GB swap file on "
            "my NVMe drive\n")
    assert _ids(text)[:1] == ["gpu-out-of-memory"]
