"""Which trace rows evaluated the objective at full fidelity, and the best value so far of them.

Multi-fidelity tuners record cheap evaluations beside full ones: a cascade's screen (status
``"screen"``: another objective, e.g. CV on a quarter of the data), a pruned trial (status
``"pruned"``: the error over the folds solved before the pruner stopped it) and a
successive-halving rung on a subsample (``n_samples`` below the cell's ``n_train``). Their values
are not the objective on the training data and may be lower than any full evaluation's, so a
best value so far that counted them could drop to a value no full evaluation reached. Their cost
is real all the same: the cumulative cost columns count every row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FULL_STATUSES", "best_so_far", "full_fidelity"]

#: Statuses of a finished evaluation of the objective itself (``"complete"``: Optuna's word).
FULL_STATUSES = ("ok", "complete")

_RUN = ["dataset", "split", "method"]


def _run_keys(traces: pd.DataFrame) -> list[str]:
    return [c for c in _RUN if c in traces.columns]


def full_fidelity(traces: pd.DataFrame, *, n_train: float | None = None) -> np.ndarray:
    """Per trace row, whether it evaluated the objective at full fidelity.

    A row counts if its ``status`` (when the frame has one) is ``"ok"`` or ``"complete"`` (not
    ``"screen"``, ``"pruned"`` or ``"failed"``), its ``stage`` (when given) is not
    ``"screen"``, its ``value`` is finite, and its ``n_samples`` (when given and not NaN) is at
    least the training points: ``n_train``, else the frame's ``n_train`` column
    (``Study.traces()`` has it), else the largest ``n_samples`` of the row's run.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"value": [0.05, 0.2, 0.1, 0.15], "status": ["ok", "ok", "pruned", "ok"],
    ...                   "n_samples": [30, 120, None, None]})
    >>> full_fidelity(t, n_train=120).tolist()
    [False, True, False, True]
    """
    n = len(traces)
    value = pd.to_numeric(traces["value"], errors="coerce").to_numpy(dtype=float)
    keep = np.isfinite(value)
    if "status" in traces.columns:
        keep &= traces["status"].astype(str).isin(FULL_STATUSES).to_numpy()
    if "stage" in traces.columns:
        keep &= (traces["stage"].astype(str) != "screen").to_numpy()
    if "n_samples" in traces.columns:
        m = pd.to_numeric(traces["n_samples"], errors="coerce").to_numpy(dtype=float)
        if n_train is not None:
            full = np.full(n, float(n_train))
        elif "n_train" in traces.columns:
            full = pd.to_numeric(traces["n_train"], errors="coerce").to_numpy(dtype=float)
        else:
            full = np.full(n, np.nan)
        # no n_train known: the largest subsample of the run stands for it
        keys = _run_keys(traces)
        m_series = pd.Series(m, index=traces.index)
        largest = (
            m_series.groupby([traces[k] for k in keys], sort=False).transform("max")
            if keys
            else pd.Series(np.nanmax(m) if np.isfinite(m).any() else np.nan, index=traces.index)
        ).to_numpy(dtype=float)
        full = np.where(np.isfinite(full), full, largest)
        keep &= ~(np.isfinite(m) & (m < full))
    return np.asarray(keep, dtype=bool)


def best_so_far(traces: pd.DataFrame, *, n_train: float | None = None) -> pd.Series:
    """The lowest full-fidelity value (:func:`full_fidelity`) of each run so far, per row.

    A run is a (dataset, split, method) (whichever of these columns the frame has), in ``eval``
    order when the frame has that column. NaN before the run's first full-fidelity row; rows
    that do not count carry the value before them on.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"eval": [0, 1, 2, 3], "value": [0.05, 0.3, 0.2, 0.25],
    ...                   "status": ["screen", "ok", "ok", "pruned"]})
    >>> best_so_far(t).tolist()
    [nan, 0.3, 0.2, 0.2]
    """
    n = len(traces)
    value = pd.to_numeric(traces["value"], errors="coerce").to_numpy(dtype=float)
    counted = np.where(full_fidelity(traces, n_train=n_train), value, np.nan)
    keys = _run_keys(traces)
    # positions in run and eval order (a stable sort: the frame's order among equal keys)
    frame = pd.DataFrame({k: traces[k].to_numpy() for k in keys})
    if "eval" in traces.columns:
        frame["eval"] = pd.to_numeric(traces["eval"], errors="coerce").to_numpy()
    by = list(frame.columns)
    order = frame.sort_values(by, kind="stable").index.to_numpy() if by else np.arange(n)
    # the running minimum per run (NaN rows skipped), carried over the rows that do not count
    ordered = pd.Series(counted[order])
    if keys:
        runs = [frame[k].to_numpy()[order] for k in keys]
        best = ordered.groupby(runs, sort=False, dropna=False).cummin()
        best = best.groupby(runs, sort=False, dropna=False).ffill()
    else:
        best = ordered.cummin().ffill()
    out = np.full(n, np.nan)
    out[order] = best.to_numpy(dtype=float)
    return pd.Series(out, index=traces.index, dtype=float)
