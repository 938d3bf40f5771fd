"""The refinements of exact leave-one-out: left-out decisions near zero made certain.

An eps-KKT retrain's decision at the left-out point is only as accurate as the stop's
tolerance; :func:`refine` retrains such points again at tolerances 1000 times tighter each time
until the sign is certain (:func:`svmtune.solvers.exact_loo.exact_loo` says which points).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune._warnings import quiet_max_iter
from svmtune.solvers.kernel_rows import KernelRows
from svmtune.solvers.loo_bias import decision_scale
from svmtune.solvers.loo_retrains import RetrainSetup, outputs, retrain_on_rows
from svmtune.solvers.smo import SMO

if TYPE_CHECKING:
    from svmtune.solvers import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers._exact_loo_loop")

__all__ = ["REFINE_FACTOR", "REFINE_FLOOR", "REFINE_FRANC_AFTER", "refine"]


REFINE_FACTOR = 1e-3
"""Each refinement of an unsure left-out decision divides the KKT tolerance by 1000."""

REFINE_FRANC_AFTER = 10_000
"""SMO steps a refinement makes under the eps-KKT stop alone before Franc's stop (when asked
for) comes on: a refinement that ends sooner pays nothing for the bound, a long one (large C,
the linear kernel: up to hundreds of thousands of steps at the tighter tolerances) is certified
soon after. On heart with the linear kernel the refinements took 30 ms with the eps-KKT stop
alone and 32, 38, 44 ms with Franc's from step 10,000, 3,000, 1,000 at C = 1; 8.8 s against
0.72, 0.65 s at C = 10 (``python benchmarks/franc_stop.py --grid other``)."""

REFINE_FLOOR = 1e-12
"""The tightest KKT tolerance a refinement asks for, relative to ``max(1, C max_i K_ii)`` (the
size of the gradient's terms, whose round-off is about ``1e-16 n`` times it)."""


def refine(
    setup: RetrainSetup,
    points: NDArray[np.int64],
    previous: NDArray[np.float64],
    *,
    franc: bool,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Left-out decisions that the eps-KKT stop left within ``tol * decision_scale`` of zero,
    made certain (``previous``: those decisions, at ``setup.solver.tol``).

    Each point is retrained without it at tolerances ``tol * REFINE_FACTOR^k`` until Franc's
    bound (when ``franc``) certifies its sign, or its decision lies farther from zero than the
    tolerance times :func:`decision_scale` (``max(1, C max_i K_ii)``, the size of the
    gradient's terms: an eps-KKT solution's decision at a point outside its training set is only
    that accurate), or the tolerance reaches the floor (:data:`REFINE_FLOOR`). A refinement that
    reaches ``setup.cap`` iterations before its tolerance (an ill-conditioned problem at a large
    C) keeps the decision of the last tolerance reached: refining is as far as the solver gets."""
    scale = decision_scale(setup.C, setup.diag)
    m = points.shape[0]
    dec, status, iters, rows = outputs(m)
    with quiet_max_iter():  # counted and reported once
        for k, r in enumerate(points):
            dec[k], status[k], iters[k], rows[k] = _refine_one(
                setup, int(r), float(previous[k]), scale, franc
            )
    return dec, status, iters, rows


def _refine_one(
    setup: RetrainSetup, r: int, last: float, scale: float, franc: bool
) -> tuple[float, int, int, int]:
    """One point of :func:`refine`: ``(decision, status, iterations, kernel rows)``."""
    n = setup.y.shape[0]
    floor = REFINE_FLOOR * scale
    work = _exact_loo_loop.work_arrays(n)
    start_a = np.ascontiguousarray(setup.full.alpha)
    start_G = np.ascontiguousarray(setup.full.gradient)
    t = float(setup.solver.tol)
    iters = rows = 0
    while True:
        t = max(t * REFINE_FACTOR, floor)
        if isinstance(setup.store, KernelRows):
            evals0 = setup.store.kernel_evals
            tight = SMO(tol=t, max_iter=setup.cap, check_kernel=False)
            d, st, run = retrain_on_rows(tight, setup.store, setup.y, setup.C, start_a, r)
            it, rw = run.iterations, -(-(setup.store.kernel_evals - evals0) // n)
            start_a = run.alpha.copy()
        else:
            opts = setup.options(tol=t, franc=franc, max_iter=setup.cap)
            opts = opts._replace(franc_from=REFINE_FRANC_AFTER)
            d, st, it, rw, _ = _exact_loo_loop.retrain_one(
                setup.K, setup.diag, setup.y, start_a, start_G, r, opts, work
            )
            start_a, start_G = work[0].copy(), work[1].copy()
        iters += it
        rows += rw
        if st == _exact_loo_loop.MAX_ITER:
            return last, _exact_loo_loop.KKT, iters, rows
        last = d
        if st != _exact_loo_loop.KKT or abs(d) >= t * scale or t <= floor:
            return d, st, iters, rows
