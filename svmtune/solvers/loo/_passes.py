"""The retrain passes of one exact leave-one-out computation: the efficiency test, the
retrains, the refinements, and what each point's retrain found (:class:`Retrains`, driven by
:func:`svmtune.solvers.loo._exact_loo`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune.solvers.loo._bias import TIE, decision_scale
from svmtune.solvers.loo._efficiency import PART_POINTS, Measure, Probe
from svmtune.solvers.loo._franc_tail import LowRank
from svmtune.solvers.loo._refine import refine
from svmtune.solvers.loo._retrains import FullGbar, RetrainSetup, retrain_rows, retrain_shrinking
from svmtune.solvers.smo import KernelRows

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")

__all__ = [
    "EARLY_OFF",
    "EARLY_POINTS",
    "PROBE_POINTS",
    "SAMPLE_SHARE",
    "Retrains",
    "efficiency_parts",
]

EARLY_POINTS = 3
"""The retrains of each part of the CPU test (:func:`efficiency_parts`)."""

SAMPLE_SHARE = 20
"""The CPU test's first part is at most one in ``SAMPLE_SHARE`` of the retrains: it runs under
Franc's stop and measures the eps-KKT stop on them whatever they show, so where the two cost
the same its cost is a share of the whole."""

PROBE_POINTS = 10
"""Retrains the CPU test first runs under the eps-KKT stop (retrains that stop would run
anyway), at most: spread evenly over those after the test's ``M`` (so the test samples the
first retrains, as without them), to project the call's CPU; where the test's first part
would cost more than :data:`svmtune.solvers.loo._efficiency.OVERHEAD` of it, the test is not
run, and its first part takes no more retrains than fit in that share
(:meth:`svmtune.solvers.loo._efficiency.Probe.first_part`). Ten, not three: retrains'
CPU is skewed (on linear heart at C = 3 three of them projected a tenth of the call)."""

EARLY_OFF = 0.7
"""The CPU test ends after a part (:func:`efficiency_parts`) when the eps-KKT stop would have
cost less than ``EARLY_OFF`` times Franc's CPU on the retrains so far."""


