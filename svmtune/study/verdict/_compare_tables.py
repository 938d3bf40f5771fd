"""The tables :func:`~svmtune.study.compare` computes its statistics on: per-split test errors
after the missing-cell policy, per-data-set means and sds of test error and cost, and each data
set's test fraction (the correlation of its splits)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["per_split_errors", "stats_table", "test_fractions"]


def per_split_errors(
    results: pd.DataFrame, methods: list[str], missing: str
) -> tuple[pd.DataFrame, list[str]]:
    """(data set, split) x method test errors after the missing-cell policy; what was left out."""
    ok = results[(results["status"] == "ok") & results["test_error"].notna()]
    grid = ok.pivot_table(
        index=["dataset", "split"], columns="method", values="test_error", aggfunc="mean"
    )
    all_keys = pd.MultiIndex.from_frame(
        results[["dataset", "split"]].drop_duplicates().sort_values(["dataset", "split"])
    )
    grid = grid.reindex(index=all_keys, columns=methods)
    left: list[str] = []
    holes = grid.isna()
    n_missing = int(holes.to_numpy().sum())
    if n_missing:
        by_method = holes.sum()
        named = ", ".join(f"{m} {int(c)}" for m, c in by_method.items() if c)
        if missing == "drop":
            complete = ~holes.any(axis=1)
            n_drop = int((~complete).sum())
            left.append(
                f"{n_missing} cells did not finish ok ({named}); the {n_drop} (data set, split) "
                "pairs missing any method were dropped so that every method is compared on the "
                "same splits"
            )
            grid = grid[complete]
        else:  # "worst"
            worst = grid.max(axis=1)
            empty = worst.isna()
            grid = grid[~empty]
            fill = worst[~empty]
            grid = grid.apply(lambda col: col.fillna(fill))
            note = (
                f"{n_missing} cells did not finish ok ({named}); each counts as the worst test "
                "error of the other methods on its split"
            )
            if empty.any():
                note += f" ({int(empty.sum())} splits where no method finished were dropped)"
            left.append(note)
    datasets = list(dict.fromkeys(results["dataset"]))
    kept = set(grid.index.get_level_values("dataset"))
    gone = [d for d in datasets if d not in kept]
    if gone:
        left.append(f"data sets with no split every method finished: {', '.join(gone)}")
    return grid, left


def stats_table(results: pd.DataFrame, methods: list[str], cost: str) -> pd.DataFrame:
    ok = results[results["status"] == "ok"]
    datasets = list(dict.fromkeys(results["dataset"]))
    stats = ["test_error", "test_error_sd", "cost", "cost_sd", "n"]
    cols = pd.MultiIndex.from_product([methods, stats], names=["method", "stat"])
    table = pd.DataFrame(np.nan, index=pd.Index(datasets, name="dataset"), columns=cols)
    for (d, m), g in ok.groupby(["dataset", "method"], sort=False):
        if m not in methods:
            continue
        c = pd.to_numeric(g[cost], errors="coerce")
        table.loc[d, (m, "test_error")] = g["test_error"].mean()
        table.loc[d, (m, "test_error_sd")] = g["test_error"].std(ddof=1)
        table.loc[d, (m, "cost")] = c.mean()
        table.loc[d, (m, "cost_sd")] = c.std(ddof=1)
        table.loc[d, (m, "n")] = len(g)
    for m in methods:
        table[(m, "n")] = table[(m, "n")].fillna(0)
    return table


def test_fractions(results: pd.DataFrame) -> dict[str, float]:
    """Data set -> mean ``n_test / (n_train + n_test)`` of its cells (0.3 when not stored)."""
    if not {"n_train", "n_test"} <= set(results.columns):
        return {}
    n_tr = pd.to_numeric(results["n_train"], errors="coerce")
    n_te = pd.to_numeric(results["n_test"], errors="coerce")
    frac = (n_te / (n_tr + n_te)).groupby(results["dataset"]).mean().dropna()
    return {str(d): float(v) for d, v in frac.items()}
