"""Facts about PyTorch wheel variants, typed by hand from the primary sources below and asserted
through the public Matrix / builds API (never read back from compat_matrix/torch.toml).

Sources (what each fact was typed from):
* RELEASE.md "Release Compatibility Matrix" rows, as added/changed by the PyTorch release manager:
  2.13 row https://github.com/pytorch/pytorch/pull/187075 ,
  2.14 row https://github.com/pytorch/pytorch/pull/194367 ,
  2.10 cuDNN 9.15.1.9 for CUDA 13.0 https://github.com/pytorch/pytorch/pull/173677 ,
  2.10-2.12 NCCL backfill (2.12: 12.6 / 13.0 / 13.2) https://github.com/pytorch/pytorch/pull/190386 .
* RELEASE.md "PyTorch CUDA Support Matrix" (architectures per CUDA version):
  release 2.12 table https://github.com/pytorch/pytorch/pull/182849 ("For Release 2.12, 2.13 and 2.14",
  https://github.com/pytorch/pytorch/pull/197555), release 2.9/2.10 and 2.11 tables
  https://github.com/pytorch/pytorch/pull/175253 .
* 2.10.0 variants CUDA 12.6, 12.8, 13.0 for Linux x86, Linux aarch64, Windows x86:
  https://dev-discuss.pytorch.org/t/wheel-variants-for-pytorch-release-2-10-published/3305
* Runtime `torch.cuda.get_arch_list()` of 2.11.0+cu126 / 2.11.0+cu128 / 2.10.0+cu128:
  https://github.com/pytorch/pytorch/issues/182250
* 2.15 drops CUDA 12.6 builds: RFC https://github.com/pytorch/pytorch/issues/190385 ; the PyPI 2.15.0
  wheel is +cu132.
* torchaudio's newest PyPI release is 2.11.0 (`pip index versions torchaudio`, 2026-11-22).
* 1.x / 2.0 PyPI wheels (read 2026-11-22 with HTTP range requests from https://pypi.org/project/torch/X/#files,
  the cp38 manylinux1 x86_64 wheel of each release; member torch/lib/libtorch_python.so, CUDA_ARCH_FLAGS string):
  1.8.0 (version.py '1.8.0', cuda '10.2'), 1.8.1+cu102, 1.9.0+cu102, 1.9.1+cu102, 1.10.0+cu102, 1.10.1+cu102,
  1.11.0+cu102, 1.12.0+cu102, 1.12.1+cu102: 'sm_37 sm_50 sm_60 sm_70';
  1.13.0+cu117, 1.13.1+cu117, 2.0.0+cu117, 2.0.1+cu117: 'sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86';
  no compute_ (PTX) entry in any of them.
"""

from __future__ import annotations

import pytest

from oracle import builds_for, runs_on
from envcheck.matrix import load_matrix

M = load_matrix()


def variant(version, name):
    v = M.torch_variant(version, name)
    assert v is not None, f"no {name} row for torch {version}"
    return v


# --- which variants exist -------------------------------------------------------------------------
@pytest.mark.parametrize("version,expected", [
    ("2.10.0", {"cu126", "cu128", "cu130"}),       # dev-discuss 3305
    ("2.12.0", {"cu126", "cu130", "cu132"}),       # RELEASE.md 2.12 row (12.8 removed)
    ("2.13.0", {"cu126", "cu130", "cu132"}),       # PR 187075
    ("2.14.0", {"cu126", "cu130", "cu132"}),       # PR 194367
])
def test_cuda_variants_of_a_release(version, expected):
    got = {v["variant"] for v in M.torch_variants(version) if v.get("cuda")}
    assert got == expected


def test_cu128_gone_from_2_12():
    assert M.torch_variant("2.12.0", "cu128") is None


def test_2_15_has_no_cu126_build():
    assert M.torch_variant("2.15.0", "cu126") is None
    assert variant("2.15.0", "cu132")["cuda"] == "13.2"


