"""Kernel rows copied into the positions of the active prefix (numba), for the SMO loop's passes.

Once variables are shrunk, the SMO loop's passes run over packed copies of the active prefix
(position ``k`` is variable ``order[k]``), but the row store holds rows by column, so reading row
``i`` there is a gather, ``rows[slot[i]][order[k]]``: an index read and, with few variables
active, a cache line of the row for every entry (letter at 20,000 points and C = 1e4 spends most
of its iterations with 10% of the variables active, and the 2,000 rows it keeps reusing then
span 128 KiB each instead of 16). LIBSVM swaps the columns of its cached rows with the variables
to the same end. Here the rows the passes read are copied, in position order, into a buffer of
their own (``pbuf``), and the passes read them contiguously:

- a copy is made from the row store's row (never recomputed: the values, and so the iterates,
  are the same bit for bit) the first time the row is read in a layout (the active prefix at a
  given size; within one call of the loop the prefix only shrinks, so a size is a layout);
- when shrinking drops variables, the copies of the previous layout are compacted in place
  (a forward pass over the old positions: ``pos_map``) when next read, older ones copied again;
- the SMO loop drops the copy of a row it recomputes in the store (:func:`drop_packed`).

The buffer is divided into slots of ``stride`` doubles (the prefix size when the slots were laid
out; they are laid out again, all copies dropped, when the prefix falls to half of it), handed
out in turn, skipping the slot of the row kept for the same iteration. State: ``pmap`` (the slot
of each row, -1 none), ``powner`` (the row of each slot, -1 none), ``play`` (the layout of each
slot's copy), ``meta`` (entries below), ``pos_map`` (positions of the previous layout to the
current one, -1 dropped) and ``porder`` (the current layout's ``order[:size]``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["N_META", "drop_packed", "new_packed", "packed_row", "set_layout"]

LAYOUT = 0
"""``meta[LAYOUT]``: the current layout's number (-1 before the first)."""
STRIDE = 1
"""``meta[STRIDE]``: doubles a slot spans."""
HAND = 2
"""``meta[HAND]``: the next slot handed out."""
OLD_SIZE = 3
"""``meta[OLD_SIZE]``: the previous layout's size (the length of ``pos_map``'s domain)."""
SIZE = 4
"""``meta[SIZE]``: the current layout's size."""
N_META = 5


@njit(cache=True, nogil=True)
def new_packed(n, m):  # pragma: no cover - compiled
    """Empty state for ``n`` rows and ``m`` variables: ``(pmap, powner, play, meta, pos_map,
    porder)``."""
    pmap = np.empty(n, dtype=np.int64)
    for r in range(n):
        pmap[r] = -1
    powner = np.empty(m, dtype=np.int64)
    play = np.empty(m, dtype=np.int64)
    for k in range(m):
        powner[k] = -1
        play[k] = -1
    meta = np.zeros(N_META, dtype=np.int64)
    meta[LAYOUT] = -1
    return pmap, powner, play, meta, np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)


@njit(cache=True, nogil=True)
def set_layout(order, size, pmap, powner, meta, pos_map, porder):  # pragma: no cover - compiled
    """Make ``order[:size]`` the current layout (when its size differs from the current one).

    The new prefix must be a subset of the previous one, both in increasing order (what
    shrinking leaves within one call of the loop), unless the slots are laid out afresh: at the
    first layout and when the prefix falls to half of the slots' stride."""
    if meta[LAYOUT] >= 0 and meta[SIZE] == size:
        return
    if meta[LAYOUT] < 0 or 2 * size <= meta[STRIDE]:
        for k in range(powner.shape[0]):
            if powner[k] >= 0:
                pmap[powner[k]] = -1
                powner[k] = -1
        meta[STRIDE] = size
        meta[HAND] = 0
        meta[OLD_SIZE] = 0
    else:  # positions of the previous layout in this one (both increasing: one merge pass)
        old = meta[SIZE]
        p = 0
        for q in range(old):
            if p < size and order[p] == porder[q]:
                pos_map[q] = p
                p += 1
            else:
                pos_map[q] = -1
        meta[OLD_SIZE] = old
    for p in range(size):
        porder[p] = order[p]
    meta[SIZE] = size
    meta[LAYOUT] += 1


@njit(cache=True, nogil=True)
def drop_packed(r, pmap, powner):  # pragma: no cover - compiled
    """Forget the copy of row ``r`` (the row store's row was recomputed)."""
    k = pmap[r]
    if k >= 0:
        powner[k] = -1
        pmap[r] = -1


@njit(cache=True, nogil=True)
def packed_row(r, row, order, pbuf, pmap, powner, play, meta, pos_map, keep):  # pragma: no cover
    """Row ``r`` in the current layout's positions (``row[order[p]]`` at ``p``), a view into
    ``pbuf``: the copy made earlier in this layout, the previous layout's copy compacted, or a
    new copy of ``row`` (the row store's row ``r``, valid on the active columns) in the next
    slot, never the slot of row ``keep``."""
    size = meta[SIZE]
    stride = meta[STRIDE]
    lay = meta[LAYOUT]
    k = pmap[r]
    if k >= 0:
        base = k * stride
        if play[k] == lay:
            return pbuf[base : base + size]
        if play[k] == lay - 1:
            for q in range(meta[OLD_SIZE]):  # forward: pos_map[q] <= q
                p = pos_map[q]
                if p >= 0:
                    pbuf[base + p] = pbuf[base + q]
            play[k] = lay
            return pbuf[base : base + size]
    else:
        cap = min(pbuf.shape[0] // stride, powner.shape[0])
        k = meta[HAND]
        if k >= cap:
            k = 0
        if keep >= 0 and powner[k] == keep:
            k = k + 1 if k + 1 < cap else 0
        meta[HAND] = k + 1
        if powner[k] >= 0:
            pmap[powner[k]] = -1
        powner[k] = r
        pmap[r] = k
        base = k * stride
    for p in range(size):
        pbuf[base + p] = row[order[p]]
    play[k] = lay
    return pbuf[base : base + size]
