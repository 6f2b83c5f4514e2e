"""Requires-Dist without packaging's parser (issue 24 b): the fast reader of envcheck.parse.requirements gives
what packaging gives, line by line, on real Requires-Dist lines (the H100 snapshot's requires.json, cupy's
METADATA in tests/data/drift, and every distribution installed where the tests run), in several marker
environments; a line it does not read goes to packaging; and `envcheck status` on the real H100 snapshot no
longer imports packaging.markers."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

from envcheck.parse import requirements as R

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H100 = os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130", "snapshot")
CUPY_METADATA = os.path.join(ROOT, "tests", "data", "drift",
                             "cupy_cuda13x-14.2.0-cp312-cp312-manylinux2014_x86_64.METADATA")

ENVS = [
    {"python_version": "3.12", "python_full_version": "3.12.3", "sys_platform": "linux", "platform_system": "Linux",
     "platform_machine": "x86_64", "implementation_name": "cpython", "platform_python_implementation": "CPython",
     "os_name": "posix", "extra": ""},
    {"python_version": "3.9", "python_full_version": "3.9.0", "sys_platform": "linux", "platform_system": "Linux",
     "platform_machine": "aarch64", "extra": "and-cuda"},
    {"python_version": "3.13", "sys_platform": "win32", "platform_system": "Windows", "os_name": "nt",
     "platform_machine": "AMD64", "extra": "and_cuda"},
    {"python_version": "3.10", "sys_platform": "darwin", "platform_system": "Darwin", "extra": "cuda12"},
    {"extra": ""},  # nothing known: every marker that names a variable is skipped
]


def _real_lines():
    lines = []
    with open(os.path.join(H100, "requires.json"), encoding="utf-8") as fh:
        for v in json.load(fh).values():
            lines += v
    with open(CUPY_METADATA, encoding="utf-8") as fh:
        head = fh.read().split("\n\n", 1)[0]
    lines += [ln.split(":", 1)[1].strip() for ln in head.splitlines() if ln.startswith("Requires-Dist:")]
    for dist in importlib.metadata.distributions():
        lines += dist.requires or []
    return list(dict.fromkeys(lines))


# forms the fast reader must either read as packaging does or leave to packaging
EDGES = [
    "a==1.0,==1.0.0", "a>=1.0,<2,>=1.0", "a (>=1.0)", "a ( >= 1.0 , < 2 )", "a[x,y]>=1", "a[]", "a[x,]>=1",
    "a>=1.0.*", "a==1.*", "a!=1.0.*", "a~=1", "a~=1.4.5", "a==1.0rc1", "a==1.0-rc1", "a==1.0RC1", "a==v1.0",
    "a==1.0+cpu", "a===foo", "a>=1.0.post1.dev2", "a>=1,", "a >= 1 extra", "a 1.0", "a @ https://x.org/a.whl",
    "a; python_version < '3.13'", 'a; python_version == "3.12.0"', 'a; python_version == "3.1*"',
    'a; python_version >= "3.12rc1"', 'a; python_full_version >= "3.12.0"', 'a; python_version ~= "3.12"',
    'a; python_version === "3.12"', 'a; platform_release >= "5.15"', 'a; platform_machine == "5"',
    'a; platform_machine == "v5"', 'a; platform_machine < "x86"', 'a; sys_platform in "linux2"',
    'a; "linux" == sys_platform', 'a; os.name == "posix"', 'a; python_implementation == "CPython"',
    'a; extra == "And_CUDA"', 'a; extra != "and-cuda"', 'a; extra == "tpu" or extra == "cuda12"',
    'a; (extra == "x")', 'a; ((sys_platform == "linux" or sys_platform == "darwin") and extra == "and.cuda")',
    'a; sys_platform == "linux" and', 'a; (sys_platform == "linux"', 'a; sys_platform == "linux")',
    'a; sys_platform = "linux"', 'a; sys_platform == linux', 'a;', "a; ", 'a;platform_system=="Linux"and extra=="x"',
    'a; platform_system == "Linux" AND extra == "x"', "a\n; extra == 'x'", "a\u00a0>=1", "é>=1", "-a", "a.",
    'nvidia-nccl-cu12==2.21.5; platform_system == "Linux" and platform_machine == "x86_64"',
    "a; " + "(" * 40 + 'extra == "x"' + ")" * 40, "a>=" + "1." * 600 + "1", " " * 990 + "a",
    # an op repeated with other versions (tensorflow 2.21's METADATA: "gast!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1"), and the
    # same version written twice, which SpecifierSet keeps once
    "gast!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1", "a!=1.0,!=1.0.0", "a==1.0,==1.0.0", "a!=1.0rc1,!=1.0.1", "a!=1.0.1,!=1.0rc1",
    "a!=1.0.*,!=1.1.*", "a!=1.0,!=1.0.0.0,>=0.1",
]


def test_tensorflow_gast_pin_is_read_without_packaging():
    # the one line of tensorflow 2.21.0's Requires-Dist that went to packaging (its markers import: ~12 ms of status)
    assert R._one_fast("gast!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1", ENVS[0]) is not R._FALLBACK


def _same(line, env):
    fast = R._one_fast(line, env)
    ref = R._one_packaging(line, env)
    return fast is R._FALLBACK or fast == ref, fast, ref


@pytest.mark.parametrize("env", ENVS, ids=lambda e: "-".join(filter(None, (e.get("sys_platform"), e["extra"]))) or "none")
def test_fast_reader_agrees_with_packaging_on_real_lines(env):
    lines = _real_lines()
    assert len(lines) > 100
    read = 0
    for line in lines:
        ok, fast, ref = _same(line, env)
        assert ok, (line, fast, ref)
        read += fast is not R._FALLBACK
    assert read > 0.9 * len(lines)  # nearly every real line is read without packaging


@pytest.mark.parametrize("env", ENVS[:3], ids=["linux", "aarch64-and-cuda", "win"])
def test_fast_reader_agrees_with_packaging_or_leaves_it_to_packaging(env):
    for line in EDGES:
        ok, fast, ref = _same(line, env)
        assert ok, (line, fast, ref)
    # and the whole reader (fast path plus packaging) gives the pins and the skipped lines packaging alone gives
    skipped_a, skipped_b = [], []
    got = R.requirement_pins(EDGES + _real_lines(), env, skipped_a)
    orig = R._one_fast
    try:
        R._one_fast = lambda line, env: R._FALLBACK
        want = R.requirement_pins(EDGES + _real_lines(), env, skipped_b)
    finally:
        R._one_fast = orig
    assert got == want and skipped_a == skipped_b


def test_the_h100_torch_lines_are_all_read_without_packaging():
    with open(os.path.join(H100, "requires.json"), encoding="utf-8") as fh:
        torch = json.load(fh)["torch"]
    assert len(torch) >= 15
    assert all(R._one_fast(line, ENVS[0]) is not R._FALLBACK for line in torch)


def test_status_on_the_h100_snapshot_does_not_import_packaging_markers():
    code = ("import sys, io, contextlib\n"
            "from envcheck.cli import main\n"
            f"sys.argv = ['envcheck', 'status', '--json', '--snapshot', {H100!r}]\n"
            "out = io.StringIO()\n"
            "try:\n"
            "    with contextlib.redirect_stdout(out):\n"
            "        main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "import json\n"
            "rep = json.loads(out.getvalue())\n"
            "torch = rep['frameworks']['torch']\n"
            "print(json.dumps({'markers': 'packaging.markers' in sys.modules, 'requires': torch['requires']}))\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["markers"] is False
    assert "nvidia-cudnn-cu13==9.19.0.56" in got["requires"] and not any(x.startswith("optree") for x in got["requires"])
