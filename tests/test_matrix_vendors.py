"""The AMD / Intel / Apple / Jetson tables (rocm.toml, xpu.toml, mps.toml, jetson.toml) and their accessors.

Spot facts are checked against the text of the cited source, quoted here (never a value read from the
table): the expected value is parsed out of the quote, so a row that drifts from its source fails.
"""

import os
import re
import sys

import pytest

from envcheck.matrix import FILES, Matrix, bundled_dir, validate_tables

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

M = Matrix(bundled_dir())
VENDOR_TABLES = ("rocm", "xpu", "mps", "jetson")


def load(name):
    with open(os.path.join(bundled_dir(), name + ".toml"), "rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("name", VENDOR_TABLES)
def test_table_loads_validates_and_every_row_is_sourced(name):
    assert name in FILES
    data = load(name)
    assert validate_tables(name, data) == []
    n = 0
    for key, rows in data.items():
        if key == "meta":
            continue
        for row in rows:
            n += 1
            assert row.get("source", "").strip(), (name, key, row)
            # what was read from the source, so a reviewer can check it without re-deriving it
            assert len(row.get("derived", "")) > 20, (name, key, row)
    assert n > 0


def test_schema_rejects_bad_vendor_rows():
    bad = {"meta": {"schema": 1, "updated": "2026-11-26"},
           "torch_variant": [{"release": "2.4.0", "variant": "rocm6.1", "gfx": ["gfx9010"], "source": "x"},
                             {"release": "2.4.0", "variant": "cu121", "source": "x"}],
           "hsa_override": [{"gfx": ["gfx1031"], "value": "gfx1030", "works": True, "source": "x"},
                            {"gfx": ["gfx1031"], "value": "10.3.0", "works": "yes", "source": "x"}],
           "rocm_release": [{"version": "6.2.4", "kmd_user_space": ["6.2.x"]}]}
    problems = validate_tables("rocm", bad)
    assert any("torch_variant[0]: bad 'gfx'" in p for p in problems)  # rocm-smi's decimal spelling of gfx90a
    assert any("torch_variant[1]: bad 'variant'" in p for p in problems)
    assert any("hsa_override[0]: bad 'value'" in p for p in problems)
    assert any("hsa_override[1]: bad 'works'" in p for p in problems)
    assert any("rocm_release[0]: no source" in p for p in problems)
    assert any("rocm_release[0]: bad 'kmd_user_space'" in p for p in problems)
    assert validate_tables("mps", {"meta": {"schema": 1, "updated": "2026-11-26"},
                                   "mps": [{"since": "2.5", "min_macos": "Ventura", "source": "x"}]}) \
        == ["mps.mps[0]: bad 'min_macos': 'Ventura'"]


# --- ROCm variants: pytorch/test-infra generate_binary_build_matrix.py at each release commit ------------
# (commit, the line as it reads there, the release it set)
TEST_INFRA = [
    ("4b9afeb5539539e3c428168c93e8e6149fc31197", 'ROCM_ARCHES = ["5.1.1", "5.2"]', "1.13.0"),
    ("d3629fa2e61bb5fe4fcf435a3f05aed3de7755b7", '"release": ["5.3", "5.4.2"],', "2.0.0"),
    ("bc64926943adf7a26ae08bf8698cf529905f57cd", '"release": ["5.5", "5.6"],', "2.1.0"),
    ("585bbc3772a53b4d577060a2f3cea9ba19963002", '"release": ["5.7", "6.0"],', "2.3.0"),
    ("29912dec4567529a8aa7d124b7610c06b1648acb", '"release": ["6.1", "6.2"],', "2.5.1"),
    ("b1bdc3323fa17bb8a75b98cb50c3966928afae9e", '"release": ["6.1", "6.2.4"],', "2.6.0"),
    ("30ee1aaacba755d3d0aa2394f006b3481e56f5f2", '"release": ["6.2.4", "6.3"],', "2.7.1"),
    ("e8208cf27137d9e5f8f5c48e8c01749f32b6f261", '"release": ["7.0", "7.1"],', "2.10.0"),
    ("6d36e31f45e831e85d4cc8a7a112fa4a02fd4dd8", '"release": ["7.1", "7.2"],', "2.13.0"),
]


@pytest.mark.parametrize("commit,quote,release", TEST_INFRA)
def test_rocm_variants_match_test_infra(commit, quote, release):
    want = ["rocm" + v for v in re.findall(r'"([\d.]+)"', quote)]
    rows = M.torch_rocm_variants(release)
    assert [r["variant"] for r in rows] == want
    for r in rows:
        assert r["source"] == f"pytorch/test-infra@{commit}:tools/scripts/generate_binary_build_matrix.py"
        assert r["platforms"] == ["linux-x86_64"]  # ROCm builds: 'if os == LINUX: arches += ROCM_ARCHES'
        assert r["index_url"] == "https://download.pytorch.org/whl/" + r["variant"]


def test_rocm_variants_of_unknown_release_are_empty():
    assert M.torch_rocm_variants("1.7.0") == []
    assert M.torch_rocm_variant("2.4.1", "rocm9.9") is None
    assert M.rocm_gfx_targets("1.7.0", "rocm4.0") is None


# --- gfx targets of the wheels: pytorch/builder release/<x.y>:manywheel/build_docker.sh ---------------
BUILDER_2_3 = '''PYTORCH_ROCM_ARCH="gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100"
        ...
        if [[ $ROCM_VERSION_INT -ge 60000 ]]; then
            PYTORCH_ROCM_ARCH+=";gfx942"'''
BUILDER_2_0 = '''PYTORCH_ROCM_ARCH="gfx900;gfx906;gfx908"
        ...
        if [[ $ROCM_VERSION_INT -ge 40300 ]]; then
            PYTORCH_ROCM_ARCH="${PYTORCH_ROCM_ARCH};gfx90a;gfx1030"'''


def _arches(quote, extra):
    base = re.search(r'PYTORCH_ROCM_ARCH="(gfx[^"$]+)"', quote).group(1).split(";")
    more = re.findall(r"(gfx[0-9a-f]+)", quote.split("-ge", 1)[1]) if extra else []
    return base + more


@pytest.mark.parametrize("release,variant,quote,extra", [
    ("2.3.0", "rocm5.7", BUILDER_2_3, False),   # ROCm 5.7 < 6.0: no gfx942
    ("2.3.1", "rocm6.0", BUILDER_2_3, True),
    ("2.4.1", "rocm6.1", BUILDER_2_3, True),
    ("2.0.1", "rocm5.4.2", BUILDER_2_0, True),  # 5.4.2 >= 4.3
    ("1.13.1", "rocm5.2", BUILDER_2_0, True),
])
def test_rocm_wheel_gfx_targets_match_builder(release, variant, quote, extra):
    assert M.rocm_gfx_targets(release, variant) == _arches(quote, extra)
    assert M.rocm_gfx_targets(f"{release}+{variant}") == _arches(quote, extra)


# torch.cuda.get_arch_list() of installed wheels in three public reports (find_string ids 59757967366, 58308197829,
# 66750402897): 'torch 2.13.0+rocm7.1', '2.13.0+rocm7.2' and '2.14.0+rocm7.2', each printing the same list
ARCH_LIST_213_214 = """['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx942',
                              'gfx1030', 'gfx1100', 'gfx1101', 'gfx1102',
                              'gfx1103', 'gfx1200', 'gfx1201', 'gfx950',
                              'gfx1150', 'gfx1151']"""


@pytest.mark.parametrize("wheel", ["2.13.0+rocm7.1", "2.13.0+rocm7.2", "2.14.0+rocm7.2"])
def test_rocm_gfx_of_the_2_13_and_2_14_rocm72_wheels(wheel):
    want = re.findall(r"'(gfx\w+)'", ARCH_LIST_213_214)
    assert M.rocm_gfx_targets(wheel) == want and "gfx1103" in want
    assert M.rocm_rocblas_missing(wheel) == ["gfx900", "gfx906"]
    assert "gfx1103" not in (M.rocm_gfx_targets("2.12.1+rocm7.2") or [])
    # 2.14.0: release/2.14 builds ROCm 7.2 and 7.14 (pytorch/test-infra#8498); its rocm7.1 build is not known to
    # exist ('rocm7.1 -> até 2.13.0')
    assert sorted(r["variant"] for r in M.torch_rocm_variants("2.14.0")) == ["rocm7.14", "rocm7.2"]


def test_rocm_gfx_of_every_pytorch_index_variant_is_known_and_sourced():
    # 2.5.0 / 2.5.1 rocm6.1 / 2.6.0 / 2.7.0 were left out until a release-tied source was found (tests/test_vendors21g.py
    # checks their values against the quoted sources); every list names where it came from
    for r in M.rows("rocm", "torch_variant"):
        if r["variant"] == "rocm7.14":  # 2.14's TheRock-based builds: no arch list published
            assert not r.get("gfx") and "gfx not recorded" in r["derived"]
            continue
        assert r.get("gfx") and r.get("gfx_source"), (r["release"], r["variant"])


# torch.cuda.get_arch_list() of installed release wheels, as printed in https://github.com/astral-sh/uv/issues/14086
# (charliermarsh, 2025-06-21); the 2.4.1+rocm6.0 line of the same thread agrees with the builder script above
UV_14086 = {
    ("2.5.1", "rocm6.2"): "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx1030', 'gfx1100', 'gfx942']",
    ("2.7.1", "rocm6.3"): "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx1030', 'gfx1100', 'gfx1101', "
                          "'gfx1102', 'gfx1200', 'gfx1201']",
    ("2.7.1", "rocm6.2.4"): "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx1030', 'gfx1100', 'gfx1101', "
                            "'gfx1102', 'gfx1200', 'gfx1201']",
    ("2.4.1", "rocm6.0"): "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx1030', 'gfx1100', 'gfx942']",
}


@pytest.mark.parametrize("key", sorted(UV_14086))
def test_rocm_gfx_of_installed_wheels(key):
    want = re.findall(r"gfx[0-9a-f]+", UV_14086[key])
    assert sorted(M.rocm_gfx_targets(*key)) == sorted(want)


# --- ROCm's compatibility matrix (ROCm/ROCm docs/compatibility/compatibility-matrix-historical-6.0.csv) ---
CSV_HEADER = "ROCm Version,6.3.3,6.3.2,6.3.1,6.3.0,6.2.4,6.2.2,6.2.1,6.2.0, 6.1.2, 6.1.1, 6.1.0, 6.0.2, 6.0.0"
CSV_KMD = ('Tested user space versions,"6.3.x, 6.2.x, 6.1.x","6.3.x, 6.2.x, 6.1.x","6.3.x, 6.2.x, 6.1.x",'
           '"6.3.x, 6.2.x, 6.1.x","6.3.x, 6.2.x, 6.1.x, 6.0.x","6.3.x, 6.2.x, 6.1.x, 6.0.x",'
           '"6.3.x, 6.2.x, 6.1.x, 6.0.x","6.3.x, 6.2.x, 6.1.x, 6.0.x","6.3.x, 6.2.x, 6.1.x, 6.0.x, 5.7.x",'
           '"6.3.x, 6.2.x, 6.1.x, 6.0.x, 5.7.x","6.3.x, 6.2.x, 6.1.x, 6.0.x, 5.7.x",'
           '"6.2.x, 6.1.x, 6.0.x, 5.7.x, 5.6.x","6.2.x, 6.1.x, 6.0.x, 5.7.x, 5.6.x"')


# ROCm/rocm-install-on-linux:docs/reference/user-kernel-space-compat-matrix.rst (the version with 30.30.x):
# '"AMD GPU Driver (amdgpu)", "Supported user space versions"' rows for the kernel drivers of ROCm 6.x
KMD_TABLE = """    "6.4.x", "6.1.x, 6.2.x, 6.3.x, 6.4.x, 7.0.x, 7.1.x, 7.2.x"
    "6.3.x", "6.1.x, 6.2.x, 6.3.x, 6.4.x, 7.0.x"
    "6.2.x", "6.0.x, 6.1.x, 6.2.x, 6.3.x, 6.4.x, 7.0.x"
    "6.1.x", "5.7.x, 6.0.x, 6.1.x, 6.2.x, 6.3.x, 6.4.x"
"""


def test_rocm_kernel_window_matches_the_matrix():
    # 6.0.x keeps the column of the historical CSV ('"6.2.x, 6.1.x, 6.0.x, 5.7.x, 5.6.x"'); 6.1 .. 6.4 follow the
    # later driver table above, which widened the windows
    versions = [v.strip() for v in CSV_HEADER.split(",")[1:]]
    cells = re.findall(r'"([^"]+)"', CSV_KMD)
    assert len(versions) == len(cells) == 13
    for v, cell in zip(versions, cells):
        if v.startswith("6.0"):
            assert M.rocm_kernel_window(v) == [x.strip().replace(".x", "") for x in cell.split(",")], v
    for line in KMD_TABLE.splitlines():
        kmd, users = re.findall(r'"([^"]+)"', line)
        want = sorted(u.strip().replace(".x", "") for u in users.split(","))
        for r in M.rows("rocm", "rocm_release"):
            if str(r["version"]).startswith(kmd.replace(".x", ".")):
                assert sorted(M.rocm_kernel_window(str(r["version"])) or []) == want, r["version"]
    assert M.rocm_kernel_window("6.3.3") != [x.strip().replace(".x", "") for x in cells[0].split(",")]  # widened
    assert M.rocm_kernel_window("4.5.2") is None  # before the tables: unknown
    assert "6.0.0" in M.rocm_kmd_releases_for("5.6") and "6.1.0" not in M.rocm_kmd_releases_for("5.6")
    assert M.rocm_kernel_window("6.2") == M.rocm_kernel_window("6.2.4")  # x.y -> its newest patch
    # ROCm 7.x: the amdgpu driver is released apart (30.10, ...): no kernel driver of its own -> unknown
    assert M.rocm_kernel_window("7.0.0") is None and M.rocm_kernel_window("7.1") is None
    assert {"6.4.0", "6.4.3"} <= set(M.rocm_kmd_releases_for("7.2"))


# hanzoai/ROCm@0057200c:docs/compatibility/compatibility-matrix-historical-6.0.csv, 'GPU / LLVM target' rows
def test_rocm64_and_7_official_gfx():
    assert M.rocm_official_gfx("7.0.0") == M.rocm_official_gfx("7.1.0")
    assert "gfx950" in M.rocm_official_gfx("7.0.2") and "gfx950" not in M.rocm_official_gfx("6.4.3")
    assert sorted(M.rocm_official_gfx("6.4.1")) == sorted(["gfx1201", "gfx1200", "gfx1101", "gfx1100", "gfx1030",
                                                           "gfx942", "gfx90a", "gfx908"])
    assert sorted(M.rocm_official_gfx("6.4.0")) == sorted(["gfx1100", "gfx1030", "gfx942", "gfx90a", "gfx908"])
    assert "gfx1151" not in (M.rocm_official_gfx("7.1") or [])


# ROCm/ROCm@rocm-5.7.1:docs/release/user_kernel_space_compat_matrix.md
KFD_5 = """| 5.0.2 | 5.1.0, 5.2.0               |
| 5.4.3 | 5.5.0, 5.6.0               |
| 5.6.1 | 5.7.0                      |
| 5.7.1 | 5.5.0, 5.6.1               |"""


def test_rocm5_kernel_window_matches_the_user_kernel_space_matrix():
    for line in KFD_5.splitlines():
        kfd, users = [c.strip() for c in line.strip("|").split("|")]
        assert M.rocm_kernel_window(kfd) == [u.strip() for u in users.split(",")]
    # which kernel drivers were tested with user space 5.6.1: 5.7.0 / 5.7.1 (above) and 6.0.x ("5.6.x")
    got = M.rocm_kmd_releases_for("5.6.1")
    assert {"5.7.1", "5.7.0", "6.0.0", "6.0.2"} <= set(got) and "5.6.1" not in got and "6.1.0" not in got


def test_rocm5_official_gfx():
    # rocm-5.7.1 'Linux Supported GPUs': MI250X/MI250/MI210 gfx90a, MI100 gfx908, MI50 gfx906 supported,
    # 'AMD Instinct™ MI25 | GCN5.0 | gfx900 | ❌', Radeon Pro W6800 / V620 gfx1030, Radeon VII gfx906
    assert sorted(M.rocm_official_gfx("5.7.1")) == sorted(["gfx90a", "gfx908", "gfx906", "gfx1030"])
    assert "gfx900" not in M.rocm_official_gfx("5.7.1") and "gfx1100" not in M.rocm_official_gfx("5.7.1")
    # rocm-5.5.1: '| AMD Radeon™ R9 Fury    | Fiji | NA | gfx803 | Community |' is not support
    assert "gfx803" not in M.rocm_official_gfx("5.5.1")


def test_rocm_official_gfx():
    # rows ':doc:`GPU / LLVM target <...>`,gfx1100,...' ',gfx1030,...' ',gfx942 ...' ',gfx90a,...' ',gfx908,...'
    for v in ("6.0.0", "6.2.4", "6.3.3"):
        assert sorted(M.rocm_official_gfx(v)) == sorted(["gfx1100", "gfx1030", "gfx942", "gfx90a", "gfx908"])
    assert "gfx1101" not in M.rocm_official_gfx("6.3.3")
    assert M.rocm_official_gfx("4.5.2") is None


def test_wheel_sources():
    pt = M.rocm_wheel_source("https://download.pytorch.org/whl/rocm6.1")
    # build_rocm.sh: ROCM_SO_FILES=("libMIOpen.so" "libamdhip64.so" ... "libhsa-runtime64.so" ...) -> DEPS_LIST
    assert pt["name"] == "pytorch-index" and pt["bundles_user_space"] is True
    assert {"libamdhip64.so", "libhsa-runtime64.so", "libMIOpen.so"} <= set(pt["bundled"])
    # TheRock RELEASES.md: pip freeze after 'torch==2.7.0a0' shows 'rocm-sdk-libraries-gfx110X-dgpu==...' beside it
    assert M.rocm_wheel_source("therock")["bundles_user_space"] is False
    assert M.rocm_wheel_source("https://example.org/simple") is None


@pytest.mark.parametrize("gfx,quote,works", [
    ("gfx1036", "you could set the environment variable `HSA_OVERRIDE_GFX_VERSION=10.3.0` (since the ISA is "
                "identical to gfx1030) but this is not an official workaround", True),
    ("gfx1103", "Unofficially some people have a workaround by setting environment variable "
                "HSA_OVERRIDE_GFX_VERSION=11.0.0", True),
    ("gfx1010", "I also tested `HSA_OVERRIDE_GFX_VERSION=10.3.0`, but this will lead to the RX5700 crush", False),
])
def test_hsa_override(gfx, quote, works):
    value = re.search(r"HSA_OVERRIDE_GFX_VERSION=(\d+\.\d+\.\d+)", quote).group(1)
    rows = M.hsa_override(gfx)
    assert [(r["value"], r["works"]) for r in rows] == [(value, works)]
    assert all(r["official"] is False for r in rows)
    assert M.hsa_override("gfx1100") == [] and M.hsa_override(None) == []
    assert M.hsa_override(gfx.upper()) == rows


def test_rocm_72_release_columns():
    # compatibility-matrix.rst (header "7.2.3", "7.2.2/7.2.1", "7.1.0"): the GPU / LLVM target rows
    quote = ("gfx950,gfx950,gfx950\n,gfx1201,gfx1201,gfx1201\n,gfx1200,gfx1200,gfx1200\n,gfx1101,gfx1101,gfx1101\n"
             ",gfx1100,gfx1100,gfx1100\n,gfx1030,gfx1030,gfx1030\n,gfx942,gfx942,gfx942\n,gfx90a,gfx90a,gfx90a\n"
             ",gfx908,gfx908,gfx908")
    want = sorted({c for c in re.split(r"[,\n]", quote) if c})
    for v in ("7.2.3", "7.2.2", "7.2.1", "7.2"):
        assert sorted(M.rocm_official_gfx(v)) == want, v
    assert M.rocm_release("7.2")["version"] == "7.2.3"  # a bare series takes its newest column
    assert M.rocm_release("7.2.0") is None or M.rocm_release("7.2.0")["version"] != "7.2.0"
    assert "gfx1151" not in M.rocm_official_gfx("7.2.3")  # built into torch wheels, not official for ROCm
    assert M.rocm_kernel_window("7.2.3") is None  # the amdgpu driver is released apart from ROCm 7.x


# --- XPU ---------------------------------------------------------------------------------------------
def test_torch_xpu():
    # 'Intel GPUs support (Prototype) is ready from PyTorch* 2.5 for Intel® Client GPUs and Intel® Data
    #  Center GPU Max Series on both Linux and Windows'
    assert M.torch_xpu("2.4.1") is None
    for rel in ("2.5.0", "2.7.1+xpu", "2.13.0"):
        row = M.torch_xpu(rel)
        assert row["platforms"] == ["linux-x86_64", "windows-x86_64"]
        assert row["index_url"] == "https://download.pytorch.org/whl/xpu"
    # 2.7 page: 'Ubuntu 24.04 & WSL2 (Ubuntu 24.04)' lists no Arc B-Series; 'Windows 10/11 & Ubuntu 24.10' does
    gpus = M.torch_xpu("2.7.0")["gpus"]
    assert any("Battlemage" in g for g in gpus) and any("Ponte Vecchio" in g for g in gpus)
    assert not any("Ponte Vecchio" in g for g in M.torch_xpu("2.7.0")["gpus_windows"])
    # 2.13 page (pytorch/docs@c2b04468, 'Last Updated On: May 13, 2026'): the client table's second row is
    # 'Windows 11 & Ubuntu 25.10' -> '... (CodeName: Panther Lake)'; the data-center table is Linux-only
    quote_213 = "Windows 11 &amp; Ubuntu 25.10</p></td>\n<td><p>Intel® Core™ Ultra Mobile Processors (Series 3) with Intel® Arc™ Graphics (CodeName: Panther Lake)"
    codename = re.search(r"CodeName: ([^)]+)\)", quote_213).group(1)
    row = M.torch_xpu("2.13.0")
    assert any(codename in g for g in row["gpus"]) and any(codename in g for g in row["gpus_windows"])
    assert any("Ponte Vecchio" in g for g in row["gpus"])
    assert not any("Ponte Vecchio" in g for g in row["gpus_windows"])
    assert row["gpus_source"].startswith("pytorch/docs@c2b04468f228fc2bad7600ae70096dfba8cd99bd:2.13/")
    # 2.14: its release's docs page (pytorch/docs 2.14/notes/get_start_xpu.md) installs from the xpu index; Panther
    # Lake now on 'Windows 11 & Ubuntu 26.04 & WSL2 Ubuntu 24.04/26.04'
    r14 = M.torch_xpu("2.14.0")
    assert r14["index_url"] == "https://download.pytorch.org/whl/xpu" and any("Panther Lake" in g for g in r14["gpus"])
    assert r14["source"].startswith("pytorch/docs@b4a65b7d862a11f6022d39b87b94d57233aa8f10:2.14/")
    assert M.torch_xpu("2.15.0") is None  # no source read for it (2.14.1: its installed wheels, tests/test_vendors21g.py)


# --- MPS -----------------------------------------------------------------------------------------------
SONOMA = "14.0"  # macOS 14 is named Sonoma


@pytest.mark.parametrize("release,quote", [
    ("1.12.1", "available for Apple silicon Macs running macOS 12.3 or later with a native version of Python"),
    ("2.4.1", "available for Apple silicon Macs running macOS 12.3 or later with a native version of Python"),
    ("2.5.1", "Wow, this is really unfortunate, it should have say that you need MacOS 13.0"),
    ("2.8.0", "Wow, this is really unfortunate, it should have say that you need MacOS 13.0"),
    ("2.9.0", "as in 2.9+ MPS is only supported on MacOS Sonoma+"),
    ("2.13.0", "as in 2.9+ MPS is only supported on MacOS Sonoma+"),
])
def test_mps_min_macos(release, quote):
    m = re.search(r"macOS (\d+\.\d+)|MacOS (\d+\.\d+)", quote)
    want = (m.group(1) or m.group(2)) if m else SONOMA
    assert M.mps_min_macos(release) == want


def test_mps_message_understates_from_2_5():
    # pytorch/pytorch#139425, torch 2.5.1 on macOS 12.7.6: 'RuntimeError: The MPS backend is supported on MacOS 12.3+.'
    row = M.mps_row("2.5.1")
    assert row["message_min_macos"] == "12.3" and row["min_macos"] != row["message_min_macos"]
    assert M.mps_min_macos("1.11.0") is None and M.mps_min_macos("not-a-version") is None


# --- Jetson --------------------------------------------------------------------------------------------
def test_jetpack():
    quote = ("JetPack 5.0.2 includes Jetson Linux 35.1 BSP with Linux Kernel 5.10, an Ubuntu 20.04 based root file "
             "system ... JetPack 5.0.2 includes the latest compute stack on Jetson with CUDA 11.4, TensorRT 8.4.1, "
             "cuDNN 8.4.1")
    l4t = re.search(r"Jetson Linux ([\d.]+) BSP", quote).group(1)
    for key in ("5.0.2", l4t, "R" + l4t + ".0", l4t + ".0"):
        row = M.jetpack(key)
        assert row is not None and row["version"] == "5.0.2", key
        assert row["cuda"] == re.search(r"CUDA ([\d.]+)", quote).group(1)
        assert row["tensorrt"] == re.search(r"TensorRT ([\d.]+)", quote).group(1)
        assert row["cudnn"] == re.search(r"cuDNN ([\d.]+)", quote).group(1)
    assert M.jetpack("99.9") is None and M.jetpack("") is None and M.jetpack("R35.x") is None
    assert "cuda" not in M.jetpack("5.1.4")  # 'packages the same compute stack as JetPack 5.1.3': not read, left out
    assert M.jetpack("6.2")["l4t_source"] != M.jetpack("6.2")["source"]  # the L4T came from another source


def test_jetson_wheel_indexes():
    rows = {r["name"]: r for r in M.jetson_wheel_indexes()}
    # 'These pip wheels are built for ARM aarch64 architecture, so run these commands on your Jetson'
    assert rows["nvidia-jetson-redist"]["runs_on_jetson"] is True
    # 'torch 2.9.1+cu128 ... CUDA error: no kernel image is available for execution on the device' on a Jetson Thor
    assert rows["pytorch-cuda-aarch64"]["runs_on_jetson"] is False
    # 'We provide 2.4.0, 2.5.0, and 2.6.0rc1 for the JetPack 6.1 environment. https://pypi.jetson-ai-lab.dev/jp6/cu126/torch'
    assert "6.1" in rows["jetson-ai-lab"]["jetpack"] and rows["jetson-ai-lab"]["index_url"].endswith("/jp6/cu126")


@pytest.mark.parametrize("quote", ["JetPack 5.1 (L4T R35.2.1) / JetPack 5.1.1 (L4T R35.3.1) / JetPack 5.1.2 (L4T R35.4.1)",
                                   "JetPack 4.4 (L4T R32.4.3)"])
def test_jetpack_l4t_pairs(quote):
    for jp, l4t in re.findall(r"JetPack ([\d.]+) \(L4T R([\d.]+)\)", quote):
        assert M.jetpack(l4t)["version"] == jp
        assert M.jetpack(jp)["l4t"] == l4t


def test_jetpack_6_and_7_l4t():
    # Astute-Systems/bsp v1.3.0: 'Linux4Tegra Version Jetpack Version / 36.4.4 6.2.1 / 36.4.3 6.2 / 36.4 6.1 / 36.3 6.0'
    table = "36.4.4 6.2.1\n36.4.3 6.2\n36.4 6.1\n36.3 6.0"
    for line in table.splitlines():
        l4t, jp = line.split()
        assert M.jetpack(l4t)["version"] == jp and M.jetpack("R" + l4t)["version"] == jp
    # NVIDIA: 'JetPack 7.0 with Jetson Linux 38.2/38.2.1'
    assert M.jetpack("38.2.1")["version"] == M.jetpack("38.2")["version"] == "7.0"
    assert M.jetpack("36.4.5") is None  # not read anywhere: unknown, not the nearest row


# intel/torch-xpu-ops, cmake/BuildFlags.cmake on its release branches (if(WIN32) ... else() ...):
#   release/2.5  set(AOT_TARGETS "ats-m150,lnl-m,mtl-u,mtl-h") / set(AOT_TARGETS "pvc,xe-lpg,ats-m150")
#   release/2.7  set(AOT_TARGETS "mtl,mtl-h,bmg,dg2,arl-h,lnl-m") / set(AOT_TARGETS "pvc,bmg,dg2,arl-h,mtl-h,lnl-m")
#   release/2.10 ... "mtl,mtl-h,bmg,dg2,arl-h,lnl-m,ptl") / ... "pvc,bmg,dg2,arl-h,mtl-h,lnl-m,ptl-h,ptl-u")
def test_xpu_aot_targets():
    assert M.torch_xpu("2.5.1")["aot"] == ["pvc", "xe-lpg", "ats-m150"]
    assert M.torch_xpu("2.5.0")["aot_windows"] == ["ats-m150", "lnl-m", "mtl-u", "mtl-h"]
    assert "bmg" in M.torch_xpu("2.7.0")["aot"] and "bmg" not in M.torch_xpu("2.6.0")["aot"]
    assert M.torch_xpu("2.10.0")["aot"][-2:] == ["ptl-h", "ptl-u"] and "ptl" in M.torch_xpu("2.13.0")["aot_windows"]
    for r in M.rows("xpu", "torch_xpu"):
        if r.get("aot"):
            assert r["aot_source"].startswith("intel/torch-xpu-ops@") and r["aot_windows"], r["release"]


# huggingface/kernels@eeda1615:nix-builder/pkgs/python-modules/torch/archs.nix, supportedTorchRocmArchs:
#   "2.9":  # .../21fec657.../.ci/docker/manywheel/build.sh#L92  "gfx900" ... "gfx1102" "gfx1200" "gfx1201"  (11)
#   "2.10": # .../release/2.10/.ci/docker/almalinux/build.sh     ... "gfx942" "gfx950" ... "gfx1150" "gfx1151" ... (14)
def test_rocm_wheel_targets_2_8_to_2_12():
    nine = M.rocm_gfx_targets("2.9.1+rocm6.4")
    assert len(nine) == 11 and "gfx950" not in nine and "gfx1151" not in nine and "gfx1102" in nine
    assert M.rocm_gfx_targets("2.8.0", "rocm6.3") == nine
    ten = M.rocm_gfx_targets("2.10.0+rocm7.0")
    assert len(ten) == 14 and {"gfx950", "gfx1150", "gfx1151"} <= set(ten) and set(nine) < set(ten)
    assert M.rocm_gfx_targets("2.12.1+rocm7.2") == ten
    assert "gfx1103" not in ten  # no release up to 2.12 builds the 780M's target
    assert "gfx1102" in M.rocm_gfx_targets("2.7.0+rocm6.3") and "gfx1102" not in M.rocm_gfx_targets("2.6.0+rocm6.2.4")


# pytorch/docs <x.y>/notes/get_start_xpu.html: 2.9 'Windows 11 & Ubuntu 24.04/25.04' lists Arc A, Arc B, Meteor Lake-H,
# Lunar Lake, Arrow Lake-H; 2.10 adds a 'Windows 11 & Ubuntu 25.10' row with Panther Lake
def test_xpu_gpus_2_8_to_2_11():
    nine, ten = M.torch_xpu("2.9.1"), M.torch_xpu("2.10.0")
    assert any("Battlemage" in g for g in nine["gpus_windows"]) and not any("Panther" in g for g in nine["gpus"])
    assert any("Panther Lake" in g for g in ten["gpus"]) and any("Ponte Vecchio" in g for g in ten["gpus"])
    assert not any("Ponte Vecchio" in g for g in ten["gpus_windows"])
    assert M.torch_xpu("2.11.0")["gpus"] == ten["gpus"] and M.torch_xpu("2.8.0")["gpus_source"].startswith("pytorch/docs@")
