"""GradientDescent and IncrementalGradient on the Platt empirical error."""

import warnings

import numpy as np
import pytest

from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import LOOEstimate, PlattError
from svmtune.tuners import Evaluator, GradientDescent, IncrementalGradient
from svmtune.tuners.gradient_descent import NonFiniteGradient

HEART = ratsch_split("heart", seed=0)
START = {"C": 10.0, "gamma": 1.0 / HEART[0].shape[1]}


@pytest.mark.parametrize("method", ["armijo", "scipy"])
def test_descent_lowers_the_error_and_records_gradient_norms(method):
    Xtr, ytr, Xte, yte = HEART
    res = GradientDescent(start=START, method=method).tune(PlattError(), Xtr, ytr, kernel=RBF())
    tr = res.trace
    assert res.best_value < tr["value"].iloc[0]
    assert tr["grad_norm"].notna().sum() >= 2
    if method == "armijo":
        assert res.best_classifier.error(Xte, yte) < 0.3
        # every accepted point (a gradient was taken there) lowers the error
        vals = tr.loc[tr["grad_norm"].notna(), "value"].to_numpy()
        assert np.all(np.diff(vals) < 0)


def test_descent_stays_in_the_box_and_converges():
    Xtr, ytr, _, _ = HEART
    res = GradientDescent(start={"gamma": 1e-5}, max_iter=50).tune(
        PlattError(C=10.0, gradient="approx"), Xtr, ytr, kernel=RBF(gamma_bounds=(1e-5, 1e-2))
    )
    assert res.stopped_by == "converged"
    assert ((res.trace["param_gamma"] >= 1e-5) & (res.trace["param_gamma"] <= 1e-2)).all()


def test_many_parameters_at_once():
    Xtr, ytr, _, _ = HEART
    d = Xtr.shape[1]
    k = AnisotropicRBF(n_features=d)
    start = {f"gamma_{f}": 1.0 / d for f in range(d)}
    res = GradientDescent(start=start, max_iter=5).tune(PlattError(C=10.0), Xtr, ytr, kernel=k)
    assert res.best_value < res.trace["value"].iloc[0]
    moved = [n for n in k.space.names if res.best_params[n] != pytest.approx(1.0 / d)]
    assert len(moved) == d


def test_gradient_cost_is_added_to_the_point_record():
    Xtr, ytr, _, _ = HEART
    bound = PlattError().bind(Xtr, ytr, kernel=RBF())
    run = Evaluator(bound, max_evals=None, max_seconds=None)
    (ev,) = run([START])
    ev2, g = run.gradient(START)
    assert len(run.evaluations) == 1 and sorted(g) == ["C", "gamma"]
    assert ev2.cost.kernel_evals > ev.cost.kernel_evals
    assert ev2.info["grad_norm"] == pytest.approx(np.hypot(g["C"], g["gamma"]))
    assert run.gradient(START)[0] is ev2  # memoised


def test_max_evals_is_respected():
    Xtr, ytr, _, _ = HEART
    res = GradientDescent(start=START, max_evals=3).tune(PlattError(), Xtr, ytr, kernel=RBF())
    assert len(res.trace) == 3 and res.stopped_by == "max_evals"


def test_incremental_grows_the_working_set_and_answers_on_all_points():
    Xtr, ytr, Xte, yte = ratsch_split("diabetis", seed=0)
    d = Xtr.shape[1]
    res = IncrementalGradient(start={"gamma": 1.0 / d}, initial_size=0.1).tune(
        PlattError(C=10.0, gradient="approx"), Xtr, ytr, kernel=RBF(), random_state=0
    )
    ws = res.trace["working_set"]
    n_train = len(ytr) - round(0.3 * (ytr > 0).sum()) - round(0.3 * (ytr < 0).sum())
    assert ws.iloc[0] == pytest.approx(0.1 * n_train, abs=2)
    assert ws.max() > ws.iloc[0]
    # the answer is the last point, whatever the values on smaller working sets were
    last = res.trace[res.trace["grad_norm"].notna()].iloc[-1]
    assert res.best_params["gamma"] == pytest.approx(last["param_gamma"])
    assert res.best_classifier.error(Xte, yte) < 0.3


def test_bad_input():
    Xtr, ytr, _, _ = HEART
    with pytest.raises(ValueError, match="needs the objective.s gradient"):
        GradientDescent().tune(LOOEstimate(), Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="method must be one of"):
        GradientDescent(method="newton").tune(PlattError(), Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="max_step must be a positive"):
        GradientDescent(max_step=0).tune(PlattError(), Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="not in the space"):
        GradientDescent(start={"sigma": 1.0}).tune(PlattError(), Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="held-out"):
        IncrementalGradient().tune(PlattError(validation=3), Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="initial_size"):
        IncrementalGradient(initial_size=2).tune(PlattError(C=1.0), Xtr, ytr, kernel=RBF())


def test_non_finite_gradient_warns_and_keeps_the_best_point(monkeypatch):
    Xtr, ytr, _, _ = HEART
    bound = PlattError().bind(Xtr, ytr, kernel=RBF())
    real = bound.gradient
    calls = []

    def flaky(params):
        ev, g = real(params)
        calls.append(ev)
        return (ev, {n: np.nan for n in g}) if len(calls) > 1 else (ev, g)

    monkeypatch.setattr(bound, "gradient", flaky)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = GradientDescent(start=START).tune_bound(bound)
    assert any(issubclass(w.category, NonFiniteGradient) for w in caught)
    assert len(calls) == 2
    assert res.best_value == res.trace["value"].min() < calls[0].value
