import math

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import Outcome
from svmtune.tuners import Grid

from .conftest import Bowl, _BoundBowl


class BowlC(Bowl):
    needs_C = True


def test_five_by_five_hinge_grid(toy):
    X, y = toy
    res = Grid(n_points=5).tune(BowlC(target={"C": 10.0, "gamma": 0.01}), X, y, kernel=RBF())
    assert len(res.trace) == 25
    np.testing.assert_allclose(sorted(set(res.trace["param_C"])), [0.1, 1, 10, 100, 1000])
    np.testing.assert_allclose(sorted(set(res.trace["param_gamma"])), [1e-3, 1e-2, 0.1, 1, 10])
    assert res.best_params == pytest.approx({"C": 10.0, "gamma": 0.01})
    assert res.best_value == pytest.approx(0.0, abs=1e-20)
    # first parameter varies slowest
    assert res.trace["param_C"].iloc[:5].nunique() == 1


def test_explicit_values_bounds_and_ties(toy):
    X, y = toy
    grid = Grid(values={"gamma": [0.1, 1.0, 10.0]})
    res = grid.tune(Bowl(target={"gamma": 1.0}), X, y, kernel=RBF())
    assert res.trace["param_gamma"].tolist() == [0.1, 1.0, 10.0]
    # ties: 2 and 0.5 are equally far from 1 in log scale -> the first wins
    res = Grid(values={"gamma": [2.0, 0.5]}).tune(Bowl(target={"gamma": 1.0}), X, y, kernel=RBF())
    assert res.best_params["gamma"] == 2.0
    res = Grid(n_points=3, bounds={"gamma": (1.0, 100.0)}).tune(
        Bowl(target={"gamma": 1.0}), X, y, kernel=RBF()
    )
    np.testing.assert_allclose(res.trace["param_gamma"], [1.0, 10.0, 100.0])


def test_trace_cost_columns_accumulate(toy):
    X, y = toy
    res = Grid(n_points=4).tune(Bowl(target={"gamma": 1.0}), X, y, kernel=RBF())
    t = res.trace
    assert (t["cum_kernel_evals"] == np.arange(1, 5)).all()
    assert (t["cum_iterations"] == 2 * np.arange(1, 5)).all()
    assert t["cum_wall_s"].is_monotonic_increasing and t["cum_cpu_s"].is_monotonic_increasing
    assert (t["best_value"].diff().dropna() <= 0).all()
    assert res.total_cost.kernel_evals == 4


def test_budget_stops_the_grid(toy):
    X, y = toy
    res = Grid(n_points=5, max_evals=7).tune(
        BowlC(target={"C": 1.0, "gamma": 1.0}), X, y, kernel=RBF()
    )
    assert len(res.trace) == 7 and res.stopped_by == "max_evals"


def test_bad_options(toy):
    X, y = toy
    obj = Bowl(target={"gamma": 1.0})
    with pytest.raises(ValueError, match="n_points must be a positive integer"):
        Grid(n_points=0).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="\\['C'\\] not in the search space"):
        Grid(values={"C": [1.0]}).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="gamma=-1.0 is outside its bounds"):
        Grid(values={"gamma": [-1.0]}).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="empty"):
        Grid(values={"gamma": []}).tune(obj, X, y, kernel=RBF())


def test_grid_is_generated_lazily_within_the_budget(toy):
    # 10**4 x 10**4 points: building them all first hung; lazily, two are made and evaluated.
    X, y = toy
    res = Grid(n_points=10**4, max_evals=2).tune(
        BowlC(target={"C": 1.0, "gamma": 1.0}), X, y, kernel=RBF()
    )
    assert len(res.trace) == 2 and res.stopped_by == "max_evals"
    assert res.trace["param_C"].tolist() == [0.1, 0.1]  # first parameter varies slowest
    # 3**60 points over an anisotropic RBF: the budget ends the search after 30 evaluations.
    Xa = np.random.default_rng(1).normal(size=(20, 60))
    kernel = AnisotropicRBF(n_features=60)
    target = {f"gamma_{f}": 1.0 for f in range(60)}
    res = Grid(n_points=3, max_evals=30).tune(Bowl(target=target), Xa, y, kernel=kernel)
    assert len(res.trace) == 30
    assert Grid(n_points=3).size(kernel.space) == 3**60


