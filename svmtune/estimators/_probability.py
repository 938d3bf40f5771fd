"""Platt's probabilities for a tuned classifier: the sigmoid fitted on out-of-fold decision
values at the tuned parameters, as LIBSVM and ``sklearn.svm.SVC(probability=True)`` do."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.model_selection import StratifiedKFold

from svmtune.estimators._svc import SVC
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective
from svmtune.solvers.sigmoid import Sigmoid, fit_sigmoid

__all__ = ["PROBABILITY_FOLDS", "out_of_fold_sigmoid"]

#: Folds of the out-of-fold decision values Platt's sigmoid is fitted on (as LIBSVM).
PROBABILITY_FOLDS = 5


def out_of_fold_sigmoid(
    estimator: Any,
    X: NDArray[np.float64],
    yb: NDArray[np.float64],
    *,
    objective: Objective,
    kernel: KernelModel,
    params: dict[str, float],
    seed: int,
) -> Sigmoid:
    """Platt's sigmoid on out-of-fold decision values of ``(X, yb)`` (labels -1/+1) at the tuned
    ``params``: each stratified fold (``seed``) predicted by the same kind of classifier as
    ``estimator`` (a :class:`svmtune.SVC` with its options, else ``objective``'s classifier on
    ``kernel``) trained on the other folds."""
    n_min = int(min(np.sum(yb > 0), np.sum(yb < 0)))
    folds = min(PROBABILITY_FOLDS, n_min)
    if folds < 2:
        raise ValueError(
            "probability=True needs at least 2 points of each class in every binary problem"
            f" (for out-of-fold decision values); one class has {n_min}"
        )
    decision = np.empty(yb.shape[0])
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train, test in cv.split(X, yb):
        if isinstance(estimator, SVC):
            part: Any = SVC(
                C=estimator.C, kernel=estimator.kernel, kernel_params=estimator.kernel_params
            ).fit(X[train], yb[train])
        else:
            part = objective.bind(X[train], yb[train], kernel=kernel).classifier(params)
        decision[test] = part.decision_function(X[test])
    return fit_sigmoid(decision, yb)
