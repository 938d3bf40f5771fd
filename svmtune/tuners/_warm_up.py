"""One untimed run of a method on a few points before its first timed run in a process.

The first run of a method in a process loads (or, on an empty cache, compiles) numba's machine
code, imports modules and fills caches: costs of the process, not of the run. A study's worker
and :meth:`Tuner.tune` alike run each (objective, tuner, kernel) once on at most 20 points first,
untimed, so that ``TuningResult.total_cost`` of a first call is its own.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np

__all__ = ["skip_warm_up", "warm_up_method"]

#: Methods this process has run once already (keys from :func:`_key`).
_WARMED: set[str] = set()


def _key(objective: Any, tuner: Any, kernel: Any) -> str:
    from svmtune._params import describe

    return repr((describe(objective), describe(tuner), describe(kernel)))


def warm_up_method(objective: Any, tuner: Any, kernel: Any, X: Any, y: Any) -> bool:
    """Run ``tuner`` on ``objective`` once, untimed, on at most 10 points of each class of
    ``(X, y)``, the first time this process meets the method; True if it ran now.

    Any error is swallowed (the timed run reports what goes wrong), and so are warnings.
    """
    try:
        key = _key(objective, tuner, kernel)
    except Exception:  # an object that cannot describe itself: no warm-up
        return False
    if key in _WARMED:
        return False
    _WARMED.add(key)  # first: the run below calls Tuner.tune, which must not warm up again
    try:
        y = np.asarray(y, dtype=np.float64)
        idx = np.r_[np.flatnonzero(y < 0)[:10], np.flatnonzero(y > 0)[:10]]
        quick = copy.copy(tuner)
        quick.max_evals = 3
        quick.max_seconds = None
        if getattr(quick, "storage", None) is not None:  # never write warm-up trials to a
            quick.storage = None  # user's Optuna storage (a resumable run reads them back)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quick.tune(objective, np.asarray(X)[idx], y[idx], kernel=kernel, random_state=0)
    except Exception:
        pass
    return True


def skip_warm_up(objective: Any, tuner: Any, kernel: Any) -> None:
    """Count the method as met in this process, so that no warm-up runs for it: its next timed
    run pays for loading the compiled code itself (what ``benchmarks/first_call.py`` measures).

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Bisection
    >>> skip_warm_up(LOOEstimate(), Bisection(), RBF())
    >>> warm_up_method(LOOEstimate(), Bisection(), RBF(), [[0.0]], [1.0])  # nothing runs
    False
    """
    _WARMED.add(_key(objective, tuner, kernel))
