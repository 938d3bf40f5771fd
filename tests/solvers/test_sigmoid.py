"""Platt's sigmoid fit (Lin, Lin and Weng) against scikit-learn's sigmoid calibration."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.calibration import _sigmoid_calibration

from svmtune import SVC
from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF
from svmtune.solvers.sigmoid import fit_sigmoid, sigmoid_targets


@pytest.mark.parametrize("name", ["heart", "breast-cancer", "titanic"])
def test_fit_matches_sklearn_on_svm_decision_values(name):
    Xtr, ytr, Xte, yte = ratsch_split(name, seed=1)
    f = SVC(C=1.0, kernel=RBF(), kernel_params={"gamma": 0.1}).fit(Xtr, ytr).decision_function(Xte)
    A, B = _sigmoid_calibration(f, yte)
    s = fit_sigmoid(f, yte, tol=1e-10)
    assert s.converged
    assert abs(s.A - A) < 1e-6 and abs(s.B - B) < 1e-6
    # the paper's tolerance already agrees to 1e-5
    s5 = fit_sigmoid(f, yte)
    assert abs(s5.A - A) < 1e-5 and abs(s5.B - B) < 1e-5


def test_fit_is_the_stationary_point_of_the_regularised_cross_entropy():
    Xtr, ytr, Xte, yte = ratsch_split("heart", seed=2)
    f = (
        SVC(C=10.0, kernel=RBF(), kernel_params={"gamma": 0.05})
        .fit(Xtr, ytr)
        .decision_function(Xte)
    )
    s = fit_sigmoid(f, yte, tol=1e-12)
    p = s(f)
    t = sigmoid_targets(yte)
    assert abs(np.dot(t - p, f)) < 1e-9 and abs(np.sum(t - p)) < 1e-9
    assert np.all((p > 0) & (p < 1))


def test_separable_values_do_not_overflow():
    f = np.array([-800.0, -700.0, 650.0, 900.0])
    s = fit_sigmoid(f, [-1, -1, 1, 1])
    p = s(f)
    assert np.all(np.isfinite(p)) and p[0] < 0.5 < p[3]


def test_bad_input():
    with pytest.raises(ValueError, match="single class"):
        fit_sigmoid([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="non-finite"):
        fit_sigmoid([0.1, np.nan], [1, -1])
    with pytest.raises(ValueError, match="shape"):
        fit_sigmoid([0.1, 0.2, 0.3], [1, -1])


@pytest.mark.parametrize("seed", range(4))
def test_tight_tol_is_reached_where_the_loss_cannot_show_a_decrease(seed):
    """Near the optimum a Newton step lowers the loss by ~|g|^2 / h, below its rounding long
    before |g| reaches 1e-12: the fit must still get there (not stop at |g| ~ 1e-7), or values
    built on (A, B) carry ~1e-9 of noise."""
    Xtr, ytr, Xte, yte = ratsch_split("heart", seed=seed)
    f = SVC(C=3.0, kernel=RBF(), kernel_params={"gamma": 0.05}).fit(Xtr, ytr).decision_function(Xte)
    s = fit_sigmoid(f, yte, tol=1e-12)
    t = sigmoid_targets(yte)
    p = s(f)
    assert s.converged
    assert abs(np.dot(t - p, f)) < 1e-12 and abs(np.sum(t - p)) < 1e-12


def _scipy_fit(f, y):
    """An independent fit of the same loss: Platt's regularized targets, the cross-entropy
    written directly, minimized by scipy's L-BFGS-B on ``(A * sd, B + A * mean)`` (the model in
    standardized decision values, so the optimizer sees a problem of unit scale whatever the
    spread) with the exact gradient and tolerances far below the fit's."""
    f = np.asarray(f, dtype=np.float64)
    pos = y > 0
    n_pos, n_neg = pos.sum(), (~pos).sum()
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    mean, sd = f.mean(), f.std()
    g = (f - mean) / sd

    def loss(ab):
        z = ab[0] * g + ab[1]  # p = 1 / (1 + e^z); -log-likelihood = sum (t z + log(1 + e^-z))
        p = 0.5 * (1.0 - np.tanh(0.5 * z))
        d = t - p
        return float(np.sum(t * z + np.logaddexp(0.0, -z))), np.array([d @ g, d.sum()])

    res = minimize(
        loss, np.zeros(2), jac=True, method="L-BFGS-B", options={"gtol": 1e-13, "ftol": 1e-15}
    )
    a, b = res.x
    return a / sd, b - a * mean / sd


@pytest.mark.parametrize("spread", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("seed", range(3))
def test_fit_matches_an_independent_fit_of_the_same_loss_at_any_spread(spread, seed):
    """Lin-Lin-Weng's Newton fit and scipy's quasi-Newton fit of the regularized cross-entropy
    agree on ``(A, B)`` (relative to their scale, ``A`` scaled by the spread) for decision values
    spread over 1e-6 to 1e6 around an offset."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(120) < 0.4, 1.0, -1.0)
    f = spread * (0.8 * y + rng.normal(0.0, 1.0, y.size)) + 3.0 * spread
    s = fit_sigmoid(f, y, tol=1e-11)
    a_ref, b_ref = _scipy_fit(f, y)
    assert s.converged
    assert s.A * spread == pytest.approx(a_ref * spread, rel=1e-6, abs=1e-8)
    assert s.B == pytest.approx(b_ref, rel=1e-6, abs=1e-8)
    # and both sit at the stationary point of the loss in the original values
    t = sigmoid_targets(y)
    d = t - s(f)
    assert abs(np.sum(d)) < 1e-8 and abs(np.dot(d, f)) / spread < 1e-8


@pytest.mark.parametrize("value", [0.1, 0.0, -3.7, 1e12])
def test_identical_decision_values_give_the_exact_fit(value):
    """One decision value for all points: A = 0 and p the mean of Platt's targets, exactly
    (6 positives, 14 negatives: (6 * 7/8 + 14 * 1/16) / 20 = 0.30625); ``np.std`` of such
    values is rounding (~1e-17), and standardizing by it gave A ~ 1e15 and p = 0.3074."""
    y = np.array([1] * 6 + [-1] * 14)
    s = fit_sigmoid(np.full(20, value), y)
    assert s.A == 0.0 and s.converged
    assert s([value])[0] == pytest.approx(0.30625, rel=1e-14)
    assert s.B == pytest.approx(math.log((1 - 0.30625) / 0.30625), rel=1e-14)
