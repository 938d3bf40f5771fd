"""Every estimate of error against its definition, computed another way, over the whole
default box (hypothesis): Fischetti's LOO_1/2/3 and the naive estimate against their sums and
thresholds written out; KFoldCV against a loop over the same folds with scikit-learn's SVC;
PlattError against an SVM, a sigmoid fit and a mean written out. (ExactLOO against retraining
once per point: ``tests/solvers/loo/test_exact_loo.py``.)

Counts must be equal, not close. Each test has a quick profile (run by default) and a deep one
marked ``slow``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.optimize
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC

from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate, PlattError
from tests._oracles import problems
from tests.solvers._optimality import undecided_validation_points

QUICK = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DEEP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _gram(X: np.ndarray, Z: np.ndarray, gamma: float) -> np.ndarray:
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


# -- Fischetti's LOO estimates --------------------------------------------------------------


def class_signals_by_definition(
    X: np.ndarray, y: np.ndarray, gamma: float, model: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``nu+_j`` and ``nu-_j`` (each an exactly rounded sum, ``math.fsum``) over the points of
    each class but ``j`` itself (the naive model keeps ``j``), and a bound on the round-off of
    computing them in float64: each term ``k_ij = exp(-gamma d_ij^2)`` within a few ulp plus
    ``gamma`` times the error of ``d_ij^2 = |x_i|^2 + |x_j|^2 - 2 x_i'x_j``, summed in any
    order (``n eps`` times the sum), plus a few units of the subnormal spacing per term (a
    kernel value below the smallest normal float has an absolute, not a relative, precision)."""
    K = _gram(X, X, gamma)
    if model != "naive":
        np.fill_diagonal(K, 0.0)
    pos = np.array([math.fsum(row) for row in K[:, y > 0]])
    neg = np.array([math.fsum(row) for row in K[:, y < 0]])
    sq = (X**2).sum(1)
    term = K * (8.0 + 8.0 * gamma * (sq[:, None] + sq[None, :] + 1.0))
    subnormal = 8 * y.size * np.nextafter(0.0, 1.0)
    return pos, neg, np.finfo(float).eps * (4 * y.size * (pos + neg) + term.sum(1)) + subnormal


def resolution(nu_pos: np.ndarray, nu_neg: np.ndarray, a_pos: float, a_neg: float) -> np.ndarray:
    """Per point, the round-off of its net signal: 64 n eps (a+ |nu+_j| + a- |nu-_j|)."""
    eps = np.finfo(float).eps
    return 64 * nu_pos.size * eps * (a_pos * np.abs(nu_pos) + a_neg * np.abs(nu_neg))


def errors_from_signals(
    nu_pos: np.ndarray, nu_neg: np.ndarray, y: np.ndarray, model: str, scale: float = 1.0
) -> int:
    """Errors of the best (alpha, beta0) of the model, written out: every alpha+ of the grid
    (LOO_2 and naive: alpha+ = alpha- = 1), every threshold between two consecutive signals
    farther apart than both their round-offs (``scale`` times :func:`resolution`) and beyond
    both ends; right iff y (nu + b) > 0 (LOO_1: b = 0, right iff y nu > its round-off)."""
    weights = [(i / 10, 1.0 - i / 10) for i in range(11)] if model == "loo3" else [(1.0, 1.0)]
    best = 0
    for a_pos, a_neg in weights:
        nu = a_pos * nu_pos - a_neg * nu_neg
        r = scale * resolution(nu_pos, nu_neg, a_pos, a_neg)
        if model == "loo1":
            return int(np.sum(y * nu <= r))
        o = np.argsort(-nu, kind="stable")
        c, rc = -nu[o], r[o]
        cut = [c[0] - 1.0, c[-1] + 1.0]
        for k in range(c.size - 1):
            if c[k + 1] - c[k] > max(rc[k], rc[k + 1]):
                cut.append(0.5 * (c[k] + c[k + 1]))
        best = max(best, max(int(np.sum(y * (nu + b) > 0)) for b in cut))
    return y.size - best