def efficiency_parts(M: int, todo: int, *, first_most: int | None = None) -> list[int]:
    """Where the CPU test's parts of its first ``M`` of ``todo`` retrains end: the first part
    is at most one in :data:`SAMPLE_SHARE` of them and ``first_most`` (at least one), the others
    have :data:`EARLY_POINTS` retrains; the test may stop after each (:data:`EARLY_OFF`, or its
    budget spent: :data:`svmtune.solvers.loo._efficiency.OVERHEAD`).

    >>> efficiency_parts(10, 200), efficiency_parts(10, 45), efficiency_parts(2, 200)
    ([3, 6, 9, 10], [2, 5, 8, 10], [2])
    >>> efficiency_parts(10, 200, first_most=1)
    [1, 4, 7, 10]
    """
    most = M if first_most is None else min(M, first_most)
    first = max(1, min(EARLY_POINTS, todo // SAMPLE_SHARE, most))
    rest = range(first + EARLY_POINTS, M + EARLY_POINTS, EARLY_POINTS)
    return [first, *(min(M, k) for k in rest)]


class Retrains:
    """The retrains of one exact leave-one-out computation and what they found (per point)."""

    def __init__(self, setup: RetrainSetup, todo: NDArray[np.int64], n: int) -> None:
        self.setup = setup
        self.todo = todo
        self.decision = np.full(n, np.nan)
        self.status = np.full(n, -1, dtype=np.int64)
        self.iters = np.zeros(n, dtype=np.int64)
        self.rows = np.zeros(n, dtype=np.int64)
        self.gbar_full = FullGbar(setup.K, setup.y, setup.C, setup.full.alpha)
        self.low_rank = LowRank(setup.K, setup.diag)  # factored when a Franc retrain needs it
        self.keep = False
        self.eff_certified = -1
        self.n_refined = 0
        self.n_refined_certified = 0
        self.n_refine_windows = 0
        self.measured_steps = 0  # the efficiency test's eps-KKT continuations
        self.measured_rows = 0
        self.tested = 0  # retrains of the efficiency test
        self.probed = 0  # retrains run under the eps-KKT stop before it (PROBE_POINTS)
        self.whole = False  # Franc's stop to the end of each retrain for the rest
        self.franc = False  # Franc's stop asked for

    def _store(self, points: NDArray[np.int64], out: tuple[NDArray, ...]) -> None:
        d, st, it, rw = out
        self.decision[points], self.status[points] = d, st
        self.iters[points] += it
        self.rows[points] += rw

    def retrain(self, *, franc: bool, M: int, n_jobs: int | None, efficiency: str) -> None:
        """Every point of ``todo``; under Franc's stop the first ``M`` decide (the efficiency
        test, :data:`svmtune.solvers.loo.EFFICIENCY_POINTS`) how the rest run. The CPU test
        comes after :data:`PROBE_POINTS` retrains under the eps-KKT stop, and not at all where
        they project a call too short to pay for its first part (:meth:`_probe`)."""
        setup, todo = self.setup, self.todo
        rest = todo
        self.franc = franc
        if franc and efficiency == "cpu" and todo.size > M + 2:
            rest, first = self._probe(todo, M, n_jobs)
            if first:  # else the eps-KKT stop for the rest, untested
                rest = self._efficiency_test(
                    rest, M, n_jobs, efficiency, total=todo.size, first_most=first
                )
        elif franc:
            rest = self._efficiency_test(todo, M, n_jobs, efficiency, total=todo.size)
        if not rest.size:
            return
        if isinstance(setup.store, KernelRows):
            store = setup.store
            self._store(rest, retrain_rows(store, setup.solver, setup.y, setup.C, setup.full, rest))
        else:
            out = retrain_shrinking(
                setup,
                rest,
                franc=franc and self.keep,
                gbar_full=self.gbar_full,
                n_jobs=n_jobs,
                whole=self.whole,
                low_rank=self.low_rank,
            )
            self._store(rest, out)

    def _probe(
        self, todo: NDArray[np.int64], M: int, n_jobs: int | None
    ) -> tuple[NDArray[np.int64], int]:
        """At most :data:`PROBE_POINTS` retrains under the eps-KKT stop, spread evenly over
        ``todo[M:]`` (leaving more than ``M``): the points left to retrain, and how many
        retrains the CPU test's first part may take on this call (0: the test is not worth its
        cost, :meth:`svmtune.solvers.loo._efficiency.Probe.first_part`)."""
        count = min(PROBE_POINTS, todo.size - M - 1)  # the CPU test then has more than M
        span = todo.size - M - 1
        at = [M + round(i * span / (count - 1)) for i in range(count)]  # evenly, ends included
        part = todo[at]
        probe = Probe()
        out = retrain_shrinking(
            self.setup, part, franc=False, gbar_full=self.gbar_full, n_jobs=n_jobs, measure=probe
        )
        self._store(part, out)
        self.probed = int(part.size)
        keep = np.ones(todo.size, dtype=bool)
        keep[at] = False
        rest = todo[keep]
        return rest, probe.first_part(todo.size, self.setup.y.shape[0])

    def _efficiency_test(
        self,
        todo: NDArray[np.int64],
        M: int,
        n_jobs: int | None,
        efficiency: str,
        *,
        total: int,
        first_most: int | None = None,
    ) -> NDArray[np.int64]:
        """The first ``M`` points under Franc's stop for the whole retrain; sets ``keep`` and
        ``whole`` and returns the points left to retrain (``total``: the call's retrains, the
        probe's included, which size the CPU test's parts and budget; ``first_most``: the first
        part's retrains at most, :meth:`_probe`). The paper's test
        (``"certified"``): Franc kept when at least half of them were certified. The CPU test
        (``"cpu"``): the way that cost least on them
        (:class:`svmtune.solvers.loo._efficiency.Measure`), measured in parts
        (:func:`efficiency_parts`); the test ends after a part when the eps-KKT stop was
        clearly the cheapest so far, or when the next part would overrun its budget at the
        rate of the parts so far (:data:`svmtune.solvers.loo._efficiency.OVERHEAD`)."""
        n = self.setup.y.shape[0]
        cpu = efficiency == "cpu" and todo.size > M
        measure = Measure(part_cost=PART_POINTS / n, low_rank=self.low_rank) if cpu else None
        ends = efficiency_parts(M, total, first_most=first_most) if measure is not None else [M]
        done = 0
        for lo, hi in zip([0, *ends[:-1]], ends, strict=True):
            part = todo[lo:hi]
            if not part.size:
                continue
            out = retrain_shrinking(
                self.setup,
                part,
                franc=True,
                gbar_full=self.gbar_full,
                n_jobs=n_jobs,
                measure=measure,
                whole=measure is None,  # the CPU test measures the whole way after
                low_rank=self.low_rank,
            )
            self._store(part, out)
            done += part.size
            if measure is not None:
                measure.parts += 1
                measure.settle(self.setup, self.gbar_full, todo=total)
                tot = measure.totals()
                if tot["kkt"] < EARLY_OFF * min(tot["short"], tot["whole"]):
                    break
                # the next part, if it costs what the parts so far cost, stays within budget
                nxt = min(EARLY_POINTS, M - done)
                if measure.overhead() * (done + nxt) / done >= measure.allowance(total):
                    break
        self.tested = done
        self.eff_certified = int(np.sum(self.status[todo[:done]] == _exact_loo_loop.CERTIFIED))
        if measure is None:
            self.keep = self.whole = 2 * self.eff_certified >= done
        else:
            way = measure.choice()
            self.keep, self.whole = way != "kkt", way == "whole"
            self.measured_steps, self.measured_rows = measure.steps, measure.rows
        return todo[done:]

    def refine_unsure(self, band: float) -> None:
        """Refine the eps-KKT decisions within ``band`` of zero; then call ties at zero.

        A decision the eps-KKT stop left within ``tol x max(1, C max K_ii)`` of zero may lie on
        either side of it at the optimum (an eps-KKT alpha can be C-sized away from the optimal
        one along near-dependent kernel columns, and the left-out point is not among the points
        whose violations the stop bounds): the retrain goes on at tighter tolerances until its
        sign is certain."""
        todo, dec, st = self.todo, self.decision, self.status
        unsure = todo[(st[todo] == _exact_loo_loop.KKT) & (np.abs(dec[todo]) < band)]
        self.n_refined = int(unsure.size)
        if unsure.size:
            *out, self.n_refine_windows = refine(
                self.setup, unsure, dec[unsure], franc=self.franc, gbar_full=self.gbar_full
            )
            self._store(unsure, tuple(out))
            self.n_refined_certified = int(np.sum(st[unsure] == _exact_loo_loop.CERTIFIED))
        tie = todo[(st[todo] != _exact_loo_loop.CERTIFIED)]
        tie = tie[np.abs(dec[tie]) <= TIE * decision_scale(self.setup.C, self.setup.diag)]
        dec[tie] = 0.0
