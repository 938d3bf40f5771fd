"""The compiled retrains of exact leave-one-out: alpha-seeded SMO with Franc et al.'s stop.

One call retrains the SVM without one point ``r``, over one full Gram matrix ``K``,
starting from the solution on all points (Franc, Laskov, Muller 2008, Algorithm 1, step 3):

- **seeding** (DeCoste and Wagstaff): ``alpha_r`` is set to 0 and its mass is moved onto other
  variables of the same class (free support vectors first, then zeros, each up to ``C``), so
  ``y'alpha = 0`` and the box still hold; only when the class is full is the other class
  lowered instead. The gradient ``G = Q alpha - e`` is updated with one kernel row per variable
  changed;
- **SMO** with LIBSVM's second-order working-set selection on all variables but ``r``, stopped
  by the eps-KKT gap (``gap < tol``), the paper's baseline (``franc = False``);
- **Franc's stop** (Algorithm 3, ``franc = True``): alongside the SMO steps, its own ascent on

      H(beta) = sum_i beta_i - 1/2 sum_ij beta_i beta_j y_i y_j k~_ij,  0 <= beta <= C, beta_r = 0

  with ``k~_ij = k_ij - k_ir - k_jr + k_rr``: the dual of the primal problem constrained to
  ``f(x_r) = 0`` (the hyperplane through ``x_r`` is a bias-free SVM in the features
  ``phi(x) - phi(x_r)``). By weak duality ``H(beta)`` bounds from below the primal value of every
  classifier whose decision at ``x_r`` is 0; so once the primal value of the current iterate at
  its best bias, ``F(alpha, b*)``, is below ``H(beta)``, no classifier at least as good as it
  changes sign at ``x_r``: the sign of ``f(x_r; alpha, b*)`` is the sign at the optimum
  (Theorem 1, Corollary 1). ``beta`` starts at the full solution without ``r`` (feasible: the box
  is the only constraint). After each SMO step, H is ascended on the two variables the step
  moved (their kernel rows are at hand) and then by ``h_steps`` greedy coordinate steps of its
  own, as the paper's Step 6 (a modified Improved SMO: ``B0(r)`` has no equality constraint, so
  one variable moves at a time, the one whose exact line search gains H most); each greedy step
  reads the kernel row of the variable it moves, counted. ``F`` at its best bias is a convex
  piecewise-linear problem in ``b``, minimised at an order statistic (:func:`_kth_smallest`,
  O(n)); the bound is tested before every SMO step, at the last best bias, recomputed when
  :data:`EXACT_BIAS_EVERY` says.

Cost: a step under Franc's stop is one pass over the points that updates ``G`` and ``u`` and
writes the hinge losses and H's coordinate gains (no branch, no division, no floating-point
sum: it compiles to vector code), then the hinge sum and the best gain over those arrays;
``alpha'Q alpha`` is updated in O(1) from the step's pair. Such a step costs about twice an
eps-KKT step (:data:`WORK_FRANC_STEP`), which the efficiency test of
:func:`svmtune.solvers.exact_loo.exact_loo` weighs against the steps it saves.

Kernel rows are counted as the paper's KerEval (columns of ``K`` read): one per seeded variable
(``r`` included), two per SMO step, one per greedy step on H. ``nogil``: points run in threads.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from svmtune.solvers._pair_step import TAU, add_pair, clipped_step, select_i, select_j

__all__ = ["CERTIFIED", "KKT", "MAX_ITER", "RetrainOptions", "retrain_one", "work_arrays"]

KKT = 0
"""Status: the retrain stopped on the eps-KKT gap."""
CERTIFIED = 1
"""Status: Franc's bound certified the sign of the left-out decision (F < H)."""
MAX_ITER = 2
"""Status: the retrain reached ``max_iter`` iterations first (the last iterate's decision)."""

EXACT_BIAS_EVERY = 8
"""The primal value's best bias ``b*`` is recomputed (a quickselect, O(n)) when the step's pass
shows the last one no longer minimises ``F`` (it counts the points on each side of it) and
either the bound may hold at the best bias (``F - H`` at the last one is below twice what the
last recomputation lowered ``F`` by) or ``EXACT_BIAS_EVERY`` steps have passed. Otherwise the
bound is tested at the last ``b*``: a primal value above ``F(alpha, b*)``, so no less safe."""

