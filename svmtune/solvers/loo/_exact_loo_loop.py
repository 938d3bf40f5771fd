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
  piecewise-linear problem in ``b``, minimised at an order statistic (a quickselect, O(n);
  :mod:`svmtune.solvers.loo._franc_bound` holds the bound's pieces); the bound is tested before
  every SMO step, at the last best bias, recomputed when :data:`EXACT_BIAS_EVERY` says.

Cost: a step under Franc's stop is one pass over the points that updates ``G`` and ``u`` and
writes the hinge losses and H's coordinate gains (no branch, no division, no floating-point
sum: it compiles to vector code), then the hinge sum and the best gain over those arrays;
``alpha'Q alpha`` is updated in O(1) from the step's pair. Such a step costs about twice an
eps-KKT step (:data:`WORK_FRANC_STEP`), which the efficiency test of
:func:`svmtune.solvers.loo._exact_loo` weighs against the steps it saves.

Kernel rows are counted as the paper's KerEval (columns of ``K`` read): one per seeded variable
(``r`` included), two per SMO step, one per greedy step on H. ``nogil``: points run in threads.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from svmtune.solvers.loo._franc_bound import (
    greedy,
    h_move,
    h_start,
    left_out_bias,
    primal_best_b,
    step_with_h,
)
from svmtune.solvers.smo._loop_passes import _select_i_st, _select_j_st, _status, _statuses
from svmtune.solvers.smo._pair_step import add_pair, clipped_step

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
of :func:`svmtune.solvers.loo._exact_loo` weighs the two stops by it. The three constants
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
    # the statuses (I_up / I_low membership by the int8 bits of the SMO loop's passes), r in
    # neither: the four-lane passes select as one scan skipping r would, bit for bit
    st = np.empty(n, dtype=np.int8)
    _statuses(y, Cv, alpha, n, st)
    st[r] = 0
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
    iters = 0
    best = np.zeros(3)  # H's greedy coordinate: variable, move, gain
    track = np.zeros(2)  # the pass's account of F around b (see step_with_h)
    franc = False  # Franc's stop on (from the first step, with opts.franc)
    while True:
        if opts.franc and iters == 0:
            # H starts at the full solution without r: any beta in the box bounds the primal
            # value of the classifiers through x_r from below
            franc = True
            H, S = h_start(K, diag, y, alpha_full, G_full, r, beta, u, q, qinv)
            if alpha_full[r] <= 0.0:
                rows += 1  # row r (read by the seeding otherwise)
            F, b, quad = primal_best_b(y, C, alpha, G, r, z)
            cpu += WORK_SELECT
            slack = np.inf
        # ---- working-set selection (LIBSVM's second order), all variables but r -------------
        gmax, i = _select_i_st(st, y, G, n)
        j = -1
        gmin = np.inf
        if i >= 0:
            gmin, j = _select_j_st(st, y, G, diag, n, gmax, yes, K[i], diag[i], no_order, yes)
        if i < 0 or j < 0 or gmax - gmin < opts.tol:
            return yr * (G[r] + 1.0) + left_out_bias(y, G, r, z), KKT, iters, rows, cpu
        if franc and F < H - MARGIN * (abs(F) + abs(H)):
            return yr * (G[r] + 1.0) + b, CERTIFIED, iters, rows, cpu
        if iters >= opts.max_iter:
            return yr * (G[r] + 1.0) + left_out_bias(y, G, r, z), MAX_ITER, iters, rows, cpu
        # ---- the two-variable update -------------------------------------------------------
        Ki = K[i]
        rows += 2
        old_i = alpha[i]
        old_j = alpha[j]
        alpha[i], alpha[j] = clipped_step(
            diag[i] + diag[j] - 2.0 * Ki[j], gmax, y[i], y[j], G[j], C, C, old_i, old_j
        )
        st[i] = _status(y[i], alpha[i], C)
        st[j] = _status(y[j], alpha[j], C)
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
            H, S, loss = step_with_h(
                K, y, C, r, i, j, ci, cj, G, beta, u, q, qinv, S, H, b, best, track, z, gain
            )
            F = 0.5 * quad + C * loss
            # F at b is exact when b still minimises it; else an upper bound, made exact by a
            # quickselect every bias_every steps, or sooner when F - H is now below twice what
            # the last one lowered F by (the bound may then hold at the best bias)
            if not (track[0] <= P and P <= track[1]):
                if F - H < 2.0 * slack or (iters + 1) % opts.bias_every == 0:
                    F_at_b = F
                    F, b, quad = primal_best_b(y, C, alpha, G, r, z)
                    cpu += WORK_SELECT
                    slack = F_at_b - F
            closed = 0.5 * (closed - (F - H))
            for _ in range(opts.h_steps):  # H's own greedy coordinate steps
                t = np.int64(best[0])
                if t < 0 or best[2] <= 1e-15 * abs(H):
                    break
                if opts.h_pays and best[2] < closed:
                    break  # an SMO step closes more of the gap per kernel column
                S += h_move(K, y, beta, u, t, best[1])
                H += best[2]
                rows += t != i and t != j
                if opts.h_steps > 1:
                    greedy(K, y, C, r, beta, u, q, qinv, S, best)
        iters += 1
