"""Anytime profiles of a study's traces: what each method has reached at each budget.

A *run* is one cell's trace (data set, split, method). At a budget ``b`` of cumulative cost
(``cum_cpu_s`` or ``cum_kernel_evals``) a run's value is that of its last evaluation whose
cumulative cost is at most ``b``: the incumbent's test error (``incumbent_test_error``) or the
objective's best value so far (``best_value``, recomputed from ``value`` and ``status`` when the
traces have them: only evaluations at full fidelity count, see
:func:`~svmtune.study.run._fidelity.best_so_far`, while the cost axis counts every evaluation).
Before its first evaluation a run has no answer.

- :func:`anytime_profile`: per data set and method, the median and interquartile range over the
  splits at each budget (a run with no answer yet counts as the worst, so the median exists once
  half of the runs have answered);
- :func:`normalized_profile`: per data set and method, the normalized score at each budget
  (0 = the worst method's mean incumbent test error, 1 = the best's; a method whose runs have not
  all answered scores 0), and its mean over the data sets;
- :func:`ecdf_profile`: COCO's data profile: the fraction of (data set, split, target) triples a
  method has reached by each budget, a target being the best final test error any method reached
  on that split plus a tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from svmtune.study.run._fidelity import best_so_far

__all__ = [
    "normalized_scores",
    "COST_AXES",
    "ECDF_TOLERANCES",
    "anytime_profile",
    "budget_grid",
    "cost_axis",
    "ecdf_profile",
    "methods_with_cost",
    "normalized_profile",
]

#: Cost axes of the profiles: trace column -> label.
COST_AXES = {"cum_cpu_s": "CPU seconds", "cum_kernel_evals": "kernel evaluations"}
#: Tolerances (absolute test error) above the best final test error of a split: the targets.
ECDF_TOLERANCES = (0.0, 0.01, 0.02, 0.05, 0.10)
_METRICS = ("incumbent_test_error", "best_value")


def normalized_scores(errors: pd.DataFrame) -> pd.DataFrame:
    """Row-wise normalized score of a data set x method table of errors: 1 for the row's lowest,
    0 for its highest, linear between; a row whose values are all equal scores 1; NaN stays.

    Examples
    --------
    >>> import pandas as pd
    >>> normalized_scores(pd.DataFrame({"a": [0.1, 0.2], "b": [0.3, 0.2], "c": [0.2, 0.2]}))
         a    b    c
    0  1.0  0.0  0.5
    1  1.0  1.0  1.0
    """
    lo = errors.min(axis=1)
    hi = errors.max(axis=1)
    span = (hi - lo).where(hi > lo)
    out = errors.rsub(hi, axis=0).div(span, axis=0)
    flat = hi <= lo
    out.loc[flat] = errors.loc[flat].notna().astype(float).where(errors.loc[flat].notna())
    return out


def cost_axis(cost: str) -> str:
    """``cost`` if it is a cost axis of the profiles (also given without ``cum_``); else
    ValueError naming it.

    Examples
    --------
    >>> cost_axis("cpu_s")
    'cum_cpu_s'
    """
    name = cost if cost.startswith("cum_") else f"cum_{cost}"
    if name not in COST_AXES:
        raise ValueError(
            f"unknown cost axis {cost!r}; use one of {[c[4:] for c in COST_AXES]} "
            f"(or {list(COST_AXES)})"
        )
    return name


def _check(traces: pd.DataFrame, cost: str, metric: str) -> str:
    cost = cost_axis(cost)
    if metric not in _METRICS:
        raise ValueError(f"unknown metric {metric!r}; use one of {list(_METRICS)}")
    # the best value so far is recomputed from ``value`` when the traces have it
    recomputed = metric == "best_value" and "value" in getattr(traces, "columns", ())
    need = {"dataset", "split", "method", cost, "value" if recomputed else metric}
    if not isinstance(traces, pd.DataFrame) or need - set(traces.columns):
        have = [] if not isinstance(traces, pd.DataFrame) else list(traces.columns)
        raise ValueError(f"traces lack the columns {sorted(need - set(have))}")
    return cost


def methods_with_cost(traces: pd.DataFrame, cost: str) -> list[str]:
    """The methods whose traces count ``cost`` (peers count no kernel evaluations)."""
    cost = cost_axis(cost)
    if traces.empty:
        return []
    c = pd.to_numeric(traces[cost], errors="coerce")
    has = (c > 0).groupby(traces["method"], sort=False).any()
    return [str(m) for m, v in has.items() if v]


def budget_grid(traces: pd.DataFrame, cost: str, *, n: int = 60) -> np.ndarray:
    """``n`` log-spaced budgets from the smallest first evaluation's cost to the largest total.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"cum_cpu_s": [0.01, 0.1, 1.0]})
    >>> [round(b, 12) for b in budget_grid(t, "cpu_s", n=3).tolist()]  # round-off varies
    [0.01, 0.1, 1.0]
    """
    cost = cost_axis(cost)
    c = pd.to_numeric(traces[cost], errors="coerce").to_numpy(dtype=float)
    c = c[np.isfinite(c) & (c > 0)]
    if c.size == 0:
        raise ValueError(f"no trace row has a positive {cost}: nothing to profile")
    lo, hi = float(c.min()), float(c.max())
    if hi <= lo:
        hi = lo * 10
    return np.geomspace(lo, hi, n)


def _runs(traces: pd.DataFrame, cost: str, metric: str) -> dict[tuple[str, int, str], tuple]:
    """(dataset, split, method) -> (cumulative costs, metric values), in evaluation order."""
    out = {}
    order = ["dataset", "split", "method"] + (["eval"] if "eval" in traces.columns else [])
    t = traces.sort_values(order, kind="stable")
    if metric == "best_value" and "value" in t.columns:
        t = t.assign(best_value=best_so_far(t))
    for (d, s, m), g in t.groupby(["dataset", "split", "method"], sort=False):
        x = pd.to_numeric(g[cost], errors="coerce").to_numpy(dtype=float)
        y = pd.to_numeric(g[metric], errors="coerce").to_numpy(dtype=float)
        keep = np.isfinite(x)
        out[(str(d), int(s), str(m))] = (np.maximum.accumulate(x[keep]), y[keep])
    return out


def _at(x: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The step function (x, y) at each budget: y of the last x <= budget; NaN before x[0]."""
    idx = np.searchsorted(x, grid, side="right") - 1
    out = np.full(grid.shape, np.nan)
    ok = idx >= 0
    out[ok] = y[idx[ok]]
    # a run's value before any ok evaluation is NaN too (y NaN): no answer yet
    return out


