"""Fischetti's Algorithm 1: the threshold beta0 that classifies the most points right."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ThresholdResult", "best_threshold"]


class ThresholdResult(NamedTuple):
    """``beta0`` and the number of points with ``y_j (nu_j + beta0) > 0``."""

    beta0: float
    n_correct: int


def best_threshold(nu: ArrayLike, y: ArrayLike) -> ThresholdResult:
    """The threshold ``beta0`` maximising the number of points with ``y_j (nu_j + beta0) > 0``.

    Fischetti (2016), Algorithm 1, with the scan order corrected: as ``beta0`` grows past
    ``-nu_j``, point ``j`` turns to the +1 side, so the breakpoints ``c_j = -nu_j`` are scanned in
    increasing order (the ``nu_j`` in *decreasing* order). At a breakpoint itself every point
    sitting on it is wrong (strict inequality), so only the open gaps between consecutive distinct
    breakpoints are candidates: ``beta0`` is put in the middle of the winning gap, or, for the two
    unbounded gaps, half the breakpoints' spread (at least 0.5) beyond the outermost breakpoint.
    Ties between gaps go to the smallest ``beta0`` (the first found, as in the paper).
    O(p log p).

    Parameters
    ----------
    nu : array of shape (p,)
        Net signals.
    y : array of shape (p,)
        Labels in {-1, +1}.

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
    c = -nu
    values, inverse = np.unique(c, return_inverse=True)
    pos = np.bincount(inverse, weights=(y > 0), minlength=values.size)
    neg = np.bincount(inverse, weights=(y < 0), minlength=values.size)
    n_neg = float(neg.sum())
    # gap k (k = 0..m) lies right of the first k distinct breakpoints: there the +1 points with
    # c_j among them are right and the -1 points with c_j beyond them are right.
    n_ok = np.empty(values.size + 1)
    n_ok[0] = n_neg
    n_ok[1:] = np.cumsum(pos) + (n_neg - np.cumsum(neg))
    k = int(np.argmax(n_ok))  # first maximum: the smallest beta0 among ties
    m = values.size
    margin = max(0.5 * float(values[-1] - values[0]), 0.5)
    if k == 0:
        beta0 = float(values[0]) - margin
    elif k == m:
        beta0 = float(values[-1]) + margin
    else:
        beta0 = 0.5 * float(values[k - 1] + values[k])
    # Count at the chosen beta0 itself: equal to n_ok[k] unless two breakpoints are so close that
    # their midpoint rounds onto one of them; then the honest (smaller) count is reported.
    return ThresholdResult(beta0, int(np.count_nonzero(y * (nu + beta0) > 0)))
