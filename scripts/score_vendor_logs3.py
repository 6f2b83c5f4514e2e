"""Score explain on heldout/vendor-logs3/ (ROCm logs set aside before their rules; see its README).

    python scripts/score_vendor_logs3.py

Top-1: the first cause of ``envcheck explain --no-detect`` equals the README's label, and for
gpu-arch-unsupported the match captured the README's gfx target. Exit 0 always (a score, not a test).
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envcheck.explain.document import explain_text_document  # noqa: E402

BASE = os.path.join(ROOT, "heldout", "vendor-logs3")
_ROW = re.compile(r"^\| (\S+\.log) \| ([\w-]+) \| (gfx[0-9a-f]+)? ?\|")


def main() -> int:
    rows = []
    with open(os.path.join(BASE, "README.md"), encoding="utf-8") as fh:
        for line in fh:
            m = _ROW.match(line)
            if m:
                rows.append((m.group(1), m.group(2), m.group(3)))
    good = 0
    for name, label, gfx in rows:
        with open(os.path.join(BASE, name), encoding="utf-8") as fh:
            doc = explain_text_document(fh.read())
        top = doc["matches"][0] if doc["matches"] else {}
        hit = top.get("id") == label and (gfx is None or top.get("captures", {}).get("gfx") == gfx)
        good += hit
        print(f"{'OK  ' if hit else 'MISS'} {name}: {top.get('id')} {top.get('captures', {}).get('gfx') or ''}"
              f" (label {label} {gfx or ''})")
    print(f"top-1: {good}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
