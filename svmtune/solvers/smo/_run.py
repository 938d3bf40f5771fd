"""A solve in progress (:class:`SMORun`): the Python side of the compiled SMO loop.

It calls :func:`svmtune.solvers.smo._smo_loop.smo_loop`, answers what the loop asks for (a kernel
row, the gradient of the shrunk variables), keeps the iteration count and warns when
``max_iter`` is reached.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune._warnings import MAX_ITER_PREFIX, warn_not_converged
from svmtune.solvers.smo._blas_threads import BLAS_ROW_THRESHOLD, one_blas_thread
from svmtune.solvers.smo._kernel_rows import RowStore
from svmtune.solvers.smo._result import SMOResult
from svmtune.solvers.smo._warm_start import snap_to_bounds

if TYPE_CHECKING:
    from svmtune.solvers.smo import _loop_rows, _shrinking, _smo_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _loop_rows = lazy_module("svmtune.solvers.smo._loop_rows")
    _shrinking = lazy_module("svmtune.solvers.smo._shrinking")
    _smo_loop = lazy_module("svmtune.solvers.smo._smo_loop")


__all__ = ["SMORun"]

PACKED_ROWS_BYTES = 64 * 2**20
"""Bytes at most for the copies of kernel rows in the active variables' positions that the loop
reads once variables are shrunk (:mod:`svmtune.solvers.smo._packed_rows`) when the rows come
from the driver (a full Gram matrix, a kernel computed in Python): also at most an eighth of the
row store's bytes and ``m^2`` doubles, and at least two rows of ``m``. Allocated untouched, so a
solve that never shrinks uses none of it. RBF and linear rows computed in the loop need no such
buffer: their rows by position are held in slots the row store lends."""


def packed_rows_len(m: int, store_bytes: int) -> int:
    """Doubles of the buffer for ``m`` variables beside a row store of ``store_bytes`` bytes
    whose rows come from the driver (an upper bound of the buffer for any row store)."""
    return max(2 * m, min(m * m, store_bytes // 64, PACKED_ROWS_BYTES // 8))


def _check_layout(**arrays: NDArray[np.float64] | NDArray[np.int64]) -> None:
    """The one layout the compiled loop is built for: C-contiguous, writeable float64 (int64
    for ``active``). Any other would compile the loop again for it (seconds), so it is an
    error; :meth:`SMO.start` makes such arrays from any input."""
    for name, arr in arrays.items():
        dtype = np.int64 if name == "active" else np.float64
        if (
            not isinstance(arr, np.ndarray)
            or arr.dtype != dtype
            or arr.ndim != 1
            or not arr.flags.c_contiguous
            or not arr.flags.writeable
        ):
            what = f"{arr.dtype} of shape {arr.shape}" if isinstance(arr, np.ndarray) else type(arr)
            raise ValueError(
                f"SMORun needs {name} as a writeable C-contiguous 1-d {np.dtype(dtype)} array; "
                f"got {what} (SMO.start makes the arrays from any input)"
            )


class SMORun:
    """A solve in progress: step it, inspect ``alpha`` and the gradient, then take the result.

    Made by :meth:`SMO.start`. ``alpha`` is the live array the loop updates and ``gradient``
    the live gradient (its entries the loop does not update, for left-out and shrunk points,
    are recomputed when it is read): read them, do not write them.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.solvers import SMO
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
        _check_layout(y=y, C=C, alpha=alpha, gradient=gradient, active=active)
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
                bound = np.flatnonzero(at_c).astype(np.int64)
                gbar = y * store.row_products(bound, C[bound] * y[bound])[0]
        self._Gbar = np.ascontiguousarray(gbar, dtype=np.float64)
        self._order = active.copy()
        lent = store.kind != _loop_rows.ROWS_GIVEN  # rows by position in the store's slots
        m = int(active.shape[0])
        self._pbuf = np.empty(0 if lent else packed_rows_len(m, int(store.rows.nbytes)))
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
    def swept(self) -> int:
        """Variables the iterations so far passed over (the active ones, summed over
        iterations): the work of the loop's passes, a count the same on every machine."""
        return int(self._state[_shrinking.SWEPT])

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
        # the loop's rows are BLAS matrix-vector products: on one thread (see _blas_threads)
        loop_blas = store.kind != _loop_rows.ROWS_GIVEN and store.points.size >= BLAS_ROW_THRESHOLD
        with one_blas_thread(loop_blas):
            moved = self._loop(budget)
        if moved and int(self._state[_shrinking.SIZE]) < self.n:
            self._stale = True
        if not self.converged and self.iterations >= self.max_iter and not self._warned:
            self._warned = True
            warn_not_converged(
                f"{MAX_ITER_PREFIX}={self.max_iter} iterations with KKT gap "
                f"{self.gap:.3g} > tol={self.tol:g}: the solution is not optimal. To converge, "
                f"use a larger tol (e.g. tol={10 * self.tol:g}), a smaller C (here up to "
                f"{float(np.max(self.C)):.3g}; the iterations SMO needs grow with C), or "
                "scale the features (svmtune.datasets.standardize); or raise max_iter",
                stacklevel=2,
            )
        return self.converged

    def _loop(self, budget: int) -> bool:
        """Run the compiled loop, answering its requests, until it stops; whether it moved."""
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
                self._pbuf,
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
            return moved

    def bias(self) -> float:
        """The bias ``b`` at the current ``alpha`` (see :class:`SMOResult`).

        LIBSVM's rule: the mean of ``-y_t G_t`` over the free variables, else the middle of
        the interval of valid biases. Free and bound are told apart after the variables within
        round-off of a bound are put on it (:func:`~svmtune.solvers.smo._warm_start.snap_to_bounds`,
        as the loop clips its steps), so that a variable left at ``C - 1e-16`` does not make
        one end of that interval the bias."""
        G = self.gradient
        yy = self.y[self.active]
        Cv = self.C[self.active]
        a = snap_to_bounds(self.alpha[self.active], Cv)
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
