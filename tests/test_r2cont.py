"""r2cont (session 25, round two of acceptance30's misses): the NVIDIA Container Toolkit's newer wordings (the OCI spec
modifier's "requirements not met: unsatisfied condition: cuda>=X (cuda=Y)", the condition on the next line, and the
runtime hook refusing docker's --gpus in CSV / CDI mode), torch's "No CUDA GPUs" with a singular verb, and a build
stopping "because CUDA_HOME is not set" in words other than torch's.

Rules: compat_matrix/errors.toml block ``# ---- r2cont ----`` and the shortened literal of the legacy
nvidia-container-cli signature. Real samples: tests/data/r2cont (README.md cites each thread); heldout/r2cont-held is
the held-back third.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document
from envcheck.explain.kb import load_kb
from tests.helpers import readme_labels

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "r2cont"
LABELS = readme_labels(DATA, ".log")  # the README rows (tests/helpers, one reading of them)


def _matches(text: str) -> list:
    return explain_text_document(text).get("matches") or []


def _ids(text: str) -> list:
    return [m["id"] for m in _matches(text)]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.log"))
    assert list(LABELS.values()).count("none") >= 2  # controls


@pytest.mark.parametrize("name", sorted(LABELS))
def test_top_cause_is_the_label(name):
    ids = _ids((DATA / name).read_text(encoding="utf-8"))
    if LABELS[name] == "none":
        assert ids == [], ids
    else:
        assert ids and ids[0] == LABELS[name], ids


def test_the_cover_gained_no_anchor():
    from tests.helpers import COVER_BOUND

    cover = load_kb().cover
    assert len(cover) <= COVER_BOUND
    assert "unsatisfied condition" in cover and "unsatisfied condition: cuda" not in cover


@pytest.mark.parametrize("line, wanted", [
    # the newer runtime's wording, spaced and unspaced (jetson-containers#1459; Apollo's report on an Orin)
    ("failed to create NVIDIA Container Runtime: failed to construct OCI spec modifier: requirements not met: "
     "unsatisfied condition: cuda>=12.9 (cuda=12.6): unknown", "12.9"),
    ("OCI runtime create failed: failed to create NVIDIA Container Runtime:failed to construct OCI spec modifier:"
     "requirements not met:unsatisfied condition:cuda>=11.4(cuda=10.2): unknown.", "11.4"),
    # the legacy CLI's wording still reads
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.2", "9.2"),
])
def test_requirement_wordings_capture_the_cuda_asked_for(line, wanted):
    found = _matches(line)
    assert found and found[0]["id"] == "driver-too-old"
    assert found[0]["captures"].get("wanted_cuda") == wanted


def test_an_image_environment_listing_is_not_the_toolkit_refusing():
    # an image's own NVIDIA_REQUIRE_CUDA (spaces and commas, as docker inspect / env print it) is no failure
    env = ("NVIDIA_REQUIRE_CUDA=cuda>=11.8 brand=tesla,driver>=450,driver<451 brand=tesla,driver>=470,driver<471 "
           "brand=nvidia,driver>=470,driver<471")
    assert _ids(env) == []


@pytest.mark.parametrize("text", [
    "# No CUDA GPUs is available",
    "RuntimeError: No CUDA GPUs are available",
])
def test_no_cuda_gpus_singular_and_plural(text):
    assert _ids(text)[:1] == ["no-gpu-visible"]


@pytest.mark.parametrize("text, label", [
    ("cpp_extension errors out during compile-t4 because CUDA_HOME is not set.", "cuda-toolkit-mismatch"),
    ("RuntimeError: CUDA_HOME is not set. Load the cluster CUDA toolkit before building.", "cuda-toolkit-mismatch"),
    ("SystemExit: Error: CUDA_HOME is not set", "cuda-toolkit-mismatch"),
    # not failures: a notice, a title, a question
    ("CUDA_HOME is not set", None),
    ("[builder] raise Error when CUDA_HOME is not set", None),
    ("What should I do if CUDA_HOME is not set?", None),
])
def test_cuda_home_not_set_only_after_an_error_word(text, label):
    ids = _ids(text)
    if label is None:
        assert ids == [], ids
    else:
        assert ids[:1] == [label], ids

