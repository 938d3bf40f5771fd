"""The derivative of Platt's empirical error (:class:`~svmtune.objectives.PlattError`).

The formulas (Adankon et al.'s eq. 5-9, Chapelle et al.'s derivative of the KKT system, the
implicit-function theorem on the sigmoid fit) are told in :mod:`svmtune.objectives.platt`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from svmtune.objectives._svm_objective import BoundSVMObjective
from svmtune.solvers import SMOResult
from svmtune.solvers.sigmoid import Sigmoid, sigmoid_targets

__all__ = ["PlattState", "platt_gradient"]


@dataclass
class PlattState:
    """One evaluation: the solves, the pooled validation decision values, the sigmoid."""

    grams: list[tuple[NDArray[np.float64], NDArray[np.intp] | None]]  # per fold: K, row map
    results: list[SMOResult]  # per fold, over the rows of its Gram matrix
    alphas: list[NDArray[np.float64]]  # per fold, over all bound points
    active: list[NDArray[np.intp]]  # per fold, the rows trained on (all bound points' indices)
    f: NDArray[np.float64]  # pooled validation decision values, fold order
    yv: NDArray[np.float64]
    sigmoid: Sigmoid
    p: NDArray[np.float64]
    value: float
    kernel_evals: int
    iterations: int


def _block(
    K: NDArray[np.float64], pos: NDArray[np.intp] | None, r: NDArray[np.intp], c: NDArray[np.intp]
) -> NDArray[np.float64]:
    """``K[r, c]`` for indices of bound points; ``pos`` maps them to ``K``'s rows (None: same)."""
    if pos is None:
        return K[np.ix_(r, c)]
    return K[np.ix_(pos[r], pos[c])]


def _solve_bordered(M: NDArray[np.float64], rhs: NDArray[np.float64]) -> NDArray[np.float64]:
    """Solve the symmetric bordered system by an LDL' (Bunch-Kaufman) factorisation; when the
    Gram block is numerically singular (more free support vectors than the kernel's numerical
    rank), take the least-squares solution from an SVD instead: the system is consistent and
    every solution gives the same decision-value derivatives (a null vector of ``K_FF`` has
    zero norm in feature space, so it changes no decision value)."""
    import scipy.linalg

    with warnings.catch_warnings():
        warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
        try:
            return np.asarray(scipy.linalg.solve(M, rhs, assume_a="sym", check_finite=False))
        except (scipy.linalg.LinAlgWarning, np.linalg.LinAlgError):
            pass
    sol, *_ = scipy.linalg.lstsq(M, rhs, cond=1e-12, check_finite=False)
    return np.asarray(sol)


def platt_gradient(
    bound: BoundSVMObjective,
    params: dict[str, float],
    state: PlattState,
    *,
    folds: Sequence[tuple[NDArray[np.intp], NDArray[np.intp]]],
    full: bool,
) -> tuple[dict[str, float], int]:
    """The derivative of the empirical error at ``params`` (``state`` solved there, on the
    training/validation index pairs ``folds``) in the search space's coordinates, and the kernel
    entries it computed; ``full`` differentiates through the sigmoid's fit too."""
    import scipy.linalg

    names = list(bound.space.names)
    knames = list(bound.kernel.space.names)
    y = bound.y
    N = state.f.size
    A = state.sigmoid.A
    d2 = state.p * (1.0 - state.p)
    dEdz = state.yv * d2 / N
    dEdf = A * dEdz
    C = bound.C(params)
    C_searched = "C" in bound.space
    # columns: parameters in `names` order; rows: pooled validation points
    D = np.zeros((N, len(names)))
    evals = 0
    start = 0
    for (_tr, va), alpha, (Kf, pos) in zip(folds, state.alphas, state.grams, strict=True):
        rows_v = slice(start, start + va.size)
        start += va.size
        S = np.flatnonzero(alpha > 0.0)
        if S.size == 0:
            continue
        beta_S = alpha[S] * y[S]
        if full:
            F = S[alpha[S] < C]
            Bd = S[alpha[S] >= C]
        else:
            F = np.empty(0, dtype=np.intp)
            Bd = S
        R = np.concatenate([va, F])
        prep = bound.kernel.prepare(bound.X[R], bound.X[S])
        dK = prep.gram_gradient(bound.kernel_params(params)) if knames else {}
        evals += prep.n_kernel_evals
        U = np.zeros((R.size, len(names)))  # (dK beta) on rows R, per parameter
        for j, name in enumerate(names):
            if name in dK:
                scale = params[name] if bound.space[name].log else 1.0
                U[:, j] = (dK[name] @ beta_S) * scale
        if not full:
            D[rows_v] = U[: va.size]
            continue
        # d beta_B per parameter: zero for kernel parameters, y_B (x C on a log scale) for C
        dbetaB = np.zeros((Bd.size, len(names)))
        if C_searched:
            j = names.index("C")
            dbetaB[:, j] = y[Bd] * (C if bound.space["C"].log else 1.0)

        dbF = np.zeros((F.size, len(names)))
        db = np.zeros(len(names))
        if F.size:
            M = np.zeros((F.size + 1, F.size + 1))
            M[:-1, :-1] = _block(Kf, pos, F, F)
            M[:-1, -1] = 1.0
            M[-1, :-1] = 1.0
            rhs = np.zeros((F.size + 1, len(names)))
            rhs[:-1] = -U[va.size :] - _block(Kf, pos, F, Bd) @ dbetaB
            rhs[-1] = -dbetaB.sum(axis=0)
            sol = _solve_bordered(M, rhs)
            dbF, db = sol[:-1], sol[-1]
        D[rows_v] = (
            U[: va.size] + _block(Kf, pos, va, F) @ dbF + _block(Kf, pos, va, Bd) @ dbetaB + db
        )
    g = dEdf @ D
    if full:
        # (A, B) minimise the cross-entropy L of f: dAB = -H^{-1} (d grad L / d f) df.
        f = state.f
        t = sigmoid_targets(state.yv)
        H = np.array([[d2 @ (f * f), d2 @ f], [d2 @ f, d2.sum()]])
        G = np.vstack([((t - state.p) + A * d2 * f) @ D, (A * d2) @ D])
        dAB = -scipy.linalg.solve(H, G, assume_a="pos", check_finite=False)
        g = g + np.array([dEdz @ f, dEdz.sum()]) @ dAB
    return {n: float(v) for n, v in zip(names, g, strict=True)}, evals
