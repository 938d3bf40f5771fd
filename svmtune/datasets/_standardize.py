"""Standardize with training statistics only, dropping features constant in the training part.

Fischetti et al. (2016), Section 5: mean and standard deviation of each feature are computed
over the training set and applied to all points; features with standard deviation 0 are
removed from all points. The standard deviation is the population one (``ddof=0``), so the
standardized training part has mean 0 and standard deviation 1 exactly (up to rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import check_X

__all__ = ["Standardized", "restrict_groups", "standardize"]


class Standardized(NamedTuple):
    """The result of :func:`standardize`.

    Attributes
    ----------
    X_train, X_test : ndarray
        Standardized parts, the constant features removed.
    kept : ndarray of int
        Indices (into the input columns) of the features kept.
    mean, scale : ndarray
        Training mean and standard deviation of the kept features:
        ``X_std = (X[:, kept] - mean) / scale`` for any new data.
    """

    X_train: NDArray[np.float64]
    X_test: NDArray[np.float64]
    kept: NDArray[np.intp]
    mean: NDArray[np.float64]
    scale: NDArray[np.float64]


def standardize(X_train: ArrayLike, X_test: ArrayLike) -> Standardized:
    """Standardize both parts with the mean and standard deviation of the training part.

    A feature is dropped from both parts when it is constant in the training part (all its
    training values are equal; then its standard deviation is 0).

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
    X_test : array-like of shape (n_test, n_features)

    Returns
    -------
    Standardized
        ``(X_train, X_test, kept, mean, scale)``.

    Raises
    ------
    ValueError
        On NaN/inf, empty input, different numbers of columns, or when every feature is
        constant in the training part.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.datasets import standardize
    >>> s = standardize([[0.0, 5.0], [2.0, 5.0]], [[4.0, 1.0]])
    >>> s.X_train.tolist(), s.X_test.tolist(), s.kept.tolist()
    ([[-1.0], [1.0]], [[3.0]], [0])
    """
    Xtr = check_X(X_train, name="X_train")
    Xte = check_X(X_test, name="X_test")
    if Xtr.shape[1] != Xte.shape[1]:
        raise ValueError(
            f"X_train and X_test have different numbers of features: "
            f"{Xtr.shape[1]} and {Xte.shape[1]}"
        )
    # Constant means max == min: exact, where a computed sd of a constant column can be 1e-17.
    kept = np.flatnonzero(Xtr.max(axis=0) > Xtr.min(axis=0))
    if kept.size == 0:
        raise ValueError(
            f"every feature is constant in the training part ({Xtr.shape[0]} rows): "
            "nothing is left after dropping features with standard deviation 0"
        )
    Xtr = Xtr[:, kept]
    mean = Xtr.mean(axis=0)
    scale = Xtr.std(axis=0)
    return Standardized(
        np.ascontiguousarray((Xtr - mean) / scale),
        np.ascontiguousarray((Xte[:, kept] - mean) / scale),
        kept,
        mean,
        scale,
    )


def restrict_groups(
    groups: Sequence[ArrayLike], kept: ArrayLike, *, drop_empty: bool = True
) -> list[NDArray[np.intp]]:
    """Re-index feature groups after :func:`standardize` kept only the columns ``kept``.

    Parameters
    ----------
    groups : sequence of int arrays
        Column indices into the original data (e.g. from :func:`load_groups`).
    kept : int array
        The ``kept`` field of :class:`Standardized`.
    drop_empty : bool, default True
        Leave out groups whose columns were all dropped; with ``False`` they raise ValueError.

    Returns
    -------
    list of int arrays
        Column indices into the standardized data.

    Examples
    --------
    >>> from svmtune.datasets import restrict_groups
    >>> [g.tolist() for g in restrict_groups([[0, 1], [2, 3]], [1, 2, 3])]
    [[0], [1, 2]]
    """
    kept_arr = np.asarray(kept, dtype=np.intp)
    new_index = {int(c): k for k, c in enumerate(kept_arr)}
    out = []
    for t, group in enumerate(groups):
        cols = [new_index[int(c)] for c in np.asarray(group).ravel() if int(c) in new_index]
        if not cols:
            if drop_empty:
                continue
            raise ValueError(f"group {t} lost all its columns: {np.asarray(group).tolist()}")
        out.append(np.asarray(cols, dtype=np.intp))
    return out
