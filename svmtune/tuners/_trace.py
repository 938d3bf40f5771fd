"""The trace of a tuning run: one row per evaluation, with its cost and the cumulative cost."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from svmtune.objectives import Cost, Evaluation, Status
from svmtune.space import SearchSpace

__all__ = ["SCREEN", "TRACE_INFO", "trace_frame"]

#: Evaluation ``info`` entries that become trace columns when some evaluation has them
#: (gradient tuners record the gradient norm, incremental learning the working-set size,
#: successive halving each evaluation's rung and its subsample's size, exact leave-one-out the
#: retrains Franc's bound certified and the retrains run under it, whose ratio over a grid is
#: Franc, Laskov and Muller's "Prec").
TRACE_INFO = ("grad_norm", "working_set", "rung", "n_samples", "certified", "under_franc")

#: The ``stage`` of a screening evaluation (a cheap objective, :class:`~svmtune.tuners.Cascade`)
#: and the ``status`` of its row when it succeeded: its value is on another scale than the
#: run's objective, so it is never the run's answer nor its ``best_value``.
SCREEN = "screen"


def trace_frame(
    evaluations: Sequence[Evaluation],
    space: SearchSpace,
    setup: Cost | None = None,
    levels: Sequence[int] | None = None,
    stages: Sequence[str] | None = None,
    n_full: int | None = None,
) -> pd.DataFrame:
    """The trace DataFrame of a sequence of evaluations (see :class:`TuningResult`).

    ``best_value`` is the lowest value so far of the evaluations at full fidelity: ok, not a
    screen, and not on a subsample (an ``n_samples`` info below ``n_full``, the training
    points). The other rows' cost is counted in the cumulative columns all the same.

    ``levels`` (one per evaluation; nested searches) adds a ``level`` column after ``eval``.
    ``stages`` (one per evaluation; cascades) adds a ``stage`` column after ``eval``; a row of
    stage :data:`SCREEN` that succeeded has the status ``"screen"``. ``best_value`` is NaN
    before the first full-fidelity row when some row is a screen or a subsample.
    """
    rows = []
    best = math.inf
    cum = setup if setup is not None else Cost()
    partial = stages is not None
    for i, ev in enumerate(evaluations):
        cum = cum + ev.cost
        screen = stages is not None and stages[i] == SCREEN
        m = ev.info.get("n_samples")
        subsample = n_full is not None and m is not None and int(m) < int(n_full)
        partial = partial or subsample
        if not screen and not subsample:
            best = min(best, ev.score)
        status = SCREEN if screen and ev.status is Status.OK else str(ev.status)
        row: dict[str, Any] = {"eval": i}
        row.update({f"param_{n}": ev.params.get(n, np.nan) for n in space.names})
        row.update(
            value=ev.value,
            status=status,
            wall_s=ev.cost.wall_s,
            cpu_s=ev.cost.cpu_s,
            kernel_evals=ev.cost.kernel_evals,
            iterations=ev.cost.iterations,
            cum_wall_s=cum.wall_s,
            cum_cpu_s=cum.cpu_s,
            cum_kernel_evals=cum.kernel_evals,
            cum_iterations=cum.iterations,
            best_value=best if math.isfinite(best) or not partial else np.nan,
        )
        for key in TRACE_INFO:
            row[key] = ev.info.get(key, np.nan)
        rows.append(row)
    extra = [k for k in TRACE_INFO if any(k in ev.info for ev in evaluations)]
    columns = [
        "eval",
        *(["level"] if levels is not None else []),
        *(["stage"] if stages is not None else []),
        *(f"param_{n}" for n in space.names),
        "value",
        "status",
        "wall_s",
        "cpu_s",
        "kernel_evals",
        "iterations",
        "cum_wall_s",
        "cum_cpu_s",
        "cum_kernel_evals",
        "cum_iterations",
        "best_value",
        *extra,
    ]
    frame = pd.DataFrame(rows, columns=columns)
    if levels is not None:
        frame["level"] = np.asarray(levels, dtype=np.int64)
    if stages is not None:
        frame["stage"] = list(stages)
    return frame
