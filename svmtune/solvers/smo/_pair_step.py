"""One SMO iteration's step (numba), shared by the SMO loop and the exact-LOO retrains.

Problem (LIBSVM's notation): ``min 1/2 a'Qa - e'a`` s.t. ``y'a = 0``, ``0 <= a_t <= C_t``, with
gradient ``G = Qa - e`` and ``v_t = -y_t G_t``. An iteration picks ``i`` maximising ``v`` over
``I_up = {a_t < C_t, y_t = +1} u {a_t > 0, y_t = -1}``, then ``j`` over ``I_low`` (the minimal
``v``, or LIBSVM's second-order rule of Fan, Chen and Lin 2005): both loops select with the
four-lane passes on int8 statuses of :mod:`svmtune.solvers.smo._loop_passes`. This module
moves the pair analytically along ``y_i e_i - y_j e_j`` to the box (:func:`clipped_step`) and
updates the gradient (:func:`add_pair`).

The functions see the variables at positions ``0..size-1`` of the arrays they are given: the
full arrays when every variable is active, or the SMO loop's packed copies of its active
prefix; ``order`` maps a position to its kernel-row column when ``whole`` is False.

They are plain compiled functions, not ``inline="always"``: measured, inlining them into both
loops compiled slower and ran no faster (LLVM inlines them anyway).
"""

from __future__ import annotations

from numba import njit

__all__ = ["SNAP", "TAU", "add_pair", "clipped_step"]

TAU = 1e-12
"""Curvature used when a pair has none, ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's tau)."""

SNAP = 1e-14
"""Relative distance to a bound (times ``C``) within which a step is clipped onto it: a step
that ends within round-off of a bound ends on it, so a variable that should be 0 (or C) is not
left at 1e-16 (or C - 1e-15) and counted as a free support vector."""


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
