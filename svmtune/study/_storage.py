"""Where a study keeps its results: a SQL database through SQLAlchemy (SQLite by default).

Three tables: ``studies`` (name, seed, definition), ``cells`` (one row per cell, unique on
(study, dataset, split, method)) and ``traces`` (every evaluation of a cell).

Several processes - on one machine or many - can work one study on one database, as Optuna's RDB
storage lets workers share a study. A process *claims* a cell before it runs it by inserting its
row with status ``"running"``, its worker id and a heartbeat; the unique key makes the insert
atomic, so a lost race is simply a cell some other process runs. While it runs cells, a process
renews the heartbeat of its claims; a claim whose heartbeat is older than ``stale_after`` seconds,
or whose process is gone (same host), is taken over by the next process that looks for work. The
finished cell replaces its claim, with its trace, in one transaction, and only if the claim is
still its own, so no cell is stored twice.

A SQLite database in WAL mode is the ``.db`` file together with its ``-wal`` and ``-shm`` files
while a run is live; each run checkpoints the log into the ``.db`` file when it ends.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from svmtune._params import diff_records
from svmtune.study._cell import CellKey, CellRecord

__all__ = ["Snapshot", "Storage", "default_storage_url"]

#: Status of a claimed cell that is being computed.
RUNNING = "running"
#: Version of the stored study definitions that record every option of every method.
DEFINITION_FORMAT = 2

_metadata = sa.MetaData()

studies_table = sa.Table(
    "studies",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

cells_table = sa.Table(
    "cells",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "study_id", sa.Integer, sa.ForeignKey("studies.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("dataset", sa.String(200), nullable=False),
    sa.Column("split", sa.Integer, nullable=False),
    sa.Column("method", sa.String(200), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("best_params", sa.Text),
    sa.Column("box", sa.Text),
    sa.Column("objective_value", sa.Float),
    sa.Column("test_error", sa.Float),
    sa.Column("wall_s", sa.Float),
    sa.Column("cpu_s", sa.Float),
    sa.Column("kernel_evals", sa.BigInteger),
    sa.Column("iterations", sa.BigInteger),
    sa.Column("n_evaluations", sa.Integer),
    sa.Column("stopped_by", sa.String(32)),
    sa.Column("n_train", sa.Integer),
    sa.Column("n_test", sa.Integer),
    sa.Column("host", sa.String(200)),
    sa.Column("started_at", sa.DateTime(timezone=True)),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.Column("worker", sa.String(200)),
    sa.Column("heartbeat", sa.DateTime(timezone=True)),
    sa.UniqueConstraint("study_id", "dataset", "split", "method", name="uq_cell_key"),
)

traces_table = sa.Table(
    "traces",
    _metadata,
    sa.Column(
        "cell_id",
        sa.Integer,
        sa.ForeignKey("cells.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("eval", sa.Integer, primary_key=True),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("value", sa.Float),
    sa.Column("status", sa.String(16)),
    sa.Column("wall_s", sa.Float),
    sa.Column("cpu_s", sa.Float),
    sa.Column("kernel_evals", sa.BigInteger),
    sa.Column("iterations", sa.BigInteger),
    sa.Column("cum_wall_s", sa.Float),
    sa.Column("cum_cpu_s", sa.Float),
    sa.Column("cum_kernel_evals", sa.BigInteger),
    sa.Column("cum_iterations", sa.BigInteger),
    sa.Column("best_value", sa.Float),
    sa.Column("incumbent_test_error", sa.Float),
)

CELL_COLUMNS = (
    "dataset",
    "split",
    "method",
    "status",
    "objective_value",
    "test_error",
    "wall_s",
    "cpu_s",
    "kernel_evals",
    "iterations",
    "n_evaluations",
    "stopped_by",
    "best_params",
    "box",
    "n_train",
    "n_test",
    "seed",
    "error",
    "host",
    "started_at",
    "finished_at",
)


_MEMORY_ENGINES: dict[str, Engine] = {}


def sqlite_file(url: str) -> Path | None:
    """The file a ``sqlite:///`` URL names; None for another database or an in-memory one."""
    try:
        parsed = make_url(url)
    except Exception:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(str(parsed.database)).expanduser()


def empty_cells() -> pd.DataFrame:
    """A cells table with no row (what :meth:`Storage.cells` returns for a new study)."""
    return _cells_frame([])


