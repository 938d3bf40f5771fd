"""The records a study stores: a cell's key and what the cell produced.

The storage writes them and the cell runner makes them; both import them from here, so the
storage does not import the runner (with numpy, the tuners and the peers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

__all__ = ["CellKey", "CellRecord"]


@dataclass(frozen=True, order=True)
class CellKey:
    """The key of a cell: which data set, which split, which method."""

    dataset: str
    split: int
    method: str


@dataclass
class CellRecord:
    """What one cell produced (one row of the ``cells`` table plus its trace)."""

    key: CellKey
    status: str
    seed: int
    error: str | None = None
    best_params: dict[str, float] | None = None
    box: dict[str, list[float]] | None = None
    objective_value: float = math.nan
    test_error: float = math.nan
    wall_s: float = math.nan
    cpu_s: float = math.nan
    kernel_evals: int | None = None
    iterations: int | None = None
    n_evaluations: int | None = None
    stopped_by: str | None = None
    n_train: int | None = None
    n_test: int | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    host: str | None = None
    code: str | None = None
    trace: pd.DataFrame = field(default_factory=pd.DataFrame)
