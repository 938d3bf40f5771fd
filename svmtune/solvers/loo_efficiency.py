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
What the retrains did not run is measured, each only as far as it can still be the cheapest
way: a retrain certified within the first steps goes on under the eps-KKT stop (in the compiled
loop, then on the shrinking SMO) until it costs :data:`SPAN` times what Franc's did; a retrain
handed over is run again under Franc's stop for the whole retrain until it costs ``SPAN`` times
the cheaper of the other two ways.
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

if TYPE_CHECKING:
    from svmtune.solvers import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers._exact_loo_loop")

__all__ = ["Measure"]

SPAN = 2.0
"""How far a way is measured on a retrain: until it costs ``SPAN`` times the way it is weighed
against there (then it counts as that, a lower bound). Where one way saves more than that on a
retrain, the test sees less than all of it; measuring costs at most about ``SPAN`` times what
the retrains measured cost."""

_CHUNK = 64
"""Steps of the shrinking SMO between two looks at the measurement's budget."""


@dataclass
class _Retrain:
    """One measured retrain: the CPU of each way (``whole``: a lower bound while ``rerun``, and
    when the rerun stopped at its budget; ``kkt``: a lower bound while ``state`` is set)."""

    short: float
    kkt: float
    whole: float = math.inf
    rerun: bool = False  # handed over: Franc's whole retrain is to be measured
    state: NDArray[np.float64] | None = None  # a certified retrain's iterate, eps-KKT to measure
    done: int = 0  # eps-KKT steps made from the seeded start


@dataclass
class Measure:
    """The retrains of the efficiency test, what each way cost on them, and the choice."""

    retrains: dict[int, _Retrain] = field(default_factory=dict)
    steps: int = 0
    rows: int = 0

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
        self.retrains[r] = _Retrain(short=cpu + tail, kkt=kkt, rerun=True, done=SHRINK_AFTER)

    def totals(self) -> dict[str, float]:
        """CPU of each way over the retrains recorded."""
        rs = [self.retrains[r] for r in sorted(self.retrains)]
        return {way: math.fsum(getattr(t, way) for t in rs) for way in ("kkt", "short", "whole")}

    def settle(self, setup: RetrainSetup, gbar_full: FullGbar) -> None:
        """Measure what the retrains did not run, each as far as :data:`SPAN` says."""
        work = _exact_loo_loop.work_arrays(setup.y.shape[0])
        store = CountedGram(setup.K, setup.diag)
        for r in sorted(self.retrains):
            t = self.retrains[r]
            if t.state is not None:
                self._kkt_after_certified(setup, gbar_full, store, r, t, work)
            if t.rerun:
                self._whole(setup, r, t, work)

    def _kkt_after_certified(
        self,
        setup: RetrainSetup,
        gbar_full: FullGbar,
        store: CountedGram,
        r: int,
        t: _Retrain,
        work: NDArray[np.float64],
    ) -> None:
        """A certified retrain on under the eps-KKT stop (compiled loop, then shrinking SMO)
        until it costs ``SPAN`` times what Franc's did."""
        assert t.state is not None
        work[:2] = t.state
        t.state = None
        budget = min(SHRINK_AFTER - t.done, math.floor(SPAN * t.short - t.kkt) + 1)
        if budget > 0:
            opts = setup.options(tol=float(setup.solver.tol), franc=False, max_iter=budget)
            _, status, more, _, cpu = _exact_loo_loop.retrain_one(
                setup.K, setup.diag, setup.y, work[0], work[1], r, opts._replace(resume=True), work
            )
            t.kkt += cpu
            t.done += int(more)
            self._count(int(more), 0)
            if status != _exact_loo_loop.MAX_ITER or t.done < SHRINK_AFTER:
                return  # done, or dearer than SPAN times Franc
        if t.kkt >= SPAN * t.short:
            return
        n = setup.y.shape[0]
        sr, moved = shrinking_run(setup, store, gbar_full, work[0], work[1], r, setup.cap)
        read0 = store.read
        while True:
            sr.run(max_steps=_CHUNK)
            tail = shrinking_cpu(sr.swept, store.read - read0 + moved * n, n)
            if sr.converged or sr.iterations >= sr.max_iter or t.kkt + tail >= SPAN * t.short:
                break
        t.kkt += tail
        self._count(int(sr.iterations), moved + -(-(store.read - read0) // n))

    def _whole(self, setup: RetrainSetup, r: int, t: _Retrain, work: NDArray[np.float64]) -> None:
        """A handed-over retrain again, under Franc's stop to its end, until it costs ``SPAN``
        times the cheaper of the other two ways (then ``whole`` is that, a lower bound)."""
        t.rerun = False
        cheaper = min(t.kkt, t.short)
        budget = SPAN * cheaper - _exact_loo_loop.WORK_RETRAIN - _exact_loo_loop.WORK_SELECT
        steps = max(1, math.floor(budget / _exact_loo_loop.WORK_FRANC_STEP))
        opts = setup.options(tol=float(setup.solver.tol), franc=True, max_iter=steps)
        a_full = np.ascontiguousarray(setup.full.alpha)
        G_full = np.ascontiguousarray(setup.full.gradient)
        _, status, more, rows, cpu = _exact_loo_loop.retrain_one(
            setup.K, setup.diag, setup.y, a_full, G_full, r, opts, work
        )
        t.whole = cpu if status != _exact_loo_loop.MAX_ITER else max(cpu, SPAN * cheaper)
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
