"""`envcheck status` says today what it said before issue 24's third speed round: every snapshot of tests/data
(the five of tests/data/snapshots, the real H100 one) and every real nvidia-smi table of tests/data/nvidia-smi
(each replayed as a one-file snapshot) give the same JSON report, text report and Markdown report, and the
same exit status, as envcheck at main 1ca3cb6 gave (tests/data/status_golden_1ca3cb6.json, written by that
commit before the change, with `python tests/test_status_golden.py --write`).

Only the creation time and the snapshot's path are set aside (they differ from run to run). A change that
means to change a report (a new matrix row, a new finding) rewrites the file with the command above, and the
diff of the golden file shows what it changed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "data", "status_golden_1ca3cb6.json")
_CREATED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _cases():
    """(name, snapshot folder under tests/data, or an nvidia-smi table to replay alone)."""
    out = []
    snaps = os.path.join(ROOT, "tests", "data", "snapshots")
    for name in sorted(os.listdir(snaps)):
        out.append(("snapshots/" + name, os.path.join(snaps, name), None))
    out.append(("real/h100", os.path.join(ROOT, "tests", "data", "real", "h100-580.159.04-torch2.11-cu130",
                                          "snapshot"), None))
    smi = os.path.join(ROOT, "tests", "data", "nvidia-smi")
    for name in sorted(os.listdir(smi)):
        if name.endswith(".txt"):
            out.append(("nvidia-smi/" + name, None, os.path.join(smi, name)))
    return out


def _normal(text, where):
    # the path is set aside, and with it where the text header wraps (a longer checkout path wraps it earlier)
    # the Markdown report backslash-escapes what Markdown gives a meaning to (a "_" of a temporary folder's name)
    escaped = re.sub(r"([\\\[\]<>!&*_~#])", r"\\\1", where)
    return _CREATED.sub("<created>", re.sub(r"[ \t]*\n[ \t]*<snapshot>", " <snapshot>",
                                            text.replace(where, "<snapshot>").replace(escaped, "<snapshot>")))


_MATRIX_VERSION = re.compile(r"\b20\d\d\.[01]\d\.[0-3]\d\b")


def _flat_header(text):
    # the text header (up to its first blank line) is wrapped to the terminal's width and a long snapshot
    # path is shortened with "...", so both depend on where the checkout lies: compared word by word, with
    # the path set aside
    head, sep, rest = text.partition("\n\n")
    head = re.sub(r"(- snapshot )\S+", r"\1<snapshot>", " ".join(head.split()))
    return head + sep + rest


def _reports():
    from click.testing import CliRunner

    from envcheck.cli import cli

    got = {}
    tmp = tempfile.mkdtemp(prefix="envcheck-golden-")
    try:
        for name, folder, table in _cases():
            if folder is None:
                folder = os.path.join(tmp, "snap")
                shutil.rmtree(folder, ignore_errors=True)
                os.mkdir(folder)
                shutil.copyfile(table, os.path.join(folder, "nvidia-smi.txt"))
            one = {}
            for form in ("--json", "--markdown", None):
                args = ["status", "--snapshot", folder] + ([form] if form else [])
                res = CliRunner().invoke(cli, args, standalone_mode=False, catch_exceptions=False)
                code = res.return_value if isinstance(res.return_value, int) else res.exit_code
                one[form or "text"] = [code, _normal(res.output, folder)]
            got[name] = one
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return got


def test_every_snapshot_reports_what_it_reported_before(monkeypatch):
    for k in list(os.environ):
        if k.startswith("ENVCHECK_") and k not in ("ENVCHECK_CACHE_DIR", "ENVCHECK_VALIDATE_SCHEMAS"):
            monkeypatch.delenv(k)
    with open(GOLDEN, encoding="utf-8") as fh:
        want = json.load(fh)
    got = _reports()
    assert len(want) >= 30 and sorted(got) == sorted(want)
    for one in list(got.values()) + list(want.values()):
        one["text"] = [one["text"][0], _flat_header(one["text"][1])]
        for form in one:  # the matrix bundle's version (a date) is data, re-dated when the tables change
            one[form] = [one[form][0], _MATRIX_VERSION.sub("<matrix-version>", one[form][1])]
    differ = [name for name in sorted(want) if got[name] != want[name]]
    for name in differ[:3]:
        for form in want[name]:
            assert got[name][form] == want[name][form], (name, form)
    assert differ == []


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    for k in list(os.environ):
        if k.startswith("ENVCHECK_") and k != "ENVCHECK_CACHE_DIR":
            del os.environ[k]
    sys.path.insert(0, ROOT)
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(_reports(), fh, indent=1, sort_keys=True)
        fh.write("\n")
