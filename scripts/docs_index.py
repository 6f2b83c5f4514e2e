#!/usr/bin/env python3
"""Write docs/index.md (the docs site's home page) from README.md, with links made relative to docs/.

The README is the one home of that text; tests/test_docs.py checks that docs/index.md is current.
Run after editing the README:  python scripts/docs_index.py
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = "<!-- generated from README.md by scripts/docs_index.py: edit the README, not this page -->\n\n"


def index_text(readme: str) -> str:
    text = readme.replace("](docs/", "](")
    # links to files outside docs/ point at the repository's copy (not part of the site)
    text = re.sub(r"\]\((?!https?:|#)([^)]+)\)",
                  lambda m: "](" + (m.group(1) if os.path.exists(os.path.join(ROOT, "docs", m.group(1).split("#")[0]))
                                    else "https://www.apache.org/licenses/LICENSE-2.0" if m.group(1) == "LICENSE"
                                    else m.group(1)) + ")", text)
    return HEADER + text


def main() -> int:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        out = index_text(f.read())
    path = os.path.join(ROOT, "docs", "index.md")
    if "--check" in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            return 0 if f.read() == out else 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
