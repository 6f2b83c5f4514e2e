"""The engine's report rules (issue 20, one home per rule): the decisions explain's ranking (explain/rank.py) and
fixes (explain/machine.py) used to make themselves, asked here directly - facts and a typed TextClaims in, a finding
(or a yes / no) out. Each test states the rule from its source (the module docstrings, NVIDIA's and PyTorch's
documents), not from the code."""

from __future__ import annotations

import pytest

from envcheck.engine import machine_from_facts
from envcheck.engine.builds import cuda_builds, cudnn_pin
from envcheck.engine.claims import tf_claim_finding
from envcheck.engine.container import container_without_gpus, started_with_gpus
from envcheck.engine.cpubuild import (cpu_build_wanted_gpu, cuda_build_shown, gpu_wanted, pypi_torch_cpu,
                                      windows_torch_unlabelled)
from envcheck.engine.oldgpu import GPU_UNUSED
from envcheck.engine.report import contradicted_by_gpu_working, cuda_reached_contradicts, report_causes
from envcheck.engine.rules import driver_upgrade
from envcheck.engine.stack import one_process_cudnn
from envcheck.engine.textclaims import ContainerRun, TextClaims, TorchWheel
from envcheck.matrix import load_matrix
from envcheck.model import (Driver, Environment, Finding, Framework, Gpu, Host, PythonInfo, Severity, Toolkit)
from envcheck.versions import DriverVersion


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def env(frameworks=(), gpus=(), driver=None, platform="linux", wsl=None, toolkit=None, packages=None):
    return Environment(source="test", host=Host(wsl=wsl), python=PythonInfo(version="3.10.12", platform=platform),
                       driver=driver or Driver(), gpus=tuple(gpus), toolkit=Toolkit(version=toolkit), libraries=(),
                       frameworks={f.name: f for f in frameworks}, packages=dict(packages or {}))


TORCH_CPU = Framework("torch", "2.3.1+cpu", cpu_only=True, evidence="torch 2.3.1+cpu")
TORCH_CUDA = Framework("torch", "2.3.1+cu121", cuda="12.1", cpu_only=False)
TORCH_BARE = Framework("torch", "2.3.1", evidence="torch==2.3.1")
T4 = Gpu(0, "Tesla T4", "7.5")


def fix(fw):
    return f"the checks' fix for {fw.name}"


# -- which status findings are causes (engine.report) ---------------------------------------------------------

def _f(id_, sev):
    return Finding(id_, sev, id_ + " message")


def test_report_causes_keeps_stack_errors_and_drops_what_rests_on_absence():
    found = [_f("driver-too-old", Severity.ERROR), _f("cudnn-missing", Severity.ERROR),
             _f("python-unsupported", Severity.ERROR), _f("framework-cpu-only", Severity.WARNING),
             _f("duplicate-libraries", Severity.WARNING), _f("mps-os-too-old", Severity.ERROR)]
    ids = [f.id for f in report_causes(found, env(), TextClaims())]
    # a stack error, a CPU-only build (a warning that is the cause), another vendor's error: causes; a library
    # the paste does not list is "not shown"; an error of no stack id and a plain warning are no causes
    assert ids == ["driver-too-old", "framework-cpu-only", "mps-os-too-old"]


def test_the_toolkit_mismatch_is_a_cause_only_beside_an_extension_build():
    found = [_f("cuda-toolkit-mismatch", Severity.WARNING)]
    assert report_causes(found, env(), TextClaims()) == []
    built = TextClaims(ext_build="python setup.py install")
    assert [f.id for f in report_causes(found, env(), built)] == ["cuda-toolkit-mismatch"]


def test_no_driver_is_a_cause_only_where_the_paste_shows_it_failing_or_on_wsl1():
    found = [_f("no-gpu-driver", Severity.WARNING)]
    assert report_causes(found, env(), TextClaims()) == []  # the paste just does not show a driver: unknown
    failed = env(driver=Driver(smi_state="no-driver", error="no-driver"))
    assert [f.id for f in report_causes(found, failed, TextClaims())] == ["no-gpu-driver"]
    # WSL1 under a CUDA build: no GPU can be reached there at all (a plain warning, still certain)
    wsl1 = env(frameworks=[TORCH_CUDA], wsl="WSL1")
    assert [f.id for f in report_causes(found, wsl1, TextClaims())] == ["no-gpu-driver"]
    assert report_causes(found, env(frameworks=[TORCH_CPU], wsl="WSL1"), TextClaims()) == []


