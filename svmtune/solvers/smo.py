"""Sequential minimal optimisation (SMO) for the SVM dual: the Python driver.

The dual of the L1 soft-margin SVM (Palagi's slides, problem (3))::

    min_a  1/2 a'Qa - e'a   s.t.  y'a = 0,  0 <= a <= C,   Q_ij = y_i y_j k(x_i, x_j)

is solved two variables at a time. The compiled loop (:mod:`svmtune.solvers._smo_loop`) picks the
pair either as the maximal violating pair or by LIBSVM's second-order rule (the default), updates
it analytically and the gradient ``G = Qa - e`` incrementally, and stops when the KKT gap
``max_{I_up} -y G - min_{I_low} -y G`` is below ``tol``.

This module owns everything around that loop: where kernel values come from (the full Gram matrix
while it fits a memory budget, else kernel rows computed on demand and kept in an LRU cache,
:class:`~svmtune.solvers.kernel_rows.KernelRows`), warm starts (:func:`feasible_start`), solving
on a subset of the points (``active``), stepping a solve by hand (:class:`SMORun`), the
ConvergenceWarning, and the result (:class:`SMOResult`).

A later solver (exact leave-one-out, Franc et al.) reuses it: it retrains with one point removed
by passing ``active`` (all indices but one) and a seeded ``alpha0`` over the same Gram matrix,
steps the solve with :meth:`SMORun.run` or a ``callback``, and reads ``alpha`` and the gradient
(the gradient covers every point, so ``y_r (G_r + 1) + b`` is the decision value at a left-out
point ``r``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from svmtune._validation import check_labels, check_positive, check_X
from svmtune.kernels import KernelModel
from svmtune.solvers import _shrinking, _smo_loop
from svmtune.solvers._rbf_gram import rbf_gram
from svmtune.solvers.kernel_rows import (
    DEFAULT_MEMORY_BUDGET,
    FullGram,
    KernelRows,
    RowStore,
    as_f8_2d,
    check_gram,
)

__all__ = [
    "SMO",
    "FullGram",
    "KernelRows",
    "SMOResult",
    "SMORun",
    "check_gram",
    "decision_from_gradient",
    "default_max_iter",
    "feasible_start",
]

Selection = Literal["second_order", "max_violating_pair"]
_SELECTIONS = ("second_order", "max_violating_pair")


@dataclass(frozen=True)
class SMOResult:
    """The outcome of one SMO solve.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The dual solution (zero outside the active set).
    b : float
        The bias: decision ``f(x) = sum_i alpha_i y_i k(x, x_i) + b``. Mean of ``-y_i G_i`` over
        the free support vectors (``0 < alpha_i < C_i``); the middle of the feasible interval
        when there is none.
    iterations : int
        SMO iterations (pair updates) made by this solve.
    kernel_evals : int
        Kernel entries computed by this solve: ``n * n`` for a full Gram matrix it built, ``n``
        per kernel row computed on demand (the number of active variables for a row computed
        while some are shrunk), ``n`` for the diagonal, and the entries computed to recompute
        the gradient of shrunk or left-out points; zero for a Gram matrix the caller passed.
    gradient : ndarray of shape (n,)
        ``G = Q alpha - e`` at the solution, for every point (active or not).
    converged : bool
        The KKT gap fell below ``tol``.
    objective : float
        The dual objective ``1/2 alpha'Q alpha - e'alpha`` (minimised, so at most 0).
    gap : float
        The last KKT gap ``max_{I_up} -y G - min_{I_low} -y G`` (``-inf`` when a side is empty).
    """

    alpha: NDArray[np.float64]
    b: float
    iterations: int
    kernel_evals: int
    gradient: NDArray[np.float64]
    converged: bool
    objective: float
    gap: float = math.nan

    @property
    def support(self) -> NDArray[np.intp]:
        """Indices of the support vectors (``alpha > 0``), increasing."""
        return np.flatnonzero(self.alpha > 0.0)


def default_max_iter(n: int) -> int:
    """The default iteration limit of an SMO solve on ``n`` variables: ``max(10**7, 1000 n)``.

    LIBSVM's floor of ten million, and beyond it 1,000 iterations per variable (LIBSVM allows
    100): SMO needs a number of iterations that grows with ``n`` and with ``C`` (measured with
    benchmarks/smo.py: banana, 2,000 points, C = 1e4: 551 n; 300 noisy points, C = 1e5: 4.6
    million), so a limit that does not grow with ``n`` stops large hard problems short.

    Examples
    --------
    >>> default_max_iter(500), default_max_iter(50_000)
    (10000000, 50000000)
    """
    return max(10_000_000, 1_000 * int(n))


def decision_from_gradient(gradient: ArrayLike, y: ArrayLike, b: float) -> NDArray[np.float64]:
    """Decision values at the training points from the gradient: ``y_t (G_t + 1) + b``.

    Since ``G_t = y_t sum_s alpha_s y_s K_ts - 1``, this is ``f(x_t)`` without another kernel
    pass, for the active points and for the points held out of the solve alike.

    Examples
    --------
    >>> decision_from_gradient([-1.5, 0.0], [1.0, -1.0], 0.25).tolist()
    [-0.25, -0.75]
    """
    G = np.asarray(gradient, dtype=np.float64)
    yy = np.asarray(y, dtype=np.float64)
    return yy * (G + 1.0) + float(b)


def feasible_start(
    alpha: ArrayLike,
    y: ArrayLike,
    C: float | ArrayLike,
    *,
    active: ArrayLike | None = None,
    scale: float = 1.0,
) -> NDArray[np.float64]:
    """Turn a guess into a feasible warm start: ``0 <= a <= C``, ``y'a = 0``, zero off ``active``.

    The guess is multiplied by ``scale`` (e.g. ``C_new / C_old`` when seeding from a solution at
    another ``C``), clipped to the box, and the heavier class is shrunk proportionally until both
    classes carry the same weight.

    Examples
    --------
    >>> import numpy as np
    >>> a = feasible_start([2.0, 1.0, 1.0], [1.0, -1.0, 1.0], 1.5)
    >>> a.round(6).tolist()
    [0.6, 1.0, 0.4]
    """
    yy = np.asarray(y, dtype=np.float64).ravel()
    a = np.array(alpha, dtype=np.float64).ravel() * float(scale)
    if a.shape != yy.shape:
        raise ValueError(f"alpha has shape {a.shape} but y has shape {yy.shape}")
    Cv = np.broadcast_to(np.asarray(C, dtype=np.float64), yy.shape)
    if active is not None:
        keep = np.zeros(yy.shape[0], dtype=bool)
        keep[np.asarray(active, dtype=np.int64)] = True
        a[~keep] = 0.0
    a = np.clip(np.nan_to_num(a, nan=0.0), 0.0, Cv)
    pos = yy > 0
    P = float(a[pos].sum())
    N = float(a[~pos].sum())
    if P <= 0.0 or N <= 0.0:
        return np.zeros_like(a)
    if P > N:
        a[pos] *= N / P
    elif N > P:
        a[~pos] *= P / N
    return a


def _rows_beat_gram(
    kernel: KernelModel | None, params: Mapping[str, float], n: int, d: int
) -> bool:
    """Whether kernel rows computed on demand in the compiled loop are the faster source.

    Only the rows of kernels with an inner-product form (RBF, linear) are computed there. The
    full Gram matrix costs ``n^2`` entries in one cache-blocked BLAS product; rows cost only the
    entries the solve touches (10-70% of ``n^2`` at 500-5,000 points) through matrix-vector
    products. Measured with one BLAS thread
    (benchmarks/smo.py, banana, ringnorm, twonorm, pima, german, splice at 500-5,000 points):
    rows are faster beyond about 500 points while ``d <= 64`` (1.3-5x at 700-5,000 points, up
    to 20% slower on pima and german, where most points are support vectors); for long points
    (splice, ``d = 240``) the blocked product stays 2-3x faster.
    """
    if n <= 500 or d > 64 or not isinstance(kernel, KernelModel):
        return False
    return kernel.inner_product_form(params) is not None


class SMORun:
    """A solve in progress: step it, inspect ``alpha`` and the gradient, then take the result.

    Made by :meth:`SMO.start`. ``alpha`` is the live array the loop updates and ``gradient``
    the live gradient (its entries the loop does not update, for left-out and shrunk points,
    are recomputed when it is read): read them, do not write them.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> run = SMO().start(y, C=10.0, kernel=RBF(), params={"gamma": 0.5}, X=X)
    >>> run.run(max_steps=1)
    False
    >>> run.iterations
    1
    >>> run.run()
    True
    >>> res = run.result()
    >>> bool(np.all(np.sign(res.b + res.gradient + 1.0) != 0))
    True
    """

    def __init__(
        self,
        store: RowStore,
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        alpha: NDArray[np.float64],
        gradient: NDArray[np.float64],
        active: NDArray[np.int64],
        *,
        tol: float,
        second_order: bool,
        max_iter: int,
        kernel_evals: int,
        shrinking: bool = False,
        gbar: NDArray[np.float64] | None = None,
    ) -> None:
        self._store = store
        self.y = y
        self.C = C
        self.alpha = alpha
        self._G = gradient
        self.active = active
        self.tol = tol
        self.second_order = second_order
        self.shrinking = shrinking
        self.max_iter = max_iter
        self.iterations = 0
        self.converged = False
        self.gap = math.inf
        if gbar is None:
            at_c = alpha >= C
            gbar = np.zeros_like(gradient)
            if at_c.any():
                gbar = y * ((C[at_c] * y[at_c]) @ store.rows_of(np.flatnonzero(at_c)))
        self._Gbar = np.ascontiguousarray(gbar, dtype=np.float64)
        self._order = active.copy()
        self._state = _shrinking.new_state(int(active.shape[0]))
        self._stale = False
        store.epoch[0] += 1  # partial rows of an earlier solve are not rows of this one
        self._evals0 = store.kernel_evals
        self._extra_evals = kernel_evals
        self._warned = False

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def gradient(self) -> NDArray[np.float64]:
        """``G = Q alpha - e`` at the current ``alpha``, for every point.

        The loop updates only the variables it is optimising (without the left-out points and,
        with shrinking, without the shrunk ones); the rest is recomputed from ``alpha`` when read
        (its kernel entries are counted in :attr:`kernel_evals`), so reading it after every step
        of a shrinking solve costs a pass over the support vectors each time.
        """
        if self._stale:
            self._stale = False
            size = int(self._state[_shrinking.SIZE])
            if size < self.n:
                inside = np.zeros(self.n, dtype=bool)
                inside[self._order[:size]] = True
                targets = np.flatnonzero(~inside).astype(np.int64)
                self._store.refresh_gradient(
                    self._G, self._Gbar, self.alpha, self.y, self.C, targets
                )
        return self._G

    @property
    def n_active(self) -> int:
        """Variables the loop currently optimises (fewer than ``active`` once some are shrunk)."""
        return int(self._state[_shrinking.SIZE])

    @property
    def kernel_evals(self) -> int:
        """Kernel entries computed by this solve so far."""
        return self._extra_evals + self._store.kernel_evals - self._evals0

    def run(self, max_steps: int | None = None) -> bool:
        """Make up to ``max_steps`` more iterations (default: until converged or ``max_iter``).

        Returns whether the KKT gap is below ``tol`` (on every active variable: with shrinking,
        the gap is checked again on all of them, with the gradient recomputed, before a solve
        counts as converged). Warns (ConvergenceWarning) when the total reaches ``max_iter``
        first.
        """
        budget = self.max_iter - self.iterations
        if max_steps is not None:
            if max_steps < 0:
                raise ValueError(f"max_steps must be >= 0; got {max_steps!r}")
            budget = min(budget, int(max_steps))
        store = self._store
        state = self._state
        order = self._order
        m = order.shape[0]
        moved = False
        while True:
            status, steps, need, gap = _smo_loop.smo_loop(
                store.rows,
                store.slot,
                store.stamp,
                store.clock,
                store.row_epoch,
                store.epoch,
                self.y,
                self.C,
                self.alpha,
                self._G,
                self._Gbar,
                order,
                state,
                store.diag,
                store.kind,
                store.points,
                store.sq,
                store.gamma,
                store.owner,
                store.loop_evals,
                self.tol,
                self.second_order,
                self.shrinking,
                budget,
            )
            self.iterations += steps
            budget -= steps
            self.gap = float(gap)
            moved = moved or steps > 0
            size = int(state[_shrinking.SIZE])
            if status == _smo_loop.NEED_ROW:
                store.fetch(int(need), order[:size] if size < m else None)
                continue
            if status == _smo_loop.NEED_COMPLETE_ROW:
                store.fetch(int(need))
                continue
            if status == _smo_loop.RECONSTRUCT:
                targets = np.sort(order[size:])
                store.refresh_gradient(self._G, self._Gbar, self.alpha, self.y, self.C, targets)
                state[_shrinking.SIZE] = m
                store.epoch[0] += 1
                continue
            self.converged = status == _smo_loop.CONVERGED
            break
        if moved and int(state[_shrinking.SIZE]) < self.n:
            self._stale = True
        if not self.converged and self.iterations >= self.max_iter and not self._warned:
            self._warned = True
            warnings.warn(
                f"SMO stopped at max_iter={self.max_iter} iterations with KKT gap "
                f"{self.gap:.3g} > tol={self.tol:g}: the solution is not optimal. To converge, "
                f"use a larger tol (e.g. tol={10 * self.tol:g}), a smaller C (here up to "
                f"{float(np.max(self.C)):.3g}; the iterations SMO needs grow with C), or "
                "scale the features (svmtune.datasets.standardize); or raise max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self.converged

    def bias(self) -> float:
        """The bias ``b`` at the current ``alpha`` (see :class:`SMOResult`)."""
        G = self.gradient
        a = self.alpha[self.active]
        yy = self.y[self.active]
        Cv = self.C[self.active]
        v = -yy * G[self.active]
        free = (a > 0.0) & (a < Cv)
        if free.any():
            return float(np.mean(v[free]))
        up = np.where(yy > 0, a < Cv, a > 0.0)
        low = np.where(yy > 0, a > 0.0, a < Cv)
        hi = float(v[up].max()) if up.any() else math.nan
        lo = float(v[low].min()) if low.any() else math.nan
        if math.isnan(hi):
            return lo
        if math.isnan(lo):
            return hi
        return 0.5 * (hi + lo)

    def objective(self) -> float:
        """The dual objective ``1/2 a'Qa - e'a = 1/2 sum_t a_t (G_t - 1)``."""
        return float(0.5 * np.dot(self.alpha, self.gradient - 1.0))

    def result(self) -> SMOResult:
        """A snapshot of the current state as an :class:`SMOResult` (arrays copied)."""
        return SMOResult(
            alpha=self.alpha.copy(),
            b=self.bias(),
            iterations=self.iterations,
            kernel_evals=self.kernel_evals,
            gradient=self.gradient.copy(),
            converged=self.converged,
            objective=self.objective(),
            gap=self.gap,
        )


class SMO:
    """SMO solver for the SVM dual ``min 1/2 a'Qa - e'a, y'a = 0, 0 <= a <= C``.

    Parameters
    ----------
    tol : float, default 1e-3
        Stop when the KKT gap ``max_{I_up} -y G - min_{I_low} -y G`` is below ``tol``
        (LIBSVM's ``eps``).
    selection : {"second_order", "max_violating_pair"}
        Working-set selection: LIBSVM's second-order rule (Fan, Chen, Lin 2005; the default) or
        the maximal violating pair (Palagi's slides).
    max_iter : int, optional
        Iteration limit; default :func:`default_max_iter` ``(n) = max(10**7, 1000 n)``.
        Reaching it warns (:class:`~sklearn.exceptions.ConvergenceWarning`, saying what to
        change: a larger ``tol``, a smaller ``C``, scaled features).
    memory_budget : int, default 512 MiB
        Bytes the full Gram matrix may take when SMO builds it from a kernel; beyond it, kernel
        rows are computed on demand and cached within the same budget. RBF and linear kernels
        on more than 500 points of at most 64 features use rows on demand (computed inside the
        compiled loop) even when the Gram matrix fits: a solve touches only part of it.
    check_kernel : bool, default True
        Check the Gram matrix (or each kernel row) for NaN/inf, asymmetry and 2x2 principal minors
        that rule out positive semidefiniteness (see :func:`check_gram`), and raise ValueError.
    shrinking : bool, default True
        LIBSVM's shrinking heuristic: every ``min(n, 1000)`` iterations, variables at a bound
        that cannot join a violating pair are set aside (neither selected nor updated; with
        cached kernel rows, rows are then computed on the remaining variables only). Everything
        is reactivated once the gap comes within ``10 tol``, and convergence is always checked
        on all variables with the gradient recomputed, so the result meets the same eps-KKT
        stop as without shrinking.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = SMO().solve(y, C=10.0, kernel=RBF(), params={"gamma": 0.5}, X=X)
    >>> res.converged, res.support.tolist()
    (True, [0, 1, 2, 3])
    >>> np.sign(decision_from_gradient(res.gradient, y, res.b)).tolist()
    [-1.0, -1.0, 1.0, 1.0]
    """

    def __init__(
        self,
        *,
        tol: float = 1e-3,
        selection: Selection = "second_order",
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        check_kernel: bool = True,
        shrinking: bool = True,
    ) -> None:
        self.tol = tol
        self.selection = selection
        self.max_iter = max_iter
        self.memory_budget = memory_budget
        self.check_kernel = check_kernel
        self.shrinking = shrinking

    def _check_options(self) -> None:
        check_positive(self.tol, name="tol")
        if self.selection not in _SELECTIONS:
            raise ValueError(f"selection must be one of {_SELECTIONS}; got {self.selection!r}")
        if self.max_iter is not None and (
            not isinstance(self.max_iter, int | np.integer) or self.max_iter < 1
        ):
            raise ValueError(f"max_iter must be a positive integer or None; got {self.max_iter!r}")
        if not isinstance(self.memory_budget, int | np.integer) or self.memory_budget < 1:
            raise ValueError(
                f"memory_budget must be a positive number of bytes; got {self.memory_budget!r}"
            )
        if not isinstance(self.shrinking, bool | np.bool_):
            raise ValueError(f"shrinking must be True or False; got {self.shrinking!r}")

    def _store(
        self,
        n: int,
        gram: ArrayLike | FullGram | KernelRows | None,
        kernel: KernelModel | None,
        params: Mapping[str, float] | None,
        X: ArrayLike | None,
    ) -> tuple[RowStore, int]:
        if gram is not None:
            if kernel is not None or params is not None or X is not None:
                raise ValueError("give either gram or (kernel, params, X), not both")
            if isinstance(gram, KernelRows | FullGram):
                if gram.n != n:
                    raise ValueError(
                        f"the kernel store is for {gram.n} points but y has {n} labels"
                    )
                return gram, 0
            K = as_f8_2d(gram)
            if K.shape != (n, n):
                raise ValueError(f"gram must have shape ({n}, {n}) to match y; got {K.shape}")
            return FullGram(K, check=self.check_kernel), 0
        if kernel is None or params is None or X is None:
            raise ValueError("give gram, or all of kernel, params and X")
        Xc = check_X(X)
        if Xc.shape[0] != n:
            raise ValueError(f"X has {Xc.shape[0]} rows but y has {n} labels")
        if 8 * n * n <= self.memory_budget and not _rows_beat_gram(kernel, params, n, Xc.shape[1]):
            if not isinstance(kernel, KernelModel):
                raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
            form = kernel.inner_product_form(params)
            if form is not None and form.kind == "rbf":
                # fused; exactly symmetric, unit diagonal, PSD: nothing to check
                return FullGram(rbf_gram(Xc, form.gamma), check=False), n * n
            K = as_f8_2d(kernel.prepare(Xc).gram(params))
            if self.check_kernel:
                check_gram(K, name=f"Gram matrix of {kernel!r}")
            return FullGram(K, check=False), n * n
        rows = KernelRows(
            kernel, params, Xc, memory_budget=self.memory_budget, check=self.check_kernel
        )
        return rows, rows.kernel_evals

    def start(
        self,
        y: ArrayLike,
        *,
        C: float | ArrayLike,
        gram: ArrayLike | FullGram | KernelRows | None = None,
        kernel: KernelModel | None = None,
        params: Mapping[str, float] | None = None,
        X: ArrayLike | None = None,
        alpha0: ArrayLike | None = None,
        active: ArrayLike | None = None,
    ) -> SMORun:
        """Set a solve up without iterating (see :meth:`solve` for the arguments)."""
        self._check_options()
        yy = np.ascontiguousarray(check_labels(y))
        n = yy.shape[0]
        Cv = self._check_C(C, n)
        if active is None:
            act = np.arange(n, dtype=np.int64)
        else:
            act = np.unique(np.asarray(active, dtype=np.int64).ravel())
            if act.size and (act[0] < 0 or act[-1] >= n):
                raise ValueError(f"active indices must lie in [0, {n}); got {act[0]}..{act[-1]}")
            if np.unique(yy[act]).size < 2:
                raise ValueError(
                    f"the active set ({act.size} points) must hold both classes -1 and +1"
                )
        store, evals = self._store(n, gram, kernel, params, X)
        alpha = self._check_alpha0(alpha0, yy, Cv, act)
        G = np.full(n, -1.0)
        Gbar = np.zeros(n)
        sv = np.flatnonzero(alpha > 0.0).astype(np.int64)
        at_c = alpha >= Cv
        if sv.size and isinstance(store, FullGram) and 8 * sv.size > n:
            # one pass over K beats gathering many rows; G and Gbar together (K read once)
            W = np.stack([alpha * yy, np.where(at_c, Cv * yy, 0.0)], axis=1)
            KW = store.rows @ W
            G += yy * KW[:, 0]
            Gbar = yy * KW[:, 1]
        elif sv.size:
            before = store.kernel_evals
            R = store.rows_of(sv)
            G += yy * ((alpha[sv] * yy[sv]) @ R)
            bound = at_c[sv]
            if bound.any():
                Gbar = yy * ((Cv[sv][bound] * yy[sv][bound]) @ R[bound])
            evals += store.kernel_evals - before
        max_iter = self.max_iter if self.max_iter is not None else default_max_iter(n)
        return SMORun(
            store,
            yy,
            Cv,
            alpha,
            np.ascontiguousarray(G),
            act,
            tol=float(self.tol),
            second_order=self.selection == "second_order",
            max_iter=int(max_iter),
            kernel_evals=evals,
            shrinking=bool(self.shrinking),
            gbar=np.ascontiguousarray(Gbar),
        )

    def solve(
        self,
        y: ArrayLike,
        *,
        C: float | ArrayLike,
        gram: ArrayLike | FullGram | KernelRows | None = None,
        kernel: KernelModel | None = None,
        params: Mapping[str, float] | None = None,
        X: ArrayLike | None = None,
        alpha0: ArrayLike | None = None,
        active: ArrayLike | None = None,
        callback: Callable[[SMORun], bool | None] | None = None,
        callback_every: int = 1,
    ) -> SMOResult:
        """Solve the dual.

        Parameters
        ----------
        y : array of shape (n,)
            Labels in {-1, +1}.
        C : float or array of shape (n,)
            Upper bound of every ``alpha_i`` (or one per point).
        gram : array of shape (n, n), FullGram or KernelRows, optional
            The kernel matrix (no kernel evaluations are counted for it), the same wrapped once
            for many solves (:class:`~svmtune.solvers.kernel_rows.FullGram`), or a row cache.
        kernel, params, X : optional
            Instead of ``gram``: the kernel model, its parameters and the points. The full Gram
            matrix is built while ``8 n^2 <= memory_budget``, else rows are computed on demand;
            RBF and linear kernels use rows on demand from 500 points of at most 64 features.
        alpha0 : array of shape (n,), optional
            Warm start: must be feasible (``0 <= alpha0 <= C``, ``y'alpha0 = 0``, zero off
            ``active``); :func:`feasible_start` makes one from any guess. Default: zeros.
        active : array of int, optional
            Optimise only these variables; the others stay at zero (solving without some points
            on the same Gram matrix). The gradient is still kept for every point.
        callback : callable, optional
            ``callback(run)`` is called every ``callback_every`` iterations with the
            :class:`SMORun`; returning True stops the solve (then ``converged`` is False unless
            the gap is already below ``tol``).
        callback_every : int, default 1

        Returns
        -------
        SMOResult
        """
        run = self.start(
            y, C=C, gram=gram, kernel=kernel, params=params, X=X, alpha0=alpha0, active=active
        )
        if callback is None:
            run.run()
        else:
            if not isinstance(callback_every, int | np.integer) or callback_every < 1:
                raise ValueError(
                    f"callback_every must be a positive integer; got {callback_every!r}"
                )
            while not run.run(int(callback_every)) and run.iterations < run.max_iter:
                if callback(run):
                    break
        return run.result()

    @staticmethod
    def _check_C(C: float | ArrayLike, n: int) -> NDArray[np.float64]:
        if np.ndim(C) == 0:
            return np.full(n, check_positive(C, name="C"))
        Cv = np.array(C, dtype=np.float64).ravel()
        if Cv.shape != (n,):
            raise ValueError(f"C must be a number or an array of {n} bounds; got shape {Cv.shape}")
        bad = ~np.isfinite(Cv) | (Cv <= 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"C must be positive and finite; C[{i}] = {float(Cv[i])!r}")
        return Cv

    @staticmethod
    def _check_alpha0(
        alpha0: ArrayLike | None,
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        active: NDArray[np.int64],
    ) -> NDArray[np.float64]:
        n = y.shape[0]
        if alpha0 is None:
            return np.zeros(n)
        a = np.array(alpha0, dtype=np.float64).ravel()
        if a.shape != (n,):
            raise ValueError(f"alpha0 must have shape ({n},); got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError("alpha0 contains a non-finite value (NaN or inf)")
        slack = 1e-10 * C
        bad = (a < -slack) | (a > C + slack)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"alpha0 is outside the box [0, C]: alpha0[{i}] = {float(a[i])!r}, "
                f"C = {float(C[i])!r} "
                "(feasible_start() makes a feasible warm start from any guess)"
            )
        a = np.clip(a, 0.0, C)
        outside = np.ones(n, dtype=bool)
        outside[active] = False
        if np.any(a[outside] != 0.0):
            i = int(np.flatnonzero(outside & (a != 0.0))[0])
            raise ValueError(
                f"alpha0 must be zero off the active set; alpha0[{i}] = {float(a[i])!r}"
            )
        s = float(y @ a)
        if abs(s) > 1e-9 * max(1.0, float(a.sum())):
            raise ValueError(
                f"alpha0 violates y'alpha = 0: y'alpha0 = {s:.3g} "
                "(feasible_start() makes a feasible warm start from any guess)"
            )
        return np.ascontiguousarray(a)
