"""Plots of a study: test error against compute time, best-so-far traces (parameter
curves: :mod:`svmtune.study.figures._parameter_curves`).

Each ``plot_*`` function takes DataFrames (``Study.results()``, ``Study.traces()``,
:func:`svmtune.study.parameter_curve`) and returns a :class:`matplotlib.figure.Figure`, drawn
without pyplot (no global state, no display needed); :func:`save_plots` writes the standard set
as PNG files.
"""

from __future__ import annotations

import functools
import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._figure_jobs import FigureJob, run_jobs
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._small_multiples import small_multiples
from svmtune.study.run._fidelity import best_so_far
from svmtune.study.store._results import method_means, pareto_mask

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "TIME_LABELS",
    "plot_best_so_far",
    "plot_error_vs_time",
    "save_plots",
]

#: Axis labels of the time columns.
TIME_LABELS = {
    "cpu_s": "CPU time per tuning run [s]",
    "wall_s": "wall-clock time per tuning run [s]",
    "cum_cpu_s": "elapsed CPU time of the tuning run [s]",
    "cum_wall_s": "elapsed wall-clock time of the tuning run [s]",
}

_TIME_FLOOR = 1e-4  # seconds; a time shown on a log axis is at least this
#: Legend note of a method with no evaluation at full fidelity in a panel.
NO_FULL = "no evaluation on all the training data"


def _colors(methods: Sequence[str]) -> dict[str, tuple[float, ...]]:
    return {m: s["color"] for m, s in method_styles(methods).items()}


def _markers(methods: Sequence[str]) -> dict[str, str]:
    return {m: s["marker"] for m, s in method_styles(methods).items()}


def shared_legend(fig: Figure, axes: list[Axes]) -> None:
    """One legend below the panels with every label that any panel shows, once each."""
    if not axes:
        return
    handles: list[Any] = []
    labels: list[str] = []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncols=min(5, len(labels) or 1))


