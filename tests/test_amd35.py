"""amd35 (session 22): an AMD GPU that a project, package or build has no code object for, as users bring it in threads:
a feature request's title or sentence asking for the GPU's support or builds ("[Feature]: Add gfx1150 builds?"), a
maintainer's "no plan to support" answer, "missing support for", "not yet ready for", a title "9070 XT not supported";
GPU fields of issue forms that name an AMD model without "AMD" ("W7900 Dual Slot", "Ryzen AI Max+ 395", "gfx1151");
and a GPU's model name resolved to its gfx target by ROCm's GPU architecture table (compat_matrix/rocm.toml
``[[gpu_arch_spec]]``, ROCm/ROCm@e396b489 docs/reference/gpu-arch-specs.rst).

Real threads in tests/data/amd35 (README: file, label, source); a third of the collection was held back in
heldout/amd35-held before envcheck ran on any of them (scored by scripts/score_pastes.py, never asserted here). What
the rules read: envcheck/paste/readers/prose_vendor.py (``gpu-support-asked``, ``pull-request``, more forms of
``gpu-said-unsupported``), envcheck/paste/readers/fields.py (AMD names in GPU fields), envcheck/engine/vendors_prose.py
(:func:`amd_gpu_asked`), envcheck/engine/vendors.py (a named GPU's target), envcheck/matrix (``amd_gfx_of_name``).
"""

import os
import sys
from types import SimpleNamespace

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from helpers import check_split_listing, explain_cli_matches, sample_rows  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DEV = os.path.join(HERE, "data", "amd35", "pastes")
HELD = os.path.join(ROOT, "heldout", "amd35-held", "pastes")
SPENT = os.path.join(ROOT, "heldout", "acceptance24", "pastes")

PASTES = sample_rows(DEV)


def test_listing():
    check_split_listing(DEV, HELD, min_dev=12, min_held=6, min_none=4, min_held_none=1)


@pytest.mark.parametrize("name,label,source", PASTES, ids=[r[0][:60] for r in PASTES])
def test_dev_thread(name, label, source):
    matches = explain_cli_matches("--no-detect", os.path.join(DEV, name))
    if label == "none":
        assert matches == [], [(m["id"], m["evidence"]) for m in matches]
        return
    assert matches and matches[0]["id"] == label, [(m["id"], m["score"], m["evidence"]) for m in matches]
    assert matches[0]["fixes"]


@pytest.mark.parametrize("stem", ["therock-844-", "transformerengine-106-"])
def test_spent_misses(stem):
    """The two acceptance24 misses this family was written for (a feature request; a maintainer's "no plan")."""
    name = next(f for f in os.listdir(SPENT) if f.startswith(stem) and f.endswith(".txt"))
    matches = explain_cli_matches("--no-detect", os.path.join(SPENT, name))
    assert matches and matches[0]["id"] == "gpu-arch-unsupported", matches


# --- the paste reader's evidence, line by line ----------------------------------------------------------------------

def _fields(text):
    from envcheck.paste.readers import prose_vendor

    return {f.field: f.value for f in prose_vendor.line_facts(text, text.lower())}


@pytest.mark.parametrize("text,subject", [
    ("# [Feature]: Add gfx1150 builds?", "gfx1150"),  # ROCm/TheRock#844
    ("# [Feature]: gfx1201 support", "gfx1201"),  # ROCm/aiter#321
    ("# Add gfx1152 support", "gfx1152"),  # lemonade-sdk/vllm-rocm#8
    ("# Possible Build for GFX1201", "GFX1201"),  # guinmoon/rocm7_builds#6
    ("# [Feature]: RX 7600 XT support", "RX 7600 XT"),  # ROCm/legacy-rocm-build#2901
    ("# [Feature Request]: Support for gfx1151 (RDNA 3.5) and roadmap for non-Instinct GPUs", "gfx1151"),  # gsplat#8
    ("# [QUESTION]: is strix halo gfx1151 support planned? and eta?", "strix halo"),  # ROCm/vllm#633
    ("# ROCm Support for Radeon Pro 5600M", "Radeon Pro 5600M"),  # ROCm/legacy-rocm-build#1172
    # sentences: ROCm/gsplat#8, ROCm/TheRock#844, ROCm/aiter#321, ROCm/vllm#633, guinmoon/rocm7_builds#6
    ("I would appreciate it if you could add support for `gfx1151` to the project.", "gfx1151"),
    ("It would be great to have builds not only for gfx1151, but also for gfx1150. The entry", "gfx1150"),
    ("It's possible to got support for 9070xt AKA gfx1201 ? ", "9070xt"),
    ("is support for gfx1151 planned or in progress? ", "gfx1151"),
    ("Hey, im using a RX9070 XT. Is it possible to get a build for those cards too? :) Thanks a lot.", "those cards"),
])
def test_gpu_support_asked(text, subject):
    got = _fields(text).get("seen:gpu-support-asked")
    assert got is not None and got.split(" | ", 1)[0] == subject


