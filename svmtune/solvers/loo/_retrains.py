"""The retrains of exact leave-one-out, and the bias and decision of a solution without a point.

:func:`svmtune.solvers.loo._exact_loo` decides which points to retrain; this module retrains
them: on a full Gram matrix in the compiled loop (``_exact_loo_loop.py``), handed
to the shrinking SMO when not done in :data:`SHRINK_AFTER` steps, or under Franc's stop there to
the end (:func:`retrain_shrinking`); on a kernel-row cache with the SMO (:func:`retrain_rows`).
The refinements at tighter tolerances are :mod:`svmtune.solvers.loo._refine`'s.
:class:`RetrainSetup` holds what all of them share.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

from svmtune._lazy import lazy_module
from svmtune._warnings import quiet_max_iter
from svmtune.solvers.loo._bias import TIE, decision_scale, left_out_decision, midpoint_biases
from svmtune.solvers.loo._shrinking_cost import shrinking_cpu
from svmtune.solvers.smo import SMO, FullGram, KernelRows, SMOResult, SMORun

if TYPE_CHECKING:
    from svmtune.solvers.loo import _exact_loo_loop
    from svmtune.solvers.smo import _shrinking
else:  # compiled code: loaded on first use (svmtune._lazy)
    _exact_loo_loop = lazy_module("svmtune.solvers.loo._exact_loo_loop")
    _shrinking = lazy_module("svmtune.solvers.smo._shrinking")


__all__ = [
    "H_STEPS",
    "Recorder",
    "SHRINK_AFTER",
    "TIE",
    "RetrainSetup",
    "decision_scale",
    "left_out_decision",
    "midpoint_biases",
    "retrain_rows",
    "retrain_shrinking",
    "outputs",
    "seed_without",
    "shrinking_cpu",
    "ShrinkingTail",
]

SHRINK_AFTER = 200
"""SMO steps a retrain makes in the compiled loop (over all variables) before it goes on, if
not done, on the shrinking SMO, which shrinks at once: an SMO from scratch waits
``min(n, 1000)`` steps, but a retrain starts next to its optimum, where most variables at a
bound stay there. Under Franc's stop the bound is tested before each of these steps; with the
whole-retrain efficiency test (``efficiency="certified"``, the paper's) a retrain under Franc's
stop stays in the compiled loop to its end, its bound tested before every step of it."""

H_STEPS = 1
"""Greedy coordinate steps on Franc's H per SMO step (besides the moves on the step's own pair),
at most. With :data:`H_PAYS`, one saves about as many kernel columns as two or four and costs
less CPU; none saves far fewer (ringnorm, linear, C = 1: 1.9x against 3.2x):
``python benchmarks/franc_stop.py --h-steps 0,1,2,-1,-2,-4 --datasets ringnorm --kernels linear
--C 1``."""


H_PAYS = True
"""A greedy step on H is taken only when it closes more of the gap ``F - H`` per kernel column
than the SMO step just made: on retrains the bound certifies late it skips steps that would not
pay (heart, RBF, gamma = 1, C = 1: 0.95x the columns of ``"kkt"`` against 0.72x always
stepping; ``benchmarks/franc_stop.py --h-steps 1,-1``)."""


@dataclass(frozen=True)
class RetrainSetup:
    """What every retrain of one exact leave-one-out computation shares.

    Attributes
    ----------
    store : FullGram or KernelRows
        The kernel matrix.
    K : ndarray of shape (n, n)
        The Gram matrix when ``store`` is full, else an empty array.
    diag : ndarray of shape (n,)
        Its diagonal.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        Regularization constant.
    full : SMOResult
        The solution on all points (the alpha-seeded start).
    solver : SMO
        Tolerance, working-set selection and shrinking of the retrains.
    cap : int
        SMO steps per retrain at most.
    h_steps : int
        Greedy steps on H per SMO step (:data:`H_STEPS`).
    """

    store: FullGram | KernelRows
    K: NDArray[np.float64]
    diag: NDArray[np.float64]
    y: NDArray[np.float64]
    C: float
    full: SMOResult
    solver: SMO
    cap: int
    h_steps: int = H_STEPS
    h_pays: bool = H_PAYS

    def options(self, *, tol: float, franc: bool, max_iter: int) -> _exact_loo_loop.RetrainOptions:
        """The compiled loop's options record."""
        return _exact_loo_loop.RetrainOptions(
            float(self.C),
            float(tol),
            bool(franc),
            int(max_iter),
            int(self.h_steps),
            bool(self.h_pays),
            _exact_loo_loop.EXACT_BIAS_EVERY,
        )


