"""Tables from a study's results DataFrame (pure functions: DataFrame in, DataFrame out)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ESTIM_ERR_NOTE",
    "SUMMARY_STATS",
    "SummaryTable",
    "format_summary",
    "method_means",
    "pareto_mask",
    "summary_by_method",
    "summary_long",
    "summary_table",
    "with_units",
]

#: Columns of each method in :func:`summary_table`, as in Fischetti (2016), Table 2.
SUMMARY_STATS = ("estimate", "estimate sd", "test error", "test error sd", "CPU s", "n")

AVERAGE = "Average"
ESTIM_ERR = "Estim. err. [%]"

#: What the "Estim. err." column means (printed under the table).
ESTIM_ERR_NOTE = (
    "Estim. err. [%] = 100 * (estimate - test error) / test error, of the averages: how far "
    "the tuned objective's value (the method's own estimate of its error) is from the test "
    "error; negative means the estimate is optimistic."
)

#: Tidy columns of :func:`summary_long` (one row per method x data set).
LONG_COLUMNS = {
    "n": "n_ok",
    "estimate": "estimate_pct",
    "estimate sd": "estimate_sd_pct",
    "test error": "test_error_pct",
    "test error sd": "test_error_sd_pct",
    "CPU s": "cpu_s",
}


#: Columns of a fraction (an error rate) -> their name in a CSV file, in percent.
PERCENT_COLUMNS = {
    "test_error": "test_error_pct",
    "test_error_sd": "test_error_sd_pct",
    "objective_value": "objective_value_pct",
    "incumbent_test_error": "incumbent_test_error_pct",
}


def with_units(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a CSV file shows it: each error rate held as a fraction
    (:data:`PERCENT_COLUMNS`) in percent, its name saying so (``test_error`` ->
    ``test_error_pct``), as in every table of a report; other columns as they are.

    Examples
    --------
    >>> import pandas as pd
    >>> with_units(pd.DataFrame({"method": ["m"], "test_error": [0.125]})).to_dict("records")
    [{'method': 'm', 'test_error_pct': 12.5}]
    """
    out = frame.copy()
    for col in PERCENT_COLUMNS:
        if col in out.columns:
            out[col] = 100 * pd.to_numeric(out[col], errors="coerce")
    return out.rename(columns=PERCENT_COLUMNS)


class SummaryTable(pd.DataFrame):
    """The summary table (a DataFrame) that prints as :func:`format_summary` does.

    Indexing it gives plain DataFrames.
    """

    def __repr__(self) -> str:
        return format_summary(self)

    def __str__(self) -> str:
        return format_summary(self)


def _ok(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["status"] == "ok"]


def _order(values: Sequence[str], preferred: Sequence[str] | None) -> list[str]:
    seen = list(dict.fromkeys(values))
    if preferred is None:
        return seen
    return [m for m in preferred if m in seen] + [m for m in seen if m not in preferred]


