"""Stored rows <-> DataFrames: the queries that read cells and traces, and their conversion.

NaN is written as NULL (databases disagree on NaN) and read back as NaN; ``best_params`` and
``box`` are JSON objects in the database and dicts in a frame; a trace's ``param_<name>``
columns are one JSON object per row in the database.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import sqlalchemy as sa

from svmtune.study.store._records import CellRecord
from svmtune.study.store._schema import (
    CELL_COLUMNS,
    RUNNING,
    cells_table,
    studies_table,
    traces_table,
)

__all__ = [
    "cell_values",
    "cells_frame",
    "cells_query",
    "empty_cells",
    "empty_traces",
    "only_cells",
    "trace_rows",
    "traces_frame",
    "traces_query",
]


def only_cells(df: pd.DataFrame, keys: set[tuple[str, int, str]]) -> pd.DataFrame:
    """The rows of ``df`` whose (dataset, split, method) is in ``keys``."""
    mask = np.array(
        [
            (d, int(s), m) in keys
            for d, s, m in zip(df["dataset"], df["split"], df["method"], strict=True)
        ],
        dtype=bool,
    )
    return df.loc[mask].reset_index(drop=True)


def empty_cells() -> pd.DataFrame:
    """A cells table with no row (what :meth:`Storage.cells` returns for a new study)."""
    return cells_frame([])


def empty_traces() -> pd.DataFrame:
    """A traces table with no row."""
    return traces_frame([])


def as_float(v: Any) -> float | None:
    """NaN -> NULL (databases disagree on NaN); other floats as they are."""
    if v is None:
        return None
    f = float(v)
    return None if math.isnan(f) else f


def as_int(v: Any) -> int | None:
    if v is None:
        return None
    try:
        if math.isnan(float(v)):
            return None
    except (TypeError, ValueError):
        return None
    return int(v)


def cells_query(study: str | None, have: set[str] | None = None) -> Any:
    """The stored cells of ``study`` (or all). ``have``: the columns the database's cells table
    has (default: all); a missing one (a database written before it, opened read-only) reads
    as NULL."""
    c, s = cells_table.c, studies_table.c
    columns = [
        getattr(c, n) if have is None or n in have else sa.null().label(n) for n in CELL_COLUMNS
    ]
    query = (
        sa.select(s.name.label("study"), *columns)
        .join_from(cells_table, studies_table, c.study_id == s.id)
        .order_by(s.name, c.dataset, c.split, c.method)
    )
    query = query.where(c.status != RUNNING)
    if study is not None:
        query = query.where(s.name == study)
    return query


def stored_json(text: Any, what: str) -> Any:
    """The value of a JSON column read back; a ValueError saying the database is damaged (and
    what to do) if it is not JSON, instead of the decoder's bare "Expecting value".

    Examples
    --------
    >>> stored_json('{"C": 1.0}', "best_params")
    {'C': 1.0}
    >>> stored_json("{x", "best_params")
    Traceback (most recent call last):
    ...
    ValueError: the study database cannot be read: a stored best_params is not JSON ...
    """
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"the study database cannot be read: a stored {what} is not JSON ({exc}: "
            f"{str(text)[:40]!r}); the file may be damaged: restore it from a copy or use a new "
            "storage"
        ) from None


def cells_frame(rows: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if df.empty:
        df = pd.DataFrame(columns=["study", *CELL_COLUMNS])
    for col in ("best_params", "box"):
        df[col] = [
            None if v is None or (isinstance(v, float) and math.isnan(v)) else stored_json(v, col)
            for v in df[col]
        ]
    for col in ("objective_value", "test_error", "wall_s", "cpu_s"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    df["split"] = df["split"].astype(int)
    return df.reset_index(drop=True)


TRACE_COLUMNS = [col for col in traces_table.columns if col.name not in ("cell_id",)]


def traces_query(study: str | None, have: set[str] | None = None) -> Any:
    """The stored traces (of one study, or all) with their cells' keys and ``n_train``.

    ``have``: the columns the database's traces table has (default: all); a missing one (a
    database written before it, opened read-only so not upgraded) is read as NULL.
    """
    t, c, s = traces_table.c, cells_table.c, studies_table.c
    columns = [
        col if have is None or col.name in have else sa.null().label(col.name)
        for col in TRACE_COLUMNS
    ]
    query = (
        sa.select(s.name.label("study"), c.dataset, c.split, c.method, c.n_train, *columns)
        .join_from(traces_table, cells_table, t.cell_id == c.id)
        .join(studies_table, c.study_id == s.id)
        .order_by(s.name, c.dataset, c.split, c.method, t.eval)
    )
    if study is not None:
        query = query.where(s.name == study)
    return query


def traces_frame(rows: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    base = ["study", "dataset", "split", "method", "n_train"]
    if df.empty:
        return pd.DataFrame(columns=[*base, *(col.name for col in TRACE_COLUMNS)])
    params = pd.DataFrame(
        [stored_json(p, "trace params") for p in df.pop("params")], index=df.index
    )
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
        "grad_norm",
    ):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    # integer columns, float with NaN where NULL (rows of another tuner, or stored before the
    # column existed), as in a tuner's own trace
    for col in ("n_train", "level", "rung", "n_samples", "working_set", "certified", "under_franc"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


def cell_values(rec: CellRecord) -> dict[str, Any]:
    return {
        "status": rec.status,
        "error": rec.error,
        "seed": int(rec.seed),
        "best_params": None
        if rec.best_params is None
        else json.dumps(rec.best_params, sort_keys=True),
        "box": None if rec.box is None else json.dumps(rec.box, sort_keys=True),
        "objective_value": as_float(rec.objective_value),
        "test_error": as_float(rec.test_error),
        "wall_s": as_float(rec.wall_s),
        "cpu_s": as_float(rec.cpu_s),
        "kernel_evals": as_int(rec.kernel_evals),
        "iterations": as_int(rec.iterations),
        "n_evaluations": as_int(rec.n_evaluations),
        "stopped_by": rec.stopped_by,
        "n_train": as_int(rec.n_train),
        "n_test": as_int(rec.n_test),
        "host": rec.host,
        "code": rec.code,
        "started_at": rec.started_at,
        "finished_at": rec.finished_at,
    }


def trace_rows(cell_id: int, trace: pd.DataFrame) -> Iterable[dict[str, Any]]:
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
            "value": as_float(rec.get("value")),
            "status": None if rec.get("status") is None else str(rec["status"]),
            "wall_s": as_float(rec.get("wall_s")),
            "cpu_s": as_float(rec.get("cpu_s")),
            "kernel_evals": as_int(rec.get("kernel_evals")),
            "iterations": as_int(rec.get("iterations")),
            "cum_wall_s": as_float(rec.get("cum_wall_s")),
            "cum_cpu_s": as_float(rec.get("cum_cpu_s")),
            "cum_kernel_evals": as_int(rec.get("cum_kernel_evals")),
            "cum_iterations": as_int(rec.get("cum_iterations")),
            "best_value": as_float(rec.get("best_value")),
            "incumbent_test_error": as_float(rec.get("incumbent_test_error")),
            "level": as_int(rec.get("level")),
            "stage": None if _missing(rec.get("stage")) else str(rec["stage"]),
            "rung": as_int(rec.get("rung")),
            "n_samples": as_int(rec.get("n_samples")),
            "grad_norm": as_float(rec.get("grad_norm")),
            "working_set": as_int(rec.get("working_set")),
            "certified": as_int(rec.get("certified")),
            "under_franc": as_int(rec.get("under_franc")),
        }


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))
