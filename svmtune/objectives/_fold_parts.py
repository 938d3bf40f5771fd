"""A KFoldCV fold's solve and validation decisions, on whichever kernel values it has."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from svmtune.classifier import decision_tolerance, expansion_from_solution
from svmtune.objectives._settle import Decide, Solve
from svmtune.objectives._svm_objective import BoundSVMObjective
from svmtune.solvers import SMO, KernelRows, SMOResult

__all__ = ["fold_parts"]


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
    ``row_solver`` is the solver on shared rows."""
    y = bound.y

    def tuned(t: float, base: SMO) -> SMO:
        solver = copy.copy(base)
        solver.tol = t
        return solver

    def from_rows(
        res: SMOResult, read: Callable[[NDArray[np.intp]], NDArray[np.float64]]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        sv = np.flatnonzero(res.alpha)
        Kv = read(sv)
        dec = Kv @ (res.alpha[sv] * y[sv]) + res.b
        return dec, decision_tolerance(np.abs(Kv) @ res.alpha[sv] + abs(res.b), sv.size + 1)

    if rows is not None:
        store = rows

        def solve(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
            return tuned(t, row_solver).solve(y, C=C, gram=store, active=tr, alpha0=a0)

        def decide(res: SMOResult) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
            before = store.kernel_evals
            dec, tol = from_rows(res, lambda sv: np.ascontiguousarray(store.rows_of(sv)[:, va].T))
            return dec, tol, store.kernel_evals - before

        return solve, decide, float(store.diag[tr].max())
    if K is not None:
        gram = K

        def solve(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
            return tuned(t, bound.solver).solve(y, C=C, gram=gram, active=tr, alpha0=a0)

        def decide(res: SMOResult) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
            dec, tol = from_rows(res, lambda sv: gram[np.ix_(va, sv)])
            return dec, tol, 0

        return solve, decide, float(np.diagonal(gram)[tr].max())
    return _own_parts(bound, tr, va, C, kp, tuned)


def _own_parts(
    bound: BoundSVMObjective,
    tr: NDArray[np.intp],
    va: NDArray[np.intp],
    C: float,
    kp: dict[str, float],
    tuned: Callable[[float, SMO], SMO],
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
        dec, tol = clf.decision_tolerance(X[va])
        return dec, tol, int(va.size * clf.vectors.shape[0])

    return solve, decide, float(bound.kernel.diag(kp, X[tr]).max())
