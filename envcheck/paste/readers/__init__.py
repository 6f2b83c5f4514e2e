"""The paste readers: one module per report family, each with ``NAME``, ``detect(line) -> int`` (how many lines from
this one are its form; 0: not its form) and ``read(lines) -> Partial`` (an immutable set of facts, each with the line
it came from). See :mod:`envcheck.paste.readers.base`.

:data:`READERS` is the registry, in the order the readers are asked on each line (the first whose ``detect``
answers takes the lines). :mod:`envcheck.paste.merge` folds the partials in the order of the text. Adding a form
is one new module here, its place in :data:`READERS`, and its tests.
"""

from __future__ import annotations

from typing import Protocol, Sequence, Tuple


from envcheck.paste.readers import (
    bare_versions, bullets, collect_env, comfyui, conda_info, cupy_config, detectron2, driver_files, ds_report, gpu_listers, gpu_vendor_form, hf_env, invokeai_log, ipex_env_check, issue_form,
    key_value,
    jax_env,
    ldconfig, lightning_env, llm_runtimes, log_facts, lspci, macos, md_table, mmcv_env, nvcc, ollama_debug, ort_template, packages, paddle, paddle_env,
    pip_output, printed, prose_amd, prose_gpu, prose_intel, python_banner, rocm_check_script, rocm_smi_out, rocminfo_out, sd_console, sglang_env, smi_csv, smi_error,
    smi_list, smi_q, smi_table, smi_version, smi_xml, tf_build_info, tf_template, torch_build, torch_config, ultralytics,
    ultralytics_info,
    unsloth, vendor_smi, vendor_tools, wanted, webui_footer, webui_sysinfo, xformers_info, zh_template,
)
from envcheck.paste.readers.base import Line, Partial
from envcheck.paste.readers import tf_cuda_query

__all__ = ["Reader", "READERS"]


class Reader(Protocol):
    NAME: str

    def detect(self, c: Line) -> int: ...

    def read(self, lines: Sequence[str]) -> Partial: ...


