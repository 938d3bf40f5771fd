"""The refinements of exact leave-one-out: left-out decisions near zero made certain.

An eps-KKT retrain's decision at the left-out point is only as accurate as the stop's
tolerance; :func:`refine` retrains such points again at tolerances 1000 times tighter each time
until the sign is certain (:func:`svmtune.solvers.loo._exact_loo` says which points).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune._warnings import quiet_max_iter
from svmtune.solvers.loo._bias import decision_scale
from svmtune.solvers.loo._retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    ShrinkingTail,
    outputs,
    retrain_on_rows,
)
from svmtune.solvers.loo._shrinking_cost import shrinking_cpu
from svmtune.solvers.smo import SMO, KernelRows

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")

__all__ = ["REFINE_FACTOR", "REFINE_FLOOR", "REFINE_FRANC_AFTER", "refine"]


REFINE_FACTOR = 1e-3
"""Each refinement of an unsure left-out decision divides the KKT tolerance by 1000."""

REFINE_FRANC_AFTER = 10_000
"""CPU a refinement spends under the eps-KKT stop alone (its tolerances together, counted in
eps-KKT steps of the compiled loop over all points) before Franc's bound (when asked for) gets
a window (:class:`_Steps`): a refinement that ends sooner pays nothing for the bound, a long
one (large C, the linear kernel: up to millions of steps at the tighter tolerances) is mostly
certified in its first windows. ``exact_loo(stopping="franc")`` with the linear kernel, windows
from 10,000 against none: heart 84 against 84 ms at C = 1, 0.98 against 5.38 s at C = 10,
7.0 against 17.4 s at C = 100; sonar 300 against 325 ms at C = 10; ionosphere 1.25 against
1.24 s at C = 100 (``python benchmarks/franc_stop.py --grid other --kernels linear
--refine-after 3000,10000,30000,0``)."""

WINDOW_TRIAL = 8
"""Refinements that opened a window of Franc's bound before :data:`WINDOW_YIELD` decides
whether the later ones open any."""

WINDOW_YIELD = 4
"""After :data:`WINDOW_TRIAL` refinements with a window, the later refinements of the call open
windows only while at least one in ``WINDOW_YIELD`` of those certified its sign. A window that
does not fire costs its CPU for nothing (the compiled loop with the bound is slower than the
shrinking SMO): on breast-cancer (Ratsch's realization 0, linear kernel, C = 100) 3 of 67
refinements were certified and ``stopping="franc"`` took 1.2x the eps-KKT stop's CPU, on heart
(Fischetti's split, C = 100) 30 of 39 and Franc's stop took 0.4x (``python
benchmarks/franc_stop.py``)."""

_CHUNK = 1024
"""Shrinking SMO steps of a refinement between two looks at its CPU (when Franc's window is
to come), at least: as many as the CPU left to the window's onset counts in eps-KKT steps where
that is more."""

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
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int]:
    """Left-out decisions that the eps-KKT stop left within ``tol * decision_scale`` of zero,
    made certain (``previous``: those decisions, at ``setup.solver.tol``).

    Each point is retrained without it at tolerances ``tol * REFINE_FACTOR^k`` (each as the
    retrains run: the compiled loop for its first steps, then the shrinking SMO; Franc's bound
    in windows of the compiled loop once the refinement has cost :data:`REFINE_FRANC_AFTER`)
    until Franc's
    bound (when ``franc``) certifies its sign, or its decision lies farther from zero than the
    tolerance times :func:`decision_scale` (``max(1, C max_i K_ii)``, the size of the
    gradient's terms: an eps-KKT solution's decision at a point outside its training set is only
    that accurate), or the tolerance reaches the floor (:data:`REFINE_FLOOR`). A refinement that
    reaches ``setup.cap`` iterations before its tolerance (an ill-conditioned problem at a large
    C) keeps the decision of the last tolerance reached: refining is as far as the solver gets.
    Returns the decisions, statuses, iterations and kernel rows of the points, and how many
    refinements opened a window (:data:`WINDOW_YIELD` says when they stop opening any)."""
    scale = decision_scale(setup.C, setup.diag)
    m = points.shape[0]
    dec, status, iters, rows = outputs(m)
    opened = certified = 0  # refinements that opened a window, and those it certified
    with quiet_max_iter():  # counted and reported once
        for k, r in enumerate(points):
            windows = franc and (opened < WINDOW_TRIAL or WINDOW_YIELD * certified >= opened)
            dec[k], status[k], iters[k], rows[k], window = _refine_one(
                setup, int(r), float(previous[k]), scale, windows, gbar_full
            )
            opened += window
            certified += window and status[k] == _exact_loo_loop.CERTIFIED
    return dec, status, iters, rows, opened


def _refine_one(
    setup: RetrainSetup, r: int, last: float, scale: float, franc: bool, gbar_full: FullGbar
) -> tuple[float, int, int, int, bool]:
    """One point of :func:`refine`: ``(decision, status, iterations, kernel rows, whether a
    window of Franc's bound opened)``."""
    n = setup.y.shape[0]
    floor = REFINE_FLOOR * scale
    work = _exact_loo_loop.work_arrays(n)
    start_a = np.ascontiguousarray(setup.full.alpha)
    start_G = np.ascontiguousarray(setup.full.gradient)
    t = float(setup.solver.tol)
    iters = rows = 0
    steps = _Steps(setup, CountedGram(setup.K, setup.diag), gbar_full, work, r, franc=franc)
    while True:
        t = max(t * REFINE_FACTOR, floor)
        if isinstance(setup.store, KernelRows):
            evals0 = setup.store.kernel_evals
            tight = SMO(tol=t, max_iter=setup.cap, check_kernel=False)
            d, st, run = retrain_on_rows(tight, setup.store, setup.y, setup.C, start_a, r)
            it, rw = run.iterations, -(-(setup.store.kernel_evals - evals0) // n)
            start_a = run.alpha.copy()
        else:
            d, st, it, rw = steps.level(start_a, start_G, t)
            start_a, start_G = work[0].copy(), work[1].copy()
        iters += it
        rows += rw
        window = steps.onset > REFINE_FRANC_AFTER
        if st == _exact_loo_loop.MAX_ITER:
            return last, _exact_loo_loop.KKT, iters, rows, window
        last = d
        if st != _exact_loo_loop.KKT or abs(d) >= t * scale or t <= floor:
            return d, st, iters, rows, window


class _Steps:
    """The SMO steps of one refinement on a full Gram matrix, its tolerances one after another,
    each as the retrains run: the compiled loop for its first
    :data:`~svmtune.solvers.loo._retrains.SHRINK_AFTER` steps, then the shrinking SMO. Under
    Franc's stop, once the refinement has cost :data:`REFINE_FRANC_AFTER` (counted CPU), the
    compiled loop with the bound for about as much again (a window); if the bound did not fire,
    the shrinking SMO until the refinement has cost twice as much as at the window's end, then
    the next window, and so on: where the bound never fires, the windows cost about what the
    eps-KKT steps cost. Leaves alpha and the gradient in ``work[0]`` and ``work[1]``."""

    def __init__(
        self,
        setup: RetrainSetup,
        store: CountedGram,
        gbar_full: FullGbar,
        work: NDArray[np.float64],
        r: int,
        *,
        franc: bool,
    ) -> None:
        self.setup, self.store, self.gbar_full, self.work, self.r = setup, store, gbar_full, work, r
        self.franc = franc
        self.onset = float(REFINE_FRANC_AFTER)  # the CPU at which Franc's next window opens
        self.cpu = 0.0  # counted, in eps-KKT steps of the compiled loop

    def _compiled(
        self, a: NDArray[np.float64], G: NDArray[np.float64], t: float, franc: bool, steps: int
    ) -> tuple[float, int, int, int]:
        setup = self.setup
        opts = setup.options(tol=t, franc=franc, max_iter=max(steps, 0))
        d, st, it, rw, cpu = _exact_loo_loop.retrain_one(
            setup.K, setup.diag, setup.y, a, G, self.r, opts, self.work
        )
        self.cpu += cpu
        return d, st, int(it), int(rw)

    def _shrinking(self, t: float, steps: int) -> tuple[float, int, int, int]:
        """The shrinking SMO from ``work[0]`` and ``work[1]`` (in place) for ``steps`` steps,
        or (under Franc's stop) until the refinement's CPU reaches the next window's onset."""
        work = self.work
        tail = ShrinkingTail(
            self.setup, self.store, self.gbar_full, work[0], work[1], self.r, max_iter=steps, tol=t
        )
        self.cpu += tail.cpu  # the start's
        while True:
            chunk = max(_CHUNK, self._steps_to_onset()) if self.franc else None
            self.cpu += tail.advance(chunk)
            if tail.done() or (self.franc and self.cpu >= self.onset):
                break
        return tail.decision(), tail.status(), int(tail.run.iterations), tail.rows()

    def _steps_to_onset(self) -> int:
        """Shrinking SMO steps that cannot reach the next window's onset, gradient refreshes
        aside: a step passes over at most all points (:func:`shrinking_cpu` of ``n`` swept)."""
        n = self.setup.y.shape[0]
        per_step = shrinking_cpu(n, 0, n, steps=1)
        return int((self.onset - self.cpu) / per_step)

    def level(
        self, a: NDArray[np.float64], G: NDArray[np.float64], t: float
    ) -> tuple[float, int, int, int]:
        """One tolerance ``t`` from ``a`` and ``G``: ``(decision, status, iterations, kernel
        rows)``."""
        work, cap = self.work, self.setup.cap
        d, st, it, rw = 0.0, _exact_loo_loop.MAX_ITER, 0, 0
        first = True
        while st == _exact_loo_loop.MAX_ITER and it < cap:  # setup.cap steps per tolerance
            left = cap - it
            if self.franc and self.cpu >= self.onset:
                # Franc's bound for about what the refinement has cost so far
                span = max(1, int(self.cpu / _exact_loo_loop.WORK_FRANC_STEP))
                d, st, more, extra = self._compiled(a, G, t, True, min(span, left))
                self.onset = 2.0 * self.cpu
            elif first:  # the compiled loop's first steps, as a retrain's
                d, st, more, extra = self._compiled(a, G, t, False, min(SHRINK_AFTER, left))
            else:
                d, st, more, extra = self._shrinking(t, left)
            first = False
            it, rw = it + more, rw + extra
            a, G = work[0].copy(), work[1].copy()
        return d, st, it, rw
