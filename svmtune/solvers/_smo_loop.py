"""The compiled inner loop of SMO: working-set selection and the two-variable update.

Everything here is numba-compiled with explicit signatures (float64 / int64 arrays only, one
specialisation per function) and ``cache=True``, so the compile cost is paid once per machine.
The Python driver (:mod:`svmtune.solvers.smo`) owns memory, the kernel-row cache, warnings and
the result; this module only moves ``alpha`` and the gradient ``G``.

Problem (Palagi's slides, LIBSVM's notation)::

    min_a  f(a) = 1/2 a'Qa - e'a   s.t.  y'a = 0,  0 <= a_t <= C_t,   Q_ts = y_t y_s K_ts

with gradient ``G = Qa - e``. With ``v_t = -y_t G_t``,

    I_up  = {t : a_t < C_t, y_t = +1} u {t : a_t > 0, y_t = -1}
    I_low = {t : a_t < C_t, y_t = -1} u {t : a_t > 0, y_t = +1}

and ``a`` is optimal iff ``max_{I_up} v <= min_{I_low} v`` (the KKT conditions, eq. (4) of the
slides). The loop stops when the gap ``max_{I_up} v - min_{I_low} v`` falls below ``tol``.

Kernel rows come from a row store: ``rows[slot[t]]`` is row ``t`` of ``K`` when ``slot[t] >= 0``.
With the full Gram matrix ``rows`` is ``K`` itself and ``slot`` is the identity. Otherwise the
loop returns :data:`NEED_ROW` with the missing row's index; the driver computes the row, stores
it, and calls the loop again, which redoes the (unchanged) selection and goes on.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

__all__ = ["CONVERGED", "MAX_STEPS", "NEED_ROW", "TAU", "check_gram", "smo_loop", "violation_gap"]

CONVERGED = 0
"""Status: the KKT gap is below ``tol``."""
MAX_STEPS = 1
"""Status: ``max_steps`` iterations were made without reaching the gap."""
NEED_ROW = 2
"""Status: the loop needs kernel row ``need`` that is not in the row store."""

TAU = 1e-12
"""Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's tau)."""

_f8_2d = types.float64[:, ::1]
_f8_1d = types.float64[::1]
_i8_1d = types.int64[::1]

_loop_sig = types.Tuple((types.int64, types.int64, types.int64, types.float64))(
    _f8_2d,  # rows
    _i8_1d,  # slot
    _i8_1d,  # stamp (last use of each row-store slot, for the driver's LRU)
    _i8_1d,  # clock (one entry: the use counter)
    _f8_1d,  # y
    _f8_1d,  # C (per-variable upper bound)
    _f8_1d,  # alpha (updated in place)
    _f8_1d,  # G (updated in place, all n entries)
    _i8_1d,  # active (the variables being optimised; the others stay at 0)
    _f8_1d,  # diag (K_tt)
    types.float64,  # tol
    types.boolean,  # second_order
    types.int64,  # max_steps
)


@njit(types.float64(_f8_1d, _f8_1d, _f8_1d, _f8_1d, _i8_1d), cache=True, nogil=True)
def violation_gap(y, C, alpha, G, active):  # pragma: no cover - compiled
    """``max_{I_up} -y G - min_{I_low} -y G`` over ``active`` (``-inf`` if a side is empty)."""
    gmax = -np.inf
    gmin = np.inf
    for idx in range(active.shape[0]):
        t = active[idx]
        v = -y[t] * G[t]
        if y[t] > 0.0:
            if alpha[t] < C[t]:
                gmax = max(gmax, v)
            if alpha[t] > 0.0:
                gmin = min(gmin, v)
        else:
            if alpha[t] > 0.0:
                gmax = max(gmax, v)
            if alpha[t] < C[t]:
                gmin = min(gmin, v)
    if gmax == -np.inf or gmin == np.inf:
        return -np.inf
    return gmax - gmin


