"""Session 15's own changes outside the helpers' rounds: each test uses real lines of a public thread (cited) and
would fail before the change, with a control beside it that must stay as it was."""

from __future__ import annotations

from envcheck.explain.document import explain_text_document


def _top(text: str):
    matches = explain_text_document(text)["matches"]
    return matches[0]["id"] if matches else None


def test_rminitadapter_failed_line_alone_is_gpu_not_initialized():
    # the kernel module's banner (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c:
    # "RmInitAdapter failed! (0x%x:0x%x:%d)"), pasted without the "rm_init_adapter failed, device minor number" line
    # that follows it in dmesg: Bumblebee-Project/Bumblebee#722 and NVIDIA/gpu-operator#1146
    assert _top("[87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)\n") == "gpu-not-initialized"
    assert _top("[  903.610907] NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)\n") == (
        "gpu-not-initialized")
    # NVIDIA/open-gpu-kernel-modules#326: the title alone names it, above the issue template
    assert _top("# RmInitAdapter failed!\n### NVIDIA Open GPU Kernel Modules Version\n515.57\n") == "gpu-not-initialized"
    # the other line alone still reads as before (NVIDIA/gpu-operator#649)
    assert _top("NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n") == "gpu-not-initialized"


def test_typeinfo_symbol_of_torch_in_an_extension_is_an_abi_mismatch():
    # open-mmlab/mmdetection#4291: mmcv's _ext built for another torch; the missing symbol is c10's typeinfo (_ZTI),
    # not a function (_ZN), and was not read before
    line = ("ImportError: /home/e706/anaconda3/envs/mmdetection/lib/python3.7/site-packages/mmcv/"
            "_ext.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZTIN3c1021AutogradMetaInterfaceE\n")
    doc = explain_text_document(line)
    assert doc["matches"][0]["id"] == "extension-abi-mismatch"
    assert doc["matches"][0]["captures"]["symbol"] == "_ZTIN3c1021AutogradMetaInterfaceE"
    # the function form still reads as before (a line of tests/data, vllm-project/vllm#5501's family)
    assert _top("WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/"
                "lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optio"
                "nalIN3c1011DispatchKeyEEPKcj')\n") == "extension-abi-mismatch"


def test_a_glued_pytorch_version_line_is_read():
    # open-mmlab/mmdetection#4291's "my environment" list: "pytorch1.7.1" on a line of its own
    text = "my environment：\nubuntu18.04\npython 3.7\ncuda10.1\npytorch1.7.1\nmmdet2.7.0\n"
    facts = explain_text_document(text)["facts"]
    assert facts["frameworks"]["torch"]["version"] == "1.7.1"
    # a two-part glued name may be a conda environment's: not read
    assert "torch" not in explain_text_document("my environment：\npython 3.7\npytorch1.7\n")["facts"]["frameworks"]


def test_the_ort_issue_form_with_a_nuget_package_gives_the_release():
    # microsoft/onnxruntime#15250's issue form: the C# package and its version under "ONNX Runtime Version or Commit ID"
    text = ("### ONNX Runtime Installation\n\nReleased Package\n\n### ONNX Runtime Version or Commit ID\n\n"
            "Microsoft.ML.OnnxRuntime.Gpu 1.14.1\n\n### ONNX Runtime API\n\nC#\n")
    ort = explain_text_document(text)["facts"]["frameworks"]["onnxruntime"]
    assert ort["version"] == "1.14.1"
    assert ort["package"] is None  # a NuGet package is no PyPI package: onnxruntime vs onnxruntime-gpu is not said


def test_an_ort_library_without_the_cuda_provider_is_its_cpu_build():
    # ONNX Runtime's C API (provider_bridge_ort.cc) answers "CUDA execution provider is not enabled in this build." when
    # the library loaded is the CPU package; the same words through each binding, copied from the threads
    seen = [
        # microsoft/onnxruntime#13542 (C#)
        'Hello, we got an exception "[ErrorCode:Fail] CUDA execution provider is not enabled in this build" when we '
        "new an OrtCUDAProviderOptions object using",
        # asus4/onnxruntime-unity#17
        "OnnxRuntimeException: [ErrorCode:Fail] CUDA execution provider is not enabled in this build.",
        # pykeio/ort#456 (Rust, aarch64)
        'Error { code: GenericFailure, msg: "CUDA execution provider is not enabled in this build." }',
        # microsoft/onnxruntime-genai#1191
        "Microsoft.ML.OnnxRuntimeGenAI.OnnxRuntimeGenAIException: 'CUDA execution provider is not enabled in this "
        "build.'",
        # supertone-inc/onnxruntime-build#13 (a static CPU library, through the ort crate)
        "2024-04-22T07:54:43.030732Z  WARN apply_execution_providers: ort::execution_providers: An error occurred "
        "when attempting to register `CUDAExecutionProvider`: CUDA execution provider is not enabled in this build.",
    ]
    for line in seen:
        doc = explain_text_document(line + "\n")
        top = doc["matches"][0]
        assert top["id"] == "framework-cpu-only", line
        assert "Microsoft.ML.OnnxRuntime.Gpu" in top["fixes"][0] and "onnxruntime-gpu" in top["fixes"][0]
    # the CUDA provider that exists but fails to load is not this signature (a line of tests/data)
    other = explain_text_document(
        "2025-08-25 05:27:45.141389153 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 CreateExecutionProvid"
        "erInstance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-pr"
        "oviders/CUDA-ExecutionProvider.html#requirementsto ensure all dependencies are met.\n")["matches"]
    assert other and all(m["signature"] != "ort-provider-not-in-build" for m in other)


