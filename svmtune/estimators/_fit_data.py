"""The data :meth:`svmtune.TunedSVC.fit` is given, checked as scikit-learn's ``SVC`` checks it:
``X`` (densified when sparse), ``y`` (classification targets of at least two classes) and
``sample_weight`` (finite, non-negative, one per row)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from svmtune._validation import densify
from svmtune.estimators._svc import SPARSE

__all__ = ["FitData", "check_fit_data"]

FitData = tuple[
    NDArray[np.float64], NDArray[Any], NDArray[np.float64] | None, NDArray[Any], NDArray[np.intp]
]
"""``(X, y, sample_weight, classes, codes)``: ``codes[i]`` is the index of ``y[i]`` in
``classes``."""


def check_fit_data(
    estimator: Any, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None
) -> FitData:
    """``(X, y, sample_weight)`` checked (``estimator`` records ``n_features_in_``), with the
    sorted classes of ``y`` and each row's class code.

    Examples
    --------
    >>> from svmtune import TunedSVC
    >>> X, y, sw, classes, codes = check_fit_data(TunedSVC(), [[0.0], [1.0]], ["b", "a"], None)
    >>> classes.tolist(), codes.tolist(), sw is None
    (['a', 'b'], [1, 0], True)
    """
    Xc, yv = validate_data(estimator, X, y, dtype=np.float64, order="C", accept_sparse=SPARSE)
    Xc = densify(Xc)
    sw = _check_sample_weight(sample_weight, yv.shape[0])
    check_classification_targets(yv)
    classes, codes = np.unique(yv, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"TunedSVC needs at least two classes; y has only one class: {classes.tolist()!r}"
        )
    return Xc, yv, sw, classes, codes


def _check_sample_weight(sample_weight: ArrayLike | None, n: int) -> NDArray[np.float64] | None:
    if sample_weight is None:
        return None
    try:
        sw = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be {n} numbers; got {sample_weight!r}") from exc
    if sw.ndim == 0:  # a scalar weighs every point alike, as scikit-learn's
        sw = np.full(n, float(sw))
    if sw.shape != (n,) or not np.all(np.isfinite(sw)):
        raise ValueError(f"sample_weight must be {n} finite numbers; got {sw!r}")
    if np.any(sw < 0):
        i = int(np.flatnonzero(sw < 0)[0])
        raise ValueError(
            f"sample_weight must be non-negative; got {float(sw[i])!r} at row {i} "
            f"({int(np.sum(sw < 0))} negative in all)"
        )
    return sw
