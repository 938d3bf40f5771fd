"""Plots of a study: test error against compute time (best-so-far traces:
:mod:`svmtune.study.figures._best_so_far`; parameter curves:
:mod:`svmtune.study.figures._parameter_curves`).

Each ``plot_*`` function takes DataFrames (``Study.results()``, ``Study.traces()``,
:func:`svmtune.study.parameter_curve`) and returns a :class:`matplotlib.figure.Figure`, drawn
without pyplot (no global state, no display needed) at print width (17 cm, no text under 7
pt); :func:`save_plots` writes the standard set as PNG and PDF files (or SVG: ``formats``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._axes import (
    TIME_FLOOR,
    TIME_LABELS,
    log_time_axis,
    panel_grid,
    shared_legend,
    wrapped,
)
from svmtune.study.figures._best_so_far import best_so_far_panels, plot_best_so_far
from svmtune.study.figures._figure_jobs import FigureJob, run_jobs
from svmtune.study.figures._output import (
    DEFAULT_FORMATS,
    DPI,
    PRINT_WIDTH,
    figure_job,
    legible,
    page_names,
    pages,
)
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._small_multiples import bottom_xlabels
from svmtune.study.store._results import method_means, pareto_mask

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "TIME_LABELS",
    "plot_error_vs_time",
    "save_plots",
]


def _ok_cells(results: pd.DataFrame, time: str) -> pd.DataFrame:
    ok = results[results["status"] == "ok"].copy()
    ok[time] = np.maximum(ok[time].astype(float), TIME_FLOOR)
    return ok


def _draw_error_time(
    ax: Axes,
    cells: pd.DataFrame,
    methods: Sequence[str],
    styles: Mapping[str, Mapping[str, Any]],
    time: str,
    *,
    runs: bool = False,
    size: float = 6.0,
) -> None:
    means = method_means(cells, time=time)
    for m in methods if runs else ():
        c = cells[cells["method"] == m]
        ax.scatter(
            c[time],
            100 * c["test_error"],
            s=6,
            alpha=0.25,
            color=styles[m]["color"],
            marker=styles[m]["marker"],
            linewidths=0,
            rasterized=True,  # thousands of points: an image inside the vector file
        )
    for m in methods:
        if m not in means.index:
            continue
        row = means.loc[m]
        ax.errorbar(
            max(float(row[time]), TIME_FLOOR),
            100 * row["test_error"],
            yerr=100 * row["test_error_sd"],
            fmt=styles[m]["marker"],
            color=styles[m]["color"],
            markersize=size,
            markeredgecolor="black",
            markeredgewidth=0.5,
            capsize=2,
            elinewidth=0.8,
            label=m,
            zorder=3,
        )
    present = [m for m in methods if m in means.index]
    if present:
        x = np.maximum(means.loc[present, time].to_numpy(float), TIME_FLOOR)
        y = 100 * means.loc[present, "test_error"].to_numpy(float)
        front = pareto_mask(x, y)
        order = np.argsort(x[front])
        fx, fy = x[front][order], y[front][order]
        ax.step(fx, fy, where="post", color="0.3", linestyle="--", linewidth=0.8, zorder=2)
        ax.scatter(
            fx,
            fy,
            s=(2.2 * size) ** 2,
            facecolors="none",
            edgecolors="0.2",
            linewidths=0.9,
            zorder=4,
            label="Pareto front (of the means)",
        )
    log_time_axis(ax)
    ax.grid(True, which="major", alpha=0.3)


def plot_error_vs_time(
    results: pd.DataFrame,
    *,
    time: str = "cpu_s",
    by_dataset: bool = False,
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    runs: bool = False,
    title: str | None = None,
) -> Figure:
    """Test error against compute time per method: the method's mean with an error bar (sd
    over splits), a log time axis, the Pareto front of the means ringed; the legend below the
    axes, where it covers no data.

    Parameters
    ----------
    results : DataFrame
        ``Study.results()`` (only cells with status ``"ok"`` are drawn).
    time : {"cpu_s", "wall_s"}, default "cpu_s"
    by_dataset : bool, default False
        One panel per data set; else one panel averaged over data sets (each data set weighs
        the same; the error bar is the mean over data sets of the sd over splits).
    methods : sequence of str, optional
        Order (and styles) of the methods.
    datasets : sequence of str, optional
        With ``by_dataset``, the data sets to draw (one page of many); default all.
    runs : bool, default False
        Also draw one faint point per tuning run (rasterized in a vector file).
    title : str, optional

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"dataset": ["a"] * 4, "split": [0, 1, 0, 1],
    ...                   "method": ["fast", "fast", "slow", "slow"], "status": ["ok"] * 4,
    ...                   "test_error": [0.2, 0.25, 0.1, 0.12], "cpu_s": [0.01, 0.02, 1.0, 1.2]})
    >>> fig = plot_error_vs_time(r)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    cells = _ok_cells(results, time)
    names = list(methods) if methods is not None else list(dict.fromkeys(results["method"]))
    styles = method_styles(names)
    clock = "CPU" if time == "cpu_s" else "wall-clock"
    bar = "bar: sd over splits" + ("" if by_dataset else ", averaged over data sets")
    note = f"(marker: mean; {bar}{'; faint: one tuning run' if runs else ''})"
    if not by_dataset:
        from matplotlib.figure import Figure

        rows = math.ceil((len(names) + 1) / 3)
        fig = Figure(figsize=(PRINT_WIDTH, 3.9 + 0.15 * rows), layout="constrained")
        ax = fig.subplots()
        _draw_error_time(ax, cells, names, styles, time, runs=runs)
        ax.set_xlabel(TIME_LABELS.get(time, f"{time} [s]"))
        ax.set_ylabel("test error [%]")
        n_data = cells["dataset"].nunique()
        ax.set_title(
            title
            or f"Test error vs {clock} time, mean over {n_data} data "
            f"set{'s' if n_data != 1 else ''}\n{note}",
            fontsize=8,
        )
        shared_legend(fig, [ax])
        return legible(fig)
    shown = list(datasets) if datasets is not None else list(dict.fromkeys(results["dataset"]))
    fig, axes = panel_grid(len(shown))
    for ax, d in zip(axes, shown, strict=True):
        _draw_error_time(ax, cells[cells["dataset"] == d], names, styles, time, runs=runs, size=4)
        ax.set_title(d, fontsize=8)
    bottom_xlabels(axes, TIME_LABELS.get(time, f"{time} [s]"))
    fig.supylabel("test error [%]", fontsize=8)
    shared_legend(fig, axes)
    fig.suptitle(
        title or wrapped(f"Test error vs {clock} time per data set {note}", fig), fontsize=8
    )
    return legible(fig)


