"""Property test of the fast Requires-Dist reader (review25): on generated lines of the forms real metadata uses
and their near misses (odd version spellings, leading zeros, wildcards, pre/post/dev releases, markers of every
variable with and/or/parentheses, odd blanks), the fast path either gives exactly what packaging gives or leaves
the line to packaging. packaging is the oracle; nothing here is copied from the fast reader."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envcheck.parse import requirements as R

BLANK = st.sampled_from(["", " ", "  ", "\t"])
NAME = st.sampled_from(["a", "torch", "nvidia-cudnn-cu12", "Foo_Bar.baz", "jax-cuda12-plugin", "x1", "A-", "-a", "a..b"])
EXTRAS = st.sampled_from(["", "[x]", "[x,y]", "[ x , y ]", "[]", "[x,]", "[X_Y]"])
NUM = st.sampled_from(["0", "1", "2", "10", "01", "00", "12345678901234567890"])
SUFFIX = st.sampled_from([""] * 12 + ["a1", "b2", "rc1", "RC1", "-rc1", ".post1", ".dev0", "a1.post2.dev3", "+cpu",
                          ".*", "*", "-1", "_1", ".0.*", "post1", "c1", "pre1"])
OP = st.sampled_from(["==", "!=", "<=", ">=", "<", ">", "~=", "===", "=", "=>", ""])


@st.composite
def version(draw):
    parts = draw(st.lists(NUM, min_size=1, max_size=4))
    return draw(st.sampled_from(["", "v", "V"])) * draw(st.booleans()) + ".".join(parts) + draw(SUFFIX)


@st.composite
def spec(draw):
    items = draw(st.lists(st.tuples(OP, BLANK, version()), min_size=0, max_size=3))
    body = ",".join(draw(BLANK) + op + b + v + draw(BLANK) for op, b, v in items)
    return "(" + body + ")" if body and draw(st.booleans()) else body


VAR = st.sampled_from(sorted(R.MARKER_VARIABLES) * 3 + ["extra", "os.name", "python_implementation", "foo"])
MOP = st.sampled_from(["==", "!=", "<=", ">=", "<", ">"] * 3 + ["~=", "===", "in", "not in"])
VALUE = st.one_of(version(), st.sampled_from(["linux", "Linux", "win32", "x86_64", "cuda12", "and-cuda", "And_CUDA",
                                              "", "5", "v5", "3.12", "3.1*", "CPython", "posix"]))


@st.composite
def term(draw, depth=0):
    if depth < 2 and draw(st.integers(0, 4)) == 0:
        return "(" + draw(marker(depth + 1)) + ")"
    q = draw(st.sampled_from(['"', "'"]))
    left, right = draw(VAR), q + draw(VALUE) + q
    if draw(st.integers(0, 6)) == 0:
        left, right = right, left
    return left + draw(BLANK) + draw(MOP) + draw(BLANK) + right


@st.composite
def marker(draw, depth=0):
    terms = draw(st.lists(term(depth), min_size=1, max_size=2))
    out = terms[0]
    for t in terms[1:]:
        out += " " + draw(st.sampled_from(["and", "or"] * 4 + ["AND", "&&"])) + " " + t
    return out


@st.composite
def line(draw):
    s = draw(NAME) + draw(BLANK) + draw(EXTRAS) + draw(BLANK) + draw(spec())
    if draw(st.booleans()):
        s += draw(BLANK) + ";" + draw(BLANK) + draw(marker())
    return s


FULL = {
    "python_version": st.sampled_from(["3.9", "3.12", "3.10", "3.1", "3"]),
    "python_full_version": st.sampled_from(["3.12.3", "3.9.0", "3.13.0rc1", "3.12.0+", "3.10"]),
    "sys_platform": st.sampled_from(["linux", "win32", "darwin"]),
    "platform_machine": st.sampled_from(["x86_64", "aarch64", "5"]),
    "platform_system": st.sampled_from(["Linux", "Windows"]),
    "platform_release": st.sampled_from(["5.15.0-91-generic", "6.1", "10"]),
    "platform_version": st.sampled_from(["#1 SMP", "10.0.19045"]),
    "platform_python_implementation": st.just("CPython"),
    "implementation_name": st.just("cpython"),
    "implementation_version": st.sampled_from(["3.12.3", "3.9.0"]),
    "os_name": st.just("posix"),
    "extra": st.sampled_from(["", "cuda12", "and-cuda", "and_cuda", "x", "5", "3.12"]),
}
#: mostly every variable known (the markers are evaluated), sometimes some unknown (they are skipped)
ENVS = st.one_of(st.fixed_dictionaries(FULL), st.fixed_dictionaries({}, optional=FULL))


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(line(), ENVS)
def test_fast_reader_is_packaging_or_leaves_it(ln, env):
    fast = R._one_fast(ln, env)
    if fast is R._FALLBACK:
        return
    assert fast == R._one_packaging(ln, env), ln


# ----------------------------------------------------------------- the fast reader's patterns stay linear (review25)
# One Requires-Dist line of a METADATA file (any installed distribution, or a snapshot's requires.json) of up to
# 1,000 characters: before review25 the line pattern had adjacent blanks quantifiers around the optional extras
# and a lazy specifier before \s*, and "a" + 990 blanks + "@" ran for more than 5 minutes (one line held
# `envcheck status` for good). Run in a child with a timeout: a regression fails, it does not hang the suite.
HOSTILE_LINES = [
    "a" + " " * 990 + "@",
    "a x" + " " * 990 + "@",
    "a" + " " * 400 + "(",
    "a>=1" + " " * 990 + "@",
    "a" * 999 + "@",
    "a[" + " " * 990 + "x",
    "a[x" + " ," * 495 + "@",
    "a (" + " " * 990 + "@",
    "a" + "-" * 990 + "@",
    "a>=" + "1." * 495 + "x",
]
CHILD = r"""
import sys
from envcheck.parse import requirements as R
env = {"extra": "", "python_version": "3.12", "sys_platform": "linux"}
for line in sys.stdin.read().split("\0"):
    R._one_fast(line, env)
    R.requirement_pins([line], env, [])
print("OK")
"""


def test_hostile_requires_dist_lines_end():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", CHILD], input="\0".join(HOSTILE_LINES), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "OK", r.stderr[-2000:]
