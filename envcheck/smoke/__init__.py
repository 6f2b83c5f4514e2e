"""``envcheck smoke``: run tiny real operations of each framework in a child process.

See :mod:`envcheck.smoke.runner`; the child script is ``envcheck/smoke/_child.py``.
"""

from __future__ import annotations

from envcheck.smoke.runner import (DEFAULT_TIMEOUT, FRAMEWORKS, NO_GPU, SCHEMA, diagnose, installed_frameworks,
                                   run_framework, run_smoke)

__all__ = ["DEFAULT_TIMEOUT", "FRAMEWORKS", "NO_GPU", "SCHEMA", "diagnose", "installed_frameworks",
           "run_framework", "run_smoke"]
