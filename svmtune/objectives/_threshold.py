"""Fischetti's Algorithm 1: the threshold beta0 that classifies the most points right."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ThresholdResult", "best_threshold", "best_thresholds"]


class ThresholdResult(NamedTuple):
    """``beta0`` and the number of points with ``y_j (nu_j + beta0) > 0``."""

    beta0: float
    n_correct: int


def best_threshold(nu: ArrayLike, y: ArrayLike, *, resolution: ArrayLike = 0.0) -> ThresholdResult:
    """The threshold ``beta0`` maximising the number of points with ``y_j (nu_j + beta0) > 0``.

    Fischetti (2016), Algorithm 1, with the scan order corrected: as ``beta0`` grows past
    ``-nu_j``, point ``j`` turns to the +1 side, so the breakpoints ``c_j = -nu_j`` are scanned in
    increasing order (the ``nu_j`` in *decreasing* order). At a breakpoint itself every point
    sitting on it is wrong (strict inequality), so only the open gaps between consecutive distinct
    breakpoints are candidates: ``beta0`` is put in the middle of the winning gap, or, for the two
    unbounded gaps, half the breakpoints' spread (at least 0.5) beyond the outermost breakpoint.
    Ties between gaps go to the smallest ``beta0`` (the first found, as in the paper).
    O(p log p). Two consecutive breakpoints no farther apart than the larger of their
    ``resolution`` (the round-off of each signal) are one breakpoint: a gap that narrow is
    round-off, not a threshold between two points (duplicated rows with both labels have equal
    signals in exact arithmetic).

    Parameters
    ----------
    nu : array of shape (p,)
        Net signals.
    y : array of shape (p,)
        Labels in {-1, +1}.
    resolution : float or array of shape (p,), default 0.0
        The round-off of each signal.

    Examples
    --------
    >>> best_threshold([2.0, 1.0, -1.0], [1, 1, -1])
    ThresholdResult(beta0=0.0, n_correct=3)
    >>> best_threshold([3.0, 2.0, 1.0], [1, 1, -1])   # beta0 in the gap (-2, -1)
    ThresholdResult(beta0=-1.5, n_correct=3)
    """
    nu = np.asarray(nu, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if nu.shape != y.shape or nu.size == 0:
        raise ValueError(f"nu and y must be non-empty and of equal length; got {nu.size}, {y.size}")
    res = np.broadcast_to(np.asarray(resolution, dtype=np.float64), nu.shape)
    beta0, n_correct = best_thresholds(nu[None, :], y, resolution=res[None, :])
    return ThresholdResult(float(beta0[0]), int(n_correct[0]))


def best_thresholds(
    nu: NDArray[np.float64], y: NDArray[np.float64], *, resolution: ArrayLike = 0.0
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """:func:`best_threshold` for every row of ``nu`` (shape (G, p)) at once, vectorized.

    LOO_3 calls it once with one row per value of ``alpha+``; ``resolution`` broadcasts to
    the shape of ``nu``.
    """
    G, p = nu.shape
    c = -nu
    order = np.argsort(c, axis=1, kind="stable")
    cs = np.take_along_axis(c, order, axis=1)
    ys = y[order]
    n_neg = float(np.count_nonzero(y < 0))
    # n_ok[:, k] for k >= 1: beta0 just right of the k-th smallest breakpoint cs[:, k-1]. Only
    # the last position of each run of equal breakpoints is a gap; the others are not candidates.
    n_ok = np.empty((G, p + 1))
    n_ok[:, 0] = n_neg
    n_ok[:, 1:] = np.cumsum(ys > 0, axis=1) + (n_neg - np.cumsum(ys < 0, axis=1))
    rs = np.take_along_axis(
        np.broadcast_to(np.asarray(resolution, dtype=np.float64), nu.shape), order, axis=1
    )
    n_ok[:, 1:p][cs[:, 1:] - cs[:, :-1] <= np.maximum(rs[:, 1:], rs[:, :-1])] = -1.0
    k = np.argmax(n_ok, axis=1)  # first maximum: the smallest beta0 among ties
    rows = np.arange(G)
    lo, hi = cs[:, 0], cs[:, -1]
    margin = np.maximum(0.5 * (hi - lo), 0.5)
    inner = (k > 0) & (k < p)
    kk = np.clip(k, 1, p - 1) if p > 1 else np.ones_like(k)
    mid = 0.5 * (cs[rows, kk - 1] + cs[rows, np.minimum(kk, p - 1)])
    beta0 = np.where(k == 0, lo - margin, np.where(inner, mid, hi + margin))
    # Count at the chosen beta0 itself: equal to n_ok[k] unless two breakpoints are so close
    # that their midpoint rounds onto one of them; then the honest (smaller) count is reported.
    n_correct = np.count_nonzero(y[None, :] * (nu + beta0[:, None]) > 0, axis=1)
    return beta0, n_correct
