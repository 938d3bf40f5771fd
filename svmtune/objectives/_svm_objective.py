"""The base of the objectives that train the hinge-loss SVM by SMO.

k-fold CV (:class:`~svmtune.objectives.KFoldCV`), the exact leave-one-out error
(:class:`~svmtune.objectives.ExactLOO`) and Platt's empirical error
(:class:`~svmtune.objectives.PlattError`) share their solver options (``tol``, ``max_iter``,
``memory_budget``, and ``selection`` where offered), their validation, the SMO solver they build
from them, the memory rule for holding the Gram matrix, and the regularization constant ``C``
(searched, or fixed by an option). :class:`SVMObjective` and :class:`BoundSVMObjective` hold
those once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar

from svmtune._validation import check_positive
from svmtune.classifier import KernelExpansion, expansion_from_solution
from svmtune.kernels import KernelModel, PreparedKernel
from svmtune.objectives._base import BoundObjective, Objective
from svmtune.solvers import SMO, SMOResult
from svmtune.solvers.smo import Selection

__all__ = ["GRAM_BYTES_PER_ENTRY", "BoundSVMObjective", "SVMObjective"]

#: Bytes per point pair an evaluation holds: the kernel statistics (squared distances) and the
#: Gram matrix side by side, 8 bytes each.
GRAM_BYTES_PER_ENTRY = 16


class SVMObjective(Objective):
    """An objective that trains the soft-margin SVM by SMO.

    A subclass's ``__init__`` takes ``tol``, ``max_iter`` and ``memory_budget`` among its
    keyword-only options and passes them to this ``__init__``, which stores them; it stores
    ``selection`` itself if it offers it (otherwise SMO's second-order selection is used) and
    names its bound class in ``_bound_class``. The base checks the options
    (:meth:`_check_options`) and builds the solver of every bound objective.
    """

    needs_C: ClassVar[bool] = True
    selection: Selection = "second_order"

    def __init__(self, *, tol: float, max_iter: int | None, memory_budget: int) -> None:
        self.tol = tol
        self.max_iter = max_iter
        self.memory_budget = memory_budget

    def _fixed_C(self) -> float | None:
        """The regularization constant fixed by an option, or None when ``C`` is searched."""
        return None

    def _searches_C(self, kernel: KernelModel) -> bool:
        fixed = self._fixed_C()
        if fixed is not None and kernel.includes_scale:
            raise ValueError(
                f"C={fixed!r} cannot be fixed: {kernel!r} carries its own scale (C = 1)"
            )
        return fixed is None and super()._searches_C(kernel)

    def _check_options(self) -> None:
        super()._check_options()
        fixed = self._fixed_C()
        if fixed is not None:
            check_positive(fixed, name="C")
        self._solver()

    def _solver(self) -> SMO:
        """The SMO solver of the options, checked (ValueError naming a bad one)."""
        solver = SMO(
            tol=self.tol,
            selection=self.selection,
            max_iter=self.max_iter,
            memory_budget=self.memory_budget,
            check_kernel=False,
        )
        solver._check_options()
        return solver

    def _gram_fits(self, n: int) -> bool:
        """Whether an evaluation on ``n`` points may hold the kernel statistics and the Gram
        matrix side by side (``16 n^2`` bytes) within ``memory_budget``."""
        return GRAM_BYTES_PER_ENTRY * n * n <= self.memory_budget


class BoundSVMObjective(BoundObjective):
    """An :class:`SVMObjective` bound to data: its solver and the regularization constant."""

    objective: SVMObjective

    @cached_property
    def solver(self) -> SMO:
        """The SMO solver of the objective's options."""
        return self.objective._solver()

    def _prepared_if_fits(self) -> PreparedKernel | None:
        """The kernel statistics of all bound points when their Gram matrix fits the memory
        budget beside them (:meth:`SVMObjective._gram_fits`), else None."""
        return self.kernel.prepare(self.X) if self.objective._gram_fits(self.n_samples) else None

    def C(self, params: Mapping[str, float]) -> float:
        """The fixed ``C`` if the objective has one, else that of ``params`` (1 when the kernel
        carries the scale)."""
        fixed = self.objective._fixed_C()
        return float(fixed) if fixed is not None else super().C(params)

    def _expansion(self, params: Mapping[str, float], result: SMOResult) -> KernelExpansion:
        """The classifier of an SMO solution over all bound points."""
        return expansion_from_solution(self.kernel, params, self.X, self.y, result)

    # -- per-fold records (k-fold objectives; TunedSVC's cv_results_ split columns) ---------
    def _timed(self, fold: int, solver: SMO, *args: Any, **kwargs: Any) -> SMOResult:
        """``solver.solve(*args, **kwargs)`` for fold ``fold``, timed (its fit seconds)."""
        t0 = time.perf_counter()
        res = solver.solve(*args, **kwargs)
        t1 = time.perf_counter()
        self._fold_clock()[fold] = [t1 - t0, t1]  # fit seconds, and when scoring starts
        return res

    def _fold_scored(self, fold: int) -> None:
        """Fold ``fold``'s validation decisions and score are done: their seconds."""
        clock = self._fold_clock()[fold]
        clock[1] = time.perf_counter() - clock[1]

    def _fold_clock(self) -> dict[int, list[float]]:
        clock: dict[int, list[float]] = self.__dict__.setdefault("_fold_seconds", {})
        return clock

    def _record_folds(self, params: Mapping[str, float], errors: list[int]) -> None:
        """Keep one record of an evaluation's folds (those solved, in order): ``params``,
        each fold's validation errors and its (fit, score) seconds, in ``records``."""
        clock = self._fold_clock()
        self.__dict__.setdefault("records", []).append(
            {
                "params": dict(params),
                "errors": list(errors),
                "seconds": [tuple(clock[f]) for f in range(len(errors))],
            }
        )
