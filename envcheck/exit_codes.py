"""Exit statuses of every envcheck command (contract §2, §4, §5, §8)."""

OK = 0
FINDINGS = 1  # status: an error finding (or a warning with --strict); explain: no match; fix: unsatisfiable
USAGE = 2  # a usage error or an unreadable input
BLOCKED = 3  # entrypoint / run in block mode: the check stopped the job
CANNOT_EXECUTE = 126  # run: the command exists but cannot be executed (as a shell says)
NOT_FOUND = 127  # run: no such command (as a shell says)
INTERNAL_ERROR = 70  # a bug in envcheck (EX_SOFTWARE); never used for findings
INTERRUPTED = 130

__all__ = ["OK", "FINDINGS", "USAGE", "BLOCKED", "CANNOT_EXECUTE", "NOT_FOUND", "INTERNAL_ERROR", "INTERRUPTED"]
