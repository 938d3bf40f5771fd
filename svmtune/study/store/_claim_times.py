"""How long a claim lives: the one definition of the heartbeat interval and of the time after
which a claim is stale, shared by the claims, the storage, the run loop, :meth:`Study.run` and
``svmtune run --stale-after``. Nothing is imported, so the command line reads it without
loading the storage."""

__all__ = ["HEARTBEAT_S", "STALE_AFTER_S"]

#: Seconds between two heartbeats of a running study's claims.
HEARTBEAT_S = 30.0
#: A claim whose heartbeat is older than this many seconds is taken over by another process.
STALE_AFTER_S = 300.0
