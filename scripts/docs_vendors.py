"""Regenerate the command output shown in docs/vendors.md: every ``$ envcheck ...`` line inside a fenced block is
run (COLUMNS=100, no colour, from the repository root) and the lines under it, up to the next command or the end of
the block, are replaced by what it prints. tests/test_docs_vendors.py checks the page against the same runs.

    python scripts/docs_vendors.py          # rewrite docs/vendors.md in place (atomically)
    python scripts/docs_vendors.py --check  # exit 1 if the page is stale
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DOC = os.path.join(ROOT, "docs", "vendors.md")


def _run(command: str) -> str:
    from click.testing import CliRunner

    from envcheck.cli import cli

    res = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"}).invoke(cli, shlex.split(command)[1:], standalone_mode=False)
    return "\n".join(ln.rstrip() for ln in res.output.rstrip("\n").splitlines())


def render(text: str) -> str:
    def block(m: "re.Match[str]") -> str:
        body = m.group(1)
        if "$ envcheck " not in body:
            return m.group(0)
        parts = re.split(r"^(\$ envcheck [^\n]*)\n", body, flags=re.M)
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            out.append(parts[i] + "\n" + _run(parts[i][2:]) + ("\n\n" if i + 2 < len(parts) else "\n"))
        return "```\n" + "".join(out) + "```"

    return re.sub(r"^```\n(.*?)^```", block, text, flags=re.S | re.M)


def main() -> int:
    os.chdir(ROOT)
    with open(DOC, encoding="utf-8") as fh:
        old = fh.read()
    new = render(old)
    if "--check" in sys.argv[1:]:
        return 0 if new == old else 1
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(DOC), suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(new)
    os.replace(tmp, DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
