"""Exact leave-one-out error of the soft-margin SVM (Franc, Laskov, Muller 2008, Algorithm 1).

:func:`exact_loo` solves once on all points, settles what the sufficiency checks settle, and
retrains without each remaining point from an alpha-seeded start, stopped either by the eps-KKT
gap (``"kkt"``, the paper's baseline) or as soon as the sign of the left-out decision is
certified (``"franc"``, Algorithm 3; the compiled loop is :mod:`svmtune.solvers._exact_loo_loop`).

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
instead; Franc's bound certifies most of them at the seeded start, before any SMO step.

A decision the eps-KKT stop leaves within ``tol`` of zero (check 1 or a retrain) is not trusted:
that retrain goes on at tolerances 1000 times tighter (Franc's bound on under ``"franc"``) until
its sign is certified or clear of the tolerance (``counts["refined"]``).
"""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from svmtune._validation import check_labels, check_n_jobs, check_positive, check_positive_int
from svmtune.solvers import _exact_loo_loop, _shrinking
from svmtune.solvers.kernel_rows import FullGram, KernelRows
from svmtune.solvers.smo import SMO, SMOResult, SMORun, decision_from_gradient

__all__ = ["EFFICIENCY_POINTS", "ExactLOOResult", "Stopping", "exact_loo", "midpoint_biases"]

Stopping = Literal["franc", "kkt"]
_STOPPINGS = ("franc", "kkt")

EFFICIENCY_POINTS = 10
"""The paper's efficiency test: Franc's stop runs on the first ``M = 10`` retrained points and
is kept for the rest only when at least half of them were certified early."""

