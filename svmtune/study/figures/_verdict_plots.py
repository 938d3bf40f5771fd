"""The verdict's figures: critical-difference diagram, anytime profiles, ECDF data profile.

Each ``plot_*`` function returns a :class:`matplotlib.figure.Figure` drawn without pyplot;
:func:`save_verdict_plots` writes the set as PNG files. The data come from
:func:`svmtune.study.compare` and :mod:`svmtune.study.verdict._profiles`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._axes import (
    NO_FULL,
    log_minor_ticks,
    panel_grid,
    shared_legend,
    wrapped,
)
from svmtune.study.figures._cd_diagram import plot_cd_diagram
from svmtune.study.figures._figure_jobs import FigureJob, run_jobs
from svmtune.study.figures._figure_section import cd_diagram_drawn
from svmtune.study.figures._output import (
    DEFAULT_FORMATS,
    DPI,
    MIN_FONT_PT,
    PRINT_WIDTH,
    figure_job,
    legible,
    page_names,
    pages,
)
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._small_multiples import bottom_xlabels, family_grid, method_families
from svmtune.study.verdict._compare import Comparison
from svmtune.study.verdict._profiles import (
    COST_AXES,
    anytime_profile,
    budget_grid,
    cost_axis,
    ecdf_profile,
    methods_with_cost,
    normalized_profile,
)

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "plot_anytime",
    "plot_cd_diagram",
    "plot_ecdf",
    "plot_normalized_profile",
    "save_verdict_plots",
]

_METRIC_LABELS = {
    "incumbent_test_error": "test error of the incumbent",
    "best_value": "objective: best value so far",
}


def _styles(methods: Sequence[str], traces: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Line colour, marker and line style per method: the study's
    (:func:`~svmtune.study.figures._palette.method_styles`), markers on a quarter of a line."""
    styles = method_styles(methods)  # the study's colour, marker and line style per method
    return {m: {**s, "markevery": 0.25, "markersize": 3} for m, s in styles.items()}


def _left_out_title(left: Sequence[str]) -> str:
    if len(left) <= 2:
        return f"without {', '.join(left)} (no kernel evaluations counted)"
    return f"without the {len(left)} methods that count no kernel evaluations (the peers)"


def _cost_label(cost: str) -> str:
    return f"cumulative {COST_AXES[cost_axis(cost)]} of the tuning run"


