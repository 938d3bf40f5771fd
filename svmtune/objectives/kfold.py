"""k-fold cross-validation error of the hinge-loss SVM (the HINGE baseline of Fischetti 2016)."""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from svmtune._options import N_JOBS, Integer
from svmtune._validation import as_rng
from svmtune.classifier import (
    KernelExpansion,
    labels_from_decisions,
)
from svmtune.datasets import stratified_kfold
from svmtune.kernels import PreparedKernel, inner_products
from svmtune.objectives._base import Outcome
from svmtune.objectives._fold_parts import fold_parts
from svmtune.objectives._settle import decision_scale, settle
from svmtune.objectives._svm_objective import BoundSVMObjective, SVMObjective
from svmtune.solvers import (
    SMO,
    KernelRows,
    SMOResult,
    check_gram,
    feasible_start,
    one_blas_thread,
    rbf_gram,
)
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET, Selection, as_f8_2d

__all__ = ["KFoldCV"]

Seed = int | np.random.SeedSequence | np.random.Generator | None

KERNEL_WEIGHT = 2.0
"""Weight of a kernel parameter's change against C's in the seeding distance: a solution at a
neighbouring C with the same kernel is a better start than one at the same C with a kernel
changed by the same factor (measured on heart, wdbc, german: 25-40% fewer iterations on a 5x5
grid, against 10-20% when the kernel neighbour is used)."""