def anytime_profile(
    traces: pd.DataFrame,
    *,
    cost: str = "cum_cpu_s",
    metric: str = "incumbent_test_error",
    grid: Sequence[float] | np.ndarray | None = None,
    methods: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per data set, method and budget: median and quartiles over the splits of ``metric``.

    Returns a DataFrame with columns ``dataset``, ``method``, ``budget``, ``median``, ``q25``,
    ``q75``, ``answered`` (fraction of the splits with an answer). A split with no answer yet
    counts as +inf, so a quantile is NaN until enough splits have answered.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"dataset": "d", "split": [0, 0, 1], "method": "m",
    ...                   "cum_cpu_s": [1.0, 2.0, 1.0], "incumbent_test_error": [0.3, 0.2, 0.1]})
    >>> anytime_profile(t, grid=[1.0, 2.0])["median"].round(3).tolist()
    [0.2, 0.15]
    """
    cost = _check(traces, cost, metric)
    g = np.asarray(grid if grid is not None else budget_grid(traces, cost), dtype=float)
    runs = _runs(traces, cost, metric)
    keep = None if methods is None else set(methods)
    by: dict[tuple[str, str], list[np.ndarray]] = {}
    for (d, _s, m), (x, y) in runs.items():
        if keep is not None and m not in keep:
            continue
        v = _at(x, y, g)
        by.setdefault((d, m), []).append(np.where(np.isnan(v), np.inf, v))
    frames = []
    for (d, m), vals in by.items():
        a = np.vstack(vals)
        with np.errstate(invalid="ignore"):  # inf - inf where no split has answered
            q = np.quantile(a, [0.25, 0.5, 0.75], axis=0)
        q[~np.isfinite(q)] = np.nan
        frames.append(
            pd.DataFrame(
                {
                    "dataset": d,
                    "method": m,
                    "budget": g,
                    "median": q[1],
                    "q25": q[0],
                    "q75": q[2],
                    "answered": np.isfinite(a).mean(axis=0),
                }
            )
        )
    cols = ["dataset", "method", "budget", "median", "q25", "q75", "answered"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def normalized_profile(
    traces: pd.DataFrame,
    *,
    cost: str = "cum_cpu_s",
    grid: Sequence[float] | np.ndarray | None = None,
    methods: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per data set, method and budget: the normalized score of the mean incumbent test error.

    At each budget, a method's error on a data set is the mean over its splits of the
    incumbent's test error, if every split has answered (else it scores 0, as the worst); the
    methods that have answered are scored 1 for the lowest error, 0 for the highest, linearly
    between (all equal: 1). At the largest budget this is the normalized score of
    :class:`~svmtune.study.Comparison` (for the splits every method finished).

    Returns columns ``dataset``, ``method``, ``budget``, ``score``; ``dataset == "(mean)"`` rows
    hold the mean over the data sets.
    """
    cost = _check(traces, cost, "incumbent_test_error")
    g = np.asarray(grid if grid is not None else budget_grid(traces, cost), dtype=float)
    runs = _runs(traces, cost, "incumbent_test_error")
    keep = None if methods is None else set(methods)
    by: dict[tuple[str, str], list[np.ndarray]] = {}
    for (d, _s, m), (x, y) in runs.items():
        if keep is None or m in keep:
            by.setdefault((d, m), []).append(_at(x, y, g))
    datasets = list(dict.fromkeys(d for d, _ in by))
    mnames = list(dict.fromkeys(m for _, m in by))
    frames = []
    for d in datasets:
        mean = pd.DataFrame(
            {m: np.vstack(by[(d, m)]).mean(axis=0) if (d, m) in by else np.nan for m in mnames},
            index=g,
        )  # NaN where some split has no answer
        score = normalized_scores(mean).fillna(0.0)
        long = score.reset_index(names="budget").melt(
            id_vars="budget", var_name="method", value_name="score"
        )
        long.insert(0, "dataset", d)
        frames.append(long)
    if not frames:
        return pd.DataFrame(columns=["dataset", "method", "budget", "score"])
    out = pd.concat(frames, ignore_index=True)
    mean_rows = out.groupby(["method", "budget"], sort=False)["score"].mean().reset_index()
    mean_rows.insert(0, "dataset", "(mean)")
    return pd.concat([out, mean_rows], ignore_index=True)[["dataset", "method", "budget", "score"]]


