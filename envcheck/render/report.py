"""The status report (contract §2): built by :mod:`envcheck.checks.report` (a document, not a rendering; it
moved there so that the status pipeline, :func:`envcheck.checks.pipeline.build_status`, builds it without
importing the render layer). Kept here for the renderers and the CLI that import it by this name."""

from envcheck.checks.report import REPORT_SCHEMA, build_report, is_ok, matrix_version, now_iso

__all__ = ["REPORT_SCHEMA", "build_report", "is_ok", "matrix_version", "now_iso"]
