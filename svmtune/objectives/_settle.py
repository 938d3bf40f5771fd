"""Validation decisions near zero settled: a fold's solve continued at tighter tolerances.

An SMO solve stops at a ``tol``-KKT point, one of many ``tol``-optimal solutions: two starts
(a seeded one and a cold one) stop at different ones, and a validation decision within their
accuracy of zero may take either sign. Cross-validation objectives that seed their folds count
errors only once every validation decision lies outside that accuracy, so that the error count
does not depend on where the solve started (the rule of exact leave-one-out's refinements).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from svmtune.solvers import SMOResult
from svmtune.solvers.loo import refinement

__all__ = ["SETTLE_FACTOR", "SETTLE_FLOOR", "decision_scale", "settle"]

# Exact leave-one-out's refinement ladder, one set of constants for both: each step divides the
# KKT tolerance by 1000, down to 1e-12 relative to :func:`decision_scale` (the size of the
# gradient's terms, whose round-off is about ``1e-16 n`` times it).
SETTLE_FACTOR = refinement.REFINE_FACTOR
SETTLE_FLOOR = refinement.REFINE_FLOOR

Solve = Callable[[float, "NDArray[np.float64] | None"], SMOResult]
"""``solve(tol, alpha0)``: the fold's SVM at KKT tolerance ``tol`` from ``alpha0``."""

Decide = Callable[[SMOResult], "tuple[NDArray[np.float64], NDArray[np.float64], int]"]
"""``decide(result)``: the validation decisions, their round-off bounds, the kernel entries
computed for them."""


def decision_scale(C: float, diag_max: float) -> float:
    """``max(1, C max_i K_ii)``: the size of the gradient's terms, the scale of a decision.

    A ``tol``-KKT solution's decision at a point outside its training set is taken to be
    accurate to ``tol`` times this scale (the margin exact leave-one-out refines within).

    Examples
    --------
    >>> decision_scale(10.0, 1.0), decision_scale(0.01, 1.0)
    (10.0, 1.0)
    """
    return max(1.0, float(C) * float(diag_max))


def settle(
    solve: Solve,
    decide: Decide,
    *,
    tol: float,
    scale: float,
    alpha0: NDArray[np.float64] | None,
) -> tuple[SMOResult, NDArray[np.float64], NDArray[np.float64], int]:
    """Solve a fold at ``tol`` from ``alpha0``, then settle its validation decisions.

    While some decision lies within ``t * scale`` of zero (``t`` the tolerance of the last
    solve), the solve is continued from its solution at ``t * SETTLE_FACTOR`` (no lower than
    ``SETTLE_FLOOR * scale``), and the decisions recomputed. It stops when every decision is
    outside the margin, the floor is reached or a solve stops short of its tolerance
    (``max_iter``: then the last tolerance reached stands). Returns the result of the last
    tolerance reached (its iterations and kernel entries those of all the solves), the
    decisions, their round-off bounds and the kernel entries ``decide`` computed.
    Without a decision near zero it is one solve and one ``decide``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.solvers import SMO
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> K = np.exp(-0.5 * (X - X.T) ** 2)
    >>> solve = lambda t, a0: SMO(tol=t).solve(y, C=10.0, gram=K, alpha0=a0)
    >>> decide = lambda r: (K[[1]] @ (r.alpha * y) + r.b, np.zeros(1), 0)
    >>> res, dec, _, _ = settle(solve, decide, tol=1e-3, scale=10.0, alpha0=None)
    >>> bool(dec[0] < 0), res.converged
    (True, True)
    """
    res = solve(float(tol), alpha0)
    dec, rtol, extra = decide(res)
    t, floor = float(tol), SETTLE_FLOOR * float(scale)
    iterations, evals = res.iterations, res.kernel_evals
    settled = res
    while settled.converged and t > floor and bool(np.any(np.abs(dec) < t * scale)):
        t = max(t * SETTLE_FACTOR, floor)
        tighter = solve(t, settled.alpha)
        iterations += tighter.iterations
        evals += tighter.kernel_evals
        if not tighter.converged:  # as far as the solver gets: the last tolerance reached
            break
        settled = tighter
        dec, rtol, more = decide(settled)
        extra += more
    if iterations != res.iterations or evals != res.kernel_evals:
        settled = dataclasses.replace(settled, iterations=iterations, kernel_evals=evals)
    return settled, dec, rtol, extra