@pytest.mark.parametrize("text", [
    # a change that adds the target (NixOS/nixpkgs#440359, AMDResearch/intellikit#123), a title about the docs
    # (ROCm/legacy-rocm-build#5339), a title that says it works, NVIDIA's GPUs, a title with no request
    "# rocmPackages: add gfx1151 to gpuTargets",
    "# metrix: add gfx1151 (Strix Halo) support",
    "# [Documentation]: Confusing rocm support for gfx1151",
    "# gfx1151 support works with ROCm 7.2",
    "# Support for NVIDIA RTX 5090 (CUDA SM_120)",
    "# [FEATURE] RTX5090 in the future?",
    "# AMD HSA override: confirm native ROCm 7.2 path on 780M (gfx1103) after removing the 11.0.0 coercion",
    "# ASUS ROG Strix G15 support",
    # a sentence that is no request: the writer's own build, a report of what was done
    "I tried to add support for gfx1151 in my fork and it builds.",
    "We added support for gfx1151 in 7.2.",
])
def test_not_gpu_support_asked(text):
    assert "seen:gpu-support-asked" not in _fields(text)


@pytest.mark.parametrize("text,subject", [
    # ROCm/TransformerEngine#106, ROCm/rccl#2026, ROCm/Tensile#1907 (maintainers)
    ("Hi @johnnynunez, unfortunately there currently isn't any plan to add support for gfx1100. Let me know if you "
     "have any other questions.", "gfx1100"),
    ("@ChihayaK Thanks for posting. At the moment, we do not have plans to support Strix Halo for RCCL.", "Strix Halo"),
    ("Hi @bitozoid, there isn't any plan to officially support gfx1036 on ROCm (see here)", "gfx1036"),
    # ROCm/rocWMMA#600, daMustermann/rocm-wsl-ai#9, ROCm/rocm-install-on-linux#434
    ("# [Issue]: Missing support for Radeon 8060s (Ryzen AI Max+ 395) gfx1151", "Radeon 8060s"),
    ("Hi, gfx1150/gfx1151 are not yet ready for WSL or Linux/pytorch in general.", "gfx1150"),
    ("A month after release ROCm is not supported on Linux with 9070 XT according to the official documentation",
     "9070 XT"),
    ("# [Issue]: 9070 XT not supported", "9070 XT"),
])
def test_gpu_said_unsupported_amd35(text, subject):
    got = _fields(text).get("seen:gpu-said-unsupported")
    assert got is not None and got.split(" | ", 1)[0] == subject


@pytest.mark.parametrize("text", [
    "Is there no plan to support gfx1100?",  # a question
    "# Is the 9070 XT not supported?",
    "The ROG Strix is not supported by this BIOS update",  # ASUS' laptop, not an AMD GPU
    "there is still no support for wmma",  # no GPU named
    "The RTX 5090 is not supported yet",
    "We have plans to support Radeon 6000 series with ROCm in near future.",  # a plan, not a lack
])
def test_not_gpu_said_unsupported_amd35(text):
    assert "seen:gpu-said-unsupported" not in _fields(text)


def test_pull_request_header():
    assert "seen:pull-request" in _fields("NixOS/nixpkgs · pull request #440359 · merged · Nix")
    assert "seen:pull-request" not in _fields("ROCm/rccl · issue #2026 · closed · C++")


@pytest.mark.parametrize("value,vendor", [
    ("W7900 Dual Slot", "amd"),  # ROCm/TransformerEngine#106
    ("Ryzen™ Al Max+ 395", "amd"),  # ROCm/rccl#2026 (as typed)
    ("gfx1151", "amd"),  # ROCm/gsplat#8
    ("7900 XTX", "amd"),
    ("780M", "amd"),
    ("RTX 4090", None),
    ("A6000", None),
])
def test_issue_form_gpu_vendor(value, vendor):
    from envcheck.paste.readers.fields import other_vendor

    assert other_vendor(value) == vendor


