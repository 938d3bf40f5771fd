"""The SMO loop's kernel-row store (numba): which rows it holds, and RBF/linear rows computed in it.

Kernel rows come from a row store: ``rows[slot[t]]`` is row ``t`` of ``K`` when ``slot[t] >= 0``
and the row is complete (``row_epoch[slot[t]] == -1``) or was computed on the active prefix in
the current epoch (``row_epoch[slot[t]] == epoch[0]``; the prefix only shrinks within an epoch).
With the full Gram matrix ``rows`` is ``K`` itself and ``slot`` is the identity. RBF and linear
rows (``kind > 0``) are computed here from inner products, into the least recently used slot;
for ``kind == 0`` the loop asks its Python driver for the row.

The store travels as one tuple, ``cache = (rows, slot, stamp, clock, row_epoch, epoch, owner,
evals)`` (``stamp``: last use of each slot; ``clock``: the use counter; ``owner``: the row each
slot holds, -1 free; ``evals``: kernel entries computed here), and the points as
``source = (kind, X, sq, gamma)`` (``sq``: squared norms of the points, for RBF rows).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.kernels.row_forms import DISTANCE_ROUNDOFF, exp_nonpositive_into

__all__ = [
    "ROWS_GIVEN",
    "ROWS_LINEAR",
    "ROWS_RBF",
    "compute_packed",
    "compute_row",
    "fetch_row",
    "gradient_from_rows",
    "has_row",
]

ROWS_GIVEN = 0
"""Row kind: rows come from the driver (the full Gram matrix, or a kernel computed in Python)."""
ROWS_RBF = 1
"""Row kind: ``exp(-gamma |x_r - x_t|^2)`` computed in the loop."""
ROWS_LINEAR = 2
"""Row kind: ``x_r . x_t`` computed in the loop."""


@njit(cache=True, nogil=True)
def has_row(slot, row_epoch, epoch, r):  # pragma: no cover - compiled
    """Whether row ``r`` is in the store and valid (complete, or partial of this epoch).

    Takes the arrays, not the ``cache`` tuple: it is called several times an iteration, and a
    tuple of eight arrays passed to a function the compiler does not inline made small solves
    1.5x slower."""
    s = slot[r]
    return s >= 0 and (row_epoch[s] < 0 or row_epoch[s] == epoch[0])


# No fastmath here: numba compiles the callee exp_nonpositive_into with the caller's flags and
# caches that version for every later caller, and reassociation undoes its Cody-Waite range
# reduction (58 ulp at x = -194 instead of 1).
@njit(cache=True, nogil=True)
def compute_row(r, cache, source, order, size, complete, cap):  # pragma: no cover - compiled
    """Put row ``r`` into the least recently used of the first ``cap`` slots (the rest may be
    lent to the rows held by position): on ``order[:size]`` when some variables are shrunk
    (valid in this epoch) and not ``complete``, else on every column."""
    rows, slot, stamp, clock, row_epoch, epoch, owner, evals = cache
    kind, X, sq, gamma = source
    m = order.shape[0]
    s = slot[r]
    if s < 0:
        if owner[cap - 1] < 0:
            # not full: slots are filled in order, so the first free one follows the used
            # prefix (bisection; any free slot would do: owner[hi] stays free)
            lo, hi = 0, cap - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if owner[mid] < 0:
                    hi = mid
                else:
                    lo = mid + 1
            s = lo
        else:  # the least recently used slot
            s = 0
            oldest = stamp[0]
            for k in range(cap):
                if stamp[k] < oldest:
                    oldest = stamp[k]
                    s = k
        if owner[s] >= 0:
            slot[owner[s]] = -1
        owner[s] = r
        slot[r] = s
    row = rows[s]
    n = row.shape[0]
    d = X.shape[1]
    xr = X[r]
    # Once variables are shrunk a row is computed on the active ones only, unless the points
    # are long (d > 64) and more than half are active: then one BLAS matrix-vector product
    # over all points is faster than the gathered loop (measured on splice, d = 240), and the
    # complete row stays valid after the reactivation.
    partial = not complete and size < m and (2 * size < n or d <= 64)
    cnt = size if partial else n
    # K is symmetric: for long points (d > 64), an entry K[r, t] whose column t has its
    # complete row in the store is copied from there (computed once, counted once), when such
    # rows are at least half of the columns. For short points the row is computed whole:
    # reading column r of the held rows (one cache miss an entry) cost more than computing
    # the entries (measured on letter, d = 16, at 2,000-10,000 points and C = 1; docs/smo.md).
    held = 0
    if d > 64:
        for k in range(owner.shape[0]):
            if owner[k] >= 0 and owner[k] != r and row_epoch[k] < 0:
                held += 1
    reuse = d > 64 and 2 * held >= cnt
    direct = not reuse and not partial  # column k is entry k
    need = order  # the columns computed, need[:m_need] (unless direct)
    m_need = cnt
    if reuse:
        need = np.empty(cnt, dtype=np.int64)
        m_need = 0
        for idx in range(cnt):
            t = order[idx] if partial else idx
            st = slot[t]
            if t != r and st >= 0 and row_epoch[st] < 0:
                row[t] = rows[st, r]
            else:
                need[m_need] = t
                m_need += 1
    if direct:
        np.dot(X, xr, row)  # BLAS gemv
    else:
        for k in range(m_need):
            t = need[k]
            xt = X[t]
            acc = 0.0
            for f in range(d):
                acc += xr[f] * xt[f]
            row[t] = acc
    if kind == ROWS_RBF:
        sr = sq[r]
        arg = np.empty(m_need)
        val = np.empty(m_need)
        bits = np.empty(m_need, dtype=np.int64)
        for k in range(m_need):
            t = k if direct else need[k]
            dist = sr + sq[t] - 2.0 * row[t]
            arg[k] = -gamma * dist if dist > DISTANCE_ROUNDOFF * (sr + sq[t]) else 0.0
        exp_nonpositive_into(arg, val, bits)  # vectorized: 2.5x faster than a libm call each
        if direct:
            for t in range(m_need):  # a loop: numba's slice assignment costs 2 s of compile time
                row[t] = val[t]
        else:
            for k in range(m_need):
                row[need[k]] = val[k]
        row[r] = 1.0  # r is active: its own entry is always computed
    row_epoch[s] = epoch[0] if partial else -1
    stamp[s] = clock[0]
    clock[0] += 1
    evals[0] += m_need


@njit(cache=True, nogil=True)
def fetch_row(r, cache, source, order, size, cap):  # pragma: no cover - compiled
    """Compute a missing row ``r`` (see :func:`compute_row`) when the loop can: False when it
    must come from the driver (``kind == ROWS_GIVEN``)."""
    if source[0] == ROWS_GIVEN:
        return False
    # typed, not a literal False: that would compile compute_row a second time
    compute_row(r, cache, source, order, size, np.bool_(False), cap)
    return True


@njit(cache=True, nogil=True)
def compute_packed(r, out, base, source, order, size, evals):  # pragma: no cover - compiled
    """Row ``r`` on the active variables by position, ``K[r, order[p]]`` at ``out[base + p]``:
    the entries :func:`compute_row` computes for a partial row (points of at most 64
    features), with the same arithmetic."""
    kind, X, sq, gamma = source
    d = X.shape[1]
    xr = X[r]
    own = -1
    for p in range(size):
        t = order[p]
        if t == r:
            own = p
        xt = X[t]
        acc = 0.0
        for f in range(d):
            acc += xr[f] * xt[f]
        out[base + p] = acc
    if kind == ROWS_RBF:
        sr = sq[r]
        arg = np.empty(size)
        val = np.empty(size)
        bits = np.empty(size, dtype=np.int64)
        for p in range(size):
            t = order[p]
            dist = sr + sq[t] - 2.0 * out[base + p]
            arg[p] = -gamma * dist if dist > DISTANCE_ROUNDOFF * (sr + sq[t]) else 0.0
        exp_nonpositive_into(arg, val, bits)
        for p in range(size):
            out[base + p] = val[p]
        if own >= 0:
            out[base + own] = 1.0
    evals[0] += size


@njit(cache=True, nogil=True)
def gradient_from_rows(rows, slot, ay, y, sv, targets, Gbar, G):  # pragma: no cover - compiled
    """``G_t = -1 + Gbar_t + y_t sum_s ay_s K_st`` for ``t`` in ``targets``, from the complete
    rows ``rows[slot[s]]`` of the free support vectors ``sv`` (``ay = alpha * y``)."""
    nt = targets.shape[0]
    acc = np.zeros(nt)
    for s in sv:
        row = rows[slot[s]]
        w = ay[s]
        for k in range(nt):
            acc[k] += w * row[targets[k]]
    for k in range(nt):
        t = targets[k]
        G[t] = -1.0 + Gbar[t] + y[t] * acc[k]