# --- CUDA and cuDNN per variant (Release Compatibility Matrix) ------------------------------------
@pytest.mark.parametrize("version,name,cuda,cudnn", [
    ("2.10.0", "cu126", "12.6", "9.10.2.21"),
    ("2.10.0", "cu130", "13.0", "9.15.1.9"),
    ("2.12.0", "cu126", "12.6", "9.10.2.21"),
    ("2.12.0", "cu132", "13.2", "9.20.0.48"),
    ("2.13.0", "cu126", "12.6", "9.10.2.21"),
    ("2.13.0", "cu132", "13.2", "9.20.0.48"),
    ("2.14.0", "cu126", "12.6", "9.10.2.21"),
    ("2.14.0", "cu132", "13.2", "9.24.0.43"),
    ("2.14.0", "cu130", "13.0", "9.24.0.43"),
])
def test_cuda_and_cudnn(version, name, cuda, cudnn):
    v = variant(version, name)
    assert (v["cuda"], v["cudnn"]) == (cuda, cudnn)


def test_builds_for_reports_the_new_variants():
    builds = {b["variant"]: b for b in builds_for(M, "torch==2.13.0")}
    assert builds["cu132"]["cudnn"] == "9.20.0.48" and builds["cu132"]["cuda"] == "13.2"
    assert builds["cu126"]["index_url"] == "https://download.pytorch.org/whl/cu126"
    assert "5.0" in builds["cu126"]["compute_capabilities"]


# --- architectures (CUDA Support Matrix) ----------------------------------------------------------
CU126 = ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"]
CU13X = ["7.5", "8.0", "8.6", "9.0", "10.0", "12.0"]


@pytest.mark.parametrize("version,name,caps", [
    ("2.10.0", "cu126", CU126), ("2.10.0", "cu130", CU13X),
    ("2.12.0", "cu126", CU126), ("2.12.1", "cu132", CU13X),
    ("2.13.0", "cu132", CU13X), ("2.14.1", "cu126", CU126),
    ("2.11.0", "cu126", CU126), ("2.11.0", "cu128", CU13X),       # issue 182250 runtime lists
    ("2.10.0", "cu128", ["7.0"] + CU13X),                         # issue 182250: 2.10 cu128 still has sm_70
])
def test_linux_x86_arch_lists(version, name, caps):
    assert variant(version, name)["compute_capabilities"] == caps


@pytest.mark.parametrize("version,name,caps", [
    ("2.12.0", "cu126", ["8.0", "9.0"]),
    ("2.12.0", "cu132", ["8.0", "9.0", "10.0", "11.0", "12.0"]),
    ("2.14.0", "cu130", ["8.0", "9.0", "10.0", "11.0", "12.0"]),
    ("2.11.0", "cu128", ["8.0", "9.0", "10.0", "12.0"]),
])
def test_aarch64_arch_lists(version, name, caps):
    v = variant(version, name)
    assert v["compute_capabilities_aarch64"] == caps


def test_platforms_of_2_12_cu132():
    assert set(variant("2.12.0", "cu132")["platforms"]) == {"linux-x86_64", "windows-x86_64", "linux-aarch64"}


def test_pascal_runs_cu126_not_cu132():
    """A GTX 1080 (6.1) runs the 12.6 build (sm_60 SASS) of 2.12.0 but not the 13.2 build (Turing+)."""
    builds = {b["variant"]: b for b in builds_for(M, "torch==2.12.0")}
    _, lines126 = runs_on(M, builds["cu126"], ccs=("6.1",))
    verdict132, lines132 = runs_on(M, builds["cu132"], ccs=("6.1",))
    assert any(x.startswith("gpu 6.1: ok") for x in lines126)
    assert any(x.startswith("gpu 6.1: NO") for x in lines132) and verdict132 is False


def test_volta_dropped_from_cu128_in_2_11():
    builds = {b["variant"]: b for b in builds_for(M, "torch==2.11.0")}
    assert runs_on(M, builds["cu128"], ccs=("7.0",))[0] is False
    assert any(x.startswith("gpu 7.0: ok") for x in runs_on(M, builds["cu126"], ccs=("7.0",))[1])


