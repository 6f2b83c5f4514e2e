"""The bundle tests' calendar: dates counted from the bundled matrix's own version, and a clock to match.

A signed bundle is accepted only when its version is newer than the bundled matrix's, not later than
today + 3 days, and not expired; keys have validity dates. Tests that dated their bundles from the real
date broke as soon as compat_matrix/bundle.toml was re-dated (today's version is then not newer). Here
"today" is the bundled version + :data:`AHEAD` days, whatever the real date, so the bundle can be
re-dated without touching a test:

* :func:`day` is that today + n days, as a bundle version (``YYYY.MM.DD``) or a key date (``sep="-"``);
* envcheck reads the date from ``time.time()``: :func:`use` shifts it in this process (monkeypatch),
  :func:`child_env` gives a ``python -m envcheck`` child the same shift through a ``sitecustomize``
  module put first on its ``PYTHONPATH``. The clock still runs (shifted, never frozen: a timeout
  loop still ends); TLS certificates are checked by OpenSSL on the real clock, as they are made.
"""

import atexit
import datetime
import os
import shutil
import tempfile
import time

from envcheck.matrix import bundled_dir
from envcheck.matrix.bundle import bundle_version

BUNDLED = bundle_version(bundled_dir())
#: "today" is this many days after the bundled version: day(-3) ... day() are four newer versions
AHEAD = 4
_BASE = datetime.datetime.strptime(BUNDLED, "%Y.%m.%d").date() + datetime.timedelta(days=AHEAD)
_REAL_TIME = time.time
#: seconds to add to the real clock to stand at noon (UTC) of the tests' today
OFFSET = datetime.datetime.combine(_BASE, datetime.time(12), tzinfo=datetime.timezone.utc).timestamp() - _REAL_TIME()


def day(days=0, sep="."):
    """The tests' today + ``days``: ``2026.11.25`` (a bundle version) or with ``sep="-"`` a key date."""
    return (_BASE + datetime.timedelta(days=days)).strftime(f"%Y{sep}%m{sep}%d")


def shifted_time():
    return _REAL_TIME() + OFFSET


def use(monkeypatch):
    """Shift ``time.time`` in this process to the tests' today (undone by ``monkeypatch``)."""
    monkeypatch.setattr(time, "time", shifted_time)


_SITE_DIR = []


def child_env(env):
    """``env`` (a dict for ``subprocess``) with the clock shift for a Python child: a folder holding a
    ``sitecustomize.py`` first on ``PYTHONPATH``."""
    if not _SITE_DIR:
        d = tempfile.mkdtemp(prefix="envcheck-test-clock-")
        with open(os.path.join(d, "sitecustomize.py"), "w", encoding="utf-8") as fh:
            fh.write("import time as _time\n_real = _time.time\n"
                     f"_time.time = lambda: _real() + {OFFSET!r}  # tests/bundle_clock.py\n")
        _SITE_DIR.append(d)
        atexit.register(shutil.rmtree, d, True)
    out = dict(env)
    out["PYTHONPATH"] = os.pathsep.join(p for p in (_SITE_DIR[0], env.get("PYTHONPATH")) if p)
    return out
