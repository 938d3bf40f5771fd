"""A CPU-seconds budget for the tuning runs started inside a ``with`` block.

:func:`cpu_budget` sets a deadline in process CPU seconds (:func:`time.process_time`: every
thread of this process, the sampler's and the bookkeeping's included) that every tuning run
started in the block checks between evaluations, beside its own ``max_evals`` and
``max_seconds``: a run past it stops starting evaluations, keeps its trace and answers with its
incumbent (``stopped_by == "max_cpu_seconds"``). An evaluation in progress is not interrupted;
a budget spent before the first evaluation leaves the run without an answer (RuntimeError, as
with ``max_seconds``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["cpu_budget", "cpu_budget_spent"]

_DEADLINE: ContextVar[float | None] = ContextVar("svmtune_cpu_deadline", default=None)


@contextmanager
def cpu_budget(seconds: float | None) -> Iterator[None]:
    """Stop the tuning runs started in the block after ``seconds`` of process CPU time.

    Parameters
    ----------
    seconds : float or None
        CPU seconds from entering the block; None sets no budget (an outer one still holds).

    Raises
    ------
    ValueError
        If ``seconds`` is not a positive finite number or None.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.tuners import Grid, cpu_budget
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> with cpu_budget(600.0):  # ample: the grid's 25 points all run
    ...     result = Grid(n_points=5).tune(KFoldCV(k=3), X, 2.0 * y - 1, kernel=RBF())
    >>> result.stopped_by, result.n_evaluations
    ('converged', 25)
    """
    if seconds is None:
        yield
        return
    if isinstance(seconds, bool) or not (
        isinstance(seconds, float | int) and math.isfinite(seconds) and seconds > 0
    ):
        raise ValueError(f"cpu_budget seconds must be a positive number or None; got {seconds!r}")
    deadline = time.process_time() + float(seconds)
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def cpu_budget_spent() -> bool:
    """True when a :func:`cpu_budget` holds and its deadline has passed.

    Examples
    --------
    >>> from svmtune.tuners import cpu_budget_spent
    >>> cpu_budget_spent()  # no budget set
    False
    """
    deadline = _DEADLINE.get()
    return deadline is not None and time.process_time() >= deadline
