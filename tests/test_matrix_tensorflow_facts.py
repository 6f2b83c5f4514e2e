"""compat_matrix/tensorflow.toml checked against facts typed by hand from PyPI (never read back from the matrix).

``pip index versions tensorflow-gpu --python-version X --only-binary=:all:`` (Linux x86_64 tags), 2026-11-23:
  3.3 and 3.4 -> 1.14.0, 1.13.2, 1.13.1 (e.g. tensorflow_gpu-1.13.1-cp33-cp33m-manylinux1_x86_64.whl), nothing of 1.15 / 2.0;
  2.7 -> 2.0.0, 1.15.0, 1.14.0, 1.13.2, 1.13.1; 3.8 -> nothing of 1.13-2.0.
"""

import pytest

from envcheck.matrix import Matrix, bundled_dir

M = Matrix(bundled_dir())


def rel(v):
    rows = [r for r in M.rows("tensorflow", "release") if r.get("version") == v]
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize("v", ["1.15", "2.0"])
def test_no_python_33_34_where_no_wheel_exists(v):
    py = rel(v)["python"]
    assert "3.3" not in py and "3.4" not in py
    assert {"2.7", "3.5", "3.6", "3.7"} <= set(py) and "3.8" not in py


@pytest.mark.parametrize("v", ["1.13", "1.14"])
def test_python_33_34_wheels_of_113_114(v):
    assert {"3.3", "3.4"} <= set(rel(v)["python"])