# --- release rows ---------------------------------------------------------------------------------
@pytest.mark.parametrize("version,vision", [
    ("2.10.0", "0.25.0"), ("2.11.0", "0.26.0"), ("2.12.0", "0.27.0"), ("2.13.0", "0.28.0"),
    ("2.14.0", "0.29.0"), ("2.5.1", "0.20.1"), ("2.0.1", "0.15.2"),
])
def test_torchvision_pairing(version, vision):
    assert M.torch_release(version)["torchvision"] == vision


def test_no_torchaudio_after_2_11():
    assert M.torch_release("2.11.0")["torchaudio"] == "2.11.0"
    for v in ("2.12.0", "2.13.0", "2.14.0", "2.15.0"):
        assert "torchaudio" not in M.torch_release(v)


def test_every_release_has_python_and_torchvision():
    missing = [r["version"] for r in M.rows("torch", "release") if not r.get("python") or not r.get("torchvision")]
    assert missing == []


@pytest.mark.parametrize("version,py", [("2.12.0", "3.14"), ("2.14.0", "3.14"), ("2.10.0", "3.10")])
def test_python_lists(version, py):
    assert py in M.torch_release(version)["python"]
    assert "3.9" not in M.torch_release(version)["python"]   # RELEASE.md: >=3.10 from 2.9 on


def test_new_rows_cite_and_explain():
    for version in ("2.10.0", "2.12.0", "2.13.0", "2.14.0"):
        for v in M.torch_variants(version):
            assert v.get("source") and v.get("derived"), (version, v["variant"])


# --- 1.x / 2.0 PyPI wheels (CUDA_ARCH_FLAGS string read from libtorch_python.so of each PyPI wheel) -------
KEPLER_TO_VOLTA = ["3.7", "5.0", "6.0", "7.0"]                         # 'sm_37 sm_50 sm_60 sm_70'
KEPLER_TO_AMPERE = ["3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6"]   # '... sm_75 sm_80 sm_86'


@pytest.mark.parametrize("version,name,caps", [
    ("1.8.0", "cu102", KEPLER_TO_VOLTA), ("1.8.1", "cu102", KEPLER_TO_VOLTA),
    ("1.9.0", "cu102", KEPLER_TO_VOLTA), ("1.9.1", "cu102", KEPLER_TO_VOLTA),
    ("1.10.0", "cu102", KEPLER_TO_VOLTA), ("1.10.1", "cu102", KEPLER_TO_VOLTA),
    ("1.11.0", "cu102", KEPLER_TO_VOLTA),
    ("1.12.0", "cu102", KEPLER_TO_VOLTA), ("1.12.1", "cu102", KEPLER_TO_VOLTA),
    ("1.13.0", "cu117", KEPLER_TO_AMPERE), ("1.13.1", "cu117", KEPLER_TO_AMPERE),
    ("2.0.0", "cu117", KEPLER_TO_AMPERE), ("2.0.1", "cu117", KEPLER_TO_AMPERE),
])
def test_pypi_wheel_arch_lists_1x(version, name, caps):
    v = variant(version, name)
    assert v["compute_capabilities"] == caps
    assert v["ptx"] == []                      # no compute_NN in the flags string
    assert "libtorch_python.so" in v["derived"] and "range-read" in v["derived"]


def test_1_12_1_cu102_has_sm37_but_not_sm35_nor_turing():
    caps = variant("1.12.1", "cu102")["compute_capabilities"]
    assert "3.7" in caps and "3.5" not in caps and "7.5" not in caps


def test_cu117_wheels_stop_at_ampere():
    for version in ("1.13.1", "2.0.1"):
        caps = variant(version, "cu117")["compute_capabilities"]
        assert caps[-1] == "8.6" and "9.0" not in caps and "8.9" not in caps


