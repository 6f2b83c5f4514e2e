"""Round vsrc24 of issue 20's vendor logs: the messages catalogued from the programs that print them (the catalogue is
tests/data/logs/vsrc24/README.md: PyTorch's XPU / MPS code, ROCm's HIP runtime, IPEX, MLX, Apple's Metal / MPSGraph,
OpenVINO, Level Zero, L4T), and for the families envcheck did not read, real occurrences found by the message. Real logs:
tests/data/logs/vsrc24 (README: file, label, source); the held-back part heldout/vsrc24-held was split off first
(scripts/split_log_batch.py vsrc24 2026112841 0.4 --healthy-apart) and is scored with scripts/score_explain.py only,
never asserted here.

The families read since, each keyed on the emitting source's format (every value it prints):
PyTorch's XPU device pool failing ("Failed to initialize XPU devices. ..." of c10/xpu/XPUFunctions.cpp, no-gpu-driver,
its "No XPU devices are available." a consequence); IPEX's Windows loader failing on its own XPU DLLs (intel-ext-pt-gpu*.dll,
esimd_kernels.dll: oneapi-runtime-missing); MPSGraph refusing a float16 beside a float32 input ("... are not broadcast
compatible", mps-op-unsupported); Metal refusing a library built for a newer macOS, as MLX prints it ("Failed to load
the default metallib. This library is using language version 4.0 which is not supported on this OS.", mps-os-too-old)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import top_id_signature as _top, explain_cli_matches as _cli, assert_top_is_label, check_literals_hold, check_log_batch, earlier_log_threads, explain_file, log_readme_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "logs", "vsrc24")
HELD = os.path.join(ROOT, "heldout", "vsrc24-held")
DEV_ROWS = log_readme_rows(DEV)
#: dev logs whose label the text alone does not reach (kept, not hidden): the exact answer expected instead
KNOWN_MISSES = {
    # the DLL is named in the reporter's prose only ("cannot load `esimd_kernels.dll` or one of its dependencies"): the
    # loader's own line is cut from the excerpt
    "ipex-win-core-ultra-arc-140t-winerror-126-esimd-kernels-dll-868.log": None,
    # the same warning inside a container that lacks /dev/dri or the render group: the log says nothing of the container
    "xpu-docker-compose-failed-to-initialize-xpu-devices-render-group-261.log": "no-gpu-driver",
}
NEW_SIGNATURES = ("xpu-failed-to-initialize-devices", "mpsgraph-mixed-float-broadcast",
                  "metal-library-built-for-newer-macos")


def _read(name):
    with open(os.path.join(DEV, name), encoding="utf-8") as fh:
        return fh.read()


def test_listing_and_the_held_back_part_is_apart():
    held = check_log_batch(DEV, HELD, min_dev=17, min_held=10, min_total=27, min_none=3, held_listed=True)
    assert {r[1] for r in held} >= {"none", "no-gpu-driver", "oneapi-runtime-missing", "mps-op-unsupported",
                                   "mps-os-too-old"}


def test_no_thread_is_twice_nor_in_an_earlier_log_set():
    urls = [r[2] for r in DEV_ROWS + log_readme_rows(HELD)]
    assert len(urls) == len(set(urls))
    assert not set(urls) & earlier_log_threads(("vsrc24", "vsrc24-held"))


def test_the_catalogue_names_each_family_and_where_it_is_emitted():
    text = _read("README.md")
    for where in ("c10/xpu/XPUFunctions.cpp", "hipamd/src/hip_error.cpp", "intel_extension_for_pytorch/__init__.py",
                  "mlx/backend/metal/device.cpp", "MPSGraphUtilities.mm", "aten/src/ATen/mps/MPSDevice.mm"):
        assert where in text, where
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) >= 50


@pytest.mark.parametrize("name,label", [(r[0], r[1]) for r in DEV_ROWS], ids=[r[0] for r in DEV_ROWS])
def test_dev_log_top1(name, label):
    assert_top_is_label(explain_file(os.path.join(DEV, name)), name, label, KNOWN_MISSES)


def test_the_new_literals_hold_an_existing_anchor():
    lines = [line for r in DEV_ROWS for line in _read(r[0]).splitlines()]
    assert check_literals_hold(NEW_SIGNATURES, lines) >= {"xpu-failed-to-initialize-devices",
                                                          "mpsgraph-mixed-float-broadcast",
                                                          "metal-library-built-for-newer-macos"}


# -- PyTorch's XPU device pool ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # torch 2.6+ (c10/xpu/XPUFunctions.cpp), and the first wording of pytorch/pytorch#141658
    "/usr/lib/python3.12/site-packages/torch/xpu/__init__.py:60: UserWarning: Failed to initialize XPU devices. The "
    "driver may not be installed, installed incorrectly, or incompatible with the current setup. Please refer to the "
    "guideline (https://github.com/pytorch/pytorch?tab=readme-ov-file#intel-gpu-support) for proper installation and "
    "configuration. (Triggered internally at /pytorch/c10/xpu/XPUFunctions.cpp:109.)",
    "UserWarning: Failed to initialize XPU devices. Did you install the driver correctly?",
])
def test_xpu_device_pool_failing_is_no_driver(line):
    assert _top(line) == ("no-gpu-driver", "xpu-failed-to-initialize-devices")


def test_no_xpu_devices_after_the_warning_is_its_consequence():
    text = ("torch/xpu/__init__.py:60: UserWarning: Failed to initialize XPU devices. The driver may not be installed, "
            "installed incorrectly, or incompatible with the current setup.\n  return torch._C._xpu_getDeviceCount()\n"
            "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n"
            "RuntimeError: No XPU devices are available.\n")
    assert _top(text)[0] == "no-gpu-driver"
    assert _top("RuntimeError: No XPU devices are available.\n")[0] == "no-gpu-visible"  # alone: what it says


def test_the_xpu_fix_names_intels_driver_and_no_nvidia_one():
    m = _cli("--no-detect", "-", text=_read("xpu-ai-playground-a730m-failed-to-initialize-no-xpu-devices-340.log"))[0]
    assert m["id"] == "no-gpu-driver" and "NVIDIA" not in m["title"]
    text = " ".join(m["fixes"])
    assert "Intel" in text and "Level Zero" in text
    assert "nvidia" not in text.lower() and "libcuda" not in text  # the pasted report's NVIDIA driver finding is not said


# -- IPEX's Windows loader ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dll", ["intel-ext-pt-gpu.dll", "intel-ext-pt-gpu-bitsandbytes.dll", "esimd_kernels.dll"])
def test_ipex_xpu_dlls_failing_to_load_are_the_oneapi_runtime(dll):
    line = ("OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\venv\\Lib\\"
            f"site-packages\\intel_extension_for_pytorch\\bin\\{dll}\" or one of its dependencies.")
    assert _top(line)[0] == "oneapi-runtime-missing"


def test_torch_own_cpu_dll_is_not_the_oneapi_runtime():
    # fbgemm.dll's dependencies are the C++ / OpenMP runtimes (pytorch/pytorch#131662): not oneAPI's
    line = ("OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\venv\\Lib\\"
            "site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.")
    assert _top(line)[0] != "oneapi-runtime-missing"


# -- MPSGraph's mixed float inputs --------------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", [("2x1280xf32", "1280xf16"), ("1x4x1xf16", "1xf32"), ("2x1280xf32", "*xf16"),
                                  ("8x128xbf16", "128xf32"), ("f32", "4xf16")])
def test_mpsgraph_mixed_float_broadcast(pair):
    line = (f'loc("mps_add"("(mpsFileLoc): /AppleInternal/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders'
            f'Graph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphUtilities.mm":228:0)): error: input types '
            f"'tensor<{pair[0]}>' and 'tensor<{pair[1]}>' are not broadcast compatible")
    assert _top(line) == ("mps-op-unsupported", "mpsgraph-mixed-float-broadcast")


@pytest.mark.parametrize("pair", [("2x3xf32", "4xf32"), ("2x3xf16", "4xf16"), ("2x3xi32", "4xf32")])
def test_mpsgraph_broadcast_of_one_float_type_is_the_programs_shape(pair):
    line = f"error: input types 'tensor<{pair[0]}>' and 'tensor<{pair[1]}>' are not broadcast compatible"
    assert _top(line) == (None, None)


def test_the_llvm_abort_alone_names_no_cause():
    assert _top("LLVM ERROR: Failed to infer result type(s).\nzsh: abort      python app.py\n") == (None, None)


def test_the_mpsgraph_fix_is_full_precision_not_the_cpu_fallback():
    m = _cli("--no-detect", "-", text=_read("mps-chatglm6b-varianceeps-f16-f32-not-broadcast-compatible-951.log"))[0]
    assert m["id"] == "mps-op-unsupported"
    assert "full precision" in m["fixes"][0] and "float32" in m["fixes"][0]
    assert not any("nvidia" in f.lower() for f in m["fixes"])


# -- Metal's library built for a newer macOS (as MLX prints it) ---------------------------------------------------------
@pytest.mark.parametrize("line", [
    "RuntimeError: Failed to load the default metallib. This library is using language version 4.0 which is not "
    "supported on this OS. library not found library not found library not found ",
    "Failed to load the default metallib: this library is using language version 4.0, which is not supported on this "
    "OS. Library not found.",
    "MLX error: Failed to load the default metallib. This library is using a deployment target (0x00020008) that is "
    "not supported on this OS. library not found library not found library not found  at stream.cpp:115",
    "This library is using language version 3.2 which is not supported on this OS",
])
def test_a_metallib_for_a_newer_macos(line):
    assert _top(line) == ("mps-os-too-old", "metal-library-built-for-newer-macos")


def test_the_message_wrapped_after_its_version_is_read():
    text = ("ImportError: Failed to load the default metallib. This library is using language version 4.0\n"
            "which is not supported on this OS. library not found library not found library not found\n")
    assert _top(text) == ("mps-os-too-old", "metal-library-built-for-newer-macos")


def test_a_metallib_not_found_is_no_macos_floor():
    assert _top("MLX error: Failed to load the default metallib. library not found library not found library not "
                "found  at /Users/a/mlx-swift/Source/Cmlx/mlx-c/mlx/c/stream.cpp:115\n") == (None, None)


def test_the_metallib_fix_names_macos_and_the_wheels_not_torch():
    m = _cli("--no-detect", "-", text=_read("mlx-vmlx-server-metallib-language-version-4.0-not-supported-20.log"))[0]
    assert m["id"] == "mps-os-too-old"
    assert "macOS 26" in m["fixes"][0] and "macosx_14_0" in m["fixes"][0]
    assert not any("nvidia" in f.lower() for f in m["fixes"])
