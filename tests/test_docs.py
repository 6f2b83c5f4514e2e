"""The documentation keeps to the code: numbers quoted in docs equal the matrix's, the dependency
list equals pyproject's, the README stays a first screen, and every relative link resolves."""

from __future__ import annotations

import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def read(*parts: str) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def table(name: str) -> dict:
    with open(os.path.join(ROOT, "compat_matrix", name), "rb") as fh:
        return tomllib.load(fh)


def _num(pattern: str, text: str) -> tuple:
    m = re.search(pattern, re.sub(r"\s+", " ", text))
    assert m, f"the docs no longer say {pattern!r}"
    return tuple(int(g) for g in m.groups())


def test_matrix_coverage_numbers_equal_the_tables():
    doc = read("docs", "compat-matrix.md")
    cuda, gpus, cudnn, torch = table("cuda.toml"), table("gpus.toml"), table("cudnn.toml"), table("torch.toml")
    assert _num(r"(\d+) CUDA toolkit releases", doc) == (len(cuda["toolkit"]),)
    assert _num(r"(\d+) driver branches", doc) == (len(cuda["driver_branch"]),)
    assert _num(r"(\d+) GPUs and (\d+) GPU generations", doc) == (len(gpus["gpu"]), len(gpus["generation"]))
    assert _num(r"(\d+) cuDNN release rows", doc) == (len(cudnn["release"]),)
    assert _num(r"(\d+) known-bad rules", doc) == (len(cudnn["known_bad"]),)
    jax = table("jax.toml")["release"]
    n_lists = sum(1 for r in jax for k in r if k.startswith("compute_capabilities_cuda"))
    assert _num(r"JAX [\d.]+–[\d.]+ \((\d+) releases, architecture lists of (\d+) CUDA builds", doc) == (len(jax), n_lists)
    assert _num(r"checked against (\d+) plugin wheels", doc) == (len(open(os.path.join(
        os.path.dirname(__file__), "data", "jax-wheel-arch", "readings.txt"), encoding="utf-8").read().split(".whl\n")) - 1,)
    variants = torch["variant"]
    n_cpu = sum(1 for v in variants if v["variant"] == "cpu")
    assert _num(r"\((\d+) releases, (\d+) variant rows of which (\d+) cpu", doc) == (
        len(torch["release"]), len(variants), n_cpu)


def test_dependencies_listed_in_docs_equal_pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        deps = tomllib.load(fh)["project"]["dependencies"]
    names = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].strip().lower() for d in deps}
    line = next(ln for ln in read("docs", "development.md").splitlines() if "runtime dependencies" in ln)
    listed = set(re.findall(r"\b([a-z][a-z0-9_-]+)\b", line.split("runtime dependencies:", 1)[1].lower()))
    assert names <= listed, names - listed
    assert listed <= names | {"and"}, listed - names


def test_readme_is_a_first_screen():
    size = len(read("README.md").encode("utf-8"))
    assert size <= 12 * 1024, f"README.md is {size} bytes: move reference material into docs/"


def _links(text: str):
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        yield target.split("#", 1)[0]


@pytest.mark.parametrize("page", ["README.md"] + sorted(
    os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
    for f in fs if f.endswith(".md")))
def test_every_relative_link_resolves(page):
    base = os.path.dirname(os.path.join(ROOT, page))
    missing = [t for t in _links(read(page)) if t and not os.path.exists(os.path.normpath(os.path.join(base, t)))]
    assert not missing, (page, missing)


def test_readme_names_no_file_outside_the_repository():
    text = read("README.md")
    assert "../shared" not in text and "shared/spec" not in text


def test_docs_home_page_is_generated_from_the_readme():
    import subprocess

    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "docs_index.py"), "--check"])
    assert r.returncode == 0, "docs/index.md is out of date: run python scripts/docs_index.py"
