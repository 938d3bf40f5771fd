"""SuccessiveHalving: scikit-learn's schedule, rung counts, the last rung's best, honest costs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV, StratifiedKFold

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import BoundObjective, KFoldCV, Objective, Outcome
from svmtune.tuners import SuccessiveHalving

from .conftest import Bowl


@pytest.fixture(scope="module")
def heart():
    X, y, _, _ = fischetti_split(*load("heart"), seed=1)
    return X, y


class ShiftingBowl(Objective):
    """(ln gamma - ln target)^2 with target 1 on subsamples and 10 on ``n_full`` points: the
    best value overall is on a small rung, the answer must be the last rung's best."""

    min_per_class = 1

    def __init__(self, *, n_full):
        self.n_full = n_full

    def _bind(self, X, y, kernel, space):
        return _BoundShifting(self, X, y, kernel, space)


class _BoundShifting(BoundObjective):
    def _evaluate(self, params):
        target = 10.0 if self.n_samples >= self.objective.n_full else 1.0
        value = 1.0 + (math.log(params["gamma"]) - math.log(target)) ** 2
        return Outcome(value=value, kernel_evals=self.n_samples, iterations=1)

    def classifier(self, params):
        return Bowl(target={}).bind(self.X, self.y, kernel=self.kernel).classifier(params)


@pytest.mark.parametrize(
    "n_candidates, n, factor, min_resources, aggressive",
    [
        (25, 191, 3, "exhaust", False),
        (16, 191, 3, "exhaust", False),
        (25, 191, 3, "smallest", False),
        (36, 537, 2, "exhaust", False),
        (30, 120, 3, "smallest", True),
        (30, 60, 3, "smallest", False),
        (9, 400, 4, 30, False),
        (27, 700, 3, "exhaust", False),
    ],
)
def test_schedule_is_scikit_learns(n_candidates, n, factor, min_resources, aggressive):
    y = np.where(np.arange(n) % 3 == 0, 1.0, -1.0)
    X = np.zeros((n, 1))
    sk = HalvingGridSearchCV(
        DummyClassifier(),
        {"random_state": list(range(n_candidates))},
        cv=StratifiedKFold(2),
        factor=factor,
        min_resources=min_resources,
        aggressive_elimination=aggressive,
    ).fit(X, y)
    ours = SuccessiveHalving(
        factor=factor, min_resources=min_resources, aggressive_elimination=aggressive
    ).schedule(n_candidates, y, n_folds=2)
    assert [r.n_samples for r in ours] == sk.n_resources_
    assert [r.n_candidates for r in ours] == sk.n_candidates_
    assert [r.rung for r in ours] == list(range(len(ours)))


def test_rungs_follow_the_schedule_and_cost_is_the_sum_of_the_evaluations(heart):
    X, y = heart
    sh = SuccessiveHalving(n_points=5)
    res = sh.tune(KFoldCV(k=5), X, y, kernel=RBF(), random_state=0)
    tr = res.trace
    rungs = sh.schedule(25, y, n_folds=5)
    assert [(r.n_candidates, r.n_samples) for r in rungs] == [(25, 21), (9, 63), (3, 189)]
    counts = tr.groupby("rung")["n_samples"].agg(["size", "min", "max"])
    assert counts["size"].tolist() == [r.n_candidates for r in rungs]
    assert counts["min"].tolist() == counts["max"].tolist() == [r.n_samples for r in rungs]
    # one Gram matrix of the rung's subsample per evaluation, but for an evaluation right after
    # one of the same rung at the same gamma (its Gram matrix kept): counted, nothing else
    prev = tr[["rung", "param_gamma"]].shift()
    built = (tr["rung"] != prev["rung"]) | (tr["param_gamma"] != prev["param_gamma"])
    assert (tr["kernel_evals"] == np.where(built, tr["n_samples"] ** 2, 0)).all()
    assert res.total_cost.kernel_evals == tr["kernel_evals"].sum()
    assert tr["cum_iterations"].iloc[-1] == tr["iterations"].sum()
    assert res.total_cost.cpu_s >= tr["cpu_s"].sum() > 0
    # every rung keeps the best third of the one before (ties: grid order)
    for r in (1, 2):
        before = tr[tr["rung"] == r - 1].sort_values(["value", "eval"], kind="stable")
        kept = before.head(len(tr[tr["rung"] == r]))
        now = tr[tr["rung"] == r]
        assert sorted(zip(kept["param_C"], kept["param_gamma"], strict=True)) == sorted(
            zip(now["param_C"], now["param_gamma"], strict=True)
        )
    # the answer is the last rung's best, and the final SVM is trained on all the points
    last = tr[tr["rung"] == 2]
    best = last.loc[last["value"].idxmin()]
    assert res.best_params == {"C": best["param_C"], "gamma": best["param_gamma"]}
    assert res.best_classifier.vectors.shape[0] <= len(y)


