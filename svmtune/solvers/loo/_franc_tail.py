"""Franc's certificate on the shrinking SMO: a retrain handed over keeps its bound, checked at
intervals, with H ascended in a low-rank factor of the Gram matrix.

Franc's stop in the compiled loop (:mod:`svmtune.solvers.loo._exact_loo_loop`) tests its bound
before every SMO step and ascends H with kernel columns, so its retrains cannot shrink; past
:data:`~svmtune.solvers.loo._retrains.SHRINK_AFTER` steps the eps-KKT stop's shrunk steps cost
a fraction of its steps. Here the bound is decoupled from the SMO's steps:

- ``F(alpha, b*)``, the primal value of the iterate at its best bias, needs the gradient of
  every point: the shrinking SMO's is recomputed (as when it unshrinks: the free support
  vectors' rows over the shrunk variables) at checks spaced by a share of the steps made
  (:data:`CHECK_SHARE`, at least :data:`CHECK_MIN`), so they cost a share of the SMO's work;
- ``H(beta)`` may be taken at any point of the box: at each check it is ascended from the
  retrain's iterate, ``beta = alpha`` (``y'alpha = 0``, where H is the retrain's dual value
  ``D``): its coordinate passes climb above ``D`` by about what leaving the point out moves the
  decision, and the bound holds once the iterate's duality gap ``F - D`` is below that gain.
  Where the
  Gram matrix has a low rank (:class:`LowRank`: the linear kernel on fewer features than
  points, or a wide RBF kernel), ``K = L L' + E`` with ``||E|| <= rho``, a coordinate step on H
  costs ``O(k)`` (:mod:`svmtune.solvers.loo._low_rank_loop`), and ``H`` is bounded below in the
  factor (``rho ||v||^2 / 2`` covers ``E``), so a certificate stays a proof. From the full
  solution without the point (the compiled loop's ``beta``) the same passes climb far slower.
  A check's passes stop when H exceeds F or stalls, and cost at most :data:`H_SHARE` of the
  SMO's CPU since the last check; a check skips them while the gap is far above the last gain
  (:data:`GAIN_SHARE`).

The retrain ends when ``F < H`` (the sign of its decision certified), or at the eps-KKT stop.
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune.solvers.loo._retrains import CountedGram, FullGbar, RetrainSetup, ShrinkingTail
from svmtune.solvers.loo._shrinking_cost import shrinking_cpu

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop, _franc_bound, _low_rank_loop
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")
    _franc_bound = lazy_module("svmtune.solvers.loo._franc_bound")
    _low_rank_loop = lazy_module("svmtune.solvers.loo._low_rank_loop")

__all__ = [
    "CHECK_MIN",
    "CHECK_SHARE",
    "MAX_RANK",
    "WORK_H",
    "FrancTail",
    "LowRank",
    "factor_cpu",
    "rank_cap",
]

MAX_RANK = 64
"""Columns of the low-rank factor at most (and at most a third of the points): beyond, a
coordinate step on H in the factor costs about what a kernel column does."""

RANK_TOL = 1e-13
"""The factor stops when every residual diagonal entry is below ``RANK_TOL`` times the largest
diagonal entry (a Gram matrix of rank ``k`` computed in floating point leaves about 1e-16)."""

CHECK_MIN = 50
"""Shrinking SMO steps between two checks of the bound, at least."""

CHECK_SHARE = 8
"""A check comes after ``1 / CHECK_SHARE`` of the steps the retrain made so far at the soonest
(at least :data:`CHECK_MIN`), later where the duality gap's decay since the last check says it
will not meet H's gain before (at the latest after as many steps as made so far): each check
costs a call into the shrinking SMO and a recomputation of the shrunk variables' gradient."""

H_EPOCHS = 100
"""Coordinate passes on H per check at most, from the retrain's iterate (fewer where H
exceeds F first, or stalls: :data:`H_STALL`). One pass gains a fraction of what forty do
(ringnorm, linear, C = 10: 13 of 21 handed-over retrains certified with 10 passes a check, 15
with 40, and far sooner)."""

H_SHARE = 0.25
"""A check's passes on H cost at most this share of the SMO's CPU since the last check (the
first: of the compiled loop's steps), at least two passes: the bound costs at most about a
quarter more where it never certifies."""

H_STALL = 0.01
"""The passes on H stop when one adds less than this share of what they gained so far."""

GAIN_SHARE = 2.0
"""A check ascends H only when the iterate's duality gap ``F - D`` is below ``GAIN_SHARE``
times what H's passes gained over ``D`` at the last check that ascended it (the gain moves
little from check to check; the gap shrinks as the retrain converges)."""

