"""The verdict's figures: critical-difference diagram, anytime profiles, ECDF data profile.

Each ``plot_*`` function returns a :class:`matplotlib.figure.Figure` drawn without pyplot;
:func:`save_verdict_plots` writes the set as PNG files. The data come from
:func:`svmtune.study.compare` and :mod:`svmtune.study.verdict._profiles`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._figure_jobs import FigureJob, run_jobs
from svmtune.study.figures._figure_section import cd_diagram_drawn
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._plots import NO_FULL, log_minor_ticks, panel_grid, shared_legend
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
    """Line colour and style per method: tab20's ten dark shades first, then the light ones (so
    up to ten methods get ten distinct hues); methods that count no kernel evaluations (peers)
    dashed."""
    counted = set(methods_with_cost(traces, "cum_kernel_evals")) if not traces.empty else set()
    styles = method_styles(methods)  # the study's colour and marker per method
    return {
        m: {**s, "ls": "-" if m in counted else "--", "markevery": 0.25, "markersize": 4}
        for m, s in styles.items()
    }


def _left_out_title(left: Sequence[str]) -> str:
    if len(left) <= 2:
        return f"without {', '.join(left)} (no kernel evaluations counted)"
    return f"without the {len(left)} methods that count no kernel evaluations (the peers)"


def _cost_label(cost: str) -> str:
    return f"cumulative {COST_AXES[cost_axis(cost)]} of the tuning run"


def plot_cd_diagram(comparison: Comparison, *, methods: Sequence[str] | None = None) -> Figure:
    """Demšar's critical-difference diagram: average ranks on an axis, methods the Nemenyi
    test does not separate joined by a bar, and the critical difference drawn above.

    Draws with ``scikit_posthocs.critical_difference_diagram``. When the Nemenyi test is not
    applicable (fewer than 5 data sets or 3 methods) the ranks are drawn without bars and the
    reason is written on the figure. ``methods``, the study's methods in its order, give each
    its colour and marker
    (:func:`~svmtune.study.figures._palette.method_styles`), as in every figure.
    """
    import scikit_posthocs as sp

    ranks = comparison.ranks
    k = len(ranks)
    from matplotlib.figure import Figure

    # Labels sit outside the axes, where a constrained layout does not look: margins sized
    # for the longest label (about 0.6 em per character) so none is clipped at 20+ methods.
    font = 8 if k > 12 else 9
    label_in = (max((len(str(m)) for m in ranks.index), default=10) + 9) * 0.6 * font / 72
    width, height = 5.5 + 2 * label_in, 1.4 + 0.3 * k
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(
        left=label_in / width, right=1 - label_in / width, top=1 - 0.7 / height, bottom=0.05
    )
    ax = fig.subplots()
    # the study's method order (``methods``) gives each its colour and marker, as elsewhere
    order = [*(methods or ()), *(m for m in ranks.index if m not in (methods or ()))]
    styles = method_styles(order)
    nem = comparison.posthoc.get("nemenyi")
    applicable = nem is not None and not nem.empty
    if applicable:
        sig = nem
    else:  # no test: p = 0 everywhere off the diagonal, so no bar joins any methods
        sig = pd.DataFrame(np.eye(k), index=ranks.index, columns=ranks.index)
    cd = comparison.critical_difference if applicable else None
    drawn = sp.critical_difference_diagram(
        ranks,
        sig,
        ax=ax,
        alpha=comparison.alpha,
        cd=cd,
        label_fmt_left="{label} ({rank:.2f})",
        label_fmt_right="({rank:.2f}) {label}",
        label_props={"fontsize": font},
    )
    _cd_restyle(drawn, styles)
    title = f"Average rank of mean test error over {comparison.n_datasets} data sets (1 = best)"
    pad = 6.0
    if applicable:
        cd_text = f"{comparison.critical_difference:.2f}"
        title += f"; Nemenyi CD = {cd_text} at alpha = {comparison.alpha:g}"
        pad = _cd_bar_above_ticks(ax, fig, font)
    else:
        title += f"\n{comparison.friedman.reason}: no significance bars"
    ax.set_title(title, fontsize=9, pad=pad)
    return fig


def _cd_bar_above_ticks(ax: Any, fig: Any, font: float) -> float:
    """Move the critical-difference bar and its label (drawn by scikit-posthocs just above the
    rank axis, across its tick labels) above the tick labels; returns the title's pad (points)
    that keeps the title above them."""
    from matplotlib.transforms import offset_copy

    lift = 10.0 + 12.0  # the tick labels (10 pt), the ticks and their pads
    for text in ax.texts:
        if text.get_text().startswith("CD ="):
            x, _ = text.get_position()
            text.set_position((x, 0.0))
            text.set_transform(offset_copy(ax.transData, fig=fig, y=lift + 5.0, units="points"))
            text.set_verticalalignment("bottom")
            text.set_fontsize(font)
            for line in ax.lines:
                ys = line.get_ydata()
                if len(ys) == 2 and ys[0] == ys[1] and abs(ys[0] - 0.5) < 1e-12:
                    line.set_ydata([0.0, 0.0])
                    line.set_transform(offset_copy(ax.transData, fig=fig, y=lift, units="points"))
            return lift + 5.0 + font + 4.0
    return 6.0


def plot_anytime(
    traces: pd.DataFrame,
    *,
    cost: str = "cum_cpu_s",
    metric: str = "incumbent_test_error",
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
) -> Figure:
    """One panel per data set: ``metric`` against cumulative ``cost`` (log axis), the median
    over the splits as a line and the interquartile range as a band, per method.

    Methods whose traces do not count ``cost`` (peers count no kernel evaluations) are left out.
    With ``metric="best_value"`` only evaluations at full fidelity give values (see
    :func:`svmtune.study.best_so_far`); a method with none on a data set (successive halving
    whose last rung is a subsample) draws no line there, and the title says so.
    """
    cost = cost_axis(cost)
    have = methods_with_cost(traces, cost)
    mnames = [m for m in (methods or have) if m in have]
    prof = anytime_profile(traces, cost=cost, metric=metric, methods=mnames)
    dnames = list(datasets) if datasets is not None else list(dict.fromkeys(prof["dataset"]))
    style = _styles(list(methods or mnames), traces)
    fig, axes = panel_grid(len(dnames), width=3.6, height=2.8)
    no_full: dict[str, list[str]] = {}
    for ax, d in zip(axes, dnames, strict=True):
        for m in mnames:
            p = prof[(prof["dataset"] == d) & (prof["method"] == m)]
            if p.empty:
                continue
            if p["median"].isna().all():
                if metric == "best_value" and (p["answered"] == 0).all():
                    no_full.setdefault(m, []).append(d)
                continue
            ax.plot(p["budget"], 100 * p["median"], label=m, lw=1.4, **style[m])  # percent
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
        ax.set_title(d, fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
    if axes:
        axes[0].set_ylabel(f"{_METRIC_LABELS[metric]} [%]")
        for ax in axes[-min(3, len(axes)) :]:
            ax.set_xlabel(_cost_label(cost))
    note = "".join(
        f"\n{m}: {NO_FULL} ({', '.join(ds) if len(ds) < len(dnames) else 'every data set'})"
        for m, ds in no_full.items()
    )
    fig.suptitle(
        f"{_METRIC_LABELS[metric].capitalize()} against {COST_AXES[cost]}: median over splits, "
        "interquartile band" + note,
        fontsize=10,
    )
    shared_legend(fig, axes)
    return fig


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

    fig = Figure(figsize=(11.0, 5.0), layout="constrained")
    axes = fig.subplots(1, 2, squeeze=False).ravel().tolist()
    allm = list(methods or dict.fromkeys(traces["method"]))
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
        ax.set_xlabel(_cost_label(cost))
        ax.grid(True, which="major", alpha=0.3)
        left = [m for m in allm if m not in have]
        if left:
            ax.set_title(_left_out_title(left), fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.suptitle(suptitle, fontsize=10)
    shared_legend(fig, axes)
    return fig


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


def readable(colour: Any, *, lightness: float = 0.42) -> tuple[float, float, float]:
    """``colour`` darkened to at most ``lightness`` (HLS), its hue kept: text in a method's
    colour that stays legible on white (tab20's light half is not).

    >>> readable((0.78, 0.78, 0.78))  # tab20's light grey
    (0.42, 0.42, 0.42)
    >>> readable((0.12, 0.47, 0.71)) == (0.12, 0.47, 0.71)  # dark enough already
    True
    """
    import colorsys

    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(colour)
    h, li, sat = colorsys.rgb_to_hls(r, g, b)
    if li <= lightness:
        return (r, g, b)
    r, g, b = colorsys.hls_to_rgb(h, lightness, sat)
    return (round(r, 6), round(g, 6), round(b, 6))


def _cd_restyle(drawn: Mapping[str, Any], styles: Mapping[str, Mapping[str, Any]]) -> None:
    """Colour each label (darkened where the colour is light: :func:`readable`), elbow and rank
    marker of a CD diagram as its method, and give the marker the method's shape.
    scikit-posthocs draws the three in one loop (the i-th of each belong together); the method
    is read from the label's own text, so ties cannot swap colours between labels and
    markers."""
    import re

    from matplotlib.markers import MarkerStyle

    labels = list(drawn.get("labels", []))
    elbows = list(drawn.get("elbows", []))
    markers = list(drawn.get("markers", []))
    for i, text in enumerate(labels):
        found = re.fullmatch(r"\(\S+\) (.*)|(.*) \(\S+\)", text.get_text(), flags=re.S)
        name = str(found.group(1) or found.group(2)) if found else ""
        if name not in styles:
            continue
        colour, shape = styles[name]["color"], MarkerStyle(styles[name]["marker"])
        text.set_color(readable(colour))
        if i < len(elbows):
            elbows[i].set_color(colour)
        if i < len(markers):
            markers[i].set_facecolor(colour)
            markers[i].set_edgecolor(colour)
            markers[i].set_paths([shape.get_path().transformed(shape.get_transform())])


def verdict_plot_jobs(
    comparison: Comparison | None,
    traces: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    dpi: int = 130,
) -> list[FigureJob]:
    """The figures :func:`save_verdict_plots` writes, as figure jobs (:class:`FigureJob`: draw,
    save, cost by panels) in its order; nothing is drawn yet."""
    jobs: list[FigureJob] = []
    if cd_diagram_drawn(comparison):  # only where the statistics hold a rank test
        assert comparison is not None
        cd_cost = 2.0 + len(comparison.ranks) / 4
        jobs.append(
            FigureJob(
                "cd_diagram.png",
                partial(plot_cd_diagram, comparison, methods=methods),
                dpi,
                cd_cost,
            )
        )
    if traces.empty:
        return jobs
    n_data = traces["dataset"].nunique()
    has_incumbent = (
        "incumbent_test_error" in traces.columns
        and pd.to_numeric(traces["incumbent_test_error"], errors="coerce").notna().any()
    )
    if has_incumbent:
        cpu = partial(plot_anytime, traces, cost="cum_cpu_s", methods=methods)
        jobs.append(FigureJob("anytime_test_error_cpu.png", cpu, dpi, 1.0 + n_data))
        if methods_with_cost(traces, "cum_kernel_evals"):
            evals = partial(plot_anytime, traces, cost="cum_kernel_evals", methods=methods)
            jobs.append(FigureJob("anytime_test_error_kernel_evals.png", evals, dpi, 1.0 + n_data))
        normalized = partial(plot_normalized_profile, traces, methods=methods)
        jobs.append(FigureJob("anytime_normalized.png", normalized, dpi, 3.0))
        jobs.append(FigureJob("ecdf.png", partial(plot_ecdf, traces, methods=methods), dpi, 3.0))
    if np.isfinite(pd.to_numeric(traces["best_value"], errors="coerce")).any():
        objective = partial(
            plot_anytime, traces, cost="cum_cpu_s", metric="best_value", methods=methods
        )
        jobs.append(FigureJob("anytime_objective_cpu.png", objective, dpi, 1.0 + n_data))
    return jobs


def save_verdict_plots(
    comparison: Comparison | None,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
    dpi: int = 130,
) -> list[Path]:
    """Write ``cd_diagram.png`` (when a comparison is given), ``anytime_test_error_cpu.png``,
    ``anytime_test_error_kernel_evals.png``, ``anytime_normalized.png``, ``ecdf.png`` and
    ``anytime_objective_cpu.png``; the ones the traces cannot give (no incumbent test errors: a
    study stored before they were recorded) are skipped."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = verdict_plot_jobs(comparison, traces, methods=methods, dpi=dpi)
    return list(run_jobs(jobs, out).values())
