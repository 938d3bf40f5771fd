"""Exact leave-one-out error of the hinge-loss SVM (Franc, Laskov, Muller 2008)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, get_args

import numpy as np

from svmtune._options import N_JOBS, Choice, Integer
from svmtune.classifier import KernelExpansion
from svmtune.objectives._base import Outcome
from svmtune.objectives._svm_objective import BoundSVMObjective, SVMObjective
from svmtune.solvers import FullGram, KernelRows, check_gram, exact_loo
from svmtune.solvers.loo import EFFICIENCY_POINTS, Efficiency, Stopping
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET

__all__ = ["ExactLOO"]


class ExactLOO(SVMObjective):
    """The exact leave-one-out error of the soft-margin SVM, computed as Franc et al. do.

    The value at ``(C, kernel parameters)`` is the fraction of training points that the SVM
    trained on all the other points misclassifies, i.e. what retraining once per point gives
    (scikit-learn's ``cross_val_score(SVC(...), cv=LeaveOneOut())``), computed by the paper's
    Algorithm 1 (:func:`svmtune.solvers.exact_loo`):

    - one solve on all points, over one Gram matrix (kernel rows computed on demand and cached
      when the matrix exceeds ``memory_budget``);
    - the sufficiency checks that hold on every input settle the points with ``alpha_r = 0``
      (the bias taken over the other points) and those misclassified at the full solution by
      more than ``tol`` (leave-one-out errors); Joachims' xi-alpha check is not used (it fails
      when the solution without the point has no free support vector);
    - every other point is retrained without it from the full solution (its ``alpha_r`` moved
      onto other points of its class), stopped by the eps-KKT gap (``stopping="kkt"``) or, with
      ``stopping="franc"``, as soon as the bound ``F(alpha, b*) < H(beta)`` certifies the sign
      of the left-out decision (Algorithm 3: ``beta`` ascends H by its own greedy coordinate
      step after every SMO step, and the bound is tested before every step; the eps-KKT stop is
      kept). The efficiency test: when Franc's stop cost more CPU than the eps-KKT stop on the
      first ``efficiency_points`` retrains (``efficiency="cpu"``; with the Gram matrix in
      memory a step under Franc's stop costs about twice an eps-KKT step), or, as the paper,
      when fewer than half of them were certified (``efficiency="certified"``, the bound then
      tested to the end of every retrain: fewer kernel columns at more CPU on long retrains),
      the rest run with the eps-KKT stop only (``info["stopping_used"] == "kkt"``).

    The left-out decisions use LIBSVM's bias convention at the optimum (the one optimal bias
    when a support vector is free, else the midpoint of the interval of optimal biases); a
    decision the eps-KKT stop leaves within ``tol`` of zero is refined at tighter tolerances,
    and a tie at zero counts as ``+1``. The value equals retraining once per point
    (property-tested over the whole default box).

    ``Evaluation.info`` holds the counts: ``errors``, ``settled_alpha_zero``,
    ``settled_misclassified``, ``retrained``, ``refined``, ``certified``,
    ``prec_percent`` (certified / retrained under Franc's stop), ``efficiency_certified``,
    ``stopping_used``, ``max_iter_reached``, ``kernel_rows`` (kernel columns read by the solves,
    the paper's KerEval: two per SMO step, one per seeded variable, one per greedy step on
    Franc's H) and ``retrain_iterations``. The cost's ``kernel_evals`` is what the paper's KerEval
    counts, in entries: ``n * kernel_rows`` (the Gram matrix itself, the same for both stops, is
    not counted), so a study's cost axis shows the saving of Franc's stop; when the Gram matrix
    exceeds ``memory_budget`` it is the entries the row cache computed. Its ``iterations``
    counts all SMO steps.

    Parameters
    ----------
    stopping : {"franc", "kkt"}, default "franc"
        How a retrain stops (see above).
    tol : float, default 1e-3
        The eps of the KKT stop (full solve and retrains).
    max_iter : int, optional
        SMO iterations per solve; a retrain that reaches it keeps its last decision, warns and is
        counted in ``info["max_iter_reached"]``.
    n_jobs : int, default 1
        Threads over the retrained points (joblib semantics: -1 for all cores).
    efficiency_points : int, default 10
        ``M`` of the efficiency test.
    efficiency : {"cpu", "certified"}, default "cpu"
        The efficiency test (see above and :func:`svmtune.solvers.exact_loo`).
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes of kernel values held at once: the Gram matrix with its statistics, else the
        kernel-row cache and the blocks read beside it.

    Examples
    --------
    On the training part of a split of the bundled heart data (170 points):

    >>> from svmtune.datasets import ratsch_split
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import ExactLOO
    >>> X, y, _, _ = ratsch_split("heart", seed=1)
    >>> ev = ExactLOO().evaluate(X, y, kernel=RBF(), params={"C": 1.0, "gamma": 0.05})
    >>> ev.value < 0.25, ev.info["errors"] == round(len(y) * ev.value)
    (True, True)
    """

    min_per_class: ClassVar[int] = 3

    def __init__(
        self,
        *,
        stopping: Stopping = "franc",
        tol: float = 1e-3,
        max_iter: int | None = None,
        n_jobs: int | None = 1,
        efficiency_points: int = EFFICIENCY_POINTS,
        efficiency: Efficiency = "cpu",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.stopping = stopping
        self.efficiency = efficiency
        super().__init__(tol=tol, max_iter=max_iter, memory_budget=memory_budget)
        self.n_jobs = n_jobs
        self.efficiency_points = efficiency_points

    def _bound_class(self) -> type[_BoundExactLOO]:
        return _BoundExactLOO

    _option_constraints = {
        "stopping": Choice(get_args(Stopping), what=f"one of {get_args(Stopping)}"),
        "n_jobs": N_JOBS,
        "efficiency_points": Integer(low=1),
        "efficiency": Choice(get_args(Efficiency), what=f"one of {get_args(Efficiency)}"),
    }


class _BoundExactLOO(BoundSVMObjective):
    """ExactLOO bound to data: the prepared kernel (when its Gram matrix fits) and the solver."""

    objective: ExactLOO

    def _setup(self) -> None:
        self.prepared = self._prepared_if_fits()

    def _store(self, kp: dict[str, float]) -> tuple[FullGram | KernelRows, int]:
        n = self.n_samples
        if self.prepared is not None:
            K = np.ascontiguousarray(self.prepared.gram(kp), dtype=np.float64)
            check_gram(K, name=f"Gram matrix of {self.kernel!r} at {kp}")
            return FullGram(K, check=False, memory_budget=self.objective.memory_budget), n * n
        rows = KernelRows(
            self.kernel, kp, self.X, memory_budget=self.objective.memory_budget, check=True
        )
        return rows, 0  # the cache counts its own kernel evaluations (diagonal included)

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        C = self.C(params)
        kp = self.kernel_params(params)
        store, _ = self._store(kp)
        o = self.objective
        res = exact_loo(
            self.y,
            C=C,
            gram=store,
            stopping=o.stopping,
            tol=o.tol,
            max_iter=o.max_iter,
            n_jobs=o.n_jobs,
            efficiency_points=o.efficiency_points,
            efficiency=o.efficiency,
        )
        if isinstance(store, KernelRows):
            evals = store.kernel_evals  # diagonal, full solve and retrains: computed entries
        else:  # the paper's KerEval: kernel columns the solves read (H's included), n entries each
            evals = self.n_samples * int(res.counts["kernel_rows"])
        info: dict[str, object] = {"errors": int(res.wrong.sum())}
        info.update(res.counts)
        info["stopping_used"] = res.stopping_used
        info.pop("kernel_evals", None)
        return Outcome(
            res.error,
            kernel_evals=evals,
            iterations=int(res.counts["iterations"]),
            info=info,
        )

    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        """The SVM trained by SMO on all bound data at ``params``."""
        checked = self.space.check(params)
        C = self.C(checked)
        kp = self.kernel_params(checked)
        store, _ = self._store(kp)
        res = self.solver.solve(self.y, C=C, gram=store)
        return self._expansion(kp, res)
