"""The SMO loop's shrinking (numba): its state, LIBSVM's shrinking test, the packed prefix.

Shrinking (LIBSVM; Fan, Chen, Lin 2005; Chang and Lin's LIBSVM paper, Section 5.1): every
``min(m, 1000)`` iterations, variables at a bound that cannot join a violating pair
(:func:`be_shrunk`) are swapped behind the active prefix ``order[:size]`` and neither selected
nor updated. The loop's progress lives in a small int64 array (``state``, entries below) so a
call that returns to its driver resumes the same iteration when called again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "COUNTER",
    "LENT",
    "N_STATE",
    "PHASE",
    "RECHECK",
    "SIZE",
    "SWEPT",
    "UNSHRUNK",
    "be_shrunk",
    "extremes",
    "new_state",
    "pack",
    "shrink",
    "unpack",
]

SIZE = 0
"""``state[SIZE]``: the active prefix ``order[:size]``; ``order[size:]`` is shrunk."""
COUNTER = 1
"""``state[COUNTER]``: iterations left until the next shrinking pass."""
UNSHRUNK = 2
"""``state[UNSHRUNK]``: 1 once the gap came within ``10 tol`` and everything was reactivated."""
PHASE = 3
"""``state[PHASE]``: 0 a new iteration starts, 1 a shrinking pass is due, 2 selecting a pair."""
RECHECK = 4
"""``state[RECHECK]``: 1 right after the final unshrunk check (shrink again next iteration)."""
SWEPT = 5
"""``state[SWEPT]``: variables the iterations passed over (the active prefix's size, summed
over iterations): the work of the passes, a count."""
LENT = 6
"""``state[LENT]``: the most slots of the row store lent at once to the rows held in the active
variables' positions (:mod:`svmtune.solvers.smo._packed_rows`), 0 if never: a count."""
N_STATE = 7


def new_state(m: int) -> np.ndarray:
    """A fresh loop state for ``m`` variables (nothing shrunk yet)."""
    state = np.zeros(N_STATE, dtype=np.int64)
    state[SIZE] = m
    state[COUNTER] = min(m, 1000)
    return state


@njit(cache=True, nogil=True)
def extremes(y, C, alpha, G, order, size):  # pragma: no cover - compiled
    """``(max_{I_up} v, min_{I_low} v)`` over ``order[:size]``, ``v = -y G``."""
    gmax = -np.inf
    gmin = np.inf
    for idx in range(size):
        t = order[idx]
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
    return gmax, gmin


@njit(cache=True, nogil=True)
def be_shrunk(t, y, C, alpha, G, gmax, gmin):  # pragma: no cover - compiled
    """LIBSVM's test: a variable at a bound whose ``v`` lies beyond every violating partner.

    At ``alpha_t = C_t`` with ``y_t = +1`` or ``alpha_t = 0`` with ``y_t = -1`` the variable is
    only in ``I_low``, and once ``v_t > max_{I_up} v`` it cannot be the second index of a
    violating pair; symmetrically for the variables only in ``I_up`` with ``v_t < min_{I_low}``.
    Free variables are never shrunk."""
    v = -y[t] * G[t]
    if alpha[t] >= C[t]:
        if y[t] > 0.0:
            return v > gmax
        return v < gmin
    if alpha[t] <= 0.0:
        if y[t] > 0.0:
            return v < gmin
        return v > gmax
    return False


@njit(cache=True, nogil=True)
def shrink(y, C, alpha, G, order, size, least):  # pragma: no cover - compiled
    """One shrinking pass over ``order[:size]``: the variables :func:`be_shrunk` says are moved
    behind the prefix, the rest sorted; returns the new ``size``. Nothing moves when fewer
    than ``least`` variables would be shrunk (they are shrunk in a later pass, with others)."""
    gmax, gmin = extremes(y, C, alpha, G, order, size)
    if least > 0:
        count = 0
        for idx in range(size):
            if be_shrunk(order[idx], y, C, alpha, G, gmax, gmin):
                count += 1
        if count < least:
            return size
    idx = 0
    while idx < size:
        if be_shrunk(order[idx], y, C, alpha, G, gmax, gmin):
            size -= 1
            while size > idx:
                if not be_shrunk(order[size], y, C, alpha, G, gmax, gmin):
                    tmp = order[idx]
                    order[idx] = order[size]
                    order[size] = tmp
                    break
                size -= 1
        idx += 1
    if size < order.shape[0]:
        # increasing indices: the passes then read G, alpha and the kernel rows in address
        # order (prefetched), not scattered by the swaps above. The indices are distinct and
        # below n: marked and read back in O(n) (numba's np.sort costs 4 s of compile time)
        mark = np.zeros(G.shape[0], dtype=np.bool_)
        for idx in range(size):
            mark[order[idx]] = True
        k = 0
        for t in range(G.shape[0]):
            if mark[t]:
                order[k] = t
                k += 1
    return size


@njit(cache=True, nogil=True)
def pack(y, C, alpha, G, diag, order, size, yP, CP, aP, GP, dP):  # pragma: no cover
    """Copy the active prefix ``order[:size]`` into contiguous arrays (LIBSVM keeps its active
    variables at the front; here the copies are made once per shrinking period)."""
    for idx in range(size):
        t = order[idx]
        yP[idx] = y[t]
        CP[idx] = C[t]
        aP[idx] = alpha[t]
        GP[idx] = G[t]
        dP[idx] = diag[t]


@njit(cache=True, nogil=True)
def unpack(G, GP, order, size):  # pragma: no cover - compiled
    """Write the packed gradient back (``alpha`` is kept in both places as it moves)."""
    for idx in range(size):
        G[order[idx]] = GP[idx]
