"""envcheck.render._width.wrap is textwrap.wrap(..., break_long_words=False, break_on_hyphens=False), line for line
(it exists so that the status path does not import textwrap)."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from envcheck.render._width import wrap

_TEXT = st.text(alphabet=st.sampled_from(list("ab-/.:xyz0123456789 \t\n\u00a0\u00e9")), max_size=200)


def _ref(text, width, first="", rest=""):
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.integers(min_value=1, max_value=60), st.sampled_from(["", "  ", "1. "]),
       st.sampled_from(["", "    ", "\t"]))
def test_same_lines_as_textwrap(text, width, first, rest):
    if width <= max(len(first), len(rest.expandtabs())):
        return  # textwrap refuses an indent as wide as the line; the callers never ask for one
    assert wrap(text, width, first, rest) == _ref(text, width, first, rest)


def test_real_rows():
    row = ("not captured (supply nvidia-smi.txt, proc-driver-version.txt or nvml.json); see "
           "/usr/local/lib/python3.11/site-packages/envcheck/data/a-very-long-file-name-without-breaks.json")
    for width in (20, 33, 47, 80):
        assert wrap(row, width) == _ref(row, width)
        assert wrap(row, width, "  fix: ", "       ") == _ref(row, width, "  fix: ", "       ")
