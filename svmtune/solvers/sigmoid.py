"""Platt's sigmoid ``p = 1 / (1 + exp(A f + B))`` fitted to decision values.

The fit is the improved algorithm of Lin, Lin and Weng ("A note on Platt's probabilistic
outputs for support vector machines", 2007): Newton's method with a backtracking line search on
the cross-entropy with Platt's regularised targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``,
written so that no ``exp`` overflows. The fitted ``(A, B)`` minimise the same function
scikit-learn's sigmoid calibration minimises.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import check_labels
from svmtune._warnings import warn_not_converged

__all__ = ["Sigmoid", "fit_sigmoid", "sigmoid_targets"]


class Sigmoid(NamedTuple):
    """A fitted sigmoid ``p(f) = 1 / (1 + exp(A f + B))`` and how the fit went."""

    A: float
    B: float
    iterations: int
    converged: bool

    def __call__(self, f: ArrayLike) -> NDArray[np.float64]:
        """Probabilities ``p(f)`` of the positive class, computed without overflow."""
        return _prob(self.A * np.asarray(f, dtype=np.float64) + self.B)


def _prob(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """``1 / (1 + exp(z))`` without overflow."""
    out = np.empty_like(z)
    pos = z >= 0
    e = np.exp(-z[pos])
    out[pos] = e / (1.0 + e)
    out[~pos] = 1.0 / (1.0 + np.exp(z[~pos]))
    return out


def sigmoid_targets(y: ArrayLike) -> NDArray[np.float64]:
    """Platt's regularised targets: ``(N+ + 1) / (N+ + 2)`` for ``y = +1``, ``1 / (N- + 2)``
    for ``y = -1``.

    Examples
    --------
    >>> sigmoid_targets([1.0, 1.0, -1.0]).round(4).tolist()
    [0.75, 0.75, 0.3333]
    """
    yy = check_labels(y)
    n_pos = float(np.sum(yy > 0))
    n_neg = float(yy.size - n_pos)
    return np.where(yy > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def _loss(f: NDArray[np.float64], t: NDArray[np.float64], A: float, B: float) -> float:
    z = A * f + B
    # sum t log(1 + e^z) + (1 - t) log(1 + e^-z), stable for either sign of z
    return float(np.sum(np.where(z >= 0, t * z, (t - 1.0) * z) + np.log1p(np.exp(-np.abs(z)))))


_EPS = float(np.finfo(np.float64).eps)


def _grad_max(f: NDArray[np.float64], t: NDArray[np.float64], A: float, B: float) -> float:
    """``max(|dL/dA|, |dL/dB|)`` at ``(A, B)``."""
    d1 = t - _prob(A * f + B)
    return max(abs(float(np.dot(f, d1))), abs(float(np.sum(d1))))


def _constant_fit(t: NDArray[np.float64]) -> Sigmoid:
    """The fit on identical decision values: ``A = 0`` and ``p = 1 / (1 + exp(B))`` the mean
    of Platt's targets (the minimum of the cross-entropy in ``B``; A is then immaterial)."""
    mean = float(np.mean(t))
    return Sigmoid(0.0, math.log((1.0 - mean) / mean), 0, True)