def test_cuda_reached_contradicts_an_old_driver_only():
    reached = TextClaims(cuda_available=True)
    assert cuda_reached_contradicts("driver-too-old", reached)
    assert not cuda_reached_contradicts("driver-too-old", TextClaims(cuda_available=False))
    assert not cuda_reached_contradicts("driver-too-old", TextClaims())
    assert not cuda_reached_contradicts("cudnn-version-mismatch", reached)


def test_a_gpu_shown_working_contradicts_no_driver_and_cpu_only_lines():
    assert contradicted_by_gpu_working(TextClaims(gpu_works="Is CUDA available: True")) == {
        "framework-cpu-only", "no-gpu-driver"}
    # a failure shown beside it: which one is this machine's state is not certain, nothing is contradicted
    assert contradicted_by_gpu_working(TextClaims(gpu_works="x", gpu_fails="y")) == frozenset()
    assert contradicted_by_gpu_working(TextClaims()) == frozenset()


# -- a CPU-only build where the GPU was wanted (engine.cpubuild) -----------------------------------------------

def test_gpu_wanted_names_what_shows_it():
    assert gpu_wanted(env(), TextClaims(gpu_intent="model.cuda()")) == "model.cuda()"
    assert gpu_wanted(env(gpus=[T4]), TextClaims()) == "NVIDIA GPU Tesla T4"
    assert gpu_wanted(env(toolkit="12.1"), TextClaims()) == "the CUDA 12.1 toolkit (nvcc)"
    assert gpu_wanted(env(packages={"nvidia-cublas-cu12": "12.1.3.1", "numpy": "1.26"}), TextClaims()) \
        == "CUDA packages nvidia-cublas-cu12"
    assert gpu_wanted(env(packages={"numpy": "1.26"}), TextClaims()) is None


def test_cpu_build_beside_a_gpu_is_the_cause_with_the_checks_fix():
    got = cpu_build_wanted_gpu(env(frameworks=[TORCH_CPU], gpus=[T4]), TextClaims(), fix)
    assert [(f.id, f.severity, f.fix, f.component) for f in got] == [
        ("framework-cpu-only", Severity.WARNING, "the checks' fix for torch", "torch")]
    assert "Tesla T4" in got[0].message
    assert cpu_build_wanted_gpu(env(frameworks=[TORCH_CPU]), TextClaims(), fix) == []  # nothing shows a GPU wanted
    rocm_cpu = Framework("torch", "2.3.1", cpu_only=True, rocm="6.0")
    assert cpu_build_wanted_gpu(env(frameworks=[rocm_cpu], gpus=[T4]), TextClaims(), fix) == []


def _wheel(tag, pypi=True, version="2.3.1"):
    file = f"torch-{version}-cp310-cp310-{tag}.whl"
    return TorchWheel(version=version, platform_tag=tag, from_pypi=pypi, shown=file, line="Downloading " + file)


def test_pypis_windows_wheel_is_the_cpu_build():
    # PyPI's torch for Windows and macOS is the CPU build; for Linux x86_64 it is a CUDA one (pytorch.org "Start Locally")
    claims = TextClaims(gpu_fails="CUDA available: False", torch_wheel=_wheel("win_amd64"))
    got = pypi_torch_cpu(env(frameworks=[TORCH_BARE], platform="win32"), claims, fix)
    assert [f.id for f in got] == ["framework-cpu-only"] and "2.3.1+cpu" in got[0].message
    linux = TextClaims(gpu_fails="CUDA available: False", torch_wheel=_wheel("manylinux1_x86_64"))
    assert pypi_torch_cpu(env(frameworks=[TORCH_BARE]), linux, fix) == []
    other_index = TextClaims(gpu_fails="x", torch_wheel=_wheel("win_amd64", pypi=False))
    assert pypi_torch_cpu(env(frameworks=[TORCH_BARE]), other_index, fix) == []
    find_links = TextClaims(gpu_fails="x", torch_wheel=_wheel("win_amd64"), find_links="-f torch_stable.html")
    assert pypi_torch_cpu(env(frameworks=[TORCH_BARE]), find_links, fix) == []
    another = TextClaims(gpu_fails="x", torch_wheel=_wheel("win_amd64", version="2.2.0"))
    assert pypi_torch_cpu(env(frameworks=[TORCH_BARE]), another, fix) == []  # the wheel is not the installed torch
    assert pypi_torch_cpu(env(frameworks=[TORCH_BARE]), TextClaims(torch_wheel=_wheel("win_amd64")), fix) == []


