"""The objective interface.

An :class:`Objective` says how good a setting of the hyperparameters is. Binding it to training
data and a kernel model (:meth:`Objective.bind`) precomputes what all evaluations share (distances,
folds) and returns a :class:`BoundObjective`, which evaluates one setting at a time and builds the
final classifier for a setting. Every evaluation carries its cost.

Writing a new objective means writing two small classes: the :class:`Objective` (its options, the
hyperparameters it needs, and ``_bind``, or ``_bound_class`` naming the bound class) and its
:class:`BoundObjective` (``_setup`` for what evaluations share, ``_evaluate`` and
``classifier``).
"""

from __future__ import annotations

import time
import traceback
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._options import Constraint, check_options
from svmtune._params import ParamsMixin
from svmtune._validation import check_Xy
from svmtune.classifier import KernelExpansion
from svmtune.kernels import KernelModel
from svmtune.objectives._evaluation import Cost, Evaluation, Status
from svmtune.space import Param, SearchSpace

__all__ = ["BoundObjective", "Objective", "Outcome", "Stopwatch"]


#: The errors an evaluation records as FAILED (so a tuner can go on) instead of raising.
NUMERICAL_FAILURES = (ArithmeticError, np.linalg.LinAlgError, RuntimeError, MemoryError)


class Outcome(NamedTuple):
    """What ``BoundObjective._evaluate`` returns: the value and the machine-independent counts."""

    value: float
    kernel_evals: int = 0
    iterations: int = 0
    info: Mapping[str, Any] = {}
    #: The evaluation stopped early (a pruner's decision); ``value`` is the partial one.
    pruned: bool = False


@dataclass
class Stopwatch:
    """Wall and CPU seconds since creation (CPU time of this process)."""

    wall0: float = field(default_factory=time.perf_counter)
    cpu0: float = field(default_factory=time.process_time)

    def cost(self, kernel_evals: int = 0, iterations: int = 0) -> Cost:
        return Cost(
            time.perf_counter() - self.wall0,
            time.process_time() - self.cpu0,
            int(kernel_evals),
            int(iterations),
        )


class Objective(ParamsMixin, ABC):
    """Base class of objectives (keyword-only options, stored as given; a subclass checks them in
    :meth:`_check_options`, which the base calls at first use).

    Class attributes
    ----------------
    needs_C : bool
        The objective trains a hinge-loss SVM and so has a regularization constant ``C``.
    min_per_class : int
        Fewest points of each class the objective can work with.
    has_gradient : bool
        Its bound objective implements :meth:`BoundObjective.gradient` (gradient-based tuners
        check this before they start).
    yields_svm : bool
        :meth:`BoundObjective.classifier` is the plain hinge-loss SVM trained on all the data
        (k-fold CV, exact LOO), so ``TunedSVC`` may refit it as a :class:`svmtune.SVC`; False
        when the objective estimated another classifier (Fischetti's kernel expansion, the SVM
        with Platt's threshold), which ``TunedSVC`` then predicts with.
    reports_steps : bool
        Its bound objective can report a running value after each step of an evaluation
        (k-fold CV: after each fold) and stop when told to, so a tuner with a pruner can stop
        bad evaluations early (:meth:`BoundObjective.evaluate` with ``report``).
    """

    needs_C: ClassVar[bool] = False
    has_gradient: ClassVar[bool] = False
    reports_steps: ClassVar[bool] = False
    yields_svm: ClassVar[bool] = True
    min_per_class: ClassVar[int] = 2
    C_bounds: tuple[float, float] = (1e-3, 1e5)
    #: What each option may be (:mod:`svmtune._options`), checked by :meth:`_check_options`; a
    #: subclass declares its own the same way.
    _option_constraints: ClassVar[Mapping[str, Constraint]] = {}

    @property
    def name(self) -> str:
        return type(self).__name__

    def search_space(self, kernel: KernelModel) -> SearchSpace:
        """The hyperparameters this objective tunes on ``kernel``: ``C`` (if any) then the kernel's.

        A kernel that carries its own scale (multiple-kernel weights) fixes ``C = 1``.
        """
        self._check_options()
        if not isinstance(kernel, KernelModel):
            raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
        if self._searches_C(kernel):
            if "C" in kernel.space:
                raise ValueError(f"kernel {kernel!r} already has a parameter named 'C'")
            lo, hi = self.C_bounds
            return SearchSpace((Param("C", float(lo), float(hi)),)) + kernel.space
        return kernel.space

    def _searches_C(self, kernel: KernelModel) -> bool:
        """Whether ``C`` is a hyperparameter on ``kernel`` (a kernel that carries its own scale
        fixes it to 1)."""
        return self.needs_C and not kernel.includes_scale

    def _check_options(self) -> None:
        """Raise ValueError naming a bad option: every declared constraint
        (``_option_constraints`` of the class and its bases, :mod:`svmtune._options`), then what
        a subclass adds after calling this (one option against another). Called at first use
        (:meth:`search_space`, so also by :meth:`bind`, ``Tuner.tune`` and a study's
        definition), never by ``__init__``."""
        check_options(self)

    def bind(self, X: ArrayLike, y: ArrayLike, *, kernel: KernelModel) -> BoundObjective:
        """Check the data and precompute what every evaluation on it shares."""
        space = self.search_space(kernel)
        Xc, yc = check_Xy(X, y, min_per_class=self.min_per_class)
        kernel._check_features(Xc.shape[1])
        watch = Stopwatch()
        bound = self._bind(Xc, yc, kernel, space)
        bound.setup_cost = bound.setup_cost + watch.cost()
        return bound

    def _bind(
        self,
        X: NDArray[np.float64],
        y: NDArray[np.float64],
        kernel: KernelModel,
        space: SearchSpace,
    ) -> BoundObjective:
        """Build the bound objective for checked data: by default an instance of
        :meth:`_bound_class`, whose ``_setup`` precomputes what the evaluations share."""
        return self._bound_class()(self, X, y, kernel, space)

    def _bound_class(self) -> type[BoundObjective]:
        """The :class:`BoundObjective` subclass :meth:`_bind` builds (override one of them)."""
        raise NotImplementedError(f"{self.name} defines neither _bind nor _bound_class")

    def evaluate(
        self, X: ArrayLike, y: ArrayLike, *, kernel: KernelModel, params: Mapping[str, float]
    ) -> Evaluation:
        """Bind and evaluate one setting (convenience for a single evaluation)."""
        return self.bind(X, y, kernel=kernel).evaluate(params)