class KFoldCV(SVMObjective):
    """Stratified k-fold cross-validation error of the soft-margin SVM trained by SMO.

    The value at ``(C, kernel parameters)`` is the pooled CV error: the number of validation
    points misclassified over all ``k`` folds, divided by the number of training points. The
    hyperparameters are ``C`` and the kernel's (``C`` is fixed to 1 for kernels that carry their
    own scale).

    How it is fast:

    - an evaluation makes one Gram matrix over all training points and every fold solves on
      its training indices of that matrix, without copying it; the matrix is kept until an
      evaluation at other kernel parameters, so the next ``C`` at the same kernel parameters
      builds none (:class:`~svmtune.tuners.Grid` walks the kernel parameters slowest for it).
      An RBF Gram matrix is built fused from one product ``X X'`` (exactly symmetric, unit
      diagonal, positive semidefinite by construction: not checked); other kernels' from
      statistics of all points computed once (e.g. squared distances), checked;
    - the validation decision values are read off the Gram rows already in memory: no second
      kernel pass. A decision within round-off of zero
      (:func:`~svmtune.classifier.decision_tolerance`) is a tie, labelled +1 as the final
      classifier's ``predict`` does: the sign of round-off never decides;
    - every fold starts cold (``alpha = 0``) by default: the value at a setting is then the
      error count of one ``tol``-KKT solve per fold, whatever was evaluated before (a fresh
      bind's value). Cold starts were chosen by measurement: on the 42 problems of the
      benchmark suite (``python benchmarks/seeding_cost.py``: a 5 x 5 grid over the
      benchmark's box, ``C`` in [0.1, 1000], ``gamma`` in [0.001, 10]) the cold grid took
      less CPU than the seeded one on 40 of 42 (seeded / cold: CPU median 1.39, SMO
      iterations median 1.54, range 0.60-48; titanic, whose duplicated points keep
      validation decisions at zero, 48x the iterations), because order-independent values
      need seeding's settling (below);
    - alpha seeding (``seeding=True``): each fold starts from its own solution at the
      nearest setting evaluated before (max-norm distance in log units, a kernel parameter's
      change counting twice a change of ``C``: :data:`KERNEL_WEIGHT`), clipped to the new
      ``C``'s box (not rescaled: rescaling by the ratio of the ``C`` values cost more
      iterations than it saved) and made feasible
      (:func:`~svmtune.solvers.feasible_start`). The first evaluation starts every fold cold.
      Seeding never changes which problem is solved or the bias rule, only where SMO starts
      (a seed's variables within round-off of a bound are put on it, as in a cold solve).
      The choice of seed does not depend on ``n_jobs``;
    - one value per setting with seeding: two starts stop at two ``tol``-optimal solutions,
      and a validation decision within their accuracy of zero could take either sign. So with
      ``seeding=True`` each fold settles its validation decisions before counting errors:
      while one lies within ``t * max(1, C max_i K_ii)`` of zero (``t`` the tolerance of the
      fold's last solve, at first ``tol``; the margin exact leave-one-out refines within), the
      fold's solve is continued from its solution at ``t / 1000``, down to
      ``1e-12 max(1, C max_i K_ii)``. Seeded and cold solves then agree on every decision not
      zero to that accuracy, and the value equals a fresh bind's with ``seeding=True``
      (``benchmarks/seeding_identity.py``: 0 of 600 values differ at ``tol=1e-3``). The
      continued solves' iterations and kernel entries are in the cost; a fold with no
      decision near zero is one solve. At large ``C`` the margin ``t C max_i K_ii`` holds most
      validation decisions, so most folds continue: the reason seeding is off by default;
    - the folds of one evaluation run in parallel (joblib, threads: the compiled SMO loop
      releases the GIL) when ``n_jobs != 1``;
    - fold-level pruning (``reports_steps``): evaluated with a ``report`` callback (an Optuna
      tuner given a ``pruner`` passes one), the folds are solved one after another and the
      running error (validation errors over the validation points of the folds solved) is
      reported after each fold; a pruned evaluation stops there. These folds run one at a time
      whatever ``n_jobs``, and (RBF and linear kernels) on kernel rows computed on demand
      instead of the Gram matrix: a row cache over all points, shared by the folds, so that a
      fold pays for the rows it touches that no fold before it computed (the validation
      decisions read the support vectors' rows), and a pruned evaluation's ``kernel_evals``
      are the entries of the folds it solved: the diagonal and the rows computed, each entry
      of the symmetric kernel matrix once (:class:`~svmtune.solvers.KernelRows`). An
      evaluation without ``report`` keeps the one Gram matrix, ``n^2`` entries in one pass,
      which takes less CPU at the sizes of the bundled data sets (on the Fischetti study's
      data sets, complete evaluations on rows take 1.28x the CPU for 0.47x the entries:
      ``benchmarks/pruning.py``, its ``TPE+NopPruner`` row).

    When the Gram matrix does not fit ``memory_budget``, each fold trains on its own points with
    kernel rows computed on demand, and validation decision values cost a kernel pass.

    Parameters
    ----------
    k : int, default 5
        Number of folds (each class needs at least ``k`` points).
    random_state : int, SeedSequence, Generator or None, default 0
        Seed of the stratified fold assignment (:func:`svmtune.datasets.stratified_kfold`);
        None draws fresh entropy.
    tol : float, default 1e-3
        SMO's KKT-gap tolerance.
    seeding : bool, default False
        Alpha seeding with settled decisions (see above). Off, every fold starts from
        ``alpha = 0`` and is solved once.
    n_jobs : int, default 1
        Folds solved in parallel (joblib semantics: -1 for all cores).
    selection : {"second_order", "max_violating_pair"}
        SMO working-set selection.
    max_iter : int, optional
        SMO iteration limit per fold.
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes of kernel values an evaluation holds at once (folds run at once share them).
    max_seeds : int, default 64
        Solutions kept per fold for seeding (the most recent ones).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (40, 2)), rng.normal(1, 1, (40, 2))])
    >>> y = np.repeat([-1.0, 1.0], 40)
    >>> bound = KFoldCV(k=5).bind(X, y, kernel=RBF())
    >>> ev = bound.evaluate({"C": 1.0, "gamma": 0.5})
    >>> 0.0 <= ev.value < 0.3, ev.cost.kernel_evals == 80 * 80
    (True, True)
    """

    reports_steps: ClassVar[bool] = True
    min_per_class: ClassVar[int] = 2

    def __init__(
        self,
        *,
        k: int = 5,
        random_state: Seed = 0,
        tol: float = 1e-3,
        seeding: bool = False,
        n_jobs: int | None = 1,
        selection: Selection = "second_order",
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        max_seeds: int = 64,
    ) -> None:
        self.k = k
        self.random_state = random_state
        super().__init__(tol=tol, max_iter=max_iter, memory_budget=memory_budget)
        self.seeding = seeding
        self.n_jobs = n_jobs
        self.selection = selection
        self.max_seeds = max_seeds

    _option_constraints = {"k": Integer(low=2), "n_jobs": N_JOBS, "max_seeds": Integer(low=1)}

    def _check_options(self) -> None:
        super()._check_options()
        if not isinstance(self.random_state, np.random.Generator):  # do not draw from it
            as_rng(self.random_state, name="random_state")

    def _bound_class(self) -> type[_BoundKFoldCV]:
        return _BoundKFoldCV


