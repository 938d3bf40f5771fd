"""The compiled inner loop of SMO: working-set selection and the two-variable update.

The entry points are numba-compiled with explicit signatures (float64 / int64 arrays only, one
specialisation per function; the helpers compile into them) and ``cache=True``, so the
compile cost is paid once per machine. The Python driver (:mod:`svmtune.solvers.smo`) owns
memory, the kernel-row cache, warnings and the result; this module moves ``alpha``, the
gradient ``G`` and ``Gbar``, shrinks, and computes RBF and linear kernel rows.

Problem (Palagi's slides, LIBSVM's notation)::

    min_a  f(a) = 1/2 a'Qa - e'a   s.t.  y'a = 0,  0 <= a_t <= C_t,   Q_ts = y_t y_s K_ts

with gradient ``G = Qa - e``. With ``v_t = -y_t G_t``,

    I_up  = {t : a_t < C_t, y_t = +1} u {t : a_t > 0, y_t = -1}
    I_low = {t : a_t < C_t, y_t = -1} u {t : a_t > 0, y_t = +1}

and ``a`` is optimal iff ``max_{I_up} v <= min_{I_low} v`` (the KKT conditions, eq. (4) of the
slides). The loop stops when the gap ``max_{I_up} v - min_{I_low} v`` falls below ``tol``.

Kernel rows come from a row store: ``rows[slot[t]]`` is row ``t`` of ``K`` when ``slot[t] >= 0``
and the row is complete (``row_epoch[slot[t]] == -1``) or was computed on the active prefix in
the current epoch (``row_epoch[slot[t]] == epoch[0]``; the prefix only shrinks within an epoch).
With the full Gram matrix ``rows`` is ``K`` itself and ``slot`` is the identity. RBF and linear
rows (``kind > 0``) are computed here, into the least recently used slot. Otherwise the loop
returns :data:`NEED_ROW` (or :data:`NEED_COMPLETE_ROW`) with the missing row's index; the
driver computes the row, stores it, and calls the loop again, which redoes the (unchanged)
selection and goes on.

Only the active prefix ``order[:size]`` of the gradient is kept up to date; the driver recomputes
the rest from ``alpha`` (:func:`gradient_from_rows`) when the loop asks (:data:`RECONSTRUCT`) and
when a caller reads the gradient.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from svmtune.kernels._distances import DISTANCE_ROUNDOFF
from svmtune.kernels._rbf_sums import _exp_nonpositive

__all__ = [
    "CONVERGED",
    "MAX_STEPS",
    "NEED_COMPLETE_ROW",
    "NEED_ROW",
    "RECONSTRUCT",
    "TAU",
    "check_gram",
    "gradient_from_rows",
    "new_state",
    "smo_loop",
]

CONVERGED = 0
"""Status: the KKT gap is below ``tol``."""
MAX_STEPS = 1
"""Status: ``max_steps`` iterations were made without reaching the gap."""
NEED_ROW = 2
"""Status: the loop needs kernel row ``need`` that is not in the row store."""

TAU = 1e-12
#: Relative distance to a bound within which an SMO step is clipped onto it (round-off).
SNAP = 1e-14
"""Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's tau)."""

_f8_2d = types.float64[:, ::1]
_f8_1d = types.float64[::1]
_i8_1d = types.int64[::1]

