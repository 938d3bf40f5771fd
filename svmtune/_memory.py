"""The one memory budget: how many bytes of kernel values a fit, an evaluation or a prediction
holds at once, and the block sizes that keep within it.

Every array svmtune allocates whose size grows with the square of the number of points (a Gram
matrix, a kernel-row cache, a block of kernel rows, kernel statistics such as squared distances)
is sized by a budget in bytes, never by a fixed count of rows:

- :data:`DEFAULT_MEMORY_BUDGET` is the default of every fit and objective (``SMO``, ``SVC``,
  ``KFoldCV``, ``ExactLOO``, ``LOOEstimate``, ``PlattError``, their ``memory_budget``
  keyword): the Gram matrix, or the row cache and the blocks beside it, never take more;
- :data:`svmtune.classifier.PREDICT_MEMORY_BUDGET` is the default of a classifier's decision
  blocks (``KernelExpansion(memory_budget=...)``), which run after a fit's arrays are gone.

:func:`block_shape` and :func:`block_rows` turn a budget into a block's shape; :func:`split_budget`
shares one between workers that run at once (parallel folds, parallel binary problems).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "block_rows",
    "block_shape",
    "check_memory_budget",
    "split_budget",
]

DEFAULT_MEMORY_BUDGET = 256 * 2**20
"""Bytes of kernel values a fit or an objective's evaluation holds at once (256 MiB): the full
Gram matrix while it fits (with the kernel statistics it is computed from), else a cache of
kernel rows and the blocks read beside it. Chosen as the smallest power of two at least
LIBSVM's default kernel cache (scikit-learn's ``SVC(cache_size=200)``, in MB); how it was
measured: ``docs/defaults.md``, ``python benchmarks/memory.py``."""


def check_memory_budget(value: object, *, name: str = "memory_budget") -> int:
    """``value`` as a positive number of bytes, or ValueError naming it.

    Examples
    --------
    >>> check_memory_budget(2**20)
    1048576
    >>> check_memory_budget(0)
    Traceback (most recent call last):
    ...
    ValueError: memory_budget must be a positive integer (bytes); got 0
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer (bytes); got {value!r}")
    return int(value)


def block_shape(n_columns: int, arrays: int, memory_budget: int) -> tuple[int, int]:
    """``(rows, columns)`` of a block of ``arrays`` float64 arrays that fit ``memory_budget``
    bytes: as many rows of all ``n_columns`` columns as fit, else (one row of ``n_columns`` is
    too long) one row of as many columns as fit (at least one).

    Examples
    --------
    >>> block_shape(50_000, 3, 128 * 2**20)
    (111, 50000)
    >>> block_shape(10**7, 3, 128 * 2**20)
    (1, 5592405)
    """
    per_row = 8 * max(int(arrays), 1) * max(int(n_columns), 1)
    if per_row <= memory_budget:
        return int(memory_budget) // per_row, int(n_columns)
    return 1, max(1, int(memory_budget) // (8 * max(int(arrays), 1)))


def block_rows(n_columns: int, memory_budget: int, *, arrays: int = 1) -> int:
    """Rows of ``n_columns`` float64 entries (``arrays`` arrays of that shape at once) that fit
    ``memory_budget`` bytes; at least one (a single row is the smallest block there is).

    Examples
    --------
    >>> block_rows(1000, 80_000), block_rows(1000, 80_000, arrays=4), block_rows(10**9, 1)
    (10, 2, 1)
    """
    return block_shape(n_columns, arrays, memory_budget)[0]


def split_budget(memory_budget: int, workers: int) -> int:
    """Each worker's share of ``memory_budget`` when ``workers`` run at once (at least one byte;
    joblib's ``n_jobs=-1`` style counts are resolved by the caller).

    Examples
    --------
    >>> split_budget(2**20, 4)
    262144
    """
    return max(1, int(memory_budget) // max(1, int(workers)))
