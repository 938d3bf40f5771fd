"""Independent oracles for the estimates of error: leave-one-out by retraining once per point,
and random problems over the whole default box for the property tests.

The retraining oracle uses svmtune's SMO from scratch on all points but one (no seeding, no
shortcut), at a tolerance tight relative to the size of the gradient terms, and the bias
convention of LIBSVM at the optimum: the one optimal bias when a support vector is free, else
the midpoint of the interval of optimal biases. It computes that midpoint directly, as the
midpoint of the biases minimising the hinge sum at the solution (sorted here, not through the
code under test)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from svmtune.solvers import SMO

ORACLE_TOL = 1e-10
"""The retraining oracle's KKT tolerance, relative to ``max(1, C max K_ii)``."""

TIE = 1e-8
"""A left-out decision within ``TIE max(1, C max K_ii)`` of zero is a tie (round-off decides
its sign: an SVM through the point is optimal), classified ``+1`` as a decision of 0."""

ORACLE_MAX_ITER = 3_000_000


def optimal_bias(y: np.ndarray, G: np.ndarray, active: np.ndarray) -> float:
    """Midpoint of the biases minimising ``sum_t max(0, 1 - y_t (g_t + b))`` over ``active``.

    With ``g_t = y_t (G_t + 1)``, the hinge sum's slope in ``b`` is ``#{-y_t G_t < b} - P``
    (``P`` positives), zero between the ``P``-th and ``P+1``-th smallest ``-y_t G_t``."""
    v = np.sort(-y[active] * G[active])
    P = int(np.sum(y[active] > 0))
    return 0.5 * (v[P - 1] + v[P])


def loo_by_retraining(
    y: np.ndarray, C: float, K: np.ndarray, *, tol: float = ORACLE_TOL
) -> tuple[np.ndarray, bool]:
    """Left-out decisions at every point, one SMO from scratch per point; and whether every
    solve reached its tolerance."""
    n = y.size
    dec = np.empty(n)
    everyone = np.arange(n)
    scale = max(1.0, C * float(np.max(np.diag(K))))
    solver = SMO(
        tol=tol * scale,
        max_iter=ORACLE_MAX_ITER,
        check_kernel=False,
    )
    converged = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for r in range(n):
            act = everyone[everyone != r]
            res = solver.solve(y, C=C, gram=K, active=act)
            converged &= bool(res.converged)
            dec[r] = y[r] * (res.gradient[r] + 1.0) + optimal_bias(y, res.gradient, act)
    dec[np.abs(dec) <= TIE * scale] = 0.0
    return dec, converged


def loo_wrong(y: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """Which points the left-out decisions misclassify (a decision ``>= 0`` means ``+1``)."""
    return np.where(decisions >= 0.0, 1.0, -1.0) != y


@st.composite
def problems(
    draw: st.DrawFn,
    *,
    min_n: int = 6,
    max_n: int = 60,
    min_per_class: int = 3,
    max_features: int = 8,
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(X, y, C, gamma)``: ``min_n``..``max_n`` standardized points, 1..``max_features``
    features, classes as unbalanced as ``min_per_class`` allows, often duplicated rows (with
    either label), ``C`` log-uniform over 1e-3..1e5 and ``gamma`` over 1e-5..1e5 with their ends
    drawn often (all-bounded solutions, hard margins, kernels near the all-ones matrix and
    near the identity)."""
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(1, max_features))
    n_pos = draw(st.integers(min_per_class, n - min_per_class))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + draw(st.sampled_from([0.0, 0.5, 2.0])) * y[:, None]
    n_dup = draw(st.integers(0, n // 2))
    if n_dup:
        X[rng.integers(0, n, n_dup)] = X[rng.integers(0, n, n_dup)]
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    log_C = draw(st.one_of(st.floats(-3.0, 5.0), st.sampled_from([-3.0, 5.0])))
    log_g = draw(st.one_of(st.floats(-5.0, 5.0), st.sampled_from([-5.0, 5.0])))
    return X, y, 10.0**log_C, 10.0**log_g