WORK_H = 0.12
"""CPU of one pass over the points in one column of the factor, in eps-KKT steps of the
compiled loop: a check that ascends H costs ``WORK_H k`` per pass (each coordinate pass is
followed by a pass for the bound); 0.07-0.19 timed against the compiled loop's eps-KKT steps on
six Ratsch sets, linear kernel, C = 10 (a rough constant: it only weighs the checks)."""


class LowRank:
    """A low-rank factor of the Gram matrix, computed the first time a retrain asks (once for
    all threads): :func:`low_rank_factor`, or None where ``K`` has no factor of at most
    :data:`MAX_RANK` columns (and a third of the points)."""

    def __init__(self, K: NDArray[np.float64], diag: NDArray[np.float64]) -> None:
        self._K, self._diag = K, diag
        self._lock = threading.Lock()
        self._done = False
        self._value: tuple[NDArray[np.float64], float] | None = None
        self.cpu = 0.0  # the factorization's counted CPU, once made

    def get(self) -> tuple[NDArray[np.float64], float] | None:
        """``(L, rho)``, or None."""
        with self._lock:
            if not self._done:
                self._done = True
                self._value = low_rank_factor(self._K, self._diag)
                n = self._K.shape[0]
                k = self._value[0].shape[1] if self._value is not None else rank_cap(n)
                self.cpu = factor_cpu(k)
            return self._value

    def tail(
        self,
        setup: RetrainSetup,
        store: CountedGram,
        gbar_full: FullGbar,
        work: NDArray[np.float64],
        r: int,
        *,
        max_iter: int,
        steps_before: int,
    ) -> FrancTail | None:
        """The shrinking SMO under Franc's stop from the compiled loop's last iterate (``work``
        of :func:`~svmtune.solvers.loo._exact_loo_loop.work_arrays`: ``alpha``, ``G``,
        ``beta``), or None where the Gram matrix has no low-rank factor."""
        factor = self.get()
        if factor is None:
            return None
        return FrancTail(
            setup,
            store,
            gbar_full,
            work[0],
            work[1],
            r,
            max_iter=max_iter,
            factor=factor,
            steps_before=steps_before,
        )