@pytest.mark.parametrize("spec,name,cc,ok", [
    ("torch==1.12.1", "cu102", "8.6", False),   # RTX 30xx: no sm_86 SASS and no PTX in the cu102 wheel
    ("torch==1.12.1", "cu102", "3.5", False),   # K40: sm_37 SASS does not run on 3.5
    ("torch==1.12.1", "cu102", "7.5", True),    # Turing runs the sm_70 SASS (same major)
    ("torch==2.0.1", "cu117", "8.6", True),
    ("torch==2.0.1", "cu117", "9.0", False),    # H100: cu117 wheel has no sm_90 and no PTX
])
def test_runs_on_old_pypi_wheels(spec, name, cc, ok):
    builds = {b["variant"]: b for b in builds_for(M, spec)}
    _, lines = runs_on(M, builds[name], ccs=(cc,))
    prefix = "gpu %s: %s" % (cc, "ok" if ok else "NO")
    assert any(x.startswith(prefix) for x in lines), lines


# --- added 2026-11-23 -----------------------------------------------------------------------------------
# pytorch/builder release branches (git show release/X.Y:...), typed by hand:
#   manywheel/build_cuda.sh (1.11-2.5) / manywheel/build.sh (1.9, 1.10): TORCH_CUDA_ARCH_LIST base
#   '3.7;5.0;6.0;7.0' (+ '7.5;8.0;8.6' for CUDA 11.x up to 1.13; 2.0 CUDA 11.8: + '7.5;8.0;8.6;9.0');
#   2.1-2.5 base '5.0;6.0;7.0;7.5;8.0;8.6', CUDA 11.8 adds '3.7;9.0', 12.x adds '9.0'; no '+PTX' anywhere.
#   windows/cuda102.bat '3.7+PTX;5.0;6.0;6.1;7.0;7.5'; cuda11[1-7].bat '3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6';
#   cuda118.bat '3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0'; cuda121.bat / cuda124.bat '5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0'.
#   common/install_cuda.sh: install_102 libcudnn7_7.6.5.32-1+cuda10.2; 1.12/1.13 install_113/116
#   cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive; install_117 8.5.0.96_cuda11; 2.0 install_118 8.7.0.84_cuda11.
# PyPI METADATA (pip install --dry-run --report): torch 1.13.0 'nvidia-cudnn-cu11 (==8.5.0.96)', 2.0.1 the same;
#   torch 1.12.1: no nvidia-cudnn requirement.
@pytest.mark.parametrize("version,name,cudnn", [
    ("1.12.1", "cu102", "7.6.5.32"), ("1.12.0", "cu113", "8.3.2.44"), ("1.12.1", "cu116", "8.3.2.44"),
    ("1.13.1", "cu116", "8.3.2.44"), ("1.13.0", "cu117", "8.5.0.96"), ("2.0.1", "cu117", "8.5.0.96"),
    ("2.0.0", "cu118", "8.7.0.84"), ("1.11.0", "cu113", "8.2.0.53"), ("1.10.1", "cu111", "8.0.5.39"),
])
def test_builder_cudnn(version, name, cudnn):
    assert variant(version, name)["cudnn"] == cudnn


@pytest.mark.parametrize("version", ["1.13.0", "1.13.1", "2.0.0", "2.0.1"])
def test_cu117_pypi_cudnn_pin(version):
    assert variant(version, "cu117")["cudnn_pin"] == "nvidia-cudnn-cu11==8.5.0.96"


@pytest.mark.parametrize("version", ["2.0.0", "2.1.0", "2.2.2", "2.3.1", "2.4.0", "2.5.1"])
def test_cu118_has_no_ptx_on_linux(version):
    assert variant(version, "cu118")["ptx"] == []


@pytest.mark.parametrize("version,name,caps", [
    ("1.9.0", "cu102", ["3.7", "5.0", "6.0", "6.1", "7.0", "7.5"]),
    ("1.12.0", "cu113", ["3.7", "5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6"]),
    ("2.0.1", "cu118", ["3.7", "5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"]),
    ("2.3.0", "cu121", ["5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"]),
    ("2.5.0", "cu124", ["5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"]),
])
def test_windows_arch_lists(version, name, caps):
    assert variant(version, name)["compute_capabilities_windows"] == caps