def _check_loo_estimate(problem, model: str) -> None:
    X, y, _, gamma = problem
    bound = LOOEstimate(model=model).bind(X, y, kernel=RBF())
    ev = bound.evaluate({"gamma": gamma})
    errors = round(ev.value * y.size)
    ours_pos, ours_neg, _ = bound.class_signals({"gamma": gamma})
    pos, neg, roundoff = class_signals_by_definition(X, y, gamma, model)
    # the sums: exact up to the round-off of a float64 sum
    assert np.all(np.abs(ours_pos - pos) <= roundoff)
    assert np.all(np.abs(ours_neg - neg) <= roundoff)
    # the search for the best alpha and beta0: exactly the written-out one on the same sums
    assert errors == errors_from_signals(ours_pos, ours_neg, y, model)
    # and the count of the exact sums, wherever the round-off of the sums (or where the
    # resolution falls between two signals) changes no decision
    counts = {
        errors_from_signals(pos, neg, y, model),
        errors_from_signals(pos, neg, y, model, 0.5),
        errors_from_signals(pos, neg, y, model, 2.0),
        errors_from_signals(pos + roundoff, neg - roundoff, y, model),
        errors_from_signals(pos - roundoff, neg + roundoff, y, model),
    }
    if len(counts) == 1:
        assert errors == counts.pop()


MODELS = st.sampled_from(["loo1", "loo2", "loo3", "naive"])


@QUICK
@given(problems(min_per_class=2), MODELS)
def test_loo_estimates_equal_their_definition(problem, model) -> None:
    _check_loo_estimate(problem, model)


@pytest.mark.slow
@DEEP
@given(problems(min_per_class=2), MODELS)
def test_loo_estimates_equal_their_definition_deep(problem, model) -> None:
    _check_loo_estimate(problem, model)


# -- k-fold cross-validation ----------------------------------------------------------------

ORACLE_TOL = 1e-10
"""KKT tolerance of the objectives and of the scikit-learn oracle, relative to max(1, C)."""


