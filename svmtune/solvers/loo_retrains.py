"""The retrains of exact leave-one-out, and the bias and decision of a solution without a point.

:func:`svmtune.solvers.exact_loo.exact_loo` decides which points to retrain; this module retrains
them: on a full Gram matrix in the compiled loop (:mod:`svmtune.solvers._exact_loo_loop`), handed
to the shrinking SMO when not done in :data:`SHRINK_AFTER` steps (:func:`retrain_shrinking`); on a
kernel-row cache with the SMO (:func:`retrain_rows`); and again at tighter tolerances when a
left-out decision is within the tolerance of zero (:func:`refine`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune._warnings import quiet_max_iter
from svmtune.solvers.kernel_rows import FullGram, KernelRows
from svmtune.solvers.smo import SMO, SMOResult, SMORun

if TYPE_CHECKING:
    from svmtune.solvers import _exact_loo_loop, _shrinking
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers._exact_loo_loop")
    _shrinking = lazy_module("svmtune.solvers._shrinking")


__all__ = [
    "REFINE_FACTOR",
    "REFINE_FLOOR",
    "SHRINK_AFTER",
    "TIE",
    "decision_scale",
    "left_out_decision",
    "midpoint_biases",
    "refine",
    "retrain_rows",
    "retrain_shrinking",
    "seed_without",
]

SHRINK_AFTER = 200
"""SMO steps a retrain makes in the compiled loop (over all variables, with Franc's stop if asked)
before it goes on, if not done, on the shrinking SMO, which shrinks at once: an SMO from scratch
waits ``min(n, 1000)`` steps, but a retrain starts next to its optimum, where most variables at
a bound stay there."""


def seed_without(
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


class CountedGram(FullGram):
    """A view of one shared Gram matrix that counts the entries its gradient refreshes read.

    The shrinking SMO recomputes the gradient of shrunk (and left-out) variables from the free
    support vectors; on a full matrix those entries cost no kernel evaluation but are kernel
    columns read, which the retrains count. One per thread: the loop writes its bookkeeping."""

    def __init__(self, K: NDArray[np.float64], diag: NDArray[np.float64]) -> None:
        super().__init__(K, check=False, diag=diag)
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


class FullGbar:
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


def retrain_shrinking(
    K: NDArray[np.float64],
    diag: NDArray[np.float64],
    solver: SMO,
    y: NDArray[np.float64],
    C: float,
    full: SMOResult,
    points: NDArray[np.int64],
    franc: bool,
    gbar_full: FullGbar,
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
        store = CountedGram(K, diag)
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
            dec[k] = left_out_decision(y, sr.gradient, r)
            status[k] = _exact_loo_loop.KKT if sr.converged else _exact_loo_loop.MAX_ITER
            iters[k] = it + sr.iterations
            reads = -(-(store.read - read0) // n)
            rows[k] = int(rw + moved.size + 2 * sr.iterations + reads)

    with quiet_max_iter():  # counted and reported once
        if n_jobs == 1 or m < 2:
            run(0, m)
        else:
            n_chunks = min(m, 4 * (n_jobs if n_jobs and n_jobs > 0 else 8))
            bounds = np.linspace(0, m, n_chunks + 1).astype(int)
            from joblib import Parallel, delayed

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


def left_out_decision(y: NDArray[np.float64], G: NDArray[np.float64], r: int) -> float:
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


def decision_scale(C: float, diag: NDArray[np.float64]) -> float:
    return max(1.0, C * float(diag.max()))


def refine(
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
    previous: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Left-out decisions that the eps-KKT stop left within ``tol * decision_scale`` of zero,
    made certain (``previous``: those decisions, at ``tol``).

    Each point is retrained without it at tolerances ``tol * REFINE_FACTOR^k`` until Franc's
    bound (when ``franc``) certifies its sign, or its decision lies farther from zero than the
    tolerance times :func:`decision_scale` (``max(1, C max_i K_ii)``, the size of the
    gradient's terms: an eps-KKT solution's decision at a point outside its training set is only
    that accurate), or the tolerance reaches the floor (:data:`REFINE_FLOOR`). A refinement that
    reaches ``cap`` iterations before its tolerance (an ill-conditioned problem at a large C)
    keeps the decision of the last tolerance reached: refining is as far as the solver gets."""
    n = y.shape[0]
    scale = decision_scale(C, diag)
    floor = REFINE_FLOOR * scale
    m = points.shape[0]
    dec = np.empty(m)
    status = np.empty(m, dtype=np.int64)
    iters = np.zeros(m, dtype=np.int64)
    rows = np.zeros(m, dtype=np.int64)
    by_rows = isinstance(store, KernelRows)
    a_full = np.ascontiguousarray(full.alpha)
    G_full = np.ascontiguousarray(full.gradient)
    alpha, G, beta, u, z = (np.empty(n) for _ in range(5))
    with quiet_max_iter():  # counted and reported once
        for k, r in enumerate(points):
            r = int(r)
            t = tol
            start_a, start_G = a_full, G_full
            last = float(previous[k])
            while True:
                t = max(t * REFINE_FACTOR, floor)
                if by_rows:
                    assert isinstance(store, KernelRows)
                    evals0 = store.kernel_evals
                    tight = SMO(tol=t, max_iter=cap, check_kernel=False)
                    d, st, run = retrain_on_rows(tight, store, y, C, start_a, r)
                    it, rw = run.iterations, -(-(store.kernel_evals - evals0) // n)
                    start_a = run.alpha.copy()
                else:
                    d, st, it, rw = _exact_loo_loop.retrain_one(
                        K, diag, y, C, start_a, start_G, r, t, franc, cap, alpha, G, beta, u, z
                    )
                    start_a, start_G = alpha.copy(), G.copy()
                iters[k] += it
                rows[k] += rw
                if st == _exact_loo_loop.MAX_ITER:
                    d, st = last, _exact_loo_loop.KKT
                    break
                last = d
                if st != _exact_loo_loop.KKT or abs(d) >= t * scale or t <= floor:
                    break
            dec[k], status[k] = d, st
    return dec, status, iters, rows


def retrain_on_rows(
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
        y, C=C, gram=store, alpha0=seed_without(start, y, C, r), active=everyone[everyone != r]
    )
    run.run()
    status = _exact_loo_loop.KKT if run.converged else _exact_loo_loop.MAX_ITER
    return left_out_decision(y, run.gradient, r), status, run


def retrain_rows(
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
    with quiet_max_iter():  # counted and reported once
        for k, r in enumerate(points):
            dec[k], status[k], run = retrain_on_rows(solver, store, y, C, full.alpha, int(r))
            iters[k] = run.iterations
            rows[k] = -(-run.kernel_evals // n)
    return dec, status, iters, rows
