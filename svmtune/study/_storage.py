"""Where a study keeps its results: a SQL database through SQLAlchemy (SQLite by default).

Three tables: ``studies`` (name, seed, definition), ``cells`` (one row per finished cell, unique
on (study, dataset, split, method)) and ``traces`` (every evaluation of a cell). Each finished cell
is written with its trace in one transaction, by the process that runs the study (workers never
write), so a killed study loses at most the cells that were still running.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from svmtune.study._cell import CellKey, CellRecord

__all__ = ["Storage", "default_storage_url"]

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
    "n_train",
    "n_test",
    "seed",
    "error",
    "host",
    "started_at",
    "finished_at",
)


_MEMORY_ENGINES: dict[str, Engine] = {}


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
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    try:
        cur.execute("PRAGMA journal_mode=WAL")
    except Exception:  # pragma: no cover - e.g. a read-only or network file system
        pass
    cur.close()


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
    >>> s = Storage("sqlite://")  # in memory
    >>> s.study_names()
    []
    """

    def __init__(self, url: str) -> None:
        self.url = str(url)
        try:
            parsed = make_url(self.url)
        except Exception as exc:
            raise ValueError(
                f"cannot open storage {self.url!r}: not a database URL ({exc})"
            ) from exc
        self.display_url = parsed.render_as_string(hide_password=True)
        db = parsed.database
        self.in_memory = parsed.get_backend_name() == "sqlite" and db in (None, "", ":memory:")
        try:
            if self.in_memory:
                # one database per URL for the life of the process (each engine would get its own)
                if self.url not in _MEMORY_ENGINES:
                    _MEMORY_ENGINES[self.url] = sa.create_engine(parsed, poolclass=sa.StaticPool)
                self.engine: Engine = _MEMORY_ENGINES[self.url]
            else:
                if parsed.get_backend_name() == "sqlite":
                    Path(str(db)).expanduser().parent.mkdir(parents=True, exist_ok=True)
                self.engine = sa.create_engine(parsed)
                if self.engine.dialect.name == "sqlite":
                    sa.event.listen(self.engine, "connect", _sqlite_pragmas)
            _metadata.create_all(self.engine)
        except Exception as exc:
            raise ValueError(f"cannot open storage {self.display_url!r}: {exc}") from exc

    def __repr__(self) -> str:
        return f"Storage({self.display_url!r})"

    def close(self) -> None:
        """Release the connections (an in-memory database stays until the process ends)."""
        if not self.in_memory:
            self.engine.dispose()

    # -- studies ----------------------------------------------------------------------------
    def study_names(self) -> list[str]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(studies_table.c.name).order_by(studies_table.c.id))
            return [r[0] for r in rows]

    def study_id(self, name: str) -> int | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(studies_table.c.id).where(studies_table.c.name == name)
            ).first()
        return None if row is None else int(row[0])

    def study_definition(self, name: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(studies_table.c.definition).where(studies_table.c.name == name)
            ).first()
        return None if row is None else dict(json.loads(row[0]))

    def register_study(self, name: str, seed: int, definition: dict[str, Any]) -> int:
        """Create the study, or check that the stored one has the same seed and split protocol.

        The stored definition is updated (new data sets, splits or methods add cells).
        """
        now = datetime.now(UTC)
        text = json.dumps(definition, default=str)  # keeps the order of the methods
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(
                    studies_table.c.id, studies_table.c.seed, studies_table.c.definition
                ).where(studies_table.c.name == name)
            ).first()
            if row is None:
                res = conn.execute(
                    studies_table.insert().values(
                        name=name, seed=int(seed), definition=text, created_at=now, updated_at=now
                    )
                )
                return _new_id(res)
            old = json.loads(row.definition)
            if int(row.seed) != int(seed):
                raise ValueError(
                    f"study {name!r} in {self.display_url} was run with seed {row.seed}; this "
                    f"definition has seed {seed}: give the study a new name or a new storage"
                )
            for k in ("split", "test_size"):
                if k in old and old[k] != definition.get(k):
                    raise ValueError(
                        f"study {name!r} in {self.display_url} was run with {k}={old[k]!r}; this "
                        f"definition has {k}={definition.get(k)!r}: give the study a new name or "
                        "a new storage"
                    )
            conn.execute(
                studies_table.update()
                .where(studies_table.c.id == row.id)
                .values(definition=text, updated_at=now)
            )
            return int(row.id)

    # -- cells -----------------------------------------------------------------------------
    def finished(self, study: str) -> dict[CellKey, str]:
        """Key -> status of every stored cell of ``study``."""
        sid = self.study_id(study)
        if sid is None:
            return {}
        c = cells_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.status).where(c.study_id == sid)
            )
            return {CellKey(r.dataset, int(r.split), r.method): r.status for r in rows}

    def write_cell(self, study_id: int, rec: CellRecord, *, replace: bool = False) -> bool:
        """Write one finished cell and its trace in one transaction.

        Returns False (and writes nothing) if the cell is stored already, unless ``replace``.
        """
        c = cells_table.c
        key = rec.key
        with self.engine.begin() as conn:
            old = conn.execute(
                sa.select(c.id).where(
                    c.study_id == study_id,
                    c.dataset == key.dataset,
                    c.split == key.split,
                    c.method == key.method,
                )
            ).first()
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
                    status=rec.status,
                    error=rec.error,
                    seed=int(rec.seed),
                    best_params=None
                    if rec.best_params is None
                    else json.dumps(rec.best_params, sort_keys=True),
                    objective_value=_float(rec.objective_value),
                    test_error=_float(rec.test_error),
                    wall_s=_float(rec.wall_s),
                    cpu_s=_float(rec.cpu_s),
                    kernel_evals=_int(rec.kernel_evals),
                    iterations=_int(rec.iterations),
                    n_evaluations=_int(rec.n_evaluations),
                    stopped_by=rec.stopped_by,
                    n_train=_int(rec.n_train),
                    n_test=_int(rec.n_test),
                    host=rec.host,
                    started_at=rec.started_at,
                    finished_at=rec.finished_at,
                )
            )
            cell_id = _new_id(res)
            rows = list(_trace_rows(cell_id, rec.trace))
            if rows:
                conn.execute(traces_table.insert(), rows)
        return True

    def cells(self, study: str | None = None) -> pd.DataFrame:
        """The stored cells (of one study, or all), one row each, ``best_params`` as dicts."""
        c, s = cells_table.c, studies_table.c
        query = (
            sa.select(s.name.label("study"), *(getattr(c, n) for n in CELL_COLUMNS))
            .join_from(cells_table, studies_table, c.study_id == s.id)
            .order_by(s.name, c.dataset, c.split, c.method)
        )
        if study is not None:
            query = query.where(s.name == study)
        with self.engine.connect() as conn:
            df = pd.DataFrame(conn.execute(query).mappings().all())
        if df.empty:
            df = pd.DataFrame(columns=["study", *CELL_COLUMNS])
        df["best_params"] = [
            None if v is None or (isinstance(v, float) and math.isnan(v)) else json.loads(v)
            for v in df["best_params"]
        ]
        for col in ("objective_value", "test_error", "wall_s", "cpu_s"):
            df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
        df["split"] = df["split"].astype(int)
        return df.reset_index(drop=True)

    def traces(self, study: str | None = None) -> pd.DataFrame:
        """Every stored evaluation, with the cell's key, ``param_<name>`` columns expanded."""
        t, c, s = traces_table.c, cells_table.c, studies_table.c
        cols = [col for col in traces_table.columns if col.name not in ("cell_id",)]
        query = (
            sa.select(s.name.label("study"), c.dataset, c.split, c.method, *cols)
            .join_from(traces_table, cells_table, t.cell_id == c.id)
            .join(studies_table, c.study_id == s.id)
            .order_by(s.name, c.dataset, c.split, c.method, t.eval)
        )
        if study is not None:
            query = query.where(s.name == study)
        with self.engine.connect() as conn:
            df = pd.DataFrame(conn.execute(query).mappings().all())
        base = ["study", "dataset", "split", "method"]
        if df.empty:
            return pd.DataFrame(columns=[*base, *(col.name for col in cols)])
        params = pd.DataFrame([json.loads(p) for p in df.pop("params")], index=df.index)
        params.columns = [f"param_{n}" for n in params.columns]
        df = pd.concat([df, params], axis=1)
        for col in ("value", "best_value", "wall_s", "cpu_s", "cum_wall_s", "cum_cpu_s"):
            df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
        return df


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
        }
