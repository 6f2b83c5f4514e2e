"""Exit statuses of every envcheck command (contract §2, §4, §5, §8)."""

OK = 0
FINDINGS = 1  # status: an error finding (or a warning with --strict); explain: no match; fix: unsatisfiable
USAGE = 2  # a usage error or an unreadable input
BLOCKED = 3  # entrypoint / run in block mode: the check stopped the job
INTERRUPTED = 130

__all__ = ["OK", "FINDINGS", "USAGE", "BLOCKED", "INTERRUPTED"]
