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
# took 5.6x the time of a plain pass at n = 2,000 (benchmarks/smo.py --part passes).
#
# Each pass runs four lanes: position t goes to lane t % 4, each lane keeps its own best and the
# first position it was found at, and the lanes are merged at the end (the best value, the
# smallest position among the lanes that hold it): the same value and position as one scan
# with a strict comparison, bit for bit. One scan is a single chain of dependent
# compare-and-select steps (LLVM turns the branch on a new best into selects); four
# independent chains overlap. numba does not vectorize a floating-point max or min reduction
# (no fast-math function attributes reach LLVM's loop vectorizer), so the lanes are written
# out; eight gained nothing over four. `python benchmarks/smo_passes.py` times the passes
# against one scan, `python benchmarks/smo_revs.py` whole fits (docs/smo.md, "Four lanes").

LANES = 4
"""Independent chains of comparisons in each pass (see above)."""


@njit(cache=True, nogil=True)
def _up_v(st, y, G, t):  # pragma: no cover - compiled
    """``v = -y_t G_t`` for a variable in ``I_up``, else ``-inf``."""
    v = -(y[t] * G[t])
    if not st[t] & UP:
        v = -np.inf
    return v


@njit(cache=True, nogil=True)
def _low_v(st, y, G, t):  # pragma: no cover - compiled
    """``v = -y_t G_t`` for a variable in ``I_low``, else ``+inf``."""
    v = -(y[t] * G[t])
    if not st[t] & LOW:
        v = np.inf
    return v


@njit(cache=True, nogil=True)
def _keep_max(v, t, m, p):  # pragma: no cover - compiled
    """A lane's best after position ``t`` with value ``v``: a strictly greater one wins."""
    if v > m:
        return v, t
    return m, p


@njit(cache=True, nogil=True)
def _keep_min(v, t, m, p):  # pragma: no cover - compiled
    """:func:`_keep_max` for a minimum."""
    if v < m:
        return v, t
    return m, p


@njit(cache=True, nogil=True)
def _merge_max(m0, p0, m1, p1, m2, p2, m3, p3):  # pragma: no cover - compiled
    """The four lanes' best: the greatest value, at the smallest position holding it (``-1``
    when no lane found one)."""
    m, p = m0, p0
    for mk, pk in ((m1, p1), (m2, p2), (m3, p3)):
        if pk >= 0 and (mk > m or (mk == m and (p < 0 or pk < p))):
            m, p = mk, pk
    return m, p


@njit(cache=True, nogil=True)
def _merge_min(m0, p0, m1, p1, m2, p2, m3, p3):  # pragma: no cover - compiled
    """:func:`_merge_max` for a minimum."""
    m, p = m0, p0
    for mk, pk in ((m1, p1), (m2, p2), (m3, p3)):
        if pk >= 0 and (mk < m or (mk == m and (p < 0 or pk < p))):
            m, p = mk, pk
    return m, p


@njit(cache=True, nogil=True)
def _pair_gain(v, gmax, quad):  # pragma: no cover - compiled
    """LIBSVM's second-order gain ``-b^2 / a`` of the pair (i, t) for a variable with ``v``
    (``+inf`` outside ``I_low``) and ``quad = K_ii + K_tt - 2 K_it``; ``+inf`` unless
    ``b = gmax - v > 0``. The division runs for every variable and its result is always
    read: under the branch on ``b > 0`` (which follows the labels, in no order) LLVM would
    put it, and the branch mispredicts on about every other variable."""
    b = gmax - v  # -inf outside I_low
    a = quad if quad > 0.0 else TAU
    nb = b * b if b > 0.0 else -np.inf
    return -nb / a


@njit(cache=True, nogil=True)
def _select_i_st(st, y, G, size):  # pragma: no cover - compiled
    """``i``: ``(max_{I_up} v, its first position)`` over positions ``0..size-1`` on the
    statuses (a variable in neither set, as the exact-LOO retrain's left-out point, is never
    chosen); ``(-inf, -1)`` when ``I_up`` is empty."""
    m0 = m1 = m2 = m3 = -np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        m0, p0 = _keep_max(_up_v(st, y, G, t), t, m0, p0)
        m1, p1 = _keep_max(_up_v(st, y, G, t + 1), t + 1, m1, p1)
        m2, p2 = _keep_max(_up_v(st, y, G, t + 2), t + 2, m2, p2)
        m3, p3 = _keep_max(_up_v(st, y, G, t + 3), t + 3, m3, p3)
        t += LANES
    while t < size:
        m0, p0 = _keep_max(_up_v(st, y, G, t), t, m0, p0)
        t += 1
    gmax, p = _merge_max(m0, p0, m1, p1, m2, p2, m3, p3)
    return (gmax if p >= 0 else -np.inf), p


