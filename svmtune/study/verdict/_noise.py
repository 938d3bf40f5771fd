"""The resolution of a study, measured: noise controls, and paired differences with intervals.

A *noise control* is a method run again on another fold assignment of the same splits
(``Method(..., folds=1)``): nothing but the assignment of the training points to the folds
differs, so its test error differs from the method's by fold noise alone. With the method on
``r >= 2`` fold assignments, each data set ``d`` has ``r`` mean test errors (over its splits)
and their standard deviation ``s_d``. From them:

- the standard error of the suite mean that fold assignment alone causes,
  ``sqrt(mean_d s_d^2 / N)`` over ``N`` data sets;
- the *resolution* of a per-data-set difference, ``sqrt(2 mean_d s_d^2)``: the root mean
  square difference between two fold assignments of one method on one data set. A region of
  practical equivalence below it calls fold noise a difference (docs/comparison.md).

Noise controls are reported in their own section: they are neither ranked nor in Friedman's
test (they are not methods, and they are not independent of the method they replicate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "NoiseControls",
    "all_controls",
    "legacy_controls",
    "noise_controls_of",
    "paired_intervals",
    "ranked_methods",
    "without_controls",
]

#: The suffix by which an older study named its method's rerun on other folds.
OTHER_FOLDS = ", other folds"


def legacy_controls(methods: Sequence[str]) -> dict[str, str]:
    """``{m + ", other folds": m}`` for the methods an older study replicated that way."""
    names = set(methods)
    return {m + OTHER_FOLDS: m for m in methods if m + OTHER_FOLDS in names}


@dataclass(frozen=True)
class NoiseControls:
    """What the noise controls measured (errors in test-error units, 0.01 = one point).

    Attributes
    ----------
    per_dataset : DataFrame
        Data set x replicated method: the standard deviation over its fold assignments of its
        mean test error.
    table : DataFrame
        One row per replicated method: ``assignments`` (fold assignments run), ``data sets``,
        the suite mean of each assignment (``suite means``, text), ``mean SD``, ``SD of SD``
        and ``max SD`` over the data sets, ``SE of suite mean`` and ``resolution``.
    resolution : float
        ``sqrt(2 mean s_d^2)`` pooled over every replicated method and data set (NaN when none).
    se_suite_mean : float
        ``sqrt(mean s_d^2 / N)``, pooled likewise.
    """

    per_dataset: pd.DataFrame
    table: pd.DataFrame
    resolution: float
    se_suite_mean: float


def noise_controls_of(
    results: pd.DataFrame, controls: Mapping[str, str], *, datasets: Sequence[str] | None = None
) -> NoiseControls | None:
    """Measure the fold noise from ``controls`` (control -> the method it replicates) on the
    ok cells of ``results``; None when no replicated method has a finished control.

    Each replicated method uses the (data set, split) pairs where it and all its controls
    finished ok, and the data sets ``datasets`` (default: all) where such a split exists.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [{"dataset": d, "split": 0, "method": m, "status": "ok", "test_error": e}
    ...         for d, errs in {"a": (0.10, 0.12), "b": (0.20, 0.20)}.items()
    ...         for m, e in zip(("m", "m, folds 1"), errs)]
    >>> n = noise_controls_of(pd.DataFrame(rows), {"m, folds 1": "m"})
    >>> round(float(n.per_dataset.loc["a", "m"]), 4), round(n.resolution, 4)
    (0.0141, 0.0141)
    """
    ok = results[(results["status"] == "ok") & results["test_error"].notna()]
    groups: dict[str, list[str]] = {}
    for control, method in controls.items():
        groups.setdefault(method, [method]).append(control)
    sds: dict[str, pd.Series] = {}
    rows = []
    for method, draws in groups.items():
        grid = ok[ok["method"].isin(draws)].pivot_table(
            index=["dataset", "split"], columns="method", values="test_error", aggfunc="mean"
        )
        grid = grid.reindex(columns=draws).dropna()
        if datasets is not None:
            grid = grid[grid.index.get_level_values("dataset").isin(list(datasets))]
        if grid.empty:
            continue
        means = grid.groupby(level="dataset", sort=False).mean()
        sd = means.std(axis=1, ddof=1)
        var = float((sd**2).mean())
        sds[method] = sd
        rows.append(
            {
                "method": method,
                "assignments": len(draws),
                "data sets": len(means),
                "suite means [%]": ", ".join(f"{100 * v:.2f}" for v in means.mean()),
                "mean SD [points]": 100 * float(sd.mean()),
                "SD of SD [points]": 100 * float(sd.std(ddof=1)) if len(sd) > 1 else math.nan,
                "max SD [points]": 100 * float(sd.max()),
                "SE of suite mean [points]": 100 * math.sqrt(var / len(sd)),
                "resolution [points]": 100 * math.sqrt(2 * var),
            }
        )
    if not rows:
        return None
    per = pd.DataFrame(sds)
    per.index.name = "dataset"
    pooled = np.concatenate([s.to_numpy() ** 2 for s in sds.values()])
    n_sets = per.shape[0]
    return NoiseControls(
        per_dataset=per,
        table=pd.DataFrame(rows).set_index("method"),
        resolution=math.sqrt(2 * float(pooled.mean())),
        se_suite_mean=math.sqrt(float(pooled.mean()) / max(n_sets, 1)),
    )


def paired_intervals(errors: pd.DataFrame, baseline: str, *, level: float = 0.95) -> pd.DataFrame:
    """Each method's paired mean difference from ``baseline`` over the data sets (rows of
    ``errors``: mean test error per data set) with its Student t interval at ``level``
    (``mean +- t_{N-1} sd / sqrt(N)``; NaN bounds with fewer than 2 data sets).

    Examples
    --------
    >>> import pandas as pd
    >>> e = pd.DataFrame({"b": [0.1, 0.2, 0.3], "m": [0.11, 0.22, 0.33]})
    >>> t = paired_intervals(e, "b")
    >>> lo, hi = t.loc["m", "low"], t.loc["m", "high"]
    >>> round(float(t.loc["m", "mean_diff"]), 4), bool(lo < 0.02 < hi)
    (0.02, True)
    """
    from scipy.stats import t as student

    rows = []
    for m in errors.columns:
        if m == baseline:
            continue
        d = (errors[m] - errors[baseline]).dropna().to_numpy()
        n = d.size
        mean = float(d.mean()) if n else math.nan
        half = math.nan
        if n >= 2:
            half = float(student.ppf(0.5 + level / 2, n - 1) * d.std(ddof=1) / math.sqrt(n))
        rows.append({"method": m, "mean_diff": mean, "low": mean - half, "high": mean + half})
    return pd.DataFrame(rows, columns=["method", "mean_diff", "low", "high"]).set_index("method")


def all_controls(methods: Sequence[str], given: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The noise controls: those given, and an older study's ``m + ", other folds"``."""
    return {**legacy_controls(list(methods)), **dict(given)}


def ranked_methods(
    methods: Sequence[str] | None, controls: Mapping[str, str], stored: Sequence[str]
) -> list[str] | None:
    """The methods to rank and test: ``methods`` (default the stored ones) but the controls."""
    if not controls:
        return None if methods is None else list(methods)
    return [m for m in (methods if methods is not None else stored) if m not in controls]


def without_controls(frame: pd.DataFrame, controls: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` without the rows of the noise controls."""
    if not controls or "method" not in frame.columns:
        return frame
    return frame[~frame["method"].isin(list(controls))]
