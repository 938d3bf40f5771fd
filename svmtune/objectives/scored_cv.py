"""Cross-validation of the (weighted) soft-margin SVM by a scikit-learn metric, on any folds.

:class:`ScoredCV` is what ``TunedSVC(scoring=..., cv=..., class_weight=...)`` tunes: the folds of
an int (stratified, unshuffled, as ``GridSearchCV(cv=k)``) or of a scikit-learn splitter, a
score per fold (``accuracy``, ``balanced_accuracy``, ``roc_auc``, ``f1``; higher is better), the
value ``1 - mean score`` (lower is better, as every svmtune objective), and per-point bounds
``C_i = C * class_weight[y_i] * sample_weight_i`` in SMO (LIBSVM's and scikit-learn's weights).
:class:`svmtune.objectives.KFoldCV` remains the fast pooled-error objective.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from svmtune.classifier import KernelExpansion, decisions_from_columns, expansion_from_solution
from svmtune.objectives._base import Outcome
from svmtune.objectives._svm_objective import BoundSVMObjective, SVMObjective
from svmtune.solvers.smo import BLOCK_SHARE, DEFAULT_MEMORY_BUDGET, check_gram

__all__ = ["SCORINGS", "ScoredCV"]

#: The metrics ``scoring`` accepts (scikit-learn's scorer names).
SCORINGS = ("accuracy", "balanced_accuracy", "roc_auc", "f1")


def fold_score(
    scoring: str,
    y: NDArray[np.float64],
    decision: NDArray[np.float64],
    weights: NDArray[np.float64] | None = None,
) -> float:
    """scikit-learn's ``scoring`` metric of decision values on labels -1/+1 (+1 positive),
    weighted by the test points' ``weights`` when given (as ``GridSearchCV`` scores with the
    ``sample_weight`` given to ``fit``)."""
    from sklearn import metrics

    if scoring == "roc_auc":
        return float(metrics.roc_auc_score(y, decision, sample_weight=weights))
    pred = np.where(decision > 0.0, 1.0, -1.0)  # scikit-learn's SVC: classes_[1] where f > 0
    if scoring == "accuracy":
        return float(metrics.accuracy_score(y, pred, sample_weight=weights))
    if scoring == "balanced_accuracy":
        return float(metrics.balanced_accuracy_score(y, pred, sample_weight=weights))
    return float(metrics.f1_score(y, pred, pos_label=1.0, zero_division=0.0, sample_weight=weights))


def class_weights(class_weight: Any, y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per-point class weights: None -> 1, ``"balanced"`` -> ``n / (2 n_class)`` (computed on
    ``y``, as scikit-learn's ``SVC.fit`` on each training fold), or a dict label -> weight
    keyed by -1/+1."""
    if class_weight is None:
        return np.ones_like(y)
    if class_weight == "balanced":
        n_pos = float(np.sum(y > 0))
        n_neg = float(y.size - n_pos)
        return np.where(y > 0, y.size / (2.0 * n_pos), y.size / (2.0 * n_neg))
    return np.where(y > 0, float(class_weight[1.0]), float(class_weight[-1.0]))