@njit(cache=True, nogil=True)
def _select_j_first(st, y, G, size):  # pragma: no cover - compiled
    """The first-order ``j``: the least ``v`` over ``I_low`` and its first position."""
    m0 = m1 = m2 = m3 = np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        m0, p0 = _keep_min(_low_v(st, y, G, t), t, m0, p0)
        m1, p1 = _keep_min(_low_v(st, y, G, t + 1), t + 1, m1, p1)
        m2, p2 = _keep_min(_low_v(st, y, G, t + 2), t + 2, m2, p2)
        m3, p3 = _keep_min(_low_v(st, y, G, t + 3), t + 3, m3, p3)
        t += LANES
    while t < size:
        m0, p0 = _keep_min(_low_v(st, y, G, t), t, m0, p0)
        t += 1
    gmin, p = _merge_min(m0, p0, m1, p1, m2, p2, m3, p3)
    return (gmin if p >= 0 else np.inf), p


@njit(cache=True, nogil=True)
def _select_j_st(
    st, y, G, diag, size, gmax, second_order, Ki, kii, order, whole
):  # pragma: no cover - compiled
    """``j``: ``(min_{I_low} v, position of j)`` on the statuses (LIBSVM's layout: one int8 a
    variable instead of ``C`` and ``alpha``). With ``second_order``, among the ``t`` with
    ``v_t < gmax``, the one of the largest gain ``b^2 / a`` (``b = gmax - v_t``,
    ``a = K_ii + K_tt - 2 K_it``, ``TAU`` when not positive; ``kii = K_ii``), the first on ties;
    else the least ``v`` (the maximal violating pair). Row ``i`` is read at position ``t``
    when ``whole`` (all variables active, or the row copied by position), else at column
    ``order[t]``."""
    if not second_order:
        return _select_j_first(st, y, G, size)
    g0 = g1 = g2 = g3 = np.inf
    b0 = b1 = b2 = b3 = np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        v0, v1 = _low_v(st, y, G, t), _low_v(st, y, G, t + 1)
        v2, v3 = _low_v(st, y, G, t + 2), _low_v(st, y, G, t + 3)
        g0, g1, g2, g3 = min(g0, v0), min(g1, v1), min(g2, v2), min(g3, v3)
        k0, k1 = Ki[t if whole else order[t]], Ki[t + 1 if whole else order[t + 1]]
        k2, k3 = Ki[t + 2 if whole else order[t + 2]], Ki[t + 3 if whole else order[t + 3]]
        o0 = _pair_gain(v0, gmax, kii + diag[t] - 2.0 * k0)
        o1 = _pair_gain(v1, gmax, kii + diag[t + 1] - 2.0 * k1)
        o2 = _pair_gain(v2, gmax, kii + diag[t + 2] - 2.0 * k2)
        o3 = _pair_gain(v3, gmax, kii + diag[t + 3] - 2.0 * k3)
        b0, p0 = _keep_min(o0, t, b0, p0)
        b1, p1 = _keep_min(o1, t + 1, b1, p1)
        b2, p2 = _keep_min(o2, t + 2, b2, p2)
        b3, p3 = _keep_min(o3, t + 3, b3, p3)
        t += LANES
    while t < size:
        v0 = _low_v(st, y, G, t)
        g0 = min(g0, v0)
        k0 = Ki[t if whole else order[t]]
        b0, p0 = _keep_min(_pair_gain(v0, gmax, kii + diag[t] - 2.0 * k0), t, b0, p0)
        t += 1
    return min(min(g0, g1), min(g2, g3)), _merge_min(b0, p0, b1, p1, b2, p2, b3, p3)[1]


