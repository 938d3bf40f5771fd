"""Where a study keeps its results: a SQL database through SQLAlchemy (SQLite by default).

:class:`Storage` composes the parts, each in its own module: the tables and how a URL is opened
(:mod:`svmtune.study.store._schema`), the claim protocol that lets several processes share one study
(:mod:`svmtune.study.store._claims`), the merge of a stored study definition with a new one
(:mod:`svmtune.study.store._definition`, a pure function) and the conversion of stored rows to
DataFrames (:mod:`svmtune.study.store._frames`).

A SQLite database in WAL mode is the ``.db`` file together with its ``-wal`` and ``-shm`` files
while a run is live; each run checkpoints the log into the ``.db`` file when it ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import sqlalchemy as sa

from svmtune.study.store import _claims
from svmtune.study.store._claim_times import STALE_AFTER_S
from svmtune.study.store._definition import (
    DEFINITION_FORMAT,
    StudyChangedError,
    describe_changes,
    merge_definitions,
)
from svmtune.study.store._frames import (
    cell_values,
    cells_frame,
    cells_query,
    stored_json,
    trace_rows,
    traces_frame,
    traces_query,
)
from svmtune.study.store._records import CellKey, CellRecord
from svmtune.study.store._schema import (
    RUNNING,
    cells_table,
    checkpoint,
    create_tables,
    default_storage_url,
    driver_hint,
    open_engine,
    parse_url,
    studies_table,
    study_tables,
    traces_table,
    write_connection,
)

__all__ = ["Snapshot", "Storage", "StudyChangedError", "default_storage_url"]


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
        parsed = parse_url(self.url)
        self.display_url = parsed.render_as_string(hide_password=True)
        self.in_memory = parsed.get_backend_name() == "sqlite" and parsed.database in (
            None,
            "",
            ":memory:",
        )
        #: False for a read-only storage whose database has no study tables yet.
        self.has_tables = True
        try:
            #: ``empty_file``: the URL named an existing SQLite file of 0 bytes (SQLite makes it
            #: a new database).
            self.engine, self.empty_file = open_engine(self.url, parsed, read_only=read_only)
            self.has_tables = study_tables(self.engine)  # or a ValueError naming a lost table
            if not self.read_only:
                create_tables(self.engine, in_memory=self.in_memory)
                self.has_tables = True
        except (ImportError, sa.exc.NoSuchModuleError) as exc:
            raise ValueError(
                f"cannot open storage {self.display_url!r}: {driver_hint(parsed, exc)}"
            ) from exc
        except Exception as exc:
            raise ValueError(f"cannot open storage {self.display_url!r}: {exc}") from exc

    def __repr__(self) -> str:
        return f"Storage({self.display_url!r})"

    def close(self) -> None:
        """Release the connections (an in-memory database stays until the process ends).

        A SQLite file in WAL mode is checkpointed first, so that the ``.db`` file alone holds
        every stored cell once no run is live.
        """
        if self.in_memory:
            return
        checkpoint(self.engine)
        self.engine.dispose()

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
        return None if row is None else dict(stored_json(row[0], "study definition"))

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
        """Apply :func:`~svmtune.study.store._definition.merge_definitions`'s verdict in one write
        transaction: insert a new study, refuse a conflict or an unreplaced change, else delete
        the cells of the replaced methods and store the merged definition."""
        now = datetime.now(UTC)
        s = studies_table.c
        where = f"study {name!r} in {self.display_url}"
        with write_connection(self.engine) as conn, conn.begin():
            row = conn.execute(sa.select(s.id, s.seed, s.definition).where(s.name == name)).first()
            if row is None:
                stored = {**definition, "format": DEFINITION_FORMAT}
                res = conn.execute(
                    studies_table.insert().values(
                        name=name,
                        seed=int(seed),
                        definition=json.dumps(stored, default=str),
                        created_at=now,
                        updated_at=now,
                    )
                )
                return _new_id(res)
            verdict = merge_definitions(
                stored_json(row.definition, "study definition"),
                definition,
                stored_seed=int(row.seed),
                seed=seed,
            )
            if verdict.conflict is not None:
                raise StudyChangedError(
                    f"{where} {verdict.conflict}: give the study a new name or a new storage",
                    study=where,
                )
            if verdict.changed and not replace_changed:
                raise StudyChangedError(
                    f"{where} has cells of a different method under the same name "
                    f"({describe_changes(verdict.changed)}). Give the changed method a new name, "
                    "or replace its stored cells (replace_changed=True deletes them and runs them "
                    "again), or use a new storage",
                    study=where,
                    changed=verdict.changed,
                )
            c = cells_table.c
            for m in verdict.changed:
                ids = sa.select(c.id).where(c.study_id == row.id, c.method == m)
                conn.execute(traces_table.delete().where(traces_table.c.cell_id.in_(ids)))
                conn.execute(cells_table.delete().where(c.study_id == row.id, c.method == m))
            conn.execute(
                studies_table.update()
                .where(s.id == row.id)
                .values(definition=json.dumps(verdict.merged, default=str), updated_at=now)
            )
            return int(row.id)

    # -- cells -----------------------------------------------------------------------------
    def _keyed(self, study: str, *, running: bool, column: str) -> dict[CellKey, str]:
        """Key -> ``column`` of the cells of ``study`` that are running (or stored)."""
        sid = self.study_id(study)
        if sid is None:
            return {}
        c = cells_table.c
        status = c.status == RUNNING if running else c.status != RUNNING
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.dataset, c.split, c.method, c[column]).where(c.study_id == sid, status)
            )
            return {CellKey(r[0], int(r[1]), r[2]): str(r[3]) for r in rows}

    def finished(self, study: str) -> dict[CellKey, str]:
        """Key -> status of every stored (not running) cell of ``study``."""
        return self._keyed(study, running=False, column="status")

    def running(self, study: str) -> dict[CellKey, str]:
        """Key -> worker of every cell of ``study`` claimed and not finished yet."""
        return self._keyed(study, running=True, column="worker")

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
            if _claims.claim_is_stale(r, now, stale_after)
        }

    def claim(
        self,
        study_id: int,
        key: CellKey,
        worker: str,
        *,
        redo: Iterable[str] = (),
        stale_after: float = STALE_AFTER_S,
    ) -> bool:
        """Claim a cell for ``worker``; False if it is stored or another live worker has it.

        A cell is claimed if it has no row yet, if its stored status is in ``redo`` (e.g.
        failed cells to retry), or if its claim is stale (see :func:`_claims.claim`).
        """
        return _claims.claim(self.engine, study_id, key, worker, redo=redo, stale_after=stale_after)

    def heartbeat(self, worker: str) -> int:
        """Renew the heartbeat of every cell ``worker`` is running; the number renewed."""
        return _claims.renew(self.engine, worker)

    def release(self, worker: str) -> int:
        """Give up every cell ``worker`` still has running (an interrupted run); the number."""
        return _claims.release(self.engine, worker)

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
        values = cell_values(rec)
        with write_connection(self.engine) as conn, conn.begin():
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
            rows = list(trace_rows(cell_id, rec.trace))
            if rows:
                conn.execute(traces_table.insert(), rows)
        return True

    def cells(self, study: str | None = None) -> pd.DataFrame:
        """The stored cells (of one study, or all), one row each, ``best_params`` as dicts."""
        if not self.has_tables:
            return cells_frame([])
        with self.engine.connect() as conn:
            query = cells_query(study, self._columns(conn, "cells"))
            return cells_frame(conn.execute(query).mappings().all())

    def traces(self, study: str | None = None) -> pd.DataFrame:
        """Every stored evaluation, with the cell's key, ``param_<name>`` columns expanded."""
        if not self.has_tables:
            return traces_frame([])
        with self.engine.connect() as conn:
            query = traces_query(study, self._columns(conn, "traces"))
            return traces_frame(conn.execute(query).mappings().all())

    def _columns(self, conn: sa.Connection, table: str) -> set[str] | None:
        """A table's columns in a database opened read-only (it was not upgraded: an older one
        lacks the newer columns); None (all of them) otherwise."""
        if not self.read_only:
            return None
        return {c["name"] for c in sa.inspect(conn).get_columns(table)}

    def snapshot(self, study: str) -> Snapshot:
        """The stored cells, their traces and the running claims of ``study``, all read in one
        transaction (one consistent state of the database, even while workers write): a report
        of a study being worked on counts what was stored and what was running at one moment.
        """
        empty = Snapshot(cells_frame([]), traces_frame([]), {})
        if not self.has_tables:
            return empty
        c, s = cells_table.c, studies_table.c
        conn = self.engine.connect()
        if self.engine.dialect.name != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn, conn.begin():
            have_cells, have_traces = self._columns(conn, "cells"), self._columns(conn, "traces")
            cells = conn.execute(cells_query(study, have_cells)).mappings().all()
            traces = conn.execute(traces_query(study, have_traces)).mappings().all()
            running = conn.execute(
                sa.select(c.dataset, c.split, c.method, c.worker)
                .join_from(cells_table, studies_table, c.study_id == s.id)
                .where(s.name == study, c.status == RUNNING)
            ).all()
        return Snapshot(
            cells_frame(cells),
            traces_frame(traces),
            {CellKey(r.dataset, int(r.split), r.method): str(r.worker) for r in running},
        )


@dataclass(frozen=True)
class Snapshot:
    """What :meth:`Storage.snapshot` read: stored cells, their traces, running claims."""

    cells: pd.DataFrame
    traces: pd.DataFrame
    running: dict[CellKey, str]


def _new_id(result: sa.CursorResult[Any]) -> int:
    key = result.inserted_primary_key
    if key is None:  # pragma: no cover - every dialect returns it for an autoincrement key
        raise RuntimeError("the database did not return the new row's id")
    return int(key[0])