class _BoundKFoldCV(BoundSVMObjective):
    """KFoldCV bound to data: the folds, the prepared kernel, the seeds, the kept Gram matrix."""

    objective: KFoldCV
    #: Consecutive evaluations at the same kernel parameters share one Gram matrix (a grid
    #: walks its kernel parameters slowest for it: :class:`~svmtune.tuners.Grid`).
    reuses_kernel: ClassVar[bool] = True

    def _setup(self) -> None:
        o = self.objective
        seed = np.random.SeedSequence() if o.random_state is None else o.random_state
        self.folds = stratified_kfold(self.y, int(o.k), seed)
        # Whether the Gram matrix over all points is held (else each fold computes its rows).
        self.fits = o._gram_fits(self.n_samples)
        self._prepared: PreparedKernel | None = None
        # The Gram matrix of the last kernel parameters evaluated, while it fits: the next
        # evaluation at the same kernel parameters (another C) reuses it.
        self._kept: tuple[tuple[tuple[str, float], ...], NDArray[np.float64]] | None = None
        # Per fold: recent (seeding coordinates, alpha over all n points).
        self._seeds: list[deque[tuple[NDArray[np.float64], NDArray[np.float64]]]] = [
            deque(maxlen=int(o.max_seeds)) for _ in self.folds
        ]

    # -- seeding ------------------------------------------------------------------------------
    def _seed(self, f: int, point: NDArray[np.float64]) -> NDArray[np.float64] | None:
        store = self._seeds[f]
        if not self.objective.seeding or not store:
            return None
        best = min(store, key=lambda s: float(np.max(np.abs(s[0] - point), initial=0.0)))
        return best[1]

    def _seed_point(self, params: Mapping[str, float]) -> NDArray[np.float64]:
        """Coordinates for the seeding distance: ``ln`` of log-scaled parameters (the unit-box
        coordinate of linear ones), the kernel's weighted by :data:`KERNEL_WEIGHT`."""
        out = []
        for p in self.space:
            v = float(params[p.name])
            x = np.log(v) if p.log else p.to_unit(v)
            out.append(x * (KERNEL_WEIGHT if p.name in self.kernel.space.names else 1.0))
        return np.array(out)

    # -- evaluation ---------------------------------------------------------------------------
    def _solve_fold(
        self,
        f: int,
        C: float,
        kp: dict[str, float],
        K: NDArray[np.float64] | None,
        seed: NDArray[np.float64] | None,
        rows: KernelRows | None = None,
    ) -> tuple[SMOResult, int, int]:
        """Solve fold ``f``; returns (result over all n points, errors, extra kernel evals).

        With ``rows`` (a row cache over all points, shared by the folds of one evaluation), SMO
        computes the kernel rows the fold touches, and the validation decisions read the rows
        of the support vectors (those not cached yet are computed, and counted, here). The
        validation decisions are settled (:func:`~svmtune.objectives._settle.settle`) before
        the errors are counted."""
        tr, va = self.folds[f]
        y = self.y
        alpha0 = None if seed is None else feasible_start(seed, y, C, active=tr)
        solve, decide, diag_max = fold_parts(self, tr, va, C, kp, K, rows, self._row_solver())
        start, solving = time.perf_counter(), [0.0]

        def timed(t: float, a0: NDArray[np.float64] | None) -> SMOResult:
            t0 = time.perf_counter()
            out = solve(t, a0)
            solving[0] += time.perf_counter() - t0
            return out

        if self.objective.seeding:
            res, dec, tol, extra = settle(
                timed,
                decide,
                tol=float(self.objective.tol),
                scale=decision_scale(C, diag_max),
                alpha0=alpha0,
            )
        else:  # a cold solve: its value does not depend on what was evaluated before
            res = timed(float(self.objective.tol), alpha0)
            dec, tol, extra = decide(res)
        # the fold's fit seconds are its solves; the rest (decisions, errors) is its scoring
        self._fold_clock()[f] = [solving[0], start + solving[0]]
        # A decision within round-off of zero is a tie (+1, as predict says), whatever its sign.
        errors = int(np.count_nonzero(labels_from_decisions(dec, tol) != y[va]))
        self._fold_scored(f)
        return res, errors, extra

    def _gram(self, kp: dict[str, float]) -> tuple[NDArray[np.float64] | None, int]:
        """The Gram matrix over all points (None when it does not fit) and the entries this
        call computed: ``n^2``, or 0 for the one kept from the last call at the same kernel
        parameters (the same bits as a new one: keeping it changes no value). RBF: fused from
        ``X X'``, PSD by construction; other kernels from their statistics of all points,
        checked (:func:`~svmtune.solvers.check_gram`)."""
        if not self.fits:
            return None, 0
        key = tuple(sorted(kp.items()))
        if self._kept is not None and self._kept[0] == key:
            return self._kept[1], 0
        self._kept = None  # at most one Gram matrix held between evaluations
        n = self.n_samples
        form = self.kernel.inner_product_form(kp)
        if form is not None and form.kind == "rbf":
            K = rbf_gram(self.X, form.gamma)
        elif form is not None:  # linear: X X', symmetric and PSD by construction
            K = as_f8_2d(inner_products(self.X))
        else:
            K = self.prepared.gram(kp)
            check_gram(K, name=f"Gram matrix of {self.kernel!r} at {kp}")
        self._kept = (key, K)
        return K, n * n

    @property
    def prepared(self) -> PreparedKernel:
        """The kernel's statistics of all points (e.g. squared distances), made once."""
        if self._prepared is None:
            self._prepared = self.kernel.prepare(self.X)
        return self._prepared

    def _row_solver(self) -> SMO:
        """The solver on shared rows: without shrinking, so that every row it computes is
        complete and serves the later folds (shrinking computes rows on the variables left,
        valid for one solve only); the same iterations otherwise, to round-off."""
        solver = copy.copy(self.solver)
        solver.shrinking = False
        return solver

    def _rows(self, kp: dict[str, float]) -> KernelRows | None:
        """A row cache over all points holding every row (None: the Gram path is used).

        For kernels with an inner-product form (RBF, linear), whose rows SMO's compiled loop
        computes, when the Gram
        matrix fits the memory budget (twice over: the distances live beside it). Its count
        is exact: the diagonal and each complete row computed, once (``n`` entries each)."""
        if not self.fits or self.kernel.inner_product_form(kp) is None:
            return None
        return KernelRows(self.kernel, kp, self.X, capacity=self.n_samples, check=False)

    def _evaluate_steps(
        self, params: dict[str, float], report: Callable[[int, float], bool]
    ) -> Outcome:
        """The folds one after another, the running error reported after each but the last.

        Kernel values come from a row cache shared by the folds (:meth:`_rows`) where there is
        one, so that a fold pays for the rows it touches and a pruned evaluation does not pay
        for the folds it did not solve; else from the shared Gram matrix."""
        C = self.C(params)
        kp = self.kernel_params(params)
        rows = self._rows(kp)
        if rows is not None:
            K, evals = None, rows.kernel_evals  # the diagonal
        else:
            K, evals = self._gram(kp)
        seeds = self._seeds_for(params)
        k = len(self.folds)
        results: list[tuple[SMOResult, int, int]] = []
        errors = validated = 0
        for f in range(k):
            out = self._solve_fold(f, C, kp, K, seeds[f], rows)
            results.append(out)
            errors += out[1]
            validated += int(self.folds[f][1].size)
            if f + 1 < k and report(f + 1, errors / validated):
                break
        return self._outcome(params, results, evals, rows)

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        C = self.C(params)
        kp = self.kernel_params(params)
        seeds = self._seeds_for(params)
        # the Gram matrix while it fits (kept for the next C), else rows of each fold's points
        K, evals = self._gram(kp)
        k = len(self.folds)
        if self.objective.n_jobs == 1:
            # own rows: small products (validation decisions) between solves on one thread
            with one_blas_thread(K is None):
                results = [self._solve_fold(f, C, kp, K, seeds[f]) for f in range(k)]
        else:
            from joblib import Parallel, delayed  # ~0.2 s to import: only when used

            results = Parallel(n_jobs=self.objective.n_jobs, prefer="threads")(
                delayed(self._solve_fold)(f, C, kp, K, seeds[f]) for f in range(k)
            )
        return self._outcome(params, results, evals, None)

    def _seeds_for(self, params: dict[str, float]) -> list[NDArray[np.float64] | None]:
        point = self._seed_point(params)
        return [self._seed(f, point) for f in range(len(self.folds))]

    def _outcome(
        self,
        params: dict[str, float],
        results: list[tuple[SMOResult, int, int]],
        evals: int,
        rows: KernelRows | None,
    ) -> Outcome:
        """The pooled error of the folds solved (``results``, the first ones), their cost, and
        their solutions kept as seeds."""
        point = self._seed_point(params)
        errors = validated = iterations = n_sv = 0
        converged = True
        for f, (res, err, extra) in enumerate(results):
            errors += err
            validated += int(self.folds[f][1].size)
            iterations += res.iterations
            evals += res.kernel_evals + extra
            n_sv += int(np.count_nonzero(res.alpha))
            converged = converged and res.converged
            self._seeds[f].append((point, res.alpha))
        done = len(results)
        self._record_folds(params, [err for _, err, _ in results])  # TunedSVC's split scores
        info = {
            "errors": errors,
            "mean_support_vectors": n_sv / done,
            "converged": converged,
            "folds": done,
            "kernel_rows": -1 if rows is None else int(np.count_nonzero(rows.owner >= 0)),
        }
        return Outcome(
            errors / validated,
            kernel_evals=evals,
            iterations=iterations,
            info=info,
            pruned=done < len(self.folds),
        )

    def seed_from(self, other: BoundSVMObjective, positions: NDArray[np.intp]) -> None:
        """Take ``other``'s fold solutions as seeds (a warm start for the next evaluations).

        ``other`` is KFoldCV bound to a subset of this one's points: its point ``i`` is this
        one's ``positions[i]``. Fold ``f``'s solutions seed fold ``f`` here, zero on the points
        ``other`` did not have (made feasible for the fold when used). Successive halving
        carries the solutions of one rung to the next, larger subsample this way.
        """
        if not isinstance(other, _BoundKFoldCV):
            raise ValueError(f"seeds come from KFoldCV bound to other data; got {other!r}")
        pos = np.asarray(positions, dtype=np.intp)
        if pos.shape != (other.n_samples,) or (pos.size and pos.max() >= self.n_samples):
            raise ValueError(
                f"positions must give one of this objective's {self.n_samples} points for each "
                f"of the other's {other.n_samples}; got shape {pos.shape}"
            )
        for mine, theirs in zip(self._seeds, other._seeds, strict=False):
            for point, alpha in theirs:
                a = np.zeros(self.n_samples)
                a[pos] = alpha
                mine.append((point, a))

    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        """The SVM trained by SMO on all bound data at ``params``."""
        checked = self.space.check(params)
        C = self.C(checked)
        kp = self.kernel_params(checked)
        K, _ = self._gram(kp)
        if K is not None:
            res = self.solver.solve(self.y, C=C, gram=K)
        else:
            res = self.solver.solve(self.y, C=C, kernel=self.kernel, params=kp, X=self.X)
        return self._expansion(kp, res)
