"""How a solve's memory budget is shared among SMO's kernel values, and blocks of rows read
within it.

A solve that SMO builds from a kernel holds, within ``memory_budget`` bytes
(:data:`svmtune._memory.DEFAULT_MEMORY_BUDGET` by default): the full Gram matrix while it fits
(:func:`gram_bytes`), else a cache of kernel rows (:data:`ROW_CACHE_SHARE`), the copies of rows
in the active variables' positions that the passes read (at most an eighth of the row store,
:func:`svmtune.solvers.smo._run.packed_rows_len`), and blocks of rows read at once
(:data:`BLOCK_SHARE`, :func:`blocked_products`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import NDArray

from svmtune._memory import block_rows
from svmtune.kernels import KernelModel

__all__ = ["BLOCK_SHARE", "ROW_CACHE_SHARE", "blocked_products", "gram_bytes"]

ROW_CACHE_SHARE = 0.75
"""Share of a solve's memory budget the kernel-row cache takes (:class:`KernelRows` without an
explicit ``capacity``). The rest is for what SMO holds beside it: the copies of rows in the
active variables' positions (at most an eighth of the cache's bytes,
:func:`svmtune.solvers.smo._run.packed_rows_len`; none for RBF and linear rows, which are held by
position in slots the cache lends) and the blocks of rows read at once (:data:`BLOCK_SHARE`):
``3/4 + 3/32 + 1/8 < 1``."""

BLOCK_SHARE = 0.125
"""Share of the memory budget a block of kernel rows read at once may take beside a row store
(a warm start's gradient, the gradient of shrunk variables recomputed, :meth:`KernelRows.
row_products`)."""


def gram_bytes(kernel: KernelModel, params: Mapping[str, float], n: int) -> int:
    """Bytes SMO holds for a full Gram matrix of ``n`` points it builds from ``kernel``: the
    matrix (RBF: built fused, no other ``n x n`` array), or while it is computed the kernel's
    statistics and the arrays :meth:`~svmtune.kernels.KernelModel.block_arrays` counts;
    then beside the matrix the copies of rows in the active variables' positions (an eighth
    of it) and a block of rows (:data:`BLOCK_SHARE` of the budget).

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> gram_bytes(RBF(), {"gamma": 1.0}, 100), gram_bytes(RBF(), {"gamma": 1.0}, 1000)
    (102857, 10285714)
    """
    form = kernel.inner_product_form(params)
    entries = 8 * n * n
    during = entries if form is not None and form.kind == "rbf" else kernel.block_arrays() * entries
    after = entries + entries // 8
    return int(max(during, after) / (1.0 - BLOCK_SHARE))


def blocked_products(
    read: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    idx: NDArray[np.int64],
    W: NDArray[np.float64],
    n: int,
    budget: int,
    arrays: int,
) -> NDArray[np.float64]:
    """``W' K[idx]`` from ``read(block)`` (rows ``block`` of ``K``) over blocks of ``idx`` whose
    ``arrays`` arrays of ``n`` columns fit ``budget`` bytes."""
    idx = np.asarray(idx, dtype=np.int64)
    Wc = np.asarray(W, dtype=np.float64).reshape(idx.shape[0], -1)
    out = np.zeros((Wc.shape[1], n))
    step = block_rows(n, budget, arrays=arrays)
    for start in range(0, idx.shape[0], step):
        stop = min(start + step, idx.shape[0])
        out += Wc[start:stop].T @ read(idx[start:stop])
    return out
