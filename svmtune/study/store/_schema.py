"""The study database's schema and how it is opened: tables, SQLite set-up, servers, drivers.

Four tables: ``studies`` (name, seed, definition), ``cells`` (one row per cell, unique on
(study, dataset, split, method)), ``traces`` (every evaluation of a cell) and ``datasets`` (each
data set's fingerprint, :mod:`svmtune.study.store._data_prints`; added to an older database by
:func:`create_tables`, which creates the tables it lacks). A SQLite file is
opened in WAL mode, its write transactions begin with ``BEGIN IMMEDIATE``; a database server's
connections time out after :data:`CONNECT_TIMEOUT_S`. :class:`~svmtune.study.Storage` composes
this module with the claims (:mod:`svmtune.study.store._claims`), the definition merge
(:mod:`svmtune.study.store._definition`) and the DataFrame conversion
(:mod:`svmtune.study.store._frames`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

__all__ = [
    "CELL_COLUMNS",
    "RUNNING",
    "TRACE_EXTRA_COLUMNS",
    "cells_table",
    "checkpoint",
    "create_tables",
    "datasets_table",
    "default_storage_url",
    "driver_hint",
    "open_engine",
    "parse_url",
    "sqlite_file",
    "studies_table",
    "study_tables",
    "traces_table",
    "write_connection",
]

#: Status of a claimed cell that is being computed.
RUNNING = "running"

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
    # the code that computed the cell: svmtune's version (+ git commit), study/run/_code.py
    sa.Column("code", sa.String(100)),
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
    # what kind of evaluation the row is (NULL where the tuner does not say): the nested
    # search's level, the cascade's stage, successive halving's rung and subsample size, the
    # gradient tuners' gradient norm and incremental learning's working-set size
    sa.Column("level", sa.Integer),
    sa.Column("stage", sa.String(32)),
    sa.Column("rung", sa.Integer),
    sa.Column("n_samples", sa.BigInteger),
    sa.Column("grad_norm", sa.Float),
    sa.Column("working_set", sa.BigInteger),
    # exact leave-one-out's retrains certified by Franc's bound, and retrained under it
    sa.Column("certified", sa.BigInteger),
    sa.Column("under_franc", sa.BigInteger),
)

datasets_table = sa.Table(
    "datasets",
    _metadata,
    sa.Column(
        "study_id",
        sa.Integer,
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("fingerprint", sa.String(100), nullable=False),
    sa.Column("rows", sa.Integer),
    sa.Column("features", sa.Integer),
    sa.Column("labels", sa.Text),
    sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
)

#: Trace columns added after the first layout of the ``traces`` table, with their SQL types:
#: :func:`_upgrade_schema` adds them (NULL in the rows stored before) to an older database.
TRACE_EXTRA_COLUMNS = {
    "incumbent_test_error": "FLOAT",  # the anytime profiles
    "level": "INTEGER",  # the trace's kind of evaluation (multi-fidelity rows)
    "stage": "VARCHAR(32)",
    "rung": "INTEGER",
    "n_samples": "BIGINT",
    "grad_norm": "FLOAT",
    "working_set": "BIGINT",
    "certified": "BIGINT",  # Franc's Prec over a grid, from the stored evaluations
    "under_franc": "BIGINT",
}

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
    "code",
    "started_at",
    "finished_at",
)


#: One engine per in-memory URL for the life of the process (each engine would get its own).
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


def default_storage_url(study_name: str) -> str:
    """``sqlite:///results/<study>.db``, relative to the current directory."""
    return f"sqlite:///results/{study_name}.db"


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
    """Add the claim columns to a database written before workers could share it, the cells'
    ``box`` and ``code`` to one written before them, and the
    traces' :data:`TRACE_EXTRA_COLUMNS` to one written before them (nullable columns: the rows
    stored before read back as NULL/NaN there, and the database resumes as it was)."""
    have = {c["name"] for c in sa.inspect(engine).get_columns("cells")}
    with engine.begin() as conn:
        kinds = {
            "worker": "VARCHAR(200)",
            "heartbeat": "TIMESTAMP",
            "box": "TEXT",
            "code": "VARCHAR(100)",
        }
        for col, kind in kinds.items():
            if col not in have:
                conn.exec_driver_sql(f"ALTER TABLE cells ADD COLUMN {col} {kind}")
        traces = {c["name"] for c in sa.inspect(engine).get_columns("traces")}
        for col, kind in TRACE_EXTRA_COLUMNS.items():
            if col not in traces:
                conn.exec_driver_sql(f"ALTER TABLE traces ADD COLUMN {col} {kind}")


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


