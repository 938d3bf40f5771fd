"""The passes of the SMO loop over the active variables: working-set selection and the
gradient update fused with the next selection, on int8 statuses (LIBSVM's layout).

They read a kernel row either as a 1-D array (a copy by position, :mod:`._packed_rows`) or in
place in the row store (``rows[ri, c]``, the ``_rows`` variants): a view of the row made each
iteration costs numba's reference counting (``benchmarks/smo_profile.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.solvers.smo._pair_step import TAU

UP = 1
"""Status bit: the variable is in ``I_up`` (``v = -y G`` may grow)."""
LOW = 2
"""Status bit: the variable is in ``I_low``."""
POS = 4
"""Status bit: ``y = +1``."""


@njit(cache=True, nogil=True)
def _status(y, a, c):  # pragma: no cover - compiled
    """The int8 status of one variable (:data:`UP`, :data:`LOW`, :data:`POS` bits)."""
    if y > 0.0:
        return np.int8(POS | (UP if a < c else 0) | (LOW if a > 0.0 else 0))
    return np.int8((UP if a > 0.0 else 0) | (LOW if a < c else 0))


@njit(cache=True, nogil=True)
def _statuses(y, C, alpha, size, st):  # pragma: no cover - compiled
    for t in range(size):
        st[t] = _status(y[t], alpha[t], C[t])


# The passes below have no branch on the label: ``v = -y G`` is ``-(y_t G_t)`` with ``y`` read as
# +-1.0 (exactly ``-G_t`` or ``G_t``), and a variable outside I_up (I_low) gets ``v = -inf``
# (``+inf``), which never wins the comparison. Branching on the label bit instead cost a
# mispredicted branch on about every other variable (labels come in no order): the fused pass
# took 5.6x the time of a plain pass at n = 2,000 (benchmarks/smo.py --part passes). The only
# branches left are taken when a new best is found.


@njit(cache=True, nogil=True)
def _select_i_st(st, y, G, size):  # pragma: no cover - compiled
    """:func:`select_i` on the statuses: the same values and ties."""
    gmax = -np.inf
    p = -1
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & UP:
            v = -np.inf
        if v > gmax:
            gmax = v
            p = t
    return gmax, p


@njit(cache=True, nogil=True)
def _select_j_st(
    st, y, G, diag, size, gmax, second_order, Ki, kii, order, whole
):  # pragma: no cover - compiled
    """:func:`select_j` on the statuses (LIBSVM's layout: one int8 a variable instead of
    ``C`` and ``alpha``): the same values and ties. Row ``i`` is read at position ``t``
    when ``whole`` (all variables active, or the row copied by position), else at column
    ``order[t]``."""
    gmin = np.inf
    p = -1
    best = np.inf
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & LOW:
            v = np.inf
        if v < gmin:
            gmin = v
            if not second_order:
                p = t
        if second_order:
            b = gmax - v  # -inf outside I_low
            if b > 0.0:
                a = kii + diag[t] - 2.0 * Ki[t if whole else order[t]]
                if a <= 0.0:
                    a = TAU
                obj = -(b * b) / a
                if obj < best:
                    best = obj
                    p = t
    return gmin, p


@njit(cache=True, nogil=True)
def _select_j_unit(st, y, G, size, gmax, Ki, kd, order, whole):  # pragma: no cover - compiled
    """:func:`_select_j_st`'s second-order rule when every ``K_tt`` is 1 (RBF): the diagonal is
    not read, ``kd = K_ii + 1`` (the same sums: ``K_ii + K_tt`` is ``kd``)."""
    gmin = np.inf
    p = -1
    best = np.inf
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & LOW:
            v = np.inf
        gmin = min(gmin, v)
        b = gmax - v  # -inf outside I_low
        if b > 0.0:
            a = kd - 2.0 * Ki[t if whole else order[t]]
            if a <= 0.0:
                a = TAU
            obj = -(b * b) / a
            if obj < best:
                best = obj
                p = t
    return gmin, p


# The _rows variants repeat the 1-D passes' bodies on purpose. One body for both, the 1-D form
# reading its row as a one-row matrix (a reshaped view), made the copies path slower: banana at
# 5,000 points and C = 1e3 1.23x the CPU an iteration, page-blocks0 1.05x (interleaved A/B,
# identical iterates).


@njit(cache=True, nogil=True)
def _select_j_unit_rows(st, y, G, size, gmax, rows, ri, kd, order, whole):  # pragma: no cover
    """:func:`_select_j_unit` reading row ``ri`` of the row store in place (no view)."""
    gmin = np.inf
    p = -1
    best = np.inf
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & LOW:
            v = np.inf
        gmin = min(gmin, v)
        b = gmax - v  # -inf outside I_low
        if b > 0.0:
            a = kd - 2.0 * rows[ri, t if whole else order[t]]
            if a <= 0.0:
                a = TAU
            obj = -(b * b) / a
            if obj < best:
                best = obj
                p = t
    return gmin, p


@njit(cache=True, nogil=True)
def _add_pair_select_i_rows(G, st, y, rows, ri, rj, ci, cj, size, order, whole):  # pragma: no cover
    """:func:`_add_pair_select_i` reading rows ``ri`` and ``rj`` of the row store in place."""
    gmax = -np.inf
    p = -1
    for t in range(size):
        c = t if whole else order[t]
        yt = y[t]
        g = G[t] + yt * (ci * rows[ri, c] + cj * rows[rj, c])
        G[t] = g
        v = -(yt * g)
        if not st[t] & UP:
            v = -np.inf
        if v > gmax:
            gmax = v
            p = t
    return gmax, p


@njit(cache=True, nogil=True)
def _add_pair_select_i(G, st, y, Ki, Kj, ci, cj, size, order, whole):  # pragma: no cover
    """:func:`add_pair` fused with the next iteration's :func:`select_i` (one pass instead of
    two; ``st`` already holds the pair's new statuses; rows read as in :func:`_select_j_st`):
    returns ``select_i``'s ``(gmax, position)`` on the updated gradient, the same values and ties
    (``y = +-1``: ``G + y u`` is ``G + u`` or ``G - u`` exactly)."""
    gmax = -np.inf
    p = -1
    for t in range(size):
        c = t if whole else order[t]
        yt = y[t]
        g = G[t] + yt * (ci * Ki[c] + cj * Kj[c])
        G[t] = g
        v = -(yt * g)
        if not st[t] & UP:
            v = -np.inf
        if v > gmax:
            gmax = v
            p = t
    return gmax, p