def seed_without(
    alpha: NDArray[np.float64], y: NDArray[np.float64], C: float, r: int
) -> NDArray[np.float64]:
    """``alpha`` with ``alpha_r = 0`` and its mass on the same class (as the compiled loop)."""
    a = alpha.copy()
    need = float(a[r])
    a[r] = 0.0
    same = (y == y[r]) & (np.arange(y.size) != r)
    for cand in (same & (a > 0.0) & (a < C), same & (a == 0.0)):
        for t in np.flatnonzero(cand):
            if need <= 0.0:
                break
            add = min(C - a[t], need)
            a[t] = C if add == C - a[t] else a[t] + add
            need -= add
    for t in np.flatnonzero((y != y[r]) & (a > 0.0)):
        if need <= 0.0:
            break
        sub = min(a[t], need)
        a[t] = 0.0 if sub == a[t] else a[t] - sub
        need -= sub
    return a


def outputs(
    m: int,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """What the retrains of ``m`` points return: decisions, statuses, iterations, kernel rows
    (zeros)."""
    return (
        np.zeros(m),
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
        np.zeros(m, dtype=np.int64),
    )


class Recorder(Protocol):
    """What records the retrains of an efficiency test
    (:class:`svmtune.solvers.loo._efficiency.Measure`)."""

    def record(
        self, r: int, status: int, steps: int, cpu: float, work: NDArray[np.float64]
    ) -> None: ...

    def record_handed_over(self, r: int, cpu: float, tail: ShrinkingTail) -> None: ...


class FrancTails(Protocol):
    """Starts a shrinking SMO under Franc's stop (:class:`~._franc_tail.LowRank`)."""

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
    ) -> ShrinkingTail | None: ...


class CountedGram(FullGram):
    """A view of one shared Gram matrix that counts the entries its gradient refreshes read.

    The shrinking SMO recomputes the gradient of shrunk (and left-out) variables from the free
    support vectors; on a full matrix those entries cost no kernel evaluation but are kernel
    columns read, which the retrains count. One per thread: the loop writes its bookkeeping."""

    def __init__(self, K: NDArray[np.float64], diag: NDArray[np.float64]) -> None:
        super().__init__(K, check=False, diag=diag)
        self.read = 0

    def refresh_gradient(
        self,
        G: NDArray[np.float64],
        Gbar: NDArray[np.float64],
        alpha: NDArray[np.float64],
        y: NDArray[np.float64],
        C: NDArray[np.float64],
        targets: NDArray[np.int64],
    ) -> None:
        if targets.size:
            free = int(np.count_nonzero((alpha > 0.0) & (alpha < C)))
            self.read += free * int(targets.size)
        super().refresh_gradient(G, Gbar, alpha, y, C, targets)


class FullGbar:
    """``Gbar`` of the full solution (``y_t sum_{alpha_s = C} C y_s K_st``), computed the first
    time a retrain needs it (once for all threads) and counted: ``rows`` kernel rows read."""

    def __init__(
        self, K: NDArray[np.float64], y: NDArray[np.float64], C: float, alpha: NDArray[np.float64]
    ) -> None:
        self._args = (K, y, C, alpha)
        self._value: NDArray[np.float64] | None = None
        self._lock = threading.Lock()
        self.rows = 0

    def get(self) -> NDArray[np.float64]:
        """A copy of ``Gbar``."""
        with self._lock:
            if self._value is None:
                K, y, C, alpha = self._args
                at_c = np.flatnonzero(alpha >= C)
                self._value = y * ((C * y[at_c]) @ K[at_c])
                self.rows = int(at_c.size)
            return self._value.copy()