def panel_grid(n: int, *, width: float = 4.6, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    ncols = 2 if n == 4 else min(3, max(n, 1))
    nrows = max(1, math.ceil(n / ncols))
    fig_width = max(width * ncols + 0.6, 7.0)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(fig_width, height * nrows + 1.2), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def log_minor_ticks(ax: Axes) -> None:
    """Minor ticks of a log x axis: every integer multiple (2..9) per decade on a short range,
    only 2 and 5 on one of more than 2.5 decades (where eight per decade crowd, and each tick
    costs its share of the figure's drawing time), none beyond 8 decades (as matplotlib)."""
    from matplotlib.ticker import LogLocator, NullLocator

    lo, hi = ax.get_xlim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    if decades > 8:
        ax.xaxis.set_minor_locator(NullLocator())
    elif decades > 2.5:
        ax.xaxis.set_minor_locator(LogLocator(base=10.0, subs=(2.0, 5.0)))


def _log_time_axis(ax: Axes) -> None:
    """Log x axis with plain-number tick labels (1, 2, 5 per decade when the range is short)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    # 1, 2, 5 labelled per decade on a short range only: on a narrow panel over 1.5 decades
    # they run together ("0.0050.01")
    subs = (1.0, 2.0, 5.0) if decades <= 1.5 else (1.0,)
    ax.xaxis.set_major_locator(LogLocator(base=10.0, subs=subs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    log_minor_ticks(ax)


def _ok_cells(results: pd.DataFrame, time: str) -> pd.DataFrame:
    ok = results[results["status"] == "ok"].copy()
    ok[time] = np.maximum(ok[time].astype(float), _TIME_FLOOR)
    return ok


def _draw_error_time(
    ax: Axes,
    cells: pd.DataFrame,
    means: pd.DataFrame,
    methods: Sequence[str],
    colors: dict[str, tuple[float, ...]],
    markers: dict[str, str],
    time: str,
) -> None:
    for m in methods:
        c = cells[cells["method"] == m]
        ax.scatter(
            c[time],
            100 * c["test_error"],
            s=14,
            alpha=0.35,
            color=colors[m],
            marker=markers[m],
            linewidths=0,
        )
    for m in methods:
        if m not in means.index:
            continue
        row = means.loc[m]
        ax.errorbar(
            max(float(row[time]), _TIME_FLOOR),
            100 * row["test_error"],
            yerr=100 * row["test_error_sd"],
            fmt=markers[m],
            color=colors[m],
            markersize=9,
            markeredgecolor="black",
            capsize=4,
            elinewidth=1.5,
            label=m,
            zorder=3,
        )
    present = [m for m in methods if m in means.index]
    if present:
        x = np.maximum(means.loc[present, time].to_numpy(float), _TIME_FLOOR)
        y = 100 * means.loc[present, "test_error"].to_numpy(float)
        front = pareto_mask(x, y)
        order = np.argsort(x[front])
        fx, fy = x[front][order], y[front][order]
        ax.step(fx, fy, where="post", color="0.3", linestyle="--", linewidth=1.2, zorder=2)
        ax.scatter(
            fx,
            fy,
            s=260,
            facecolors="none",
            edgecolors="0.2",
            linewidths=1.4,
            zorder=4,
            label="Pareto front (of the means)",
        )
    _log_time_axis(ax)
    ax.set_xlabel(TIME_LABELS.get(time, f"{time} [s]"))
    ax.set_ylabel("test error [%]")
    ax.grid(True, which="major", alpha=0.3)


def plot_error_vs_time(
    results: pd.DataFrame,
    *,
    time: str = "cpu_s",
    by_dataset: bool = False,
    methods: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """Test error against compute time per method: one faint point per cell, the method's mean
    with an error bar (sd over splits), a log time axis, the Pareto front of the means ringed.

    Parameters
    ----------
    results : DataFrame
        ``Study.results()`` (only cells with status ``"ok"`` are drawn).
    time : {"cpu_s", "wall_s"}, default "cpu_s"
    by_dataset : bool, default False
        One panel per data set; else one panel averaged over data sets (each data set weighs
        the same; the error bar is the mean over data sets of the sd over splits).
    methods : sequence of str, optional
        Order (and colours) of the methods.
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
    colors, markers = _colors(names), _markers(names)
    if not by_dataset:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7.5, 5.2), layout="constrained")
        ax = fig.subplots()
        _draw_error_time(ax, cells, method_means(cells, time=time), names, colors, markers, time)
        n_data = cells["dataset"].nunique()
        ax.set_title(
            title
            or f"Test error vs {'CPU' if time == 'cpu_s' else 'wall-clock'} time, "
            f"mean over {n_data} data set{'s' if n_data != 1 else ''}\n"
            "(faint: one tuning run; marker: mean; bar: sd over splits, averaged over data sets)"
        )
        if names:
            ax.legend(loc="best", fontsize="small", framealpha=0.85)
        return fig
    datasets = list(dict.fromkeys(results["dataset"]))
    fig, axes = panel_grid(len(datasets))
    for ax, d in zip(axes, datasets, strict=True):
        sub = cells[cells["dataset"] == d]
        _draw_error_time(ax, sub, method_means(sub, time=time), names, colors, markers, time)
        ax.set_title(d)
    shared_legend(fig, axes)
    fig.suptitle(
        title
        or f"Test error vs {'CPU' if time == 'cpu_s' else 'wall-clock'} time per data set "
        "(faint: one tuning run; marker and bar: mean ± sd over splits)"
    )
    return fig