def test_a_bare_torch_on_windows_is_likely_the_cpu_wheel_said_as_unverified():
    claims = TextClaims(gpu_fails="torch.cuda.is_available() False")
    got = windows_torch_unlabelled(env(frameworks=[TORCH_BARE], platform="win32"), claims, fix)
    assert [f.id for f in got] == ["framework-cpu-only"] and got[0].message.startswith("Likely, not verified")
    assert windows_torch_unlabelled(env(frameworks=[TORCH_BARE], platform="linux"), claims, fix) == []
    printed = TextClaims(gpu_fails="x", torch_printed="torch.__version__ 2.3.1")  # PyPI's wheel prints 2.3.1+cpu
    assert windows_torch_unlabelled(env(frameworks=[TORCH_BARE], platform="win32"), printed, fix) == []
    assert windows_torch_unlabelled(env(frameworks=[TORCH_BARE], platform="win32"), TextClaims(), fix) == []


def test_a_cuda_build_shown_is_no_cpu_only_build():
    assert cuda_build_shown(env(frameworks=[TORCH_CUDA]), "torch")
    assert not cuda_build_shown(env(frameworks=[TORCH_CPU]), "torch")
    assert not cuda_build_shown(env(frameworks=[TORCH_CUDA]), "jax")
    assert not cuda_build_shown(env(frameworks=[TORCH_CUDA]), None)


# -- a container without GPUs (engine.container) ---------------------------------------------------------------

RUN = ContainerRun(line="docker run -it ubuntu | nvidia-smi: command not found", docker_run=True, smi_missing=True)


def test_a_container_without_gpus_needs_something_showing_a_gpu_was_meant():
    got = container_without_gpus(env(gpus=[T4]), TextClaims(container=RUN))
    assert got is not None and (got.id, got.severity, got.evidence) == ("no-gpu-visible", Severity.ERROR, RUN.line)
    assert "--gpus" in got.message and "Tesla T4" in got.message and "--gpus all" in (got.fix or "")
    assert container_without_gpus(env(), TextClaims(container=RUN)) is None  # nothing shows a GPU was meant
    assert container_without_gpus(env(toolkit="11.8"), TextClaims(container=RUN)) is not None  # the image's nvcc
    image = ContainerRun(line="nvidia/cuda:11.8.0-base | nvidia-smi: not found", docker_run=False, smi_missing=True,
                         gpu_image="nvidia/cuda:11.8.0-base")
    got = container_without_gpus(None, TextClaims(container=image), text_only=True)
    assert got is not None and "nvidia/cuda:11.8.0-base" in got.message and "mounts" in got.message
    # a framework shown on the GPU contradicts it; with no report, only nvidia-smi missing inside says it
    assert container_without_gpus(env(gpus=[T4]), TextClaims(container=RUN, gpu_works="CUDA available: True")) is None
    unseen = ContainerRun(line="docker run x | CUDA available: False", docker_run=True, smi_missing=False,
                          gpu_image="x:cuda11.8")
    assert container_without_gpus(None, TextClaims(container=unseen), text_only=True) is None
    assert container_without_gpus(None, TextClaims(container=unseen)) is not None


def test_started_with_gpus():
    assert started_with_gpus(TextClaims(docker_gpus="docker run --gpus all nvcr.io/nvidia/pytorch:23.10-py3"))
    assert not started_with_gpus(TextClaims())


# -- the reporter's CUDA claim (engine.claims) -----------------------------------------------------------------

TF210 = Framework("tensorflow", "2.10.0", cpu_only=False)


