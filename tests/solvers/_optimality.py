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