#: The readers, in the order they are asked on each line. Tool outputs and reports with a sure first line come
#: before the ``key: value`` forms that many reports share; the first reader that answers takes the lines.
READERS: Tuple[Reader, ...] = (
    wanted,  # a "Supported versions" / "Requirements" section: versions wanted, not installed (takes its block first)
    detectron2,  # "sys.platform   linux" starts its table (before the key: value readers)
    mmcv_env,  # OpenMMLab's "sys.platform: linux" block (before the key: value readers)
    lightning_env,  # PyTorch Lightning's collect_env_details: "* CUDA:" / "cuda:" then its tab-indented keys
    torch_build,  # "- torch 2.1.0+cu121"
    log_facts,  # framework log lines that state a fact, by the knowledge base's patterns (bound by explain)
    smi_list,  # nvidia-smi -L
    gpu_listers,  # CUDA samples' deviceQuery, nvidia-container-cli info (before the key: value readers)
    vendor_tools,  # sycl-ls's device lines, system_profiler's "Graphics/Displays:" block (handed on as snapshot files)
    lspci,  # lspci -nn's display controllers ("[1002:744c]"), handed on as pci-gpus.json
    vendor_smi,  # xpu-smi discovery (table / -j / --dump), clinfo (full / -l), amd-smi version / list / static, hipInfo
    rocminfo_out,  # rocminfo's output (whole, from an agent, or its Name / Marketing Name lines), up to "*** Done ***"
    rocm_check_script,  # a ROCm check script's "Everything fine! You can run PyTorch code inside of:" and its "--->  gfx1032"
    rocm_smi_out,  # rocm-smi's output, from its "ROCm System Management Interface" banner to its "End of ROCm SMI Log"
    llm_runtimes,  # llama.cpp's ggml_cuda_init device lines, Ollama's "inference compute" lines
    ollama_debug,  # Ollama's debug GPU discovery: "CUDA driver version: 12.2", "[GPU-...] Compute Capability 7.0", NVML's "[0] CUDA device name: ..."
    unsloth,  # Unsloth's banner: "<GPU>. Num GPUs = 1. Max memory: ..." then "Torch: ... CUDA: 6.1. CUDA Toolkit: 12.4."
    ds_report,  # DeepSpeed's "DeepSpeed general environment info:" block (its `key ..... value` rows)
    cupy_config,  # cupy.show_config()'s "Key   : value" rows, from its OS / CuPy Version row
    xformers_info,  # python -m xformers.info's rows from its pytorch.version row (not its build.* rows)
    conda_info,  # conda info's "virtual packages : __cuda=12.8=0" (the driver's CUDA)
    ipex_env_check,  # ipex-llm's env-check.sh: "PYTHON_VERSION=3.11.8", "torch=2.1.0a0+cxx11.abi" under its dashes
    torch_config,  # print(torch.__config__.show()) on its own: "PyTorch built with:" and its "  - item" lines
    sglang_env,  # python -m sglang.check_env: "Python: 3.11.9 (...)" then "CUDA available:" and its "Key: value" rows
    invokeai_log,  # InvokeAI's start-up log: "[InvokeAI]::INFO --> cuDNN version: 90701" (torch's cuDNN)
    comfyui,  # ComfyUI's start-up / log lines ("pytorch version: ...", lower case) and its System Information device line
    webui_sysinfo,  # the SD web UI's Sysinfo JSON: its "Torch env info" object (collect_env's fields as JSON)
    collect_env,  # PyTorch's collect_env, every layout
    paddle_env,  # Paddle's tools/summary_env.py (before the key: value readers)
    smi_table,  # the nvidia-smi table
    smi_q,  # nvidia-smi -q
    smi_xml,  # nvidia-smi -q -x
    smi_error,  # nvidia-smi / NVML errors
    smi_csv,  # nvidia-smi --query-gpu CSV, with or without its header
    smi_version,  # nvidia-smi --version
    nvcc,  # nvcc -V
    ldconfig,  # ldconfig -p rows
    driver_files,  # /proc/driver/nvidia/version, the toolkit's version.txt
    macos,  # sw_vers, Python's macOS platform string
    tf_build_info,  # tf.sysconfig.get_build_info() printed (an OrderedDict / dict on one line)
    printed,  # values printed in a REPL / notebook / python -c ("torch.__version__" then "'2.0.1+cu118'")
    tf_cuda_query,  # tf.test.is_built_with_cuda() / is_built_with_gpu_support() and the True / False it printed
    python_banner,  # the interpreter's banner ("Python 3.10.11 (tags/...) [MSC v.1929 64 bit (AMD64)] on win32")
    ultralytics,  # Ultralytics' banner
    ultralytics_info,  # Ultralytics' system information (yolo checks): "OS  Windows-10-...", "CUDA  None", its requirement rows
    sd_console,  # A1111's version checks, kohya_ss / SD.Next's Torch lines
    webui_footer,  # Stable Diffusion web UI's footer ("python: 3.10.11 • torch: 2.0.1+cu118 • ...")
    jax_env,  # jax.print_environment_info(), JAX's issue form
    ort_template,  # ONNX Runtime's issue template / form fields, "installed both onnxruntime and onnxruntime-gpu"
    packages,  # pip list / conda list / pip freeze / conda plans
    pip_output,  # pip's "Successfully installed ...", "Requirement already satisfied: ... (2.0.0)", fetched wheels
    paddle,  # Paddle's run_check and version report
    gpu_vendor_form,  # an issue form's GPU vendor choice (Ollama's "### GPU" Nvidia / AMD, InvokeAI's "### GPU vendor" AMD (ROCm))
    hf_env,  # transformers / diffusers / accelerate env
    md_table,  # a Markdown table of the environment ("| Python | 3.13.5 (64-bit) |")
    bullets,  # hand-written environment bullets
    zh_template,  # Chinese issue templates
    tf_template,  # TensorFlow's issue template, plain and bold, headings
    issue_form,  # a GitHub issue form's "### Field" headings with their answers, a pasted JSON of versions
    key_value,  # one key-value line in any language (the key table of kv_keys): "Версия драйвера: 470.82", "Driver Version 545.23.08"
    bare_versions,  # "- tensorflow-gpu 2.2.0", "tensorflow: 2.8.0", "- Python version is 3.8.13" (last: any form above wins)
    prose_amd,  # an AMD GPU named beside ROCm / HIP on one line (a title, a sentence): the machine's vendor
    prose_gpu,  # a GPU model / a compute-capability floor / a failure named in a sentence (lines no reader above took)
    prose_intel,  # the reporter's own Intel GPU in a sentence ("I have Intel iRIS Graphics GPU"): evidence for the vendor
)