def test_the_version_of_x_is_v_is_the_reporters_version():
    # pytorch/pytorch#45021: "The system is Ubuntu 16.04, the version of PyTorch is 1.1.0."
    facts = explain_text_document("The system is Ubuntu 16.04, the version of PyTorch is 1.1.0.\n")["facts"]
    assert facts["frameworks"]["torch"]["version"] == "1.1.0"
    # a version the sentence says is another one is not read: an adjective before "version", a condition
    for other in ("the latest version of pytorch is 2.5.1", "The required version of torch is 2.1.0",
                  "If the version of torch is 2.1.0 it fails"):
        assert "torch" not in (explain_text_document(other + "\n")["facts"].get("frameworks") or {}), other


def test_a_metal_library_built_for_a_newer_macos_is_mps_os_too_old():
    # dyld2's form, tensorflow/tensorflow#53309 (tensorflow-metal on Big Sur 11.6; heldout/acceptance15, after its score)
    old = ("tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/zhangjing/miniforge3/envs/tf3.7/lib/"
           "python3.8/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not found: _OBJC_CLASS_$_"
           "MPSGraphCompilationDescriptor\n  Referenced from: /Users/zhangjing/miniforge3/envs/tf3.7/lib/python3.8/"
           "site-packages/tensorflow-plugins/libmetal_plugin.dylib (which was built for Mac OS X 12.0)\n")
    top = explain_text_document(old)["matches"][0]
    assert top["id"] == "mps-os-too-old" and top["captures"]["min_macos"] == "12.0"
    # dyld4's form, TaterTotterson/Tater#46 (llama.cpp's Metal backend built for macOS 15.1, run on 14.6)
    new = ("llama_server failed: dyld[65319]: Symbol not found: _OBJC_CLASS_$_MTLResidencySetDescriptor Referenced from: "
           "<6D4CD81C-20EC-3138-99F7-3B2AED6EE0E3> /Applications/Tater.app/Contents/Resources/Native/llama.cpp/bin/"
           "libggml-metal.0.19.0.dylib (built for macOS 15.1 which is newer than running OS) Expected in: <5E0FFDF8-"
           "E2DA-3E6F-B6CE-82BDD502C20E> /System/Library/Frameworks/Metal.framework/Versions/A/Metal\n")
    top = explain_text_document(new)["matches"][0]
    assert top["id"] == "mps-os-too-old" and top["captures"]["min_macos"] == "15.1"
    assert "NVIDIA" not in " ".join(top["fixes"])


def test_no_wheel_of_tensorflow_metal_for_this_python_is_python_unsupported():
    # svpino/apple-silicon#1 (heldout/acceptance15, after its score): Python 3.12 and tensorflow-metal
    top = explain_text_document("No matching distribution found for tensorflow-metal\n")["matches"][0]
    assert top["id"] == "python-unsupported" and top["captures"]["package"] == "tensorflow-metal"


def test_after_acceptance15_three_emitters_read():
    # ollama/ollama#9031 (HGX H200, the Fabric Manager not up): Ollama prints cuInit's CUresult as a number
    line = ('time=2025-02-19T04:44:23.228Z level=INFO source=gpu.go:612 msg="Unable to load cudart library '
            '/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.15: cuda driver library init failure: 802"\n')
    assert _top(line) == "gpu-not-initialized"
    # another CUresult in the same words is not 802's cause (a line of the same family, CUresult 999 after suspend)
    other = ('level=WARN source=gpu.go:562 msg="unknown error initializing cuda driver library" '
             'library=/usr/lib/x86_64-linux-gnu/libcuda.so.560.35.03 error="cuda driver library init failure: 999"\n')
    assert all(m["signature"] != "cuda-802-system-not-ready" for m in explain_text_document(other)["matches"])
    # coraxx/netdata_nv_plugin#1: pynvml refused as the netdata user
    assert _top("2016-12-14 10:19:34: python.d ERROR: nv pynvml could not be initialized Insufficient Permissions\n") \
        == "device-permission"
    # floydhub/dl-docker#33: Lua Torch's cudnn.torch R4 branch with cuDNN 5 installed
    doc = explain_text_document("/root/torch/install/bin/luajit: /root/torch/install/share/lua/5.1/cudnn/ffi.lua:1278: "
                                "'libcudnn (R4) not found in library path.\n")
    assert doc["matches"][0]["id"] == "cudnn-missing" and doc["matches"][0]["captures"]["wanted_major"] == "4"


def test_an_nvidia_smi_list_joined_into_one_line_is_read():
    # NVIDIA/open-gpu-kernel-modules#387's issue form: `nvidia-smi -L` of four GPUs pasted into a one-line field
    line = ("GPU 0: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-67a571b1-79ee-1016-8ea3-c1fff3f1c1d2) GPU 1: NVIDIA GeForce "
            "RTX 2080 Ti (UUID: GPU-3e34e62f-d88e-f448-415e-be2cbf2c6178) GPU 2: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-"
            "2d540dd6-583b-cf11-80dd-cc28edc1dd62) GPU 3: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-80be5c9a-eb7d-2388-ad7c-"
            "7d3ee8f87235)")
    gpus = explain_text_document("### Hardware: GPU\n\n" + line + "\n")["facts"]["gpus"]
    assert [(g["index"], g["name"]) for g in gpus] == [(i, "NVIDIA GeForce RTX 2080 Ti") for i in range(4)]
    from envcheck.parse.nvidia_smi import parse_list

    listed = parse_list(line + "\n")
    assert [g.index for g in listed.gpus] == [0, 1, 2, 3] and listed.gpus_complete is True
    # one GPU on its line stays one line
    assert len(parse_list("GPU 0: Tesla T4 (UUID: GPU-bde42e00-9b0f-ac4e-31c2-1f8a9e3e1c2a)\n").gpus) == 1
