"""Best-so-far traces of a study: the best objective value found so far against elapsed
time, one panel per data set and objective family."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._axes import (
    NO_FULL,
    TIME_FLOOR,
    TIME_LABELS,
    log_time_axis,
    shared_legend,
    wrapped,
)
from svmtune.study.figures._output import legible
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._small_multiples import bottom_xlabels, family_grid, method_families
from svmtune.study.run._fidelity import best_so_far

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.figure import Figure

__all__ = ["plot_best_so_far"]


def _best_so_far_at(times: np.ndarray, best: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The step function ``best`` (defined from ``times[0]`` on) sampled at ``grid``."""
    idx = np.searchsorted(times, grid, side="right") - 1
    out = np.where(idx >= 0, best[np.clip(idx, 0, None)], np.nan)
    return out


def best_so_far_panels(
    traces: pd.DataFrame, methods: Sequence[str] | None, objectives: Mapping[str, str] | None
) -> tuple[list[str], dict[str, str], list[tuple[Any, str]]]:
    """What :func:`plot_best_so_far` draws: the methods, each one's objective family
    (:func:`~svmtune.study.figures._small_multiples.objective_family`), and the panels, one
    per (data set, family)."""
    names = list(methods) if methods is not None else list(dict.fromkeys(traces["method"]))
    names = [m for m in names if m in set(traces["method"])] or names
    label = method_families(names, objectives)
    groups = list(dict.fromkeys(label[m] for m in names))
    datasets = list(dict.fromkeys(traces["dataset"]))
    return names, label, [(d, o) for d in datasets for o in groups]


def plot_best_so_far(
    traces: pd.DataFrame,
    *,
    time: str = "cum_cpu_s",
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    datasets: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """Best objective value found so far against elapsed time: one panel per data set and
    objective family (LOO estimate, CV error, Platt error, ...), so that only values of one
    kind share an axis; the panels of a data set share their time axis.

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
        methods whose objectives are of one family share a panel. Without it every method is
        taken to have its own objective (one panel per method and data set).
    datasets : sequence of str, optional
        The data sets to draw (one page of many); default all.
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
    names, label, panels = best_so_far_panels(traces, methods, objectives)
    styles = method_styles(list(methods) if methods is not None else names)  # the study's
    if datasets is not None:
        panels = [(d, o) for d, o in panels if d in set(datasets)]
    fig, grid_axes = family_grid(
        list(dict.fromkeys(d for d, _ in panels)), list(dict.fromkeys(o for _, o in panels))
    )
    axes = [grid_axes[p] for p in panels]
    # only the page's data sets: each page of many is prepared from its own rows (a run is
    # within one data set, so its best-so-far values are those of the whole frame)
    shown = list(dict.fromkeys(d for d, _ in panels))
    tr = (traces[traces["dataset"].isin(shown)] if datasets is not None else traces).copy()
    tr[time] = np.maximum(tr[time].astype(float), TIME_FLOOR)
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
                ax.plot([], [], color=styles[m]["color"], linestyle=":", label=f"{m}: {NO_FULL}")
                continue
            for g in runs:
                ax.step(
                    g[time],
                    100 * g["best_value"],
                    where="post",
                    color=styles[m]["color"],
                    alpha=0.25,
                    linewidth=0.5,
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
            ax.plot(grid, 100 * mean, color=styles[m]["color"], ls=styles[m]["ls"], lw=1.4, label=m)
        ax.set_xscale("log")
        ax.set_xlim(right=tmax * 1.3)
        log_time_axis(ax)
        ax.set_title(f"{d}: {o}", fontsize=8)
        ax.grid(True, alpha=0.3)
    bottom_xlabels(axes, TIME_LABELS.get(time, f"{time} [s]").replace(" of the tuning run", ""))
    fig.supylabel("best value so far [%]", fontsize=8)
    shared_legend(fig, axes)
    clock = "CPU" if "cpu" in time else "wall-clock"
    note = (
        "(thin: one tuning run; bold: mean over splits, from when every run has its first "
        "value; only evaluations on all the training data give values; screens, pruned trials "
        "and subsample rungs count in the time only)"
    )
    fig.suptitle(
        title
        or wrapped(
            f"Best objective value found so far vs elapsed {clock} time, one panel per data "
            f"set and objective family\n{note}",
            fig,
        ),
        fontsize=8,
    )
    return legible(fig)
