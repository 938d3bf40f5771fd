"""Kernel rows in the positions of the active prefix (numba): the rows the SMO loop's passes read
once variables are shrunk.

Once variables are shrunk, the SMO loop's passes run over packed copies of the active prefix
(position ``p`` is variable ``order[p]``), but the row store holds rows by column, so reading row
``i`` there is a gather, ``rows[slot[i]][order[p]]``: an index read and, with few variables
active, a cache line of the row for every entry (letter at 20,000 points and C = 1e4 spends most
of its iterations with 10% of the variables active, and the 2,000 rows it keeps reusing then
span 128 KiB each instead of 16). LIBSVM keeps each cached row only as long as the active
prefix and swaps its columns with the variables. Here the rows the passes read are held by
position in a buffer of their own (``buf``), and the passes read them contiguously:

- a row is the row store's row copied by position, or, once slots of the row store are lent to
  the buffer (:func:`lend_slots`), computed by position directly (RBF and linear rows,
  :func:`svmtune.solvers.smo._loop_rows.compute_packed`); it stays until its slot is needed;
- when shrinking drops variables (a new layout: the active prefix at a smaller size; within one
  call of the loop the prefix only shrinks, and it stays sorted), a row held from an earlier
  layout is compacted in place when next read: for each layout since, the runs between the
  dropped positions are shifted down (``drops``, ``dstart``, ``lsize``);
- the SMO loop drops the row it recomputes in the store (:func:`drop_packed`).

The buffer is divided into slots of ``stride`` doubles (the prefix size when the slots were laid
out; they are laid out again, all rows dropped, when the prefix falls to half of it). A slot is
found for a new row by the clock rule (a hand passes over, and clears, the reference bit each
read sets), never the slot of the row kept for the same iteration.

State, ``pk = (pmap, powner, play, pref, meta, drops, dstart, lsize, porder)``: ``pmap`` the
slot of each row (-1 none), ``powner`` the row of each slot (-1 none), ``play`` the layout of
each slot's row, ``pref`` the reference bits, ``meta`` (entries below); for the layouts since the
slots were laid out (numbered from 0 there): ``drops[dstart[k]:dstart[k + 1]]`` the positions of
layout ``k - 1`` that layout ``k`` drops, ``lsize[k]`` its size; ``porder`` the current layout's
``order[:size]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.solvers.smo._loop_rows import ROWS_GIVEN, compute_packed, compute_row, has_row

__all__ = [
    "LEND_BELOW",
    "LEND_SHARE",
    "N_META",
    "copy_at",
    "drop_packed",
    "fill_from_row",
    "held_row",
    "lend_slots",
    "new_packed",
    "place",
    "set_layout",
]

LAYOUT = 0
"""``meta[LAYOUT]``: the current layout's number (-1 before the first)."""
STRIDE = 1
"""``meta[STRIDE]``: doubles a slot spans."""
HAND = 2
"""``meta[HAND]``: where the clock hand stands."""
SIZE = 3
"""``meta[SIZE]``: the current layout's size."""
LAID = 4
"""``meta[LAID]``: the number of the layout the slots were laid out for."""
N_META = 5


@njit(cache=True, nogil=True)
def new_packed(n, m):  # pragma: no cover - compiled
    """Empty state ``pk`` for ``n`` rows and ``m`` variables (see the module)."""
    pmap = np.full(n, -1, dtype=np.int64)
    powner = np.full(m, -1, dtype=np.int64)
    play = np.full(m, -1, dtype=np.int64)
    pref = np.zeros(m, dtype=np.int64)
    meta = np.zeros(N_META, dtype=np.int64)
    meta[LAYOUT] = -1
    drops = np.empty(m, dtype=np.int64)
    dstart = np.zeros(m + 2, dtype=np.int64)
    lsize = np.empty(m + 1, dtype=np.int64)
    porder = np.empty(m, dtype=np.int64)
    return pmap, powner, play, pref, meta, drops, dstart, lsize, porder


@njit(cache=True, nogil=True)
def set_layout(order, size, pk):  # pragma: no cover - compiled
    """Make ``order[:size]`` the current layout (when its size differs from the current one).

    The new prefix must be a subset of the previous one, both in increasing order (what
    shrinking leaves within one call of the loop), unless the slots are laid out afresh: at the
    first layout and when the prefix falls to half of the slots' stride."""
    pmap, powner, play, pref, meta, drops, dstart, lsize, porder = pk
    if meta[LAYOUT] >= 0 and meta[SIZE] == size:
        return
    lay = meta[LAYOUT] + 1
    if meta[LAYOUT] < 0 or 2 * size <= meta[STRIDE]:
        for k in range(powner.shape[0]):
            if powner[k] >= 0:
                pmap[powner[k]] = -1
                powner[k] = -1
            pref[k] = 0
        meta[STRIDE] = size
        meta[HAND] = 0
        meta[LAID] = lay
        dstart[0] = 0
        dstart[1] = 0
        lsize[0] = size
    else:  # the positions the previous layout drops (both increasing: one merge pass)
        rel = lay - meta[LAID]
        nd = dstart[rel]
        p = 0
        for q in range(meta[SIZE]):
            if p < size and order[p] == porder[q]:
                p += 1
            else:
                drops[nd] = q
                nd += 1
        dstart[rel + 1] = nd
        lsize[rel] = size
    for p in range(size):
        porder[p] = order[p]
    meta[SIZE] = size
    meta[LAYOUT] = lay


