"""torch/version.py read without ast (envcheck.parse.pyfiles._simple_assignments) gives what ast gives."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from envcheck.parse.pyfiles import _simple_assignments, literal_assignments, parse_torch_version_py

# torch/version.py as the releases write it (1.x without annotations, 2.x with them, ROCm / XPU builds)
REAL = [
    "__version__ = '1.4.0'\ndebug = False\ncuda = '10.1'\ngit_version = '7f73f1d591afba823daa4a99a939217fb54d7688'\n"
    "hip = None\n",
    "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.1.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n"
    "git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\nhip: Optional[str] = None\n",
    "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
    "__version__ = '2.7.0+rocm6.3'\ndebug = False\ncuda: Optional[str] = None\n"
    "git_version = '134179474539648ba7dee1317959529fbd0e7f89'\nhip: Optional[str] = '6.3.42131-fa1d09cbd'\n"
    "xpu: Optional[str] = None\n",
]


def _by_ast(text: str) -> dict:
    return literal_assignments(text + "if False:\n    pass\n")  # a line the fast reader does not take: ast reads


def test_real_files_read_the_same_without_ast():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv")
    texts = list(REAL)
    for root, _, files in os.walk(here):
        if root.endswith(os.path.join("site-packages", "torch")) and "version.py" in files:
            with open(os.path.join(root, "version.py"), encoding="utf-8") as fh:
                texts.append(fh.read())
    for text in texts:
        assert _simple_assignments(text) is not None
        assert literal_assignments(text) == _by_ast(text)
    assert parse_torch_version_py(REAL[2])["hip"] == "6.3.42131-fa1d09cbd"


_NAME = st.sampled_from(["__version__", "cuda", "hip", "debug", "x1", "git_version"])
_VALUE = st.one_of(st.sampled_from(["None", "True", "False", "0", "-12", "007", "1_0", "'a'", '"b#c"', "'a' 'b'",
                                    "'x\\\\n'", "[1]", "1 + 1", "'2.1.0+cu121'"]))
_LINE = st.one_of(
    st.builds(lambda n, v: f"{n} = {v}", _NAME, _VALUE),
    st.builds(lambda n, v: f"{n}: Optional[str] = {v}", _NAME, _VALUE),
    st.builds(lambda n, v: f"{n} = {v}  # note", _NAME, _VALUE),
    st.sampled_from(["", "from typing import Optional", "import os", "# comment", "__all__ = ['cuda', 'hip']",
                     "    indented = 1", "if True:", "a = 1; b = 2"]),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_LINE, max_size=8))
def test_generated_files_read_the_same_or_go_to_ast(lines):
    text = "\n".join(lines) + "\n"
    fast = _simple_assignments(text)
    if fast is not None:  # where the fast reader answers, ast must agree (or refuse the whole file)
        ref = _by_ast(text)
        assert fast == ref or ref == {}
