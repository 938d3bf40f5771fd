"""Franc, Laskov and Muller's certificate in the compiled retrain loop: the pieces (numba).

The bound of :mod:`svmtune.solvers.loo._exact_loo_loop` compares the primal value ``F`` of the
current iterate at its best bias with ``H``, the dual of the SVM forced through the left-out
point ``x_r``, ascended by its own coordinate steps. Here: order statistics (the best bias of
``F`` and LIBSVM's midpoint bias of a left-out decision), H's start, its exact coordinate moves
and greedy choice, and the one pass an SMO step under the bound makes
(:func:`step_with_h`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmtune.solvers.smo._pair_step import TAU

__all__ = [
    "greedy",
    "h_delta",
    "h_move",
    "h_start",
    "kth_smallest",
    "left_out_bias",
    "primal_best_b",
    "step_with_h",
]


@njit(cache=True, nogil=True)
def kth_smallest(z, m, k):  # pragma: no cover - compiled
    """The ``k``-th smallest of ``z[:m]`` (from 0), ``z[:m]`` partitioned around it: a
    quickselect (median-of-three pivot, three-way partition) that compiles far faster than
    numba's ``np.partition``."""
    lo = 0
    hi = m - 1
    while lo < hi:
        a = z[lo]
        b = z[(lo + hi) // 2]
        c = z[hi]
        pivot = max(min(a, b), min(max(a, b), c))  # the median of the three
        lt = lo
        gt = hi
        t = lo
        while t <= gt:  # z[lo:lt] < pivot, z[lt:t] == pivot, z[gt+1:hi+1] > pivot
            v = z[t]
            if v < pivot:
                z[t] = z[lt]
                z[lt] = v
                lt += 1
                t += 1
            elif v > pivot:
                z[t] = z[gt]
                z[gt] = v
                gt -= 1
            else:
                t += 1
        if k < lt:
            hi = lt - 1
        elif k > gt:
            lo = gt + 1
        else:
            return pivot
    return z[k]


@njit(cache=True, nogil=True)
def left_out_bias(y, G, r, z):  # pragma: no cover - compiled
    """The bias over all points but ``r``: the midpoint of the biases that minimise the primal
    value at the current ``alpha`` (see :func:`svmtune.solvers.loo._bias.midpoint_biases`).

    The hinge sum's slope in ``b`` is ``#{v_t < b} - P`` with ``v_t = -y_t G_t`` and ``P`` the
    positives, so the minimisers are ``[v_(P), v_(P+1)]`` (order statistics)."""
    n = y.shape[0]
    m = 0
    P = 0
    for t in range(n):
        if t == r:
            continue
        z[m] = -y[t] * G[t]
        m += 1
        if y[t] > 0.0:
            P += 1
    lo = kth_smallest(z, np.int64(m), P - 1)  # typed: m is a literal 0 to numba
    hi = np.inf
    for t in range(P, m):
        if z[t] < hi:
            hi = z[t]
    return 0.5 * (lo + hi)


@njit(cache=True, nogil=True)
def primal_best_b(y, C, alpha, G, r, z):  # pragma: no cover - compiled
    """``(F(alpha, b*), b*, alpha'Q alpha)``: the primal value without ``r`` at the bias that
    minimises it, the bias, and the quadratic term.

    ``F = 1/2 alpha'Q alpha + C sum_{t != r} max(0, 1 - y_t (g_t + b))`` with
    ``g_t = y_t (G_t + 1)``. Its slope in ``b`` is ``C (#{z_t < b} - P)``, with ``z_t = y_t - g_t``
    and ``P`` the positives, so ``b*`` is the ``P``-th smallest ``z``.
    """
    n = y.shape[0]
    quad = 0.0
    m = 0
    P = 0
    for t in range(n):
        quad += alpha[t] * (G[t] + 1.0)
        if t == r:
            continue
        z[m] = y[t] - y[t] * (G[t] + 1.0)
        m += 1
        if y[t] > 0.0:
            P += 1
    b = kth_smallest(z, np.int64(m), P - 1)  # typed: m is a literal 0 to numba
    loss = 0.0
    for t in range(n):
        if t == r:
            continue
        margin = 1.0 - y[t] * (y[t] * (G[t] + 1.0) + b)
        if margin > 0.0:
            loss += margin
    return 0.5 * quad + C * loss, b, quad


@njit(cache=True, nogil=True)
def h_delta(q, qinv, C, beta_t, w_t):  # pragma: no cover - compiled
    """The move of ``beta_t`` that maximises H over it alone (box only), and H's gain, given
    ``w_t = (Q~ beta)_t`` and its curvature ``q = k~_tt`` (``qinv = 1 / q``)."""
    g = 1.0 - w_t
    new = beta_t + g * qinv
    if new < 0.0:
        new = 0.0
    elif new > C:
        new = C
    d = new - beta_t
    return d, d * g - 0.5 * d * d * q


@njit(cache=True, nogil=True)
def h_start(K, diag, y, alpha_full, G_full, r, beta, u, q, qinv):  # pragma: no cover - compiled
    """``beta`` = the full solution without ``r``, ``u = K (beta * y)``, ``S = y'beta``, H's
    curvatures ``q_t = k~_tt`` (at least ``TAU``) and ``1 / q_t``; returns ``(H(beta), S)``. Then
    ``w_t = (Q~ beta)_t = y_t (u_t - K_tr S - u_r + K_rr S)`` is O(1). One pass, no branch."""
    n = y.shape[0]
    Kr = K[r]
    krr = diag[r]
    ar = alpha_full[r]
    yr = y[r]
    S = -ar * yr  # since y'alpha_full = 0
    ur = yr * (G_full[r] + 1.0) - ar * yr * krr
    c0 = krr * S - ur
    H = 0.0
    for t in range(n):
        bt = alpha_full[t]
        beta[t] = bt
        ut = y[t] * (G_full[t] + 1.0) - ar * yr * Kr[t]
        u[t] = ut
        qt = max(diag[t] - 2.0 * Kr[t] + krr, TAU)
        q[t] = qt
        qinv[t] = 1.0 / qt
        H += bt * (1.0 - 0.5 * y[t] * (ut - Kr[t] * S + c0))
    H -= ar * (1.0 - 0.5 * yr * (ur - krr * S + c0))  # beta_r = 0
    beta[r] = 0.0
    return H, S


@njit(cache=True, nogil=True)
def step_with_h(
    K, y, C, r, i, j, ci, cj, G, beta, u, q, qinv, S, H, b, best, track, hinge, gain
):  # pragma: no cover - compiled
    """One pass after the SMO step moved ``alpha_i, alpha_j`` by ``ci y_i, cj y_j``.

    In it: ``G`` updated; H ascended on ``beta_i`` then ``beta_j`` (their rows are at hand) and
    ``u`` with them; the hinge losses at the given bias ``b``, with what tells whether ``b``
    still minimises the primal value (into ``track``: ``#{z_t < b}`` and ``#{z_t <= b}``, with
    ``z_t = -y_t G_t``); and H's greedy coordinate (the variable whose exact line search gains H
    most, into ``best``: variable, move, gain). The pass over the points has no branch and no
    floating-point sum, so it compiles to vector code; the hinge sum (four partial sums, in a
    fixed order) and the greedy coordinate are taken after it, from ``hinge`` and ``gain``.
    Returns ``(H, S, the hinge sum)``."""
    n = y.shape[0]
    Kr = K[r]
    krr = K[r, r]
    Ki = K[i]
    Kj = K[j]
    ur = u[r]
    wi = y[i] * (u[i] - Kr[i] * S - ur + krr * S)
    di, gain_i = h_delta(q[i], qinv[i], C, beta[i], wi)
    beta[i] += di
    ei = di * y[i]
    S1 = S + ei  # u and S after the move of beta_i, for the move of beta_j
    wj = y[j] * (u[j] + ei * Ki[j] - Kr[j] * S1 - (ur + ei * Ki[r]) + krr * S1)
    dj, gain_j = h_delta(q[j], qinv[j], C, beta[j], wj)
    beta[j] += dj
    ej = dj * y[j]
    S = S1 + ej
    ur = ur + ei * Ki[r] + ej * Kj[r]  # u_r after the pass
    c0 = krr * S - ur
    n_lt = 0
    n_le = 0
    for t in range(n):
        kit = Ki[t]
        kjt = Kj[t]
        yt = y[t]
        Gt = G[t] + yt * (ci * kit + cj * kjt)
        G[t] = Gt
        ut = u[t] + ei * kit + ej * kjt
        u[t] = ut
        z = -yt * Gt
        hinge[t] = max(yt * (z - b), 0.0)
        n_lt += z < b
        n_le += z <= b
        g = 1.0 - yt * (ut - Kr[t] * S + c0)
        bt = beta[t]
        d = min(max(bt + g * qinv[t], 0.0), C) - bt
        gain[t] = d * (g - 0.5 * d * q[t])
    zr = -y[r] * G[r]  # r counted above: taken out
    n_lt -= zr < b
    n_le -= zr <= b
    hinge[r] = 0.0
    gain[r] = 0.0
    l0 = 0.0
    l1 = 0.0
    l2 = 0.0
    l3 = 0.0
    n4 = n - n % 4
    for t in range(0, n4, 4):
        l0 += hinge[t]
        l1 += hinge[t + 1]
        l2 += hinge[t + 2]
        l3 += hinge[t + 3]
    for t in range(n4, n):
        l0 += hinge[t]
    best_t = -1
    best_gain = 0.0
    for t in range(n):
        if gain[t] > best_gain:
            best_gain = gain[t]
            best_t = t
    best[0] = best_t
    best[2] = best_gain
    if best_t >= 0:
        bt = beta[best_t]
        g = 1.0 - y[best_t] * (u[best_t] - Kr[best_t] * S + c0)
        best[1] = min(max(bt + g * qinv[best_t], 0.0), C) - bt
    track[0] = n_lt
    track[1] = n_le
    return H + gain_i + gain_j, S, (l0 + l1) + (l2 + l3)


@njit(cache=True, nogil=True)
def greedy(K, y, C, r, beta, u, q, qinv, S, best):  # pragma: no cover - compiled
    """H's greedy coordinate at the current ``beta`` (into ``best``: variable, move, gain)."""
    Kr = K[r]
    krr = K[r, r]
    ur = u[r]
    best[0] = -1.0
    best[2] = 0.0
    for t in range(y.shape[0]):
        if t == r:
            continue
        w = y[t] * (u[t] - Kr[t] * S - ur + krr * S)
        d, gain = h_delta(q[t], qinv[t], C, beta[t], w)
        if gain > best[2]:
            best[0] = t
            best[1] = d
            best[2] = gain


@njit(cache=True, nogil=True)
def h_move(K, y, beta, u, t, d):  # pragma: no cover - compiled
    """``beta_t += d`` and ``u += d y_t K[t]``; returns the change of ``S = y'beta``."""
    beta[t] += d
    e = d * y[t]
    Kt = K[t]
    for s in range(u.shape[0]):
        u[s] += e * Kt[s]
    return e
