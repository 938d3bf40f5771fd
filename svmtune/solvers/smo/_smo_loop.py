"""The compiled inner loop of SMO: working-set selection and the two-variable update.

The loop is numba-compiled on first use (no signature list: nothing compiles at import) with
``cache=True``, so the compile cost is paid once per machine; its Python driver hands it
C-contiguous float64 / int64 arrays only, so it has one specialisation. The driver
(``_solver.py``) owns memory, the kernel-row cache, warnings and the result; this
module moves ``alpha``, the gradient ``G`` and ``Gbar``, and shrinks.

Problem (Palagi's slides, LIBSVM's notation)::

    min_a  f(a) = 1/2 a'Qa - e'a   s.t.  y'a = 0,  0 <= a_t <= C_t,   Q_ts = y_t y_s K_ts

with gradient ``G = Qa - e``. With ``v_t = -y_t G_t``,

    I_up  = {t : a_t < C_t, y_t = +1} u {t : a_t > 0, y_t = -1}
    I_low = {t : a_t < C_t, y_t = -1} u {t : a_t > 0, y_t = +1}

and ``a`` is optimal iff ``max_{I_up} v <= min_{I_low} v`` (the KKT conditions, eq. (4) of the
slides). The loop stops when the gap ``max_{I_up} v - min_{I_low} v`` falls below ``tol``.

Kernel rows come from a row store (:mod:`svmtune.solvers.smo._loop_rows`); RBF and linear rows are
computed there. Otherwise the loop returns :data:`NEED_ROW` (or :data:`NEED_COMPLETE_ROW`) with
the missing row's index; the driver computes the row, stores it, and calls the loop again, which
redoes the (unchanged) selection and goes on. The pair selection, the clipped two-variable step
and the gradient update are :mod:`svmtune.solvers.smo._pair_step`'s, shared with the exact-LOO
retrains; shrinking is :mod:`svmtune.solvers.smo._shrinking`.

Only the active prefix ``order[:size]`` of the gradient is kept up to date; the driver recomputes
the rest from ``alpha`` (:func:`gradient_from_rows`) when the loop asks (:data:`RECONSTRUCT`) and
when a caller reads the gradient.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# re-exported for the benchmark that times the passes (svmtune.solvers.smo_loop)
from svmtune.solvers.smo._loop_passes import LOW as LOW
from svmtune.solvers.smo._loop_passes import POS as POS
from svmtune.solvers.smo._loop_passes import UP as UP
from svmtune.solvers.smo._loop_passes import (
    _add_pair_select_i,
    _add_pair_select_i_rows,
    _select_i_st,
    _select_j_st,
    _select_j_unit,
    _select_j_unit_rows,
    _status,
    _statuses,
)
from svmtune.solvers.smo._loop_rows import ROWS_GIVEN, compute_row, fetch_row, has_row
from svmtune.solvers.smo._packed_rows import LAID as P_LAID
from svmtune.solvers.smo._packed_rows import LAYOUT as P_LAYOUT
from svmtune.solvers.smo._packed_rows import (
    LEND_BELOW,
    copy_at,
    drop_packed,
    held_row,
    lend_slots,
    new_packed,
    set_layout,
)
from svmtune.solvers.smo._packed_rows import STRIDE as P_STRIDE
from svmtune.solvers.smo._pair_step import TAU as TAU
from svmtune.solvers.smo._pair_step import clipped_step
from svmtune.solvers.smo._shrinking import (
    COUNTER,
    LENT,
    PHASE,
    RECHECK,
    SIZE,
    SWEPT,
    UNSHRUNK,
    extremes,
    new_state,
    pack,
    shrink,
    unpack,
)

__all__ = [
    "CONVERGED",
    "MAX_STEPS",
    "NEED_COMPLETE_ROW",
    "NEED_ROW",
    "RECONSTRUCT",
    "new_state",
    "smo_loop",
]

CONVERGED = 0
"""Status: the KKT gap is below ``tol``."""
MAX_STEPS = 1
"""Status: ``max_steps`` iterations were made without reaching the gap."""
NEED_ROW = 2
"""Status: the loop needs kernel row ``need`` that is not in the row store."""
RECONSTRUCT = 3
"""Status: the gradient of the shrunk variables ``order[size:]`` must be recomputed from
``alpha``, then ``state[SIZE] = len(order)`` and ``epoch[0] += 1`` (the driver does both)."""
NEED_COMPLETE_ROW = 4
"""Status: like :data:`NEED_ROW`, but the row must be complete (all ``n`` entries): variable
``need`` reaches or leaves its upper bound, and ``Gbar`` is kept for every point."""


@njit(cache=True, nogil=True)
def _add_bound(Gbar, y, Kr, w):  # pragma: no cover - compiled
    """``Gbar += y * w * Kr``: a variable reached (``w = C y``) or left (``-C y``) its bound."""
    for t in range(Gbar.shape[0]):
        Gbar[t] += y[t] * w * Kr[t]


COPY_ROWS_FROM = 4096
"""Points from which the packed passes read kernel rows held in the active variables' positions
(:mod:`svmtune.solvers.smo._packed_rows`): RBF and linear rows once at most a quarter of the
points are active (in slots the row store lends; before that the passes read the store in place,
most of each cache line being active columns), rows from the driver whenever variables are
shrunk. Below, always through ``order`` (the rows are short enough that the gather costs less
than the copies: banana at 2,000 points and C = 1e4, 830 k iterations over a few hundred active
variables, took 1.26x the CPU with copies)."""


SHRINK_LEAST = 64
"""With rows by position (from :data:`COPY_ROWS_FROM` points on), a shrinking pass moves
variables only when at least ``1 / SHRINK_LEAST`` of the active ones can be shrunk."""


@njit(cache=True, nogil=True)
def smo_loop(
    rows,  # float64[:, ::1]; the row store (see svmtune.solvers.smo._loop_rows)
    slot,  # int64[::1]
    stamp,  # int64[::1]: last use of each row-store slot, for the LRU
    clock,  # int64[::1], one entry: the use counter
    row_epoch,  # int64[::1]: per slot, -1 a complete row, else the epoch of a partial row
    epoch,  # int64[::1], one entry: partial rows of this epoch are valid on the active prefix
    y,  # float64[::1]
    C,  # float64[::1]: per-variable upper bound
    alpha,  # float64[::1], updated in place
    G,  # float64[::1], updated in place on the active prefix order[:size]
    Gbar,  # float64[::1]: sum over alpha_s = C_s of C_s Q_ts, all n entries (LIBSVM's G_bar)
    order,  # int64[::1]: the variables being optimised, the active ones first
    state,  # int64[::1]: see svmtune.solvers.smo._shrinking
    diag,  # float64[::1]: K_tt
    kind,  # int: ROWS_GIVEN (rows come from the driver), ROWS_RBF / ROWS_LINEAR computed here
    X,  # float64[:, ::1]: the points (for kind > 0)
    sq,  # float64[::1]: squared norms of the points (for ROWS_RBF)
    gamma,  # float (for ROWS_RBF)
    owner,  # int64[::1]: the row held by each slot, -1 free (for kind > 0)
    evals,  # int64[::1], one entry: kernel entries computed here (for kind > 0)
    pbuf,  # float64[::1]: rows by position (_packed_rows), at least 2 m for kind 0 (else unused)
    tol,
    second_order,
    shrinking,
    max_steps,
):  # pragma: no cover - compiled
    """Run at most ``max_steps`` SMO iterations in place.

    Returns ``(status, steps, need, gap)``: the status (:data:`CONVERGED`, :data:`MAX_STEPS`,
    :data:`NEED_ROW`, :data:`NEED_COMPLETE_ROW`, :data:`RECONSTRUCT`), the number of completed
    iterations, the index of the missing kernel row (``-1`` unless a row is needed) and the
    last KKT gap computed (over the active prefix). Every return leaves ``state`` such that
    calling again resumes the same iteration: the selection is redone on unchanged data, so the
    path does not depend on where the loop was interrupted.

    Shrinking (:mod:`svmtune.solvers.smo._shrinking`): every ``min(m, 1000)`` iterations the
    variables that cannot join a violating pair are set aside. The first time the gap falls
    within ``10 tol`` everything is reactivated once (the driver recomputes the stale gradient);
    when the gap on the prefix falls below ``tol`` the driver does the same and the loop checks
    the gap on all variables before it reports convergence.
    """
    n = G.shape[0]
    m = order.shape[0]
    cache = (rows, slot, stamp, clock, row_epoch, epoch, owner, evals)
    source = (kind, X, sq, gamma)
    size = state[SIZE]
    steps = 0
    gap = np.inf
    status = CONVERGED
    need = -1
    # typed (not literal) arguments: a literal True would compile the helpers again
    complete = np.bool_(True)  # compute_row's complete
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
    st = np.empty(n, dtype=np.int8)  # statuses of the positions (valid while fused is)
    # the next iteration's i, found during the gradient update (valid until the active set or
    # its packing changes, or the loop returns)
    fused = False
    next_gmax = -np.inf
    next_pi = -1
    # rows by position for the packed passes (_packed_rows), and whether K_tt = 1 (RBF)
    pk = new_packed(n, m)
    pmap, powner, play, pref, meta = pk[0], pk[1], pk[2], pk[3], pk[4]
    cap = owner.shape[0]  # slots of the row store in use; the rest lent to buf
    buf = pbuf
    unit = second_order
    for t in range(n):
        if diag[t] != 1.0:
            unit = False
            break
    while True:
        was_packed = packed
        phase = state[PHASE]
        if phase == 0:
            state[COUNTER] -= 1
            phase = 2
            if state[COUNTER] <= 0:
                if packed:
                    unpack(G, GP, order, size)
                    packed = False
                state[COUNTER] = min(m, 1000)
                if shrinking:
                    phase = 1
                    if state[UNSHRUNK] == 0:
                        gmax, gmin = extremes(y, C, alpha, G, order, size)
                        if gmax - gmin <= 10.0 * tol:
                            state[UNSHRUNK] = 1
                            state[PHASE] = 1
                            if size < m:
                                status = RECONSTRUCT
                                break
            state[PHASE] = phase
        if phase == 1:
            # with rows by position, a pass that drops only a few variables is put off: each
            # new layout makes the rows held by position be compacted when next read
            least = state[SIZE] // SHRINK_LEAST if n >= COPY_ROWS_FROM else 0
            state[SIZE] = shrink(y, C, alpha, G, order, state[SIZE], least)
            state[PHASE] = 2
            fused = False
        size = state[SIZE]
        if size < n and not packed:  # not every variable active: work on packed copies
            pack(y, C, alpha, G, diag, order, size, yP, CP, aP, GP, dP)
            packed = True
            if n >= COPY_ROWS_FROM:
                set_layout(order, size, pk)
                if meta[P_LAID] == meta[P_LAYOUT] and cap == owner.shape[0] and kind != ROWS_GIVEN:
                    if size <= LEND_BELOW * n:  # laid out afresh, few variables active
                        cap, buf = lend_slots(rows, slot, owner, pbuf)
                        state[LENT] = max(state[LENT], owner.shape[0] - cap)
        copies = packed and n >= COPY_ROWS_FROM and (kind == ROWS_GIVEN or cap < owner.shape[0])
        slots = min(buf.shape[0] // max(meta[P_STRIDE], 1), m) if copies else 0
        # positions index the packed copies, else the variables themselves
        yS, CS, aS, GS, dS = (yP, CP, aP, GP, dP) if packed else (y, C, alpha, G, diag)
        # ---- working-set selection: i maximises v = -y G over I_up, j by _pair_step ---------
        if fused and packed == was_packed:
            gmax, pi = next_gmax, next_pi
        else:  # the statuses of these positions, and i
            _statuses(yS, CS, aS, size, st)
            gmax, pi = _select_i_st(st, yS, GS, size)
        fused = False
        i = order[pi] if packed and pi >= 0 else pi
        kii = 0.0
        si = -1
        bi = -1
        if i >= 0 and copies:  # row i by position (also read for the step's K_ij)
            bi = copy_at(i, pmap, play, pref, meta)
            if bi < 0:
                bi = held_row(i, -1, cache, source, order, size, cap, slots, buf, pk)
                if bi < 0:
                    status, need = NEED_ROW, i
                    break
            kii = diag[i]
        elif second_order and i >= 0:
            if not has_row(slot, row_epoch, epoch, i):
                if not fetch_row(i, cache, source, order, size, cap):
                    status, need = NEED_ROW, i
                    break
                drop_packed(i, pmap, powner)
            si = slot[i]
            stamp[si] = clock[0]  # keep row i recent while row j may be fetched
            clock[0] += 1
            kii = diag[i]
        gmin = np.inf
        pj = -1
        whole = copies or not packed  # rows read by position
        if unit and i >= 0 and not copies:
            gmin, pj = _select_j_unit_rows(
                st, yS, GS, size, gmax, rows, si, kii + 1.0, order, whole
            )
        elif unit and i >= 0:
            Ki = buf[bi : bi + size]
            gmin, pj = _select_j_unit(st, yS, GS, size, gmax, Ki, kii + 1.0, order, whole)
        elif i >= 0 or not second_order:
            Ki = diag if si < 0 else rows[si]  # diag: not read by the first-order selection
            if bi >= 0:
                Ki = buf[bi : bi + size]
            gmin, pj = _select_j_st(st, yS, GS, dS, size, gmax, second_order, Ki, kii, order, whole)
        j = order[pj] if packed and pj >= 0 else pj
        gap = -np.inf if i < 0 or j < 0 else gmax - gmin
        if gap < tol:
            # with variables out of the loop, the final check is on every variable, with the
            # gradient recomputed
            if size < m:
                state[RECHECK] = 1
                status = RECONSTRUCT
            break
        if state[RECHECK] == 1:  # the unshrunk check failed: shrink again next iteration
            state[RECHECK] = 0
            state[COUNTER] = 1
        if steps >= max_steps:
            status = MAX_STEPS
            break
        if copies:  # row j by position (never taking row i's slot)
            bj = copy_at(j, pmap, play, pref, meta)
            if bj < 0:
                bj = held_row(j, i, cache, source, order, size, cap, slots, buf, pk)
                if bj < 0:
                    status, need = NEED_ROW, j
                    break
            kij = buf[bi + pj]
        else:
            if not has_row(slot, row_epoch, epoch, i):
                if not fetch_row(i, cache, source, order, size, cap):
                    status, need = NEED_ROW, i
                    break
                drop_packed(i, pmap, powner)
            stamp[slot[i]] = clock[0]  # row i stays while row j is fetched
            clock[0] += 1
            if not has_row(slot, row_epoch, epoch, j):
                if not fetch_row(j, cache, source, order, size, cap):
                    status, need = NEED_ROW, j
                    break
                drop_packed(j, pmap, powner)
            si = slot[i]
            sj = slot[j]
            c = clock[0]
            stamp[si] = c
            stamp[sj] = c + 1
            clock[0] = c + 2
            kij = rows[si, j]
        old_i = alpha[i]
        old_j = alpha[j]
        new_i, new_j = clipped_step(
            diag[i] + diag[j] - 2.0 * kij,
            gmax,
            y[i],
            y[j],
            GS[pj],
            C[i],
            C[j],
            old_i,
            old_j,
        )
        # A variable reaching or leaving its upper bound changes Gbar on every point, which
        # needs its complete row (fetched before anything moves, so a return redoes the step).
        flip_i = (old_i >= C[i]) != (new_i >= C[i])
        flip_j = (old_j >= C[j]) != (new_j >= C[j])
        for r, flip in ((i, flip_i), (j, flip_j)):
            if flip and (slot[r] < 0 or row_epoch[slot[r]] >= 0):
                if kind == 0:
                    status, need = NEED_COMPLETE_ROW, r
                    break
                for q in (i, j):  # the pair's rows stay while the other is computed
                    if slot[q] >= 0:
                        stamp[slot[q]] = clock[0]
                clock[0] += 1
                compute_row(r, cache, source, order, size, complete, cap)
                drop_packed(r, pmap, powner)
        if need >= 0:
            break
        alpha[i] = new_i
        alpha[j] = new_j
        if packed:
            aP[pi] = new_i
            aP[pj] = new_j
        st[pi] = _status(y[i], new_i, C[i])
        st[pj] = _status(y[j], new_j, C[j])
        if flip_i:
            _add_bound(Gbar, y, rows[slot[i]], C[i] * y[i] if new_i >= C[i] else -C[i] * y[i])
        if flip_j:
            _add_bound(Gbar, y, rows[slot[j]], C[j] * y[j] if new_j >= C[j] else -C[j] * y[j])
        # ---- gradient update: G += Q[:, i] d_i + Q[:, j] d_j, over the active prefix --------
        ci = y[i] * (new_i - old_i)
        cj = y[j] * (new_j - old_j)
        if copies:  # a flip dropped the row by position: copied again from the complete row
            if flip_i or flip_j:
                bi = copy_at(i, pmap, play, pref, meta)
                if bi < 0:
                    bi = held_row(i, j, cache, source, order, size, cap, slots, buf, pk)
                bj = copy_at(j, pmap, play, pref, meta)
                if bj < 0:
                    bj = held_row(j, i, cache, source, order, size, cap, slots, buf, pk)
            Ki = buf[bi : bi + size]
            Kj = buf[bj : bj + size]
            next_gmax, next_pi = _add_pair_select_i(GS, st, yS, Ki, Kj, ci, cj, size, order, whole)
        else:
            next_gmax, next_pi = _add_pair_select_i_rows(
                GS, st, yS, rows, slot[i], slot[j], ci, cj, size, order, whole
            )
        fused = True
        steps += 1
        state[SWEPT] += size
        state[PHASE] = 0
    if packed:
        unpack(G, GP, order, size)
    return status, steps, need, gap
