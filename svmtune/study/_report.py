"""Write a study's report: results and summary as CSV, the standard plots as PNG."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from svmtune.study._results import summary_table

__all__ = ["write_report"]


def write_report(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
) -> dict[str, Path]:
    """Write ``results.csv``, ``summary.csv`` and the plots of :func:`svmtune.plots.save_plots`.

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
        Name -> path of every file written (``"results"``, ``"summary"``, then one per plot).
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
    table = summary_table(results, methods=methods)
    table.to_csv(out / "summary.csv")
    paths["summary"] = out / "summary.csv"
    for p in save_plots(results, traces, out, methods=methods):
        paths[p.stem] = p
    return paths
