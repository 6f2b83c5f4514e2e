"""Snapshots (contract §1): the reader (:mod:`.reader`, the replay source) and the writer (:mod:`.writer`)."""

from envcheck.snapshot.reader import KEYS, KFD_KEYS, READ_ONLY_KEYS, SNAPSHOT_SCHEMA, VENDOR_KEYS, SnapshotSource, Source, open_snapshot

__all__ = ["KEYS", "KFD_KEYS", "READ_ONLY_KEYS", "VENDOR_KEYS", "SNAPSHOT_SCHEMA", "Source", "SnapshotSource", "open_snapshot"]