def plot_anytime(
    traces: pd.DataFrame,
    *,
    cost: str = "cum_cpu_s",
    metric: str = "incumbent_test_error",
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
) -> Figure:
    """One panel per data set: ``metric`` against cumulative ``cost`` (log axis), the median
    over the splits as a line and the interquartile range as a band, per method.

    Methods whose traces do not count ``cost`` (peers count no kernel evaluations) are left out.
    With ``metric="best_value"`` each data set gets one panel per objective family
    (``objectives``: method -> objective label, :func:`svmtune.study.objective_labels`; without
    it one per method), so that an LOO estimate, a CV error and Platt's error never share an
    axis; only evaluations at full fidelity give values (see :func:`svmtune.study.best_so_far`);
    a method with none on a data set (successive halving whose last rung is a subsample) draws
    no line there, and the title says so. ``datasets`` draws a page of them (default all).
    """
    cost = cost_axis(cost)
    if datasets is not None:
        traces = traces[traces["dataset"].isin(list(datasets))]
    have = methods_with_cost(traces, cost)
    mnames = [m for m in (methods or have) if m in have]
    prof = anytime_profile(traces, cost=cost, metric=metric, methods=mnames)
    dnames = list(datasets) if datasets is not None else list(dict.fromkeys(prof["dataset"]))
    style = _styles(list(methods or mnames), traces)
    if metric == "best_value":
        family = method_families(mnames, objectives if objectives is not None else {})
        if objectives is None:
            family = {m: m for m in mnames}
        fig, grid = family_grid(dnames, list(dict.fromkeys(family.values())))
        panels = [(d, f, grid[(d, f)]) for d in dnames for f in dict.fromkeys(family.values())]
    else:
        family = {m: "" for m in mnames}
        fig, flat = panel_grid(len(dnames))
        panels = [(d, "", ax) for d, ax in zip(dnames, flat, strict=True)]
    no_full: dict[str, list[str]] = {}
    for d, f, ax in panels:
        for m in (m for m in mnames if family[m] == f):
            p = prof[(prof["dataset"] == d) & (prof["method"] == m)]
            if p.empty:
                continue
            if p["median"].isna().all():
                if metric == "best_value" and (p["answered"] == 0).all():
                    no_full.setdefault(m, []).append(d)
                continue
            ax.plot(p["budget"], 100 * p["median"], label=m, lw=1.0, **style[m])  # percent
            ax.fill_between(
                p["budget"],
                100 * p["q25"],
                100 * p["q75"],
                color=style[m]["color"],
                alpha=0.12,
                lw=0,
            )
        ax.set_xscale("log")
        log_minor_ticks(ax)
        ax.set_title(f"{d}: {f}" if f else str(d), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    bottom_xlabels([ax for _, _, ax in panels], _cost_label(cost).replace(" of the tuning run", ""))
    fig.supylabel(f"{_METRIC_LABELS[metric]} [%]", fontsize=8)
    note = "".join(
        f"\n{m}: {NO_FULL} ({', '.join(ds) if len(ds) < len(dnames) else 'every data set'})"
        for m, ds in no_full.items()
    )
    fig.suptitle(
        wrapped(
            f"{_METRIC_LABELS[metric].capitalize()} against {COST_AXES[cost]}: median over "
            "splits, interquartile band" + note,
            fig,
        ),
        fontsize=8,
    )
    shared_legend(fig, [ax for _, _, ax in panels])
    return legible(fig)


def _cost_profiles(
    traces: pd.DataFrame,
    methods: Sequence[str] | None,
    draw: Callable[[Axes, str, list[str], pd.DataFrame, dict[str, dict[str, Any]]], None],
    *,
    ylim: tuple[float, float],
    ylabel: str,
    suptitle: str,
) -> Figure:
    """Two panels, CPU seconds and kernel evaluations on log axes: ``draw(ax, cost, methods,
    their traces, styles)`` draws the methods that count ``cost``; a panel none counts is
    hidden, and the methods left out of a panel are named in its title."""
    from matplotlib.figure import Figure

    allm = list(methods or dict.fromkeys(traces["method"]))
    rows = math.ceil((len(allm) + 1) / 3)
    fig = Figure(figsize=(PRINT_WIDTH, 3.0 + 0.15 * rows), layout="constrained")
    axes = fig.subplots(1, 2, squeeze=False, sharey=True).ravel().tolist()
    style = _styles(allm, traces)
    for ax, cost in zip(axes, COST_AXES, strict=True):
        have = methods_with_cost(traces, cost)
        mnames = [m for m in allm if m in have]
        if not mnames:
            ax.set_visible(False)
            continue
        draw(ax, cost, mnames, traces[traces["method"].isin(mnames)], style)
        ax.set_xscale("log")
        log_minor_ticks(ax)
        ax.set_ylim(*ylim)
        ax.set_xlabel(_cost_label(cost).replace(" of the tuning run", ""), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        left = [m for m in allm if m not in have]
        if left:
            ax.set_title(wrapped(_left_out_title(left), fig, size=16), fontsize=MIN_FONT_PT)
    axes[0].set_ylabel(ylabel, fontsize=8)
    fig.suptitle(wrapped(suptitle, fig), fontsize=8)
    shared_legend(fig, axes)
    return legible(fig)


def plot_normalized_profile(
    traces: pd.DataFrame, *, methods: Sequence[str] | None = None
) -> Figure:
    """Mean normalized score over the data sets (1 = best method at that budget, 0 = worst or
    no answer yet) against CPU seconds and kernel evaluations."""

    def draw(
        ax: Axes,
        cost: str,
        mnames: list[str],
        sub: pd.DataFrame,
        style: dict[str, dict[str, Any]],
    ) -> None:
        prof = normalized_profile(sub, cost=cost, grid=budget_grid(sub, cost))
        mean = prof[prof["dataset"] == "(mean)"]
        for m in mnames:
            p = mean[mean["method"] == m]
            ax.plot(p["budget"], p["score"], label=m, lw=1.5, **style[m])

    return _cost_profiles(
        traces,
        methods,
        draw,
        ylim=(-0.03, 1.03),
        ylabel="normalized score, mean over data sets",
        suptitle="Normalized score of the incumbent's mean test error per data set (1 = best "
        "method at that budget, 0 = worst or no answer yet)",
    )


def plot_ecdf(traces: pd.DataFrame, *, methods: Sequence[str] | None = None) -> Figure:
    """COCO's data profile against CPU seconds and kernel evaluations: the fraction of
    (data set, split, target) triples reached, targets the best final test error of each split
    plus 0, 1, 2, 5 and 10 points."""

    def draw(
        ax: Axes,
        cost: str,
        mnames: list[str],
        sub: pd.DataFrame,
        style: dict[str, dict[str, Any]],
    ) -> None:
        # targets come from every method's final answers, the axis from the ones counting cost
        e = ecdf_profile(traces, cost=cost, grid=budget_grid(sub, cost), methods=mnames)
        for m in mnames:
            p = e[e["method"] == m]
            ax.step(p["budget"], p["fraction"], where="post", label=m, lw=1.5, **style[m])

    return _cost_profiles(
        traces,
        methods,
        draw,
        ylim=(-0.02, 1.02),
        ylabel="fraction of (data set, split, target) reached",
        suptitle="Data profile: targets = best final test error of each split + "
        "{0, 1, 2, 5, 10} points",
    )


def verdict_plot_jobs(
    comparison: Comparison | None,
    traces: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    dpi: int = DPI,
    formats: str | Sequence[str] = DEFAULT_FORMATS,
    objectives: Mapping[str, str] | None = None,
) -> list[FigureJob]:
    """The figures :func:`save_verdict_plots` writes, as figure jobs (:class:`FigureJob`: draw,
    save in each of ``formats``, cost by panels) in its order; nothing is drawn yet. A
    per-data-set figure of more than 12 panels is one job per page."""
    jobs: list[FigureJob] = []
    job = partial(figure_job, formats=formats, dpi=dpi)
    if cd_diagram_drawn(comparison):  # only where the statistics hold a rank test
        assert comparison is not None
        cd = partial(plot_cd_diagram, comparison, methods=methods)
        jobs.append(job("cd_diagram", cd, cost=2.0 + len(comparison.ranks) / 4))
    if traces.empty:
        return jobs
    datasets = list(dict.fromkeys(traces["dataset"]))
    has_incumbent = (
        "incumbent_test_error" in traces.columns
        and pd.to_numeric(traces["incumbent_test_error"], errors="coerce").notna().any()
    )

    def per_dataset(stem: str, panels: int = 1, **kw: Any) -> None:
        # ``panels`` per data set (one per objective family with metric="best_value"): pages
        # of at most 12 panels, each costed by its panels (the jobs are handed out by cost)
        book = pages(datasets, max(1, 12 // panels))
        for name, page in zip(page_names(stem, len(book)), book, strict=True):
            draw = partial(plot_anytime, traces, methods=methods, datasets=page, **kw)
            jobs.append(job(name, draw, cost=1.0 + len(page) * panels))

    if has_incumbent:
        normalized = partial(plot_normalized_profile, traces, methods=methods)
        jobs.append(job("anytime_normalized", normalized, cost=3.0))
        jobs.append(job("ecdf", partial(plot_ecdf, traces, methods=methods), cost=3.0))
        per_dataset("anytime_test_error_cpu", cost="cum_cpu_s")
        if methods_with_cost(traces, "cum_kernel_evals"):
            per_dataset("anytime_test_error_kernel_evals", cost="cum_kernel_evals")
    if np.isfinite(pd.to_numeric(traces["best_value"], errors="coerce")).any():
        names = list(methods or dict.fromkeys(traces["method"]))
        fams = set(method_families(names, objectives).values()) if objectives else set(names)
        per_dataset(
            "anytime_objective_cpu",
            panels=max(1, min(3, len(fams)) * -(-len(fams) // 3)),
            cost="cum_cpu_s",
            metric="best_value",
            objectives=objectives,
        )
    return jobs


def save_verdict_plots(
    comparison: Comparison | None,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
    dpi: int = DPI,
    formats: str | Sequence[str] = DEFAULT_FORMATS,
    objectives: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write ``cd_diagram`` (when a comparison is given), ``anytime_normalized``, ``ecdf``,
    ``anytime_test_error_cpu``, ``anytime_test_error_kernel_evals`` and
    ``anytime_objective_cpu`` (one panel per data set and objective family, ``objectives``),
    each in every one of ``formats`` (default PNG and PDF); a per-data-set figure of many data
    sets comes in pages (``_p1``, ``_p2``, ...). The ones the traces cannot give (no incumbent
    test errors: a study stored before they were recorded) are skipped."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = verdict_plot_jobs(
        comparison, traces, methods=methods, dpi=dpi, formats=formats, objectives=objectives
    )
    return list(run_jobs(jobs, out).values())