def empty_traces() -> pd.DataFrame:
    """A traces table with no row."""
    return _traces_frame([])


def default_storage_url(study_name: str) -> str:
    """``sqlite:///results/<study>.db``, relative to the current directory."""
    return f"sqlite:///results/{study_name}.db"


def _float(v: Any) -> float | None:
    """NaN -> NULL (databases disagree on NaN); other floats as they are."""
    if v is None:
        return None
    f = float(v)
    return None if math.isnan(f) else f


def _int(v: Any) -> int | None:
    if v is None:
        return None
    try:
        if math.isnan(float(v)):
            return None
    except (TypeError, ValueError):
        return None
    return int(v)


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    # transactions are begun by _sqlite_begin (so that writes can take the lock up front)
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    try:
        cur.execute("PRAGMA journal_mode=WAL")
    except Exception:  # pragma: no cover - e.g. a read-only or network file system
        pass
    cur.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    """``BEGIN IMMEDIATE`` for writes: a transaction that reads and then writes would otherwise
    fail with "database is locked" when another process wrote in between (SQLite does not wait
    for a lock it would need to upgrade a read snapshot)."""
    conn.exec_driver_sql(
        "BEGIN IMMEDIATE" if conn.get_execution_options().get("svmtune_write") else "BEGIN"
    )


def _upgrade_schema(engine: Engine) -> None:
    """Add the claim columns to a database written before workers could share it, and the
    traces' ``incumbent_test_error`` to one written before the anytime profiles."""
    have = {c["name"] for c in sa.inspect(engine).get_columns("cells")}
    with engine.begin() as conn:
        kinds = {"worker": "VARCHAR(200)", "heartbeat": "TIMESTAMP", "box": "TEXT"}
        for col, kind in kinds.items():
            if col not in have:
                conn.exec_driver_sql(f"ALTER TABLE cells ADD COLUMN {col} {kind}")
        traces = {c["name"] for c in sa.inspect(engine).get_columns("traces")}
        if "incumbent_test_error" not in traces:  # added with the anytime profiles
            conn.exec_driver_sql("ALTER TABLE traces ADD COLUMN incumbent_test_error FLOAT")


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


#: Seconds to wait for a database server to answer a new connection.
CONNECT_TIMEOUT_S = 5


def _server_engine(parsed: Any) -> Engine:
    """An engine on a database server: connections time out after CONNECT_TIMEOUT_S (an
    unreachable host is an error in seconds, not minutes); a dropped connection is replaced."""
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    return sa.create_engine(parsed, connect_args=connect_args, pool_pre_ping=True)


def _sqlite_read_only_engine(parsed: Any, path: Path) -> Engine:
    """A SQLite file opened for reading only, also where the process may not write.

    A file it may write, in a directory it may write, is opened as usual with ``PRAGMA
    query_only`` (SQLite refuses every write; closing cleans up the ``-wal``/``-shm`` files).
    Otherwise the file is opened ``mode=ro``, and ``immutable`` in a directory where no
    ``-wal`` file can exist (nobody can be writing it there, and no ``-shm`` file can be made).
    """
    from urllib.parse import quote

    if not path.is_file():
        raise ValueError(f"no study database at {path}")
    path = path.resolve()
    dir_ok = os.access(path.parent, os.W_OK)
    if dir_ok and os.access(path, os.W_OK):
        uri = f"file:{quote(str(path))}"
        query_only = True
    else:
        wal = path.with_name(path.name + "-wal").exists()
        uri = f"file:{quote(str(path))}?mode=ro" + ("" if dir_ok or wal else "&immutable=1")
        query_only = False
    engine = sa.create_engine(
        "sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False)
    )

    def pragmas(dbapi_connection: Any, connection_record: Any) -> None:
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
        if query_only:
            cur.execute("PRAGMA query_only=ON")
        cur.close()

    sa.event.listen(engine, "connect", pragmas)
    sa.event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN"))
    return engine


#: The driver a URL's dialect needs, and how to install it.
_DRIVERS = {
    "postgresql": "pip install 'svmtune[postgres]' (psycopg 3) and write the URL as "
    "postgresql+psycopg://user:password@host/db",
    "mysql": "pip install pymysql and write the URL as mysql+pymysql://user:password@host/db",
}