def test_the_answer_is_the_best_of_the_last_rung_not_the_lowest_value(toy):
    X, y = toy  # 20 points
    X = np.repeat(X, 5, axis=0)
    y = np.repeat(y, 5)  # 100 points
    sh = SuccessiveHalving(values={"gamma": [0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 0.3, 0.03, 0.01]})
    res = sh.tune(ShiftingBowl(n_full=90), X, y, kernel=RBF(), random_state=0)
    tr = res.trace
    assert tr["rung"].max() == 1 and tr["n_samples"].tolist() == [20] * 9 + [60] * 3
    # the lowest value (1.0 at gamma = 1 on 20 points) is not the answer of a search whose
    # last rung is on 60 points (still target 1 there) ... so make the last rung the full one:
    sh = SuccessiveHalving(values={"gamma": [0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 0.3, 0.03, 0.01]})
    res = sh.tune(ShiftingBowl(n_full=60), X, y, kernel=RBF(), random_state=0)
    tr = res.trace
    rung1 = tr[tr["rung"] == 1]
    assert set(rung1["param_gamma"]) == {1.0, 3.0, 0.3}  # the best third on 20 points
    assert tr["value"].min() == 1.0  # gamma = 1 on rung 0
    assert res.best_params == {"gamma": 3.0}  # nearest 10 among rung 1's candidates
    assert res.best_value == rung1["value"].min() > 1.0


def test_budget_caps_the_evaluations_and_the_grid_fits_it(heart):
    X, y = heart
    # no n_points: the largest grid whose schedule fits 25 evaluations (4 x 4: 16 + 6 + 2)
    res = SuccessiveHalving(max_evals=25).tune(KFoldCV(k=3), X, y, kernel=RBF(), random_state=0)
    assert res.trace.groupby("rung").size().tolist() == [16, 6, 2]
    assert res.stopped_by == "converged"
    # a schedule longer than the budget stops when it is spent; the answer is from the last
    # rung reached
    res = SuccessiveHalving(n_points=5, max_evals=30, bounds={"C": (1.0, 100.0)}).tune(
        KFoldCV(k=3), X, y, kernel=RBF(), random_state=0
    )
    tr = res.trace
    assert len(tr) == 30 and res.stopped_by == "max_evals"
    assert tr.groupby("rung").size().tolist() == [25, 5]
    assert tr["param_C"].between(1.0, 100.0).all()
    assert tr["param_gamma"].between(1e-3, 10.0).all()
    rung1 = tr[tr["rung"] == 1]
    assert res.best_value == rung1["value"].min()


def test_subsamples_are_nested_and_stratified(heart):
    from svmtune.tuners.halving import nested_stratified_order

    _, y = heart
    order = nested_stratified_order(y, np.random.default_rng(0))
    assert sorted(order) == list(range(len(y)))
    share = np.mean(y == 1.0)
    for m in (10, 21, 63, 189):
        assert abs(np.sum(y[order[:m]] == 1.0) - share * m) <= 1.0
    # a small class still gets its folds' worth of points in the first rung
    yy = np.where(np.arange(150) < 20, 1.0, -1.0)
    order = nested_stratified_order(yy, np.random.default_rng(1), min_each=5)
    assert np.sum(yy[order[:10]] == 1.0) == 5 and sorted(order) == list(range(150))
    assert abs(np.sum(yy[order[:60]] == 1.0) - 5 - 50 * 15 / 145) <= 1.0


def test_carried_seeds_warm_start_the_next_rung_without_changing_what_is_solved(heart):
    X, y = heart
    cold = SuccessiveHalving(n_points=3).tune(
        KFoldCV(k=5, seeding=True), X, y, kernel=RBF(), random_state=0
    )
    warm = SuccessiveHalving(n_points=3, carry_seeds=True).tune(
        KFoldCV(k=5, seeding=True), X, y, kernel=RBF(), random_state=0
    )
    a, b = cold.trace, warm.trace
    assert a["rung"].tolist() == b["rung"].tolist()
    # rung 0 is the same; later rungs start elsewhere: other iterations, same problems
    r0 = a["rung"] == 0
    assert a.loc[r0, "iterations"].tolist() == b.loc[r0, "iterations"].tolist()
    assert not np.array_equal(a.loc[~r0, "iterations"], b.loc[~r0, "iterations"])
    assert np.abs(a["value"] - b["value"]).max() <= 2 / 63  # a point or two, at round-off