WORK_RETRAIN = 8.0
"""The fixed CPU of a retrain under either stop (the call, the seeding, the bias), in eps-KKT
SMO steps over all points of a full Gram matrix (selection, then the gradient update). The
retrains count their CPU in these units, the same way on every machine, and the efficiency test
of :func:`svmtune.solvers.exact_loo.exact_loo` weighs the two stops by it. The three constants
come from a least-squares fit to the CPU of the compiled retrains of 35 settings (heart, sonar,
ionosphere, wdbc, banana, ringnorm; linear and RBF; C = 0.1 to 100), which gave 1.86, 2.18 and
6.34; with the rounded values the count's ratio of the two stops is off the measured one by 7 %
(median), 36 % at worst (``python benchmarks/franc_stop.py --step-cost``)."""

WORK_FRANC_STEP = 1.9
"""CPU of an SMO step under Franc's stop (selection, then the pass that also ascends H and
writes the hinge losses, and H's greedy step when it pays), in eps-KKT steps."""

WORK_SELECT = 2.4
"""CPU of a recomputation of the best bias (a quickselect over the points), in eps-KKT steps."""

MARGIN = 1e-9
"""Relative margin of the certificate: ``F < H - MARGIN (|F| + |H|)``, so rounding never
certifies a tie."""


class RetrainOptions(NamedTuple):
    """How one retrain runs (an immutable record the compiled loop takes as one argument).

    Attributes
    ----------
    C : float
        Regularization constant.
    tol : float
        The eps of the KKT stop.
    franc : bool
        Franc's stop on (H ascended and the bound tested before every SMO step).
    max_iter : int
        SMO steps at most.
    h_steps : int
        Greedy coordinate steps on H per SMO step (besides the moves on the step's own pair).
    h_pays : bool
        Take a greedy step only when it pays: when its gain in H is at least the closure of the
        gap ``F - H`` per kernel column of the SMO step just made.
    bias_every : int
        SMO steps between two exact best biases (:data:`EXACT_BIAS_EVERY`) when the last one
        does not show the bound close.
    resume : bool
        Go on from the ``alpha`` and ``G`` in the work space (the eps-KKT stop only) instead of
        seeding from the full solution: the steps eps-KKT would make after a certified retrain.
    """

    C: float
    tol: float
    franc: bool
    max_iter: int
    h_steps: int
    h_pays: bool
    bias_every: int
    resume: bool = False


def work_arrays(n: int) -> np.ndarray:
    """The work space of :func:`retrain_one`: rows ``alpha``, ``G`` (its outputs), ``beta``,
    ``u``, ``z`` (also the hinge losses), H's curvatures ``q_t = k~_tt``, their inverses, and
    H's coordinate gains."""
    return np.empty((8, n))