def test_tf_claim_of_another_cuda_major_is_a_missing_runtime(matrix):
    # TensorFlow 2.10's tested configuration is CUDA 11.2 (tensorflow.org/install/source#gpu): a CUDA 12 install
    # has no libcudart.so.11.0
    got = tf_claim_finding(matrix, env(frameworks=[TF210]), TextClaims(cuda_claim="12.1"))
    assert [(f.id, f.component) for f in got] == [("cuda-runtime-missing", "tensorflow")]
    assert "libcudart.so.11.0" in got[0].message and got[0].evidence == "12.1"
    assert tf_claim_finding(matrix, env(frameworks=[TF210]), TextClaims(cuda_claim="11.8")) == []  # same major
    assert tf_claim_finding(matrix, env(frameworks=[TF210]),
                            TextClaims(cuda_claim="12.1", tf_from_source="built from source")) == []
    no_os = Environment(source="t", host=Host(), python=PythonInfo(), driver=Driver(), gpus=(), toolkit=Toolkit(),
                        libraries=(), frameworks={"tensorflow": TF210}, packages={})
    # the OS not said (tfgpu39): 2.10's Linux and native Windows builds were both built for CUDA 11.2, so a CUDA 12
    # claim leaves either without its runtime (both files named); 2.12 has no native-Windows GPU build: nothing said
    got = tf_claim_finding(matrix, no_os, TextClaims(cuda_claim="12.1"))
    assert [f.id for f in got] == ["cuda-runtime-missing"] and "cudart64_110.dll" in got[0].message
    tf212 = Environment(source="t", host=Host(), python=PythonInfo(), driver=Driver(), gpus=(), toolkit=Toolkit(),
                        libraries=(), frameworks={"tensorflow": Framework("tensorflow", "2.12.0", cpu_only=False)},
                        packages={})
    assert tf_claim_finding(matrix, tf212, TextClaims(cuda_claim="10.2")) == []  # Linux and Windows differ
    cpu = Framework("tensorflow", "2.10.0", cpu_only=True)
    assert tf_claim_finding(matrix, env(frameworks=[cpu]), TextClaims(cuda_claim="12.1")) == []


# -- two frameworks in one process (engine.stack) ---------------------------------------------------------------

def test_two_frameworks_imported_share_one_cudnn():
    got = one_process_cudnn((("torch", "import torch"), ("jax", "import jax")))
    assert got is not None and "PyTorch and JAX" in got.said and "import torch; import jax" in got.said
    assert "jax-ml/jax/issues/18032" in got.source
    assert one_process_cudnn((("jax", "import jax"),)) is None
    assert one_process_cudnn(()) is None


# -- the rest that moved: driver advice, a machine from facts, CUDA builds, cuDNN pins, the GPU-unused ids --------

def test_driver_runs_a_cuda_fully(matrix):
    # CUDA 12.4: full support from 550.54.14, minor-version compatibility from 525.60.13 (NVIDIA's CUDA release notes)
    assert driver_upgrade(matrix, "12.4", DriverVersion.parse("580.65.06")).runs_fully is True
    assert driver_upgrade(matrix, "12.4", DriverVersion.parse("530.30.02")).runs_fully is False  # floor only
    assert driver_upgrade(matrix, "12.4", DriverVersion.parse("470.57.02")).runs_fully is False
    assert driver_upgrade(matrix, "12.4", None).runs_fully is None


def test_machine_from_facts_reads_the_gpu_and_the_driver_branch(matrix):
    m = machine_from_facts({"gpu": "Tesla T4", "driver": "535.104.05", "python": "3.10.12"}, matrix)
    assert m.ccs == ("7.5",) and m.python == "3.10" and m.driver == DriverVersion.parse("535.104.05")
    assert m.driver_cuda and m.driver_cuda.startswith("12.")  # the R535 branch is CUDA 12.2
    assert machine_from_facts({"os": "windows"}, matrix).platform == "windows-x86_64"


def test_cuda_builds_are_the_builds_needing_nvidias_stack():
    rocm = Framework("torch", "2.3.1+rocm6.0", rocm="6.0", cpu_only=False)
    got = cuda_builds(env(frameworks=[TORCH_CUDA, Framework("tensorflow", "2.15.0", cpu_only=True)]))
    assert [f.name for f in got] == ["torch"]
    assert cuda_builds(env(frameworks=[rocm])) == []


def test_cudnn_pin_of_a_tensorflow_release(matrix):
    # tensorflow==2.15.1's and-cuda extra pins nvidia-cudnn-cu12==8.9.4.25 (its METADATA)
    assert cudnn_pin(matrix, Framework("tensorflow", "2.15.1")) == "nvidia-cudnn-cu12==8.9.4.25"
    assert cudnn_pin(matrix, Framework("tensorflow", "2.10.0")) is None  # no and-cuda extra before 2.14
    assert cudnn_pin(None, Framework("tensorflow", "2.15.1")) is None