def summary_table(results: pd.DataFrame, *, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """The papers' table: per data set x method, mean and sd over the splits.

    Rows are data sets, then ``"Average"`` (the mean of each column over the data sets) and
    ``"Estim. err. [%]"`` (``100 * (estimate - test error) / test error`` of the averages,
    negative when the objective's estimate is optimistic). Columns are
    ``(method, stat)`` with stats :data:`SUMMARY_STATS`: the objective value (the method's error
    estimate) and the test error in percent, the mean CPU seconds of a tuning run, and the
    number of cells that finished ok (only those enter the means).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"dataset": ["a", "a"], "split": [0, 1], "method": ["m", "m"],
    ...                   "status": ["ok", "ok"], "objective_value": [0.1, 0.2],
    ...                   "test_error": [0.2, 0.2], "cpu_s": [1.0, 3.0]})
    >>> t = summary_table(r)
    >>> float(t.loc["a", ("m", "test error")]), float(t.loc["Average", ("m", "CPU s")])
    (20.0, 2.0)
    """
    datasets = list(dict.fromkeys(results["dataset"])) if len(results) else []
    mnames = _order(list(results["method"]) if len(results) else [], methods)
    ok = _ok(results)
    columns = pd.MultiIndex.from_product([mnames, list(SUMMARY_STATS)], names=["method", "stat"])
    table = pd.DataFrame(np.nan, index=pd.Index(datasets, name="dataset"), columns=columns)
    for (d, m), g in ok.groupby(["dataset", "method"], sort=False):
        table.loc[d, (m, "estimate")] = 100 * g["objective_value"].mean()
        table.loc[d, (m, "estimate sd")] = 100 * g["objective_value"].std(ddof=1)
        table.loc[d, (m, "test error")] = 100 * g["test_error"].mean()
        table.loc[d, (m, "test error sd")] = 100 * g["test_error"].std(ddof=1)
        table.loc[d, (m, "CPU s")] = g["cpu_s"].mean()
    for m in mnames:
        counts = ok[ok["method"] == m].groupby("dataset").size()
        table[(m, "n")] = [float(counts.get(d, 0)) for d in datasets]
    avg = table.mean(axis=0) if len(datasets) else pd.Series(np.nan, index=columns)
    for m in mnames:
        avg[(m, "n")] = table[(m, "n")].sum() if len(datasets) else 0.0
    err = pd.Series(np.nan, index=columns)
    for m in mnames:
        est, mis = avg[(m, "estimate")], avg[(m, "test error")]
        if np.isfinite(est) and np.isfinite(mis) and mis > 0:
            err[(m, "estimate")] = 100 * (est - mis) / mis
    # appended as a frame, not with ``table.loc[AVERAGE] = avg``: pandas 2.x cannot enlarge a
    # frame without columns (an empty study) that way
    tail = pd.DataFrame([avg.to_numpy(), err.to_numpy()], index=[AVERAGE, ESTIM_ERR], dtype=float)
    tail.columns = columns
    table = pd.concat([table, tail]) if len(table) else tail
    table.index.name = "dataset"
    return table


def summary_long(results: pd.DataFrame, *, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """The summary as a tidy table: one row per method x data set, one named column per
    statistic (``n_ok`` the number of ok cells, percentages ``*_pct``, mean ``cpu_s``).

    What ``summary.csv`` holds; ``pandas.read_csv`` reads it back as is.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"dataset": ["a", "a"], "split": [0, 1], "method": ["m", "m"],
    ...                   "status": ["ok", "ok"], "objective_value": [0.1, 0.2],
    ...                   "test_error": [0.2, 0.2], "cpu_s": [1.0, 3.0]})
    >>> summary_long(r)[["method", "dataset", "n_ok", "test_error_pct"]].to_dict("records")
    [{'method': 'm', 'dataset': 'a', 'n_ok': 2, 'test_error_pct': 20.0}]
    """
    table = summary_table(results, methods=methods)
    data = table.drop(index=[AVERAGE, ESTIM_ERR])
    rows = []
    for m in dict.fromkeys(c[0] for c in table.columns):
        for d in data.index:
            row: dict[str, object] = {"method": m, "dataset": d}
            for stat, col in LONG_COLUMNS.items():
                row[col] = data.loc[d, (m, stat)]
            rows.append(row)
    out = pd.DataFrame(rows, columns=["method", "dataset", *LONG_COLUMNS.values()])
    out["n_ok"] = out["n_ok"].fillna(0).astype(int)
    return out


def summary_by_method(
    results: pd.DataFrame, *, methods: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per method: the averages over the data sets (each data set weighs the same),
    the total ``n_ok`` and ``estimate_error_pct`` (see :data:`ESTIM_ERR_NOTE`).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"dataset": ["a", "a"], "split": [0, 1], "method": ["m", "m"],
    ...                   "status": ["ok", "ok"], "objective_value": [0.1, 0.2],
    ...                   "test_error": [0.2, 0.2], "cpu_s": [1.0, 3.0]})
    >>> round(float(summary_by_method(r)["estimate_error_pct"].iloc[0]), 6)
    -25.0
    """
    table = summary_table(results, methods=methods)
    rows = []
    for m in dict.fromkeys(c[0] for c in table.columns):
        row: dict[str, object] = {"method": m}
        for stat, col in LONG_COLUMNS.items():
            row[col] = table.loc[AVERAGE, (m, stat)]
        row["estimate_error_pct"] = table.loc[ESTIM_ERR, (m, "estimate")]
        rows.append(row)
    out = pd.DataFrame(rows, columns=["method", *LONG_COLUMNS.values(), "estimate_error_pct"])
    out["n_ok"] = out["n_ok"].fillna(0).astype(int)
    return out


def method_means(results: pd.DataFrame, *, time: str = "cpu_s") -> pd.DataFrame:
    """Per method, over the ok cells: mean test error and time, averaged over data sets first.

    Each data set weighs the same (as the papers' *Average* row): the method's point is the
    mean over data sets of the per-data-set means, and its error bar ``test_error_sd`` is the
    mean over data sets of the per-data-set standard deviations over splits.
    """
    ok = _ok(results)
    if ok.empty:
        return pd.DataFrame(columns=["method", "test_error", "test_error_sd", time, "n"]).set_index(
            "method"
        )
    per = ok.groupby(["method", "dataset"], sort=False).agg(
        test_error=("test_error", "mean"),
        test_error_sd=("test_error", lambda s: s.std(ddof=1) if len(s) > 1 else 0.0),
        t=(time, "mean"),
        n=("test_error", "size"),
    )
    out = per.groupby(level="method", sort=False).agg(
        test_error=("test_error", "mean"),
        test_error_sd=("test_error_sd", "mean"),
        t=("t", "mean"),
        n=("n", "sum"),
    )
    return out.rename(columns={"t": time})


def pareto_mask(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """True for the points no other point beats in both ``x`` and ``y`` (lower is better).

    Examples
    --------
    >>> pareto_mask([1, 2, 3], [3, 1, 2]).tolist()
    [True, True, False]
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    keep = np.isfinite(xa) & np.isfinite(ya)
    out = keep.copy()
    for i in np.flatnonzero(keep):
        dominated = keep & (xa <= xa[i]) & (ya <= ya[i]) & ((xa < xa[i]) | (ya < ya[i]))
        out[i] = not dominated.any()
    return out


def format_summary(table: pd.DataFrame) -> str:
    """The summary table as text: percentages with 2 decimals, seconds with 3 significant
    digits, counts as integers; one block of columns per method.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"dataset": ["a"], "split": [0], "method": ["m"], "status": ["ok"],
    ...                   "objective_value": [0.1], "test_error": [0.2], "cpu_s": [0.5]})
    >>> "test error" in format_summary(summary_table(r))
    True
    """
    if table.empty:
        return "(no finished cells)"
    cols = {}
    for col in table.columns:
        stat = col[1] if isinstance(col, tuple) else col
        values = table[col]
        if stat == "n":
            cols[col] = [("" if pd.isna(v) else f"{int(v)}") for v in values]
        elif stat == "CPU s":
            cols[col] = [("" if pd.isna(v) else f"{v:.3g}") for v in values]
        else:
            cols[col] = [("" if pd.isna(v) else f"{v:.2f}") for v in values]
    text = pd.DataFrame(cols, index=table.index)
    text.columns = table.columns
    blocks = []
    methods = list(dict.fromkeys(c[0] for c in table.columns if isinstance(c, tuple)))
    for m in methods or [None]:
        part = text[m] if m is not None else text
        header = f"{m}" if m is not None else ""
        body = part.to_string()
        blocks.append(f"{header}\n{body}" if header else body)
    if methods and AVERAGE in table.index:
        rows = {
            m: {
                "estimate": text.loc[AVERAGE, (m, "estimate")],
                "test error": text.loc[AVERAGE, (m, "test error")],
                "test error sd": text.loc[AVERAGE, (m, "test error sd")],
                "CPU s": text.loc[AVERAGE, (m, "CPU s")],
                "n": text.loc[AVERAGE, (m, "n")],
                ESTIM_ERR: text.loc[ESTIM_ERR, (m, "estimate")] if ESTIM_ERR in text.index else "",
            }
            for m in methods
        }
        overview = pd.DataFrame.from_dict(rows, orient="index")
        overview.index.name = "method"
        blocks.append(
            "Averages over the data sets [%, CPU s]\n"
            + overview.to_string()
            + "\n"
            + textwrap.fill(ESTIM_ERR_NOTE, width=100)
        )
    return "\n\n".join(blocks)
