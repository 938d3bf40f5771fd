"""exact_loo: the exact leave-one-out error against brute-force retraining (our SMO at a tight
tolerance and scikit-learn's LeaveOneOut loop), Franc's stop against the eps-KKT stop (counted
kernel rows), the efficiency test, max_iter, the kernel-row path and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC

from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, KernelRows, exact_loo
from tests.solvers._data import real_split

NEAR_ZERO = 1e-2
"""A left-out decision this close to zero may come out on either side at the eps-KKT stop."""


def _brute_force(y: np.ndarray, C: float, K: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Left-out decisions at every point, SMO without it from scratch at a tight tolerance:
    columns (midpoint bias as LIBSVM, lowest and highest over the optimal biases). Without a
    free support vector the optimal bias is an interval, and so is the left-out decision."""
    n = y.size
    dec = np.empty((n, 3))
    everyone = np.arange(n)
    solver = SMO(tol=tol, check_kernel=False)
    for r in range(n):
        act = everyone[everyone != r]
        res = solver.solve(y, C=C, gram=K, active=act)
        g = y[r] * (res.gradient[r] + 1.0)
        a, yy, v = res.alpha[act], y[act], -y[act] * res.gradient[act]
        # free: away from both bounds by more than round-off (an alpha of 1e-16 is at 0)
        if np.any((a > 1e-12 * C) & (a < C * (1 - 1e-12))):
            lo = hi = res.b
        else:
            below, above = a < C * (1 - 1e-12), a > 1e-12 * C
            lo = v[np.where(yy > 0, below, above)].max(initial=-np.inf)
            hi = v[np.where(yy > 0, above, below)].min(initial=np.inf)
        dec[r] = g + res.b, g + lo, g + hi
    return dec


def _assert_agrees(res, y: np.ndarray, dec: np.ndarray, where: str, near: float = NEAR_ZERO):
    truth = np.where(dec[:, 0] >= 0.0, 1.0, -1.0) != y
    differ = np.flatnonzero(res.wrong != truth)
    # allowed: the optimal left-out decisions come within `near` of zero
    ambiguous = (dec[differ, 1] <= near) & (dec[differ, 2] >= -near)
    far = differ[~ambiguous]
    assert far.size == 0, (
        f"{where}: left-out points {far.tolist()} disagree with brute force although their "
        f"optimal decisions {dec[far].tolist()} are not within {near} of zero"
    )
    return differ


def _data(name: str, kernel: str):
    X, y, _, _ = real_split(name)
    if kernel == "rbf":
        return y, RBF().prepare(X).gram({"gamma": 1.0 / X.shape[1]})
    return y, Linear().prepare(X).gram({})


CASES = [
    ("heart", "rbf", 1.0),
    ("sonar", "rbf", 10.0),
    ("ionosphere", "rbf", 1.0),
    ("wdbc", "rbf", 1.0),
    ("heart", "linear", 0.1),
]


@pytest.mark.parametrize(("name", "kernel", "C"), CASES)
def test_equals_brute_force_retraining_on_real_sets(name, kernel, C) -> None:
    y, K = _data(name, kernel)
    dec = _brute_force(y, C, K)
    for stopping in ("franc", "kkt"):
        res = exact_loo(y, C=C, gram=K, stopping=stopping)
        differ = _assert_agrees(res, y, dec, f"{name}/{kernel}/{stopping}")
        # every disagreement is named and costs at most one point each
        truth = np.where(dec[:, 0] >= 0, 1.0, -1.0) != y
        assert abs(res.error - np.mean(truth)) <= differ.size / y.size
        c = res.counts
        assert (
            c["settled_alpha_zero"]
            + c["settled_misclassified"]
            + c["settled_xi_alpha"]
            + c["retrained"]
            == y.size
        )
        # where the decision was computed, it is the brute-force one up to the solver tolerance,
        # and certified decisions have the sign of the optimum
        cert = np.flatnonzero(res.status == 1)
        assert np.all(np.sign(res.decision[cert]) == np.sign(dec[cert, 0]))
        assert np.all(np.sign(dec[cert, 1]) == np.sign(dec[cert, 2]))  # unique sign
        if stopping == "kkt":
            assert c["certified"] == 0


def test_equals_scikit_learn_leave_one_out_loop() -> None:
    X, y, _, _ = real_split("heart")
    gamma = 1.0 / X.shape[1]
    C = 1.0
    dec = np.empty((y.size, 3))
    for r in range(y.size):
        keep = np.arange(y.size) != r
        clf = LibSVC(C=C, gamma=gamma, tol=1e-6).fit(X[keep], y[keep])
        dec[r] = clf.decision_function(X[r : r + 1])[0]
    K = RBF().prepare(X).gram({"gamma": gamma})
    for stopping in ("franc", "kkt"):
        _assert_agrees(exact_loo(y, C=C, gram=K, stopping=stopping), y, dec, stopping)


