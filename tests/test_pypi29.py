"""pypi29: a torch release named without its build label (no ``+cuXXX``, no collect_env "CUDA used to build PyTorch"),
taken as PyPI's default build where the text shows pip installed it on Linux x86_64 - an assumed fact with its
provenance (compat_matrix/torch.toml ``pypi_default_variant``), never a certain one - and the driver check on it
(:mod:`envcheck.engine.pypibuild`).

Real pastes in tests/data/pypi29 (README.md cites each thread; held-back samples in heldout/pypi29-held, scored by
scripts/score_pastes.py, not here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from envcheck.engine.pypibuild import assume_build, pypi_default_build, pypi_driver_too_old
from envcheck.engine.textclaims import TextClaims
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.model import Driver, Environment, Framework, Host, PythonInfo, Toolkit
from envcheck.paste.readers.observe import line_facts
from envcheck.versions import DriverVersion
from tests.helpers import check_hand_written_facts, paste_readme_rows, paste_top

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "pypi29"
HELD = ROOT / "heldout" / "pypi29-held"
ROWS = {name: row[0] for name, row in paste_readme_rows(str(DATA)).items()}
POSITIVE = "pytorch-30071-template-torch-1.3-pip-driver-410.48.txt"
PIP_LINE = "- How you installed PyTorch (`conda`, `pip`, source): pip install"


@pytest.fixture(scope="module")
def matrix():
    return load_matrix()


def _read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _env(version: str, driver: str = "410.48", platform: str = "linux", machine: str = "", **fw: Any) -> Environment:
    return Environment(source="test", host=Host(), python=PythonInfo(version="3.7", platform=platform,
                                                                      machine=machine or None),
                       driver=Driver(version=DriverVersion.parse(driver)), gpus=(), toolkit=Toolkit(), libraries=(),
                       frameworks={"torch": Framework(name="torch", version=version, **fw)}, packages={})


def _seen(line: str) -> List[str]:
    return sorted(f.field for f in line_facts(line, line.lower()) if f.field.startswith("seen:torch-"))


# --------------------------------------------------------------------------- the sets
def test_the_sets_hold_what_the_readme_says():
    assert POSITIVE in ROWS and "none" in ROWS.values()
    held = paste_readme_rows(str(HELD))
    assert len(held) >= 3 and not set(held) & set(ROWS)
    for name in list(ROWS) + [str(HELD / n) for n in held]:
        assert (DATA / name).exists() or Path(name).exists(), name


@pytest.mark.parametrize("name", sorted(ROWS))
def test_dev_paste_top_cause_is_its_label(name):
    assert paste_top(explain_text_document(_read(name))) == ROWS[name]


def test_dev_paste_facts_are_the_hand_written_ones():
    want = json.loads((DATA / POSITIVE.replace(".txt", ".facts.json")).read_text(encoding="utf-8"))
    check_hand_written_facts(want, explain_text_document(_read(POSITIVE)).get("facts") or {})


# --------------------------------------------------------------------------- the finding says its assumption
def test_the_driver_finding_on_pypi_default_build_says_it_is_assumed():
    doc = explain_text_document(_read(POSITIVE))
    top = doc["matches"][0]
    said = top["fixes"][0]
    assert top["id"] == "driver-too-old"
    # the condition, the assumed CUDA, the matrix's floor for it, the driver, and the check to run
    assert "if this torch came from PyPI's default index" in said and "Assumed, not verified" in said
    assert "CUDA 10.1" in said and ">= 418.39" in said and "410.48" in said
    assert "`python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`" in said


def test_json_facts_carry_the_assumption_apart_from_the_certain_cuda():
    facts = explain_text_document(_read(POSITIVE))["facts"]
    got = facts["assumed"]["torch"]
    assert got["cuda"] == "10.1" and got["variant"] == "cu101" and got["platform"] == "linux-x86_64"
    assert "1.3.0, 1.3.1" in got["said"] and got["evidence"] == PIP_LINE
    assert got["source"] == "https://pypi.org/project/torch/1.3.0/"  # the release row that records the default
    assert facts["frameworks"]["torch"]["cuda"] is None  # never put where certain facts go


def test_json_document_with_the_assumption_matches_the_schema():
    import jsonschema

    schema = json.loads((ROOT / "envcheck" / "schemas" / "explain.schema.json").read_text(encoding="utf-8"))
    doc = explain_text_document(_read(POSITIVE))
    jsonschema.validate(doc, schema)
    bad = json.loads(json.dumps(doc))
    del bad["facts"]["assumed"]["torch"]["if"]  # the condition is required: an assumption never goes unsaid
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_markdown_shows_the_assumed_cuda_as_assumed():
    from envcheck.render.explain import render_explain_markdown

    md = render_explain_markdown(explain_text_document(_read(POSITIVE)))
    line = next(x for x in md.splitlines() if x.startswith("- PyTorch built with CUDA (assumed):"))
    assert "10.1" in line and "if this torch came from PyPI's default index" in line


# --------------------------------------------------------------------------- the engine's conditions
def test_assumed_build_of_a_series_stands_for_each_release(matrix):
    b = assume_build(matrix, "torch", "1.3", "linux", None, PIP_LINE, False)
    assert b is not None and b.releases == ("1.3.0", "1.3.1") and b.cuda == "10.1"
    one = assume_build(matrix, "torch", "2.5.1", "linux", "x86_64", "pip install torch==2.5.1", False)
    assert one is not None and one.releases == ("2.5.1",) and (one.variant, one.cuda) == ("cu124", "12.4")


@pytest.mark.parametrize("why, args", [
    ("a build label", ("1.3.0+cu92", "linux", None, PIP_LINE, False)),
    ("no pip shown (a package list's version: conda builds show no label either)", ("1.3.0", "linux", None, None, False)),
    ("another source shown too (conda, a find-links page, an index)", ("1.3.0", "linux", None, PIP_LINE, True)),
    ("Windows: PyPI's torch is the CPU build there", ("1.3.0", "win32", None, PIP_LINE, False)),
    ("macOS", ("1.3.0", "darwin", None, PIP_LINE, False)),
    ("Linux aarch64", ("2.5.1", "linux", "aarch64", PIP_LINE, False)),
    ("the platform unknown", ("1.3.0", None, None, PIP_LINE, False)),
    ("a release the matrix lacks", ("0.9.9", "linux", None, PIP_LINE, False)),
])
def test_nothing_is_assumed_without_the_evidence(matrix, why, args):
    assert assume_build(matrix, "torch", *args) is None, why


def test_a_series_whose_releases_differ_is_not_assumed():
    class Stub:
        """Two releases of one series whose PyPI default variants differ (none in the matrix today)."""

        def torch_release(self, v: str) -> None:
            return None

        def rows(self, table: str, kind: str) -> List[Dict[str, Any]]:
            return [{"version": "9.1.0", "pypi_default_variant": "cu120"},
                    {"version": "9.1.1", "pypi_default_variant": "cu124"}]

        def torch_variant(self, v: str, name: str) -> Dict[str, Any]:
            return {"variant": name, "cuda": {"cu120": "12.0", "cu124": "12.4"}[name]}

    assert assume_build(Stub(), "torch", "9.1", "linux", None, PIP_LINE, False) is None
    assert assume_build(Stub(), "torch", "9.1.0", "linux", None, PIP_LINE, False) is None  # not in torch_release


def test_report_driver_check_fires_only_below_the_matrix_floor(matrix):
    claims = TextClaims(torch_pip=PIP_LINE, gpu_fails="torch.cuda.is_available() False")
    found = pypi_driver_too_old(matrix, _env("1.3.0", "410.48"), claims)
    assert [f.id for f in found] == ["driver-too-old"] and "418.39" in found[0].fix
    assert pypi_driver_too_old(matrix, _env("1.3.0", "418.39"), claims) == []  # new enough: silent
    assert pypi_driver_too_old(matrix, _env("1.3.0", "410.48"), TextClaims(torch_pip=PIP_LINE, cuda_available=True)) == []


@pytest.mark.parametrize("why, env, claims", [
    ("a conda install shown", _env("1.3.0"), TextClaims(torch_pip=PIP_LINE, torch_conda="conda install pytorch")),
    ("the pip line's own index", _env("1.3.0"), TextClaims(torch_pip="pip install torch --index-url X",
                                                         torch_index="pip install torch --index-url X")),
    ("a find-links page", _env("1.3.0"), TextClaims(torch_pip=PIP_LINE, find_links="-f torch_stable.html")),
    ("the build's CUDA known", _env("1.3.0", cuda="10.0"), TextClaims(torch_pip=PIP_LINE)),
    ("a CPU build known", _env("1.3.0", cpu_only=True), TextClaims(torch_pip=PIP_LINE)),
    ("a ROCm build", _env("1.3.0", rocm="5.2"), TextClaims(torch_pip=PIP_LINE)),
])
def test_controls_stay_silent(matrix, why, env, claims):
    assert pypi_default_build(matrix, env, claims) is None, why
    assert pypi_driver_too_old(matrix, env, claims) == [], why


# --------------------------------------------------------------------------- the paste reader's evidence
@pytest.mark.parametrize("line, want", [
    (PIP_LINE, ["seen:torch-pip"]),
    ("- How you installed PyTorch (`conda`, `pip`, source): conda", ["seen:torch-conda"]),
    ("- How you installed PyTorch (`conda`, `pip`, source): source", ["seen:torch-conda"]),
    ("install command is pip3 install torch", ["seen:torch-pip"]),
    ("$ pip install torch===1.3.0 torchvision===0.4.1", ["seen:torch-pip"]),
    ("pip3 install torch torchvision --index-url https://download.pytorch.org/whl/cu118",
     ["seen:torch-index", "seen:torch-pip"]),
    ("pip install torchvision", []),
    ("Please try `pip install torch==2.1.0` in a new environment", []),  # advice, not what was installed
    ("you can pip install torch instead", []),
    ("pip install torch-scatter", []),
    ("conda install pytorch torchvision cudatoolkit=10.1 -c pytorch", ["seen:torch-conda"]),
    # pip's own line naming its indexes: another index than PyPI's (pytorch#43493), not a PyPI mirror (MinerU#240)
    ("Looking in indexes: https://pypi.org/simple, http://100.97.64.150", ["seen:torch-index"]),
    ("Looking in indexes: https://download.pytorch.org/whl/cu118", ["seen:torch-index"]),
    ("Looking in indexes: https://mirrors.aliyun.com/pypi/simple/", []),
    ("Looking in indexes: https://pypi.tuna.tsinghua.edu.cn/simple", []),
    ("Looking in indexes: https://pypi.org/simple", []),
])
def test_how_torch_was_installed_is_read(line, want):
    assert _seen(line) == want
