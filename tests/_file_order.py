"""Splits with the training part in the data file's order, for tests whose expected counts were
measured on one fixed problem (the study's splits now shuffle the training part; a solver's
path, and so its counts, depend on the order of the points, its guarantees do not)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svmtune.datasets import Split, fischetti_indices, load, ratsch_indices, standardize
from svmtune.datasets._splits import _ratsch_name


def _in_file_order(
    X: NDArray[np.float64], y: NDArray[np.float64], idx: tuple[NDArray, NDArray]
) -> Split:
    tr, te = idx
    s = standardize(X[tr], X[te])
    return Split(s.X_train, y[tr].copy(), s.X_test, y[te].copy())


def fischetti_split_in_file_order(X: NDArray, y: NDArray, seed: int) -> Split:
    """:func:`svmtune.datasets.fischetti_split`'s parts, the training part in the file's order."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    return _in_file_order(X, y, fischetti_indices(y, np.random.default_rng(seed)))


def ratsch_split_in_file_order(name: str, seed: int) -> Split:
    """:func:`svmtune.datasets.ratsch_split`'s parts, the training part in the file's order."""
    X, y = load(_ratsch_name(name))
    return _in_file_order(X, y, ratsch_indices(name, np.random.default_rng(seed)))
