"""What a tuning run returns (:class:`TuningResult`) and the signal that ends a search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from svmtune.classifier import KernelExpansion
from svmtune.objectives import Cost, Evaluation
from svmtune.space import SearchSpace

__all__ = ["BudgetExhausted", "TuningResult"]


class BudgetExhausted(Exception):
    """Raised inside ``evaluate`` when the tuner's budget is spent; ends the search."""


@dataclass(frozen=True)
class TuningResult:
    """The outcome of one tuning run.

    Attributes
    ----------
    best_params : dict
        The best hyperparameters found (lowest objective value; the first one found on ties).
    best_value : float
    best_classifier : KernelExpansion
        Trained on all the training data at ``best_params``.
    trace : pandas.DataFrame
        Every evaluation in order: ``param_<name>``, ``value``, ``status`` (``ok``, ``failed``,
        or ``pruned``: stopped by a pruner, with its partial value), per-evaluation cost
        (``wall_s``, ``cpu_s``, ``kernel_evals``, ``iterations``), cumulative cost (``cum_*``,
        including the objective's set-up cost) and ``best_value`` so far, the lowest value of
        the evaluations at full fidelity (ok, on all the training data: a cascade's screen, a
        pruned trial and a successive-halving rung on a subsample do not count).
    best_evaluation : Evaluation
    stopped_by : str
        ``"converged"``, ``"max_evals"``, ``"max_seconds"`` or ``"max_cpu_seconds"``
        (:func:`~svmtune.tuners.cpu_budget`).
    total_cost : Cost
        The whole run (:mod:`svmtune.tuners._billing`): set-up, evaluations, final fit, and
        the tuner's work between evaluations; not a one-time warm-up (compilation).
    space : SearchSpace or None
        The box the run searched (names, bounds, scales: the objective's space narrowed to the
        default, study or tuner box); :meth:`to_optuna` needs it.
    at_edge : dict
        ``{name: "low" | "high"}``: best value at that edge of the box, maybe beyond (Bisection).
    """

    best_params: dict[str, float]
    best_value: float
    best_classifier: KernelExpansion
    trace: pd.DataFrame
    best_evaluation: Evaluation
    stopped_by: str
    total_cost: Cost
    space: SearchSpace | None = None
    at_edge: dict[str, str] = field(default_factory=dict)

    @property
    def n_evaluations(self) -> int:
        return len(self.trace)

    def to_optuna(self, study_or_storage: Any, *, study_name: str | None = None) -> Any:
        """Write every evaluation of this run into an Optuna study, one trial each.

        See :func:`svmtune.tuners.trace_to_optuna` (this calls it with the run's trace and
        space): completed trials carry the parameters, the value and the cost (user attributes
        ``wall_s``, ``cpu_s``, ``kernel_evals``, ``iterations``); failed evaluations become
        failed trials. Returns the ``optuna.Study``.
        """
        from svmtune.tuners._optuna_export import trace_to_optuna

        if self.space is None:
            raise ValueError("this TuningResult has no search space; it cannot be exported")
        return trace_to_optuna(self.trace, self.space, study_or_storage, study_name=study_name)
