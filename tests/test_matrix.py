"""The bundled compatibility matrix: schema, cross-table consistency, and facts checked by hand
against the official tables (values typed here from the cited sources, never read from the matrix)."""

import os
import sys

import pytest

from envcheck.matrix import FILES, Matrix, bundled_dir, validate_tables
from envcheck.model import DriverVersion, cuda_tuple

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

M = Matrix(bundled_dir())


def load(name):
    with open(os.path.join(bundled_dir(), name + ".toml"), "rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("name", [n for n in FILES if os.path.exists(os.path.join(bundled_dir(), n + ".toml"))])
def test_schema(name):
    assert validate_tables(name, load(name)) == []


def test_schema_rejects_bad_rows():
    bad = {"meta": {"schema": 1, "updated": "2026-11-22"},
           "toolkit": [{"version": "12.4"}, {"version": "twelve", "source": "x"},
                       {"version": "12.4", "source": "x", "min_driver_linux": "N/A"}, {"version": "1.0", "source": "x",
                                                                                         "colour": "red"}]}
    problems = validate_tables("cuda", bad)
    assert any("no source" in p for p in problems)
    assert any("bad 'version'" in p for p in problems)
    assert any("min_driver_linux" in p for p in problems)
    assert any("unknown field 'colour'" in p for p in problems)
    assert validate_tables("cuda", {"toolkit": []}) == ["cuda: missing [meta]"]


# --- facts, from the CUDA Toolkit release notes table 3 and the CUDA compatibility guide -------------
@pytest.mark.parametrize("cuda,linux", [("11.8", "520.61.05"), ("12.0", "525.60.13"), ("12.4", "550.54.14"),
                                        ("12.1", "530.30.02"), ("11.0", "450.51.05"), ("10.2", "440.33")])
def test_toolkit_driver(cuda, linux):
    assert M.toolkit_min_driver(cuda) == DriverVersion.parse(linux)


def test_minor_version_floors():
    assert M.minor_compat_floor(11).raw == "450.80.02"
    assert M.minor_compat_floor(12).raw == "525.60.13"
    assert M.minor_compat_floor(11, windows=True).raw == "452.39"


@pytest.mark.parametrize("gpu,cc", [
    ("Tesla V100-SXM2-16GB", "7.0"), ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce RTX 3090", "8.6"),
    ("NVIDIA GeForce GTX TITAN X", "5.2"), ("NVIDIA TITAN X (Pascal)", "6.1"), ("Quadro RTX 6000", "7.5"),
    ("NVIDIA RTX 6000 Ada Generation", "8.9"), ("NVIDIA A100-SXM4-80GB", "8.0"), ("Tesla K80", "3.7"),
    ("NVIDIA GeForce RTX 4090", "8.9"), ("Tesla T4", "7.5"), ("NVIDIA RTX A6000", "8.6"),
    ("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("NVIDIA L4", "8.9"), ("NVIDIA B200", "10.0"),
    ("NVIDIA GeForce RTX 5090", "12.0"), ("Tesla P100-PCIE-16GB", "6.0"), ("NVIDIA GeForce GTX 1650", "7.5"),
])
def test_gpu_names(gpu, cc):
    row = M.gpu(gpu)
    assert row is not None and row["compute_capability"] == cc


def test_gpu_unknown_name():
    assert M.gpu("Matrox Millennium") is None
    assert M.gpu("") is None


def test_gpu_table_size():
    assert len(M.rows("gpus", "gpu")) >= 150


# --- consistency across tables ------------------------------------------------------------------------
def test_torch_variant_cuda_exists_in_cuda_table():
    known = set(M.cuda_versions())
    missing = [(v["variant"], v["cuda"]) for v in M.rows("torch", "variant")
               if v.get("cuda") and v["cuda"] not in known]
    assert missing == []


def test_torch_variant_archs_are_targetable_by_its_cuda():
    bad = []
    for v in M.rows("torch", "variant"):
        targets = M.toolkit_targets(v.get("cuda") or "")
        if not targets:
            continue
        for cc in v.get("compute_capabilities") or []:
            if cc not in targets:
                bad.append((v["variant"], v["releases"][0], cc))
    assert bad == []


def test_torch_variant_releases_exist():
    releases = {r["version"] for r in M.rows("torch", "release")}
    assert [rel for v in M.rows("torch", "variant") for rel in v["releases"] if rel not in releases] == []


def test_every_gpu_cc_targetable_by_some_toolkit():
    """Every GPU row's compute capability is a target of some toolkit the matrix records, except the Tesla (1.x)
    and Fermi (2.x) rows, which are there precisely because no recorded (current) toolkit targets them."""
    all_targets = {cc for r in M.rows("cuda", "targets") for cc in r["compute_capabilities"]}
    gpus = M.rows("gpus", "gpu")
    odd = sorted({g["compute_capability"] for g in gpus if g["architecture"] not in ("Tesla", "Fermi")} - all_targets)
    assert odd == []
    legacy = {g["compute_capability"] for g in gpus if g["architecture"] in ("Tesla", "Fermi")}
    assert legacy and not legacy & all_targets and all(cc < "3.0" for cc in legacy)


def test_driver_branches_monotonic():
    rows = [(DriverVersion.parse(r["first_driver_linux"]), cuda_tuple(r["highest_cuda"]))
            for r in M.rows("cuda", "driver_branch") if r.get("first_driver_linux") and r.get("highest_cuda")]
    rows.sort(key=lambda x: x[0].key)
    assert all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))