def test_grid_larger_than_max_points_without_budget_is_refused(toy):
    X, y = toy
    Xa = np.random.default_rng(1).normal(size=(20, 60))
    kernel = AnisotropicRBF(n_features=60)
    obj = Bowl(target={f"gamma_{f}": 1.0 for f in range(60)})
    with pytest.raises(ValueError, match=r"Grid has about 4.24e\+28 points over 60 parameters"):
        Grid(n_points=3).tune(obj, Xa, y, kernel=kernel)
    with pytest.raises(ValueError, match="more than max_points=8, and no budget"):
        Grid(n_points=3, max_points=8).tune(BowlC(target={"C": 1.0}), X, y, kernel=RBF())
    # at the limit, or with a budget of time, it runs
    res = Grid(n_points=3, max_points=9).tune(BowlC(target={"C": 1.0}), X, y, kernel=RBF())
    assert len(res.trace) == 9
    res = Grid(n_points=3, max_points=8, max_seconds=600).tune(
        BowlC(target={"C": 1.0}), X, y, kernel=RBF()
    )
    assert len(res.trace) == 9
    with pytest.raises(ValueError, match="max_points must be a positive integer or None"):
        Grid(max_points=0).tune(obj, Xa, y, kernel=kernel)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"values": {"gamma": 0.5}}, "Grid values for 'gamma' must be a sequence of numbers"),
        ({"values": {"gamma": "ab"}}, "Grid values for 'gamma' must be a sequence of numbers"),
        ({"values": [("gamma", [1.0])]}, "Grid values must be a mapping name -> values"),
        ({"values": {"gamma": ["a"]}}, "gamma must be a number; got 'a'"),
        ({"bounds": {"gamma": (1,)}}, r"Grid bounds for 'gamma' must be a pair of numbers"),
        ({"bounds": {"gamma": ("a", 1)}}, r"Grid bounds for 'gamma' must be a pair of numbers"),
        ({"bounds": {"gamma": (1, float("nan"))}}, r"Grid bounds for 'gamma' must be finite"),
        ({"n_points": True}, "n_points must be a positive integer"),
    ],
)
def test_bad_values_and_bounds_are_named(toy, options, message):
    X, y = toy
    with pytest.raises(ValueError, match=message):
        Grid(**options).tune(Bowl(target={"gamma": 1.0}), X, y, kernel=RBF())


class _BoundTwoMinima(_BoundBowl):
    reuses_kernel = True

    def _evaluate(self, params):
        # two equal minima: (C, gamma) = (0.1, 10), first in the grid's order (C slowest), and
        # (1000, 0.001), first in a walk with gamma slowest
        self.__dict__.setdefault("walked", []).append(dict(params))
        at = [math.isclose(params["C"], c) and math.isclose(params["gamma"], g)
              for c, g in ((0.1, 10.0), (1000.0, 0.001))]  # fmt: skip
        return Outcome(value=0.0 if any(at) else 1.0, kernel_evals=1, iterations=2)


class TwoMinima(BowlC):
    def _bind(self, X, y, kernel, space):
        return _BoundTwoMinima(self, X, y, kernel, space)


def test_objective_sharing_kernel_work_is_walked_kernel_major_and_traced_as_walked(toy):
    # An objective that shares kernel work between settings of the same kernel parameters is
    # walked with gamma slowest, and the trace lists the evaluations in that order (its
    # cumulative cost is what was spent by each row); the best point is the grid's order's
    # (C slowest): among equal values the first in it, as GridSearchCV picks.
    X, y = toy
    bound = TwoMinima(target={}).bind(X, y, kernel=RBF())
    res = Grid(n_points=5).tune_bound(bound)
    walked = bound.walked
    assert len({p["gamma"] for p in walked[:5]}) == 1  # gamma varied slowest
    assert [p["C"] for p in walked[:5]] == pytest.approx([0.1, 1, 10, 100, 1000])
    t = res.trace
    traced = t[["param_C", "param_gamma"]].to_numpy()
    assert np.allclose(traced, [[p["C"], p["gamma"]] for p in walked])  # traced as walked
    # the walk meets (1000, 0.001) first; the answer is (0.1, 10), first in the grid's order
    assert t.loc[t["value"] == 0.0, "param_gamma"].iloc[0] == pytest.approx(0.001)
    assert res.best_params == pytest.approx({"C": 0.1, "gamma": 10.0})
    # with a budget of fewer evaluations the grid's own order is walked (the first ones in it)
    for max_evals, kernel_major in ((7, False), (24, False), (25, True)):
        bound = TwoMinima(target={}).bind(X, y, kernel=RBF())
        Grid(n_points=5, max_evals=max_evals).tune_bound(bound)
        assert (len({p["gamma"] for p in bound.walked[:5]}) == 1) == kernel_major


def test_kfold_grid_builds_one_gram_matrix_per_gamma_and_values_are_fresh_ones():
    # KFoldCV keeps its Gram matrix for the next C: the 5 x 5 grid computes 5 Gram matrices
    # (n^2 entries each), not 25, and every value is the one a fresh bind gives at that setting,
    # evaluated alone in any order.
    from svmtune.objectives import KFoldCV
    from tests.solvers._data import real_split

    X, y, _, _ = real_split("heart")
    n = y.size
    res = Grid(n_points=5).tune(KFoldCV(k=5), X, y, kernel=RBF())
    t = res.trace
    # traced as walked: each gamma's Gram matrix billed to its first C, where it was computed
    assert t["kernel_evals"].tolist() == ([n * n] + [0] * 4) * 5
    assert t["param_gamma"].iloc[:5].nunique() == 1
    assert t["cum_cpu_s"].is_monotonic_increasing
    rows = list(t.itertuples())
    for i in np.random.default_rng(0).permutation(len(rows)):
        fresh = KFoldCV(k=5).bind(X, y, kernel=RBF())
        r = rows[i]
        assert fresh.evaluate({"C": r.param_C, "gamma": r.param_gamma}).value == r.value
    canonical = sorted(rows, key=lambda r: (r.param_C, r.param_gamma))
    first = min(canonical, key=lambda r: r.value)
    assert res.best_params == {"C": first.param_C, "gamma": first.param_gamma}
