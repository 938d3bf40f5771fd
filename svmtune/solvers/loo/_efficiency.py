"""The efficiency test of exact leave-one-out on CPU: which way the rest of the retrains run.

:func:`svmtune.solvers.loo._exact_loo` runs its first retrains under Franc's stop for the
compiled loop's :data:`~svmtune.solvers.loo._retrains.SHRINK_AFTER` steps, then (if not done) on
the shrinking SMO as eps-KKT ones do, and records them here (:class:`Measure`). Three ways are
open for the rest, and the test takes the one that cost the least CPU on the retrains measured:

- ``"kkt"``: the eps-KKT stop, those first steps in the compiled loop and the rest on the
  shrinking SMO;
- ``"short"``: Franc's stop for those first steps, then the shrinking SMO, under Franc's stop
  checked at intervals where the Gram matrix has a low rank
  (:class:`~svmtune.solvers.loo._franc_tail.FrancTail`), else to the eps-KKT stop;
- ``"whole"``: Franc's stop to the end of each retrain in the compiled loop (where its bound
  fires long before the eps-KKT stop, even on the shrinking SMO's cheaper steps).

CPU is counted, not timed, so the choice is the same on every machine and every rerun: the
compiled loop counts its steps in eps-KKT steps over all points
(:data:`svmtune.solvers.loo._exact_loo_loop.WORK_RETRAIN`), the shrinking SMO its runs, its steps,
the variables they swept and the kernel entries it read
(:func:`svmtune.solvers.loo._shrinking_cost.shrinking_cpu`).
What the retrains did not run is measured only as far as the choice needs: the certified
retrains go on under the eps-KKT stop (in the compiled loop, then on the shrinking SMO), one
after another, until the eps-KKT stop has cost more than Franc's over all of them; then the
handed-over retrains run again under Franc's stop to their end, until that has cost more than
the cheaper of the other two ways. So measuring costs at most about what the retrains measured
cost under Franc's stop, and no retrain's saving is cut short.

Where the ways cost about the same, measuring them costs more than any choice saves, and the
counts are only as good as their fitted constants. So a way under Franc's stop is taken only
where it is cheaper by :data:`MARGIN`; what the test spends beyond the eps-KKT stop (each part's
fixed CPU, :data:`PART_POINTS`; the measuring; Franc's first steps where the eps-KKT stop was
cheaper) is held to :data:`OVERHEAD` of the CPU all retrains are projected to cost (Franc's
whole retrains are measured again only within it, and the test takes no more retrains once the
next part would overrun it: :func:`svmtune.solvers.loo._passes.efficiency_parts`); and a choice
the budget leaves open falls to the eps-KKT stop (Franc's whole retrain is taken only where
measured to the end on every retrain measured).

The test's parts have a fixed CPU (Python's: their calls, records and measurements) that on
calls of a few milliseconds is 5-20 % of the call, and its first part's retrains run under
Franc's stop before anything is measured: where the bound never fires, each step costs about
twice an eps-KKT one. So before the test a few retrains spread over the later ones run under
the eps-KKT stop (:class:`Probe`, :data:`svmtune.solvers.loo._passes.PROBE_POINTS`; retrains
that stop runs anyway) and project the call's CPU and what a retrain of the first part would
cost more under Franc's stop; the first part takes no more retrains than fit in
:data:`OVERHEAD` of the projected CPU with a part's fixed CPU, and where not one fits the test is
not run and the rest run under the eps-KKT stop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune.solvers.loo._franc_tail import FrancTail, LowRank, factor_cpu, rank_cap
from svmtune.solvers.loo._retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    ShrinkingTail,
)

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")

__all__ = ["MARGIN", "OVERHEAD", "PART_POINTS", "Measure", "Probe", "franc_extra"]

MARGIN = 0.2
"""A way under Franc's stop is taken only where its counted CPU times ``1 + MARGIN`` is below
the eps-KKT stop's: the counts' constants are fitted to timed runs within about 10-30 %
(``python benchmarks/franc_stop.py --step-cost``), and a near tie is not worth the bound's
risk."""

OVERHEAD = 0.03
"""The share of the projected CPU of all retrains (:meth:`Measure.allowance`) that the CPU test
may spend beyond what the eps-KKT stop costs on the retrains it measures."""

PART_POINTS = 60_000
"""The fixed CPU of one part of the CPU test (its Python work: the retrains' call, their
records, the measurements' calls, the bookkeeping), counted as one eps-KKT step over this many
points, so ``PART_POINTS / n`` steps on ``n`` points: fitted to the CPU the test took beyond
the eps-KKT stop where it chose that stop, on sets of 200-1,000 points
(``python benchmarks/franc_stop.py --part-cost``)."""

_CHUNK = 256
"""Steps of the shrinking SMO between two looks at the measurement's budget: each look costs a
call into the compiled solver (about 9 microseconds, some 40 of its steps), uncounted."""


@dataclass
class _Retrain:
    """One measured retrain: the CPU of each way so far. ``kkt`` is a lower bound while
    ``state`` (a certified retrain's iterate in the compiled phase) or ``run`` (its shrinking
    SMO) is open; ``whole`` while ``rerun`` (handed over: Franc's whole retrain to measure)."""

    short: float
    kkt: float
    whole: float = 0.0
    rerun: bool = False
    state: NDArray[np.float64] | None = None
    run: ShrinkingTail | None = None
    done: int = 0  # eps-KKT steps made from the seeded start


def franc_extra(steps: int) -> float:
    """What ``steps`` SMO steps of the compiled loop cost more under Franc's stop than under
    the eps-KKT stop where the bound never fires: each step's pass that also ascends H
    (:data:`~svmtune.solvers.loo._exact_loo_loop.WORK_FRANC_STEP`) and a recomputation of the
    best bias about every :data:`~svmtune.solvers.loo._exact_loo_loop.EXACT_BIAS_EVERY` steps,
    in eps-KKT steps."""
    loop = _exact_loo_loop
    return steps * (loop.WORK_FRANC_STEP - 1.0 + loop.WORK_SELECT / loop.EXACT_BIAS_EVERY)


@dataclass
class Probe:
    """The counted CPU of retrains run under the eps-KKT stop (a recorder for
    :func:`svmtune.solvers.loo._retrains.retrain_shrinking`, whose threads may record at once:
    one entry per point, summed in the points' order), and what their steps in the compiled
    loop would have cost more under Franc's stop (:func:`franc_extra`): what the CPU test
    projects the call's CPU and its own first part from before it starts."""

    costs: dict[int, float] = field(default_factory=dict)
    extra: dict[int, float] = field(default_factory=dict)
    handed: int = 0  # retrains handed over to the shrinking SMO

    def record(
        self, r: int, status: int, steps: int, cpu: float, work: NDArray[np.float64]
    ) -> None:
        self.costs[r] = cpu
        self.extra[r] = franc_extra(steps)

    def record_handed_over(self, r: int, cpu: float, tail: ShrinkingTail) -> None:
        self.costs[r] = cpu + tail.cpu
        self.extra[r] = franc_extra(SHRINK_AFTER)
        self.handed += 1

    def first_part(self, todo: int, n: int) -> int:
        """How many retrains the CPU test's first part may take on a call of ``todo`` retrains
        on ``n`` points (0: the test is not worth running): its fixed CPU
        (:data:`PART_POINTS`), the Gram matrix's low-rank factor where retrains reach the
        shrinking SMO (Franc's stop goes on there in the factor; costed as the largest it may
        try, :func:`~svmtune.solvers.loo._franc_tail.factor_cpu`) and, on each retrain, Franc's
        steps where its bound never fires (:func:`franc_extra` of the recorded steps) at most
        :data:`OVERHEAD` of the retrains' CPU projected from the ones recorded."""
        if not self.costs:
            return todo
        points = sorted(self.costs)
        mean = math.fsum(self.costs[r] for r in points) / len(points)
        extra = math.fsum(self.extra[r] for r in points) / len(points)
        fixed = PART_POINTS / n + (factor_cpu(rank_cap(n)) if self.handed else 0.0)
        left = OVERHEAD * todo * mean - fixed
        if left < 0.0:
            return 0
        return todo if extra <= 0.0 else int(left // extra)


@dataclass
class Measure:
    """The retrains of the efficiency test, what each way cost on them, and the choice."""

    retrains: dict[int, _Retrain] = field(default_factory=dict)
    steps: int = 0
    rows: int = 0
    store: CountedGram | None = None  # the Gram matrix the shrinking runs read, counted
    spent: float = 0.0  # CPU of the measuring (eps-KKT continuations, Franc's reruns)
    part_cost: float = 0.0  # the fixed CPU of a part (PART_POINTS / n)
    parts: int = 0  # parts run
    low_rank: LowRank | None = None  # the factor Franc's retrains ask for (its CPU counted)

    def record(
        self, r: int, status: int, steps: int, cpu: float, work: NDArray[np.float64]
    ) -> None:
        """A retrain (point ``r``) that ended in the compiled loop, with ``status`` after
        ``steps`` steps and ``cpu``; ``work`` holds its last iterate."""
        kkt = steps + _exact_loo_loop.WORK_RETRAIN
        t = _Retrain(short=cpu, kkt=kkt, whole=cpu, done=steps)
        if status == _exact_loo_loop.CERTIFIED:
            t.state = work[:2].copy()
        self.retrains[r] = t

    def record_handed_over(self, r: int, cpu: float, tail: ShrinkingTail) -> None:
        """A retrain (point ``r``) handed to the shrinking SMO after ``cpu`` in the compiled
        loop under Franc's stop, then ``tail`` there. Where the tail certified it (a
        :class:`~svmtune.solvers.loo._franc_tail.FrancTail`), the eps-KKT stop's CPU is a lower
        bound (its SMO so far) and the run stays open to measure the rest."""
        kkt = SHRINK_AFTER + _exact_loo_loop.WORK_RETRAIN + tail.smo_cpu
        t = _Retrain(short=cpu + tail.cpu, kkt=kkt, whole=cpu, rerun=True, done=SHRINK_AFTER)
        if isinstance(tail, FrancTail) and tail.status() == _exact_loo_loop.CERTIFIED:
            tail.stop_checking()
            t.run = tail
        self.retrains[r] = t

    def totals(self) -> dict[str, float]:
        """CPU of each way over the retrains recorded."""
        rs = [self.retrains[r] for r in sorted(self.retrains)]
        return {way: math.fsum(getattr(t, way) for t in rs) for way in ("kkt", "short", "whole")}

    def overhead(self) -> float:
        """CPU spent beyond the eps-KKT stop: the parts' fixed CPU, the measuring, the Gram
        matrix's low-rank factor if made, and Franc's first steps on the retrains where the
        eps-KKT stop was cheaper (as far as measured)."""
        over = math.fsum(max(0.0, t.short - t.kkt) for t in self.retrains.values())
        factor = self.low_rank.cpu if self.low_rank is not None else 0.0
        return self.parts * self.part_cost + self.spent + factor + over

    def allowance(self, todo: int) -> float:
        """What the test may spend beyond the eps-KKT stop over ``todo`` retrains in all:
        :data:`OVERHEAD` times their projected CPU (``todo`` times the mean over the retrains
        recorded of the cheaper of the eps-KKT stop, as far as measured, and the way they
        ran)."""
        if not self.retrains:
            return 0.0
        mean = math.fsum(min(t.kkt, t.short) for t in self.retrains.values()) / len(self.retrains)
        return OVERHEAD * todo * mean

    def settle(self, setup: RetrainSetup, gbar_full: FullGbar, *, todo: int) -> None:
        """Measure what the retrains did not run, as far as the choice needs: the eps-KKT stop
        on the certified retrains (in order) until it costs more than Franc's first steps did
        over all by :data:`MARGIN` (what it costs beyond them is the saving it confirms); then,
        as long as :meth:`overhead` stays within the :meth:`allowance` of ``todo`` retrains,
        Franc's whole retrain on the handed-over ones until it costs more than the cheaper of
        the other two ways over all (or all of them are measured)."""
        work = _exact_loo_loop.work_arrays(setup.y.shape[0])
        if self.store is None:  # one for all calls: an open shrinking run reads through it
            self.store = CountedGram(setup.K, setup.diag)
        store = self.store
        for r in sorted(self.retrains):
            t = self.retrains[r]
            tot = self.totals()
            bar = (1.0 + MARGIN) * tot["short"]
            if bar < tot["kkt"]:
                break
            if t.state is not None or t.run is not None:
                self._kkt(setup, gbar_full, store, r, t, work, budget=bar - tot["kkt"])
        allowance = self.allowance(todo)
        for r in sorted(self.retrains):
            t = self.retrains[r]
            tot = self.totals()
            left = allowance - self.overhead()
            best = min(tot["kkt"] / (1.0 + MARGIN), tot["short"])
            if t.rerun and tot["whole"] < best and left > t.whole:
                need = best - tot["whole"]
                self._whole(setup, r, t, work, budget=min(need, left - t.whole))

    def _kkt(
        self,
        setup: RetrainSetup,
        gbar_full: FullGbar,
        store: CountedGram,
        r: int,
        t: _Retrain,
        work: NDArray[np.float64],
        budget: float,
    ) -> None:
        """A certified retrain on under the eps-KKT stop (compiled loop to the hand-over, then
        the shrinking SMO) for at most ``budget`` more CPU; left open where it stops."""
        k0 = t.kkt
        try:
            if t.state is not None:
                if not self._compiled_kkt(setup, r, t, work, budget):
                    return  # the eps-KKT stop, or out of budget
                t.run = ShrinkingTail(
                    setup, store, gbar_full, work[0].copy(), work[1].copy(), r, max_iter=setup.cap
                )
                t.kkt += t.run.cpu  # the start's
                self.rows += t.run.moved
            tail = t.run
            while tail is not None and t.kkt - k0 < budget:
                steps0, rows0 = tail.run.iterations, tail.rows()
                t.kkt += tail.advance(_CHUNK)
                self.steps += tail.run.iterations - steps0
                self.rows += tail.rows() - rows0
                if tail.done():
                    t.run = tail = None
        finally:
            self.spent += t.kkt - k0

    def _compiled_kkt(
        self, setup: RetrainSetup, r: int, t: _Retrain, work: NDArray[np.float64], budget: float
    ) -> bool:
        """A certified retrain on under the eps-KKT stop in the compiled loop, up to the
        hand-over or ``budget``: whether it goes on on the shrinking SMO (``work[0]`` and
        ``work[1]`` its iterate); ``t.state`` is its iterate again where the budget cut it."""
        work[:2] = t.state
        t.state = None
        steps = min(SHRINK_AFTER - t.done, math.floor(budget) + 1)
        opts = setup.options(tol=float(setup.solver.tol), franc=False, max_iter=steps)
        _, status, more, _, cpu = _exact_loo_loop.retrain_one(
            setup.K, setup.diag, setup.y, work[0], work[1], r, opts._replace(resume=True), work
        )
        t.kkt += cpu
        t.done += int(more)
        self._count(int(more), 0)
        if status != _exact_loo_loop.MAX_ITER:
            return False  # the eps-KKT stop
        if t.done < SHRINK_AFTER:
            t.state = work[:2].copy()  # out of budget
            return False
        return True

    def _whole(
        self,
        setup: RetrainSetup,
        r: int,
        t: _Retrain,
        work: NDArray[np.float64],
        budget: float,
    ) -> None:
        """A handed-over retrain again under Franc's stop to its end, for at most ``budget``
        CPU above what ``whole`` counts already (a lower bound while ``rerun``)."""
        limit = t.whole + budget
        base = _exact_loo_loop.WORK_RETRAIN + _exact_loo_loop.WORK_SELECT
        steps = max(1, math.floor((limit - base) / _exact_loo_loop.WORK_FRANC_STEP) + 1)
        opts = setup.options(tol=float(setup.solver.tol), franc=True, max_iter=steps)
        a_full = np.ascontiguousarray(setup.full.alpha)
        G_full = np.ascontiguousarray(setup.full.gradient)
        _, status, more, rows, cpu = _exact_loo_loop.retrain_one(
            setup.K, setup.diag, setup.y, a_full, G_full, r, opts, work
        )
        t.whole = cpu
        self.spent += cpu
        t.rerun = status == _exact_loo_loop.MAX_ITER  # cut: a lower bound
        self._count(int(more), int(rows) - 2 * int(more))

    def _count(self, steps: int, extra_rows: int) -> None:
        """The measurement's SMO steps and kernel rows (two per step, and ``extra_rows``)."""
        self.steps += steps
        self.rows += 2 * steps + extra_rows

    def choice(self) -> str:
        """``"kkt"``, ``"short"`` or ``"whole"``: the way that cost least (eps-KKT on a tie).
        The eps-KKT stop's CPU is a lower bound where its measuring was cut, so ``"short"`` is
        taken only where it was cheaper all the same; ``"whole"`` only where measured to the
        end of every retrain (a cut rerun's CPU is a lower bound too)."""
        tot = self.totals()
        whole_known = not any(t.rerun for t in self.retrains.values())
        bar = tot["kkt"] / (1.0 + MARGIN)
        if whole_known and tot["whole"] < min(bar, tot["short"]):
            return "whole"
        return "short" if tot["short"] < bar else "kkt"
