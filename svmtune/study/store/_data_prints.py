"""Stored cells tied to their data: each data set's fingerprint, stored with the study.

The ``datasets`` table (:data:`~svmtune.study.store._schema.datasets_table`) holds one row per
(study, data set): the fingerprint of the loaded arrays and label mapping
(:func:`svmtune.datasets.fingerprint`), the shape and the mapping in words. A run checks its
data against it before any cell runs, in one write transaction: a data set seen for the first
time is recorded, the same data passes, other data under the same name is refused
(:class:`DataChangedError`), unless the run was asked to start that data set afresh (its cells,
their traces and its fingerprint are deleted first). Two writers that record the same new data
set at once both pass: the one that loses the insert reads the winner's row and compares.

A database written before fingerprints were stored has cells and no row here: the first run
records the data it has (nothing could be compared).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from svmtune.study.store._schema import (
    cells_table,
    datasets_table,
    traces_table,
    write_connection,
)

if TYPE_CHECKING:
    from svmtune.study.store._storage import Storage

__all__ = ["DataChangedError", "DataPrint", "check_data", "forget_data", "register_with_data"]


@dataclass(frozen=True)
class DataPrint:
    """What a run knows of one data set: its fingerprint, shape and label mapping in words."""

    fingerprint: str
    rows: int
    features: int
    labels: str = ""

    def shown(self) -> str:
        labels = f", labels {self.labels}" if self.labels else ""
        return f"{self.rows} rows x {self.features} features{labels}"


class DataChangedError(ValueError):
    """A data set reads differently from the data its stored cells were computed on.

    Attributes
    ----------
    datasets : tuple of str
        The data sets that changed.
    """

    def __init__(self, message: str, *, datasets: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.datasets = datasets


def forget_data(conn: sa.Connection, study_id: int, dataset: str) -> int:
    """Delete a data set's stored cells (traces included) and fingerprint; the cells deleted."""
    c = cells_table.c
    ids = sa.select(c.id).where(c.study_id == study_id, c.dataset == dataset)
    conn.execute(traces_table.delete().where(traces_table.c.cell_id.in_(ids)))
    n = conn.execute(cells_table.delete().where(c.study_id == study_id, c.dataset == dataset))
    d = datasets_table.c
    conn.execute(datasets_table.delete().where(d.study_id == study_id, d.name == dataset))
    return int(n.rowcount or 0)


def _stored_cells(conn: sa.Connection, study_id: int, dataset: str) -> int:
    c = cells_table.c
    query = sa.select(sa.func.count()).where(c.study_id == study_id, c.dataset == dataset)
    return int(conn.execute(query).scalar_one())


def check_data(
    engine: Engine,
    study_id: int,
    prints: Mapping[str, DataPrint],
    *,
    rerun: Collection[str] = (),
    where: str,
) -> dict[str, int]:
    """Record or compare each data set's print; delete the ``rerun`` data sets' cells first.

    Returns the number of cells deleted per ``rerun`` data set. Raises
    :class:`DataChangedError` (nothing deleted, nothing recorded) naming every data set whose
    stored fingerprint differs, and what to do.
    """
    for attempt in range(5):
        try:
            return _check_once(engine, study_id, prints, rerun, where)
        except sa.exc.IntegrityError:  # another writer recorded the same data set meanwhile
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise RuntimeError("unreachable")  # pragma: no cover


def register_with_data(
    store: Storage,
    name: str,
    prints: Mapping[str, DataPrint],
    rerun: Collection[str],
    register: Callable[[], int],
) -> int:
    """Register the study (``register()``, its id) tied to its data: a stored study's data is
    checked (changed data refused, ``rerun`` data sets deleted) before its definition is
    touched, and every data set's print is recorded once the study exists."""
    where = f"study {name!r} in {store.display_url}"
    known = store.study_id(name)
    if known is not None:
        check_data(store.engine, known, prints, rerun=rerun, where=where)
    study_id = register()
    check_data(store.engine, study_id, prints, rerun=() if known else rerun, where=where)
    return study_id


def _check_once(
    engine: Engine,
    study_id: int,
    prints: Mapping[str, DataPrint],
    rerun: Collection[str],
    where: str,
) -> dict[str, int]:
    d = datasets_table.c
    with write_connection(engine) as conn, conn.begin():
        deleted = {name: forget_data(conn, study_id, name) for name in rerun}
        stored = {
            r.name: r
            for r in conn.execute(
                sa.select(d.name, d.fingerprint, d.rows, d.features, d.labels).where(
                    d.study_id == study_id
                )
            )
        }
        changed = [
            n for n, p in prints.items() if n in stored and stored[n].fingerprint != p.fingerprint
        ]
        if changed:
            raise _refusal(conn, study_id, changed, stored, prints, where)
        now = datetime.now(UTC)
        new = [
            {
                "study_id": study_id,
                "name": name,
                "fingerprint": p.fingerprint,
                "rows": int(p.rows),
                "features": int(p.features),
                "labels": p.labels,
                "stored_at": now,
            }
            for name, p in prints.items()
            if name not in stored
        ]
        if new:
            conn.execute(datasets_table.insert(), new)
    return deleted


def _refusal(
    conn: sa.Connection,
    study_id: int,
    changed: list[str],
    stored: Mapping[str, sa.Row],
    prints: Mapping[str, DataPrint],
    where: str,
) -> DataChangedError:
    parts = []
    for name in changed:
        old = DataPrint(
            stored[name].fingerprint,
            stored[name].rows,
            stored[name].features,
            stored[name].labels or "",
        )
        new = prints[name]
        same = " (same shape, other values)" if old.shown() == new.shown() else ""
        parts.append(
            f"data set {name!r} is not the data its {_stored_cells(conn, study_id, name)} stored "
            f"cells were computed on: stored {old.shown()}; now {new.shown()}{same}"
        )
    names = " ".join(f"--rerun {n}" for n in changed)
    return DataChangedError(
        f"{where}: {'; '.join(parts)}. Start it afresh (svmtune run STUDY_FILE {names}, or "
        f"Study.run(rerun={changed!r}), deletes its stored cells), give the data set a new "
        "name, or use another storage",
        datasets=tuple(changed),
    )