_loop_sig = types.Tuple((types.int64, types.int64, types.int64, types.float64))(
    _f8_2d,  # rows
    _i8_1d,  # slot
    _i8_1d,  # stamp (last use of each row-store slot, for the driver's LRU)
    _i8_1d,  # clock (one entry: the use counter)
    _i8_1d,  # row_epoch (per slot: -1 a complete row, else the epoch of a partial row)
    _i8_1d,  # epoch (one entry: partial rows of this epoch are valid on the active prefix)
    _f8_1d,  # y
    _f8_1d,  # C (per-variable upper bound)
    _f8_1d,  # alpha (updated in place)
    _f8_1d,  # G (updated in place on the active prefix order[:size])
    _f8_1d,  # Gbar (sum over alpha_s = C_s of C_s Q_ts, all n entries; LIBSVM's G_bar)
    _i8_1d,  # order (the variables being optimised, the active ones first)
    _i8_1d,  # state (size, counter, unshrunk, phase, recheck)
    _f8_1d,  # diag (K_tt)
    types.int64,  # kind (0 rows come from the driver, ROWS_RBF / ROWS_LINEAR computed here)
    _f8_2d,  # points (for kind > 0)
    _f8_1d,  # sq (squared norms of the points, for ROWS_RBF)
    types.float64,  # gamma (for ROWS_RBF)
    _i8_1d,  # owner (the row held by each slot, -1 free; for kind > 0)
    _i8_1d,  # evals (one entry: kernel entries computed here; for kind > 0)
    types.float64,  # tol
    types.boolean,  # second_order
    types.boolean,  # shrinking
    types.int64,  # max_steps
)

ROWS_RBF = 1
"""Row kind: ``exp(-gamma |x_r - x_t|^2)`` computed in the loop."""
ROWS_LINEAR = 2
"""Row kind: ``x_r . x_t`` computed in the loop."""

# state entries
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
N_STATE = 5

NEED_COMPLETE_ROW = 4
"""Status: like :data:`NEED_ROW`, but the row must be complete (all ``n`` entries): variable
``need`` reaches or leaves its upper bound, and ``Gbar`` is kept for every point."""

RECONSTRUCT = 3
"""Status: the gradient of the shrunk variables ``order[size:]`` must be recomputed from
``alpha``, then ``state[SIZE] = len(order)`` and ``epoch[0] += 1`` (the driver does both)."""


def new_state(m: int) -> np.ndarray:
    """A fresh loop state for ``m`` variables (nothing shrunk yet)."""
    state = np.zeros(N_STATE, dtype=np.int64)
    state[SIZE] = m
    state[COUNTER] = min(m, 1000)
    return state


@njit(cache=True, nogil=True, inline="always")
def _has_row(slot, row_epoch, epoch, r):  # pragma: no cover - compiled
    s = slot[r]
    return s >= 0 and (row_epoch[s] < 0 or row_epoch[s] == epoch[0])


@njit(cache=True, nogil=True, inline="always")
def _extremes(y, C, alpha, G, order, size):  # pragma: no cover - compiled
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


@njit(cache=True, nogil=True, inline="always")
def _be_shrunk(t, y, C, alpha, G, gmax, gmin):  # pragma: no cover - compiled
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


@njit(cache=True, nogil=True, inline="always")
def _pack(y, C, alpha, G, diag, order, size, yP, CP, aP, GP, dP):  # pragma: no cover
    """Copy the active prefix ``order[:size]`` into contiguous arrays (LIBSVM keeps its active
    variables at the front; here the copies are made once per shrinking period)."""
    for idx in range(size):
        t = order[idx]
        yP[idx] = y[t]
        CP[idx] = C[t]
        aP[idx] = alpha[t]
        GP[idx] = G[t]
        dP[idx] = diag[t]


@njit(cache=True, nogil=True, inline="always")
def _unpack(G, GP, order, size):  # pragma: no cover - compiled
    """Write the packed gradient back (``alpha`` is kept in both places as it moves)."""
    for idx in range(size):
        G[order[idx]] = GP[idx]


