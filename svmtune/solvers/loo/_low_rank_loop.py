"""Franc's H in a low-rank factor of the Gram matrix: coordinate ascent and the bound (numba).

With ``K = L L' + E`` (``L`` of ``k`` columns, ``E`` small), the feature of ``x_t`` in the
problem forced through ``x_r`` is ``z_t = L_t - L_r`` and ``H``'s quadratic term is
``||w||^2`` with ``w = sum_t beta_t y_t z_t`` (``k`` numbers): a coordinate step on H costs
``O(k)`` instead of a kernel column, as in Hsieh et al.'s dual coordinate descent for linear
SVMs ("A dual coordinate descent method for large-scale linear SVM", 2008) without a bias.
:mod:`svmtune.solvers.loo._franc_tail` uses them in the shrinking SMO's retrains.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["h_above", "h_epoch", "h_value", "pivoted_cholesky"]


@njit(cache=True, nogil=True)
def h_epoch(L, y, C, r, beta, w):  # pragma: no cover - compiled
    """One pass of exact coordinate steps on ``H_L(beta) = sum beta - 1/2 ||w||^2`` over every
    variable but ``r`` (box ``0 <= beta_t <= C``), ``w`` updated with each; returns the steps
    that moved a variable."""
    n = L.shape[0]
    k = L.shape[1]
    Lr = L[r]
    moved = 0
    for t in range(n):
        if t == r:
            continue
        Lt = L[t]
        dot = 0.0
        q = 0.0
        for c in range(k):
            zc = Lt[c] - Lr[c]
            dot += zc * w[c]
            q += zc * zc
        g = 1.0 - y[t] * dot
        b = beta[t]
        if q > 0.0:
            new = b + g / q
        else:  # x_t is x_r in the factor: H is linear in beta_t
            new = C if g > 0.0 else 0.0
        if new < 0.0:
            new = 0.0
        elif new > C:
            new = C
        d = new - b
        if d != 0.0:
            moved += 1
            beta[t] = new
            s = d * y[t]
            for c in range(k):
                w[c] += s * (Lt[c] - Lr[c])
    return moved


@njit(cache=True, nogil=True)
def h_value(L, y, r, beta, w, rho):  # pragma: no cover - compiled
    """A lower bound on Franc's ``H(beta)`` over the Gram matrix; ``w`` is recomputed from
    ``beta`` first (no drift).

    ``beta' Q~ beta = v' K v`` with ``v_t = y_t beta_t`` (``t != r``) and ``v_r = -y'beta``, so
    ``v' K v <= ||L' v||^2 + rho ||v||^2`` for ``rho`` at least ``E``'s largest eigenvalue."""
    n = L.shape[0]
    k = L.shape[1]
    Lr = L[r]
    for c in range(k):
        w[c] = 0.0
    total = 0.0
    sq = 0.0
    s = 0.0
    for t in range(n):
        b = beta[t]
        if t == r or b == 0.0:
            continue
        total += b
        sq += b * b
        s += y[t] * b
        v = y[t] * b
        Lt = L[t]
        for c in range(k):
            w[c] += v * (Lt[c] - Lr[c])
    ww = 0.0
    for c in range(k):
        ww += w[c] * w[c]
    return total - 0.5 * ww - 0.5 * rho * (sq + s * s)


@njit(cache=True, nogil=True)
def h_above(L, y, C, r, alpha, beta, w, rho, epochs, target, stall):  # pragma: no cover
    """H from the retrain's iterate: ``beta = alpha`` (where ``H`` is the retrain's dual value,
    ``y'alpha = 0``), then passes of :func:`h_epoch`, each followed by the lower bound
    :func:`h_value`, until it exceeds ``target``, or a pass adds less than ``stall`` times what
    H gained so far, or after ``epochs`` passes. Returns ``(H, passes)``: the best bound
    (``beta`` and ``w`` are its point) and the passes over the factor made."""
    n = L.shape[0]
    for t in range(n):
        beta[t] = alpha[t]
    beta[r] = 0.0
    start = h_value(L, y, r, beta, w, rho)
    H = start
    passes = 1
    for _ in range(epochs):
        moved = h_epoch(L, y, C, r, beta, w)
        new = h_value(L, y, r, beta, w, rho)
        passes += 2
        gained = new - H
        if new > H:
            H = new
        if H > target or moved == 0 or gained <= stall * (H - start):
            break
    return H, passes


@njit(cache=True, nogil=True)
def pivoted_cholesky(K, diag, cap, tol, L, res):  # pragma: no cover - compiled
    """Pivoted Cholesky of ``K`` into ``L[:, :k]`` until every residual diagonal entry
    (``res``) is at most ``tol``; returns ``k``, or ``-1`` where ``cap`` columns do not reach
    it."""
    n = K.shape[0]
    for t in range(n):
        res[t] = diag[t]
    k = 0
    while True:
        p = 0
        for t in range(n):
            if res[t] > res[p]:
                p = t
        if res[p] <= tol:
            return k
        if k == cap:
            return -1
        piv = np.sqrt(res[p])
        Kp = K[p]
        Lp = L[p]
        for t in range(n):
            s = Kp[t]
            Lt = L[t]
            for c in range(k):
                s -= Lt[c] * Lp[c]
            L[t, k] = s / piv
        for t in range(n):
            res[t] -= L[t, k] * L[t, k]
        res[p] = 0.0
        k += 1