@pytest.mark.parametrize("version,name,caps", [
    ("1.9.1", "cu111", ["3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6"]),
    ("1.12.1", "cu116", ["3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6"]),
    ("2.4.1", "cu124", ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"]),
])
def test_builder_linux_arch_lists(version, name, caps):
    assert variant(version, name)["compute_capabilities"] == caps


@pytest.mark.parametrize("version", ["1.8.0", "1.8.1", "1.9.1", "1.10.1", "2.1.2", "2.2.0", "2.3.1"])
def test_cpu_rows_from_previous_versions_page(version):
    """previous-versions.md (pytorch.github.io@e3f009bb): '# CPU only' line for each of these releases."""
    assert variant(version, "cpu") is not None


def test_release_matrix_rows_of_pytorch_release_md():
    """Typed by hand from PyTorch's RELEASE.md Release Compatibility Matrix: 2.9 (CUDA 12.6 and 13.0 with
    cuDNN 9.10.2.21 / 9.13.0.50), 2.8 (12.6 and 12.9 with 9.10.2.21)."""
    v = {(r, x["variant"]): x for x in M.rows("torch", "variant") for r in x.get("releases", [])}
    assert v[("2.9.1", "cu126")]["cudnn"] == "9.10.2.21" and v[("2.9.1", "cu130")]["cudnn"] == "9.13.0.50"
    assert v[("2.8.0", "cu126")]["cudnn"] == "9.10.2.21" and v[("2.8.0", "cu129")]["cudnn"] == "9.10.2.21"
    # 2.11's row of that table disagrees with the 2.11.0 cu130 wheel on PyPI (9.19.0.56): not taken
    assert "cudnn" not in v[("2.11.0", "cu126")] and "cudnn" not in v[("2.11.0", "cu128")]
    # Maxwell and Pascal have a 2.9.1 build again (cu126 keeps sm_50 / sm_60)
    assert "6.0" in v[("2.9.1", "cu126")]["compute_capabilities"]


# --- cpu rows added for issue 12, typed by hand from what each source prints ---------------------------------------
# 1.10.2: pytorch.github.io@0142fe6d published_versions.json, '1.10.2' linux pip accnone:
#   'pip3 install torch==1.10.2+cpu torchvision==0.11.3+cpu torchaudio==0.10.2+cpu -f https://download.pytorch.org/whl/cpu/torch_stable.html'
# 2.4.0: pytorch.github.io@21e77f1d assets/quick-start-module.js, 'Stable (2.4.0)', stable,pip,linux,accnone:
#   'pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cpu'
# 2.10.0: dev-discuss 3305, 'CPU only: Linux, Linux aarch64, MacOS (including M1/M2), Windows (CPU only)'
CPU_ROWS = {
    "1.10.2": ({"linux-x86_64", "windows-x86_64"}, None, "https://download.pytorch.org/whl/cpu/torch_stable.html"),
    "2.4.0": ({"linux-x86_64", "windows-x86_64", "macos-aarch64"}, "https://download.pytorch.org/whl/cpu", None),
    "2.10.0": ({"linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-aarch64"},
               "https://download.pytorch.org/whl/cpu", None),
}


@pytest.mark.parametrize("version", sorted(CPU_ROWS))
def test_cpu_rows_added_for_issue_12(version):
    plats, index, links = CPU_ROWS[version]
    v = variant(version, "cpu")
    assert set(v["platforms"]) == plats
    assert v.get("index_url") == index and v.get("find_links") == links
    assert "cuda" not in v and "cudnn" not in v and "compute_capabilities" not in v


@pytest.mark.parametrize("version", ["1.8.0", "1.9.1", "1.10.2", "2.3.1", "2.4.0", "2.9.0", "2.10.0"])
def test_cpu_rows_resolve_for_fix_on_a_cpu_only_machine(tmp_path, version):
    """`envcheck fix --want torch==X` on a machine with no NVIDIA GPU plans release X's cpu row (its source)."""
    from envcheck.environment import collect
    from envcheck.plan.output import plan_dict
    from envcheck.plan.resolve import parse_wants, resolve, target_from_env
    from envcheck.snapshot import open_snapshot
    from helpers import make_snapshot

    env = collect(open_snapshot(make_snapshot(str(tmp_path / "snap"), {})), M)
    py = M.torch_release(version)["python"][-1]
    target = target_from_env(env, M, python=py, platform="linux-x86_64")
    plan = resolve(M, target, parse_wants([f"torch=={version}"]))
    assert plan.satisfiable, plan_dict(plan)
    b = plan.builds[0]
    assert (b.framework, b.version, b.variant) == ("torch", version, "cpu")
    assert b.source == variant(version, "cpu")["source"]
    assert plan_dict(plan)["driver"]["required_min"] is None
    # the plan installs from where the row says the cpu wheel is: its find-links page (old releases, with
    # the +cpu local version) or its index; never a made-up whl/cpu index for a find-links release
    row = variant(version, "cpu")
    if row.get("find_links"):
        assert (b.find_links, b.index_url) == (row["find_links"], None)
        assert f"torch=={version}+cpu --find-links {row['find_links']}" in "\n".join(plan_dict(plan)["commands"]["pip"])
    else:
        assert b.find_links is None and b.index_url == (row.get("index_url") or "https://download.pytorch.org/whl/cpu")


@pytest.mark.parametrize("name", ["cu118", "cu121", "cu124"])
def test_2_4_cuda_variants_are_published_for_windows(name):
    """quick-start-module.js 'Stable (2.4.0)': stable,pip,windows,cuda.x/.y/.z -> --index-url .../whl/cu118 / cu121 / cu124."""
    # (+ linux-aarch64 for cu124, from pytorch/test-infra at the 2.4.0 stable commit: tests/test_matrix_issue23_facts.py)
    assert set(variant("2.4.0", name)["platforms"]) - {"linux-aarch64"} == {"linux-x86_64", "windows-x86_64"}



@pytest.mark.parametrize("version", ["1.10.0", "1.10.1", "1.10.2"])
def test_1_10_cu113_variant(version):
    """published_versions.json: 'torch==1.10.X+cu113 ... -f https://download.pytorch.org/whl/cu113/torch_stable.html' on
    Linux and Windows; builder release/1.10: 11.[123] -> '3.7;5.0;6.0;7.0;7.5;8.0;8.6', cudnn-11.3-linux-x64-v8.2.0.53."""
    v = variant(version, "cu113")
    assert (v["cuda"], v["cudnn"]) == ("11.3", "8.2.0.53")
    assert v["compute_capabilities"] == ["3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6"] and v["ptx"] == []
    assert v["find_links"] == "https://download.pytorch.org/whl/cu113/torch_stable.html"
    assert set(v["platforms"]) == {"linux-x86_64", "windows-x86_64"}


@pytest.mark.parametrize("version, has_row", [("2.14.0", False), ("2.4.0", True), ("2.6.0", True)])
def test_a_cpu_plan_without_a_cpu_row_says_its_index_is_assumed(tmp_path, version, has_row):
    """Unknown is a verdict: where the matrix has no cpu row, the plan still names PyTorch's usual CPU index,
    and says that it was not read from a source."""
    from envcheck.environment import collect
    from envcheck.plan.resolve import parse_wants, resolve, target_from_env
    from envcheck.snapshot import open_snapshot
    from helpers import make_snapshot

    assert (M.torch_variant(version, "cpu") is not None) == has_row
    env = collect(open_snapshot(make_snapshot(str(tmp_path / "snap"), {})), M)
    target = target_from_env(env, M, python="3.11", platform="linux-x86_64")
    plan = resolve(M, target, parse_wants([f"torch=={version}"]))
    assert plan.satisfiable and plan.builds[0].variant == "cpu"
    said = [n for n in plan.notes if "no cpu row" in n]
    assert bool(said) != has_row