def _driver_hint(parsed: Any, exc: BaseException) -> str:
    backend = parsed.get_backend_name()
    how = _DRIVERS.get(backend, f"install the Python driver SQLAlchemy uses for {backend!r}")
    return f"the database driver {parsed.drivername!r} is not installed ({exc}): {how}"


class StudyChangedError(ValueError):
    """A method of a study differs from the one whose cells are stored under its name."""


class Storage:
    """A study database at a SQLAlchemy URL.

    Opening it connects and creates the tables; a URL that cannot be opened raises ValueError
    naming it (password hidden).

    Parameters
    ----------
    url : str
        Any SQLAlchemy URL; for a SQLite file the parent directory is created. ``"sqlite://"``
        is an in-memory database, shared by every Storage of this process with the same URL.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> s = Storage(f"sqlite:///{pathlib.Path(tempfile.mkdtemp()) / 'studies.db'}")
    >>> s.study_names()
    []
    """

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = str(url)
        self.read_only = bool(read_only)
        try:
            parsed = make_url(self.url)
        except Exception as exc:
            hint = ""
            if "://" not in self.url and self.url.strip():
                hint = f"; for a SQLite file write sqlite:///{self.url}"
            raise ValueError(
                f"cannot open storage {self.url!r}: not a database URL ({exc}){hint}"
            ) from exc
        self.display_url = parsed.render_as_string(hide_password=True)
        db = parsed.database
        self.in_memory = parsed.get_backend_name() == "sqlite" and db in (None, "", ":memory:")
        #: The URL named an existing SQLite file of 0 bytes (SQLite makes it a new database).
        self.empty_file = False
        #: False for a read-only storage whose database has no study tables yet.
        self.has_tables = True
        try:
            if self.in_memory:
                # one database per URL for the life of the process (each engine would get its own)
                if self.url not in _MEMORY_ENGINES:
                    _MEMORY_ENGINES[self.url] = sa.create_engine(
                        parsed,
                        poolclass=sa.StaticPool,
                        connect_args={"check_same_thread": False},  # joblib's threads claim
                    )
                self.engine: Engine = _MEMORY_ENGINES[self.url]
            elif parsed.get_backend_name() == "sqlite":
                path = Path(str(db)).expanduser()
                if self.read_only:
                    self.engine = _sqlite_read_only_engine(parsed, path)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self.empty_file = path.is_file() and path.stat().st_size == 0
                    self.engine = sa.create_engine(parsed)
                    sa.event.listen(self.engine, "connect", _sqlite_pragmas)
                    sa.event.listen(self.engine, "begin", _sqlite_begin)
            else:
                self.engine = _server_engine(parsed)
            if self.read_only:
                self.has_tables = sa.inspect(self.engine).has_table("cells")
            else:
                self._create_tables()
        except (ImportError, sa.exc.NoSuchModuleError) as exc:
            raise ValueError(
                f"cannot open storage {self.display_url!r}: {_driver_hint(parsed, exc)}"
            ) from exc
        except Exception as exc:
            raise ValueError(f"cannot open storage {self.display_url!r}: {exc}") from exc

    def __repr__(self) -> str:
        return f"Storage({self.display_url!r})"

    def _create_tables(self) -> None:
        """Create the tables unless they exist. Several workers may open a new database at once:
        on SQLite the check and the creation run in one write transaction (``BEGIN IMMEDIATE``
        serialises them); elsewhere a worker that loses the race retries and finds the tables."""
        for attempt in range(5):
            try:
                if self.engine.dialect.name == "sqlite" and not self.in_memory:
                    with self._write() as conn, conn.begin():
                        _metadata.create_all(conn)
                else:
                    _metadata.create_all(self.engine)
                _upgrade_schema(self.engine)
                return
            except sa.exc.DBAPIError:
                if attempt == 4:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def close(self) -> None:
        """Release the connections (an in-memory database stays until the process ends).

        A SQLite file in WAL mode is checkpointed first, so that the ``.db`` file alone holds
        every stored cell once no run is live.
        """
        if self.in_memory:
            return
        if self.engine.dialect.name == "sqlite":
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            except Exception:  # pragma: no cover - another process holds the log; it checkpoints
                pass
        self.engine.dispose()

    def _write(self) -> Any:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        return self.engine.connect().execution_options(svmtune_write=True)

    # -- studies ----------------------------------------------------------------------------
    def study_names(self) -> list[str]:
        if not self.has_tables:
            return []
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(studies_table.c.name).order_by(studies_table.c.id))
            return [r[0] for r in rows]

    def study_id(self, name: str) -> int | None:
        if not self.has_tables:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(studies_table.c.id).where(studies_table.c.name == name)
            ).first()
        return None if row is None else int(row[0])

    def study_definition(self, name: str) -> dict[str, Any] | None:
        if not self.has_tables:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(studies_table.c.definition).where(studies_table.c.name == name)
            ).first()
        return None if row is None else dict(json.loads(row[0]))

    def register_study(
        self,
        name: str,
        seed: int,
        definition: dict[str, Any],
        *,
        replace_changed: bool = False,
    ) -> int:
        """Create the study, or check that the stored one is the same study.

        The stored seed, split protocol and test size must match, and so must every method both
        definitions name (their complete records, :meth:`Method.describe`): a method changed
        under the same name would otherwise mix old and new results. New data sets, splits and
        methods add cells; the stored definition keeps the methods of every stored cell.

        Parameters
        ----------
        name : str
        seed : int
        definition : dict
            ``Study.definition()``.
        replace_changed : bool, default False
            Delete the stored cells of a changed method (they run again) instead of refusing.

        Raises
        ------
        StudyChangedError
            A ValueError naming what differs, and what to do.
        """
        for _attempt in range(5):
            try:
                return self._register(name, seed, definition, replace_changed)
            except sa.exc.IntegrityError:  # another process created it at the same time
                continue
        raise RuntimeError(f"could not register study {name!r}")  # pragma: no cover

    def _register(
        self, name: str, seed: int, definition: dict[str, Any], replace_changed: bool
    ) -> int:
        now = datetime.now(UTC)
        definition = {**definition, "format": DEFINITION_FORMAT}
        where = f"study {name!r} in {self.display_url}"
        with self._write() as conn, conn.begin():
            row = conn.execute(
                sa.select(
                    studies_table.c.id, studies_table.c.seed, studies_table.c.definition
                ).where(studies_table.c.name == name)
            ).first()
            if row is None:
                res = conn.execute(
                    studies_table.insert().values(
                        name=name,
                        seed=int(seed),
                        definition=json.dumps(definition, default=str),
                        created_at=now,
                        updated_at=now,
                    )
                )
                return _new_id(res)
            old = json.loads(row.definition)
            if int(row.seed) != int(seed):
                raise StudyChangedError(
                    f"{where} was run with seed {row.seed}; this definition has seed {seed}: "
                    "give the study a new name or a new storage"
                )
            for k in ("split", "test_size"):
                if k in old and old[k] != definition.get(k):
                    raise StudyChangedError(
                        f"{where} was run with {k}={old[k]!r}; this definition has "
                        f"{k}={definition.get(k)!r}: give the study a new name or a new storage"
                    )
            old_methods = dict(old.get("methods") or {})
            new_methods = dict(definition.get("methods") or {})
            changed = {}
            if old.get("format") == DEFINITION_FORMAT:  # older files stored incomplete reprs
                for m in new_methods:
                    if m in old_methods:
                        diff = diff_records(old_methods[m], new_methods[m])
                        if diff:
                            changed[m] = diff
            if changed and not replace_changed:
                lines = "; ".join(f"method {m!r}: {', '.join(d)}" for m, d in changed.items())
                raise StudyChangedError(
                    f"{where} has cells of a different method under the same name ({lines}). "
                    "Give the changed method a new name, or run with --replace-changed "
                    "(Study.run(replace_changed=True)) to delete its stored cells and run them "
                    "again, or use a new storage"
                )
            c = cells_table.c
            for m in changed:
                ids = sa.select(c.id).where(c.study_id == row.id, c.method == m)
                conn.execute(traces_table.delete().where(traces_table.c.cell_id.in_(ids)))
                conn.execute(cells_table.delete().where(c.study_id == row.id, c.method == m))
            merged = dict(definition)
            merged["methods"] = {
                **new_methods,
                **{k: v for k, v in old_methods.items() if k not in new_methods},
            }
            merged["datasets"] = list(
                dict.fromkeys([*definition.get("datasets", []), *old.get("datasets", [])])
            )
            conn.execute(
                studies_table.update()
                .where(studies_table.c.id == row.id)
                .values(definition=json.dumps(merged, default=str), updated_at=now)
            )
            return int(row.id)

    # -- cells -----------------------------------------------------------------------------
    def finished(self, study: str) -> dict[CellKey, str]:
        """Key -> status of every stored (not running) cell of ``study``."""
        sid = self.study_id(study)
        if sid is None:
            return {}
        c = cells_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.status).where(
                    c.study_id == sid, c.status != RUNNING
                )
            )
            return {CellKey(r.dataset, int(r.split), r.method): r.status for r in rows}

    def running(self, study: str) -> dict[CellKey, str]:
        """Key -> worker of every cell of ``study`` claimed and not finished yet."""
        sid = self.study_id(study)
        if sid is None:
            return {}
        c = cells_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.worker).where(
                    c.study_id == sid, c.status == RUNNING
                )
            )
            return {CellKey(r.dataset, int(r.split), r.method): str(r.worker) for r in rows}

    def taken(self, study: str) -> set[CellKey]:
        """The cells of ``study`` that have a row: stored, or claimed by some worker."""
        sid = self.study_id(study)
        if sid is None:
            return set()
        c = cells_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(c.dataset, c.split, c.method).where(c.study_id == sid))
            return {CellKey(r.dataset, int(r.split), r.method) for r in rows}

    def stale(self, study: str, stale_after: float) -> set[CellKey]:
        """The running cells of ``study`` whose claims may be taken over (see :meth:`claim`)."""
        sid = self.study_id(study)
        if sid is None:
            return set()
        c = cells_table.c
        now = datetime.now(UTC)
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.worker, c.heartbeat).where(
                    c.study_id == sid, c.status == RUNNING
                )
            ).all()
        return {
            CellKey(r.dataset, int(r.split), r.method)
            for r in rows
            if _claim_is_stale(r, now, stale_after)
        }

    def claim(
        self,
        study_id: int,
        key: CellKey,
        worker: str,
        *,
        redo: Iterable[str] = (),
        stale_after: float = 300.0,
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
            with self._write() as conn, conn.begin():
                stmt, returning = _insert_if_absent(self.engine.dialect.name, values)
                res = conn.execute(stmt)
                won = res.first() is not None if returning else True
            if won:
                return True
        except sa.exc.IntegrityError:
            pass
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(c.id, c.status, c.worker, c.heartbeat).where(*where)
            ).first()
        if row is None:  # deleted meanwhile: try again from the start
            return self.claim(study_id, key, worker, redo=redo, stale_after=stale_after)
        redo = set(redo)
        if row.status == RUNNING:
            if row.worker == worker or not _claim_is_stale(row, now, stale_after):
                return False
        elif row.status not in redo:
            return False
        beat = row.heartbeat
        with self._write() as conn, conn.begin():
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

    def heartbeat(self, worker: str) -> int:
        """Renew the heartbeat of every cell ``worker`` is running; the number renewed."""
        c = cells_table.c
        with self._write() as conn, conn.begin():
            res = conn.execute(
                cells_table.update()
                .where(c.worker == worker, c.status == RUNNING)
                .values(heartbeat=datetime.now(UTC))
            )
            return int(res.rowcount)

    def release(self, worker: str) -> int:
        """Give up every cell ``worker`` still has running (an interrupted run); the number."""
        c = cells_table.c
        with self._write() as conn, conn.begin():
            res = conn.execute(cells_table.delete().where(c.worker == worker, c.status == RUNNING))
            return int(res.rowcount)

    def write_cell(
        self,
        study_id: int,
        rec: CellRecord,
        *,
        replace: bool = False,
        worker: str | None = None,
    ) -> bool:
        """Write one finished cell and its trace in one transaction.

        With ``worker``, the cell must be claimed by that worker (:meth:`claim`): its claim is
        replaced by the record, and nothing is written (False) if the claim was taken over
        meanwhile. Without, the record is inserted; False (nothing written) if the cell is
        stored already, unless ``replace``.
        """
        c = cells_table.c
        key = rec.key
        values = _cell_values(rec)
        with self._write() as conn, conn.begin():
            old = conn.execute(
                sa.select(c.id, c.status, c.worker).where(
                    c.study_id == study_id,
                    c.dataset == key.dataset,
                    c.split == key.split,
                    c.method == key.method,
                )
            ).first()
            if worker is not None:
                if old is None or old.status != RUNNING or old.worker != worker:
                    return False
                conn.execute(
                    cells_table.update()
                    .where(c.id == old.id)
                    .values(**values, worker=worker, heartbeat=None)
                )
                cell_id = int(old.id)
                conn.execute(traces_table.delete().where(traces_table.c.cell_id == cell_id))
            else:
                if old is not None:
                    if not replace:
                        return False
                    conn.execute(traces_table.delete().where(traces_table.c.cell_id == old.id))
                    conn.execute(cells_table.delete().where(c.id == old.id))
                res = conn.execute(
                    cells_table.insert().values(
                        study_id=study_id,
                        dataset=key.dataset,
                        split=int(key.split),
                        method=key.method,
                        **values,
                    )
                )
                cell_id = _new_id(res)
            rows = list(_trace_rows(cell_id, rec.trace))
            if rows:
                conn.execute(traces_table.insert(), rows)
        return True

    def cells(self, study: str | None = None) -> pd.DataFrame:
        """The stored cells (of one study, or all), one row each, ``best_params`` as dicts."""
        if not self.has_tables:
            return _cells_frame([])
        with self.engine.connect() as conn:
            return _cells_frame(conn.execute(_cells_query(study)).mappings().all())

    def traces(self, study: str | None = None) -> pd.DataFrame:
        """Every stored evaluation, with the cell's key, ``param_<name>`` columns expanded."""
        if not self.has_tables:
            return _traces_frame([])
        with self.engine.connect() as conn:
            return _traces_frame(conn.execute(_traces_query(study)).mappings().all())

    def snapshot(self, study: str) -> Snapshot:
        """The stored cells, their traces and the running claims of ``study``, all read in one
        transaction (one consistent state of the database, even while workers write): a report
        of a study being worked on counts what was stored and what was running at one moment.
        """
        empty = Snapshot(_cells_frame([]), _traces_frame([]), {})
        if not self.has_tables:
            return empty
        c, s = cells_table.c, studies_table.c
        conn = self.engine.connect()
        if self.engine.dialect.name != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn, conn.begin():
            cells = conn.execute(_cells_query(study)).mappings().all()
            traces = conn.execute(_traces_query(study)).mappings().all()
            running = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.worker)
                .join_from(cells_table, studies_table, c.study_id == s.id)
                .where(s.name == study, c.status == RUNNING)
            ).all()
        return Snapshot(
            _cells_frame(cells),
            _traces_frame(traces),
            {CellKey(r.dataset, int(r.split), r.method): str(r.worker) for r in running},
        )