SHRINK_AFTER = 200
"""SMO steps a retrain makes in the compiled loop (over all variables, with Franc's stop if asked)
before it goes on, if not done, on the shrinking SMO, which shrinks at once: an SMO from scratch
waits ``min(n, 1000)`` steps, but a retrain starts next to its optimum, where most variables at
a bound stay there."""

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
        (retrains whose decision came within ``tol`` of zero and went on at tighter tolerances),
        ``certified`` (retrains stopped by Franc's bound), ``prec_percent`` (certified / retrained
        under Franc's stop, the paper's "Prec %"), ``efficiency_certified`` (of the first
        ``M`` points), ``max_iter_reached``, ``iterations`` (full solve + retrains),
        ``kernel_rows`` (kernel columns read, the paper's KerEval: two per SMO step of the
        retrains and one per seeded variable, plus two per step of the full solve; rows
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


def _seed_without(
    alpha: NDArray[np.float64], y: NDArray[np.float64], C: float, r: int
) -> NDArray[np.float64]:
    """``alpha`` with ``alpha_r = 0`` and its mass on the same class (as the compiled loop)."""
    a = alpha.copy()
    need = float(a[r])
    a[r] = 0.0
    same = (y == y[r]) & (np.arange(y.size) != r)
    for cand in (same & (a > 0.0) & (a < C), same & (a == 0.0)):
        for t in np.flatnonzero(cand):
            if need <= 0.0:
                break
            add = min(C - a[t], need)
            a[t] = C if add == C - a[t] else a[t] + add
            need -= add
    for t in np.flatnonzero((y != y[r]) & (a > 0.0)):
        if need <= 0.0:
            break
        sub = min(a[t], need)
        a[t] = 0.0 if sub == a[t] else a[t] - sub
        need -= sub
    return a


class _CountedGram(FullGram):
    """A view of one shared Gram matrix that counts the entries its gradient refreshes read.

    The shrinking SMO recomputes the gradient of shrunk (and left-out) variables from the free
    support vectors; on a full matrix those entries cost no kernel evaluation but are kernel
    columns read, which the retrains count. One per thread: the loop writes its bookkeeping."""

    def __init__(self, K: NDArray[np.float64], diag: NDArray[np.float64]) -> None:
        n = K.shape[0]
        self.n = n
        self.rows = K
        self.slot = np.arange(n, dtype=np.int64)
        self.stamp = np.zeros(n, dtype=np.int64)
        self.clock = np.zeros(1, dtype=np.int64)
        self.row_epoch = np.full(n, -1, dtype=np.int64)
        self.epoch = np.zeros(1, dtype=np.int64)
        self.diag = diag
        self.kernel_evals = 0
        self.kind = 0
        self.points = np.empty((0, 0))
        self.sq = np.empty(0)
        self.gamma = 0.0
        self.owner = np.empty(0, dtype=np.int64)
        self.loop_evals = np.zeros(1, dtype=np.int64)
        self.read = 0

    def refresh_gradient(
        self,
        G: NDArray[np.float64],
        Gbar: NDArray[np.float64],
        alpha: NDArray[np.float64],
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        targets: NDArray[np.int64],
    ) -> None:
        if targets.size:
            free = int(np.count_nonzero((alpha > 0.0) & (alpha < C)))
            self.read += free * int(targets.size)
        super().refresh_gradient(G, Gbar, alpha, y, C, targets)


class _FullGbar:
    """``Gbar`` of the full solution (``y_t sum_{alpha_s = C} C y_s K_st``), computed the first
    time a retrain needs it (once for all threads) and counted: ``rows`` kernel rows read."""

    def __init__(
        self, K: NDArray[np.float64], y: NDArray[np.float64], C: float, alpha: NDArray[np.float64]
    ) -> None:
        self._args = (K, y, C, alpha)
        self._value: NDArray[np.float64] | None = None
        self._lock = threading.Lock()
        self.rows = 0

    def get(self) -> NDArray[np.float64]:
        """A copy of ``Gbar``."""
        with self._lock:
            if self._value is None:
                K, y, C, alpha = self._args
                at_c = np.flatnonzero(alpha >= C)
                self._value = y * ((C * y[at_c]) @ K[at_c])
                self.rows = int(at_c.size)
            return self._value.copy()


def _retrain_shrinking(
    K: NDArray[np.float64],
    diag: NDArray[np.float64],
    solver: SMO,
    y: NDArray[np.float64],
    C: float,
    full: SMOResult,
    points: NDArray[np.int64],
    franc: bool,
    gbar_full: _FullGbar,
    n_jobs: int | None,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The retrains over one full Gram matrix: compiled, then on the shrinking SMO.

    Each retrain starts at the alpha-seeded point (:mod:`svmtune.solvers._exact_loo_loop`) and
    makes at most ``SHRINK_AFTER`` SMO steps in the compiled loop, with Franc's stop when
    ``franc`` and the eps-KKT stop; a retrain not done by then goes on from where it is on the
    shrinking SMO (:class:`SMORun`, which shrinks at once) to the eps-KKT stop.

    Returns the decisions at the left-out points, their statuses, iterations and kernel rows
    read (``gbar_full`` counts the rows it reads, once for all retrains).
    """
    m = points.shape[0]
    n = y.shape[0]
    dec = np.empty(m)
    status = np.empty(m, dtype=np.int64)
    iters = np.empty(m, dtype=np.int64)
    rows = np.empty(m, dtype=np.int64)
    Cv = np.full(n, C)
    a_full = np.ascontiguousarray(full.alpha)
    G_full = np.ascontiguousarray(full.gradient)
    at_c = a_full >= Cv
    everyone = np.arange(n, dtype=np.int64)
    second_order = solver.selection == "second_order"
    cap = int(solver.max_iter) if solver.max_iter is not None else max(10_000_000, 100 * n)

    def run(lo: int, hi: int) -> None:
        store = _CountedGram(K, diag)
        alpha = np.empty(n)
        G = np.empty(n)
        beta = np.empty(n)
        u = np.empty(n)
        z = np.empty(n)
        for k in range(lo, hi):
            r = int(points[k])
            d, st, it, rw = _exact_loo_loop.retrain_one(
                K, diag, y, float(C), a_full, G_full, r, float(solver.tol), franc,
                min(SHRINK_AFTER, cap), alpha, G, beta, u, z,
            )  # fmt: skip
            if st != _exact_loo_loop.MAX_ITER or it >= cap:
                dec[k], status[k], iters[k], rows[k] = d, st, it, rw
                continue
            # not done in SHRINK_AFTER steps: go on from here on the shrinking SMO, whose Gbar
            # (the gradient part from variables at C) needs the rows of the ones that moved
            # onto or off C since the full solution
            moved = np.flatnonzero((alpha >= Cv) != at_c)
            Gbar = gbar_full.get()
            if moved.size:
                w = np.where(alpha[moved] >= C, C, -C) * y[moved]
                Gbar += y * (w @ K[moved])
            read0 = store.read
            sr = SMORun(
                store,
                y,
                Cv,
                alpha,
                G,
                everyone[everyone != r],
                tol=float(solver.tol),
                second_order=second_order,
                max_iter=cap - it,
                kernel_evals=0,
                shrinking=bool(solver.shrinking),
                gbar=Gbar,
            )
            # a retrain starts next to its optimum: it shrinks after its first SHRINK_AFTER steps
            # (made above), not after min(n, 1000) as an SMO from scratch
            sr._state[_shrinking.COUNTER] = 1
            sr.run()
            dec[k] = _left_out_decision(y, sr.gradient, r)
            status[k] = _exact_loo_loop.KKT if sr.converged else _exact_loo_loop.MAX_ITER
            iters[k] = it + sr.iterations
            reads = -(-(store.read - read0) // n)
            rows[k] = int(rw + moved.size + 2 * sr.iterations + reads)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted and reported once
        if n_jobs == 1 or m < 2:
            run(0, m)
        else:
            n_chunks = min(m, 4 * (n_jobs if n_jobs and n_jobs > 0 else 8))
            bounds = np.linspace(0, m, n_chunks + 1).astype(int)
            Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(run)(int(lo), int(hi))
                for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
            )
    return dec, status, iters, rows


def midpoint_biases(
    y: NDArray[np.float64], G: NDArray[np.float64], without: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """The bias of a dual solution, over all points or over all points but one.

    For a fixed ``alpha`` (gradient ``G = Q alpha - e``) the primal value's hinge sum has slope
    ``#{v_t < b} - P`` in ``b``, with ``v_t = -y_t G_t`` and ``P`` the positives; its minimisers
    are ``[v_(P), v_(P+1)]`` (order statistics), and the bias is their midpoint. At the optimum
    this is LIBSVM's convention: the one optimal bias when a support vector is free, else the
    midpoint of the interval of optimal biases. Near the optimum it moves with ``G`` only,
    whereas LIBSVM's mean over the free variables jumps when an eps-optimal ``alpha`` leaves a
    variable a hair away from a bound that the optimum has it on.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}.
    G : array of shape (n,)
        The gradient of the dual at the solution.
    without : array of int, optional
        Points ``r``: entry ``k`` of the result is the bias over all points but ``without[k]``.

    Returns
    -------
    ndarray
        One bias (shape ``(1,)``) when ``without`` is None, else one per point of ``without``.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> G = np.array([-0.5, -0.2, -0.1, 0.4])    # v = -y G = [0.5, 0.2, -0.1, 0.4]
    >>> midpoint_biases(y, G).round(12).tolist()    # between the 2nd and 3rd smallest v
    [0.3]
    >>> midpoint_biases(y, G, np.array([1])).round(12).tolist()   # P = 1 without point 1
    [0.15]
    """
    v = -y * G
    order = np.argsort(v, kind="stable")
    s = v[order]
    P = int(np.sum(y > 0.0))
    if without is None:
        return np.array([0.5 * (s[P - 1] + s[P])])
    rank = np.empty(v.size, dtype=np.int64)
    rank[order] = np.arange(v.size)
    r = np.asarray(without, dtype=np.int64)
    Pr = P - (y[r] > 0.0).astype(np.int64)
    rr = rank[r]
    lo = s[Pr - 1 + (rr <= Pr - 1)]
    hi = s[Pr + (rr <= Pr)]
    return 0.5 * (lo + hi)


def _left_out_decision(y: NDArray[np.float64], G: NDArray[np.float64], r: int) -> float:
    """The decision at ``x_r`` of a solution without ``r`` (its gradient covers ``r`` too)."""
    b = midpoint_biases(y, G, np.array([r]))[0]
    return float(y[r] * (G[r] + 1.0) + b)


REFINE_FACTOR = 1e-3
"""Each refinement of an unsure left-out decision divides the KKT tolerance by 1000."""

REFINE_FLOOR = 1e-12
"""The tightest KKT tolerance a refinement asks for, relative to ``max(1, C max_i K_ii)`` (the
size of the gradient's terms, whose round-off is about ``1e-16 n`` times it)."""

TIE = 1e-8
"""A left-out decision within ``TIE max(1, C max_i K_ii)`` of zero, not certified by Franc's
bound, is a tie: its sign is round-off (an SVM through ``x_r`` is optimal, as when leaving one
point out makes the problem symmetric), and it counts as ``+1`` (decision ``0``)."""


def _decision_scale(C: float, diag: NDArray[np.float64]) -> float:
    return max(1.0, C * float(diag.max()))


def _refine(
    store: FullGram | KernelRows,
    K: NDArray[np.float64],
    diag: NDArray[np.float64],
    y: NDArray[np.float64],
    C: float,
    full: SMOResult,
    points: NDArray[np.int64],
    tol: float,
    cap: int,
    franc: bool,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Left-out decisions that the eps-KKT stop left within ``tol`` of zero, made certain.

    Each point is retrained without it at tolerances ``tol * REFINE_FACTOR^k`` until Franc's
    bound (when ``franc``) certifies its sign, or its decision lies farther from zero than the
    tolerance, or the tolerance reaches the floor (:data:`REFINE_FLOOR`)."""
    n = y.shape[0]
    floor = REFINE_FLOOR * _decision_scale(C, diag)
    m = points.shape[0]
    dec = np.empty(m)
    status = np.empty(m, dtype=np.int64)
    iters = np.zeros(m, dtype=np.int64)
    rows = np.zeros(m, dtype=np.int64)
    by_rows = isinstance(store, KernelRows)
    a_full = np.ascontiguousarray(full.alpha)
    G_full = np.ascontiguousarray(full.gradient)
    alpha, G, beta, u, z = (np.empty(n) for _ in range(5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted and reported once
        for k, r in enumerate(points):
            r = int(r)
            t = tol
            start_a, start_G = a_full, G_full
            while True:
                t = max(t * REFINE_FACTOR, floor)
                if by_rows:
                    assert isinstance(store, KernelRows)
                    evals0 = store.kernel_evals
                    tight = SMO(tol=t, max_iter=cap, check_kernel=False)
                    d, st, run = _retrain_on_rows(tight, store, y, C, start_a, r)
                    it, rw = run.iterations, -(-(store.kernel_evals - evals0) // n)
                    start_a = run.alpha.copy()
                else:
                    d, st, it, rw = _exact_loo_loop.retrain_one(
                        K, diag, y, C, start_a, start_G, r, t, franc, cap, alpha, G, beta, u, z
                    )
                    start_a, start_G = alpha.copy(), G.copy()
                iters[k] += it
                rows[k] += rw
                if st != _exact_loo_loop.KKT or abs(d) >= t or t <= floor:
                    break
            dec[k], status[k] = d, st
    return dec, status, iters, rows


def _retrain_on_rows(
    solver: SMO,
    store: KernelRows,
    y: NDArray[np.float64],
    C: float,
    start: NDArray[np.float64],
    r: int,
) -> tuple[float, int, SMORun]:
    """Retrain without ``r`` on a kernel-row cache, from ``start`` with ``alpha_r`` moved onto
    its class, to ``solver``'s eps-KKT stop: the left-out decision, its status, the run."""
    everyone = np.arange(y.shape[0])
    run = solver.start(
        y, C=C, gram=store, alpha0=_seed_without(start, y, C, r), active=everyone[everyone != r]
    )
    run.run()
    status = _exact_loo_loop.KKT if run.converged else _exact_loo_loop.MAX_ITER
    return _left_out_decision(y, run.gradient, r), status, run


def _retrain_rows(
    store: KernelRows,
    solver: SMO,
    y: NDArray[np.float64],
    C: float,
    full: SMOResult,
    points: NDArray[np.int64],
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The eps-KKT retrains on a kernel-row cache (sequential; the cache is shared)."""
    m = points.shape[0]
    n = y.shape[0]
    dec = np.empty(m)
    status = np.empty(m, dtype=np.int64)
    iters = np.empty(m, dtype=np.int64)
    rows = np.empty(m, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted and reported once
        for k, r in enumerate(points):
            dec[k], status[k], run = _retrain_on_rows(solver, store, y, C, full.alpha, int(r))
            iters[k] = run.iterations
            rows[k] = -(-run.kernel_evals // n)
    return dec, status, iters, rows


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
    counts = {int(v): int(np.sum(yy == v)) for v in (-1, 1)}
    for label, cnt in counts.items():
        if cnt < 3:
            raise ValueError(
                f"exact leave-one-out needs at least 3 points of each class (leaving one out "
                f"must leave two); class {label:+d} has {cnt}"
            )
    store = gram if isinstance(gram, FullGram | KernelRows) else FullGram(gram, check=True)
    if store.n != n:
        raise ValueError(f"the Gram matrix is for {store.n} points but y has {n} labels")
    diag = store.diag
    by_rows = isinstance(store, KernelRows)
    K = np.empty((0, 0)) if by_rows else store.rows
    evals0 = store.kernel_evals
    iters_cap = int(max_iter) if max_iter is not None else max(10_000_000, 100 * n)
    solver = SMO(tol=tol, max_iter=iters_cap, check_kernel=False)
    if full is None:
        full = solver.solve(yy, C=Cf, gram=store)
    a = full.alpha
    G_full = np.ascontiguousarray(full.gradient)
    f = decision_from_gradient(G_full, yy, float(midpoint_biases(yy, G_full)[0]))

    settled = np.full(n, RETRAINED, dtype=np.int64)
    wrong = np.zeros(n, dtype=bool)
    decision = np.full(n, np.nan)
    # 1. alpha_r = 0: the full solution stays optimal without r; its decision at x_r is the
    # left-out one with the bias taken over the other points (it moves when no support vector
    # is free and x_r ends the interval of optimal biases)
    zero = a <= 0.0
    f0 = yy * (G_full + 1.0) + midpoint_biases(yy, G_full, np.arange(n))
    # 2. alpha_r > 0 and misclassified: its hinge loss only grows when it leaves
    mis = ~zero & (yy * f < -tol)
    # a decision within the solver's tolerance of zero is not trusted: retrained and refined
    settled[zero & (np.abs(f0) >= tol)] = ALPHA_ZERO
    settled[mis] = MISCLASSIFIED
    decision[settled == ALPHA_ZERO] = f0[settled == ALPHA_ZERO]
    decision[mis] = f[mis]
    wrong[mis] = True
    z0 = settled == ALPHA_ZERO
    wrong[z0] = np.where(f0[z0] >= 0.0, 1.0, -1.0) != yy[z0]

    todo = np.flatnonzero(settled == RETRAINED).astype(np.int64)
    status = np.full(n, -1, dtype=np.int64)
    iters = np.zeros(n, dtype=np.int64)
    rows = np.zeros(n, dtype=np.int64)
    franc = stopping == "franc" and not by_rows
    used = stopping if not by_rows else "kkt"
    eff_certified = -1
    gbar_full = _FullGbar(K, yy, Cf, full.alpha)
    M = int(efficiency_points)
    n_refined = 0
    if todo.size:
        if franc:
            head = todo[:M]
            d, st, it, rw = _retrain_shrinking(
                K, diag, solver, yy, Cf, full, head, True, gbar_full, n_jobs
            )
            decision[head], status[head], iters[head], rows[head] = d, st, it, rw
            eff_certified = int(np.sum(st == _exact_loo_loop.CERTIFIED))
            rest = todo[M:]
            keep = 2 * eff_certified >= head.size
            if not keep:
                used = "kkt"
        else:
            rest, keep = todo, False
        if rest.size and by_rows:
            assert isinstance(store, KernelRows)
            d, st, it, rw = _retrain_rows(store, solver, yy, Cf, full, rest)
            decision[rest], status[rest], iters[rest], rows[rest] = d, st, it, rw
        elif rest.size:
            d, st, it, rw = _retrain_shrinking(
                K, diag, solver, yy, Cf, full, rest, franc and keep, gbar_full, n_jobs
            )
            decision[rest], status[rest], iters[rest], rows[rest] = d, st, it, rw
        # a decision the eps-KKT stop left within tol of zero may lie on either side of it at
        # the optimum: the retrain goes on at tighter tolerances until its sign is certain
        unsure = todo[(status[todo] == _exact_loo_loop.KKT) & (np.abs(decision[todo]) < tol)]
        n_refined = int(unsure.size)
        if unsure.size:
            refined = _refine(store, K, diag, yy, Cf, full, unsure, tol, iters_cap, used == "franc")
            decision[unsure], status[unsure], it, rw = refined
            iters[unsure] += it
            rows[unsure] += rw
        tie = todo[(status[todo] != _exact_loo_loop.CERTIFIED)]
        tie = tie[np.abs(decision[tie]) <= TIE * _decision_scale(Cf, diag)]
        decision[tie] = 0.0
        dt = decision[todo]
        wrong[todo] = np.where(dt >= 0.0, 1.0, -1.0) != yy[todo]
    hit = int(np.sum(status == _exact_loo_loop.MAX_ITER))
    if hit:
        warnings.warn(
            f"{hit} leave-one-out retrain(s) stopped at max_iter={iters_cap} iterations before "
            f"the KKT gap fell below tol={tol:g}; their decisions are the last iterate's",
            ConvergenceWarning,
            stacklevel=2,
        )
    certified = int(np.sum(status == _exact_loo_loop.CERTIFIED))
    under_franc = int(todo.size if used == "franc" else min(todo.size, M) if franc else 0)
    out_counts: dict[str, float] = {
        "settled_alpha_zero": int(np.sum(settled == ALPHA_ZERO)),
        "settled_misclassified": int(np.sum(settled == MISCLASSIFIED)),
        "retrained": int(todo.size),
        "refined": n_refined,
        "certified": certified,
        "prec_percent": 100.0 * certified / under_franc if under_franc else math.nan,
        "efficiency_certified": eff_certified,
        "max_iter_reached": hit,
        "iterations": int(full.iterations + iters.sum()),
        "retrain_iterations": int(iters.sum()),
        "kernel_rows": int(2 * full.iterations + rows.sum() + gbar_full.rows),
        "kernel_evals": int(store.kernel_evals - evals0) if by_rows else 0,
    }
    return ExactLOOResult(
        error=float(np.mean(wrong)),
        wrong=wrong,
        decision=decision,
        settled_by=settled,
        status=status,
        stopping=stopping,
        stopping_used=used,
        counts=out_counts,
        full=full,
    )