@njit(_loop_sig, cache=True, nogil=True)
def smo_loop(
    rows, slot, stamp, clock, y, C, alpha, G, active, diag, tol, second_order, max_steps
):  # pragma: no cover - compiled
    """Run at most ``max_steps`` SMO iterations in place.

    Returns ``(status, steps, need, gap)``: the status (:data:`CONVERGED`, :data:`MAX_STEPS`,
    :data:`NEED_ROW`), the number of completed iterations, the index of the missing kernel row
    (``-1`` unless ``status == NEED_ROW``) and the last KKT gap computed.
    """
    n = G.shape[0]
    m = active.shape[0]
    steps = 0
    gap = np.inf
    while True:
        # ---- working-set selection: i maximises v = -y G over I_up --------------------------
        gmax = -np.inf
        i = -1
        for idx in range(m):
            t = active[idx]
            if y[t] > 0.0:
                if alpha[t] < C[t] and -G[t] > gmax:
                    gmax = -G[t]
                    i = t
            else:
                if alpha[t] > 0.0 and G[t] > gmax:
                    gmax = G[t]
                    i = t
        # j: over I_low, either the minimal v (maximal violating pair) or, among the t with
        # v_t < v_i, the one with the largest second-order decrease b^2 / a (Fan, Chen, Lin 2005).
        gmin = np.inf
        j = -1
        if second_order and i >= 0:
            si = slot[i]
            if si < 0:
                return NEED_ROW, steps, i, gap
            stamp[si] = clock[0]  # keep row i recent while row j may be fetched
            clock[0] += 1
            Ki = rows[si]
            kii = diag[i]
            best = np.inf
            for idx in range(m):
                t = active[idx]
                if y[t] > 0.0:
                    if not alpha[t] > 0.0:
                        continue
                else:
                    if not alpha[t] < C[t]:
                        continue
                v = -y[t] * G[t]
                if v < gmin:
                    gmin = v
                b = gmax - v
                if b > 0.0:
                    a = kii + diag[t] - 2.0 * Ki[t]
                    if a <= 0.0:
                        a = TAU
                    obj = -(b * b) / a
                    if obj < best:
                        best = obj
                        j = t
        else:
            for idx in range(m):
                t = active[idx]
                if y[t] > 0.0:
                    if not alpha[t] > 0.0:
                        continue
                else:
                    if not alpha[t] < C[t]:
                        continue
                v = -y[t] * G[t]
                if v < gmin:
                    gmin = v
                    j = t
        if i < 0 or j < 0:
            gap = -np.inf
            return CONVERGED, steps, -1, gap
        gap = gmax - gmin
        if gap < tol:
            return CONVERGED, steps, -1, gap
        if steps >= max_steps:
            return MAX_STEPS, steps, -1, gap
        si = slot[i]
        if si < 0:
            return NEED_ROW, steps, i, gap
        sj = slot[j]
        if sj < 0:
            return NEED_ROW, steps, j, gap
        c = clock[0]
        stamp[si] = c
        stamp[sj] = c + 1
        clock[0] = c + 2
        Ki = rows[si]
        Kj = rows[sj]

        # ---- analytic solution along d = y_i e_i - y_j e_j (keeps y'a fixed) -----------------
        # f(a + s d) decreases at rate b = v_i - v_j and has curvature a = K_ii + K_jj - 2 K_ij.
        a = diag[i] + diag[j] - 2.0 * Ki[j]
        if a <= 0.0:
            a = TAU
        s = (gmax + y[j] * G[j]) / a
        room_i = C[i] - alpha[i] if y[i] > 0.0 else alpha[i]
        room_j = alpha[j] if y[j] > 0.0 else C[j] - alpha[j]
        clip_i = False
        clip_j = False
        if s >= room_i:
            s = room_i
            clip_i = True
        if s >= room_j:
            s = room_j
            clip_j = True
            clip_i = s >= room_i
        old_i = alpha[i]
        old_j = alpha[j]
        if clip_i:
            alpha[i] = C[i] if y[i] > 0.0 else 0.0
        else:
            alpha[i] = old_i + y[i] * s
        if clip_j:
            alpha[j] = 0.0 if y[j] > 0.0 else C[j]
        else:
            alpha[j] = old_j - y[j] * s
        # ---- gradient update: G += Q[:, i] d_i + Q[:, j] d_j, over all n variables ----------
        ci = y[i] * (alpha[i] - old_i)
        cj = y[j] * (alpha[j] - old_j)
        for t in range(n):
            G[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
        steps += 1


@njit(
    types.Tuple((types.int64, types.int64, types.int64))(_f8_2d, types.float64),
    cache=True,
    nogil=True,
)
def check_gram(K, rtol):  # pragma: no cover - compiled
    """Scan a Gram matrix once for what makes it unusable: returns ``(code, i, j)``.

    Codes: 0 fine; 1 ``K[i, j]`` is not finite; 2 ``K[i, i] < 0``; 3 ``K[i, j] != K[j, i]``
    beyond ``rtol``; 4 ``|K[i, j]| > sqrt(K[i, i] K[j, j])`` beyond ``rtol`` (a 2x2 principal
    minor is negative, so ``K`` is not positive semidefinite).
    """
    n = K.shape[0]
    scale = 0.0
    for i in range(n):
        d = K[i, i]
        if not np.isfinite(d):
            return 1, i, i
        if d < 0.0:
            return 2, i, i
        scale = max(scale, d)
    atol = rtol * max(scale, 1e-300)
    for i in range(n):
        for j in range(n):
            v = K[i, j]
            if not np.isfinite(v):
                return 1, i, j
        dii = K[i, i]
        for j in range(i + 1, n):
            v = K[i, j]
            if abs(v - K[j, i]) > atol:
                return 3, i, j
            if v * v > dii * K[j, j] * (1.0 + rtol) + atol * atol:
                return 4, i, j
    return 0, -1, -1
