"""Platt's sigmoid fit (Lin, Lin and Weng) against scikit-learn's sigmoid calibration."""

import numpy as np
import pytest
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