@njit(cache=True, nogil=True)
def _kth_smallest(z, m, k):  # pragma: no cover - compiled
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
def _bias(y, G, r, z):  # pragma: no cover - compiled
    """The bias over all points but ``r``: the midpoint of the biases that minimise the primal
    value at the current ``alpha`` (see :func:`svmtune.solvers.exact_loo.midpoint_biases`).

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
    lo = _kth_smallest(z, np.int64(m), P - 1)  # typed: m is a literal 0 to numba
    hi = np.inf
    for t in range(P, m):
        if z[t] < hi:
            hi = z[t]
    return 0.5 * (lo + hi)


@njit(cache=True, nogil=True)
def _primal_best_b(y, C, alpha, G, r, z):  # pragma: no cover - compiled
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
    b = _kth_smallest(z, np.int64(m), P - 1)  # typed: m is a literal 0 to numba
    loss = 0.0
    for t in range(n):
        if t == r:
            continue
        margin = 1.0 - y[t] * (y[t] * (G[t] + 1.0) + b)
        if margin > 0.0:
            loss += margin
    return 0.5 * quad + C * loss, b, quad


@njit(cache=True, nogil=True)
def _h_delta(q, qinv, C, beta_t, w_t):  # pragma: no cover - compiled
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
def _add_row(K, y, G, t, c):  # pragma: no cover - compiled
    """``G += y * (c * K[t])``: the gradient after ``alpha_t`` moved by ``c y_t``."""
    Kt = K[t]
    for s in range(G.shape[0]):
        G[s] += y[s] * c * Kt[s]


@njit(cache=True, nogil=True)
def _seed(K, y, C, alpha, G, r):  # pragma: no cover - compiled
    """``alpha_r -> 0``, its mass onto the same class (else off the other class); ``G``
    updated. Returns the kernel rows read."""
    n = y.shape[0]
    rows = 0
    ar = alpha[r]
    yr = y[r]
    if ar <= 0.0:
        return rows
    alpha[r] = 0.0
    _add_row(K, y, G, r, -ar * yr)
    rows += 1
    need = ar
    for phase in range(2):
        for t in range(n):
            if need <= 0.0:
                break
            if t == r or y[t] != yr:
                continue
            a = alpha[t]
            if phase == 0 and not (0.0 < a < C):
                continue
            if phase == 1 and a != 0.0:
                continue
            add = min(C - a, need)
            alpha[t] = C if add == C - a else a + add  # exactly at the bound when filled
            need -= add
            _add_row(K, y, G, t, add * y[t])
            rows += 1
    if need > 0.0:  # the class is full: lower the other class by what is left
        for t in range(n):
            if need <= 0.0:
                break
            a = alpha[t]
            if y[t] == yr or a <= 0.0:
                continue
            sub = min(a, need)
            alpha[t] = 0.0 if sub == a else a - sub
            need -= sub
            _add_row(K, y, G, t, -sub * y[t])
            rows += 1
    return rows


@njit(cache=True, nogil=True)
def _h_start(K, diag, y, alpha_full, G_full, r, beta, u, q, qinv):  # pragma: no cover - compiled
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
def _step_with_h(
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
    di, gain_i = _h_delta(q[i], qinv[i], C, beta[i], wi)
    beta[i] += di
    ei = di * y[i]
    S1 = S + ei  # u and S after the move of beta_i, for the move of beta_j
    wj = y[j] * (u[j] + ei * Ki[j] - Kr[j] * S1 - (ur + ei * Ki[r]) + krr * S1)
    dj, gain_j = _h_delta(q[j], qinv[j], C, beta[j], wj)
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
def _greedy(K, y, C, r, beta, u, q, qinv, S, best):  # pragma: no cover - compiled
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
        d, gain = _h_delta(q[t], qinv[t], C, beta[t], w)
        if gain > best[2]:
            best[0] = t
            best[1] = d
            best[2] = gain


@njit(cache=True, nogil=True)
def _h_move(K, y, beta, u, t, d):  # pragma: no cover - compiled
    """``beta_t += d`` and ``u += d y_t K[t]``; returns the change of ``S = y'beta``."""
    beta[t] += d
    e = d * y[t]
    Kt = K[t]
    for s in range(u.shape[0]):
        u[s] += e * Kt[s]
    return e


