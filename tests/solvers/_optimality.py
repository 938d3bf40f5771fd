"""What eps-optimality guarantees about two SVM solutions of one problem, whatever their alphas:
duality gaps and the distance of their weight vectors (for tests that compare solvers)."""

from __future__ import annotations

import numpy as np


def gap_of(alpha: np.ndarray, b: float, y: np.ndarray, K: np.ndarray, C: float) -> float:
    """Primal minus dual value ``P(w_alpha, b) + D(alpha) >= 0`` of a solution given by its
    alphas and bias (ours or libsvm's); ``D(alpha) = 1/2 a'Qa - e'a``."""
    ay = alpha * y
    f = K @ ay + b
    primal = 0.5 * float(ay @ K @ ay) + C * float(np.maximum(0.0, 1.0 - y * f).sum())
    return max(primal + 0.5 * float(ay @ K @ ay) - float(alpha.sum()), 0.0)


def w_distance(a1: np.ndarray, a2: np.ndarray, y: np.ndarray, K: np.ndarray) -> float:
    """``||w_1 - w_2||`` in feature space for two dual solutions."""
    d = (a1 - a2) * y
    return float(np.sqrt(max(d @ K @ d, 0.0)))


def w_bound(*gaps: float) -> float:
    """What eps-optimality guarantees about the weights: the primal is 1-strongly convex in w,
    so ``||w - w*||^2 <= 2 gap`` and two solutions are within ``sum sqrt(2 gap_i)`` of each
    other (a decision value ``<w, phi(x)> + b`` then within that times ``sqrt(k(x, x))``, plus
    the difference of the biases) - whatever their alphas."""
    return sum(float(np.sqrt(2.0 * max(g, 0.0))) for g in gaps) + 1e-9


def bias_of(alpha: np.ndarray, y: np.ndarray, K: np.ndarray, C: float) -> float:
    """The bias SMO reports for ``alpha`` (``SMOResult.b``): mean of ``-y G`` over the free
    support vectors, else the middle of the feasible interval."""
    v = -y * (y * (K @ (alpha * y)) - 1.0)
    alpha = np.clip(alpha, 0.0, C)  # within round-off of a bound is on it (as SMO counts)
    alpha = np.where(alpha <= 1e-14 * C, 0.0, np.where(alpha >= C - 1e-14 * C, C, alpha))
    free = (alpha > 0.0) & (alpha < C)
    if free.any():
        return float(np.mean(v[free]))
    up = np.where(y > 0, alpha < C, alpha > 0.0)
    low = np.where(y > 0, alpha > 0.0, alpha < C)
    return 0.5 * (float(v[up].max()) + float(v[low].min()))


def undecided_validation_points(
    alpha: np.ndarray,
    b: float,
    lib_alpha: np.ndarray,
    lib_b: float,
    y: np.ndarray,
    K: np.ndarray,
    C: float,
    tr: np.ndarray,
    va: np.ndarray,
) -> int:
    """How many validation points two tol-optimal solutions of one fold (alphas over ``tr``) may
    classify differently: those whose decision (libsvm's) is within the guaranteed distance of
    the two decision functions, ``w_bound(gaps) sqrt(k(x, x)) + |b - b'|``, of zero."""
    Ktr, ytr = K[np.ix_(tr, tr)], y[tr]
    gaps = [gap_of(a, bb, ytr, Ktr, C) for a, bb in ((alpha, b), (lib_alpha, lib_b))]
    diag = np.sqrt(np.maximum(np.diag(K)[va], 0.0))
    band = w_bound(*gaps) * diag + abs(b - lib_b)
    f_lib = K[np.ix_(va, tr)] @ (lib_alpha * ytr) + lib_b
    return int(np.count_nonzero(np.abs(f_lib) <= band))