# No fastmath here: numba compiles the callee _exp_nonpositive with the caller's flags and
# caches that version for every later caller, and reassociation undoes its Cody-Waite range
# reduction (58 ulp at x = -194 instead of 1).
@njit(cache=True, nogil=True)
def _compute_row(
    r,
    rows,
    slot,
    stamp,
    clock,
    row_epoch,
    epoch,
    order,
    size,
    m,
    kind,
    X,
    sq,
    gamma,
    owner,
    evals,
    complete=False,
):  # pragma: no cover - compiled
    """Put row ``r`` into the least recently used slot: on ``order[:size]`` when some variables
    are shrunk (valid in this epoch), else complete."""
    s = slot[r]
    if s < 0:
        s = 0
        oldest = stamp[0]
        for k in range(owner.shape[0]):
            if owner[k] < 0:
                s = k
                break
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
    partial = not complete and size < m and (2 * size < n or X.shape[1] <= 64)
    cnt = size if partial else n
    if partial:
        for idx in range(cnt):
            t = order[idx]
            xt = X[t]
            acc = 0.0
            for f in range(d):
                acc += xr[f] * xt[f]
            row[t] = acc
    else:
        np.dot(X, xr, row)  # BLAS gemv
    if kind == ROWS_RBF:
        sr = sq[r]
        arg = np.empty(cnt)
        val = np.empty(cnt)
        bits = np.empty(cnt, dtype=np.int64)
        for idx in range(cnt):
            t = order[idx] if partial else idx
            dist = sr + sq[t] - 2.0 * row[t]
            arg[idx] = -gamma * dist if dist > DISTANCE_ROUNDOFF * (sr + sq[t]) else 0.0
        _exp_nonpositive(arg, val, bits)  # vectorized: 2.5x faster than a libm call each
        if partial:
            for idx in range(cnt):
                row[order[idx]] = val[idx]
        else:
            row[:] = val
        row[r] = 1.0  # r is active: its own entry is always computed
    row_epoch[s] = epoch[0] if partial else -1
    stamp[s] = clock[0]
    clock[0] += 1
    evals[0] += cnt


