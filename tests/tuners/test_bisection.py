import warnings

import numpy as np
import pytest

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection, BracketEdgeWarning

from .conftest import Bowl


class BowlC(Bowl):
    needs_C = True


def test_converges_to_the_minimum_of_a_unimodal_function(toy):
    X, y = toy
    res = Bisection(tol=1e-4).tune(Bowl(target={"gamma": 0.3}), X, y, kernel=RBF())
    assert res.best_params["gamma"] == pytest.approx(0.3, abs=1e-4)
    assert res.stopped_by == "converged"
    # every evaluation is recorded once, with its counts
    assert res.trace["kernel_evals"].eq(1).all()
    assert res.trace["cum_kernel_evals"].tolist() == list(range(1, len(res.trace) + 1))


def test_paper_setting_evaluation_count(toy):
    """L = .01, R = 1, tol = .01: three start points, then one point per halving step."""
    X, y = toy
    res = Bisection().tune(Bowl(target={"gamma": 0.3}), X, y, kernel=RBF())
    g = res.trace["param_gamma"].tolist()
    assert g[:3] == [0.01, 0.505, 1.0]
    assert g[3] == pytest.approx(0.7525)  # equal halves: the right one, midpoint of [.505, 1]
    assert 10 <= len(g) <= 20
    assert res.best_params["gamma"] == pytest.approx(0.3, abs=0.01)


def test_log_scale(toy):
    X, y = toy
    res = Bisection(low=1e-4, high=1e2, log=True, tol=1e-3).tune(
        Bowl(target={"gamma": 0.02}), X, y, kernel=RBF()
    )
    assert res.best_params["gamma"] == pytest.approx(0.02, rel=1e-3)
    assert res.trace["param_gamma"].iloc[1] == pytest.approx(0.1)  # geometric midpoint


def test_fixed_other_parameters(toy):
    X, y = toy

    class BowlC(Bowl):
        needs_C = True

    res = Bisection(fixed={"C": 2.0}).tune(
        BowlC(target={"gamma": 0.3, "C": 2.0}), X, y, kernel=RBF()
    )
    assert set(res.trace["param_C"]) == {2.0}
    with pytest.raises(ValueError, match="missing \\['C'\\]"):
        Bisection().tune(BowlC(target={"gamma": 0.3}), X, y, kernel=RBF())


def test_budget(toy):
    X, y = toy
    res = Bisection(max_evals=5).tune(Bowl(target={"gamma": 0.3}), X, y, kernel=RBF())
    assert len(res.trace) == 5 and res.stopped_by == "max_evals"


def test_on_real_data_returns_the_centre(toy):
    X, y = load("heart")
    Xtr, ytr, Xte, yte = fischetti_split(X, y, 0)
    res = Bisection().tune(LOOEstimate(model="loo2"), Xtr, ytr, kernel=RBF())
    assert 0.01 <= res.best_params["gamma"] <= 1.0
    assert res.best_value == res.trace["value"].min()
    assert 0.05 < res.best_classifier.error(Xte, yte) < 0.35


def test_bad_options(toy):
    X, y = toy
    obj = Bowl(target={"gamma": 0.3})
    with pytest.raises(ValueError, match="'sigma' is not in the search space"):
        Bisection(param="sigma").tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="low < high"):
        Bisection(low=1.0, high=0.5).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match=r"\(-1.0, 1.0\) reach outside the parameter's range"):
        Bisection(low=-1).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="tol must be a positive"):
        Bisection(tol=0).tune(obj, X, y, kernel=RBF())
    with pytest.raises(ValueError, match="max_evals must be a positive integer"):
        Bisection(max_evals=0).tune(obj, X, y, kernel=RBF())
    assert np.isfinite(Bisection().tune(obj, X, y, kernel=RBF()).best_value)


@pytest.mark.parametrize(
    ("fixed", "message"),
    [
        ([("C", 1.0)], r"Bisection fixed must be a mapping name -> value"),
        ({"C": "a"}, "C must be a number; got 'a'"),
        ({"C": -1.0}, r"C=-1.0 is outside its bounds"),
    ],
)
def test_bad_fixed_values_are_named(toy, fixed, message):
    X, y = toy
    with pytest.raises(ValueError, match=message):
        Bisection(fixed=fixed).tune(BowlC(target={"gamma": 0.1}), X, y, kernel=RBF())


@pytest.mark.parametrize("seed", ["abc", -1, 1.5, True])
def test_bad_random_state_is_named(toy, seed):
    X, y = toy
    with pytest.raises(ValueError, match=r"random_state must be None, a non-negative integer"):
        Bisection().tune(Bowl(target={"gamma": 0.1}), X, y, kernel=RBF(), random_state=seed)


def _checkerboard():
    """A 4 x 4 checkerboard on the unit square: the RBF width that separates its cells is far
    above Fischetti's bracket (LOO_2 at its lowest near gamma = 100)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (80, 2))
    y = np.where((np.floor(X[:, 0] * 4) + np.floor(X[:, 1] * 4)) % 2 == 0, 1.0, -1.0)
    return X, y


def test_the_minimum_outside_the_bracket_is_flagged():
    """The oracle: LOO_2 evaluated on a grid over [0.01, 1] and above it; its minimum over the
    bracket is at the bracket's top and higher than at gamma = 30-100, so bisection in
    [0.01, 1] ends at the top and says so."""
    X, y = _checkerboard()
    objective = LOOEstimate(model="loo2")
    bound = objective.bind(X, y, kernel=RBF())
    inside = {g: bound.evaluate({"gamma": g}).value for g in np.linspace(0.01, 1.0, 12)}
    outside = min(bound.evaluate({"gamma": g}).value for g in (30.0, 100.0))
    assert min(inside.values()) > outside
    with pytest.warns(BracketEdgeWarning, match=r"high edge of its bracket \[0.01, 1\]"):
        res = Bisection().tune(objective, X, y, kernel=RBF())
    assert res.at_edge == {"gamma": "high"}
    assert 1.0 - res.best_params["gamma"] < 0.01


def test_a_study_box_is_searched_whole_and_an_inner_minimum_is_not_flagged():
    """With a study's box (bounds) bisection searches all of it: here it passes the old
    bracket's top and ends inside the box, lower than any point of [0.01, 1]."""
    X, y = _checkerboard()
    objective = LOOEstimate(model="loo2")
    with warnings.catch_warnings():
        warnings.simplefilter("error", BracketEdgeWarning)
        res = Bisection(log=True, tol=0.05).tune(
            objective, X, y, kernel=RBF(), bounds={"gamma": (0.01, 1000.0)}
        )
    assert res.at_edge == {}
    assert res.trace["param_gamma"].max() > 1.0
    assert 1.0 < res.best_params["gamma"] < 1000.0
    bound = objective.bind(X, y, kernel=RBF())
    assert res.best_value < min(bound.evaluate({"gamma": g}).value for g in (0.01, 0.5, 1.0))


def test_a_minimum_at_the_low_edge_is_flagged(toy):
    X, y = toy
    with pytest.warns(BracketEdgeWarning, match="low edge"):
        res = Bisection().tune(Bowl(target={"gamma": 1e-3}), X, y, kernel=RBF())
    assert res.at_edge == {"gamma": "low"}
    res = Bisection().tune(Bowl(target={"gamma": 0.3}), X, y, kernel=RBF())
    assert res.at_edge == {}