def rank_cap(n: int) -> int:
    """Columns the factor of ``n`` points may have at most: :data:`MAX_RANK`, and a third of
    the points."""
    return min(MAX_RANK, n // 3)


def factor_cpu(k: int) -> float:
    """Counted CPU of a pivoted Cholesky that makes ``k`` columns (or gives up after ``k``):
    column ``t`` is ``t`` passes over the points in one column (:data:`WORK_H` each)."""
    return WORK_H * k * (k + 1) / 2.0


def low_rank_factor(
    K: NDArray[np.float64], diag: NDArray[np.float64], *, max_rank: int | None = None
) -> tuple[NDArray[np.float64], float] | None:
    """Pivoted Cholesky of ``K`` to :data:`RANK_TOL`: ``(L, rho)`` with ``rho`` at least the
    largest eigenvalue of ``E = K - L L'``, or None where more than ``max_rank`` columns
    (default: :data:`MAX_RANK`, and a third of the points) would be needed.

    ``E`` is the Schur complement of the pivots in ``K`` (positive semidefinite with ``K``), so
    its largest eigenvalue is at most its trace, the residual diagonal; ``rho`` adds a margin
    for the rounding of ``L`` (a few ulps of ``k n max K_ii``)."""
    n = K.shape[0]
    cap = rank_cap(n) if max_rank is None else max_rank
    scale = float(np.max(diag)) if n else 0.0
    if scale <= 0.0 or cap < 1:
        return None
    L = np.zeros((n, cap))
    res = np.empty(n)
    k = _low_rank_loop.pivoted_cholesky(K, diag, cap, RANK_TOL * scale, L, res)
    if k < 0:
        return None
    L = np.ascontiguousarray(L[:, :k])
    exact = np.asarray(diag, dtype=np.float64) - np.einsum("ij,ij->i", L, L)
    eps = float(np.finfo(np.float64).eps)
    rho = float(np.sum(np.maximum(exact, 0.0))) + 8.0 * eps * (k + 2) * n * scale
    return L, rho


class FrancTail(ShrinkingTail):
    """A retrain's shrinking SMO under Franc's stop (see the module): its bound checked before
    the first step and then at intervals, H ascended in the factor ``(L, rho)`` from the
    iterate. ``certified`` once the bound held; ``cpu`` counts the checks too,
    ``smo_cpu`` the SMO alone (what the eps-KKT stop's run costs up to there). ``franc`` off
    (:meth:`stop_checking`): the eps-KKT stop alone from there.

    ``alpha`` and ``G`` are copied: the run may go on after the caller's arrays are reused."""

    def __init__(
        self,
        setup: RetrainSetup,
        store: CountedGram,
        gbar_full: FullGbar,
        alpha: NDArray[np.float64],
        G: NDArray[np.float64],
        r: int,
        *,
        max_iter: int,
        factor: tuple[NDArray[np.float64], float],
        steps_before: int,
    ) -> None:
        super().__init__(setup, store, gbar_full, alpha.copy(), G.copy(), r, max_iter=max_iter)
        self._L, self._rho = factor
        self._C = float(setup.C)
        self._beta = np.empty(self._y.shape[0])
        self._gain = math.inf  # what H's passes gained over the dual value at the last check
        self._gaps: list[tuple[int, float]] = []  # (SMO steps, duality gap) at each check
        self._smo_seen = self.smo_cpu  # the SMO's CPU at the last check
        self._lead = int(steps_before)  # the compiled loop's steps, before the first check
        self._w = np.zeros(self._L.shape[1])
        self._z = np.empty(self._y.shape[0])
        self._before = int(steps_before)
        self.franc = True
        self.certified = False
        self.checks = 0
        self.H = -math.inf
        self._decision = math.nan

    def stop_checking(self) -> None:
        """The eps-KKT stop alone from here (the bound no longer checked)."""
        self.franc = False

    def advance(self, max_steps: int | None = None) -> float:
        """At most ``max_steps`` more SMO steps (all it needs when None), the bound checked
        between parts; their counted CPU, the checks' included."""
        if not self.franc:
            return super().advance(max_steps)
        total = 0.0
        left = math.inf if max_steps is None else max_steps
        while self.franc and not self.done():
            total += self._check()
            if self.certified or not self.franc or left <= 0:
                break
            part = int(min(self._next_part(), left))
            total += super().advance(part)
            left -= part
        if not self.franc and not self.done() and left > 0:
            total += self.advance(None if max_steps is None else int(left))
        return total

    def _next_part(self) -> int:
        """SMO steps to the next check: where the iterate's duality gap, shrinking as it did
        since the last check (geometrically in the steps), meets what H's passes gain over the
        dual value; between :data:`CHECK_SHARE`-th of the steps made so far (at least
        :data:`CHECK_MIN`) and as many as made so far."""
        made = self._before + self.run.iterations
        lo, hi = max(CHECK_MIN, made // CHECK_SHARE), max(CHECK_MIN, made)
        (s0, g0), (s1, g1) = self._gaps[-2:] if len(self._gaps) > 1 else ((0, 0.0), (0, 0.0))
        if not (s1 > s0 and 0.0 < g1 < g0 and 0.0 < self._gain < g1):
            return lo
        rate = math.log(g0 / g1) / (s1 - s0)  # the gap's decay per step
        ahead = math.log(g1 / self._gain) / rate
        return int(min(hi, max(lo, ahead)))

    def _check(self) -> float:
        """The bound at the current iterate; its counted CPU (the gradient's recomputation, the
        best bias, H's pass)."""
        self.checks += 1
        y, r, n, C = self._y, self._r, self._y.shape[0], self._C
        read0 = self._store.read
        G = self.run.gradient
        alpha = self.run.alpha
        F, b, quad = _franc_bound.primal_best_b(y, C, alpha, G, r, self._z)
        cpu = shrinking_cpu(0, self._store.read - read0, n) + _exact_loo_loop.WORK_SELECT
        margin = _exact_loo_loop.MARGIN
        gap = F - (float(np.sum(alpha)) - 0.5 * quad)  # F minus the retrain's dual value
        if gap <= GAIN_SHARE * self._gain:  # H may reach F: ascend it from the iterate
            target = F + margin * (abs(F) + 1.0)
            k = self._L.shape[1]
            budget = H_SHARE * (self.smo_cpu - self._smo_seen + self._lead)
            epochs = int(min(H_EPOCHS, max(2, budget / (2.0 * WORK_H * k))))
            H, passes = _low_rank_loop.h_above(
                self._L, y, C, r, alpha, self._beta, self._w, self._rho, epochs, target, H_STALL
            )
            self.H = max(self.H, H)
            cpu += passes * WORK_H * k
            self._gain = max(0.0, self.H - (F - gap))
        self._gaps.append((self.run.iterations, gap))
        self._smo_seen, self._lead = self.smo_cpu, 0
        if F < self.H - margin * (abs(F) + abs(self.H)):
            self.certified = True
            self._decision = float(y[r] * (G[r] + 1.0) + b)
        self.cpu += cpu
        return cpu

    def done(self) -> bool:
        """Certified (while checking), converged, or at ``max_iter`` steps."""
        return bool((self.franc and self.certified) or super().done())

    def status(self) -> int:
        """``CERTIFIED``, or the eps-KKT stop's status."""
        if self.franc and self.certified:
            return _exact_loo_loop.CERTIFIED
        return super().status()

    def decision(self) -> float:
        """The certified decision (the iterate's at its best bias), else the eps-KKT one."""
        if self.franc and self.certified:
            return self._decision
        return super().decision()
