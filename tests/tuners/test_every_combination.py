"""Every objective x every tuner x every kind of kernel model: either the combination is
refused before any work, with an error naming all three parts, or it runs within its budget and
its result is the best of what it evaluated, with a classifier, costs that only grow, and
values that are error rates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from svmtune.estimators import check_combination
from svmtune.kernels import RBF, AnisotropicRBF, MultipleKernel
from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, PlattError
from svmtune.tuners import (
    TPE,
    VNS,
    Bisection,
    Cascade,
    GradientDescent,
    Grid,
    IncrementalGradient,
    NestedVNS,
    RandomSearch,
)

BUDGET = 4
OBJECTIVES = {
    "LOO2": lambda: LOOEstimate(model="loo2"),
    "KFoldCV": lambda: KFoldCV(k=3),
    "ExactLOO": lambda: ExactLOO(),
    "PlattError": lambda: PlattError(),
}
TUNERS = {
    "Grid": lambda: Grid(n_points=2, max_evals=BUDGET),
    "Bisection": lambda: Bisection(max_evals=BUDGET),
    "Bisection C fixed": lambda: Bisection(fixed={"C": 1.0}, max_evals=BUDGET),
    "VNS": lambda: VNS(max_evals=BUDGET),
    "NestedVNS": lambda: NestedVNS(max_evals=BUDGET),
    "TPE": lambda: TPE(max_evals=BUDGET),
    "Random": lambda: RandomSearch(max_evals=BUDGET),
    "GradientDescent": lambda: GradientDescent(max_evals=BUDGET),
    "IncrementalGradient": lambda: IncrementalGradient(max_evals=BUDGET),
    "Cascade": lambda: Cascade(max_evals=BUDGET),
    "Cascade LOO2 screen": lambda: Cascade(screen="loo2", max_evals=BUDGET),
}
KERNELS = {
    "RBF": lambda: RBF(),
    "AnisotropicRBF": lambda: AnisotropicRBF(n_features=4),
    "MKL": lambda: MultipleKernel([[0, 1], [2, 3]], form="weights"),
}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-0.7, 1, (20, 4)), rng.normal(0.7, 1, (20, 4))])
    return X, np.repeat([-1.0, 1.0], 20)


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("tuner", list(TUNERS))
@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_refused_with_its_parts_named_or_runs_within_budget(data, objective, tuner, kernel):
    obj, tun, ker = OBJECTIVES[objective](), TUNERS[tuner](), KERNELS[kernel]()
    try:
        check_combination(obj, tun, ker)
    except ValueError as exc:
        assert repr(obj) in str(exc) and repr(tun) in str(exc) and repr(ker) in str(exc)
        with pytest.raises(ValueError):
            tun.tune(obj, *data, kernel=ker, random_state=0)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notices of 4-evaluation budgets
        res = tun.tune(obj, *data, kernel=ker, random_state=0)
    trace = res.trace
    assert 1 <= len(trace) <= BUDGET
    values = trace["value"].to_numpy()
    assert np.all((values >= 0.0) & (values <= 1.0))
    assert res.best_value in set(values.tolist())  # the answer was evaluated ...
    if tuner not in ("Bisection", "Bisection C fixed"):
        # ... and is the best of the trace (a cascade's screen values are another objective's)
        assert res.best_value == values[(trace["status"] != "screen").to_numpy()].min()
    assert np.all(np.diff(trace["cum_kernel_evals"].to_numpy()) >= 0)
    assert 0.0 <= res.best_classifier.error(*data) <= 1.0


def test_the_matrix_runs_something_for_every_objective_and_tuner(data):
    ran = {(o, t) for o in OBJECTIVES for t in TUNERS for k in KERNELS if _works(o, t, k)}
    assert {o for o, _ in ran} == set(OBJECTIVES)
    assert {t for _, t in ran} == set(TUNERS)
    # the gradient tuners need a gradient, and only Platt's error has one
    assert {o for o, t in ran if "Gradient" in t} == {"PlattError"}


def _works(objective: str, tuner: str, kernel: str) -> bool:
    try:
        check_combination(OBJECTIVES[objective](), TUNERS[tuner](), KERNELS[kernel]())
    except ValueError:
        return False
    return True