@njit(cache=True, nogil=True)
def _select_j_unit(st, y, G, size, gmax, Ki, kd, order, whole):  # pragma: no cover - compiled
    """:func:`_select_j_st`'s second-order rule when every ``K_tt`` is 1 (RBF): the diagonal is
    not read, ``kd = K_ii + 1`` (the same sums: ``K_ii + K_tt`` is ``kd``)."""
    g0 = g1 = g2 = g3 = np.inf
    b0 = b1 = b2 = b3 = np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        v0, v1 = _low_v(st, y, G, t), _low_v(st, y, G, t + 1)
        v2, v3 = _low_v(st, y, G, t + 2), _low_v(st, y, G, t + 3)
        g0, g1, g2, g3 = min(g0, v0), min(g1, v1), min(g2, v2), min(g3, v3)
        k0, k1 = Ki[t if whole else order[t]], Ki[t + 1 if whole else order[t + 1]]
        k2, k3 = Ki[t + 2 if whole else order[t + 2]], Ki[t + 3 if whole else order[t + 3]]
        o0 = _pair_gain(v0, gmax, kd - 2.0 * k0)
        o1 = _pair_gain(v1, gmax, kd - 2.0 * k1)
        o2 = _pair_gain(v2, gmax, kd - 2.0 * k2)
        o3 = _pair_gain(v3, gmax, kd - 2.0 * k3)
        b0, p0 = _keep_min(o0, t, b0, p0)
        b1, p1 = _keep_min(o1, t + 1, b1, p1)
        b2, p2 = _keep_min(o2, t + 2, b2, p2)
        b3, p3 = _keep_min(o3, t + 3, b3, p3)
        t += LANES
    while t < size:
        v0 = _low_v(st, y, G, t)
        g0 = min(g0, v0)
        b0, p0 = _keep_min(_pair_gain(v0, gmax, kd - 2.0 * Ki[t if whole else order[t]]), t, b0, p0)
        t += 1
    return min(min(g0, g1), min(g2, g3)), _merge_min(b0, p0, b1, p1, b2, p2, b3, p3)[1]


# The _rows variants repeat the 1-D passes' bodies on purpose. One body for both, the 1-D form
# reading its row as a one-row matrix (a reshaped view), made the copies path slower: banana at
# 5,000 points and C = 1e3 1.23x the CPU an iteration, page-blocks0 1.05x (interleaved A/B,
# identical iterates).


@njit(cache=True, nogil=True)
def _select_j_unit_rows(st, y, G, size, gmax, rows, ri, kd, order, whole):  # pragma: no cover
    """:func:`_select_j_unit` reading row ``ri`` of the row store in place (no view)."""
    g0 = g1 = g2 = g3 = np.inf
    b0 = b1 = b2 = b3 = np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        v0, v1 = _low_v(st, y, G, t), _low_v(st, y, G, t + 1)
        v2, v3 = _low_v(st, y, G, t + 2), _low_v(st, y, G, t + 3)
        g0, g1, g2, g3 = min(g0, v0), min(g1, v1), min(g2, v2), min(g3, v3)
        k0, k1 = rows[ri, t if whole else order[t]], rows[ri, t + 1 if whole else order[t + 1]]
        k2 = rows[ri, t + 2 if whole else order[t + 2]]
        k3 = rows[ri, t + 3 if whole else order[t + 3]]
        o0 = _pair_gain(v0, gmax, kd - 2.0 * k0)
        o1 = _pair_gain(v1, gmax, kd - 2.0 * k1)
        o2 = _pair_gain(v2, gmax, kd - 2.0 * k2)
        o3 = _pair_gain(v3, gmax, kd - 2.0 * k3)
        b0, p0 = _keep_min(o0, t, b0, p0)
        b1, p1 = _keep_min(o1, t + 1, b1, p1)
        b2, p2 = _keep_min(o2, t + 2, b2, p2)
        b3, p3 = _keep_min(o3, t + 3, b3, p3)
        t += LANES
    while t < size:
        v0 = _low_v(st, y, G, t)
        g0 = min(g0, v0)
        b0, p0 = _keep_min(
            _pair_gain(v0, gmax, kd - 2.0 * rows[ri, t if whole else order[t]]), t, b0, p0
        )
        t += 1
    return min(min(g0, g1), min(g2, g3)), _merge_min(b0, p0, b1, p1, b2, p2, b3, p3)[1]