@njit(cache=True, nogil=True)
def _compact(buf, base, was, lay, laid, drops, dstart, lsize):  # pragma: no cover - compiled
    """A row held by position in layout ``was`` moved to layout ``lay``: for each layout in
    between, the runs between its dropped positions shifted down (forward copies)."""
    for rel in range(was + 1 - laid, lay + 1 - laid):
        a = dstart[rel]
        b = dstart[rel + 1]
        w = base + drops[a]
        for e in range(a, b):
            lo = base + drops[e] + 1
            hi = base + (drops[e + 1] if e + 1 < b else lsize[rel - 1])
            for x in range(lo, hi):
                buf[w + x - lo] = buf[x]
            w += hi - lo


@njit(cache=True, nogil=True)
def copy_at(r, pmap, play, pref, meta):  # pragma: no cover - compiled
    """Where row ``r`` of the current layout starts in the buffer, -1 when it must be placed
    (:func:`place`). Takes the four arrays it reads, not ``pk``: it is called three times an
    iteration."""
    k = pmap[r]
    if k >= 0 and play[k] == meta[LAYOUT]:
        pref[k] = 1
        return k * meta[STRIDE]
    return -1


@njit(cache=True, nogil=True)
def place(r, keep, slots, buf, pk):  # pragma: no cover - compiled
    """Row ``r`` in the current layout: ``(start, held)``. ``held``: the row held from an earlier
    layout, compacted (it starts at ``start``); else ``start`` is that of a slot given to ``r``
    (the clock rule among the first ``slots``, never the slot of row ``keep``), whose
    ``meta[SIZE]`` entries the caller fills."""
    pmap, powner, play, pref, meta, drops, dstart, lsize, porder = pk
    stride = meta[STRIDE]
    lay = meta[LAYOUT]
    k = pmap[r]
    if k >= 0:  # held from an earlier layout since the slots were laid out: compact it
        base = k * stride
        _compact(buf, base, play[k], lay, meta[LAID], drops, dstart, lsize)
        play[k] = lay
        pref[k] = 1
        return base, True
    k = meta[HAND]
    while True:
        if k >= slots:
            k = 0
        if keep >= 0 and powner[k] == keep:
            k += 1
        elif pref[k] != 0:
            pref[k] = 0
            k += 1
        else:
            break
    meta[HAND] = k + 1
    if powner[k] >= 0:
        pmap[powner[k]] = -1
    powner[k] = r
    pmap[r] = k
    play[k] = lay
    pref[k] = 1
    return k * stride, False


@njit(cache=True, nogil=True)
def fill_from_row(row, order, size, buf, base):  # pragma: no cover - compiled
    """Copy the row store's row (valid on the active columns) by position: ``row[order[p]]`` at
    ``buf[base + p]``."""
    for p in range(size):
        buf[base + p] = row[order[p]]


@njit(cache=True, nogil=True)
def drop_packed(r, pmap, powner):  # pragma: no cover - compiled
    """Forget the row ``r`` held by position (the row store's row was recomputed)."""
    k = pmap[r]
    if k >= 0:
        powner[k] = -1
        pmap[r] = -1


@njit(cache=True, nogil=True)
def held_row(r, keep, cache, source, order, size, cap, slots, buf, pk):  # pragma: no cover
    """Place row ``r`` by position (:func:`place`) and fill it: compacted from an earlier layout,
    copied from the row store's row, or computed (while slots of the store are lent, RBF and
    linear rows of points of at most 64 features by position directly, :func:`compute_packed`;
    else in the row store, then copied). Returns where it starts in ``buf``, or -1 when the row
    must come from the driver (``kind == ROWS_GIVEN`` and the store lacks it; nothing is changed
    then)."""
    rows, slot, stamp, clock, row_epoch, epoch, owner, evals = cache
    kind, X = source[0], source[1]
    stored = has_row(slot, row_epoch, epoch, r)
    if kind == ROWS_GIVEN and not stored and pk[0][r] < 0:
        return -1
    base, held = place(r, keep, slots, buf, pk)
    if held:
        return base
    if not stored and cap < owner.shape[0] and X.shape[1] <= 64 and size < order.shape[0]:
        compute_packed(r, buf, base, source, order, size, evals)
        return base
    if not stored:
        compute_row(r, cache, source, order, size, np.bool_(False), cap)
    s = slot[r]
    stamp[s] = clock[0]
    clock[0] += 1
    fill_from_row(rows[s], order, size, buf, base)
    return base


LEND_SHARE = 0.5
"""Share of the row store's slots lent to the rows held by position once at most
:data:`LEND_BELOW` of the points are active (RBF and linear rows computed in the loop, from
:data:`svmtune.solvers.smo._smo_loop.COPY_ROWS_FROM` points on). Rows by position are as long
as the active prefix: with 10% of the variables active a lent slot holds ten of them."""

LEND_BELOW = 0.25
"""Share of the points active at most when slots of the row store are lent."""


@njit(cache=True, nogil=True)
def lend_slots(rows, slot, owner, pbuf):  # pragma: no cover - compiled
    """Lend the last :data:`LEND_SHARE` of the row store's slots to the rows held by position
    (their rows are dropped): ``(cap, buf)``, the slots the store keeps (at least two) and the
    buffer the rows by position use (``pbuf`` when the store has fewer than four slots). The
    store gets them back when the loop returns (they are free: ``owner`` -1)."""
    total = owner.shape[0]
    if total < 4:
        return total, pbuf
    cap = total - int(LEND_SHARE * total)
    for s in range(cap, total):
        if owner[s] >= 0:
            slot[owner[s]] = -1
            owner[s] = -1
    n = rows.shape[1]
    return cap, rows.reshape(-1)[cap * n :]
