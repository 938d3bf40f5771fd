"""Study: cells, seeds, resume, failures, time limits, n_jobs independence."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import svmtune
from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import CellKey, Method, Storage, Study, cell_seed, split_seed
from svmtune.tuners import Bisection, Grid

from ._toys import Sleepy, blobs, halves, one_class, stable

LOO2_BISECTION = Method(LOOEstimate(model="loo2"), Bisection(), RBF())
LOO3_BISECTION = Method(LOOEstimate(model="loo3"), Bisection(), RBF())
LOO2_GRID = Method(LOOEstimate(model="loo2"), Grid(n_points=5), RBF())


def heart_study(url: str, **kw) -> Study:
    opts = dict(
        datasets=["heart"],
        split="fischetti",
        n_splits=2,
        seed=7,
        methods={"LOO2+bisection": LOO2_BISECTION, "LOO2+grid": LOO2_GRID},
        storage=url,
    )
    opts.update(kw)
    return Study("heart-study", **opts)


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path / 'study.db'}"


def test_run_stores_every_cell_once_with_its_trace(url):
    study = heart_study(url).run()
    res = study.results()
    assert len(res) == 4
    assert set(zip(res["split"], res["method"], strict=True)) == {
        (0, "LOO2+bisection"),
        (0, "LOO2+grid"),
        (1, "LOO2+bisection"),
        (1, "LOO2+grid"),
    }
    assert (res["status"] == "ok").all()
    assert res["test_error"].between(0, 1).all() and res["objective_value"].between(0, 1).all()
    assert (res["n_evaluations"][res["method"] == "LOO2+grid"] == 5).all()
    assert (res["n_train"] + res["n_test"] == 270).all()
    traces = study.traces()
    per_cell = traces.groupby(["split", "method"]).size()
    assert per_cell.sort_index().tolist() == (
        res.set_index(["split", "method"])["n_evaluations"].sort_index().tolist()
    )
    # the last best-so-far value of a trace is the cell's objective value
    last = traces.groupby(["split", "method"])["best_value"].last()
    assert np.allclose(
        last.sort_index(), res.set_index(["split", "method"]).sort_index()["objective_value"]
    )


def test_a_cell_is_what_tuning_by_hand_gives(url):
    """Split seed shared by the methods, tuner seed per cell, test error of the tuned classifier."""
    res = heart_study(url).run().results()
    row = res[(res["split"] == 1) & (res["method"] == "LOO2+bisection")].iloc[0]
    Xtr, ytr, Xte, yte = fischetti_split(*load("heart"), split_seed(7, "heart", 1))
    tuned = Bisection().tune(
        LOOEstimate(model="loo2"), Xtr, ytr, kernel=RBF(), random_state=row["seed"]
    )
    assert row["seed"] == cell_seed(7, "heart", 1, "LOO2+bisection")
    assert row["best_params"] == pytest.approx(tuned.best_params)
    assert row["objective_value"] == tuned.best_value
    assert row["test_error"] == tuned.best_classifier.error(Xte, yte)
    assert row["kernel_evals"] == tuned.total_cost.kernel_evals
    assert row["n_train"] == len(ytr)


def test_seeds_depend_only_on_the_cell_key():
    assert cell_seed(0, "heart", 0, "a") == cell_seed(0, "heart", 0, "a")
    seeds = {cell_seed(0, d, s, m) for d in ("heart", "sonar") for s in range(3) for m in "ab"}
    assert len(seeds) == 12
    assert cell_seed(1, "heart", 0, "a") != cell_seed(0, "heart", 0, "a")
    assert split_seed(0, "heart", 0) == split_seed(0, "heart", 0) != split_seed(0, "sonar", 0)


def test_a_cell_does_not_depend_on_the_other_cells(tmp_path):
    """Dropping a method or a data set leaves the other cells' values unchanged."""
    big = Study(
        "big",
        datasets={"blobs": blobs, "heart": "heart"},
        split="fischetti",
        n_splits=2,
        methods={"LOO3+bisection": LOO3_BISECTION, "LOO2+grid": LOO2_GRID},
        storage=f"sqlite:///{tmp_path / 'a.db'}",
    ).run()
    small = Study(
        "small",
        datasets={"heart": "heart"},
        split="fischetti",
        n_splits=2,
        methods={"LOO2+grid": LOO2_GRID},
        storage=f"sqlite:///{tmp_path / 'b.db'}",
    ).run()
    a = stable(big.results())
    a = a[(a["dataset"] == "heart") & (a["method"] == "LOO2+grid")].reset_index(drop=True)
    b = stable(small.results())
    pd.testing.assert_frame_equal(a.drop(columns="study"), b.drop(columns="study"))