@dataclass(frozen=True)
class Snapshot:
    """What :meth:`Storage.snapshot` read: stored cells, their traces, running claims."""

    cells: pd.DataFrame
    traces: pd.DataFrame
    running: dict[CellKey, str]


def _cells_query(study: str | None) -> Any:
    c, s = cells_table.c, studies_table.c
    query = (
        sa.select(s.name.label("study"), *(getattr(c, n) for n in CELL_COLUMNS))
        .join_from(cells_table, studies_table, c.study_id == s.id)
        .order_by(s.name, c.dataset, c.split, c.method)
    )
    query = query.where(c.status != RUNNING)
    if study is not None:
        query = query.where(s.name == study)
    return query


def _cells_frame(rows: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if df.empty:
        df = pd.DataFrame(columns=["study", *CELL_COLUMNS])
    for col in ("best_params", "box"):
        df[col] = [
            None if v is None or (isinstance(v, float) and math.isnan(v)) else json.loads(v)
            for v in df[col]
        ]
    for col in ("objective_value", "test_error", "wall_s", "cpu_s"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    df["split"] = df["split"].astype(int)
    return df.reset_index(drop=True)


_TRACE_COLUMNS = [col for col in traces_table.columns if col.name not in ("cell_id",)]


def _traces_query(study: str | None) -> Any:
    t, c, s = traces_table.c, cells_table.c, studies_table.c
    query = (
        sa.select(s.name.label("study"), c.dataset, c.split, c.method, *_TRACE_COLUMNS)
        .join_from(traces_table, cells_table, t.cell_id == c.id)
        .join(studies_table, c.study_id == s.id)
        .order_by(s.name, c.dataset, c.split, c.method, t.eval)
    )
    if study is not None:
        query = query.where(s.name == study)
    return query


def _traces_frame(rows: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    base = ["study", "dataset", "split", "method"]
    if df.empty:
        return pd.DataFrame(columns=[*base, *(col.name for col in _TRACE_COLUMNS)])
    params = pd.DataFrame([json.loads(p) for p in df.pop("params")], index=df.index)
    params.columns = [f"param_{n}" for n in params.columns]
    df = pd.concat([df, params], axis=1)
    for col in (
        "value",
        "best_value",
        "incumbent_test_error",
        "wall_s",
        "cpu_s",
        "cum_wall_s",
        "cum_cpu_s",
    ):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def _insert_if_absent(dialect: str, values: dict[str, Any]) -> tuple[Any, bool]:
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


def worker_host() -> str:
    """The host part of this process's worker ids: ``$SVMTUNE_WORKER_HOST`` if set, else the
    host name. Set it where machines share a host name (containers with a fixed hostname): a
    claim of another machine must not be judged by a process id of this one."""
    return os.environ.get("SVMTUNE_WORKER_HOST") or socket.gethostname()


def new_worker_id() -> str:
    """``host:pid:random``: unique, and tells a claim of a dead local process from a live one."""
    return f"{worker_host()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def _claim_is_stale(row: Any, now: datetime, stale_after: float) -> bool:
    beat = _aware(row.heartbeat)
    if beat is None or (now - beat).total_seconds() > stale_after:
        return True
    host, _, rest = str(row.worker or "").partition(":")
    pid = rest.partition(":")[0]
    return host == worker_host() and pid.isdigit() and not _pid_alive(int(pid))


def _cell_values(rec: CellRecord) -> dict[str, Any]:
    return {
        "status": rec.status,
        "error": rec.error,
        "seed": int(rec.seed),
        "best_params": None
        if rec.best_params is None
        else json.dumps(rec.best_params, sort_keys=True),
        "box": None if rec.box is None else json.dumps(rec.box, sort_keys=True),
        "objective_value": _float(rec.objective_value),
        "test_error": _float(rec.test_error),
        "wall_s": _float(rec.wall_s),
        "cpu_s": _float(rec.cpu_s),
        "kernel_evals": _int(rec.kernel_evals),
        "iterations": _int(rec.iterations),
        "n_evaluations": _int(rec.n_evaluations),
        "stopped_by": rec.stopped_by,
        "n_train": _int(rec.n_train),
        "n_test": _int(rec.n_test),
        "host": rec.host,
        "started_at": rec.started_at,
        "finished_at": rec.finished_at,
    }


def _new_id(result: sa.CursorResult[Any]) -> int:
    key = result.inserted_primary_key
    if key is None:  # pragma: no cover - every dialect returns it for an autoincrement key
        raise RuntimeError("the database did not return the new row's id")
    return int(key[0])


def _trace_rows(cell_id: int, trace: pd.DataFrame) -> Iterable[dict[str, Any]]:
    if trace is None or len(trace) == 0:
        return
    pcols = [c for c in trace.columns if str(c).startswith("param_")]
    for rec in trace.to_dict("records"):
        params = {
            str(k)[len("param_") :]: float(rec[k])
            for k in pcols
            if rec[k] is not None and not math.isnan(float(rec[k]))
        }
        yield {
            "cell_id": cell_id,
            "eval": int(rec["eval"]),
            "params": json.dumps(params, sort_keys=True),
            "value": _float(rec.get("value")),
            "status": None if rec.get("status") is None else str(rec["status"]),
            "wall_s": _float(rec.get("wall_s")),
            "cpu_s": _float(rec.get("cpu_s")),
            "kernel_evals": _int(rec.get("kernel_evals")),
            "iterations": _int(rec.get("iterations")),
            "cum_wall_s": _float(rec.get("cum_wall_s")),
            "cum_cpu_s": _float(rec.get("cum_cpu_s")),
            "cum_kernel_evals": _int(rec.get("cum_kernel_evals")),
            "cum_iterations": _int(rec.get("cum_iterations")),
            "best_value": _float(rec.get("best_value")),
            "incumbent_test_error": _float(rec.get("incumbent_test_error")),
        }
