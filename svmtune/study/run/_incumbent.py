"""The test error of a tuning run's incumbent after each evaluation (anytime curves).

A trace row's *incumbent* is the best setting found so far: the first evaluation, up to that
row, with the lowest value among those at full fidelity (the tuners' own rule for ties; see
:func:`~svmtune.study.run._fidelity.full_fidelity`: a cascade's screen, a pruned trial or a
successive-halving rung on a subsample has a value on another scale, and is never compared
with a full evaluation's). Its test error is
what a user who stopped the run at that row would get. It is computed after the timed run, once
per change of incumbent, and is not charged to the tuning cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from svmtune.study.run._fidelity import full_fidelity

__all__ = ["incumbent_rows", "incumbent_test_errors"]


def incumbent_rows(trace: pd.DataFrame, *, n_train: int | None = None) -> np.ndarray:
    """Per trace row, the position of its incumbent (-1 before the first full-fidelity one).

    ``n_train``: the training points (a row with fewer ``n_samples`` is a subsample's).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"value": [0.3, 0.2, 0.2, 0.1], "status": ["ok"] * 4})
    >>> incumbent_rows(t).tolist()
    [0, 1, 1, 3]
    """
    n = len(trace)
    value = pd.to_numeric(trace["value"], errors="coerce").to_numpy(dtype=float)
    score = np.where(full_fidelity(trace, n_train=n_train), value, math.inf)
    out = np.full(n, -1, dtype=np.int64)
    best, where = math.inf, -1
    for i in range(n):
        if score[i] < best:
            best, where = score[i], i
        out[i] = where
    return out


def incumbent_test_errors(
    trace: pd.DataFrame,
    test_error: Callable[[dict[str, float]], float],
    *,
    final: float | None = None,
    n_train: int | None = None,
) -> np.ndarray:
    """The test error of each trace row's incumbent.

    Parameters
    ----------
    trace : DataFrame
        A tuning trace (``param_<name>``, ``value``, ``status`` columns).
    test_error : callable
        ``params -> test error`` of the classifier a setting yields (trained on the whole
        training part); called once per distinct incumbent. An exception gives NaN.
    final : float, optional
        The test error of the run's answer: it is the last row's incumbent (a tuner whose answer
        is not the lowest value seen, e.g. Bisection's centre point, ends on it).
    n_train : int, optional
        The training points, for :func:`incumbent_rows`.

    Returns
    -------
    ndarray of float
        NaN before the first ok evaluation.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"param_C": [1.0, 10.0, 100.0], "value": [0.3, 0.2, 0.25],
    ...                   "status": ["ok"] * 3})
    >>> incumbent_test_errors(t, lambda p: p["C"] / 1000).tolist()
    [0.001, 0.01, 0.01]
    """
    rows = incumbent_rows(trace, n_train=n_train)
    pcols = [c for c in trace.columns if str(c).startswith("param_")]
    memo: dict[int, float] = {}
    out = np.full(len(trace), np.nan)
    for i, j in enumerate(rows):
        if j < 0:
            continue
        if j not in memo:
            rec: Mapping[str, object] = trace.iloc[j][pcols].to_dict()
            params = {
                str(k)[len("param_") :]: float(v)  # type: ignore[arg-type]
                for k, v in rec.items()
                if v is not None and not pd.isna(v)
            }
            try:
                memo[j] = float(test_error(params))
            except Exception:  # a setting the classifier cannot be trained at
                memo[j] = math.nan
        out[i] = memo[j]
    if final is not None and len(out):
        out[-1] = float(final)
    return out