@njit(cache=True, nogil=True)
def _add_up_v(G, st, y, ki, kj, ci, cj, t):  # pragma: no cover - compiled
    """``G_t += y_t (ci K_it + cj K_jt)``; then :func:`_up_v` of ``t``."""
    G[t] += y[t] * (ci * ki + cj * kj)
    return _up_v(st, y, G, t)


@njit(cache=True, nogil=True)
def _add_pair_select_i_rows(G, st, y, rows, ri, rj, ci, cj, size, order, whole):  # pragma: no cover
    """:func:`_add_pair_select_i` reading rows ``ri`` and ``rj`` of the row store in place."""
    m0 = m1 = m2 = m3 = -np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        c0, c1 = (t, t + 1) if whole else (order[t], order[t + 1])
        c2, c3 = (t + 2, t + 3) if whole else (order[t + 2], order[t + 3])
        v0 = _add_up_v(G, st, y, rows[ri, c0], rows[rj, c0], ci, cj, t)
        v1 = _add_up_v(G, st, y, rows[ri, c1], rows[rj, c1], ci, cj, t + 1)
        v2 = _add_up_v(G, st, y, rows[ri, c2], rows[rj, c2], ci, cj, t + 2)
        v3 = _add_up_v(G, st, y, rows[ri, c3], rows[rj, c3], ci, cj, t + 3)
        m0, p0 = _keep_max(v0, t, m0, p0)
        m1, p1 = _keep_max(v1, t + 1, m1, p1)
        m2, p2 = _keep_max(v2, t + 2, m2, p2)
        m3, p3 = _keep_max(v3, t + 3, m3, p3)
        t += LANES
    while t < size:
        c = t if whole else order[t]
        v0 = _add_up_v(G, st, y, rows[ri, c], rows[rj, c], ci, cj, t)
        m0, p0 = _keep_max(v0, t, m0, p0)
        t += 1
    gmax, p = _merge_max(m0, p0, m1, p1, m2, p2, m3, p3)
    return (gmax if p >= 0 else -np.inf), p


@njit(cache=True, nogil=True)
def _add_pair_select_i(G, st, y, Ki, Kj, ci, cj, size, order, whole):  # pragma: no cover
    """``_pair_step.add_pair`` fused with the next iteration's :func:`_select_i_st` (one pass
    instead of two; ``st`` already holds the pair's new statuses; rows read as in
    :func:`_select_j_st`): returns ``_select_i_st``'s ``(gmax, position)`` on the updated
    gradient, the same values and ties (``y = +-1``: ``G + y u`` is ``G + u`` or ``G - u``
    exactly)."""
    m0 = m1 = m2 = m3 = -np.inf
    p0 = p1 = p2 = p3 = -1
    t = 0
    while t + LANES <= size:
        c0, c1 = (t, t + 1) if whole else (order[t], order[t + 1])
        c2, c3 = (t + 2, t + 3) if whole else (order[t + 2], order[t + 3])
        v0 = _add_up_v(G, st, y, Ki[c0], Kj[c0], ci, cj, t)
        v1 = _add_up_v(G, st, y, Ki[c1], Kj[c1], ci, cj, t + 1)
        v2 = _add_up_v(G, st, y, Ki[c2], Kj[c2], ci, cj, t + 2)
        v3 = _add_up_v(G, st, y, Ki[c3], Kj[c3], ci, cj, t + 3)
        m0, p0 = _keep_max(v0, t, m0, p0)
        m1, p1 = _keep_max(v1, t + 1, m1, p1)
        m2, p2 = _keep_max(v2, t + 2, m2, p2)
        m3, p3 = _keep_max(v3, t + 3, m3, p3)
        t += LANES
    while t < size:
        c = t if whole else order[t]
        v0 = _add_up_v(G, st, y, Ki[c], Kj[c], ci, cj, t)
        m0, p0 = _keep_max(v0, t, m0, p0)
        t += 1
    gmax, p = _merge_max(m0, p0, m1, p1, m2, p2, m3, p3)
    return (gmax if p >= 0 else -np.inf), p
