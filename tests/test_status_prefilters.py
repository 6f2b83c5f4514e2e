"""The status path's shortcuts (issue 24, fourth round) give what the code they stand in front of gives: each
prefilter only skips a pattern that cannot match, each written-out helper equals the library's."""

from __future__ import annotations

import glob
import os
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from envcheck.snapshot import redact

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mask_every_pattern(value: str) -> str:
    """mask_value as it was: every pattern run over every value."""
    for pat, repl in redact._SECRETS:
        value = pat.sub(repl, value)

    def random(m):
        s = m.group(0)
        if redact._GPU_UUID.fullmatch(s) or redact.re.fullmatch(r"(?:GPU|MIG)-" + redact._UUID + r"(?:/\d+){0,2}", s):
            return s
        return "***"

    return redact._RANDOM.sub(random, value)


#: pieces of the patterns' required text, their neighbours, and the characters re.IGNORECASE folds onto ASCII
_PIECES = ["token", "TOKEN", "ſecret", "paſſword", "passwd", "pwd", "api_key", "API-KEY", "apikey", "access-key",
           "auth", "AUTH", "ı", "İ", "K", "toKen", "=", "://", "@", "https://", "user:pw@", "eyJ", "eyJhbGciOiJIUzI1",
           ".", "ghp_", "github_pat_", "glpat-", "hf_", "xoxb-", "sk-", "sk_live_", "rk_live_", "npm_", "pypi-",
           "AIza", "AKIA", "ASIA", "GPU-", "MIG-", "12345678-1234-1234-1234-123456789abc", "/", ":", ";", ",",
           " ", "\t", "\u2003", "\"", "'", "a" * 16, "Z9" * 9, "0" * 31, "x" * 32, "_", "-", "é", "ß", "\n",
           "%3d", "%3D", "%26", "%2F", "%", "?", "&"]
#: each keyword of the token pattern with its "=" and a value, in the spellings re.IGNORECASE also accepts
_ASSIGNMENTS = [w + "=" + v for w in ("token", "my_secret", "passwd", "password", "PASSWORD", "pwd", "api_key",
                                      "api-key", "access_key", "auth", "ſecret", "paſſword", "toKen", "ıd_auth",
                                      "AUTH_TOKEN", "x-api-key")
                for v in ("v", "s3cr3t", "a b")] + [w + sep + "s3cr%2Ft" for w in ("token", "ſecret", "api_key", "x_auth")
                                                  for sep in ("%3d", "%3D", "%3d%3d")]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.sampled_from(_ASSIGNMENTS), st.text(max_size=6)),
                max_size=14).map("".join))
def test_mask_value_equals_every_pattern_run(value):
    assert redact.mask_value(value) == _mask_every_pattern(value)


def test_every_secret_pattern_has_its_test():
    """A pattern added to _SECRETS runs on every value until a test of its own words is added beside it."""
    assert len(redact._MAY_MATCH) == len(redact._SECRETS)


