"""The tuner interface.

:meth:`Tuner.tune` owns everything but the search itself: binding the objective, the budget
(max evaluations, max seconds), memoising repeated points, the trace with cumulative cost, and
the final classifier. A strategy writes only :meth:`Tuner._run_search`, which calls
``evaluate(list_of_param_dicts)`` as often as it likes (scikit-learn's ``_run_search`` pattern).
Sequential strategies (VNS, TPE) call it with one candidate at a time and look at the results.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from svmtune._options import MAX_EVALS, MAX_SECONDS, Constraint, check_options, check_value
from svmtune._params import ParamsMixin
from svmtune._validation import as_rng
from svmtune.kernels import KernelModel
from svmtune.objectives import BoundObjective, Cost, Evaluation, FrozenParams, Objective, Stopwatch
from svmtune.space import SearchSpace
from svmtune.tuners._billing import RunClock, bill_whole_run
from svmtune.tuners._box import search_box
from svmtune.tuners._cpu_budget import cpu_budget_spent
from svmtune.tuners._result import BudgetExhausted, TuningResult
from svmtune.tuners._trace import TRACE_INFO, trace_frame
from svmtune.tuners._warm_up import warm_up_method

__all__ = [
    "TRACE_INFO",
    "BudgetExhausted",
    "Evaluator",
    "Tuner",
    "TuningResult",
    "trace_frame",
    "tuning_result",
]


class Evaluator:
    """The ``evaluate`` callable a search receives: ``evaluate(candidates) -> list[Evaluation]``.

    It owns the bookkeeping of one tuning run: the budget (raises :class:`BudgetExhausted` when
    spent), a memo (a point evaluated before is returned again at no cost and not recorded
    twice), and the evaluations in order. A strategy whose own answer is not simply the lowest
    value seen (Bisection returns its centre point) names it with :meth:`set_incumbent`; it is
    used when its value ties the lowest.
    """

    def __init__(self, bound: BoundObjective, max_evals: int | None, max_seconds: float | None):
        self.bound = bound
        self.max_evals = max_evals
        self.max_seconds = max_seconds
        self.t0 = time.perf_counter()
        self.evaluations: list[Evaluation] = []
        self.memo: dict[tuple[tuple[str, float], ...], Evaluation] = {}
        self.stopped_by = "converged"
        self.incumbent: Evaluation | None = None
        self.incumbent_final = False
        self.grads: dict[tuple[tuple[str, float], ...], dict[str, float]] = {}

    def set_incumbent(self, evaluation: Evaluation, *, final: bool = False) -> None:
        """Name the strategy's own answer (an evaluation made in this run).

        With ``final=True`` it is the answer whatever its value (incremental learning's values
        on growing working sets are not comparable with each other).
        """
        self.incumbent = evaluation
        self.incumbent_final = final

    def check_budget(self) -> None:
        """Raise :class:`BudgetExhausted` if no further evaluation may start (:meth:`spent`)."""
        if self.spent():
            raise BudgetExhausted

    def record(self, evaluation: Evaluation) -> None:
        """Record an evaluation the strategy made itself (not memoised: e.g. on a working set).
        Call :meth:`check_budget` before making it."""
        self.evaluations.append(evaluation)

    def gradient(self, params: Mapping[str, float]) -> tuple[Evaluation, dict[str, float]]:
        """The evaluation at ``params`` and the objective's gradient there (search coordinates).

        Counts against the budget like ``evaluate``; at a point evaluated before, the earlier
        record is kept and the gradient's cost is added to it (one row per point in the trace,
        cumulative costs stay honest). Needs an objective with ``has_gradient``.
        """
        checked = self.bound.space.check(params)
        key = tuple(sorted(checked.items()))
        if key in self.grads:
            return self.memo[key], self.grads[key]
        if key not in self.memo:
            self.check_budget()
        ev, grad = self.bound.gradient(checked)
        old = self.memo.get(key)
        if old is not None:
            merged = replace(
                old, cost=old.cost + ev.cost, info=FrozenParams({**old.info, **ev.info})
            )
            i = next(j for j, e in enumerate(self.evaluations) if e is old)
            self.evaluations[i] = merged
            ev = merged
        else:
            self.evaluations.append(ev)
        self.memo[key] = ev
        self.grads[key] = dict(grad)
        return ev, self.grads[key]

    def best(self) -> Evaluation:
        """The incumbent if it ties the lowest value, else the first lowest-valued evaluation."""
        ok = [e for e in self.evaluations if e.ok]
        if not ok:
            first = self.evaluations[0].error if self.evaluations else None
            raise RuntimeError(f"every evaluation failed; first error: {first}")
        if self.incumbent is not None and self.incumbent_final and self.incumbent.ok:
            return self.incumbent
        best = min(ok, key=lambda e: e.value)  # min keeps the first on ties
        if self.incumbent is not None and self.incumbent.ok and self.incumbent.value <= best.value:
            return self.incumbent
        return best

    def spent(self) -> bool:
        """True (and ``stopped_by`` set) when the next new evaluation would exceed the budget;
        for strategies that must not ask for a point they cannot evaluate (Optuna's ask/tell)."""
        if self.max_evals is not None and len(self.evaluations) >= self.max_evals:
            self.stopped_by = "max_evals"
            return True
        if self.max_seconds is not None and time.perf_counter() - self.t0 >= self.max_seconds:
            self.stopped_by = "max_seconds"
            return True
        if cpu_budget_spent():
            self.stopped_by = "max_cpu_seconds"
            return True
        return False

    def restore(self, evaluations: Sequence[Evaluation]) -> None:
        """Record evaluations made by an earlier, interrupted run of the same search (a resumed
        Optuna study): they count towards the budget and are not evaluated again."""
        for ev in evaluations:
            checked = self.bound.space.check(ev.params)
            key = tuple(sorted(checked.items()))
            if key in self.memo:
                continue
            self.memo[key] = ev
            self.evaluations.append(ev)

    def evaluate_steps(
        self, params: Mapping[str, float], report: Callable[[int, float], bool]
    ) -> Evaluation:
        """Evaluate one point step by step (an objective with ``reports_steps``): ``report(step,
        running_value) -> stop`` is called after each step, and the evaluation is PRUNED when it
        returns True. A pruned evaluation counts against the budget as one evaluation and its
        cost (the steps done) is in the trace. A point evaluated before is returned again."""
        checked = self.bound.space.check(params)
        key = tuple(sorted(checked.items()))
        if key in self.memo:
            return self.memo[key]
        self.check_budget()
        ev = self.bound.evaluate(checked, report=report)
        self.memo[key] = ev
        self.evaluations.append(ev)
        return ev

    def __call__(self, candidates: Sequence[Mapping[str, float]]) -> list[Evaluation]:
        if isinstance(candidates, Mapping):
            raise TypeError("evaluate takes a sequence of parameter dicts, not a single dict")
        out = []
        for params in candidates:
            checked = self.bound.space.check(params)
            key = tuple(sorted(checked.items()))
            if key in self.memo:
                out.append(self.memo[key])
                continue
            self.check_budget()
            ev = self.bound.evaluate(checked)
            self.memo[key] = ev
            self.evaluations.append(ev)
            out.append(ev)
        return out


class Tuner(ParamsMixin, ABC):
    """Base class of tuners (keyword-only options, stored as given).

    Every tuner searches a box: the objective's search space narrowed to
    :data:`~svmtune.tuners.DEFAULT_BOX` (``C`` in 0.1..1000, kernel widths in 0.001..10), then
    to the box the caller gives (a study's ``bounds``), then to the tuner's own ``bounds``
    option where it has one (:meth:`search_box`).

    Parameters
    ----------
    max_evals : int, optional
        Stop after this many distinct evaluations (the one budget name of every tuner).
    max_seconds : float, optional
        Stop starting new evaluations after this many wall-clock seconds.
    """

    #: The tuner follows the objective's gradient: objectives without one are refused.
    needs_gradient: ClassVar[bool] = False

    #: What each option may be (:mod:`svmtune._options`); a subclass declares its own options
    #: the same way, and :meth:`_check_options` checks them all, the base's first.
    _option_constraints: ClassVar[Mapping[str, Constraint]] = {
        "max_evals": MAX_EVALS,
        "max_seconds": MAX_SECONDS,
    }

    def __init__(self, *, max_evals: int | None = None, max_seconds: float | None = None) -> None:
        self.max_evals = max_evals
        self.max_seconds = max_seconds

    @property
    def name(self) -> str:
        return type(self).__name__

    def _budget(self) -> int | None:
        """The evaluation budget of a run (``max_evals``, or a tuner's default)."""
        return None if self.max_evals is None else int(self.max_evals)

    def _check_budget(self) -> None:
        """ValueError naming a bad budget (``max_evals``, ``max_seconds``)."""
        check_value(self.max_evals, "max_evals", MAX_EVALS)
        check_value(self.max_seconds, "max_seconds", MAX_SECONDS)

    def _check_options(self) -> None:
        """Raise ValueError naming a bad option: every declared constraint
        (``_option_constraints`` of the class and its bases), then what a subclass adds after
        calling this (one option against another). Run by :meth:`check`, never by ``__init__``."""
        check_options(self)

    def _check_space(self, space: SearchSpace) -> None:
        """Raise ValueError if this strategy cannot search the box ``space``."""

    def search_box(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """The box this tuner searches in the objective's ``space``: the default box, narrowed
        to ``bounds`` (a study's), then to the tuner's own ``bounds`` option.

        Examples
        --------
        >>> from svmtune.kernels import RBF
        >>> from svmtune.objectives import KFoldCV
        >>> from svmtune.tuners import VNS
        >>> box = VNS(bounds={"C": (1.0, 10.0)}).search_box(KFoldCV().search_space(RBF()))
        >>> [(p.name, p.low, p.high) for p in box]
        [('C', 1.0, 10.0), ('gamma', 0.001, 10.0)]
        """
        return search_box(space, bounds, getattr(self, "bounds", None))

    def check(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """Check the options against the objective's ``space``; return the box searched.

        ValueError naming the bad value (a budget, a box outside the space, a start outside
        the box, ...).
        """
        self._check_options()
        box = self.search_box(space, bounds=bounds)
        self._check_space(box)
        return box

    def check_objective(self, objective: Objective) -> None:
        """ValueError if this tuner cannot work with ``objective`` (a gradient tuner and an
        objective without a gradient)."""
        if self.needs_gradient and not getattr(objective, "has_gradient", False):
            raise ValueError(
                f"{self.name} needs the objective's gradient and {objective!r} provides none "
                "(has_gradient=False); use PlattError, or a gradient-free tuner (Grid, VNS, TPE)"
            )

    def check_kernel(self, kernel: KernelModel) -> None:
        """ValueError if this tuner cannot search ``kernel``'s parameters (a study calls it at
        its definition; most tuners search any kernel model)."""

    def tune(
        self,
        objective: Objective,
        X: ArrayLike,
        y: ArrayLike,
        *,
        kernel: KernelModel,
        random_state: int | np.random.Generator | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ) -> TuningResult:
        """Tune ``objective`` on ``(X, y)`` over ``kernel``'s parameters (and C, if it has one).

        ``bounds`` narrows the search box (as a study's ``bounds`` do); the tuner's own
        ``bounds`` option wins for the names it gives.
        """
        if not isinstance(objective, Objective):
            raise ValueError(f"objective must be a svmtune Objective; got {objective!r}")
        self.check_objective(objective)
        self.check_kernel(kernel)
        self.check(objective.search_space(kernel), bounds=bounds)
        warm_up_method(objective, self, kernel, X, y)  # untimed: a first call's cost is its own
        return self.tune_bound(
            objective.bind(X, y, kernel=kernel), random_state=random_state, bounds=bounds
        )

    def tune_bound(
        self,
        bound: BoundObjective,
        *,
        random_state: int | np.random.Generator | None = None,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ) -> TuningResult:
        """Tune an already bound objective, optionally from a starting point (in the box)."""
        clock = RunClock.start(bound)
        box = self.prepare(bound, bounds=bounds)
        rng = as_rng(random_state, name="random_state")
        if start is not None:
            try:
                start = box.check(start)
            except ValueError as exc:
                raise ValueError(f"start point is not in the search box: {exc}") from None
        run = Evaluator(bound, self._budget(), self.max_seconds)
        try:
            self._run_search(run, box, rng, start)
        except BudgetExhausted:
            pass
        if not run.evaluations:
            raise RuntimeError(f"{self.name} made no evaluation (budget too small?)")
        try:
            best = run.best()
        except RuntimeError as exc:
            raise RuntimeError(f"{self.name}: {exc}") from None
        return tuning_result(bound, box, run.evaluations, best, run.stopped_by, clock=clock)

    def prepare(
        self, bound: BoundObjective, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """Every check of a run on ``bound`` before it starts (objective, kernel model, the
        bound objective itself, options and box); returns the box searched."""
        self.check_objective(bound.objective)
        self.check_kernel(bound.kernel)
        self._check_bound(bound)
        return self.check(bound.space, bounds=bounds)

    def _check_bound(self, bound: BoundObjective) -> None:
        """ValueError if this tuner cannot tune ``bound`` (a subclass's extra requirement)."""

    @abstractmethod
    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        """Search ``space`` by calling ``evaluate(candidates) -> list[Evaluation]``."""


def tuning_result(
    bound: BoundObjective,
    box: SearchSpace,
    evaluations: Sequence[Evaluation],
    best: Evaluation,
    stopped_by: str,
    *,
    setup: Cost | None = None,
    levels: Sequence[int] | None = None,
    stages: Sequence[str] | None = None,
    clock: RunClock | None = None,
) -> TuningResult:
    """The result of a run: the classifier at ``best``, the trace and the total cost (``setup``,
    default the bound objective's, evaluations, final fit, and the time outside them since
    ``clock``: :func:`~svmtune.tuners._billing.bill_whole_run`)."""
    setup = bound.setup_cost if setup is None else setup
    watch = Stopwatch()
    clf = bound.classifier(best.params)
    total, evaluations = bill_whole_run(clock, setup + watch.cost(), evaluations)
    return TuningResult(
        best_params=dict(best.params),
        best_value=best.value,
        best_classifier=clf,
        trace=trace_frame(
            evaluations, box, setup, levels=levels, stages=stages, n_full=bound.n_samples
        ),
        best_evaluation=best,
        stopped_by=stopped_by,
        total_cost=total,
        space=box,
    )
