"""Fleet summaries (contract §7): :mod:`.read` reads reports from files, folders, archives and
stdin in bounded steps; :mod:`.summarize` compares them."""

from envcheck.fleet.read import MAX_TOTAL_BYTES, Inputs, Node, Reader, read_inputs
from envcheck.fleet.summarize import (FLEET_SCHEMA, compact_hostlist, exit_status, expand_hostlist,
                                      fingerprint_fields, natural_key, parse_age, summarize, verdict_ok)

__all__ = ["FLEET_SCHEMA", "MAX_TOTAL_BYTES", "Node", "Inputs", "Reader", "read_inputs", "summarize",
           "fingerprint_fields", "compact_hostlist", "expand_hostlist", "natural_key", "exit_status",
           "parse_age", "verdict_ok"]