def test_toolkit_rows_unique():
    versions = [r["version"] for r in M.rows("cuda", "toolkit")]
    assert len(versions) == len(set(versions))


def test_torch_cudnn_pins_support_the_variant_cuda():
    """Each pinned nvidia-cudnn-cuNN wheel is for the variant's CUDA major."""
    bad = []
    for v in M.rows("torch", "variant"):
        pin = v.get("cudnn_pin")
        t = cuda_tuple(v.get("cuda"))
        if pin and t and f"-cu{t[0]}" not in pin:
            bad.append((v["variant"], pin))
    assert bad == []


def test_tensorflow_cuda_in_cuda_table():
    known = set(M.cuda_versions())
    assert [r["version"] for r in M.rows("tensorflow", "release") if r.get("cuda") and r["cuda"] not in known] == []


def test_cudnn_supported_cuda_majors_exist():
    majors = {cuda_tuple(v)[0] for v in M.cuda_versions()}
    for r in M.rows("cudnn", "release"):
        for c in r.get("cuda", []):
            assert c["major"] in majors, r


def test_gpu_names_typed_without_the_brand_word():
    """`--gpu 'RTX 4090'` as people type it; the brand-less match is only a fallback (compute capabilities:
    https://developer.nvidia.com/cuda-gpus)."""
    from envcheck.matrix import load_matrix

    m = load_matrix()
    assert m.gpu("RTX 4090")["compute_capability"] == "8.9"
    assert m.gpu("rtx-5090")["compute_capability"] == "12.0"
    assert m.gpu("GTX 1080 Ti")["compute_capability"] == "6.1"
    assert m.gpu("NVIDIA RTX A6000")["compute_capability"] == "8.6"  # a real table name wins over a fallback
    assert m.gpu("4090") is None  # one token is too little to guess from


# --- generations (gpus.toml [[generation]]) ----------------------------------------------------------
def _cc(v):
    a, b = v.split(".")
    return int(a), int(b)


def test_every_gpu_maps_to_exactly_one_generation_of_its_architecture():
    gens = M.rows("gpus", "generation")
    assert gens
    bad = []
    for g in M.rows("gpus", "gpu"):
        hits = [r["name"] for r in gens
                if _cc(r["min_compute_capability"]) <= _cc(g["compute_capability"]) <= _cc(r["max_compute_capability"])]
        if hits != [g.get("architecture")]:
            bad.append((g["name"], g["compute_capability"], g.get("architecture"), hits))
    assert bad == []


def test_generation_ranges_do_not_overlap_and_branches_are_known():
    gens = sorted(M.rows("gpus", "generation"), key=lambda r: _cc(r["min_compute_capability"]))
    for a, b in zip(gens, gens[1:]):
        assert _cc(a["max_compute_capability"]) < _cc(b["min_compute_capability"]), (a["name"], b["name"])
    for r in gens:
        for k in ("first_branch", "last_branch"):
            if k in r:
                assert r[k].isdigit(), r
        if "first_branch" in r and "last_branch" in r:
            assert int(r["first_branch"]) <= int(r["last_branch"])


