"""nvidia-smi.txt read by its content (contract §1): the plain table, Jetson's table, ``nvidia-smi -q`` (whole
and cut), ``nvidia-smi -L`` (MIG devices are not GPUs), the CSV, and an unrecognised form -> unknown. The
captures are real (tests/data/README.md cites each); the expectations were written by hand from the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import status_of_files

from envcheck.parse import nvidia_smi
from envcheck.parse.tegra import parse_tegra_release

DATA = Path(__file__).parent / "data"
FORMS = DATA / "nvidia-smi-forms"


def _cases(folder: Path):
    return [pytest.param(p, id=p.name[: -len(".expect.json")]) for p in sorted(folder.glob("*.expect.json"))]


@pytest.mark.parametrize("exp_path", _cases(FORMS))
def test_form_read_by_content(exp_path):
    exp = json.loads(exp_path.read_text())
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text()
    t = nvidia_smi.parse_smi(text)
    assert t.form == exp["form"]
    assert t.driver_version == exp["driver_version"]
    assert t.cuda_version == exp["cuda_version"]
    assert [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus] == exp["gpus"]
    assert (t.mig_devices > 0 or any(g.mig_enabled for g in t.gpus)) is exp["mig"]
    assert t.state == exp["state"]
    assert t.gpus_complete is exp["gpus_complete"]
    # a form read is never "nvidia-smi failed"
    assert t.state not in ("failed", "no-driver")


def test_vgpu_licence_product_name_is_not_a_gpu():
    t = nvidia_smi.parse_smi((FORMS / "q-vgpu-license-fragment-only.txt").read_text())
    assert t.gpus == [] and t.form == "nvidia-smi -q" and t.state is None


def test_q_cuda_not_found_is_null():
    # the layout of a vGPU guest's `nvidia-smi -q` header (contract §1: "CUDA Version : Not Found" -> null)
    text = ("==============NVSMI LOG==============\n\nDriver Version                            : 535.129.03\n"
            "CUDA Version                              : Not Found\n\nAttached GPUs                             : 1\n"
            "GPU 00000000:02:00.0\n    Product Name                          : GRID A100-4C\n")
    t = nvidia_smi.parse_smi(text)
    assert (t.driver_version, t.cuda_version, [g.name for g in t.gpus]) == ("535.129.03", None, ["GRID A100-4C"])


def test_q_uuid_and_mig_from_sections():
    text = (FORMS / "q-450.51.06-titan-xp-mig-na-partial.txt").read_text()
    g = nvidia_smi.parse_smi(text).gpus[0]
    assert g.uuid == "GPU-d10287b2-085a-e3c7-55f7-b55c61e8aee7" and g.mig_enabled is None
    assert g.bus_id == "00000000:41:00.0"


def test_l_mig_devices_counted_not_listed():
    t = nvidia_smi.parse_smi((FORMS / "L-535-a100-80gb-mig-7x1g.txt").read_text())
    assert len(t.gpus) == 1 and t.mig_devices == 7 and t.gpus[0].uuid.startswith("GPU-7fdaf0a5")


def test_truncated_forms_never_crash():
    for f in sorted(FORMS.glob("*.txt")):
        text = f.read_text()
        for cut in range(0, len(text), max(1, len(text) // 25)):
            t = nvidia_smi.parse_smi(text[:cut])
            assert t.state not in ("failed", "no-driver")


def test_existing_table_captures_keep_their_form():
    for f in sorted((DATA / "nvidia-smi").glob("*.txt")):
        t = nvidia_smi.parse_smi(f.read_text())
        exp = json.loads(f.with_name(f.name[:-4] + ".expect.json").read_text())
        assert t.driver_version == exp["driver_version"], f
        assert t.error == exp["error"], f
        assert t.form in ("table", "error"), f


@pytest.mark.parametrize("exp_path", _cases(DATA / "tegra-release"))
def test_tegra_release(exp_path):
    text = exp_path.with_name(exp_path.name[: -len(".expect.json")] + ".txt").read_text()
    assert parse_tegra_release(text) == json.loads(exp_path.read_text())["l4t"]


def test_tegra_release_not_that_file():
    assert parse_tegra_release("NAME=Ubuntu\n") is None and parse_tegra_release("") is None


_status = status_of_files


def test_snapshot_with_q_is_read_not_failed(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": (FORMS / "q-440.82-gtx1650-cuda-10.2-partial.txt").read_text(),
                             "packages.json": '{"torch": "2.5.1+cu124"}'})
    ids = [f["id"] for f in rep["findings"]]
    assert rep["driver"]["version"] == "440.82" and rep["driver"]["nvidia_smi"] == "ok"
    assert [g["name"] for g in rep["gpus"]] == ["GeForce GTX 1650"]
    assert "no-gpu-driver" not in ids
    assert "driver-too-old" in ids  # 440.82 supports CUDA 10.2, torch cu124 needs 12.4


def test_snapshot_with_list_only_has_a_driver(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": (FORMS / "L-4x-a100-80gb-mig-on-gpu0.txt").read_text()})
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and len(rep["gpus"]) == 4
    assert rep["driver"]["nvidia_smi_form"] == "nvidia-smi -L"


def test_snapshot_unrecognised_form_is_unknown(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": (FORMS / "unknown-tegrastats-line.txt").read_text()})
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids
    nc = [f for f in rep["findings"] if f["id"] == "not-checked" and "nvidia-smi.txt" in f["message"]]
    assert nc and "RAM 3679/15388MB" in nc[0]["evidence"]
    assert rep["driver"]["nvidia_smi"] is None and rep["driver"]["nvidia_smi_form"] == "unrecognised"


def test_snapshot_jetson_table_and_l4t(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": (FORMS / "jetson-540.4.0-orin-agx-cuda-12.6.txt").read_text(),
                             "tegra-release.txt": (DATA / "tegra-release" / "r32.5.1-tx2-head1.txt").read_text()})
    assert rep["accelerator"]["l4t"] == "32.5.1" and rep["driver"]["version"] == "540.4.0"
    assert [(g["name"], g["memory_mib"]) for g in rep["gpus"]] == [("Orin (nvgpu)", None)]


def test_nvml_unknown_error_in_container_is_device_access(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": "Failed to initialize NVML: Unknown Error\n",
                             "environ.json": '{"NVIDIA_VISIBLE_DEVICES": "all"}',
                             "packages.json": '{"torch": "2.5.1+cu124"}'})
    ids = [f["id"] for f in rep["findings"]]
    assert "no-gpu-driver" not in ids and "device-permission" in ids
    f = next(f for f in rep["findings"] if f["id"] == "device-permission")
    assert "Unknown Error" in f["evidence"]


def test_no_devices_found_is_gpu_not_initialized(tmp_path):
    rep = _status(tmp_path, {"nvidia-smi.txt": "No devices were found\n",
                             "sys-module-nvidia-version.txt": "535.104.05\n"})
    ids = [f["id"] for f in rep["findings"]]
    assert "gpu-not-initialized" in ids and "no-gpu-visible" not in ids
    f = next(f for f in rep["findings"] if f["id"] == "gpu-not-initialized")
    assert "dmesg" in f["fix"] and "CUDA_VISIBLE_DEVICES" not in f["fix"].split("(")[0]


def test_arch_list_is_a_fact_on_its_own(tmp_path):
    # issue 20: an A100 (sm_80) beside a torch whose arch list stops at sm_70, release unknown
    nvml = ('{"driver_version": "535.104.05", "cuda_driver_version": 12020, "gpus": [{"name": '
            '"NVIDIA A100-SXM4-40GB", "compute_capability": [8, 0], "memory_total_mib": 40960}]}')
    torch = '{"version": null, "cuda": null, "cudnn": null, "arch_list": ["sm_37", "sm_50", "sm_60", "sm_70"]}'
    rep = _status(tmp_path, {"nvml.json": nvml, "torch.json": torch})
    f = [f for f in rep["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert f and "sm_70" in f[0]["message"] and "8.0" in f[0]["message"]
    # contract §1's nvml.json has no "index": the GPU is still listed, not "no GPU visible"
    assert [g["name"] for g in rep["gpus"]] == ["NVIDIA A100-SXM4-40GB"]
    assert "no-gpu-visible" not in [x["id"] for x in rep["findings"]]
    # a list with PTX the GPU can JIT is fine
    rep = _status(tmp_path / "b", {"nvml.json": nvml, "torch.json": torch.replace('"sm_70"]', '"sm_70", "compute_70"]')})
    assert "gpu-arch-unsupported" not in [x["id"] for x in rep["findings"]]
