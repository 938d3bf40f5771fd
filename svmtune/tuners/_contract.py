"""The contract between a search tuner and the run it is handed: what ``evaluate`` offers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from svmtune.objectives import Evaluation

__all__ = ["Evaluate"]


class Evaluate(Protocol):
    """What a search tuner may use of the ``evaluate`` its ``_run_search(evaluate, space, rng,
    start)`` is handed (an :class:`~svmtune.tuners.Evaluator`): four methods.

    - ``evaluate(candidates)``: evaluate parameter dicts (natural units, in ``space``, the box
      searched) and return their :class:`~svmtune.objectives.Evaluation` records in order
      (``value``, lower is better; ``ok``). A point evaluated before comes back at no cost.
      When the budget (``max_evals``, ``max_seconds``) is spent it raises
      :class:`~svmtune.tuners.BudgetExhausted`, which the base class catches to end the run:
      a search may simply loop.
    - ``spent()``: whether the next new evaluation would exceed the budget, for a strategy
      that must not propose a point it cannot evaluate (ask/tell).
    - ``best()``: the best evaluation so far (the lowest value, the first on ties).
    - ``set_incumbent(evaluation, final=False)``: name the strategy's own answer where it is not
      simply the lowest value seen (Bisection's centre point).

    The base class does the rest: the checks, the box, the seeded ``rng``, the budget, the
    trace, the final classifier and the untimed warm-up. Tuners that follow gradients or
    evaluate on parts of the data use more of :class:`~svmtune.tuners.Evaluator`
    (``gradient``; ``check_budget`` and ``record``; ``evaluate_steps``; ``restore``). A
    complete new tuner in about 30 lines: ``docs/search-tuners.md``, "Writing a tuner".
    """

    def __call__(self, candidates: Sequence[Mapping[str, float]]) -> list[Evaluation]: ...

    def spent(self) -> bool: ...

    def best(self) -> Evaluation: ...

    def set_incumbent(self, evaluation: Evaluation, *, final: bool = False) -> None: ...
