"""The claim protocol: a process claims a cell before it runs it, renews its claims, and takes
over the claims of workers that are gone.

Several processes - on one machine or many - can work one study on one database, as Optuna's RDB
storage lets workers share a study. A process *claims* a cell before it runs it by inserting its
row with status ``"running"``, its worker id and a heartbeat; the unique key makes the insert
atomic, so a lost race is simply a cell some other process runs. While it runs cells, a process
renews the heartbeat of its claims (:func:`renew`); a claim whose heartbeat is older than
``stale_after`` seconds, or whose process is gone (same host), is taken over by the next process
that looks for work. The finished cell replaces its claim, with its trace, in one transaction,
and only if the claim is still its own (:meth:`Storage.write_cell`), so no cell is stored twice.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from svmtune.study.store._claim_times import STALE_AFTER_S
from svmtune.study.store._records import CellKey
from svmtune.study.store._schema import RUNNING, cells_table, traces_table, write_connection

__all__ = [
    "claim",
    "claim_is_stale",
    "new_worker_id",
    "release",
    "renew",
    "worker_host",
]


def worker_host() -> str:
    """The host part of this process's worker ids: ``$SVMTUNE_WORKER_HOST`` if set, else the
    host name. Set it where machines share a host name (containers with a fixed hostname): a
    claim of another machine must not be judged by a process id of this one."""
    return os.environ.get("SVMTUNE_WORKER_HOST") or socket.gethostname()


def new_worker_id() -> str:
    """``host:pid:random``: unique, and tells a claim of a dead local process from a live one."""
    return f"{worker_host()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def claim_is_stale(row: Any, now: datetime, stale_after: float) -> bool:
    beat = _aware(row.heartbeat)
    if beat is None or (now - beat).total_seconds() > stale_after:
        return True
    host, _, rest = str(row.worker or "").partition(":")
    pid = rest.partition(":")[0]
    return host == worker_host() and pid.isdigit() and not _pid_alive(int(pid))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _aware(t: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; they were written in UTC."""
    if t is None:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def insert_if_absent(dialect: str, values: dict[str, Any]) -> tuple[Any, bool]:
    """``INSERT ... ON CONFLICT DO NOTHING RETURNING id`` where the dialect has it (a lost race
    returns no row, instead of an error the server logs); a plain insert elsewhere (a lost race
    is an IntegrityError)."""
    c = cells_table.c
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(cells_table).values(**values).on_conflict_do_nothing().returning(
            c.id
        ), True
    if dialect == "sqlite" and sqlite3.sqlite_version_info >= (3, 35):
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        stmt = sqlite_insert(cells_table).values(**values).on_conflict_do_nothing()
        return stmt.returning(c.id), True
    return cells_table.insert().values(**values), False


def claim(
    engine: Engine,
    study_id: int,
    key: CellKey,
    worker: str,
    *,
    redo: Iterable[str] = (),
    stale_after: float = STALE_AFTER_S,
) -> bool:
    """Claim a cell for ``worker``; False if it is stored or another live worker has it.

    A cell is claimed if it has no row yet (an atomic insert), if its stored status is in
    ``redo`` (e.g. failed cells to retry), or if it is claimed by a worker that is gone: its
    heartbeat is older than ``stale_after`` seconds, or it ran on this host in a process
    that no longer exists. Taking a row over is a compare-and-swap on its worker and
    heartbeat, so of two processes racing for a cell exactly one wins.
    """
    c = cells_table.c
    now = datetime.now(UTC)
    where = (
        c.study_id == study_id,
        c.dataset == key.dataset,
        c.split == int(key.split),
        c.method == key.method,
    )
    values = {
        "study_id": study_id,
        "dataset": key.dataset,
        "split": int(key.split),
        "method": key.method,
        "status": RUNNING,
        "seed": 0,
        "worker": worker,
        "heartbeat": now,
        "started_at": now,
    }
    try:
        with write_connection(engine) as conn, conn.begin():
            stmt, returning = insert_if_absent(engine.dialect.name, values)
            res = conn.execute(stmt)
            won = res.first() is not None if returning else True
        if won:
            return True
    except sa.exc.IntegrityError:
        pass
    with engine.connect() as conn:
        row = conn.execute(sa.select(c.id, c.status, c.worker, c.heartbeat).where(*where)).first()
    if row is None:  # deleted meanwhile: try again from the start
        return claim(engine, study_id, key, worker, redo=redo, stale_after=stale_after)
    redo = set(redo)
    if row.status == RUNNING:
        if row.worker == worker or not claim_is_stale(row, now, stale_after):
            return False
    elif row.status not in redo:
        return False
    beat = row.heartbeat
    with write_connection(engine) as conn, conn.begin():
        res = conn.execute(
            cells_table.update()
            .where(
                c.id == row.id,
                c.status == row.status,
                c.worker.is_(None) if row.worker is None else c.worker == row.worker,
                c.heartbeat.is_(None) if beat is None else c.heartbeat == beat,
            )
            .values(status=RUNNING, worker=worker, heartbeat=now, started_at=now)
        )
        if res.rowcount != 1:
            return False
        conn.execute(traces_table.delete().where(traces_table.c.cell_id == row.id))
    return True


def renew(engine: Engine, worker: str) -> int:
    """Renew the heartbeat of every cell ``worker`` is running; the number renewed."""
    c = cells_table.c
    with write_connection(engine) as conn, conn.begin():
        res = conn.execute(
            cells_table.update()
            .where(c.worker == worker, c.status == RUNNING)
            .values(heartbeat=datetime.now(UTC))
        )
        return int(res.rowcount)


def release(engine: Engine, worker: str) -> int:
    """Give up every cell ``worker`` still has running (an interrupted run); the number."""
    c = cells_table.c
    with write_connection(engine) as conn, conn.begin():
        res = conn.execute(cells_table.delete().where(c.worker == worker, c.status == RUNNING))
        return int(res.rowcount)
