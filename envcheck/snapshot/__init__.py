"""Snapshots (contract §1): the reader (:mod:`.reader`, the replay source) and the writer (:mod:`.writer`)."""

from envcheck.snapshot.reader import KEYS, SNAPSHOT_SCHEMA, SnapshotSource, Source, open_snapshot

__all__ = ["KEYS", "SNAPSHOT_SCHEMA", "Source", "SnapshotSource", "open_snapshot"]
