"""Reading a study's stored results back: its database, cells, traces, summary and verdict
(the part of :class:`~svmtune.study.Study` that runs nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from svmtune.study.store._frames import empty_cells, empty_traces, only_cells
from svmtune.study.store._results import SummaryTable, summary_table
from svmtune.study.store._schema import default_storage_url, sqlite_file
from svmtune.study.store._storage import Storage
from svmtune.study.verdict._compare import Comparison, compare

if TYPE_CHECKING:
    from svmtune.study.store._records import CellKey

__all__ = ["StudyResults"]


class StudyResults:
    """The results side of a study: where they are stored and how they are read back."""

    name: str
    storage: str | None
    methods: Mapping[str, Any]

    if TYPE_CHECKING:

        def cell_keys(self) -> list[CellKey]: ...

    def storage_url(self, storage: str | None = None) -> str:
        """The database URL in use: ``storage``, else the last run's (``storage_``), else the
        study's ``storage``, else the default ``sqlite:///results/<name>.db``."""
        return (
            storage
            or getattr(self, "storage_", None)
            or self.storage
            or default_storage_url(self.name)
        )

    def open_storage(self, storage: str | None = None) -> Storage:
        return Storage(self.storage_url(storage))

    def results(self, *, storage: str | None = None) -> pd.DataFrame:
        """The stored cells of this study's definition, one row each (see :class:`Storage`).

        The database is opened read-only; a SQLite file that does not exist yet has no cells.
        """
        store = self._read_storage(storage)
        if store is None:
            return self.select(empty_cells())
        try:
            df = store.cells(self.name)
        finally:
            store.close()
        return self.select(df)

    def traces(self, *, storage: str | None = None) -> pd.DataFrame:
        """Every evaluation of every stored cell, with the cell's key."""
        store = self._read_storage(storage)
        if store is None:
            return self.select(empty_traces())
        try:
            df = store.traces(self.name)
        finally:
            store.close()
        return self.select(df)

    def select(self, df: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``df`` (cells or traces) whose (dataset, split, method) is a cell of
        this study's definition."""
        keys = {(k.dataset, k.split, k.method) for k in self.cell_keys()}
        return only_cells(df, keys)

    def compare(
        self,
        *,
        baseline: str | None = None,
        cost: str = "cpu_s",
        missing: str = "drop",
        alpha: float = 0.05,
        storage: str | None = None,
    ) -> Comparison:
        """The verdict across data sets: average ranks, Friedman, Nemenyi and Wilcoxon-Holm
        tests, wins/ties/losses against ``baseline``, normalized scores
        (:func:`~svmtune.study.compare` on :meth:`results`; the options are its own).

        Examples
        --------
        >>> study.compare(baseline="SVM 5-fold CV+grid").ranks  # doctest: +SKIP
        """
        return compare(
            self.results(storage=storage),
            methods=list(self.methods),
            baseline=baseline,
            cost=cost,
            missing=missing,
            alpha=alpha,
        )

    def _read_storage(self, storage: str | None) -> Storage | None:
        """The database opened read-only; None for a SQLite file that does not exist yet."""
        url = self.storage_url(storage)
        path = sqlite_file(url)
        if path is not None and not path.is_file():
            return None
        return Storage(url, read_only=True)

    def summary(self, *, storage: str | None = None) -> SummaryTable:
        """The papers' table: mean and sd per data set x method, averages, estimate error.

        A DataFrame (:func:`~svmtune.study.summary_table`) that prints one readable block per
        method and the averages (:func:`~svmtune.study.format_summary`); for a tidy table use
        :func:`~svmtune.study.summary_long` on :meth:`results`.
        """
        table = summary_table(self.results(storage=storage), methods=list(self.methods))
        return SummaryTable(table)
