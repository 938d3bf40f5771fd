"""Write a study's report: results and summary as CSV, the standard plots as PNG."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from svmtune.study._results import summary_by_method, summary_long

__all__ = ["write_report"]


def write_report(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
) -> dict[str, Path]:
    """Write ``results.csv``, ``summary.csv``, ``summary_by_method.csv`` and the plots of
    :func:`svmtune.plots.save_plots`.

    ``summary.csv`` is tidy: one row per method x data set, one named column per statistic
    (:func:`~svmtune.study.summary_long`); ``summary_by_method.csv`` holds one row per method,
    the averages over the data sets (:func:`~svmtune.study.summary_by_method`).

    Parameters
    ----------
    results, traces : DataFrame
        ``Study.results()`` and ``Study.traces()`` (or ``Storage.cells()/traces()``).
    outdir : path
        Created if missing.
    methods : sequence of str, optional
        Order of the methods in the table and plots.

    Returns
    -------
    dict
        Name -> path of every file written (``"results"``, ``"summary"``,
        ``"summary_by_method"``, then one per plot).
    """
    from svmtune.plots import save_plots

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    flat = results.copy()
    if "best_params" in flat.columns:
        flat["best_params"] = [
            None if p is None else json.dumps(p, sort_keys=True) for p in flat["best_params"]
        ]
    flat.to_csv(out / "results.csv", index=False)
    paths["results"] = out / "results.csv"
    summary_long(results, methods=methods).to_csv(out / "summary.csv", index=False)
    paths["summary"] = out / "summary.csv"
    by_method = summary_by_method(results, methods=methods)
    by_method.to_csv(out / "summary_by_method.csv", index=False)
    paths["summary_by_method"] = out / "summary_by_method.csv"
    for p in save_plots(results, traces, out, methods=methods):
        paths[p.stem] = p
    return paths
