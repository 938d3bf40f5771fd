"""One SMO iteration's pieces (numba), shared by the SMO loop and the exact-LOO retrains.

Problem (LIBSVM's notation): ``min 1/2 a'Qa - e'a`` s.t. ``y'a = 0``, ``0 <= a_t <= C_t``, with
gradient ``G = Qa - e`` and ``v_t = -y_t G_t``. An iteration picks ``i`` maximising ``v`` over
``I_up = {a_t < C_t, y_t = +1} u {a_t > 0, y_t = -1}`` (:func:`select_i`), then ``j`` over
``I_low`` (:func:`select_j`: the minimal ``v``, or LIBSVM's second-order rule of Fan, Chen and
Lin 2005), moves the pair analytically along ``y_i e_i - y_j e_j`` to the box
(:func:`clipped_step`) and updates the gradient (:func:`add_pair`).

The functions see the variables at positions ``0..size-1`` of the arrays they are given: the
full arrays when every variable is active, or the SMO loop's packed copies of its active
prefix; ``order`` maps a position to its kernel-row column when ``whole`` is False. ``skip`` is a
position left out of the selection (the exact-LOO retrain's left-out point; -1 for none).

They are plain compiled functions, not ``inline="always"``: measured, inlining them into both
loops compiled slower and ran no faster (LLVM inlines them anyway).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["SNAP", "TAU", "add_pair", "clipped_step", "select_i", "select_j"]

TAU = 1e-12
"""Curvature used when a pair has none, ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's tau)."""

SNAP = 1e-14
"""Relative distance to a bound (times ``C``) within which a step is clipped onto it: a step
that ends within round-off of a bound ends on it, so a variable that should be 0 (or C) is not
left at 1e-16 (or C - 1e-15) and counted as a free support vector."""


@njit(cache=True, nogil=True)
def select_i(y, C, alpha, G, size, skip):  # pragma: no cover - compiled
    """``(max_{I_up} v, its position)`` over positions ``0..size-1`` but ``skip``; ``-1`` when
    ``I_up`` is empty."""
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


@njit(cache=True, nogil=True)
def select_j(
    y, C, alpha, G, diag, size, skip, gmax, second_order, Ki, kii, order, whole
):  # pragma: no cover - compiled
    """``(min_{I_low} v, position of j)`` over positions ``0..size-1`` but ``skip``.

    With ``second_order`` j is, among the ``t`` with ``v_t < gmax``, the one with the largest
    second-order decrease ``b^2 / a`` (``b = gmax - v_t``, ``a = K_ii + K_tt - 2 K_it``; ``Ki``
    is row ``i`` of the kernel matrix, indexed by column ``t if whole else order[t]``, ``diag``
    by position); else j minimises ``v`` (the maximal violating pair, ``Ki`` unused)."""
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


@njit(cache=True, nogil=True)
def clipped_step(a, gmax, yi, yj, Gj, Ci, Cj, ai, aj):  # pragma: no cover - compiled
    """The new ``(alpha_i, alpha_j)`` after the analytic step along ``d = y_i e_i - y_j e_j``.

    ``f(alpha + s d)`` decreases at rate ``b = v_i - v_j = gmax + y_j G_j`` and has curvature
    ``a = K_ii + K_jj - 2 K_ij`` (``TAU`` when not positive); ``s = b / a`` is clipped to the
    room both variables have in their box, and a step ending within ``SNAP C`` of a bound ends
    on it (exactly)."""
    if a <= 0.0:
        a = TAU
    s = (gmax + yj * Gj) / a
    room_i = Ci - ai if yi > 0.0 else ai
    room_j = aj if yj > 0.0 else Cj - aj
    clip_i = False
    clip_j = False
    if s >= room_i - SNAP * Ci:
        s = room_i
        clip_i = True
    if s >= room_j - SNAP * Cj:
        s = room_j
        clip_j = True
        clip_i = s >= room_i - SNAP * Ci
    if clip_i:
        new_i = Ci if yi > 0.0 else 0.0
    else:
        new_i = ai + yi * s
    if clip_j:
        new_j = 0.0 if yj > 0.0 else Cj
    else:
        new_j = aj - yj * s
    return new_i, new_j


@njit(cache=True, nogil=True)
def add_pair(G, y, Ki, Kj, ci, cj, size, order, whole):  # pragma: no cover - compiled
    """``G_t += y_t (ci K_it + cj K_jt)`` at positions ``0..size-1`` (the gradient after
    ``alpha_i`` and ``alpha_j`` moved by ``ci y_i`` and ``cj y_j``); rows indexed by column
    ``t if whole else order[t]``."""
    if whole:
        for t in range(size):
            G[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
    else:
        for t in range(size):
            c = order[t]
            G[t] += y[t] * (ci * Ki[c] + cj * Kj[c])