def retrain_shrinking(
    setup: RetrainSetup,
    points: NDArray[np.int64],
    *,
    franc: bool,
    gbar_full: FullGbar,
    n_jobs: int | None,
    measure: Recorder | None = None,
    whole: bool = False,
    low_rank: FrancTails | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The retrains over one full Gram matrix: compiled, then on the shrinking SMO.

    Each retrain starts at the alpha-seeded point (:mod:`svmtune.solvers.loo._exact_loo_loop`) and
    makes at most ``SHRINK_AFTER`` SMO steps in the compiled loop (under Franc's stop when
    ``franc``, its bound tested before every step); if not done, it goes on from where it is on
    the shrinking SMO (:class:`SMORun`, which shrinks at once) to the eps-KKT stop. With
    ``whole`` (and ``franc``) it stays in the compiled loop to its end instead (certified,
    eps-KKT or ``cap``): Franc's stop for the whole retrain, as the paper runs it. Else, with
    ``franc`` and ``low_rank``, the shrinking SMO goes on under Franc's stop (``FrancTail``).

    With ``measure`` (under Franc's stop), each retrain is recorded for the efficiency test.

    Returns the decisions at the left-out points, their statuses, iterations and kernel rows
    read (``gbar_full`` counts the rows it reads, once for all retrains).
    """
    m = points.shape[0]
    dec, status, iters, rows = outputs(m)
    tol = float(setup.solver.tol)
    last = setup.cap if franc and whole else min(SHRINK_AFTER, setup.cap)
    opts = setup.options(tol=tol, franc=franc, max_iter=last)

    a_full = np.ascontiguousarray(setup.full.alpha)
    G_full = np.ascontiguousarray(setup.full.gradient)

    def run(lo: int, hi: int) -> None:  # K's counted view made at the first hand-over, if any
        store, work = None, _exact_loo_loop.work_arrays(setup.y.shape[0])
        for k in range(lo, hi):
            r = int(points[k])
            d, st, it, rw, cpu = _exact_loo_loop.retrain_one(
                setup.K, setup.diag, setup.y, a_full, G_full, r, opts, work
            )
            if st != _exact_loo_loop.MAX_ITER or it >= setup.cap:
                dec[k], status[k], iters[k], rows[k] = d, st, it, rw
                if measure is not None:
                    measure.record(r, st, it, cpu, work)
                continue
            # not done: on from where it is (work[0], work[1]) to the eps-KKT stop
            store = CountedGram(setup.K, setup.diag) if store is None else store
            tail = None
            if franc and low_rank is not None:  # None where K has no low-rank factor
                tail = low_rank.tail(
                    setup, store, gbar_full, work, r, max_iter=setup.cap - it, steps_before=it
                )
            if tail is None:
                tail = ShrinkingTail(
                    setup, store, gbar_full, work[0], work[1], r, max_iter=setup.cap - it
                )
            tail.advance()
            rows[k] = rw + tail.rows()  # before the decision's gradient reconstruction
            dec[k], status[k] = tail.decision(), tail.status()
            iters[k] = it + tail.run.iterations
            if measure is not None:
                measure.record_handed_over(r, cpu, tail)

    with quiet_max_iter():  # counted and reported once
        if n_jobs == 1 or m < 2:
            run(0, m)
        else:
            n_chunks = min(m, 4 * (n_jobs if n_jobs and n_jobs > 0 else 8))
            bounds = np.linspace(0, m, n_chunks + 1).astype(int)
            from joblib import Parallel, delayed

            Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(run)(int(lo), int(hi))
                for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
            )
    return dec, status, iters, rows


class ShrinkingTail:
    """The shrinking SMO of a retrain without ``r``, from ``alpha`` and ``G`` (updated in
    place), run in parts and counted: its CPU in eps-KKT steps of the compiled loop
    (:func:`shrinking_cpu`, the start's reads included) and its kernel rows read.

    Its start reads the kernel rows of the variables that moved onto or off C since the full
    solution (``moved``: the shrinking SMO's ``Gbar``, the gradient part from variables at C,
    needs them); each step reads two rows; the gradient refreshes read what ``store`` counts.
    A retrain starts next to its optimum: it shrinks after the steps it made in the compiled
    loop, not after ``min(n, 1000)`` as an SMO from scratch.

    Attributes
    ----------
    run : SMORun
        The solver's state (``iterations``, ``converged``, ``alpha``, ``gradient``).
    moved : int
        Kernel rows its start read.
    cpu : float
        Counted CPU so far.
    smo_cpu : float
        The SMO's part of it (a subclass counts more in ``cpu``).
    """

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
        tol: float | None = None,
    ) -> None:
        y, C, K = setup.y, setup.C, setup.K
        n = y.shape[0]
        Cv = np.full(n, C)
        everyone = np.arange(n, dtype=np.int64)
        moved = np.flatnonzero((alpha >= Cv) != (setup.full.alpha >= Cv))
        Gbar = gbar_full.get()
        if moved.size:
            w = np.where(alpha[moved] >= C, C, -C) * y[moved]
            Gbar += y * (w @ K[moved])
        self.run = SMORun(
            store,
            y,
            Cv,
            alpha,
            G,
            everyone[everyone != r],
            tol=float(setup.solver.tol if tol is None else tol),
            second_order=setup.solver.selection == "second_order",
            max_iter=max_iter,
            kernel_evals=0,
            shrinking=bool(setup.solver.shrinking),
            gbar=Gbar,
        )
        self.run._state[_shrinking.COUNTER] = 1  # shrink at once
        self.moved = int(moved.size)
        self.cpu = shrinking_cpu(0, self.moved * n, n, runs=1)
        self.smo_cpu = self.cpu
        self._y, self._r, self._store, self._read0 = y, r, store, store.read

    def advance(self, max_steps: int | None = None) -> float:
        """At most ``max_steps`` more steps (all it needs when None); their counted CPU."""
        run, store = self.run, self._store
        swept0, read0, steps0 = run.swept, store.read, run.iterations
        run.run(max_steps=max_steps)
        cpu = shrinking_cpu(
            run.swept - swept0,
            store.read - read0,
            self._y.shape[0],
            steps=run.iterations - steps0,
        )
        self.cpu += cpu
        self.smo_cpu += cpu
        return cpu

    def done(self) -> bool:
        """Converged, or at ``max_iter`` steps."""
        return bool(self.run.converged or self.run.iterations >= self.run.max_iter)

    def status(self) -> int:
        """The compiled loop's status code: eps-KKT reached, or ``MAX_ITER``."""
        return _exact_loo_loop.KKT if self.run.converged else _exact_loo_loop.MAX_ITER

    def rows(self) -> int:
        """Kernel rows read so far (a refresh's reads rounded up to whole rows)."""
        reads = -(-(self._store.read - self._read0) // self._y.shape[0])
        return int(self.moved + 2 * self.run.iterations + reads)

    def decision(self) -> float:
        """The decision at the left-out point (the shrunk variables' gradient recomputed)."""
        return left_out_decision(self._y, self.run.gradient, self._r)


def retrain_on_rows(
    solver: SMO,
    store: KernelRows,
    y: NDArray[np.float64],
    C: float,
    start: NDArray[np.float64],
    r: int,
) -> tuple[float, int, SMORun]:
    """Retrain without ``r`` on a kernel-row cache, from ``start`` with ``alpha_r`` moved onto
    its class, to ``solver``'s eps-KKT stop: the left-out decision, its status, the run."""
    everyone = np.arange(y.shape[0])
    run = solver.start(
        y, C=C, gram=store, alpha0=seed_without(start, y, C, r), active=everyone[everyone != r]
    )
    run.run()
    status = _exact_loo_loop.KKT if run.converged else _exact_loo_loop.MAX_ITER
    return left_out_decision(y, run.gradient, r), status, run


def retrain_rows(
    store: KernelRows,
    solver: SMO,
    y: NDArray[np.float64],
    C: float,
    full: SMOResult,
    points: NDArray[np.int64],
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The eps-KKT retrains on a kernel-row cache (sequential; the cache is shared)."""
    m = points.shape[0]
    n = y.shape[0]
    dec, status, iters, rows = outputs(m)
    with quiet_max_iter():  # counted and reported once
        for k, r in enumerate(points):
            dec[k], status[k], run = retrain_on_rows(solver, store, y, C, full.alpha, int(r))
            iters[k] = run.iterations
            rows[k] = -(-run.kernel_evals // n)
    return dec, status, iters, rows