@pytest.mark.parametrize("name", ["heart", "sonar"])
def test_franc_never_reads_more_kernel_rows_than_kkt(name) -> None:
    y, K = _data(name, "rbf")
    for C in (1.0, 10.0):
        franc = exact_loo(y, C=C, gram=K, stopping="franc")
        kkt = exact_loo(y, C=C, gram=K, stopping="kkt")
        assert franc.error == kkt.error
        assert franc.counts["kernel_rows"] <= kkt.counts["kernel_rows"]
        assert franc.counts["retrain_iterations"] <= kkt.counts["retrain_iterations"]
        if franc.stopping_used == "franc":
            assert franc.counts["certified"] > 0
            assert franc.counts["prec_percent"] == pytest.approx(
                100.0 * franc.counts["certified"] / franc.counts["retrained"]
            )


def test_efficiency_test_falls_back_to_kkt_and_says_so() -> None:
    # A loose KKT stop ends the retrains before the bound can certify anything.
    y, K = _data("heart", "rbf")
    res = exact_loo(y, C=1.0, gram=K, stopping="franc", tol=0.5)
    assert res.counts["retrained"] > 10
    assert 2 * res.counts["efficiency_certified"] < 10
    assert res.stopping_used == "kkt"
    # only the first M = 10 retrains ran under Franc's stop
    assert res.counts["certified"] == res.counts["efficiency_certified"]
    assert not np.any(res.status[res.settled_by == 3][10:] == 1)
    assert res.counts["prec_percent"] == pytest.approx(10.0 * res.counts["certified"])


def test_kernel_row_cache_gives_the_same_answer() -> None:
    X, y, _, _ = real_split("heart")
    g = {"gamma": 1.0 / X.shape[1]}
    full = exact_loo(y, C=1.0, gram=RBF().prepare(X).gram(g))
    rows = exact_loo(y, C=1.0, gram=KernelRows(RBF(), g, X, capacity=40), stopping="franc")
    assert rows.stopping_used == "kkt"
    assert rows.counts["kernel_evals"] > 0
    dec = _brute_force(y, 1.0, RBF().prepare(X).gram(g))
    _assert_agrees(rows, y, dec, "rows")
    assert abs(rows.error - full.error) <= 1 / y.size


def test_max_iter_warns_counts_and_returns() -> None:
    y, K = _data("sonar", "rbf")
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        res = exact_loo(y, C=10.0, gram=K, stopping="kkt", max_iter=3)
    assert res.counts["max_iter_reached"] > 0
    assert np.all(res.counts["retrain_iterations"] <= 3 * res.counts["retrained"])


def test_parallel_equals_serial() -> None:
    y, K = _data("heart", "rbf")
    a = exact_loo(y, C=1.0, gram=K, n_jobs=1)
    b = exact_loo(y, C=1.0, gram=K, n_jobs=2)
    assert np.array_equal(a.wrong, b.wrong)
    assert np.array_equal(a.status, b.status)
    assert a.counts == b.counts


def test_bad_input_raises_clear_errors() -> None:
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
    K = np.eye(5)
    with pytest.raises(ValueError, match=r"at least 3 points of each class.*class -1 has 2"):
        exact_loo(y, C=1.0, gram=K)
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    K = np.eye(6)
    for C in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="C"):
            exact_loo(y, C=C, gram=K)
    bad = np.eye(6)
    bad[0, 1] = bad[1, 0] = 2.0
    with pytest.raises(ValueError, match="not positive semidefinite"):
        exact_loo(y, C=1.0, gram=bad)
    with pytest.raises(ValueError, match="stopping"):
        exact_loo(y, C=1.0, gram=K, stopping="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="5 points but y has 6"):
        exact_loo(y, C=1.0, gram=np.eye(5))
    with pytest.raises(ValueError, match="max_iter"):
        exact_loo(y, C=1.0, gram=K, max_iter=0)


@settings(max_examples=80, deadline=None)
# an SVM without a free support vector once a point is left out (the bias is an interval that
# straddles the left-out decision's zero), and an alpha SMO once left at 7e-16 instead of 0
@example(n=10, d=1, C=12.640625, gamma=0.05469999979629267, linear=False, seed=323953)
@given(
    n=st.integers(6, 24),
    d=st.integers(1, 3),
    C=st.floats(0.05, 50.0),
    gamma=st.floats(0.05, 5.0),
    linear=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_property_equals_brute_force_on_small_random_problems(n, d, C, gamma, linear, seed) -> None:
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:3], y[3:6] = 1.0, -1.0
    X = rng.normal(size=(n, d)) + 0.7 * y[:, None]
    K = X @ X.T if linear else RBF().prepare(X).gram({"gamma": gamma})
    dec = _brute_force(y, C, K, tol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        for stopping in ("franc", "kkt"):
            res = exact_loo(y, C=C, gram=K, stopping=stopping, tol=1e-6)
            _assert_agrees(res, y, dec, stopping, near=1e-4)
