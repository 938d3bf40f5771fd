"""The Optuna tuners' side of a trial: telling its outcome, reporting its steps to a pruner,
and what a ``GridSampler`` has values for."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from svmtune.objectives import Evaluation, Status

__all__ = ["grid_names", "reporter", "tell"]


def tell(study: Any, trial: Any, ev: Evaluation) -> bool:
    """Tell the study the trial's outcome; False if the sampler ends the search (a
    ``GridSampler`` whose grid is done calls ``study.stop()``, which only works inside
    ``study.optimize``: the trial is stored all the same, and the search ends here)."""
    from optuna.trial import TrialState

    try:
        if ev.ok:
            study.tell(trial, ev.value)
        elif ev.status is Status.PRUNED:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, state=TrialState.FAIL)
    except RuntimeError as exc:
        if "Study.stop" not in str(exc):
            raise
        return False
    return True


def reporter(trial: Any) -> Callable[[int, float], bool]:
    """The ``report`` callback of a step-wise evaluation: Optuna's report/should_prune."""

    def report(step: int, value: float) -> bool:
        trial.report(value, step)
        return bool(trial.should_prune())

    return report


def grid_names(sampler: Any, options: Mapping[str, Any] | None) -> set[str] | None:
    """The parameters an Optuna ``GridSampler`` (an instance, or the class with its
    ``search_space`` in ``options``) has values for; None for another sampler."""
    from optuna.samplers import GridSampler

    if isinstance(sampler, GridSampler):
        grid = getattr(sampler, "_search_space", None)
    elif isinstance(sampler, type) and issubclass(sampler, GridSampler):
        grid = dict(options or {}).get("search_space")
    else:
        return None
    return set(grid) if isinstance(grid, Mapping) else None