def _libsvm(X, y, tr, va, C, gamma, tol) -> tuple[np.ndarray, bool, np.ndarray, float]:
    """scikit-learn's SVC on ``tr``: its decision values on ``va``, whether it converged, its
    alphas over ``tr`` and its bias."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf = LibSVC(C=C, gamma=gamma, tol=tol, max_iter=5_000_000).fit(X[tr], y[tr])
    ok = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    alpha = np.zeros(tr.size)
    alpha[clf.support_] = np.abs(clf.dual_coef_[0])
    return clf.decision_function(X[va]), ok, alpha, float(clf.intercept_[0])


def _undecided(ours: np.ndarray, lib: np.ndarray, C: float) -> np.ndarray:
    """Decisions within round-off of zero in either computation: a tie (an SVM through the
    point is optimal), whose sign neither solver can tell."""
    return (np.abs(ours) <= 1e-8 * max(1.0, C)) | (np.abs(lib) <= 1e-8 * max(1.0, C))


def _check_kfold(problem, k: int) -> None:
    X, y, C, gamma = problem
    tol = ORACLE_TOL * max(1.0, C)
    bound = KFoldCV(k=k, tol=tol, seeding=False, max_iter=5_000_000).bind(X, y, kernel=RBF())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ev = bound.evaluate({"C": C, "gamma": gamma})
    assume(ev.info["converged"])
    K = _gram(X, X, gamma)
    errors = 0
    for f, (tr, va) in enumerate(bound.folds):
        lib, ok, lib_alpha, lib_b = _libsvm(X, y, tr, va, C, gamma, tol)
        assume(ok)
        res, _, _ = bound._solve_fold(f, C, {"gamma": gamma}, K, None)
        ours = K[np.ix_(va, tr)] @ (res.alpha[tr] * y[tr]) + res.b
        assume(not np.any(_undecided(ours, lib, C)))
        # two tol-optimal SVMs may disagree only within the distance their duality gaps
        # guarantee between them (at C = 1e5 that band can hold validation points)
        band = undecided_validation_points(res.alpha[tr], res.b, lib_alpha, lib_b, y, K, C, tr, va)
        assume(band == 0)
        errors += int(np.sum(np.where(lib >= 0.0, 1.0, -1.0) != y[va]))
    assert ev.info["errors"] == errors
    assert ev.value == errors / y.size
    # fold by fold, on kernel rows computed on demand (the path a pruner takes): the same count
    stepwise = KFoldCV(k=k, tol=tol, seeding=False, max_iter=5_000_000).bind(X, y, kernel=RBF())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows = stepwise.evaluate({"C": C, "gamma": gamma}, report=lambda step, value: False)
    assume(rows.info["converged"])
    assert rows.info["errors"] == errors


@QUICK
@given(problems(min_per_class=3, max_n=50), st.sampled_from([2, 3]))
def test_kfold_equals_a_loop_over_the_same_folds(problem, k) -> None:
    _check_kfold(problem, k)


@pytest.mark.slow
@DEEP
@given(problems(min_per_class=3, max_n=60), st.sampled_from([2, 3]))
def test_kfold_equals_a_loop_over_the_same_folds_deep(problem, k) -> None:
    _check_kfold(problem, k)


# -- Platt's empirical error ----------------------------------------------------------------


def platt_error_by_definition(f: np.ndarray, y: np.ndarray) -> float:
    """Mean |t - p| with Platt's sigmoid fitted by BFGS on the cross-entropy against Platt's
    regularised targets. The model ``p = 1 / (1 + exp(A f + B))`` is the same for any affine
    rescaling of ``f``, so it is fitted on standardized values (well conditioned however small
    the spread of ``f``)."""
    f = (f - f.mean()) / f.std()
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    t = np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(ab: np.ndarray) -> float:
        z = ab[0] * f + ab[1]
        return float(np.sum(np.logaddexp(0.0, z) - (1.0 - t) * z))

    def grad(ab: np.ndarray) -> np.ndarray:
        z = ab[0] * f + ab[1]
        d = 1.0 / (1.0 + np.exp(-z)) - (1.0 - t)
        return np.array([np.sum(d * f), np.sum(d)])

    start = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    ab = scipy.optimize.minimize(loss, start, jac=grad, method="BFGS", tol=1e-12).x
    p = 1.0 / (1.0 + np.exp(ab[0] * f + ab[1]))
    return float(np.mean(np.where(y > 0, 1.0 - p, p)))


def _check_platt(problem) -> None:
    X, y, C, gamma = problem
    tol = ORACLE_TOL * max(1.0, C)
    obj = PlattError(validation=0.3, tol=tol, max_iter=5_000_000, warm_start=False)
    bound = obj.bind(X, y, kernel=RBF())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ev = bound.evaluate({"C": C, "gamma": gamma})
    assume(ev.info["converged"])
    ((tr, va),) = bound.folds
    lib, ok, lib_alpha, lib_b = _libsvm(X, y, tr, va, C, gamma, tol)
    assume(ok)
    spread = float(np.ptp(lib)) if lib.size > 1 else 0.0
    assume(spread > 1e-6 * max(1.0, C))  # a sigmoid through (nearly) one value: flat
    # the sigmoid and the mean, from the decision values our SVM gave the validation part
    state = bound._solve({"C": C, "gamma": gamma}, None)
    assert ev.value == pytest.approx(platt_error_by_definition(state.f, y[va]), abs=1e-7)
    # that SVM is scikit-learn's up to the solvers' tolerance: the same labels where no
    # decision is a tie (the sigmoid's error itself moves with the decision values by their
    # spread over the solvers' difference: large on a near-constant kernel, so not compared)
    # (and none within the band two tol-optimal SVMs may disagree in, as for k-fold CV)
    band = undecided_validation_points(
        state.alphas[0][tr], state.results[0].b, lib_alpha, lib_b, y, _gram(X, X, gamma), C, tr, va
    )
    if band == 0 and not np.any(_undecided(state.f, lib, C)):
        assert ev.info["validation_error"] == np.mean(np.where(lib >= 0, 1.0, -1.0) != y[va])


@QUICK
@given(problems(min_per_class=4, min_n=12))
def test_platt_error_equals_its_definition(problem) -> None:
    _check_platt(problem)


@pytest.mark.slow
@DEEP
@given(problems(min_per_class=4, min_n=12))
def test_platt_error_equals_its_definition_deep(problem) -> None:
    _check_platt(problem)