def _best_so_far_at(times: np.ndarray, best: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The step function ``best`` (defined from ``times[0]`` on) sampled at ``grid``."""
    idx = np.searchsorted(times, grid, side="right") - 1
    out = np.where(idx >= 0, best[np.clip(idx, 0, None)], np.nan)
    return out


def _best_so_far_panels(
    traces: pd.DataFrame, methods: Sequence[str] | None, objectives: Mapping[str, str] | None
) -> tuple[list[str], dict[str, str], list[tuple[Any, str]]]:
    """What :func:`plot_best_so_far` draws: the methods, each one's objective label, and the
    panels, one per (data set, objective)."""
    names = list(methods) if methods is not None else list(dict.fromkeys(traces["method"]))
    names = [m for m in names if m in set(traces["method"])] or names
    label = {m: (objectives or {}).get(m, m) for m in names}
    groups = list(dict.fromkeys(label[m] for m in names))
    datasets = list(dict.fromkeys(traces["dataset"]))
    return names, label, [(d, o) for d in datasets for o in groups]


def plot_best_so_far(
    traces: pd.DataFrame,
    *,
    time: str = "cum_cpu_s",
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Figure:
    """Best objective value found so far against elapsed time: one panel per data set and
    objective, so that only values of one objective share an axis.

    Thin lines are single tuning runs. The bold line is the mean over the splits; it starts
    when the slowest run has its first value (before that the mean is undefined), and there it
    may lie below the thin lines' starts, since faster runs have improved by then.

    Only evaluations at full fidelity give a value (:func:`svmtune.study.best_so_far`): the
    objective on all the training data, status ``"ok"``. A cascade's screen (status
    ``"screen"``), a pruned trial's partial error (``"pruned"``) and a successive-halving rung
    on a subsample (``n_samples`` below the cell's ``n_train``) are errors on another scale,
    often lower than any full evaluation's, and do not lower the curve; their cost still moves
    the time axis (the cheap work is paid for). A run's line starts at its first full
    evaluation; a method none of whose runs evaluated on all the training data (successive
    halving whose last rung is a subsample) draws no line, and its legend entry says so.

    Parameters
    ----------
    traces : DataFrame
        ``Study.traces()``: ``dataset, split, method, eval``, a time column, ``value`` and
        ``status`` (and, for multi-fidelity tuners, ``stage``, ``n_samples`` and ``n_train``).
        A frame without ``value`` is drawn from its ``best_value`` column as it is.
    time : {"cum_cpu_s", "cum_wall_s"}, default "cum_cpu_s"
    methods : sequence of str, optional
    objectives : dict method -> str, optional
        The objective each method tunes (e.g. from :func:`svmtune.study.objective_labels`);
        methods with the same objective share a panel. Without it every method is taken to
        have its own objective (one panel per method and data set).
    title : str, optional

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"dataset": ["a"] * 3, "split": [0] * 3, "method": ["m"] * 3,
    ...                   "eval": [0, 1, 2], "cum_cpu_s": [0.1, 0.2, 0.3],
    ...                   "value": [0.3, 0.2, 0.1], "status": ["ok", "ok", "pruned"]})
    >>> fig = plot_best_so_far(t, objectives={"m": "LOO_2"})
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_title()
    ('log', 'a: LOO_2')
    """
    names, label, panels = _best_so_far_panels(traces, methods, objectives)
    colors = _colors(list(methods) if methods is not None else names)  # the study's styles
    rows = len(dict.fromkeys(d for d, _ in panels))  # one row per data set, a column per objective
    fig, axes = small_multiples(rows, len(panels) // max(rows, 1))
    tr = traces.copy()
    tr[time] = np.maximum(tr[time].astype(float), _TIME_FLOOR)
    if "value" in tr.columns:
        tr["best_value"] = best_so_far(tr)
    tr["best_value"] = tr["best_value"].astype(float).replace([np.inf, -np.inf], np.nan)
    for ax, (d, o) in zip(axes, panels, strict=True):
        sub = tr[tr["dataset"] == d]
        tmax = float(sub[time].max()) if len(sub) else 1.0
        for m in (m for m in names if label[m] == o):
            runs = [g.sort_values("eval") for _, g in sub[sub["method"] == m].groupby("split")]
            if not runs:
                continue
            runs = [g for g in runs if g["best_value"].notna().any()]
            if not runs:
                ax.plot([], [], color=colors[m], linestyle=":", label=f"{m}: {NO_FULL}")
                continue
            for g in runs:
                ax.step(
                    g[time],
                    100 * g["best_value"],
                    where="post",
                    color=colors[m],
                    alpha=0.25,
                    linewidth=0.8,
                )
            start = max(float(g.loc[g["best_value"].notna(), time].iloc[0]) for g in runs)
            end = max(float(g[time].iloc[-1]) for g in runs)
            grid = np.geomspace(start, max(end, start * 1.0001), 200)
            curves = [
                _best_so_far_at(g[time].to_numpy(float), g["best_value"].to_numpy(float), grid)
                for g in runs
            ]
            # mean over the runs with a value (from when every one of them has one)
            stack = np.asarray(curves)
            some = np.isfinite(stack).any(axis=0)
            mean = np.full(grid.shape, np.nan)
            mean[some] = np.nanmean(stack[:, some], axis=0)
            ax.plot(grid, 100 * mean, color=colors[m], linewidth=2.2, label=m)
        ax.set_xscale("log")
        ax.set_xlim(right=tmax * 1.3)
        _log_time_axis(ax)
        ax.set_xlabel(TIME_LABELS.get(time, f"{time} [s]"))
        ax.set_ylabel("best value so far [%]")
        ax.set_title(f"{d}: {o}")
        ax.grid(True, alpha=0.3)
    shared_legend(fig, axes)
    clock = "CPU" if "cpu" in time else "wall-clock"
    note = (
        "(thin: one tuning run; bold: mean over splits, from when every run has its first "
        "value; only evaluations on all the training data give values; screens, pruned trials "
        "and subsample rungs count in the time only)"
    )
    # wrapped to the figure's width (about 8 characters an inch at the suptitle's size)
    width = max(40, int(8 * fig.get_figwidth()))
    fig.suptitle(
        title
        or f"Best objective value found so far vs elapsed {clock} time, one panel per data set "
        f"and objective\n{textwrap.fill(note, width)}"
    )
    return fig


def plot_jobs(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    dpi: int = 120,
) -> list[FigureJob]:
    """The standard plots of a study as figure jobs (:class:`FigureJob`: draw, save, cost by
    panels), in the order :func:`save_plots` writes them; nothing is drawn yet."""
    jobs: list[FigureJob] = []
    ok = results[results["status"] == "ok"] if len(results) else results
    if len(ok):
        jobs.append(
            FigureJob(
                "error_vs_time.png",
                functools.partial(plot_error_vs_time, results, methods=methods),
                dpi,
                cost=2.0,
            )
        )
        jobs.append(
            FigureJob(
                "error_vs_time_by_dataset.png",
                functools.partial(plot_error_vs_time, results, by_dataset=True, methods=methods),
                dpi,
                cost=1.0 + ok["dataset"].nunique(),
            )
        )
    if len(traces):
        jobs.append(
            FigureJob(
                "best_so_far.png",
                functools.partial(plot_best_so_far, traces, methods=methods, objectives=objectives),
                dpi,
                cost=1.0 + len(_best_so_far_panels(traces, methods, objectives)[2]),
            )
        )
    return jobs


def save_plots(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    dpi: int = 120,
) -> list[Path]:
    """Write the standard plots of a study as PNG files in ``outdir``; return their paths.

    ``error_vs_time.png`` (averaged over data sets), ``error_vs_time_by_dataset.png`` and
    ``best_so_far.png`` (one panel per data set and objective, see :func:`plot_best_so_far`).
    Nothing is drawn from an empty frame.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = plot_jobs(results, traces, methods=methods, objectives=objectives, dpi=dpi)
    return list(run_jobs(jobs, out).values())
