"""Repeated k-fold cross-validation: the 5 x 2-fold CV estimate of the multiple-kernel studies."""

from __future__ import annotations

from collections import deque
from typing import ClassVar

import numpy as np

from svmtune._options import Integer
from svmtune.datasets import stratified_kfold
from svmtune.objectives._base import Outcome
from svmtune.objectives.kfold import KFoldCV, Seed, _BoundKFoldCV
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET, Selection

__all__ = ["RepeatedKFoldCV"]


class RepeatedKFoldCV(KFoldCV):
    """Stratified k-fold cross-validation repeated on ``repeats`` independent fold assignments.

    The value is the pooled error over all ``repeats * k`` folds: validation points
    misclassified, summed over the repeats, divided by ``repeats * n``. With ``k=2, repeats=5``
    (the defaults) this is the 5 x 2-fold CV estimate that Carrizosa, Martin-Barragan and Romero
    Morales (2014, Section 3.1) take from Gonen and Alpaydin (2011) for their multiple-kernel
    tables. Everything else is :class:`~svmtune.objectives.KFoldCV`'s: one Gram matrix per
    evaluation shared by all folds, cold starts by default (with ``seeding=True``, alpha
    seeding per fold and validation decisions near zero settled before errors are counted, so
    a value does not depend on what was evaluated before), fold-level pruning; an evaluation
    solves ``repeats * k`` SVMs, and its cost counts their iterations.

    Repeat ``r``'s folds are :func:`~svmtune.datasets.stratified_kfold` with the ``r``-th of
    ``repeats`` seeds spawned from ``random_state``, so one ``random_state`` gives the same
    folds everywhere.

    Parameters
    ----------
    k : int, default 2
        Folds per repeat.
    repeats : int, default 5
        Independent fold assignments.
    random_state, tol, seeding, n_jobs, selection, max_iter, memory_budget, max_seeds
        As in :class:`~svmtune.objectives.KFoldCV`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import RepeatedKFoldCV
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (40, 2)), rng.normal(1, 1, (40, 2))])
    >>> y = np.repeat([-1.0, 1.0], 40)
    >>> bound = RepeatedKFoldCV().bind(X, y, kernel=RBF())
    >>> len(bound.folds)
    10
    >>> ev = bound.evaluate({"C": 1.0, "gamma": 0.5})
    >>> ev.info["errors"] == round(ev.value * 5 * 80)
    True
    """

    min_per_class: ClassVar[int] = 2

    def __init__(
        self,
        *,
        k: int = 2,
        repeats: int = 5,
        random_state: Seed = 0,
        tol: float = 1e-3,
        seeding: bool = False,
        n_jobs: int | None = 1,
        selection: Selection = "second_order",
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        max_seeds: int = 64,
    ) -> None:
        super().__init__(
            k=k,
            random_state=random_state,
            tol=tol,
            seeding=seeding,
            n_jobs=n_jobs,
            selection=selection,
            max_iter=max_iter,
            memory_budget=memory_budget,
            max_seeds=max_seeds,
        )
        self.repeats = repeats

    _option_constraints = {"repeats": Integer(low=1)}

    def _bound_class(self) -> type[_BoundRepeatedKFoldCV]:
        return _BoundRepeatedKFoldCV


class _BoundRepeatedKFoldCV(_BoundKFoldCV):
    """RepeatedKFoldCV bound to data: ``repeats * k`` folds (repeat by repeat)."""

    objective: RepeatedKFoldCV

    def _setup(self) -> None:
        super()._setup()
        o = self.objective
        seed = o.random_state
        if seed is None:
            seed = np.random.SeedSequence()
        elif isinstance(seed, np.random.Generator):
            seed = np.random.SeedSequence(int(seed.integers(2**63)))
        elif not isinstance(seed, np.random.SeedSequence):
            seed = np.random.SeedSequence(int(seed))
        # The children seed.spawn() would give, without advancing a caller's SeedSequence (so
        # binding twice with one SeedSequence gives the same folds).
        children = [
            np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, r))
            for r in range(int(o.repeats))
        ]
        folds = []
        for child in children:
            folds += stratified_kfold(self.y, int(o.k), child)
        self.folds = folds
        self._seeds = [deque(maxlen=int(o.max_seeds)) for _ in folds]

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        # KFoldCV divides the errors by n; here every point is validated ``repeats`` times.
        out = super()._evaluate(params)
        validated = self.n_samples * int(self.objective.repeats)
        return out._replace(value=out.info["errors"] / validated)