def test_mask_value_on_real_environments():
    """Every value of the real captures' environ.json files (tests/data) and of this process's environment."""
    values = [str(v) for v in os.environ.values()]
    for path in glob.glob(os.path.join(ROOT, "tests", "data", "**", "environ.json"), recursive=True):
        import json

        try:
            data = json.load(open(path, encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(data, dict):
            values += [str(v) for v in data.values()]
    assert len(values) > 20
    values += _ASSIGNMENTS + [a + " " + b for a in _PIECES for b in _ASSIGNMENTS[::5]]
    for v in values:
        assert redact.mask_value(v) == _mask_every_pattern(v), v


# -- glob, platform and datetime written out --------------------------------------------------------------

def _tree(tmp_path):
    root = tmp_path / "t"
    for d in ("cuda-12.1/lib64", "cuda-11.8/lib64", "cuda-13.0", "cuda-x/lib64", ".cuda-hidden/lib64", "cudaX/lib64",
              "nvidia/cudnn/lib", "nvidia/cublas/lib", "nvidia/.hidden/lib", "nvidia/nolib", "targets/x86_64-linux/lib",
              "odd[dir]/cuda-1/lib64", "renderD", "dri"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "cuda-file").write_text("")  # a file, not a folder
    (root / "cuda-file2").mkdir()
    (root / "cuda-file2" / "lib64").write_text("")  # leaf is a file: glob still lists it
    os.symlink(root / "cuda-12.1", root / "cuda-link")  # a link to a folder
    os.symlink(root / "missing", root / "cuda-broken")  # a broken link
    (root / "cuda-dangling").mkdir()
    os.symlink(root / "missing", root / "cuda-dangling" / "lib64")  # leaf a broken link: lexists
    for n in ("renderD128", "renderD129", "card0", ".renderD1"):
        (root / "dri" / n).write_text("")
    return root


def test_glob_prefix_is_glob(tmp_path, monkeypatch):
    from envcheck.probe import glob_prefix

    root = _tree(tmp_path)
    cases = [(str(root), "cuda-", "lib64"), (str(root), "cuda-", ""), (str(root / "nvidia"), "", "lib"),
             (str(root / "targets"), "", "lib"), (str(root / "dri"), "renderD", ""), (str(root / "dri"), "", ""),
             (str(root / "missing"), "", "lib"), (str(root / "cuda-file"), "", "lib"), (str(root / "odd[dir]"), "cuda-", "lib64"),
             ("/usr/local", "cuda-", "lib64"), ("/dev/dri", "renderD", ""), ("/sys/bus/pci/devices", "", ""),
             ("/dev", "", ""), ("/usr/lib", "", "")]
    for sd in sys.path:
        if sd.endswith("-packages"):
            cases.append((os.path.join(sd, "nvidia"), "", "lib"))
    for parent, prefix, leaf in cases:
        pattern = os.path.join(parent, prefix + "*", leaf) if leaf else os.path.join(parent, prefix + "*")
        assert glob_prefix(parent, prefix, leaf) == glob.glob(pattern), pattern
    monkeypatch.chdir(root)  # a relative parent
    for parent, prefix, leaf in (("", "cuda-", "lib64"), ("nvidia", "", "lib"), ("dri", "renderD", "")):
        pattern = os.path.join(parent, prefix + "*", leaf) if leaf else os.path.join(parent, prefix + "*")
        assert glob_prefix(parent, prefix, leaf) == glob.glob(pattern), pattern


def test_python_facts_are_platforms():
    import platform

    from envcheck.probe import live

    assert live._python_version() == platform.python_version()
    assert live._python_implementation() == platform.python_implementation()
    assert live._machine() == platform.machine()


def test_python_version_falls_back_to_platform_for_other_forms(monkeypatch):
    import platform

    from envcheck.probe import live

    for version in ("3.13.0rc1 (main, Oct  1 2024, 00:00:00) [GCC 12.2.0]", "3.11.7+ (heads/3.11:abc, Dec  5 2023, 10:08:43) [GCC]",
                    "3.12 (main, Dec  5 2023, 10:08:43) [GCC]"):
        monkeypatch.setattr(sys, "version", version)
        platform._sys_version_cache.clear()
        assert live._python_version() == platform.python_version(), version
    platform._sys_version_cache.clear()


def test_the_utc_second_is_datetimes():
    import time
    from datetime import datetime, timezone

    from envcheck.checks.report import now_iso

    for secs in (0, 1, 59, 86399, 951782400, 1709164799, 1709164800, 1764115199, 4102444800, 253402300799):
        assert (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(secs))
                == datetime.fromtimestamp(secs, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        assert (time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(secs))
                == datetime.fromtimestamp(secs, timezone.utc).replace(microsecond=0).isoformat())
    before = datetime.now(timezone.utc).replace(microsecond=0)
    got = datetime.strptime(now_iso(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    after = datetime.now(timezone.utc)
    assert before <= got <= after


# -- the patterns a status run no longer compiles when their words are absent ------------------------------

_WORDISH = st.lists(st.sampled_from(list("abcxyz09-_./+ ÄK\n") + ["cupy", "-cuda", "12x", "-rocm", ".post", "120",
                                                                    "2.5", "site-packages/", "dist-packages/", "nvidia/",
                                                                    "torch/", "lib", "/"]), max_size=10).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_WORDISH)
def test_written_out_patterns_equal_the_patterns(text):
    import re

    from envcheck.environment import frameworks, libraries
    from envcheck.parse.versions import paddle_cuda_from_version
    from envcheck.probe import live

    # probe.live's method names: re.sub(r"[^a-z0-9]", "_", key)
    assert live._method_name(text) == "_k_" + re.sub(r"[^a-z0-9]", "_", text)
    # paddle's .postNNN label
    m = re.match(r"^\s*(\d+)\.\d+(?:\.\d+)?\.post(\d{2,3})\s*$", text)
    want = None if not m or int(m.group(1)) < 2 else f"{int(m.group(2)[:-1])}.{m.group(2)[-1]}"
    assert paddle_cuda_from_version(text) == want
    # a library folder's location
    for d in (text, "/x/site-packages/" + text, "/x/dist-packages/nvidia/" + text + "/lib", text + "/torch/lib"):
        stripped = d.rstrip("/")
        if re.search(r"/(site|dist)-packages/nvidia/[^/]+/lib$", stripped) or (
                re.search(r"/(site|dist)-packages/", stripped) and not re.search(r"/(site|dist)-packages/torch/lib$", stripped)):
            assert libraries._location(d, set(), [], None) == "pip", d
        elif re.search(r"/(site|dist)-packages/torch/lib$", stripped):
            assert libraries._location(d, set(), [], None) == "torch", d
        else:
            assert libraries._location(d, set(), [], None) not in ("pip", "torch"), d
    # cupy's distribution names
    names = {text: "1", "cupy" + text: "1", "cupy-cuda12x": "1"} if text else {"cupy": "1"}
    want_dist = next((n for n in sorted(names) if re.match(r"^cupy(-cuda\d+x?|-rocm.*)?$", n)), None)
    got = frameworks._cupy(names)
    assert (got is None) == (want_dist is None)


def test_parse_library_path_takes_the_base_name_as_posixpath():
    import posixpath

    from envcheck.parse import libraries

    for p in ("/usr/lib/libcudart.so.12", "libcudnn.so.9", "  /a/b/libnccl.so.2 \n", "/a/b/", "", "/", "a/libcuda.so.1/",
              "/x/libcublasLt.so.12.1.3.1", "\\a\\libcudart.so.12"):
        name = posixpath.basename(p.strip())
        got = libraries.parse_library_path(p)
        assert (got.name if got else None) == (name if got else None)
        if libraries._NAME.match(name) and name.startswith(libraries._STARTS):
            assert got is not None and got.name == name, p