def test_every_torch_cudnn_has_a_cudnn_row():
    """Each cuDNN a torch variant bundles or pins (cudnn / cudnn_pin) has a cudnn.toml row of that release."""
    missing = []
    for v in M.rows("torch", "variant"):
        for val in (v.get("cudnn"), (v.get("cudnn_pin") or "").partition("==")[2] or None):
            if not val:
                continue
            xyz = ".".join(val.split(".")[:3])
            row = M.cudnn_release(xyz)
            if row is None or xyz not in (row.get("patches") or [row["version"]]):
                missing.append((v["variant"], v["releases"][0], val))
    assert missing == []     # 8.3.2.44 (torch 1.12/1.13 cu113/cu116) has an archive-name row since issue 12


def test_windows_and_aarch64_arch_lists_targetable_by_the_variant_cuda():
    bad = []
    for v in M.rows("torch", "variant"):
        targets = M.toolkit_targets(v.get("cuda") or "")
        if not targets:
            continue
        for key in ("compute_capabilities_windows", "compute_capabilities_aarch64", "ptx"):
            bad += [(v["variant"], v["releases"][0], key, cc) for cc in v.get(key) or [] if cc not in targets]
    assert bad == []


@pytest.mark.parametrize("gpu,cc", [
    # NVIDIA CUDA legacy-GPU page (developer.nvidia.com/cuda-legacy-gpus), as its table prints them
    ("Quadro M620", "5.2"), ("NVIDIA GeForce 910M", "5.2"), ("Quadro M5000M", "5.0"), ("Quadro M4000M", "5.0"),
    ("Quadro M3000M", "5.0"),
    # NVIDIA's 2017 CUDA GPUs table (compute capability 1.x/2.x, now the legacy page's), via its verbatim copy
    ("GeForce 210", "1.2"), ("GeForce GT 240", "1.2"), ("GeForce GTX 285", "1.3"), ("GeForce GTX 480", "2.0"),
    ("Quadro 4000", "2.0"), ("GeForce 820M", "2.1"), ("GeForce GT 610", "2.1"),
])
def test_legacy_page_gpus_added(gpu, cc):
    row = M.gpu(gpu)
    assert row is not None and row["name"] == gpu.replace("NVIDIA ", "") and row["compute_capability"] == cc


@pytest.mark.parametrize("arch,first,last", [
    ("Kepler", None, "470"),      # 'Legacy releases: 470.239.06 - GKxxx "Kepler" GPUs' (NVIDIA forum)
    ("Maxwell", None, "580"), ("Pascal", None, "580"), ("Volta", None, "580"),   # 'release 580 series will be the last'
    ("Turing", None, None), ("Ampere", None, None), ("Blackwell", "570", None),
])
def test_generation_driver_branches(arch, first, last):
    row = [r for r in M.rows("gpus", "generation") if r["name"] == arch]
    assert len(row) == 1
    assert row[0].get("first_branch") == first and row[0].get("last_branch") == last


def test_schema_checks_generation_rows():
    bad = {"meta": {"schema": 1, "updated": "2026-11-23"},
           "generation": [{"name": "Kepler", "min_compute_capability": "3.0", "max_compute_capability": "3.7",
                           "last_branch": "R470", "source": "x"},
                          {"name": "Maxwell", "min_compute_capability": "5", "source": "x"}]}
    problems = validate_tables("gpus", bad)
    assert any("last_branch" in p for p in problems)
    assert any("min_compute_capability" in p for p in problems)
    assert any("missing 'max_compute_capability'" in p for p in problems)


def test_retired_generations_cite_nvidias_architecture_matrix():
    """'Last Driver Support' R580 for Maxwell 5.0-5.3, Pascal 6.0/6.1 and Volta 7.0 is read from NVIDIA's own table
    (docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html), not press quotes."""
    for arch in ("Maxwell", "Pascal", "Volta"):
        row = next(r for r in M.rows("gpus", "generation") if r["name"] == arch)
        assert row["source"].startswith("https://docs.nvidia.com/datacenter/tesla/drivers/")
        assert row["last_branch"] == "580" and "first_branch" not in row


def test_pip_wheel_kind_per_cuda_major():
    # cuda.toml [[pip_wheels]]: suffixed -cu11/-cu12 wheels, CUDA 13 through cuda-toolkit's extras, none before 11
    from envcheck.engine.rules import nvidia_wheel_kind

    assert [M.pip_wheel_kind(k) for k in (10, 11, 12, 13)] == ["none", "suffixed", "suffixed", "toolkit"]
    assert nvidia_wheel_kind(None, 12) == nvidia_wheel_kind(M, 12) == "suffixed"
