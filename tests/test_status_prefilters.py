"""The status path's shortcuts (issue 24, fourth round) give what the code they stand in front of gives: each
prefilter only skips a pattern that cannot match, each written-out helper equals the library's."""

from __future__ import annotations

import glob
import os

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
           " ", "\t", "\u2003", "\"", "'", "a" * 16, "Z9" * 9, "0" * 31, "x" * 32, "_", "-", "é", "ß", "\n"]
#: each keyword of the token pattern with its "=" and a value, in the spellings re.IGNORECASE also accepts
_ASSIGNMENTS = [w + "=" + v for w in ("token", "my_secret", "passwd", "password", "PASSWORD", "pwd", "api_key",
                                      "api-key", "access_key", "auth", "ſecret", "paſſword", "toKen", "ıd_auth",
                                      "AUTH_TOKEN", "x-api-key")
                for v in ("v", "s3cr3t", "a b")]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.sampled_from(_ASSIGNMENTS), st.text(max_size=6)),
                max_size=14).map("".join))
def test_mask_value_equals_every_pattern_run(value):
    assert redact.mask_value(value) == _mask_every_pattern(value)


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
