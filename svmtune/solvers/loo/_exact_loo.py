"""Exact leave-one-out error of the soft-margin SVM (Franc, Laskov, Muller 2008, Algorithm 1).

:func:`exact_loo` solves once on all points, settles what the sufficiency checks settle, and
retrains without each remaining point from an alpha-seeded start, stopped either by the eps-KKT
gap (``"kkt"``, the paper's baseline) or as soon as the sign of the left-out decision is
certified (``"franc"``, Algorithm 3; the compiled loop is ``_exact_loo_loop.py``).

Every left-out decision is the one of the SVM trained without the point, with LIBSVM's bias
convention at the optimum: the one optimal bias when a support vector is free, else the
midpoint of the interval of optimal biases (:func:`midpoint_biases`). Only shortcuts valid on
every input settle a point without retraining it (the paper's Table 1, checks 1 and 2):

1. ``alpha_r = 0``: the solution on all points stays optimal without ``r``; the left-out
   decision is its decision at ``x_r`` with the bias taken over the other points (without a
   free support vector the bias is an interval, and leaving out a point that ends it moves it);
2. ``alpha_r > 0`` and ``x_r`` misclassified by more than ``tol`` (``y_r f(x_r) < -tol``): for
   any optimal solutions with and without ``r``, ``r``'s hinge loss is at least as large
   without it (add the two optimality inequalities), so it stays misclassified.

Joachims' xi-alpha check (the paper's check 3) is not used: it assumes the bias does not move
when ``r`` leaves, which fails when the solution without ``r`` has no free support vector (every
alpha at a bound, small ``C``): there the bias is an interval whose midpoint moves, and the
check settled points that retraining misclassifies. The points it used to settle are retrained
instead.

Franc's certificate (``"franc"``): besides the SMO on the retrain's dual G, a second vector
``beta`` ascends H, the dual of the SVM forced through ``x_r`` (``f(x_r) = 0``), by its own
greedy coordinate steps (one per SMO step, :data:`svmtune.solvers.loo._retrains.H_STEPS`, plus the
moves on the SMO step's own pair); before every SMO step the primal value ``F`` of the current
iterate is compared with ``H``. ``F < H`` proves that no classifier as good as the iterate changes
sign at ``x_r``, so the sign is the optimum's and the retrain stops there. H starts at the full
solution without ``r``, below ``F``, so the certificate fires after some steps, not at the
seeded start: on linear kernels and large ``C`` long before the eps-KKT stop (the retrain needs
many steps, H few), on easy retrains (a few dozen steps) often not at all. Each greedy step reads
one kernel column (counted). An efficiency test on the first ``M = 10`` retrains decides how
the rest run: by default the way that cost least CPU on them (the eps-KKT stop, Franc's stop
for the first steps only, or Franc's stop to the end of each retrain), what they did not run
measured as far as the choice needs (:mod:`svmtune.solvers.loo._efficiency`; on the shrinking
SMO the bound is checked at intervals where the Gram matrix has a low rank,
:mod:`svmtune.solvers.loo._franc_tail`); or, as the paper,
Franc's stop kept when half of them were certified (:data:`EFFICIENCY_POINTS`).

A decision the eps-KKT stop leaves within ``tol`` of zero (check 1 or a retrain) is not trusted:
that retrain goes on at tolerances 1000 times tighter (Franc's bound on under ``"franc"``) until
its sign is certified or clear of the tolerance (``counts["refined"]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._lazy import lazy_module
from svmtune._validation import check_labels, check_n_jobs, check_positive, check_positive_int
from svmtune._warnings import warn_not_converged
from svmtune.solvers.loo._bias import decision_scale, midpoint_biases
from svmtune.solvers.loo._passes import Retrains
from svmtune.solvers.loo._retrains import (
    RetrainSetup,
)
from svmtune.solvers.smo import SMO, FullGram, KernelRows, SMOResult, decision_from_gradient

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")


__all__ = [
    "EFFICIENCY_POINTS",
    "Efficiency",
    "ExactLOOResult",
    "Stopping",
    "exact_loo",
    "midpoint_biases",
]

Stopping = Literal["franc", "kkt"]
_STOPPINGS = ("franc", "kkt")
Efficiency = Literal["cpu", "certified"]
_EFFICIENCIES = get_args(Efficiency)

EFFICIENCY_POINTS = 10
"""The efficiency test: Franc's stop runs on the first ``M = 10`` retrained points (the paper's
``M``) and is kept for the rest only when it cost less than the eps-KKT stop on them
(:class:`svmtune.solvers.loo._efficiency.Measure`). The paper keeps it when at least half of them
were certified; with the Gram matrix in memory a kernel column costs nothing to read, a step
under Franc's stop costs about twice an eps-KKT step, and a certificate that saves fewer steps
than that costs CPU (RBF kernel, large C: retrains certified late)."""

#: ``settled_by`` codes of :class:`ExactLOOResult`.
ALPHA_ZERO, MISCLASSIFIED, RETRAINED = 0, 1, 2


@dataclass(frozen=True)
class ExactLOOResult:
    """What :func:`exact_loo` found.

    Attributes
    ----------
    error : float
        The leave-one-out error: the fraction of points misclassified by the SVM trained
        without them (decision ``>= 0`` means ``+1``).
    wrong : ndarray of bool, shape (n,)
        Which points are leave-one-out errors.
    decision : ndarray of shape (n,)
        The left-out decision value at each point (check 1 and every retrain); for check 2, the
        decision at ``x_r`` of the solution on all points (the left-out one is farther below).
    settled_by : ndarray of int, shape (n,)
        0 ``alpha_r = 0``, 1 misclassified at the full solution, 2 retrained.
    status : ndarray of int, shape (n,)
        For retrained points: 0 eps-KKT stop, 1 certified by Franc's bound, 2 ``max_iter``;
        -1 for settled points.
    stopping : str
        The stopping rule asked for.
    stopping_used : str
        ``"kkt"`` when the efficiency test switched Franc's stop off (or nothing was retrained
        under it), else ``stopping``.
    counts : dict
        ``settled_alpha_zero``, ``settled_misclassified``, ``retrained``, ``refined``
        (retrains whose decision came within ``tol`` of zero and went on at tighter tolerances;
        under ``"franc"`` Franc's bound gets windows once one has cost
        :data:`svmtune.solvers.loo.refinement.REFINE_FRANC_AFTER`),
        ``refined_certified`` (of them, stopped by the bound), ``refine_windows`` (of them, those
        that opened a window of the bound), ``certified`` (retrains stopped
        by Franc's bound before any refinement), ``under_franc`` (retrains run under
        Franc's stop: all, or those of the efficiency test when it switched it off),
        ``prec_percent`` (certified / under_franc, the paper's "Prec %"),
        ``efficiency_certified`` (of the first ``M`` points), ``max_iter_reached``,
        ``iterations`` (full solve + retrains + the efficiency test's eps-KKT continuations,
        ``efficiency_iterations``),
        ``kernel_rows`` (kernel columns read, the paper's KerEval: two per SMO step of the
        retrains and of the efficiency test's continuations, one per seeded variable and one
        per greedy step on Franc's H, plus two per step of the full solve; rows
        computed by the cache when ``gram`` is a KernelRows), ``kernel_evals`` (entries the row
        cache computed during the call; 0 for a full matrix, whose cost is its maker's).
    full : SMOResult
        The solution on all points.
    """

    error: float
    wrong: NDArray[np.bool_]
    decision: NDArray[np.float64]
    settled_by: NDArray[np.int64]
    status: NDArray[np.int64]
    stopping: str
    stopping_used: str
    counts: dict[str, float] = field(default_factory=dict)
    full: SMOResult | None = None


def _check_stopping(stopping: object) -> None:
    if stopping not in _STOPPINGS:
        raise ValueError(f"stopping must be one of {_STOPPINGS}; got {stopping!r}")


def exact_loo(
    y: ArrayLike,
    *,
    C: float,
    gram: ArrayLike | FullGram | KernelRows,
    stopping: Stopping = "franc",
    tol: float = 1e-3,
    max_iter: int | None = None,
    n_jobs: int | None = 1,
    efficiency_points: int = EFFICIENCY_POINTS,
    efficiency: Efficiency = "cpu",
    full: SMOResult | None = None,
) -> ExactLOOResult:
    """The exact leave-one-out error of the soft-margin SVM on a Gram matrix.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}; each class needs at least 3 points (leaving one out must leave two).
    C : float
        Regularization constant (> 0).
    gram : array of shape (n, n), FullGram or KernelRows
        The kernel matrix (checked: finite, symmetric, 2x2 minors of a PSD matrix), or a cache of
        kernel rows computed on demand when the matrix does not fit in memory; then the retrains
        run one after the other with the eps-KKT stop (Franc's stop needs the full matrix, and
        ``stopping_used`` says ``"kkt"``).
    stopping : {"franc", "kkt"}, default "franc"
        How a retrain stops: Franc et al.'s certificate or the eps-KKT gap, else the eps-KKT gap
        (``"franc"``), or the eps-KKT gap only (``"kkt"``).
    tol : float, default 1e-3
        The eps of the KKT stop (of the full solve and of the retrains).
    max_iter : int, optional
        SMO iterations per solve; default ``max(10_000_000, 100 n)``. A retrain that reaches it
        keeps its last decision, is counted (``max_iter_reached``) and warns.
    n_jobs : int, default 1
        Threads over the retrained points (joblib; -1: all cores).
    efficiency_points : int, default 10
        ``M`` of the efficiency test (see :data:`EFFICIENCY_POINTS`).
    efficiency : {"cpu", "certified"}, default "cpu"
        The efficiency test (:data:`EFFICIENCY_POINTS`): run the rest the way that cost least
        CPU on the first ``M`` retrains: the eps-KKT stop, Franc's stop for the first
        :data:`svmtune.solvers.loo._retrains.SHRINK_AFTER` steps then the shrinking SMO, or
        Franc's stop to the end of each retrain (``"cpu"``,
        :mod:`svmtune.solvers.loo._efficiency`; first up to ten retrains spread over the later
        ones run under the eps-KKT stop and project the call's CPU: where one part of the test
        would cost more than 3 % of it, the test is not run and the rest stop on the eps-KKT
        gap, with ``counts["efficiency_certified"] == -1``); or, as the paper, keep Franc's
        stop when at least half of them were certified, its bound then tested to the end of
        every retrain (``"certified"``: fewer kernel columns read, the paper's KerEval, at more
        CPU where retrains are long).
    full : SMOResult, optional
        The solution on all points at this ``C`` and Gram matrix, if already at hand.

    Returns
    -------
    ExactLOOResult

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> K = RBF().prepare(X).gram({"gamma": 0.5})
    >>> res = exact_loo(y, C=1.0, gram=K)
    >>> res.error == exact_loo(y, C=1.0, gram=K, stopping="kkt").error
    True
    >>> res.counts["retrained"] + res.counts["settled_alpha_zero"] <= 60
    True
    """
    Cf, yy, store = _checked(y, C, gram, stopping, tol, max_iter, n_jobs, efficiency_points)
    if efficiency not in _EFFICIENCIES:
        raise ValueError(f"efficiency must be one of {_EFFICIENCIES}; got {efficiency!r}")
    n = yy.shape[0]
    by_rows = isinstance(store, KernelRows)
    evals0 = store.kernel_evals
    cap = int(max_iter) if max_iter is not None else max(10_000_000, 100 * n)
    solver = SMO(tol=tol, max_iter=cap, check_kernel=False)
    if full is None:
        full = solver.solve(yy, C=Cf, gram=store)
    settled, wrong, decision = _settle(yy, full, tol)
    todo = np.flatnonzero(settled == RETRAINED).astype(np.int64)
    setup = RetrainSetup(
        store=store,
        K=np.empty((0, 0)) if by_rows else store.rows,
        diag=store.diag,
        y=yy,
        C=Cf,
        full=full,
        solver=solver,
        cap=cap,
    )
    franc = stopping == "franc" and not by_rows
    run = Retrains(setup, todo, n)
    if todo.size:
        run.retrain(franc=franc, M=int(efficiency_points), n_jobs=n_jobs, efficiency=efficiency)
        run.refine_unsure(decision_scale(Cf, setup.diag) * tol)
        decision[todo] = run.decision[todo]
        wrong[todo] = np.where(decision[todo] >= 0.0, 1.0, -1.0) != yy[todo]
    hit = int(np.sum(run.status == _exact_loo_loop.MAX_ITER))
    if hit:
        warn_not_converged(
            f"{hit} leave-one-out retrain(s) stopped at max_iter={cap} iterations before "
            f"the KKT gap fell below tol={tol:g}; their decisions are the last iterate's",
            stacklevel=2,
        )
    certified = int(np.sum(run.status == _exact_loo_loop.CERTIFIED)) - run.n_refined_certified
    used = "franc" if franc and run.keep else "kkt"
    under_franc = int(todo.size - run.probed if used == "franc" else run.tested)
    out_counts: dict[str, float] = {
        "settled_alpha_zero": int(np.sum(settled == ALPHA_ZERO)),
        "settled_misclassified": int(np.sum(settled == MISCLASSIFIED)),
        "retrained": int(todo.size),
        "refined": run.n_refined,
        "refined_certified": run.n_refined_certified,
        "refine_windows": run.n_refine_windows,
        "certified": certified,
        "under_franc": under_franc,
        "prec_percent": 100.0 * certified / under_franc if under_franc else math.nan,
        "efficiency_certified": run.eff_certified,
        "max_iter_reached": hit,
        "iterations": int(full.iterations + run.iters.sum() + run.measured_steps),
        "retrain_iterations": int(run.iters.sum()),
        "efficiency_iterations": run.measured_steps,
        "kernel_rows": int(
            2 * full.iterations + run.rows.sum() + run.gbar_full.rows + run.measured_rows
        ),
        "kernel_evals": int(store.kernel_evals - evals0) if by_rows else 0,
    }
    return ExactLOOResult(
        error=float(np.mean(wrong)),
        wrong=wrong,
        decision=decision,
        settled_by=settled,
        status=run.status,
        stopping=stopping,
        stopping_used=used if todo.size or not franc else "franc",
        counts=out_counts,
        full=full,
    )


def _checked(
    y: ArrayLike,
    C: float,
    gram: ArrayLike | FullGram | KernelRows,
    stopping: object,
    tol: float,
    max_iter: int | None,
    n_jobs: int | None,
    efficiency_points: int,
) -> tuple[float, NDArray[np.float64], FullGram | KernelRows]:
    """The options checked: ``(C, labels, kernel store)``; ValueError naming a bad value."""
    _check_stopping(stopping)
    Cf = check_positive(C, name="C")
    check_positive(tol, name="tol")
    if max_iter is not None and (
        isinstance(max_iter, bool) or not isinstance(max_iter, int | np.integer) or max_iter < 1
    ):
        raise ValueError(f"max_iter must be a positive integer or None; got {max_iter!r}")
    check_n_jobs(n_jobs)
    check_positive_int(efficiency_points, "efficiency_points")
    yy = np.ascontiguousarray(check_labels(y))
    n = yy.shape[0]
    for label in (-1, 1):
        cnt = int(np.sum(yy == label))
        if cnt < 3:
            raise ValueError(
                f"exact leave-one-out needs at least 3 points of each class (leaving one out "
                f"must leave two); class {label:+d} has {cnt}"
            )
    store = gram if isinstance(gram, FullGram | KernelRows) else FullGram(gram, check=True)
    if store.n != n:
        raise ValueError(f"the Gram matrix is for {store.n} points but y has {n} labels")
    return Cf, yy, store


def _settle(
    y: NDArray[np.float64], full: SMOResult, tol: float
) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.float64]]:
    """The sufficiency checks: ``(settled_by, wrong, decision)`` of the points they settle
    (``RETRAINED`` and NaN for the others)."""
    n = y.shape[0]
    a = full.alpha
    G_full = np.ascontiguousarray(full.gradient)
    f = decision_from_gradient(G_full, y, float(midpoint_biases(y, G_full)[0]))
    settled = np.full(n, RETRAINED, dtype=np.int64)
    wrong = np.zeros(n, dtype=bool)
    decision = np.full(n, np.nan)
    # 1. alpha_r = 0: the full solution stays optimal without r; its decision at x_r is the
    # left-out one with the bias taken over the other points (it moves when no support vector
    # is free and x_r ends the interval of optimal biases)
    zero = a <= 0.0
    f0 = y * (G_full + 1.0) + midpoint_biases(y, G_full, np.arange(n))
    # 2. alpha_r > 0 and misclassified: its hinge loss only grows when it leaves
    mis = ~zero & (y * f < -tol)
    # a decision within the solver's tolerance of zero is not trusted: retrained and refined
    settled[zero & (np.abs(f0) >= tol)] = ALPHA_ZERO
    settled[mis] = MISCLASSIFIED
    z0 = settled == ALPHA_ZERO
    decision[z0] = f0[z0]
    decision[mis] = f[mis]
    wrong[mis] = True
    wrong[z0] = np.where(f0[z0] >= 0.0, 1.0, -1.0) != y[z0]
    return settled, wrong, decision
