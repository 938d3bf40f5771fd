"""The checks of a study's scalar options (its definition's and those of a run): each
refusal names the bad value, before anything runs."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_SPLITS", "check_definition_options", "check_run_options"]

#: The most splits per data set a study accepts (Ratsch's benchmark has 100 realizations; a
#: larger number is a typo that would otherwise build billions of cells before saying anything).
MAX_SPLITS = 10_000


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_definition_options(
    *, seed: Any, n_splits: Any, test_size: Any, max_seconds: Any, max_cpu_seconds: Any = None
) -> None:
    """ValueError naming the first bad one of a study's scalar options.

    Examples
    --------
    >>> check_definition_options(seed=0, n_splits=10**9, test_size=0.3, max_seconds=None)
    Traceback (most recent call last):
    ...
    ValueError: n_splits must be at most 10000 splits per data set; got 1000000000
    """
    if not (_is_int(seed) and seed >= 0):
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if not _is_int(n_splits) or n_splits < 1:
        raise ValueError(f"n_splits must be a positive integer; got {n_splits!r}")
    if n_splits > MAX_SPLITS:
        raise ValueError(
            f"n_splits must be at most {MAX_SPLITS} splits per data set; got {n_splits!r}"
        )
    if not (isinstance(test_size, float | int) and 0 < test_size < 1):
        raise ValueError(f"test_size must be in (0, 1); got {test_size!r}")
    for name, limit in (("max_seconds", max_seconds), ("max_cpu_seconds", max_cpu_seconds)):
        if limit is not None and not (
            isinstance(limit, float | int) and math.isfinite(limit) and limit > 0
        ):
            raise ValueError(f"{name} must be a positive number; got {limit!r}")


def check_run_options(*, n_jobs: Any, stale_after: Any, report_next: Any) -> None:
    """ValueError naming the first bad option of :meth:`Study.run`.

    ``n_jobs`` follows joblib: a positive number of processes, ``-1`` for all cores (``-2``
    all but one, ...), or None (joblib's default, one process unless a
    ``joblib.parallel_config`` says otherwise); 0 means nothing.

    Examples
    --------
    >>> check_run_options(n_jobs=0, stale_after=300.0, report_next=False)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a positive number of processes, -1 for all cores or None; got 0
    """
    if n_jobs is not None and (not _is_int(n_jobs) or n_jobs == 0):
        raise ValueError(
            f"n_jobs must be a positive number of processes, -1 for all cores or None; "
            f"got {n_jobs!r}"
        )
    if not (
        isinstance(stale_after, float | int)
        and not isinstance(stale_after, bool)
        and math.isfinite(stale_after)
        and stale_after > 0
    ):
        raise ValueError(f"stale_after must be a positive number of seconds; got {stale_after!r}")
    if not isinstance(report_next, bool):
        raise ValueError(f"report_next must be True or False; got {report_next!r}")
