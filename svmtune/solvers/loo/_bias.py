"""The bias and the decision of a solution without one point, for exact leave-one-out.

:func:`midpoint_biases` is the bias convention of every left-out decision (LIBSVM's at the
optimum); :func:`left_out_decision` the decision at the left-out point; :data:`TIE` and
:func:`decision_scale` say when a decision is a tie at zero.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["TIE", "decision_scale", "left_out_decision", "midpoint_biases"]


def midpoint_biases(
    y: NDArray[np.float64], G: NDArray[np.float64], without: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """The bias of a dual solution, over all points or over all points but one.

    For a fixed ``alpha`` (gradient ``G = Q alpha - e``) the primal value's hinge sum has slope
    ``#{v_t < b} - P`` in ``b``, with ``v_t = -y_t G_t`` and ``P`` the positives; its minimisers
    are ``[v_(P), v_(P+1)]`` (order statistics), and the bias is their midpoint. At the optimum
    this is LIBSVM's convention: the one optimal bias when a support vector is free, else the
    midpoint of the interval of optimal biases. Near the optimum it moves with ``G`` only,
    whereas LIBSVM's mean over the free variables jumps when an eps-optimal ``alpha`` leaves a
    variable a hair away from a bound that the optimum has it on.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}.
    G : array of shape (n,)
        The gradient of the dual at the solution.
    without : array of int, optional
        Points ``r``: entry ``k`` of the result is the bias over all points but ``without[k]``.

    Returns
    -------
    ndarray
        One bias (shape ``(1,)``) when ``without`` is None, else one per point of ``without``.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> G = np.array([-0.5, -0.2, -0.1, 0.4])    # v = -y G = [0.5, 0.2, -0.1, 0.4]
    >>> midpoint_biases(y, G).round(12).tolist()    # between the 2nd and 3rd smallest v
    [0.3]
    >>> midpoint_biases(y, G, np.array([1])).round(12).tolist()   # P = 1 without point 1
    [0.15]
    """
    v = -y * G
    order = np.argsort(v, kind="stable")
    s = v[order]
    P = int(np.sum(y > 0.0))
    if without is None:
        return np.array([0.5 * (s[P - 1] + s[P])])
    rank = np.empty(v.size, dtype=np.int64)
    rank[order] = np.arange(v.size)
    r = np.asarray(without, dtype=np.int64)
    Pr = P - (y[r] > 0.0).astype(np.int64)
    rr = rank[r]
    lo = s[Pr - 1 + (rr <= Pr - 1)]
    hi = s[Pr + (rr <= Pr)]
    return 0.5 * (lo + hi)


def left_out_decision(y: NDArray[np.float64], G: NDArray[np.float64], r: int) -> float:
    """The decision at ``x_r`` of a solution without ``r`` (its gradient covers ``r`` too)."""
    b = midpoint_biases(y, G, np.array([r]))[0]
    return float(y[r] * (G[r] + 1.0) + b)


TIE = 1e-8
"""A left-out decision within ``TIE max(1, C max_i K_ii)`` of zero, not certified by Franc's
bound, is a tie: its sign is round-off (an SVM through ``x_r`` is optimal, as when leaving one
point out makes the problem symmetric), and it counts as ``+1`` (decision ``0``)."""


def decision_scale(C: float, diag: NDArray[np.float64]) -> float:
    """``max(1, C max_i K_ii)``: the size of the gradient's terms, the scale of a decision."""
    return max(1.0, C * float(diag.max()))