@njit(cache=True, nogil=True)
def retrain_one(K, diag, y, alpha_full, G_full, r, opts, work):  # pragma: no cover - compiled
    """Retrain without ``r``; returns ``(decision at x_r, status, iterations, rows read, CPU)``
    and leaves the last ``alpha`` and ``G`` in ``work[0]`` and ``work[1]``. The CPU is counted in
    eps-KKT steps (:data:`WORK_RETRAIN` and the others): a count, the same on every machine.

    Arguments: the Gram matrix ``K`` (float64, C-contiguous), its diagonal, the labels, the full
    solution's ``alpha`` and gradient, the point ``r`` left out, the :class:`RetrainOptions`, and
    the work space (:func:`work_arrays`). With ``opts.resume`` (and ``franc`` off) the retrain
    goes on from the ``alpha`` and ``G`` left in ``work`` instead of the seeded start."""
    n = y.shape[0]
    C = opts.C
    franc = opts.franc
    alpha = work[0]
    G = work[1]
    beta = work[2]
    u = work[3]
    z = work[4]
    q = work[5]
    qinv = work[6]
    gain = work[7]
    Cv = np.full(n, C)  # the pair step's per-variable bound
    no_order = np.empty(0, dtype=np.int64)  # positions are the variables themselves
    yes = np.bool_(True)  # typed, not literal: a literal True would compile the helpers again
    rows = 0
    cpu = 0.0  # CPU, in eps-KKT steps (WORK_RETRAIN)
    if not opts.resume:
        for t in range(n):
            alpha[t] = alpha_full[t]
            G[t] = G_full[t]
        rows = _seed(K, y, C, alpha, G, r)
        cpu = WORK_RETRAIN
    yr = y[r]
    H = 0.0
    S = 0.0
    F = np.inf  # F(alpha, b*) at the current alpha
    b = 0.0  # its bias
    quad = 0.0  # alpha'Q alpha, updated with each step (exact again with each exact b*)
    slack = np.inf  # how much the last exact b* lowered F (none yet: the next one is made)
    P = 0  # positives but r: b* is the P-th smallest z_t
    for t in range(n):
        if t != r and y[t] > 0.0:
            P += 1
    if franc:
        H, S = _h_start(K, diag, y, alpha_full, G_full, r, beta, u, q, qinv)
        if alpha_full[r] <= 0.0:
            rows += 1  # row r (read by the seeding otherwise)
        F, b, quad = _primal_best_b(y, C, alpha, G, r, z)
        cpu += WORK_SELECT
    iters = 0
    best = np.zeros(3)  # H's greedy coordinate: variable, move, gain
    track = np.zeros(2)  # the pass's account of F around b (see _step_with_h)
    while True:
        # ---- working-set selection (LIBSVM's second order), all variables but r -------------
        gmax, i = select_i(y, Cv, alpha, G, n, r)
        j = -1
        gmin = np.inf
        if i >= 0:
            gmin, j = select_j(y, Cv, alpha, G, diag, n, r, gmax, yes, K[i], diag[i], no_order, yes)
        if i < 0 or j < 0 or gmax - gmin < opts.tol:
            return yr * (G[r] + 1.0) + _bias(y, G, r, z), KKT, iters, rows, cpu
        if franc and F < H - MARGIN * (abs(F) + abs(H)):
            return yr * (G[r] + 1.0) + b, CERTIFIED, iters, rows, cpu
        if iters >= opts.max_iter:
            return yr * (G[r] + 1.0) + _bias(y, G, r, z), MAX_ITER, iters, rows, cpu
        # ---- the two-variable update -------------------------------------------------------
        Ki = K[i]
        rows += 2
        old_i = alpha[i]
        old_j = alpha[j]
        alpha[i], alpha[j] = clipped_step(
            diag[i] + diag[j] - 2.0 * Ki[j], gmax, y[i], y[j], G[j], C, C, old_i, old_j
        )
        ci = y[i] * (alpha[i] - old_i)
        cj = y[j] * (alpha[j] - old_j)
        if not franc:
            add_pair(G, y, Ki, K[j], ci, cj, n, no_order, yes)
            cpu += 1.0
        else:
            cpu += WORK_FRANC_STEP
            closed = F - H  # the gap before the step; its closure per column below
            di = alpha[i] - old_i
            dj = alpha[j] - old_j
            quad += (
                2.0 * (di * (G[i] + 1.0) + dj * (G[j] + 1.0))
                + di * di * diag[i]
                + dj * dj * diag[j]
                + 2.0 * di * dj * y[i] * y[j] * Ki[j]
            )
            H, S, loss = _step_with_h(
                K, y, C, r, i, j, ci, cj, G, beta, u, q, qinv, S, H, b, best, track, z, gain
            )
            F = 0.5 * quad + C * loss
            # F at b is exact when b still minimises it; else an upper bound, made exact by a
            # quickselect every bias_every steps, or sooner when the last one lowered F by
            # more than F - H is now (the bound may then hold at the best bias)
            if not (track[0] <= P and P <= track[1]):
                if F - H < 2.0 * slack or (iters + 1) % opts.bias_every == 0:
                    F_at_b = F
                    F, b, quad = _primal_best_b(y, C, alpha, G, r, z)
                    cpu += WORK_SELECT
                    slack = F_at_b - F
            closed = 0.5 * (closed - (F - H))
            for _ in range(opts.h_steps):  # H's own greedy coordinate steps
                t = np.int64(best[0])
                if t < 0 or best[2] <= 1e-15 * abs(H):
                    break
                if opts.h_pays and best[2] < closed:
                    break  # an SMO step closes more of the gap per kernel column
                S += _h_move(K, y, beta, u, t, best[1])
                H += best[2]
                rows += t != i and t != j
                if opts.h_steps > 1:
                    _greedy(K, y, C, r, beta, u, q, qinv, S, best)
        iters += 1