def test_the_gpu_unused_causes():
    assert {"framework-cpu-only", "no-gpu-visible", "gpu-arch-unsupported"} <= GPU_UNUSED
    assert "cudnn-version-mismatch" not in GPU_UNUSED


def test_the_cudnn_wheel_for_a_cuda_major(matrix):
    from envcheck.engine.rules import cudnn_wheel

    # PyPI: nvidia-cudnn-cu12 carries cuDNN 8.9 and 9.x; nvidia-cudnn-cu13 only cuDNN 9; no wheel before CUDA 11 / cuDNN 8
    assert cudnn_wheel(matrix, 9, 12) == ("nvidia-cudnn-cu12", "")
    wheel, why = cudnn_wheel(matrix, 8, 13)
    assert wheel == "" and "cuDNN 8.x for CUDA 13" in why
    wheel, why = cudnn_wheel(matrix, 7, None)
    assert wheel == "" and "start with CUDA 11" in why
    wheel, note = cudnn_wheel(matrix, 8, None)
    assert wheel.startswith("nvidia-cudnn-cu1") and "cu11 for CUDA 11 builds" in note


def test_a_windows_cuda_library_names_its_major_one_way():
    # explain's library reading and the fixes' asked the same question two ways (one read "cudart64_55.dll", CUDA 5.5,
    # as CUDA 55); both ask engine.rules.windows_dll_major now: major and minor run together before CUDA 11.1
    from envcheck.engine.rules import windows_dll_major
    from envcheck.explain import library_major

    assert [windows_dll_major(n) for n in (110, 101, 92, 90, 55, 32, 12, 13)] == [11, 10, 9, 9, 5, 3, 12, 13]
    assert library_major("cudart64_55.dll", "cudart") == ("cuda", 5)
    assert library_major("cudart64_32_16.dll", "cudart") == ("cuda", 3)
    assert library_major("cudart64_110.dll", "cudart") == ("cuda", 11)
    assert library_major("cublas64_12.dll", "cublas") == ("cuda", 12)


# -- explain's half: the text's lines as claims (explain.rank.claims_from_lines), no decision --------------------

def test_claims_from_lines_reads_the_wheel_the_container_and_the_imports():
    from envcheck.explain.rank import claims_from_lines

    # pip's lines as it prints them: PyPI's own file (no URL), a PyPI mirror, the PyTorch index
    got = claims_from_lines({"torch-wheel": "Downloading torch-2.3.1-cp310-cp310-win_amd64.whl (159.8 MB)"})
    w = got.torch_wheel
    assert w is not None and (w.version, w.platform_tag, w.from_pypi) == ("2.3.1", "win_amd64", True)
    mirror = claims_from_lines({"torch-wheel": "Downloading https://mirrors.aliyun.com/pypi/packages/ab/cd/"
                                               "torch-2.3.1-cp310-cp310-win_amd64.whl"}).torch_wheel
    assert mirror is not None and mirror.from_pypi
    index = claims_from_lines({"torch-wheel": "Downloading https://download.pytorch.org/whl/cu121/"
                                              "torch-2.3.1%2Bcu121-cp310-cp310-win_amd64.whl"}).torch_wheel
    assert index is not None and not index.from_pypi and index.version == "2.3.1%2Bcu121"
    assert claims_from_lines({"torch-wheel": "Successfully installed torch"}).torch_wheel is None
    run = claims_from_lines({"docker-no-gpus": "docker run -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime bash"
                                               " | bash: nvidia-smi: command not found"}).container
    assert run is not None and run.docker_run and run.smi_missing
    assert run.gpu_image == "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime"
    said = claims_from_lines({"cuda-available": "Is CUDA available: True", "import-jax": "import jax",
                              "import-torch": "import torch"})
    assert said.cuda_available is True and said.imports == (("torch", "import torch"), ("jax", "import jax"))
    assert claims_from_lines({"cuda-available": "Is CUDA available: False"}).cuda_available is False
    assert claims_from_lines({}) == TextClaims()  # nothing shown: every claim unset, none defaulted