def test_n_jobs_1_and_2_give_identical_results(tmp_path):
    kw = dict(
        datasets={"blobs": blobs, "heart": "heart"},
        split="fischetti",
        n_splits=2,
        seed=3,
        methods={"LOO2+bisection": LOO2_BISECTION, "LOO3+bisection": LOO3_BISECTION},
    )
    one = Study("s", storage=f"sqlite:///{tmp_path / 'one.db'}", **kw).run(n_jobs=1)
    # report_next: the workers load the figure code after the last cell; the cells are the same
    two = Study("s", storage=f"sqlite:///{tmp_path / 'two.db'}", **kw).run(
        n_jobs=2, report_next=True
    )
    pd.testing.assert_frame_equal(stable(one.results()), stable(two.results()))
    t1, t2 = one.traces(), two.traces()
    keep = ["dataset", "split", "method", "eval", "param_gamma", "value", "best_value"]
    pd.testing.assert_frame_equal(t1[keep], t2[keep])
    from joblib import Parallel, delayed

    # the pool the cells ran in (joblib reuses it: the same watched workers, which exit with
    # the study's process) has the report's code loaded (or loading)
    from svmtune.study import watched_workers

    with watched_workers():
        loaded = Parallel(n_jobs=2)(delayed(_has_figure_code)() for _ in range(4))
    assert any(loaded)


def _has_figure_code() -> bool:
    import sys

    from svmtune.study.figures._figure_jobs import _wait_for_figure_code

    _wait_for_figure_code()
    return {"matplotlib.pyplot", "scikit_posthocs", "svmtune.study.report._verdict"} <= set(
        sys.modules
    )


def test_running_again_skips_finished_cells_and_adds_new_ones(url):
    calls = []
    heart_study(url).run(progress=lambda rec, done, total: calls.append((rec.key, done, total)))
    assert len(calls) == 4 and calls[-1][1:] == (4, 4)
    calls.clear()
    heart_study(url).run(progress=lambda *a: calls.append(a))
    assert calls == []
    methods = {"LOO2+bisection": LOO2_BISECTION, "LOO2+grid": LOO2_GRID, "LOO3": LOO3_BISECTION}
    heart_study(url, methods=methods).run(progress=lambda rec, *a: calls.append(rec.key))
    assert sorted(calls) == [CellKey("heart", 0, "LOO3"), CellKey("heart", 1, "LOO3")]
    assert len(heart_study(url, methods=methods).results()) == 6
    # the results of a smaller definition are its own cells only
    assert len(heart_study(url, n_splits=1).results()) == 2


def test_a_failed_cell_is_stored_with_its_error_and_the_study_goes_on(url):
    study = Study(
        "failing",
        datasets=[blobs, one_class],
        split=halves,
        n_splits=2,
        methods={"LOO2+grid": LOO2_GRID},
        storage=url,
    ).run()
    res = study.results().set_index("dataset")
    assert (res.loc["blobs", "status"] == "ok").all()
    failed = res.loc["one_class"]
    assert (failed["status"] == "failed").all()
    assert failed["error"].str.contains("single class").all()
    # the traceback names svmtune's files from its install folder, not this machine's paths
    root = str(Path(svmtune.__file__).parents[1])
    assert failed["error"].str.contains('File "svmtune/', regex=False).all()
    assert not failed["error"].str.contains(root, regex=False).any()
    assert failed["test_error"].isna().all() and failed["best_params"].isna().all()
    # a rerun keeps the failure; retry_failed runs it again (and replaces the row)
    calls = []
    study.run(progress=lambda *a: calls.append(a))
    assert calls == []
    study.run(retry_failed=True, progress=lambda *a: calls.append(a))
    assert len(calls) == 2
    store = Storage(url)
    assert len(store.cells("failing")) == 4
    store.close()


def test_the_per_cell_time_limit_stops_the_tuner_and_marks_timeout(url):
    slow = Method(Sleepy(inner=LOOEstimate(model="loo2"), seconds=0.05), Grid(n_points=60), RBF())
    study = Study(
        "limited",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        max_seconds=0.3,
        methods={"slow": slow, "fast": LOO2_GRID},
        storage=url,
    ).run()
    res = study.results().set_index("method")
    assert res.loc["slow", "status"] == "timeout"
    assert res.loc["slow", "stopped_by"] == "max_seconds"
    assert 1 <= res.loc["slow", "n_evaluations"] < 60
    assert "time limit of 0.3 s" in res.loc["slow", "error"]
    assert math.isfinite(res.loc["slow", "test_error"])  # the best found until then
    assert res.loc["fast", "status"] == "ok"
    assert slow.tuner.max_seconds is None  # the study's tuner is left as it was


def test_summary_has_the_papers_shape(url):
    table = heart_study(url).run().summary()
    assert list(table.index) == ["heart", "Average", "Estim. err. [%]"]
    assert list(table.columns.get_level_values(0).unique()) == ["LOO2+bisection", "LOO2+grid"]
    res = heart_study(url).results()
    grid = res[res["method"] == "LOO2+grid"]
    assert table.loc["heart", ("LOO2+grid", "test error")] == pytest.approx(
        100 * grid["test_error"].mean()
    )
    assert table.loc["heart", ("LOO2+grid", "n")] == 2


def test_best_params_are_stored_as_json(url):
    heart_study(url).run()
    store = Storage(url)
    with store.engine.connect() as conn:
        raw = conn.exec_driver_sql("SELECT best_params FROM cells").scalars().all()
    store.close()
    assert all(set(json.loads(r)) == {"gamma"} for r in raw)