@njit(_loop_sig, cache=True, nogil=True)
def smo_loop(
    rows,
    slot,
    stamp,
    clock,
    row_epoch,
    epoch,
    y,
    C,
    alpha,
    G,
    Gbar,
    order,
    state,
    diag,
    kind,
    X,
    sq,
    gamma,
    owner,
    evals,
    tol,
    second_order,
    shrinking,
    max_steps,
):  # pragma: no cover - compiled
    """Run at most ``max_steps`` SMO iterations in place.

    Returns ``(status, steps, need, gap)``: the status (:data:`CONVERGED`, :data:`MAX_STEPS`,
    :data:`NEED_ROW`, :data:`RECONSTRUCT`), the number of completed iterations, the index of the
    missing kernel row (``-1`` unless ``status == NEED_ROW``) and the last KKT gap computed (over
    the active prefix). Every return leaves ``state`` such that calling again resumes the same
    iteration: the selection is redone on unchanged data, so the path does not depend on where
    the loop was interrupted.

    Shrinking (LIBSVM, Fan, Chen, Lin 2005; Chang and Lin's LIBSVM paper, Section 5.1): every
    ``min(m, 1000)`` iterations, variables at a bound that cannot join a violating pair
    (:func:`_be_shrunk`) are swapped behind the active prefix and neither selected nor updated.
    The first time the gap falls within ``10 tol`` everything is reactivated once (the driver
    recomputes the stale gradient); when the gap on the prefix falls below ``tol`` the driver
    does the same and the loop checks the gap on all variables before it reports convergence.
    """
    n = G.shape[0]
    m = order.shape[0]
    size = state[SIZE]
    steps = 0
    gap = np.inf
    # While some variables are out of the loop (shrunk, or left out by the caller) the passes
    # run over contiguous copies of the active prefix (packed: yP, CP, aP, GP, dP at positions
    # idx of order[:size]) instead of gathering through order at every read; G is written back
    # before every return and every shrinking pass.
    yP = np.empty(m)
    CP = np.empty(m)
    aP = np.empty(m)
    GP = np.empty(m)
    dP = np.empty(m)
    packed = False
    while True:
        phase = state[PHASE]
        if phase == 0:
            state[COUNTER] -= 1
            phase = 2
            if state[COUNTER] <= 0:
                if packed:
                    _unpack(G, GP, order, size)
                    packed = False
                state[COUNTER] = min(m, 1000)
                if shrinking:
                    phase = 1
                    if state[UNSHRUNK] == 0:
                        gmax, gmin = _extremes(y, C, alpha, G, order, size)
                        if gmax - gmin <= 10.0 * tol:
                            state[UNSHRUNK] = 1
                            state[PHASE] = 1
                            if size < m:
                                if packed:
                                    _unpack(G, GP, order, size)
                                return RECONSTRUCT, steps, -1, gap
            state[PHASE] = phase
        if phase == 1:
            size = state[SIZE]
            gmax, gmin = _extremes(y, C, alpha, G, order, size)
            idx = 0
            while idx < size:
                if _be_shrunk(order[idx], y, C, alpha, G, gmax, gmin):
                    size -= 1
                    while size > idx:
                        if not _be_shrunk(order[size], y, C, alpha, G, gmax, gmin):
                            tmp = order[idx]
                            order[idx] = order[size]
                            order[size] = tmp
                            break
                        size -= 1
                idx += 1
            if size < order.shape[0]:
                # increasing indices: the passes then read G, alpha and the kernel rows in
                # address order (prefetched), not scattered by the swaps above
                order[:size] = np.sort(order[:size])
            state[SIZE] = size
            state[PHASE] = 2
        size = state[SIZE]
        whole = size == n  # every variable active: index directly, no gather through order
        if not whole and not packed:
            _pack(y, C, alpha, G, diag, order, size, yP, CP, aP, GP, dP)
            packed = True
        # ---- working-set selection: i maximises v = -y G over I_up --------------------------
        gmax = -np.inf
        i = -1
        pi = -1
        pj = -1
        if packed:
            for idx in range(size):
                if yP[idx] > 0.0:
                    if aP[idx] < CP[idx] and -GP[idx] > gmax:
                        gmax = -GP[idx]
                        pi = idx
                else:
                    if aP[idx] > 0.0 and GP[idx] > gmax:
                        gmax = GP[idx]
                        pi = idx
            if pi >= 0:
                i = order[pi]
        else:
            for idx in range(size):
                t = idx if whole else order[idx]
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
            if not _has_row(slot, row_epoch, epoch, i):
                if kind == 0:
                    if packed:
                        _unpack(G, GP, order, size)
                    return NEED_ROW, steps, i, gap
                _compute_row(
                    i, rows, slot, stamp, clock, row_epoch, epoch, order, size, m,
                    kind, X, sq, gamma, owner, evals,
                )  # fmt: skip
            si = slot[i]
            stamp[si] = clock[0]  # keep row i recent while row j may be fetched
            clock[0] += 1
            Ki = rows[si]
            kii = diag[i]
            best = np.inf
            if packed:
                for idx in range(size):
                    if yP[idx] > 0.0:
                        if not aP[idx] > 0.0:
                            continue
                    else:
                        if not aP[idx] < CP[idx]:
                            continue
                    v = -yP[idx] * GP[idx]
                    if v < gmin:
                        gmin = v
                    b = gmax - v
                    if b > 0.0:
                        a = kii + dP[idx] - 2.0 * Ki[order[idx]]
                        if a <= 0.0:
                            a = TAU
                        obj = -(b * b) / a
                        if obj < best:
                            best = obj
                            pj = idx
                if pj >= 0:
                    j = order[pj]
            else:
                for idx in range(size):
                    t = idx if whole else order[idx]
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
            for idx in range(size):
                t = idx if whole else order[idx]
                if y[t] > 0.0:
                    if not alpha[t] > 0.0:
                        continue
                else:
                    if not alpha[t] < C[t]:
                        continue
                v = -y[t] * (GP[idx] if packed else G[t])
                if v < gmin:
                    gmin = v
                    j = t
                    pj = idx
        if i < 0 or j < 0:
            gap = -np.inf
        else:
            gap = gmax - gmin
        if gap < tol:
            if size < m:  # the final check: on every variable, with the gradient recomputed
                state[RECHECK] = 1
                if packed:
                    _unpack(G, GP, order, size)
                return RECONSTRUCT, steps, -1, gap
            if packed:
                _unpack(G, GP, order, size)
            return CONVERGED, steps, -1, gap
        if state[RECHECK] == 1:  # the unshrunk check failed: shrink again next iteration
            state[RECHECK] = 0
            state[COUNTER] = 1
        if steps >= max_steps:
            if packed:
                _unpack(G, GP, order, size)
            return MAX_STEPS, steps, -1, gap
        if not _has_row(slot, row_epoch, epoch, i):
            if kind == 0:
                if packed:
                    _unpack(G, GP, order, size)
                return NEED_ROW, steps, i, gap
            _compute_row(
                i, rows, slot, stamp, clock, row_epoch, epoch, order, size, m,
                kind, X, sq, gamma, owner, evals,
            )  # fmt: skip
        stamp[slot[i]] = clock[0]  # row i stays while row j is fetched
        clock[0] += 1
        if not _has_row(slot, row_epoch, epoch, j):
            if kind == 0:
                if packed:
                    _unpack(G, GP, order, size)
                return NEED_ROW, steps, j, gap
            _compute_row(
                j, rows, slot, stamp, clock, row_epoch, epoch, order, size, m,
                kind, X, sq, gamma, owner, evals,
            )  # fmt: skip
        si = slot[i]
        sj = slot[j]
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
        s = (gmax + y[j] * (GP[pj] if packed else G[j])) / a
        room_i = C[i] - alpha[i] if y[i] > 0.0 else alpha[i]
        room_j = alpha[j] if y[j] > 0.0 else C[j] - alpha[j]
        clip_i = False
        clip_j = False
        # A step that ends within round-off of a bound ends on it: otherwise a variable that
        # should be 0 (or C) is left at 1e-16 (or C - 1e-15) and counts as a free support vector.
        if s >= room_i - SNAP * C[i]:
            s = room_i
            clip_i = True
        if s >= room_j - SNAP * C[j]:
            s = room_j
            clip_j = True
            clip_i = s >= room_i - SNAP * C[i]
        old_i = alpha[i]
        old_j = alpha[j]
        if clip_i:
            new_i = C[i] if y[i] > 0.0 else 0.0
        else:
            new_i = old_i + y[i] * s
        if clip_j:
            new_j = 0.0 if y[j] > 0.0 else C[j]
        else:
            new_j = old_j - y[j] * s
        # A variable reaching or leaving its upper bound changes Gbar on every point, which
        # needs its complete row (fetched before anything moves, so a return redoes the step).
        flip_i = (old_i >= C[i]) != (new_i >= C[i])
        flip_j = (old_j >= C[j]) != (new_j >= C[j])
        for r, flip in ((i, flip_i), (j, flip_j)):
            if flip and row_epoch[slot[r]] >= 0:
                if kind == 0:
                    if packed:
                        _unpack(G, GP, order, size)
                    return NEED_COMPLETE_ROW, steps, r, gap
                stamp[slot[i]] = clock[0]
                stamp[slot[j]] = clock[0]
                clock[0] += 1
                _compute_row(
                    r, rows, slot, stamp, clock, row_epoch, epoch, order, size, m,
                    kind, X, sq, gamma, owner, evals, True,
                )  # fmt: skip
        Ki = rows[slot[i]]
        Kj = rows[slot[j]]
        alpha[i] = new_i
        alpha[j] = new_j
        if packed:
            aP[pi] = new_i
            aP[pj] = new_j
        if flip_i:
            w = C[i] * y[i] if new_i >= C[i] else -C[i] * y[i]
            for t in range(n):
                Gbar[t] += y[t] * w * Ki[t]
        if flip_j:
            w = C[j] * y[j] if new_j >= C[j] else -C[j] * y[j]
            for t in range(n):
                Gbar[t] += y[t] * w * Kj[t]
        # ---- gradient update: G += Q[:, i] d_i + Q[:, j] d_j, over the active prefix --------
        ci = y[i] * (alpha[i] - old_i)
        cj = y[j] * (alpha[j] - old_j)
        if size == n:
            for t in range(n):
                G[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
        else:
            for idx in range(size):
                t = order[idx]
                GP[idx] += yP[idx] * (ci * Ki[t] + cj * Kj[t])
        steps += 1
        state[PHASE] = 0


@njit(
    types.void(_f8_2d, _i8_1d, _f8_1d, _f8_1d, _i8_1d, _i8_1d, _f8_1d, _f8_1d),
    cache=True,
    nogil=True,
)
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
