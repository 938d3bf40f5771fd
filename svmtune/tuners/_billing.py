"""Billing a tuning run its whole process CPU, as a peer's ``fit()`` is billed.

An evaluation's stopwatch, the objective's set-up and the final fit are timed where they happen;
what a tuner does between evaluations (a sampler proposing the next point, Optuna's trial
bookkeeping, the memo, the trace) is not inside any of them. :class:`RunClock` is started at the
top of a run (``Tuner.tune_bound``) and :func:`bill_whole_run` adds the run's time outside those
stopwatches to its total cost, so ``TuningResult.total_cost`` is the process CPU (and wall
time) of the whole run: the objective's set-up plus everything from the first check to the
final classifier. Only a one-time warm-up (numba's compilation, imports; see
:func:`~svmtune.tuners._warm_up.warm_up_method`) stays untimed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from svmtune.objectives import BoundObjective, Cost, Evaluation, Stopwatch

__all__ = ["RunClock", "bill_whole_run"]


@dataclass(frozen=True)
class RunClock:
    """Started when a run starts: its stopwatch and the bound objective's set-up cost until
    then (billed apart, as ``setup``)."""

    setup0: Cost
    watch: Stopwatch = field(default_factory=Stopwatch)

    @classmethod
    def start(cls, bound: BoundObjective) -> RunClock:
        return cls(setup0=bound.setup_cost)


def bill_whole_run(
    clock: RunClock | None, fixed: Cost, evaluations: Sequence[Evaluation]
) -> tuple[Cost, list[Evaluation]]:
    """The run's total cost and its evaluations as billed: ``fixed`` (set-up and final fit)
    plus every evaluation plus the run's time outside their stopwatches, that time shared
    equally among the evaluations (the trace's cumulative cost then ends at the total).

    The set-up's part ``clock.setup0`` was measured before the run; the time outside the
    stopwatches is the run's process CPU (and wall time) since ``clock`` started minus the rest
    of the stopwatches' total; it is never negative (evaluations restored from an earlier run
    were timed by that run). Without a ``clock``, nothing is added.
    """
    total = fixed
    for e in evaluations:
        total = total + e.cost
    if clock is None:
        return total, list(evaluations)
    whole = clock.watch.cost()
    wall = max(whole.wall_s - (total.wall_s - clock.setup0.wall_s), 0.0)
    cpu = max(whole.cpu_s - (total.cpu_s - clock.setup0.cpu_s), 0.0)
    n = len(evaluations)
    if n == 0 or (wall == 0.0 and cpu == 0.0):
        return total, list(evaluations)
    share = Cost(wall / n, cpu / n)
    return total + Cost(wall, cpu), [replace(e, cost=e.cost + share) for e in evaluations]
