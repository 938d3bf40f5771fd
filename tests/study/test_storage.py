"""Storage: one transaction per cell, round trips, uniqueness."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pandas as pd
import pytest

from svmtune.study import CellKey, CellRecord, Storage


def record(split: int = 0, **kw) -> CellRecord:
    trace = pd.DataFrame(
        {
            "eval": [0, 1],
            "param_C": [1.0, 10.0],
            "param_gamma": [0.5, 0.25],
            "value": [float("nan"), 0.2],
            "status": ["failed", "ok"],
            "wall_s": [0.1, 0.2],
            "cpu_s": [0.1, 0.2],
            "kernel_evals": [100, 100],
            "iterations": [5, 7],
            "cum_wall_s": [0.1, 0.3],
            "cum_cpu_s": [0.1, 0.3],
            "cum_kernel_evals": [100, 200],
            "cum_iterations": [5, 12],
            "best_value": [math.inf, 0.2],
        }
    )
    opts = dict(
        key=CellKey("d", split, "m"),
        status="ok",
        seed=123,
        best_params={"C": 10.0, "gamma": 0.25},
        objective_value=0.2,
        test_error=0.25,
        wall_s=0.3,
        cpu_s=0.3,
        kernel_evals=200,
        iterations=12,
        n_evaluations=2,
        stopped_by="converged",
        n_train=70,
        n_test=30,
        started_at=datetime(2024, 1, 1, tzinfo=UTC),
        finished_at=datetime(2024, 1, 1, 0, 0, 1, tzinfo=UTC),
        trace=trace,
    )
    opts.update(kw)
    return CellRecord(**opts)


@pytest.fixture
def store(tmp_path):
    s = Storage(f"sqlite:///{tmp_path / 'sub' / 's.db'}")  # the file's folder is created
    yield s
    s.close()


def test_a_cell_round_trips(store):
    sid = store.register_study("st", 0, {"split": "fischetti"})
    assert store.write_cell(sid, record())
    cells = store.cells("st")
    assert len(cells) == 1
    row = cells.iloc[0]
    assert (row["dataset"], row["split"], row["method"], row["status"]) == ("d", 0, "m", "ok")
    assert row["best_params"] == {"C": 10.0, "gamma": 0.25}
    assert (row["objective_value"], row["test_error"], row["kernel_evals"]) == (0.2, 0.25, 200)
    tr = store.traces("st")
    assert tr["param_C"].tolist() == [1.0, 10.0] and tr["param_gamma"].tolist() == [0.5, 0.25]
    assert math.isnan(tr["value"].iloc[0]) and tr["value"].iloc[1] == 0.2
    assert tr["best_value"].tolist() == [math.inf, 0.2]
    assert tr["status"].tolist() == ["failed", "ok"]
    assert store.finished("st") == {CellKey("d", 0, "m"): "ok"}


def test_a_cell_is_written_once(store):
    sid = store.register_study("st", 0, {})
    assert store.write_cell(sid, record())
    assert not store.write_cell(sid, record(test_error=0.5))
    assert store.cells("st")["test_error"].tolist() == [0.25]
    assert store.write_cell(sid, record(test_error=0.5), replace=True)
    assert store.cells("st")["test_error"].tolist() == [0.5]
    assert len(store.traces("st")) == 2  # the old trace went with the old row


def test_a_failed_cell_has_nan_values_and_no_trace(store):
    sid = store.register_study("st", 0, {})
    failed = CellRecord(key=CellKey("d", 1, "m"), status="failed", seed=1, error="boom")
    store.write_cell(sid, failed)
    row = store.cells("st").iloc[0]
    assert row["status"] == "failed" and row["error"] == "boom"
    assert math.isnan(row["test_error"]) and row["best_params"] is None
    assert store.traces("st").empty


def test_studies_share_a_database(store):
    a = store.register_study("a", 0, {})
    b = store.register_study("b", 0, {})
    store.write_cell(a, record())
    store.write_cell(b, record(split=3))
    assert store.study_names() == ["a", "b"]
    assert store.cells("b")["split"].tolist() == [3]
    assert len(store.cells()) == 2
    assert store.register_study("a", 0, {"new": 1}) == a
    assert store.study_definition("a")["new"] == 1


def test_empty_frames_have_the_columns(store):
    assert {"dataset", "split", "method", "status", "test_error"} <= set(store.cells("x").columns)
    assert {"dataset", "split", "method", "best_value"} <= set(store.traces("x").columns)


def test_sqlite_uses_wal(store):
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
