"""Environment reports pasted into a bug report (issue 13 part 2).

* :mod:`.readers` holds one reader per report family (collect_env in every layout, pip/conda lists, nvidia-smi
  table / -q / -L / CSV, nvcc, ldconfig, TF template fields, jax / transformers / accelerate env dumps, Ultralytics
  banners, Chinese templates, Paddle), each returning an immutable partial; :mod:`.sections` walks a text with
  them, :mod:`.merge` folds the partials in one documented order, :mod:`.report` makes the raw captures of
  contract §1 and the contract §4 ``facts``;
* :mod:`.collect` keeps the report sections of a streamed text in explain's single pass (bounded);
* :mod:`.source` is :class:`PasteSource`, a snapshot-like source over those captures, so that
  ``envcheck.environment.collect(PasteSource(report), matrix)`` builds the Environment with the same
  parsers and checks as ``status``;
* :mod:`.rank` turns the paste's findings into candidate causes next to explain's log-line matches.
"""

from __future__ import annotations

from envcheck.paste.collect import PasteCollector
from envcheck.paste.sections import Report, read_report
from envcheck.paste.source import PasteSource

__all__ = ["PasteCollector", "PasteSource", "Report", "read_report"]
