"""Real data for the SMO, SVC and k-fold tests: Fischetti's standardized 70/30 splits of bundled
KEEL copies of UCI data sets (banana subsampled to a few hundred rows)."""

from __future__ import annotations

from functools import cache

import numpy as np

from svmtune.datasets import Split, load
from tests._file_order import fischetti_split_in_file_order

REAL_SETS = ("heart", "sonar", "wdbc", "german", "banana")


BANANA_ROWS = 400


@cache
def real_split(name: str, seed: int = 0, max_rows: int | None = None) -> Split:
    """``(X_train, y_train, X_test, y_test)``, the training part in the file's order (the
    counts these tests assert were measured on it); at most ``max_rows`` rows (banana: 400) drawn
    before the split."""
    X, y = load(name)
    if max_rows is None and name == "banana":
        max_rows = BANANA_ROWS
    if max_rows is not None and X.shape[0] > max_rows:
        idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], max_rows, replace=False))
        X, y = X[idx], y[idx]
    return fischetti_split_in_file_order(X, y, seed)
