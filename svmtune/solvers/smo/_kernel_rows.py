"""Where SMO gets kernel values: the full Gram matrix, or rows computed on demand and cached."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._lazy import lazy_module
from svmtune._memory import DEFAULT_MEMORY_BUDGET, block_rows
from svmtune._validation import check_X
from svmtune.kernels import KernelModel
from svmtune.kernels.row_forms import squared_norms
from svmtune.solvers.smo._gram_check import as_f8_2d, check_gram
from svmtune.solvers.smo._row_budget import (
    BLOCK_SHARE,
    ROW_CACHE_SHARE,
    blocked_products,
)

if TYPE_CHECKING:
    from svmtune.solvers.smo import _loop_rows, _refresh
else:  # compiled code: loaded on first use (svmtune._lazy)
    _loop_rows = lazy_module("svmtune.solvers.smo._loop_rows")
    _refresh = lazy_module("svmtune.solvers.smo._refresh")


__all__ = [
    "BLOCK_SHARE",
    "DEFAULT_MEMORY_BUDGET",
    "ROW_CACHE_SHARE",
    "FullGram",
    "KernelRows",
    "RowStore",
    "as_f8_2d",
    "check_gram",
]


class FullGram:
    """The whole Gram matrix as SMO's row store (every row present).

    Made by SMO for a Gram matrix it is given; make one yourself to run many solves on the same
    matrix (e.g. leave-one-out retraining with ``active``) without checking and wrapping it
    again each time.

    Parameters
    ----------
    K : array of shape (n, n)
        Used without a copy when C-contiguous, writeable float64.
    check : bool, default True
        Run :func:`check_gram` once.
    diag : array of shape (n,), optional
        ``K``'s diagonal, if at hand (shared, not copied).
    memory_budget : int, default :data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`
        The solve's budget: blocks of rows read at once beside ``K`` (a warm start's gradient)
        take at most its :data:`~svmtune.solvers.smo._row_budget.BLOCK_SHARE`
        (:attr:`block_budget`); ``K`` itself is the caller's.

    Examples
    --------
    >>> import numpy as np
    >>> store = FullGram(np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> store.n, store.diag.tolist()
    (2, [1.0, 1.0])
    """

    def __init__(
        self,
        K: ArrayLike,
        *,
        check: bool = True,
        diag: NDArray[np.float64] | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        Ka = np.asarray(K)
        if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1]:
            raise ValueError(f"Gram matrix must be square; got shape {Ka.shape}")
        K = as_f8_2d(Ka)
        if check:
            check_gram(K)
        n = K.shape[0]
        self.n = n
        self.rows = K
        self.slot = np.arange(n, dtype=np.int64)
        self.stamp = np.zeros(n, dtype=np.int64)
        self.clock = np.zeros(1, dtype=np.int64)
        self.row_epoch = np.full(n, -1, dtype=np.int64)
        self.epoch = np.zeros(1, dtype=np.int64)
        self.diag = np.ascontiguousarray(np.diag(K) if diag is None else diag, dtype=np.float64)
        self.kernel_evals = 0
        self.kind = _loop_rows.ROWS_GIVEN  # every row is present: the loop computes none
        self.points = np.empty((0, 0))
        self.sq = np.empty(0)
        self.gamma = 0.0
        self.owner = np.empty(0, dtype=np.int64)
        self.loop_evals = np.zeros(1, dtype=np.int64)
        self.block_budget = max(1, int(BLOCK_SHARE * int(memory_budget)))

    def fetch(
        self, r: int, cols: NDArray[np.int64] | None = None
    ) -> None:  # pragma: no cover - every row is present
        raise AssertionError(f"row {r} missing from a full Gram matrix")

    def rows_of(self, idx: NDArray[np.int64]) -> NDArray[np.float64]:
        return self.rows[idx]

    def row_products(self, idx: NDArray[np.int64], W: NDArray[np.float64]) -> NDArray[np.float64]:
        """``W' K[idx]`` (shape ``(W.shape[1], n)``), reading the rows ``idx`` in blocks of at
        most :attr:`block_budget` bytes."""
        return blocked_products(self.rows_of, idx, W, self.n, self.block_budget, 1)

    def refresh_gradient(
        self,
        G: NDArray[np.float64],
        Gbar: NDArray[np.float64],
        alpha: NDArray[np.float64],
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        targets: NDArray[np.int64],
    ) -> None:
        """``G_t = -1 + Gbar_t + y_t sum_{0 < alpha_s < C_s} alpha_s y_s K_st`` for ``t`` in
        ``targets``, in place (``Gbar`` holds the variables at their upper bound)."""
        if targets.size:
            sv = np.flatnonzero((alpha > 0.0) & (alpha < C)).astype(np.int64)
            _loop_rows.gradient_from_rows(self.rows, self.slot, alpha * y, y, sv, targets, Gbar, G)


class KernelRows:
    """Kernel rows computed on demand and kept in a least-recently-used cache.

    The row store SMO uses when the full Gram matrix does not fit its memory budget. One instance
    can serve many solves on the same points and kernel parameters (e.g. leave-one-out
    retraining): rows computed for one solve stay cached for the next.

    Parameters
    ----------
    kernel : KernelModel
    params : mapping
        Kernel parameters.
    X : array of shape (n, n_features)
    capacity : int, optional
        Rows to keep (at least 2). Default: as many as :data:`ROW_CACHE_SHARE` of
        ``memory_budget`` holds.
    memory_budget : int
        Bytes of the solve's kernel values: the cached rows take :data:`ROW_CACHE_SHARE` of it
        (when ``capacity`` is not given), a block of rows read at once :data:`BLOCK_SHARE`
        (:attr:`block_budget`).
    check : bool
        Check each computed row: finite, and ``K_ij^2 <= K_ii K_jj``.

    Attributes
    ----------
    kernel_evals : int
        Kernel entries computed so far: ``n`` for the diagonal, then for each row the entries
        computed for it, and the entries for recomputing gradients. ``K`` is symmetric: an
        entry whose column's complete row is cached is copied from there, not computed again
        (rows computed in SMO's compiled loop do so only for points longer than 64, once the
        complete rows cached are half of the columns: for shorter points reading the cached
        rows' columns costs more CPU than computing the entries).
    kind : int
        0 when rows are computed through ``kernel.gram`` in Python; RBF and linear rows are
        computed inside SMO's compiled loop instead (no Python call per row, no per-row check:
        they are positive semidefinite and finite by construction).
    epoch : ndarray of shape (1,)
        A row computed on the active variables only (``row_epoch[slot] == epoch[0]``) is valid
        until SMO reactivates shrunk variables or starts another solve (each bumps it).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> rows = KernelRows(RBF(), {"gamma": 1.0}, np.array([[0.0], [1.0], [3.0]]), capacity=2)
    >>> rows.get(1).round(3).tolist()
    [0.368, 1.0, 0.018]
    >>> rows.kernel_evals
    6
    """

    def __init__(
        self,
        kernel: KernelModel,
        params: Mapping[str, float],
        X: ArrayLike,
        *,
        capacity: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        check: bool = True,
    ) -> None:
        if not isinstance(kernel, KernelModel):
            raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
        self.kernel = kernel
        self.params = kernel.check_params(params)
        self.X = check_X(X)
        kernel._check_features(self.X.shape[1])
        n = self.X.shape[0]
        self.n = n
        if capacity is None:
            capacity = int(ROW_CACHE_SHARE * int(memory_budget)) // (8 * n)
        capacity = int(min(max(capacity, 2), n))
        # blocks read at once: their share of the budget, and never more than that share of a
        # cache given its own capacity (at least one row)
        cache_bytes = 8 * n * capacity * BLOCK_SHARE / ROW_CACHE_SHARE
        self.block_budget = max(8 * n, int(min(BLOCK_SHARE * int(memory_budget), cache_bytes)))
        self.capacity = capacity
        self.check = bool(check)
        self.rows = np.empty((capacity, n), dtype=np.float64)
        self.slot = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(capacity, -1, dtype=np.int64)
        self.stamp = np.zeros(capacity, dtype=np.int64)
        self.clock = np.ones(1, dtype=np.int64)
        self.row_epoch = np.full(capacity, -1, dtype=np.int64)
        self.epoch = np.zeros(1, dtype=np.int64)
        self.loop_evals = np.zeros(1, dtype=np.int64)
        # RBF and linear rows are computed inside the compiled loop (no Python call per row);
        # they are positive semidefinite and finite by construction (finite points, diagonal).
        self.kind = _loop_rows.ROWS_GIVEN
        self.points = np.empty((0, 0))
        self.sq = np.empty(0)
        self.gamma = 0.0
        form = kernel.inner_product_form(self.params)
        if form is not None:
            self.kind = _loop_rows.ROWS_RBF if form.kind == "rbf" else _loop_rows.ROWS_LINEAR
            self.gamma = float(form.gamma)
            self.points = np.ascontiguousarray(self.X, dtype=np.float64)
            self.sq = squared_norms(self.points)
        diag = np.asarray(kernel.diag(self.params, self.X), dtype=np.float64)
        self._evals = n
        if diag.shape != (n,) or not np.all(np.isfinite(diag)):
            raise ValueError(f"kernel diagonal contains a non-finite value (NaN or inf): {diag!r}")
        if self.check and np.any(diag < 0):
            i = int(np.flatnonzero(diag < 0)[0])
            raise ValueError(
                f"kernel diagonal has a negative entry k(x_{i}, x_{i}) = {diag[i]:g}; "
                "the kernel is not positive semidefinite"
            )
        self.diag = np.ascontiguousarray(diag)

    def _compute(
        self, idx: NDArray[np.int64], cols: NDArray[np.int64] | None = None
    ) -> NDArray[np.float64]:
        """Rows ``idx`` of the kernel matrix on the columns ``cols`` (all when None), counted
        and checked."""
        Z = self.X if cols is None else self.X[cols]
        R = np.asarray(self.kernel.gram(self.params, self.X[idx], Z), dtype=np.float64)
        self._evals += R.size
        if not np.all(np.isfinite(R)):
            k, j = np.argwhere(~np.isfinite(R))[0]
            col = int(j) if cols is None else int(cols[j])
            raise ValueError(
                f"kernel row {int(idx[k])} contains a non-finite value (NaN or inf) at column {col}"
            )
        if self.check:
            dz = self.diag if cols is None else self.diag[cols]
            bound = np.sqrt(np.outer(self.diag[idx], dz)) * (1.0 + 1e-8) + 1e-12
            bad = np.abs(R) > bound
            if bad.any():
                k, j = np.argwhere(bad)[0]
                i = int(idx[k])
                col = int(j) if cols is None else int(cols[j])
                raise ValueError(
                    f"kernel is not positive semidefinite: |k(x_{i}, x_{col})| = "
                    f"{abs(R[k, j]):g} > sqrt(k(x_{i}, x_{i}) k(x_{col}, x_{col})) = "
                    f"{bound[k, j]:g}"
                )
        return R

    def _compute_reusing(self, idx: NDArray[np.int64]) -> NDArray[np.float64]:
        """Complete rows ``idx`` (distinct, none cached complete), each kernel entry computed once.

        ``K`` is symmetric: the entries ``K[i, t]`` whose column ``t`` has its complete row cached
        are copied from it, and the block ``K[idx, idx]`` is computed by chunks of rows, each on
        the block's columns from its own chunk on (the entries before it are the earlier chunks'
        entries, mirrored)."""
        n, b = self.n, idx.shape[0]
        if np.unique(idx).size != b:
            return self._compute(idx)
        cached = self._full_mask(np.arange(n, dtype=np.int64))
        out = np.empty((b, n), dtype=np.float64)
        have = np.flatnonzero(cached)
        if have.size:
            out[:, have] = self.rows[np.ix_(self.slot[have], idx)].T
        others = ~cached
        others[idx] = False
        rest = np.flatnonzero(others)
        if rest.size:
            out[:, rest] = self._compute(idx, rest)
        chunk = 64
        for start in range(0, b, chunk):
            stop = min(start + chunk, b)
            R = self._compute(idx[start:stop], idx[start:])
            out[start:stop][:, idx[start:]] = R
            if stop < b:
                out[np.ix_(np.arange(stop, b), idx[start:stop])] = R[:, stop - start :].T
        return out

    @property
    def kernel_evals(self) -> int:
        """Kernel entries computed so far (here and by the compiled loop)."""
        return int(self._evals + self.loop_evals[0])

    def _slot_for(self, r: int) -> int:
        s = int(self.slot[r])
        if s >= 0:
            return s
        free = np.flatnonzero(self.owner < 0)
        s = int(free[0]) if free.size else int(np.argmin(self.stamp))
        old = self.owner[s]
        if old >= 0:
            self.slot[old] = -1
        self.owner[s] = r
        self.slot[r] = s
        return s

    def _insert(self, r: int, row: NDArray[np.float64]) -> None:
        s = self._slot_for(r)
        self.rows[s] = row
        self.row_epoch[s] = -1
        self.stamp[s] = self.clock[0]
        self.clock[0] += 1

    def _has_full(self, r: int) -> bool:
        s = self.slot[r]
        return bool(s >= 0 and self.row_epoch[s] < 0)

    def fetch(self, r: int, cols: NDArray[np.int64] | None = None) -> None:
        """Compute row ``r`` and cache it (evicting the least recently used row if full).

        With ``cols`` (the solver's active variables) only those entries are computed; the row
        is then valid for the current :attr:`epoch` only (SMO's shrinking bumps the epoch when
        it reactivates variables).
        """
        r = int(r)
        if cols is None or cols.shape[0] >= self.n:
            if not self._has_full(r):
                self._insert(r, self._compute_reusing(np.array([r], dtype=np.int64))[0])
            return
        s = self.slot[r]
        if s >= 0 and (self.row_epoch[s] < 0 or self.row_epoch[s] == self.epoch[0]):
            return
        part = self._compute(np.array([r], dtype=np.int64), cols)[0]
        s = self._slot_for(r)
        self.rows[s, cols] = part
        self.row_epoch[s] = self.epoch[0]
        self.stamp[s] = self.clock[0]
        self.clock[0] += 1

    def get(self, r: int) -> NDArray[np.float64]:
        """Row ``r`` of the kernel matrix (computed if not cached)."""
        self.fetch(int(r))
        return self.rows[self.slot[int(r)]]

    def _full_mask(self, idx: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of the rows ``idx`` are cached complete (vectorised :meth:`_has_full`)."""
        s = self.slot[idx]
        have = s >= 0
        have[have] = self.row_epoch[s[have]] < 0
        return have

    def rows_of(self, idx: NDArray[np.int64]) -> NDArray[np.float64]:
        """Rows ``idx`` as an array, caching as many as fit (used for a warm start's gradient)."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.empty((idx.shape[0], self.n), dtype=np.float64)
        have = self._full_mask(idx)
        out[have] = self.rows[self.slot[idx[have]]]
        miss = np.flatnonzero(~have)
        if miss.size:
            out[miss] = self._compute_reusing(idx[miss])
            keep = miss[-self.capacity :]
            rs = idx[keep]
            free = np.flatnonzero(self.owner < 0)
            if np.all(self.slot[rs] < 0) and free.size >= rs.size and np.unique(rs).size == rs.size:
                # enough free slots: insert them all at once (as _insert would, in order)
                s = free[: rs.size]
                self.owner[s] = rs
                self.slot[rs] = s
                self.rows[s] = out[keep]
                self.row_epoch[s] = -1
                self.stamp[s] = self.clock[0] + np.arange(rs.size)
                self.clock[0] += rs.size
            else:
                for k in keep:
                    self._insert(int(idx[k]), out[k])
        return out

    def row_products(self, idx: NDArray[np.int64], W: NDArray[np.float64]) -> NDArray[np.float64]:
        """``W' K[idx]`` (shape ``(W.shape[1], n)``): the rows ``idx`` read (cached) or computed
        (and cached, as :meth:`rows_of` does) in blocks of at most :attr:`block_budget` bytes,
        counting the arrays the kernel builds for a block (:meth:`KernelModel.block_arrays`)
        and the three of the block's shape made around them (the rows, the computed part, the
        rows assembled)."""
        arrays = self.kernel.block_arrays() + 3
        return blocked_products(self.rows_of, idx, W, self.n, self.block_budget, arrays)

    def refresh_gradient(
        self,
        G: NDArray[np.float64],
        Gbar: NDArray[np.float64],
        alpha: NDArray[np.float64],
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        targets: NDArray[np.int64],
    ) -> None:
        """``G_t = -1 + Gbar_t + y_t sum_{0 < alpha_s < C_s} alpha_s y_s K_st`` for ``t`` in
        ``targets``, in place (``Gbar`` holds the variables at their upper bound).

        Uses the cached complete rows of the free support vectors; the entries ``K_st`` of the
        others are computed (and counted), not cached: for RBF and linear rows in compiled code
        (:mod:`svmtune.solvers.smo._refresh`), else in blocks within the memory budget."""
        if not targets.size:
            return
        sv = np.flatnonzero((alpha > 0.0) & (alpha < C)).astype(np.int64)
        ay = alpha * y
        if self.kind != _loop_rows.ROWS_GIVEN:
            self._evals += int(_refresh.refresh_from_points(
                self.rows, self.slot, self.row_epoch, self.kind, self.points, self.sq,
                self.gamma, ay, y, sv, targets, Gbar, G,
            ))  # fmt: skip
            return
        acc = np.zeros(targets.size)
        cached = self._full_mask(sv)
        if cached.any():
            sc = sv[cached]
            acc += ay[sc] @ self.rows[np.ix_(self.slot[sc], targets)]
        rest = sv[~cached]
        block = block_rows(targets.size, self.block_budget, arrays=self.kernel.block_arrays() + 1)
        for start in range(0, rest.size, block):
            chunk = rest[start : start + block]
            acc += ay[chunk] @ self._compute(chunk, targets)
        G[targets] = -1.0 + Gbar[targets] + y[targets] * acc


RowStore = FullGram | KernelRows
