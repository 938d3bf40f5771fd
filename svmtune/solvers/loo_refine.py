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
from svmtune.solvers.loo_bias import decision_scale, left_out_decision
from svmtune.solvers.loo_retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    outputs,
    retrain_on_rows,
    shrinking_run,
)
from svmtune.solvers.smo import SMO

if TYPE_CHECKING:
    from svmtune.solvers import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers._exact_loo_loop")

__all__ = ["REFINE_FACTOR", "REFINE_FLOOR", "REFINE_FRANC_AFTER", "refine"]


REFINE_FACTOR = 1e-3
"""Each refinement of an unsure left-out decision divides the KKT tolerance by 1000."""

REFINE_FRANC_AFTER = 10_000
"""SMO steps a refinement makes under the eps-KKT stop alone (its tolerances together) before
Franc's stop (when asked for) comes on: a refinement that ends sooner pays nothing for the
bound, a long one (large C, the linear kernel: up to millions of steps at the tighter
tolerances) is mostly certified soon after. ``exact_loo(stopping="franc")`` on heart with the
linear kernel, the bound from step 3,000, 10,000, 30,000 or never: 886, 82, 80, 80 ms at
C = 1; 0.92, 0.93, 1.03, 4.32 s at C = 10; 8.8, 8.2, 7.9, 16.4 s at C = 100; on ionosphere at
C = 100 it costs: 1.49, 1.37, 1.34, 1.18 s (``python benchmarks/franc_stop.py --grid other
--kernels linear --refine-after 3000,10000,30000,0``)."""

REFINE_FLOOR = 1e-12
"""The tightest KKT tolerance a refinement asks for, relative to ``max(1, C max_i K_ii)`` (the
size of the gradient's terms, whose round-off is about ``1e-16 n`` times it)."""


def refine(
    setup: RetrainSetup,
    points: NDArray[np.int64],
    previous: NDArray[np.float64],
    *,
    franc: bool,
    gbar_full: FullGbar,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Left-out decisions that the eps-KKT stop left within ``tol * decision_scale`` of zero,
    made certain (``previous``: those decisions, at ``setup.solver.tol``).

    Each point is retrained without it at tolerances ``tol * REFINE_FACTOR^k`` (each as the
    retrains run: the compiled loop for its first steps, then the shrinking SMO; Franc's bound
    in the compiled loop from the :data:`REFINE_FRANC_AFTER`-th step) until Franc's
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
                setup, int(r), float(previous[k]), scale, franc, gbar_full
            )
    return dec, status, iters, rows


def _refine_one(
    setup: RetrainSetup, r: int, last: float, scale: float, franc: bool, gbar_full: FullGbar
) -> tuple[float, int, int, int]:
    """One point of :func:`refine`: ``(decision, status, iterations, kernel rows)``."""
    n = setup.y.shape[0]
    floor = REFINE_FLOOR * scale
    work = _exact_loo_loop.work_arrays(n)
    store = CountedGram(setup.K, setup.diag)
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
            level = _Level(setup, store, gbar_full, work, r)
            d, st, it, rw = level.run(start_a, start_G, t, franc=franc, done=iters)
            start_a, start_G = work[0].copy(), work[1].copy()
        iters += it
        rows += rw
        if st == _exact_loo_loop.MAX_ITER:
            return last, _exact_loo_loop.KKT, iters, rows
        last = d
        if st != _exact_loo_loop.KKT or abs(d) >= t * scale or t <= floor:
            return d, st, iters, rows


class _Level:
    """One tolerance of a refinement on a full Gram matrix, as the retrains run: the compiled
    loop for :data:`~svmtune.solvers.loo_retrains.SHRINK_AFTER` steps, then the shrinking SMO;
    under Franc's stop, from the refinement's :data:`REFINE_FRANC_AFTER`-th step on, the
    compiled loop with the bound to the end. Leaves alpha and the gradient in ``work[0]`` and
    ``work[1]``."""

    def __init__(
        self,
        setup: RetrainSetup,
        store: CountedGram,
        gbar_full: FullGbar,
        work: NDArray[np.float64],
        r: int,
    ) -> None:
        self.setup, self.store, self.gbar_full, self.work, self.r = setup, store, gbar_full, work, r

    def _compiled(
        self, a: NDArray[np.float64], G: NDArray[np.float64], t: float, franc: bool, steps: int
    ) -> tuple[float, int, int, int]:
        setup = self.setup
        opts = setup.options(tol=t, franc=franc, max_iter=max(steps, 0))
        d, st, it, rw, _ = _exact_loo_loop.retrain_one(
            setup.K, setup.diag, setup.y, a, G, self.r, opts, self.work
        )
        return d, st, int(it), int(rw)

    def run(
        self, a: NDArray[np.float64], G: NDArray[np.float64], t: float, *, franc: bool, done: int
    ) -> tuple[float, int, int, int]:
        """From ``a`` and ``G`` at tolerance ``t``, ``done`` steps into the refinement:
        ``(decision, status, iterations, kernel rows)``."""
        setup, work = self.setup, self.work
        left = setup.cap - done
        if franc and done >= REFINE_FRANC_AFTER:
            return self._compiled(a, G, t, True, left)
        d, st, it, rw = self._compiled(a, G, t, False, min(SHRINK_AFTER, left))
        if st != _exact_loo_loop.MAX_ITER or it >= left:
            return d, st, it, rw
        shrink = left - it
        if franc:
            shrink = min(shrink, REFINE_FRANC_AFTER - done - it)
        if shrink > 0:
            n = setup.y.shape[0]
            sr, moved = shrinking_run(
                setup, self.store, self.gbar_full, work[0], work[1], self.r, shrink
            )
            sr.tol = t
            read0 = self.store.read
            sr.run()
            G_now = sr.gradient  # work[1], the shrunk variables' part recomputed
            it += sr.iterations
            rw += int(moved + 2 * sr.iterations + -(-(self.store.read - read0) // n))
            if sr.converged:
                return left_out_decision(setup.y, G_now, self.r), _exact_loo_loop.KKT, it, rw
            if not franc or it >= left:
                return d, _exact_loo_loop.MAX_ITER, it, rw
        a2, G2 = work[0].copy(), work[1].copy()
        d, st, more, extra = self._compiled(a2, G2, t, True, left - it)
        return d, st, it + more, rw + extra
