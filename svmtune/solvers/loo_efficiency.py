"""The efficiency test of exact leave-one-out on CPU: which way the rest of the retrains run.

:func:`svmtune.solvers.exact_loo.exact_loo` runs its first retrains under Franc's stop for the
compiled loop's :data:`~svmtune.solvers.loo_retrains.SHRINK_AFTER` steps, then (if not done) on
the shrinking SMO as eps-KKT ones do, and records them here (:class:`Measure`). Three ways are
open for the rest, and the test takes the one that cost the least CPU on the retrains measured:

- ``"kkt"``: the eps-KKT stop, those first steps in the compiled loop and the rest on the
  shrinking SMO;
- ``"short"``: Franc's stop for those first steps, then the shrinking SMO (where Franc
  certifies early but long retrains gain nothing from it);
- ``"whole"``: Franc's stop to the end of each retrain in the compiled loop (where its bound
  fires long before the eps-KKT stop, even on the shrinking SMO's cheaper steps).

CPU is counted, not timed, so the choice is the same on every machine and every rerun: the
compiled loop counts its steps in eps-KKT steps over all points
(:data:`svmtune.solvers._exact_loo_loop.WORK_RETRAIN`), the shrinking SMO the variables its
passes swept and the kernel entries it read (:func:`svmtune.solvers.loo_retrains.shrinking_cpu`).
What the retrains did not run is measured only as far as the choice needs: the certified
retrains go on under the eps-KKT stop (in the compiled loop, then on the shrinking SMO), one
after another, until the eps-KKT stop has cost more than Franc's over all of them; then the
handed-over retrains run again under Franc's stop to their end, until that has cost more than
the cheaper of the other two ways. So measuring costs at most about what the retrains measured
cost under Franc's stop, and no retrain's saving is cut short.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune.solvers.loo_retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    shrinking_cpu,
    shrinking_run,
)
from svmtune.solvers.smo_run import SMORun

if TYPE_CHECKING:
    from svmtune.solvers import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers._exact_loo_loop")

__all__ = ["Measure"]

_CHUNK = 64
"""Steps of the shrinking SMO between two looks at the measurement's budget."""


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
    run: SMORun | None = None
    done: int = 0  # eps-KKT steps made from the seeded start


@dataclass
class Measure:
    """The retrains of the efficiency test, what each way cost on them, and the choice."""

    retrains: dict[int, _Retrain] = field(default_factory=dict)
    steps: int = 0
    rows: int = 0
    store: CountedGram | None = None  # the Gram matrix the shrinking runs read, counted

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

    def record_handed_over(self, r: int, cpu: float, tail: float) -> None:
        """A retrain (point ``r``) handed to the shrinking SMO after ``cpu`` in the compiled
        loop under Franc's stop, then ``tail`` there."""
        kkt = SHRINK_AFTER + _exact_loo_loop.WORK_RETRAIN + tail
        self.retrains[r] = _Retrain(
            short=cpu + tail, kkt=kkt, whole=cpu, rerun=True, done=SHRINK_AFTER
        )

    def totals(self) -> dict[str, float]:
        """CPU of each way over the retrains recorded."""
        rs = [self.retrains[r] for r in sorted(self.retrains)]
        return {way: math.fsum(getattr(t, way) for t in rs) for way in ("kkt", "short", "whole")}

    def settle(self, setup: RetrainSetup, gbar_full: FullGbar) -> None:
        """Measure what the retrains did not run, as far as the choice needs: the eps-KKT stop
        on the certified retrains (in order) until it costs more than Franc's first steps did
        over all, then Franc's whole retrain on the handed-over ones until it costs more than
        the cheaper of the other two ways over all (or all of them are measured)."""
        work = _exact_loo_loop.work_arrays(setup.y.shape[0])
        if self.store is None:  # one for all calls: an open shrinking run reads through it
            self.store = CountedGram(setup.K, setup.diag)
        store = self.store
        for r in sorted(self.retrains):
            t = self.retrains[r]
            tot = self.totals()
            if tot["short"] < tot["kkt"]:
                break
            if t.state is not None or t.run is not None:
                self._kkt(setup, gbar_full, store, r, t, work, budget=tot["short"] - tot["kkt"])
        for r in sorted(self.retrains):
            t = self.retrains[r]
            tot = self.totals()
            if t.rerun and tot["whole"] < min(tot["kkt"], tot["short"]):
                self._whole(setup, r, t, work, budget=min(tot["kkt"], tot["short"]) - tot["whole"])

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
        spent = 0.0
        if t.state is not None:
            work[:2] = t.state
            t.state = None
            steps = min(SHRINK_AFTER - t.done, math.floor(budget) + 1)
            opts = setup.options(tol=float(setup.solver.tol), franc=False, max_iter=steps)
            _, status, more, _, cpu = _exact_loo_loop.retrain_one(
                setup.K, setup.diag, setup.y, work[0], work[1], r, opts._replace(resume=True), work
            )
            t.kkt += cpu
            t.done += int(more)
            spent += cpu
            self._count(int(more), 0)
            if status != _exact_loo_loop.MAX_ITER:
                return  # the eps-KKT stop
            if t.done < SHRINK_AFTER:
                t.state = work[:2].copy()  # out of budget
                return
            t.run, moved = shrinking_run(
                setup, store, gbar_full, work[0].copy(), work[1].copy(), r, setup.cap
            )
            self.rows += moved
        sr = t.run
        if sr is None:
            return
        n = setup.y.shape[0]
        while spent < budget:
            steps0, swept0, read0 = sr.iterations, sr.swept, store.read
            sr.run(max_steps=_CHUNK)
            cpu = shrinking_cpu(sr.swept - swept0, store.read - read0, n)
            t.kkt += cpu
            spent += cpu
            self._count(sr.iterations - steps0, -(-(store.read - read0) // n))
            if sr.converged or sr.iterations >= sr.max_iter:
                t.run = None
                return

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
        t.rerun = status == _exact_loo_loop.MAX_ITER  # cut: a lower bound
        self._count(int(more), int(rows) - 2 * int(more))

    def _count(self, steps: int, extra_rows: int) -> None:
        """The measurement's SMO steps and kernel rows (two per step, and ``extra_rows``)."""
        self.steps += steps
        self.rows += 2 * steps + extra_rows

    def choice(self) -> str:
        """``"kkt"``, ``"short"`` or ``"whole"``: the way that cost least (eps-KKT on a tie)."""
        tot = self.totals()
        if tot["whole"] < min(tot["kkt"], tot["short"]):
            return "whole"
        return "short" if tot["short"] < tot["kkt"] else "kkt"
