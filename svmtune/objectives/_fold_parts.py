"""A KFoldCV fold's solve and validation decisions, on whichever kernel values it has."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from svmtune._memory import split_budget
from svmtune.classifier import decisions_from_columns, expansion_from_solution
from svmtune.objectives._settle import Decide, Solve
from svmtune.objectives._svm_objective import BoundSVMObjective
from svmtune.solvers import SMO, KernelRows, SMOResult
from svmtune.solvers.smo import BLOCK_SHARE

__all__ = ["fold_parts", "fold_share"]


def fold_share(memory_budget: int, n_jobs: int | None, k: int) -> int:
    """Each fold's share of ``memory_budget`` when ``k`` folds may be solved by ``n_jobs``
    workers at once (joblib's count: -1 is every core).

    Examples
    --------
    >>> fold_share(2**20, 1, 5), fold_share(2**20, 2, 5), fold_share(2**20, 8, 5)
    (1048576, 524288, 209715)
    """
    if n_jobs == 1:
        return int(memory_budget)
    from joblib import effective_n_jobs  # ~0.2 s to import: only when used

    return split_budget(memory_budget, min(int(k), effective_n_jobs(n_jobs)))


def fold_parts(
    bound: BoundSVMObjective,
    tr: NDArray[np.intp],
    va: NDArray[np.intp],
    C: float,
    kp: dict[str, float],
    K: NDArray[np.float64] | None,
    rows: KernelRows | None,
    row_solver: SMO,
) -> tuple[Solve, Decide, float]:
    """A fold's ``solve(tol, alpha0)`` (result over all n points), ``decide(result)`` and
    ``max_i K_ii`` over its training points: on the shared rows, on the Gram matrix in
    memory (decisions read off its rows, summed directly so that their round-off is bounded:
    :func:`~svmtune.classifier.decision_tolerance`), or on the fold's own points.
    ``row_solver`` is the solver on shared rows. The fold's solve (its kernel rows) and the
    blocks of kernel values its decisions read at once keep within the fold's share of the
    objective's memory budget (:func:`fold_share`: folds solved at once share it)."""
    y = bound.y
    o = bound.objective
    k = len(getattr(bound, "folds", ())) or 1
    budget = fold_share(o.memory_budget, getattr(o, "n_jobs", 1), k)
    block_budget = max(1, int(BLOCK_SHARE * budget))

    def tuned(t: float, base: SMO) -> SMO:
        solver = copy.copy(base)
        solver.tol = t
        solver.memory_budget = budget
        return solver

    def from_rows(
        res: SMOResult, read: Callable[[NDArray[np.intp]], NDArray[np.float64]], width: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Decisions and their round-off bounds from ``read(s)`` (``K[va, s]`` for support
        vectors ``s``), the support vectors taken in blocks of ``width`` doubles each within
        the block budget."""
        sv = np.flatnonzero(res.alpha)
        dec, tol = decisions_from_columns(
            lambda lo, hi: read(sv[lo:hi]), res.alpha[sv] * y[sv], res.b, size=va.size,
            width=width, memory_budget=block_budget, with_tolerance=True,
        )  # fmt: skip
        assert tol is not None
        return dec, tol

    if rows is not None:
        store = rows

        def solve(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
            return tuned(t, row_solver).solve(y, C=C, gram=store, active=tr, alpha0=a0)

        def decide(res: SMOResult) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
            before = store.kernel_evals
            dec, tol = from_rows(res, lambda s: store.rows_of(s)[:, va].T, store.n + va.size)
            return dec, tol, store.kernel_evals - before

        return solve, decide, float(store.diag[tr].max())
    if K is not None:
        gram = K

        def solve(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
            return tuned(t, bound.solver).solve(y, C=C, gram=gram, active=tr, alpha0=a0)

        def decide(res: SMOResult) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
            dec, tol = from_rows(res, lambda s: gram[np.ix_(va, s)], va.size)
            return dec, tol, 0

        return solve, decide, float(np.diagonal(gram)[tr].max())
    return _own_parts(bound, tr, va, C, kp, tuned, budget)


def _own_parts(
    bound: BoundSVMObjective,
    tr: NDArray[np.intp],
    va: NDArray[np.intp],
    C: float,
    kp: dict[str, float],
    tuned: Callable[[float, SMO], SMO],
    budget: int,
) -> tuple[Solve, Decide, float]:
    """:func:`fold_parts` on the fold's own points (kernel rows computed by the solve,
    validation decisions by a kernel pass over the support vectors)."""
    y, X = bound.y, bound.X

    def solve(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
        sub = tuned(t, bound.solver).solve(
            y[tr], C=C, kernel=bound.kernel, params=kp, X=X[tr],
            alpha0=None if a0 is None else a0[tr],
        )  # fmt: skip
        alpha = np.zeros(bound.n_samples)
        alpha[tr] = sub.alpha
        return dataclasses.replace(sub, alpha=alpha, gradient=np.full(bound.n_samples, np.nan))

    def decide(res: SMOResult) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
        clf = expansion_from_solution(bound.kernel, kp, X, y, res)
        clf.memory_budget = budget  # the solve's rows are gone: its budget is the blocks'
        dec, tol = clf.decision_tolerance(X[va])
        return dec, tol, int(va.size * clf.vectors.shape[0])

    return solve, decide, float(bound.kernel.diag(kp, X[tr]).max())