def driver_hint(parsed: Any, exc: BaseException) -> str:
    backend = parsed.get_backend_name()
    how = _DRIVERS.get(backend, f"install the Python driver SQLAlchemy uses for {backend!r}")
    return f"the database driver {parsed.drivername!r} is not installed ({exc}): {how}"


def parse_url(url: str) -> Any:
    """The parsed SQLAlchemy URL; ValueError naming ``url`` (and the SQLite spelling of a bare
    path) if it is not one."""
    try:
        return make_url(url)
    except Exception as exc:
        hint = ""
        if "://" not in url and url.strip():
            hint = f"; for a SQLite file write sqlite:///{url}"
        raise ValueError(f"cannot open storage {url!r}: not a database URL ({exc}){hint}") from exc


def open_engine(url: str, parsed: Any, *, read_only: bool) -> tuple[Engine, bool]:
    """The engine of a database URL, and whether it names an existing SQLite file of 0 bytes.

    An in-memory SQLite URL gets one engine per URL for the life of the process; a SQLite file
    its parent directory (unless ``read_only``), WAL mode and ``BEGIN IMMEDIATE`` writes; a
    server a connect timeout. A missing driver raises ImportError or SQLAlchemy's
    NoSuchModuleError (:func:`driver_hint` says what to install).
    """
    db = parsed.database
    if parsed.get_backend_name() == "sqlite" and db in (None, "", ":memory:"):
        if url not in _MEMORY_ENGINES:
            _MEMORY_ENGINES[url] = sa.create_engine(
                parsed,
                poolclass=sa.StaticPool,
                connect_args={"check_same_thread": False},  # joblib's threads claim
            )
        return _MEMORY_ENGINES[url], False
    if parsed.get_backend_name() == "sqlite":
        path = Path(str(db)).expanduser()
        if read_only:
            return _sqlite_read_only_engine(parsed, path), False
        _make_folder(path)
        empty_file = path.is_file() and path.stat().st_size == 0
        engine = sa.create_engine(parsed)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        sa.event.listen(engine, "begin", _sqlite_begin)
        return engine, empty_file
    return _server_engine(parsed), False


def _make_folder(path: Path) -> None:
    """Make the folder of a new SQLite file (``results/`` of the default storage) if its own
    parent exists; a URL naming a folder deeper than that is more likely a typo than a wish:
    refused, naming the folder that is missing."""
    folder = path.parent
    if folder.is_dir():
        return
    if not folder.parent.is_dir():
        raise ValueError(
            f"the folder {str(folder.parent)!r} does not exist (the SQLite file {str(path)!r} "
            "would be made in a folder inside it): create it first"
        )
    folder.mkdir(exist_ok=True)


def study_tables(engine: Engine) -> bool:
    """Whether the database holds the study tables: True if it has all three, False if none
    (a new database); a ValueError naming what is missing if it has only some (a damaged
    database, or one made by something else), instead of a report that leaves things out
    without saying so."""
    names = [t.name for t in (studies_table, cells_table, traces_table)]
    # the names in one query: one table at a time, a database that another process was
    # creating (the three tables in one transaction) could show some of them and not the others
    with engine.connect() as conn:
        present = set(sa.inspect(conn).get_table_names())
    have = [n for n in names if n in present]
    if not have:
        return False
    missing = [n for n in names if n not in have]
    if missing:
        raise ValueError(
            f"the study database has no {' or '.join(missing)} table (it has "
            f"{', '.join(have)}): it may be damaged: restore it from a copy or use a new storage"
        )
    return True


def write_connection(engine: Engine) -> Any:
    """A connection for a write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
    return engine.connect().execution_options(svmtune_write=True)


def create_tables(engine: Engine, *, in_memory: bool) -> None:
    """Create the tables unless they exist. Several workers may open a new database at once:
    on SQLite the check and the creation run in one write transaction (``BEGIN IMMEDIATE``
    serialises them); elsewhere a worker that loses the race retries and finds the tables."""
    for attempt in range(5):
        try:
            if engine.dialect.name == "sqlite" and not in_memory:
                with write_connection(engine) as conn, conn.begin():
                    _metadata.create_all(conn)
            else:
                _metadata.create_all(engine)
            _upgrade_schema(engine)
            return
        except sa.exc.DBAPIError:
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


def checkpoint(engine: Engine) -> None:
    """Fold a SQLite file's WAL log into the ``.db`` file (nothing elsewhere)."""
    if engine.dialect.name == "sqlite":
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception:  # pragma: no cover - another process holds the log; it checkpoints
            pass