# --- the engine's decisions ---------------------------------------------------------------------------------------

def test_asked_needs_no_pull_request_and_no_nvidia():
    from envcheck.engine.vendors_prose import amd_gpu_asked
    from envcheck.matrix import load_matrix

    m = load_matrix()
    said = "gfx1150 | # [Feature]: Add gfx1150 builds?"
    got = amd_gpu_asked(m, {}, {"gpu-support-asked": said})
    assert got is not None and got.id == "gpu-arch-unsupported" and "gfx1150" in got.message
    assert amd_gpu_asked(m, {}, {"gpu-support-asked": said, "pull-request": "x · pull request #1"}) is None
    nvidia = {"gpus": [{"name": "NVIDIA GeForce RTX 3090", "vendor": "nvidia"}]}
    assert amd_gpu_asked(m, nvidia, {"gpu-support-asked": said}) is None
    # a model the architecture table lists is named with its target
    got = amd_gpu_asked(m, {}, {"gpu-support-asked": "W7900 | # [Feature]: W7900 support"})
    assert got is not None and "W7900 (gfx1100)" in got.message


@pytest.mark.parametrize("name,gfx", [
    ("W7900 Dual Slot", "gfx1100"), ("AMD Radeon RX 7900 XTX", "gfx1100"), ("AMD Radeon(TM) PRO W7900", "gfx1100"),
    ("Instinct MI300X", "gfx942"), ("MI50 (16GB)", "gfx906"), ("Radeon VII", "gfx906"), ("RX 6700 XT", "gfx1031"),
    ("Radeon PRO W6800", "gfx1030"), ("RX 6800", "gfx1030"),
    # models ROCm's table (at the cited commit) does not list: unknown, never the nearest row
    ("RX 7600 XT", None), ("Radeon 880M", None), ("", None), (None, None),
    # amd42: a model Ollama's GPU page names with its target (compat_matrix/rocm.toml [[amd_model_gfx]])
    ("RX 9070 XT", "gfx1201"),
])
def test_gfx_of_name(name, gfx):
    from envcheck.matrix import load_matrix

    assert load_matrix().amd_gfx_of_name(name) == gfx


def test_arch_spec_rows_cite_rocm_table():
    from envcheck.matrix import load_matrix

    rows = load_matrix().rows("rocm", "gpu_arch_spec")
    assert len(rows) == 40
    assert all(r["source"].startswith("ROCm/ROCm@e396b4898f459db094bfd60b876f419f77eb9f09:") for r in rows)
    assert {r["table"] for r in rows} == {"Instinct", "Radeon PRO", "Radeon"}


def _amd_env(name, torch="2.7.1+rocm6.3"):
    """The two parts of an Environment the gfx check reads: the AMD GPUs and the host's environment variables."""
    from envcheck.model import Framework, Gpu

    env = SimpleNamespace(accel=SimpleNamespace(gpus=(Gpu(index=0, name=name, vendor="amd", source="issue form"),)),
                          host=SimpleNamespace(env={}))
    return env, Framework(name="torch", version=torch, rocm=torch.split("+rocm")[1] if "+rocm" in torch else None)


@pytest.mark.parametrize("name,want", [
    ("AMD Radeon RX 6700 XT", "gpu-arch-unsupported"),  # gfx1031: not in the 2.7.1 rocm6.3 wheel's targets
    ("AMD Radeon RX 7900 XTX", None),  # gfx1100: compiled in
    ("Radeon VII", None),  # gfx906: compiled in
    ("AMD Radeon RX 7600 XT", None),  # not in ROCm's table: the target is unknown, nothing is said
])
def test_named_gpu_against_the_wheels_targets(name, want):
    """A GPU known by its model only (no tool printed its target) is judged against the ROCm wheel's target list with
    the target ROCm's table gives the model."""
    from envcheck.engine.vendors import _gfx_findings
    from envcheck.matrix import load_matrix

    m = load_matrix()
    if not m.rocm_gfx_targets("2.7.1", "rocm6.3"):
        pytest.skip("the matrix holds no target list for torch 2.7.1 rocm6.3")
    env, fw = _amd_env(name)
    found = [f for f in _gfx_findings(env, m, fw) if f.id == "gpu-arch-unsupported"]
    if want is None:
        assert found == []
    else:
        assert found and "ROCm's GPU architecture table" in found[0].evidence