@pytest.mark.parametrize(
    "options, match",
    [
        ({"factor": 1}, "factor must be an integer >= 2; got 1"),
        ({"factor": 2.5}, "factor must be an integer >= 2; got 2.5"),
        ({"min_resources": "all"}, "min_resources must be 'exhaust', 'smallest' or an integer"),
        ({"min_resources": 1}, "min_resources must be an integer >= 2; got 1"),
        ({"max_resources": 0}, "max_resources must be an integer >= 2; got 0"),
        ({"n_points": 0}, "n_points must be an integer >= 1; got 0"),
        ({"carry_seeds": "yes"}, "carry_seeds must be True or False; got 'yes'"),
        ({"aggressive_elimination": 1}, "aggressive_elimination must be True or False; got 1"),
        ({"max_evals": 0}, "max_evals must be a positive integer; got 0"),
        ({"bounds": {"nu": (1.0, 2.0)}}, r"bounds name parameters \['nu'\]"),
    ],
)
def test_bad_options_are_refused_naming_the_value(heart, options, match):
    X, y = heart
    with pytest.raises(ValueError, match=match):
        SuccessiveHalving(**options).tune(KFoldCV(), X, y, kernel=RBF())


def test_resources_that_do_not_fit_the_data_are_refused(heart):
    X, y = heart
    with pytest.raises(ValueError, match=r"max_resources=500 is more than the 191 training"):
        SuccessiveHalving(max_resources=500).tune(KFoldCV(), X, y, kernel=RBF())
    with pytest.raises(ValueError, match=r"min_resources=300 is more than max_resources=191"):
        SuccessiveHalving(min_resources=300).tune(KFoldCV(), X, y, kernel=RBF())
    with pytest.raises(ValueError, match=r"subsample of rung 0 \(6 points; min_resources=6\)"):
        SuccessiveHalving(min_resources=6).tune(KFoldCV(k=5), X, y, kernel=RBF())


def test_kfold_seeds_come_only_from_kfold_on_a_subset(heart):
    from svmtune.objectives import LOOEstimate

    X, y = heart
    big = KFoldCV(k=5, seeding=True).bind(X, y, kernel=RBF())
    small = KFoldCV(k=5, seeding=True).bind(X[:60], y[:60], kernel=RBF())
    small.evaluate({"C": 1.0, "gamma": 0.1})
    with pytest.raises(ValueError, match="seeds come from KFoldCV bound to other data"):
        big.seed_from(LOOEstimate().bind(X, y, kernel=RBF()), np.arange(len(y)))
    with pytest.raises(ValueError, match=r"one of this objective's 191 points for each of the"):
        big.seed_from(small, np.arange(59))
    big.seed_from(small, np.arange(60))  # seeds fold f from the small one's fold f
    first = big.evaluate({"C": 1.0, "gamma": 0.1})
    cold = KFoldCV(k=5, seeding=True).bind(X, y, kernel=RBF()).evaluate({"C": 1.0, "gamma": 0.1})
    assert first.cost.iterations != cold.cost.iterations  # started elsewhere
    assert abs(first.value - cold.value) <= 2 / len(y)  # the same problems, to tol


def test_best_value_counts_only_the_rungs_on_all_the_training_points():
    # 120 points: 4 candidates on 30, 2 on 60, 1 on all 120
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-0.5, 1, (60, 2)), rng.normal(0.5, 1, (60, 2))])
    y = np.repeat([-1.0, 1.0], 60)
    res = SuccessiveHalving(n_points=2, factor=2, min_resources=30).tune(
        KFoldCV(k=3), X, y, kernel=RBF(), random_state=0
    )
    t = res.trace
    assert t["n_samples"].tolist() == [30] * 4 + [60] * 2 + [120]
    assert t["best_value"].iloc[:6].isna().all()
    assert t["best_value"].iloc[6] == t["value"].iloc[6] == res.best_value
    # the cost of the subsample rungs is counted all the same
    assert t["cum_kernel_evals"].iloc[6] == t["kernel_evals"].sum()


def test_carried_seeds_need_an_objective_that_keeps_solutions(heart) -> None:
    X, y = heart
    with pytest.raises(ValueError, match=r"carry_seeds=True.*seeding=False"):
        SuccessiveHalving(n_points=3, carry_seeds=True).tune(KFoldCV(k=5), X, y, kernel=RBF())
