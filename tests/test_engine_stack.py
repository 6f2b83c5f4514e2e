"""The stack rules of the engine (engine/stack.py), on builds read from the matrix: each answers runs / does not
run / unknown with its reason. Expectations are from the cited texts: TensorFlow loads a cuDNN of the same major
and an equal or higher minor; PyTorch's cpp_extension refuses a toolkit of another CUDA major and warns on a
minor; pip cannot satisfy two different exact pins."""

from __future__ import annotations

from envcheck.engine.builds import Build
from envcheck.engine.stack import (jax_beside_torch, pins_conflict, system_libraries, tensorflow_on_torch_libraries,
                                   toolkit_for_extensions)
from envcheck.engine.status import Status

TORCH = Build(framework="torch", version="2.5.1", variant="cu124", cuda="12.4", cudnn="9.1.0.70",
              pins={"nvidia-cudnn-cu12": "==9.1.0.70", "nvidia-cuda-runtime-cu12": "==12.4.127"})
TF = Build(framework="tensorflow", version="2.18.0", variant="system", cuda="12.5", cudnn="9.3")
TF_OLD = Build(framework="tensorflow", version="2.16.1", variant="system", cuda="12.3", cudnn="8.9")
TF_OK = Build(framework="tensorflow", version="2.17.0", variant="system", cuda="12.3", cudnn="8.9")
TORCH_DNN8 = Build(framework="torch", version="2.2.0", variant="cu121", cuda="12.1", cudnn="8.9.2.26",
                   pins={"nvidia-cudnn-cu12": "==8.9.2.26"})


def test_tensorflow_on_torch_libraries():
    assert tensorflow_on_torch_libraries(TORCH, TF).status is Status.NO  # torch's CUDA 12.4 < TF's 12.5
    assert tensorflow_on_torch_libraries(TORCH, TF_OLD).status is Status.NO  # cuDNN 9 for a cuDNN 8 build
    assert tensorflow_on_torch_libraries(TORCH_DNN8, TF_OK).status is Status.NO  # CUDA 12.1 < 12.3
    same = Build(framework="tensorflow", version="2.17.0", variant="system", cuda="12.1", cudnn="8.9")
    assert tensorflow_on_torch_libraries(TORCH_DNN8, same).status is Status.RUNS
    unknown = Build(framework="tensorflow", version="2.17.0", variant="system", cuda=None, cudnn="8.9")
    assert tensorflow_on_torch_libraries(TORCH_DNN8, unknown).status is Status.UNKNOWN


def test_jax_beside_torch():
    jax = Build(framework="jax", version="0.4.35", variant="cuda12", cuda="12.1", pins={"nvidia-cudnn-cu12": ">=9.1"})
    assert jax_beside_torch(TORCH, jax).status is Status.RUNS
    assert jax_beside_torch(TORCH_DNN8, jax).status is Status.NO
    jax13 = Build(framework="jax", version="0.8.0", variant="cuda13", cuda="13.0")
    assert jax_beside_torch(TORCH, jax13).status is Status.NO


def test_system_libraries():
    assert system_libraries(TF, ["9.3.0"], ["12.6"]).status is Status.RUNS
    no = system_libraries(TF, ["8.9.7"], ["12.6"])
    assert no.status is Status.NO and "cuDNN 9.x" in no.reason
    assert system_libraries(TF, ["9.3.0"], ["12.4"]).status is Status.NO  # runtime older than the build's
    assert system_libraries(TF, ["9.3.0"], ["13.0"]).status is Status.NO  # another major
    assert system_libraries(Build(framework="tensorflow", version="x", variant="system"), [], []).status \
        is Status.UNKNOWN


def test_toolkit_for_extensions():
    assert toolkit_for_extensions("13.0", "12.4").status is Status.NO
    minor = toolkit_for_extensions("12.6", "12.4")
    assert minor.status is Status.RUNS and minor.caveat
    same = toolkit_for_extensions("12.4", "12.4")
    assert same.status is Status.RUNS and not same.caveat
    assert toolkit_for_extensions(None, "12.4").status is Status.UNKNOWN


def test_pins_conflict():
    assert pins_conflict("==9.1.0.70", "==9.3.0.75", None).status is Status.NO
    assert pins_conflict("==9.1.0.70", ">=9.3", "9.1.0.70").status is Status.NO
    assert pins_conflict("==9.3.0.75", ">=9.3", "9.3.0.75").status is Status.RUNS
    assert pins_conflict("==9.1", "not a spec", None).status is Status.UNKNOWN