def plot_jobs(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    dpi: int = DPI,
    formats: str | Sequence[str] = DEFAULT_FORMATS,
) -> list[FigureJob]:
    """The standard plots of a study as figure jobs (:class:`FigureJob`: draw, save in each
    of ``formats``, cost by panels), in the order :func:`save_plots` writes them; nothing is
    drawn yet. A per-data-set figure of more than 12 panels is one job per page."""
    jobs: list[FigureJob] = []
    ok = results[results["status"] == "ok"] if len(results) else results
    job = functools.partial(figure_job, formats=formats, dpi=dpi)
    if len(ok):
        jobs.append(
            job("error_vs_time", functools.partial(plot_error_vs_time, results, methods=methods))
        )
        book = pages(list(dict.fromkeys(ok["dataset"])))
        for stem, page in zip(page_names("error_vs_time_by_dataset", len(book)), book, strict=True):
            draw = functools.partial(
                plot_error_vs_time, results, by_dataset=True, methods=methods, datasets=page
            )
            jobs.append(job(stem, draw, cost=1.0 + len(page)))
    if len(traces):
        _, _, panels = best_so_far_panels(traces, methods, objectives)
        per_dataset = max(1, len(dict.fromkeys(o for _, o in panels)))
        book = pages(list(dict.fromkeys(d for d, _ in panels)), max(1, 12 // per_dataset))
        for stem, page in zip(page_names("best_so_far", len(book)), book, strict=True):
            draw = functools.partial(
                plot_best_so_far, traces, methods=methods, objectives=objectives, datasets=page
            )
            jobs.append(job(stem, draw, cost=1.0 + len(page) * per_dataset))
    return jobs


def save_plots(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    dpi: int = DPI,
    formats: str | Sequence[str] = DEFAULT_FORMATS,
) -> list[Path]:
    """Write the standard plots of a study in ``outdir``, each in every one of ``formats``
    (default PNG and PDF; ``"pdf,svg"`` and the like choose); return their paths.

    ``error_vs_time`` (averaged over data sets), ``error_vs_time_by_dataset`` and
    ``best_so_far`` (one panel per data set and objective family, see
    :func:`plot_best_so_far`); a per-data-set figure of many data sets comes in pages
    (``best_so_far_p1``, ``best_so_far_p2``, ...). Nothing is drawn from an empty frame.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = plot_jobs(
        results, traces, methods=methods, objectives=objectives, dpi=dpi, formats=formats
    )
    return list(run_jobs(jobs, out).values())