# Objective itself stays abstract (``Objective()`` raises TypeError); a subclass is complete once
# it supplies ``_bind`` or ``_bound_class`` (which the default ``_bind`` uses), so neither can be
# an ``abstractmethod``: a subclass's abstract methods are those of this set it leaves abstract.
Objective.__abstractmethods__ = frozenset({"_bind"})


class BoundObjective(ABC):
    """An objective bound to training data and a kernel model.

    Attributes
    ----------
    objective, kernel, X, y, space
    setup_cost : Cost
        What binding cost (precomputation shared by all evaluations); tuners add it to the trace.
    """

    def __init__(
        self,
        objective: Objective,
        X: NDArray[np.float64],
        y: NDArray[np.float64],
        kernel: KernelModel,
        space: SearchSpace,
    ) -> None:
        self.objective = objective
        self.X = X
        self.y = y
        self.kernel = kernel
        self.space = space
        self.setup_cost = Cost()
        self._setup()

    def _setup(self) -> None:
        """Precompute what every evaluation shares (folds, kernel statistics); called last by
        ``__init__``, so that a subclass needs no constructor of its own."""

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    def kernel_params(self, params: Mapping[str, float]) -> dict[str, float]:
        """The kernel's part of a full parameter dict."""
        return {n: float(params[n]) for n in self.kernel.space.names}

    def C(self, params: Mapping[str, float]) -> float:
        """The regularization constant of ``params`` (1 when the kernel carries the scale)."""
        return float(params["C"]) if "C" in params and "C" not in self.kernel.space else 1.0

    @abstractmethod
    def _evaluate(self, params: dict[str, float]) -> Outcome:
        """Evaluate validated parameters."""

    def gradient(self, params: Mapping[str, float]) -> tuple[Evaluation, dict[str, float]]:
        """The evaluation at ``params`` and the value's derivatives with respect to each
        parameter's search coordinate (its logarithm for a log-scaled parameter).

        Only objectives with ``has_gradient = True`` implement it (e.g. the Platt empirical
        error of Adankon et al.).
        """
        raise NotImplementedError(f"{self.objective.name} provides no gradient")

    def _evaluate_steps(
        self, params: dict[str, float], report: Callable[[int, float], bool]
    ) -> Outcome:
        """Evaluate validated parameters step by step, calling ``report(step, running_value)``
        after each step but the last and stopping (``Outcome.pruned``) when it returns True.
        Only objectives with ``reports_steps = True`` implement it."""
        raise NotImplementedError(f"{self.objective.name} cannot report per-step values")

    @abstractmethod
    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        """The classifier this objective yields at ``params``, trained on all bound data."""

    def evaluate(
        self,
        params: Mapping[str, float],
        *,
        report: Callable[[int, float], bool] | None = None,
    ) -> Evaluation:
        """Evaluate one setting. Bad parameters raise ValueError; a numerical failure inside the
        evaluation is recorded as a FAILED evaluation (value NaN) with its error text and a
        warning, so that a tuner can go on.

        ``report(step, running_value) -> stop`` (objectives with ``reports_steps``) is called
        after each step (k-fold CV: after fold ``step``, with the error over the folds solved);
        when it returns True the evaluation stops there and is PRUNED, with the running value
        and the cost of the steps done.
        """
        checked = self.space.check(params)
        if report is not None and not self.objective.reports_steps:
            raise ValueError(
                f"{self.objective!r} cannot report per-step values (reports_steps=False)"
            )
        watch = Stopwatch()
        try:
            out = (
                self._evaluate(checked) if report is None else self._evaluate_steps(checked, report)
            )
        except NUMERICAL_FAILURES as exc:
            return self._failed(checked, exc, watch)
        return Evaluation(
            checked,
            float(out.value),
            Status.PRUNED if out.pruned else Status.OK,
            watch.cost(out.kernel_evals, out.iterations),
            info=dict(out.info),
        )

    def _failed(
        self, checked: dict[str, float], exc: BaseException, watch: Stopwatch
    ) -> Evaluation:
        """The FAILED evaluation (value NaN, the error's text) of a numerical failure at
        ``checked``, with a RuntimeWarning pointing at the caller of the public method."""
        warnings.warn(
            f"{self.objective.name} failed at {checked}: {exc!r}", RuntimeWarning, stacklevel=3
        )
        return Evaluation(
            checked,
            float("nan"),
            Status.FAILED,
            watch.cost(),
            error="".join(traceback.format_exception_only(exc)).strip(),
        )