def test_results_before_running_are_empty_with_the_columns(url):
    res = heart_study(url).results()
    assert res.empty and {"dataset", "split", "method", "status", "test_error"} <= set(res.columns)


def test_an_in_memory_storage_lives_as_long_as_the_process():
    study = Study(
        "mem",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        methods={"LOO2+grid": LOO2_GRID},
        storage="sqlite://",
    ).run()
    assert len(study.results()) == 2 and len(study.traces()) == 10


def test_an_unseeded_objective_gets_the_cell_seed(tmp_path):
    """KFoldCV(random_state=None) would draw fresh folds; in a study its folds are the cell's."""
    from svmtune.objectives import KFoldCV

    def run(db):
        return Study(
            "cv",
            datasets=[blobs],
            split=halves,
            n_splits=2,
            methods={"cv": Method(KFoldCV(k=3, random_state=None), Grid(n_points=3), RBF())},
            storage=f"sqlite:///{tmp_path / db}",
        ).run()

    a, b = run("a.db"), run("b.db")
    pd.testing.assert_frame_equal(stable(a.results()), stable(b.results()))
    keep = ["split", "eval", "param_C", "param_gamma", "value"]
    pd.testing.assert_frame_equal(a.traces()[keep], b.traces()[keep])


def test_a_cell_cut_before_its_first_evaluation_is_a_timeout_not_a_failure(url):
    study = Study(
        "cut",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        max_seconds=1e-9,  # spent before the tuner reaches its first candidate
        methods={"g": LOO2_GRID},
        storage=url,
    ).run()
    res = study.results().iloc[0]
    assert res["status"] == "timeout"
    assert res["n_evaluations"] == 0 and res["stopped_by"] == "max_seconds"
    assert "before the first evaluation finished" in res["error"]


def test_summary_prints_readably(url):
    study = heart_study(url).run()
    text = repr(study.summary())
    assert text.startswith("LOO2+bisection\n") and "Averages over the data sets" in text
    assert "Estim. err. [%] = 100 * (estimate - test error)" in text
    assert str(study.summary()) == text
    assert "..." not in text  # nothing elided, unlike a wide DataFrame's repr


def test_a_finished_run_leaves_every_cell_in_the_db_file_alone(tmp_path):
    """WAL mode: the run checkpoints at its end, so the .db file copied alone holds it all,
    even while another connection keeps the log alive."""
    import shutil
    import sqlite3

    db = tmp_path / "wal.db"
    Storage(f"sqlite:///{db}").close()
    # another process's connection (a second worker, a report) keeps SQLite from folding the
    # log into the file when the run closes its own connections
    other = sqlite3.connect(db)
    other.execute("SELECT COUNT(*) FROM cells").fetchone()
    try:
        heart_study(f"sqlite:///{db}").run()
        alone = tmp_path / "copy" / "alone.db"
        alone.parent.mkdir()
        shutil.copy(db, alone)  # without its -wal/-shm files
    finally:
        other.close()
    with sqlite3.connect(alone) as conn:
        assert conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 4
        assert conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0] > 0


def test_cells_run_longest_expected_first(tmp_path):
    """k-fold CV solves k SVMs per evaluation, the LOO estimate none: the k-fold cells of the
    larger data set (heart, 189 training points, against sonar's 145) start first."""
    from svmtune.objectives import KFoldCV
    from svmtune.study.run._runner import expected_cost

    study = Study(
        "order",
        datasets=["sonar", "heart"],
        split="fischetti",
        n_splits=1,
        storage=f"sqlite:///{tmp_path / 'o.db'}",
        methods={
            "loo": Method(LOOEstimate(model="loo2"), Grid(n_points=2), RBF()),
            "cv": Method(KFoldCV(k=3), Grid(n_points=2), RBF()),
        },
    )
    order = []
    study.run(n_jobs=1, progress=lambda rec, *_: order.append((rec.key.dataset, rec.key.method)))
    assert order == [("heart", "cv"), ("sonar", "cv"), ("heart", "loo"), ("sonar", "loo")]
    costs = {t.key: expected_cost(t) for t in study._tasks()}
    assert sorted(costs, key=costs.get, reverse=True)[0].dataset == "heart"


def test_report_next_must_be_a_bool(url):
    with pytest.raises(ValueError, match="report_next must be True or False; got 'yes'"):
        heart_study(url).run(report_next="yes")


def _pid() -> int:
    import os

    return os.getpid()


def _gone(pid: int) -> bool:
    """No such process, or a zombie (killed, not reaped yet)."""
    from pathlib import Path

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def test_stop_local_workers_kills_the_idle_pool_and_a_new_one_starts_later():
    import time

    from joblib import Parallel, delayed

    from svmtune.study.run._runner import stop_local_workers

    pids = set(Parallel(n_jobs=2)(delayed(_pid)() for _ in range(4)))
    stop_local_workers()
    deadline = time.monotonic() + 10
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(p) for p in pids)
    again = set(Parallel(n_jobs=2)(delayed(_pid)() for _ in range(4)))
    assert again and not again & pids  # new worker processes
    stop_local_workers()
    stop_local_workers()  # nothing to stop: no error