class ScoredCV(SVMObjective):
    """``1 - mean score`` of the soft-margin SVM over cross-validation folds.

    Parameters
    ----------
    cv : int, scikit-learn splitter or list of (train, test), default 5
        An int k: ``StratifiedKFold(k)`` (no shuffling, as ``GridSearchCV(cv=k)``); an object
        with ``split(X, y)``, given the rows in ``row_order``; or the folds as index arrays
        into the rows in that order.
    scoring : {"accuracy", "balanced_accuracy", "roc_auc", "f1"}, default "accuracy"
        The fold score (higher is better; "f1" and "roc_auc" take +1 as the positive class).
    class_weight : None, "balanced" or dict {-1: w, +1: w}, optional
        Multiplies ``C`` per class (``"balanced"``: computed on each training fold).
    sample_weight : array of shape (n,), optional
        Multiplies ``C`` per point (the bound rows' order) and weighs the test points' scores
        (as ``GridSearchCV.fit(..., sample_weight=...)`` does).
    row_order : array of shape (n,), optional
        The position of each bound row in the caller's order: the splitter sees the rows in
        that order (``TunedSVC`` reorders rows canonically, and gives the folds scikit-learn
        would make on the user's order).
    tol, max_iter, memory_budget
        SMO's options (:class:`svmtune.solvers.SMO`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> bound = ScoredCV(scoring="roc_auc").bind(X, y, kernel=RBF())
    >>> ev = bound.evaluate({"C": 1.0, "gamma": 0.5})
    >>> 0.0 <= ev.value < 0.2, len(bound.records[0]["split_scores"])
    (True, 5)
    """

    reports_steps: ClassVar[bool] = False
    yields_svm: ClassVar[bool] = False  # the weighted SVM is the objective's own classifier

    def __init__(
        self,
        *,
        cv: Any = 5,
        scoring: str = "accuracy",
        class_weight: Any = None,
        sample_weight: Any = None,
        row_order: Any = None,
        tol: float = 1e-3,
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.cv = cv
        self.scoring = scoring
        self.class_weight = class_weight
        self.sample_weight = sample_weight
        self.row_order = row_order
        super().__init__(tol=tol, max_iter=max_iter, memory_budget=memory_budget)

    def _check_options(self) -> None:
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {list(SCORINGS)}; got {self.scoring!r}")
        cv = self.cv
        if isinstance(cv, bool) or (isinstance(cv, int | np.integer) and cv < 2):
            raise ValueError(f"cv must be an integer >= 2 or a splitter; got {cv!r}")
        if not isinstance(cv, int | np.integer | list | tuple) and not hasattr(cv, "split"):
            raise ValueError(
                f"cv must be an integer >= 2, a splitter (split(X, y)) or a list of "
                f"(train, test) index arrays; got {cv!r}"
            )
        cw = self.class_weight
        if not (cw is None or cw == "balanced" or isinstance(cw, Mapping)):
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
        super()._check_options()

    def _bound_class(self) -> type[_BoundScoredCV]:
        return _BoundScoredCV


class _BoundScoredCV(BoundSVMObjective):
    """ScoredCV bound to data: the folds, the prepared kernel, the per-point weights."""

    objective: ScoredCV

    def _setup(self) -> None:
        o = self.objective
        n = self.n_samples
        sw = np.ones(n) if o.sample_weight is None else np.asarray(o.sample_weight, float)
        if sw.shape != (n,) or not np.all(np.isfinite(sw)) or np.any(sw < 0):
            raise ValueError(f"sample_weight must be {n} non-negative finite numbers")
        self.sample_weight = sw
        order = np.arange(n) if o.row_order is None else np.asarray(o.row_order)
        perm = np.argsort(order, kind="stable")  # bound rows in the caller's order
        if isinstance(o.cv, list | tuple):  # (train, test) positions in the caller's order
            where = {int(p): i for i, p in enumerate(order)}
            self.folds = [
                tuple(
                    np.array([where[int(i)] for i in part if int(i) in where], dtype=np.intp)
                    for part in fold
                )
                for fold in o.cv
            ]
        else:
            if isinstance(o.cv, int | np.integer):
                from sklearn.model_selection import StratifiedKFold

                splitter: Any = StratifiedKFold(int(o.cv))
            else:
                splitter = o.cv
            self.folds = [
                (perm[np.asarray(tr)], perm[np.asarray(te)])
                for tr, te in splitter.split(self.X[perm], self.y[perm])
            ]
        self.prepared = self._prepared_if_fits()
        #: One record per evaluation: params, split scores, fit and score seconds per split.
        self.records: list[dict[str, Any]] = []

    def _bounds(self, C: float, train: NDArray[np.intp]) -> NDArray[np.float64]:
        """Per-point upper bounds over all points (only the training fold's matter)."""
        Cv = np.full(self.n_samples, C)
        Cv[train] *= class_weights(self.objective.class_weight, self.y[train])
        Cv[train] *= self.sample_weight[train]
        return np.maximum(Cv, 1e-12)  # a zero weight: the point may not move its alpha

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        C = self.C(params)
        kp = self.kernel_params(params)
        K = None
        evals = 0
        if self.prepared is not None:
            K = self.prepared.gram(kp)
            check_gram(K, name=f"Gram matrix of {self.kernel!r} at {kp}")
            evals = self.n_samples * self.n_samples
        scores, fit_s, score_s = [], [], []
        iterations = 0
        for train, test in self.folds:
            t0 = time.perf_counter()
            if K is not None:
                res = self.solver.solve(self.y, C=self._bounds(C, train), gram=K, active=train)
                sv = np.flatnonzero(res.alpha > 0)
                t1 = time.perf_counter()
                decision = self._gram_decisions(K, test, sv, res.alpha[sv] * self.y[sv], res.b)
            else:
                Xtr, ytr = self.X[train], self.y[train]
                Cv = self._bounds(C, train)[train]
                res = self.solver.solve(ytr, C=Cv, kernel=self.kernel, params=kp, X=Xtr)
                t1 = time.perf_counter()
                clf = expansion_from_solution(self.kernel, kp, Xtr, ytr, res)
                clf.memory_budget = self.objective.memory_budget  # the solve's rows are gone
                decision = clf.decision_function(self.X[test])
                evals += res.kernel_evals + test.size * clf.vectors.shape[0]
            iterations += res.iterations
            weights = None if self.objective.sample_weight is None else self.sample_weight[test]
            scores.append(fold_score(self.objective.scoring, self.y[test], decision, weights))
            fit_s.append(t1 - t0)
            score_s.append(time.perf_counter() - t1)
        self.records.append(
            {"params": dict(params), "split_scores": scores, "fit_s": fit_s, "score_s": score_s}
        )
        mean = float(np.mean(scores))
        return Outcome(1.0 - mean, kernel_evals=evals, iterations=iterations, info={"score": mean})

    def _gram_decisions(
        self,
        K: NDArray[np.float64],
        test: NDArray[np.intp],
        sv: NDArray[np.intp],
        coef: NDArray[np.float64],
        b: float,
    ) -> NDArray[np.float64]:
        """``K[test, sv] @ coef + b``, the support vectors' columns in blocks within the
        memory budget's block share (beside the Gram matrix and its statistics)."""
        out, _ = decisions_from_columns(
            lambda lo, hi: K[np.ix_(test, sv[lo:hi])], coef, b, size=test.size,
            width=test.size, memory_budget=int(BLOCK_SHARE * self.objective.memory_budget),
        )  # fmt: skip
        return out

    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        """The weighted SVM trained by SMO on all bound data at ``params``."""
        checked = self.space.check(params)
        C = self.C(checked)
        kp = self.kernel_params(checked)
        everyone = np.arange(self.n_samples)
        res = self.solver.solve(
            self.y, C=self._bounds(C, everyone), kernel=self.kernel, params=kp, X=self.X
        )
        return expansion_from_solution(self.kernel, kp, self.X, self.y, res)