def fit_sigmoid(
    f: ArrayLike,
    y: ArrayLike,
    *,
    tol: float = 1e-5,
    max_iter: int = 100,
    min_step: float = 1e-10,
    sigma: float = 1e-12,
) -> Sigmoid:
    """Fit Platt's sigmoid to decision values ``f`` with labels ``y`` in {-1, +1}.

    Lin, Lin and Weng's Newton method: the Hessian of the cross-entropy is regularised by
    ``sigma`` on its diagonal, each Newton step is halved until the loss decreases enough
    (Armijo, factor 1e-4), and the iteration stops when both gradient entries are below
    ``tol`` in absolute value. The model is the same for any affine change of ``f``, so the
    Newton iterations run on the standardized values ``(f - mean) / sd`` and ``(A, B)`` is
    mapped back: the fit is as well conditioned for decision values spread over 1e-6 as
    over 1e6 (``tol`` applies to the standardized problem). Identical decision values give
    ``A = 0`` and the ``B`` whose probability is the mean of Platt's targets (the exact
    minimum), without iterating.

    Parameters
    ----------
    f : array of shape (n,)
        Decision values.
    y : array of shape (n,)
        Labels in {-1, +1}; both classes must occur.
    tol : float, default 1e-5
        Stop when ``max(|dL/dA|, |dL/dB|) < tol`` (the paper's value).
    max_iter : int, default 100
    min_step : float, default 1e-10
        Smallest step of the line search; reaching it ends the fit (with a warning).
    sigma : float, default 1e-12
        Added to the Hessian's diagonal.

    Returns
    -------
    Sigmoid
        ``(A, B, iterations, converged)``; call it to get probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> s = fit_sigmoid([-2.0, -1.0, 0.5, 1.0, 2.0], [-1, -1, -1, 1, 1])
    >>> bool(s.A < 0), s.converged
    (True, True)
    >>> bool(s([3.0])[0] > 0.5)
    True
    """
    ff = np.asarray(f, dtype=np.float64).ravel()
    yy = check_labels(y)  # both classes, or a ValueError naming the one
    if ff.shape != yy.shape:
        raise ValueError(f"f has shape {ff.shape} but y has shape {yy.shape}")
    if not np.all(np.isfinite(ff)):
        raise ValueError("decision values f contain a non-finite value (NaN or inf)")
    t = sigmoid_targets(yy)
    if np.ptp(ff) == 0.0:
        # one decision value for every point (np.std would return rounding, not 0): nothing
        # to fit in A; the loss's minimum is p = the mean target, exactly
        return _constant_fit(t)
    shift, spread = float(np.mean(ff)), float(np.std(ff))
    if not spread > 4.0 * _EPS * abs(shift) or not math.isfinite(spread):
        shift, spread = 0.0, 1.0
    ff = (ff - shift) / spread
    n_pos = float(np.sum(yy > 0))
    n_neg = float(yy.size - n_pos)
    A, B = 0.0, math.log((n_neg + 1.0) / (n_pos + 1.0))
    fval = _loss(ff, t, A, B)
    it = 0
    converged = False
    while it < max_iter:
        p = _prob(A * ff + B)  # = 1 / (1 + exp(A f + B))
        d1 = t - p  # dL/dz
        d2 = p * (1.0 - p)  # d2L/dz2
        h11 = sigma + float(np.dot(ff * ff, d2))
        h22 = sigma + float(np.sum(d2))
        h21 = float(np.dot(ff, d2))
        g1 = float(np.dot(ff, d1))
        g2 = float(np.sum(d1))
        if abs(g1) < tol and abs(g2) < tol:
            converged = True
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        gmax = max(abs(g1), abs(g2))
        # the loss's own rounding: near the optimum a Newton step decreases it by about
        # -gd / 2 ~ |g|^2 / h, which falls below this long before |g| reaches a tight tol
        noise = 16.0 * _EPS * (abs(fval) + ff.size)
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = _loss(ff, t, newA, newB)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            if newf <= fval + noise and _grad_max(ff, t, newA, newB) < gmax:
                # no decrease the loss can show: judge the step by the gradient instead
                # (Newton's quadratic convergence), else the fit stalls at |g| ~ sqrt(noise h)
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        it += 1
        if step < min_step:
            # No decrease possible in floating point: at the optimum up to rounding.
            p = _prob(A * ff + B)
            g = max(abs(float(np.dot(ff, t - p))), abs(float(np.sum(t - p))))
            converged = g < max(tol, 1e-8 * max(1.0, float(ff.size)))
            break
    if not converged:
        warn_not_converged(
            f"the sigmoid fit stopped after {it} Newton iterations before reaching tol={tol:g}",
            stacklevel=2,
        )
    # A g + B with g = (f - shift) / spread
    return Sigmoid(float(A / spread), float(B - A * shift / spread), it, converged)
