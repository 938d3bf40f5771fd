"""The working-set selection as one plain scan over the variables (LIBSVM's rules read
literally, with a left-out position ``skip``): the reference the SMO loop's four-lane passes on
int8 statuses are held to, bit for bit (``test_fused_select.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.solvers.smo._pair_step import TAU


@njit(cache=True)
def select_i(y, C, alpha, G, size, skip):  # pragma: no cover - compiled
    """``(max_{I_up} v, its first position)`` over positions ``0..size-1`` but ``skip``;
    ``(-inf, -1)`` when ``I_up`` is empty."""
    gmax = -np.inf
    p = -1
    for t in range(size):
        if t == skip:
            continue
        if y[t] > 0.0:
            if alpha[t] < C[t] and -G[t] > gmax:
                gmax = -G[t]
                p = t
        else:
            if alpha[t] > 0.0 and G[t] > gmax:
                gmax = G[t]
                p = t
    return gmax, p


@njit(cache=True)
def select_j(
    y, C, alpha, G, diag, size, skip, gmax, second_order, Ki, kii, order, whole
):  # pragma: no cover - compiled
    """``(min_{I_low} v, position of j)``: with ``second_order`` the ``t`` with ``v_t < gmax``
    of the largest ``b^2 / a`` (``b = gmax - v_t``, ``a = K_ii + K_tt - 2 K_it``, ``TAU`` when not
    positive; row ``i`` read at column ``t if whole else order[t]``), else the least ``v``."""
    gmin = np.inf
    p = -1
    best = np.inf
    for t in range(size):
        if t == skip:
            continue
        if y[t] > 0.0:
            if not alpha[t] > 0.0:
                continue
        else:
            if not alpha[t] < C[t]:
                continue
        v = -y[t] * G[t]
        if v < gmin:
            gmin = v
            if not second_order:
                p = t
        if second_order:
            b = gmax - v
            if b > 0.0:
                a = kii + diag[t] - 2.0 * Ki[t if whole else order[t]]
                if a <= 0.0:
                    a = TAU
                obj = -(b * b) / a
                if obj < best:
                    best = obj
                    p = t
    return gmin, p
