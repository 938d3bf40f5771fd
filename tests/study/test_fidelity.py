"""Multi-fidelity rows in a study: stored with their kind (stage, rung, n_samples), and left out
of every best value so far (plots, anytime profiles, incumbents) while their cost still counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.study import (
    Method,
    Storage,
    Study,
    anytime_profile,
    best_so_far,
    full_fidelity,
)
from svmtune.study.figures._best_so_far import plot_best_so_far
from svmtune.study.run._incumbent import incumbent_rows
from svmtune.study.store._schema import TRACE_EXTRA_COLUMNS
from svmtune.tuners import Cascade, SuccessiveHalving

# One run, by hand: its cheap rows have the lowest values, so counting them gives another curve.
#   eval 0: a cascade's screen (status "screen")              0.02
#   eval 1: a full evaluation                                 0.20
#   eval 2: a successive-halving rung on 30 of 100 points     0.05
#   eval 3: a pruned trial's partial error                    0.03
#   eval 4: a full evaluation                                 0.15
#   eval 5: a failed evaluation                               NaN
#   eval 6: a full evaluation (the last rung, n_samples == n_train)  0.18
HAND = pd.DataFrame(
    {
        "dataset": "d",
        "split": 0,
        "method": "m",
        "n_train": 100,
        "eval": range(7),
        "value": [0.02, 0.20, 0.05, 0.03, 0.15, np.nan, 0.18],
        "status": ["screen", "ok", "ok", "pruned", "ok", "failed", "ok"],
        "stage": ["screen", "refine", None, None, None, None, None],
        "n_samples": [np.nan, np.nan, 30, np.nan, np.nan, np.nan, 100],
        "cpu_s": [0.5, 1.0, 0.25, 0.5, 1.0, 0.25, 1.5],
    }
)
HAND["cum_cpu_s"] = HAND["cpu_s"].cumsum()
HAND["cum_kernel_evals"] = (np.arange(7) + 1) * 1000
RIGHT = [np.nan, 0.20, 0.20, 0.20, 0.15, 0.15, 0.15]
WRONG = [0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02]  # the minimum over every value so far


def test_the_hand_made_trace_counts_only_full_evaluations():
    assert full_fidelity(HAND).tolist() == [False, True, False, False, True, False, True]
    got = best_so_far(HAND).to_numpy()
    np.testing.assert_array_equal(got, RIGHT)
    assert not np.allclose(np.nan_to_num(got), WRONG)
    # the old rule, the minimum over the ok values so far, would have dropped to the rung's 0.05
    ok = HAND["value"].where(HAND["status"] == "ok")
    assert ok.cummin().min() == 0.05 < np.nanmin(got)
    # the row order is the eval order, whatever the frame's order
    shuffled = HAND.iloc[::-1]
    np.testing.assert_array_equal(best_so_far(shuffled).loc[HAND.index].to_numpy(), RIGHT)


def test_without_n_train_the_runs_largest_subsample_is_full():
    t = HAND.drop(columns="n_train")
    assert full_fidelity(t).tolist() == [False, True, False, False, True, False, True]
    assert full_fidelity(t, n_train=200).tolist()[-1] is False


def test_runs_are_kept_apart():
    other = HAND.assign(split=1, value=[0.5, 0.01, 0.4, 0.3, 0.6, np.nan, 0.7])
    both = pd.concat([HAND, other], ignore_index=True)
    got = best_so_far(both)
    np.testing.assert_array_equal(got.iloc[:7], RIGHT)
    np.testing.assert_array_equal(got.iloc[7:], [np.nan, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01])


def test_the_best_so_far_plot_draws_the_full_values_against_every_rows_cost():
    t = HAND.assign(best_value=WRONG)  # a stored best_value of the wrong rule is not used
    fig = plot_best_so_far(t, objectives={"m": "CV"})
    ax = fig.axes[0]
    thin, bold = ax.lines[0], ax.lines[1]
    # every row is on the time axis (the screen's and the rungs' cost is paid) ...
    np.testing.assert_allclose(thin.get_xdata(), HAND["cum_cpu_s"])
    # ... but only full evaluations give values
    np.testing.assert_allclose(thin.get_ydata(), 100 * np.array(RIGHT))
    y = np.asarray(bold.get_ydata(), dtype=float)
    assert np.nanmin(y) == pytest.approx(15.0) and np.nanmax(y) == pytest.approx(20.0)
    # the bold line starts at the first full evaluation, not at the screen
    assert np.asarray(bold.get_xdata())[0] == pytest.approx(HAND["cum_cpu_s"].iloc[1])


def test_a_method_with_no_full_evaluation_is_named_in_the_legend():
    t = HAND.assign(method="sub", status="ok", stage=None, n_samples=30)
    fig = plot_best_so_far(pd.concat([HAND, t]), objectives={"m": "CV", "sub": "CV"})
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "m" in labels and "sub: no evaluation on all the training data" in labels


def test_the_anytime_objective_profile_counts_only_full_evaluations():
    grid = HAND["cum_cpu_s"].to_numpy()
    prof = anytime_profile(HAND.assign(best_value=WRONG), metric="best_value", grid=grid)
    np.testing.assert_array_equal(prof["median"].to_numpy(), RIGHT)
    assert prof["answered"].tolist() == [0.0, *[1.0] * 6]


def test_the_anytime_objective_figure_names_a_method_with_no_full_evaluation():
    from svmtune.study.figures._verdict_plots import plot_anytime

    t = HAND.assign(method="sub", status="ok", stage=None, n_samples=30)
    fig = plot_anytime(pd.concat([HAND, t]), metric="best_value")
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    assert labels == ["m"]
    assert "sub: no evaluation on all the training data (every data set)" in fig.get_suptitle()


def test_incumbents_are_full_evaluations():
    assert incumbent_rows(HAND).tolist() == [-1, 1, 1, 1, 4, 4, 4]
    assert incumbent_rows(HAND, n_train=30).tolist() == [-1, 1, 2, 2, 2, 2, 2]


def _halving_and_cascade_study(url: str, n_splits: int) -> Study:
    # heart: 188 training points. "halving": 4 candidates on 47 points, 2 on 94, 1 on all 188;
    # "halving-sub" (the default schedule of a 3 x 3 grid): 9 on 20, 3 on 60, 1 on 180 of them
    return Study(
        "fidelity",
        datasets=["heart"],
        split="fischetti",
        n_splits=n_splits,
        seed=3,
        methods={
            "halving": Method(
                KFoldCV(k=5), SuccessiveHalving(n_points=2, factor=2, min_resources=47), RBF()
            ),
            "halving-sub": Method(KFoldCV(k=5), SuccessiveHalving(n_points=3), RBF()),
            "cascade": Method(KFoldCV(k=5), Cascade(), RBF()),
        },
        storage=url,
    )


def test_a_stored_halving_and_cascade_cell_keep_their_kind_of_evaluation(tmp_path):
    study = _halving_and_cascade_study(f"sqlite:///{tmp_path / 'f.db'}", 1)
    study.run(n_jobs=1)
    res, tr = study.results(), study.traces()
    assert (res["status"] == "ok").all()
    n_train = int(res["n_train"].iloc[0])
    assert n_train == 188 and (tr["n_train"] == n_train).all()

    h = tr[tr["method"] == "halving"].sort_values("eval")
    assert h["rung"].tolist() == [0] * 4 + [1] * 2 + [2]
    assert h["n_samples"].tolist() == [47] * 4 + [94] * 2 + [n_train]
    assert h["stage"].isna().all() and (h["status"] == "ok").all()
    # only the last rung is on all the training points: the stored best_value is its value
    full = h["value"].where(h["n_samples"] == n_train)
    np.testing.assert_allclose(h["best_value"], full.cummin(), equal_nan=True)
    np.testing.assert_allclose(best_so_far(h), h["best_value"], equal_nan=True)
    assert h["best_value"].isna().sum() == 6
    # the incumbent (and its test error) is the full evaluation's, from the last rung on
    assert h["incumbent_test_error"].iloc[:6].isna().all()
    assert h["incumbent_test_error"].iloc[6] == pytest.approx(
        float(res.loc[res["method"] == "halving", "test_error"].iloc[0])
    )

    # a last rung on 180 of the 188 points: no value so far at all, the cost counted all along
    s = tr[tr["method"] == "halving-sub"].sort_values("eval")
    assert s["n_samples"].tolist() == [20] * 9 + [60] * 3 + [180]
    assert s["best_value"].isna().all() and best_so_far(s).isna().all()
    assert s["cum_kernel_evals"].is_monotonic_increasing

    c = tr[tr["method"] == "cascade"].sort_values("eval")
    screen = c["stage"] == "screen"
    assert screen.any() and (c.loc[screen, "status"] == "screen").all()
    assert (c.loc[~screen, "stage"] == "refine").all() and c["n_samples"].isna().all()
    assert c.loc[screen, "best_value"].isna().all()
    refine = c["value"].where(~screen & (c["status"] == "ok"))
    np.testing.assert_allclose(c["best_value"], refine.cummin(), equal_nan=True)
    np.testing.assert_allclose(best_so_far(c), c["best_value"], equal_nan=True)
    # the cost axis counts the screen: the first refine row's cumulative cost includes it
    assert c.loc[~screen, "cum_kernel_evals"].iloc[0] > c.loc[screen, "kernel_evals"].sum()
    # every method's best_so_far curve ends at its cell's objective value
    for m, g in tr[tr["method"] != "halving-sub"].groupby("method"):
        ov = float(res.loc[res["method"] == m, "objective_value"].iloc[0])
        assert best_so_far(g.sort_values("eval")).iloc[-1] == pytest.approx(ov)


# The traces table as the version before the multi-fidelity columns wrote it.
def _old_traces(metadata: sa.MetaData) -> sa.Table:
    return sa.Table(
        "traces",
        metadata,
        sa.Column("cell_id", sa.Integer, primary_key=True),
        sa.Column("eval", sa.Integer, primary_key=True),
        sa.Column("params", sa.Text, nullable=False),
        *(
            sa.Column(n, sa.Float)
            for n in ("value", "wall_s", "cpu_s", "cum_wall_s", "cum_cpu_s", "best_value")
        ),
        sa.Column("status", sa.String(16)),
        *(
            sa.Column(n, sa.BigInteger)
            for n in ("kernel_evals", "iterations", "cum_kernel_evals", "cum_iterations")
        ),
        sa.Column("incumbent_test_error", sa.Float),
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.db'}"
    return request.getfixturevalue("postgres_url")


def test_an_old_database_opens_and_resumes(tmp_path, db_url):
    from svmtune.study.store._schema import cells_table, studies_table

    # split 0 computed by the old version: the same rows, in the old traces layout
    first_url = f"sqlite:///{tmp_path / 'new.db'}"
    _halving_and_cascade_study(first_url, 1).run(n_jobs=1)
    src = sa.create_engine(first_url)
    old_meta = sa.MetaData()
    old_studies = studies_table.to_metadata(old_meta)
    old_cells = cells_table.to_metadata(old_meta)
    old_traces = _old_traces(old_meta)
    dst = sa.create_engine(db_url)
    old_meta.create_all(dst)
    with src.connect() as a, dst.begin() as b:
        for table in (old_studies, old_cells, old_traces):
            query = sa.select(table)  # the same columns of the new database, typed
            b.execute(table.insert(), [dict(r) for r in a.execute(query).mappings()])
        if dst.dialect.name == "postgresql":  # ids inserted by hand: move the sequences on
            for name in ("studies", "cells"):
                b.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                    f"(SELECT MAX(id) FROM {name}))"
                )
    src.dispose()
    stored = {c["name"] for c in sa.inspect(dst).get_columns("traces")}
    assert "incumbent_test_error" in stored and "n_samples" not in stored and "stage" not in stored
    dst.dispose()

    # read-only (``svmtune report``), it is not upgraded: the new columns read as NaN
    ro = Storage(db_url, read_only=True)
    try:
        before = ro.traces()
        assert len(before) and before["n_samples"].isna().all() and before["stage"].isna().all()
        assert set(before["status"]) == {"ok", "screen"}
        assert len(ro.snapshot("fidelity").traces) == len(before)
    finally:
        ro.close()

    # the new version opens it (adding the columns) and runs only the new split
    resumed = _halving_and_cascade_study(db_url, 2)
    resumed.run(n_jobs=1)
    res, tr = resumed.results(), resumed.traces()
    assert sorted(res["split"]) == [0] * 3 + [1] * 3 and (res["status"] == "ok").all()
    old, new = tr[tr["split"] == 0], tr[tr["split"] == 1]
    # rows stored before have NULL there; the status they stored survives
    assert old["n_samples"].isna().all() and old["stage"].isna().all()
    assert set(old.loc[old["method"] == "cascade", "status"]) == {"screen", "ok"}
    assert new.loc[new["method"] == "halving", "n_samples"].notna().all()
    assert set(new.loc[new["method"] == "cascade", "stage"]) == {"screen", "refine"}
    # the old rows' screens still count for nothing (their status says so)
    oc = old[old["method"] == "cascade"].sort_values("eval")
    assert best_so_far(oc)[oc["status"] == "screen"].isna().all()
    # opening it again finds every column there
    Storage(db_url).close()
    with sa.create_engine(db_url).connect() as conn:
        have = {c["name"] for c in sa.inspect(conn).get_columns("traces")}
    assert set(TRACE_EXTRA_COLUMNS) <= have
    assert math.isfinite(float(res["objective_value"].max()))


def test_a_halving_peer_stores_its_rungs_and_counts_only_the_full_one(tmp_path):
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV
    from sklearn.svm import SVC

    from svmtune.study import PeerMethod

    from ._toys import blobs, halves

    grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.01, 0.1, 1.0]}
    peer = PeerMethod(HalvingGridSearchCV(SVC(), grid, cv=2, min_resources=8))
    study = Study(
        "peer-halving",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        methods={"h": peer},
        storage=f"sqlite:///{tmp_path / 'p.db'}",
    )
    study.run()
    res, tr = study.results(), study.traces().sort_values("eval")
    n_train = int(res["n_train"].iloc[0])
    assert tr["rung"].tolist() == [0] * 9 + [1] * 3 + [2]
    assert tr["n_samples"].tolist() == [8] * 9 + [24] * 3 + [n_train] and n_train == 72
    full = tr["value"].where(tr["n_samples"] == n_train)
    np.testing.assert_allclose(tr["best_value"], full.cummin(), equal_nan=True)
    np.testing.assert_allclose(best_so_far(tr), tr["best_value"], equal_nan=True)
    # no incumbent on a subsample: the first is the full rung's, the search's answer
    inc = tr["incumbent_test_error"].to_numpy()
    assert np.isnan(inc[:-1]).all()
    assert inc[-1] == pytest.approx(float(res["test_error"].iloc[0]))