def ecdf_profile(
    traces: pd.DataFrame,
    *,
    cost: str = "cum_cpu_s",
    tolerances: Sequence[float] = ECDF_TOLERANCES,
    grid: Sequence[float] | np.ndarray | None = None,
    methods: Sequence[str] | None = None,
) -> pd.DataFrame:
    """COCO's data profile: per method and budget, the fraction of targets reached.

    The targets of a (data set, split) are the lowest final incumbent test error any method
    reached on it plus each of ``tolerances``. A method reaches a target at the first budget
    where its incumbent's test error is at most the target. Every (data set, split) of the
    traces counts for every method, so a split a method failed on counts as never reached.

    Returns columns ``method``, ``budget``, ``fraction``, ``n_targets``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"dataset": "d", "split": 0, "method": ["a", "a", "b"],
    ...                   "cum_cpu_s": [1.0, 2.0, 3.0], "incumbent_test_error": [0.3, 0.1, 0.2]})
    >>> e = ecdf_profile(t, tolerances=[0.0, 0.15], grid=[1.0, 2.0, 3.0])
    >>> e[e.method == "a"]["fraction"].tolist(), e[e.method == "b"]["fraction"].tolist()
    ([0.0, 1.0, 1.0], [0.0, 0.0, 0.5])
    """
    cost = _check(traces, cost, "incumbent_test_error")
    tol = np.asarray(list(tolerances), dtype=float)
    if tol.size == 0 or np.any(tol < 0) or not np.all(np.isfinite(tol)):
        raise ValueError(f"tolerances must be non-negative numbers; got {list(tolerances)!r}")
    g = np.asarray(grid if grid is not None else budget_grid(traces, cost), dtype=float)
    runs = _runs(traces, cost, "incumbent_test_error")
    mnames = list(dict.fromkeys(m for _, _, m in runs))
    if methods is not None:
        mnames = [m for m in methods if m in set(mnames)]
    problems = list(dict.fromkeys((d, s) for d, s, _ in runs))
    best: dict[tuple[str, int], float] = {}
    for (d, s, _m), (_x, y) in runs.items():
        fin = y[np.isfinite(y)]
        if fin.size:
            best[(d, s)] = min(best.get((d, s), np.inf), float(fin[-1]))
    n_targets = len(problems) * tol.size
    rows = []
    for m in mnames:
        hits = np.zeros(g.size)
        for d, s in problems:
            if (d, s, m) not in runs or (d, s) not in best:
                continue
            x, y = runs[(d, s, m)]
            for target in best[(d, s)] + tol:
                reached = np.flatnonzero(y <= target + 1e-12)
                if reached.size:
                    hits += g >= x[reached[0]]
        rows.append(
            pd.DataFrame(
                {"method": m, "budget": g, "fraction": hits / n_targets, "n_targets": n_targets}
            )
        )
    cols = ["method", "budget", "fraction", "n_targets"]
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=cols)
