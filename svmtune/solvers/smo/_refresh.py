"""The gradient of points SMO's loop did not update, recomputed from ``alpha`` (numba).

``G_t = -1 + Gbar_t + y_t sum_s ay_s K_st`` over the free support vectors ``s``
(``ay = alpha * y``; ``Gbar`` holds those at their upper bound), for ``t`` in ``targets``: from
the complete row of ``s`` where the row store holds it, else from the points (RBF or linear
rows, :mod:`svmtune.solvers.smo._loop_rows`'s ``kind``), the entries computed and counted but not
cached. Kernels of that form are positive semidefinite and finite by construction: nothing is
checked (the Python path checked every block of entries, with temporaries the size of the
block).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.kernels.row_forms import DISTANCE_ROUNDOFF, exp_nonpositive_into
from svmtune.solvers.smo._loop_rows import ROWS_RBF

__all__ = ["refresh_from_points"]


@njit(cache=True, nogil=True)
def refresh_from_points(
    rows, slot, row_epoch, kind, X, sq, gamma, ay, y, sv, targets, Gbar, G
):  # pragma: no cover - compiled
    """Set ``G[targets]`` (see the module); returns the kernel entries computed."""
    nt = targets.shape[0]
    d = X.shape[1]
    acc = np.zeros(nt)
    Xt = np.empty((nt, d))  # the targets' points, contiguous
    sqt = np.empty(nt)
    for k in range(nt):
        t = targets[k]
        sqt[k] = sq[t]
        for f in range(d):
            Xt[k, f] = X[t, f]
    arg = np.empty(nt)
    val = np.empty(nt)
    bits = np.empty(nt, dtype=np.int64)
    computed = 0
    for s in sv:
        w = ay[s]
        st = slot[s]
        if st >= 0 and row_epoch[st] < 0:  # its complete row is cached
            row = rows[st]
            for k in range(nt):
                acc[k] += w * row[targets[k]]
            continue
        xs = X[s]
        for k in range(nt):
            dot = 0.0
            for f in range(d):
                dot += xs[f] * Xt[k, f]
            arg[k] = dot
        computed += nt
        if kind == ROWS_RBF:
            ss = sq[s]
            for k in range(nt):
                dist = ss + sqt[k] - 2.0 * arg[k]
                arg[k] = -gamma * dist if dist > DISTANCE_ROUNDOFF * (ss + sqt[k]) else 0.0
            exp_nonpositive_into(arg, val, bits)
            for k in range(nt):
                acc[k] += w * val[k]
        else:
            for k in range(nt):
                acc[k] += w * arg[k]
    for k in range(nt):
        t = targets[k]
        G[t] = -1.0 + Gbar[t] + y[t] * acc[k]
    return computed
