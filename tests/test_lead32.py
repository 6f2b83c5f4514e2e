"""The lead's session-8 wordings, each from its emitting source, and what must stay as it was.

* torch extension ABI: the loader's "undefined symbol: _ZN..." of a torch C++ symbol, after an issue title's
  "ImportError" written without its colon (the dynamic loader's message as titles carry it: open-mmlab/mmcv#2660).
* MPS: binaryOpTensor's TORCH_CHECK "MPS support binary op with uint8 natively starting from macOS 13.0"
  (pytorch aten/src/ATen/native/mps/operations/BinaryOps.mm): raised only below macOS 13.
* A kernel built without the GPU's architecture leaves CUB's later "invalid device ordinal" as its consequence
  (Paddle's gpu_resources.cc warning "The GPU architecture in your current machine is Pascal, which is not compatible
  with Paddle installation with arch: 70 75 80 86", then cudaErrorNoKernelImageForDevice (209) and CUB's
  cudaErrorInvalidDevice (101), as util_device.cuh reports them)."""

from __future__ import annotations

from envcheck.explain import explain_text


def _ids(text: str):
    return [m.id for m in explain_text(text)]


def test_undefined_torch_symbol_after_importerror_without_colon():
    for line in ("ImportError undefined symbol: _ZNK2at6Tensor6deviceEv",
                 "ImportError: undefined symbol: _ZN3c104cuda9SetDeviceEi",
                 "OSError undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs"):
        assert _ids(line)[:1] == ["extension-abi-mismatch"], line
    # not a torch symbol, not a loader line: nothing said
    assert "extension-abi-mismatch" not in _ids("ImportError undefined symbol: cublasLtMatmul")
    assert "extension-abi-mismatch" not in _ids("an undefined symbol at::Tensor in my own code")


def test_mps_uint8_binary_op_below_macos_13():
    got = explain_text("RuntimeError: MPS support binary op with uint8 natively starting from macOS 13.0")
    assert got and got[0].id == "mps-os-too-old"
    assert got[0].captures.get("min_macos") == "13.0" and got[0].captures.get("dtype") == "uint8"
    assert got[0].fixes and "13.0" in got[0].fixes[0]


ARCH_THEN_ORDINAL = """W1125 07:37:50.996143   570 gpu_resources.cc:96] The GPU architecture in your current machine is Pascal, \
which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the \
corresponding wheel package according to the installation information on the official Paddle website.
CUDA error 209 [../third_party/cccl/cub/cub/util_device.cuh, 83]: no kernel image is available for execution on the device
CUDA error 101 [../third_party/cccl/cub/cub/util_device.cuh, 102]: invalid device ordinal
"""


def test_invalid_device_ordinal_after_an_arch_failure_is_its_consequence():
    assert _ids(ARCH_THEN_ORDINAL)[:1] == ["gpu-arch-unsupported"]
    # on its own, "invalid device ordinal" still says the process sees no such GPU
    assert _ids("CUDA error 101 [util_device.cuh, 102]: invalid device ordinal")[:1] == ["no-gpu-visible"]
