"""What the study's figures share: axis labels of time, log time axes, the legend below the
panels, titles wrapped to the figure, and a grid of panels at print width."""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any

from svmtune.study.figures._output import MIN_FONT_PT
from svmtune.study.figures._small_multiples import small_multiples

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "NO_FULL",
    "TIME_FLOOR",
    "TIME_LABELS",
    "log_minor_ticks",
    "log_time_axis",
    "panel_grid",
    "shared_legend",
    "wrapped",
]

#: Axis labels of the time columns.
TIME_LABELS = {
    "cpu_s": "CPU time per tuning run [s]",
    "wall_s": "wall-clock time per tuning run [s]",
    "cum_cpu_s": "elapsed CPU time of the tuning run [s]",
    "cum_wall_s": "elapsed wall-clock time of the tuning run [s]",
}

TIME_FLOOR = 1e-4  # seconds; a time shown on a log axis is at least this
#: Legend note of a method with no evaluation at full fidelity in a panel.
NO_FULL = "no evaluation on all the training data"


def shared_legend(fig: Figure, axes: list[Axes]) -> None:
    """One legend below the panels (outside every axes: it covers no data) with every label
    that any panel shows, once each, in as many columns as fit the figure's width."""
    if not axes:
        return
    handles: list[Any] = []
    labels: list[str] = []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if not labels:
        return
    # a 7-pt character is about 0.06 inch wide; the handle and the gaps about 0.6 inch
    longest = max(len(lab) for lab in labels)
    fit = int(fig.get_figwidth() / (0.6 + 0.062 * longest))
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=max(1, min(fit, len(labels), 5)),
        fontsize=MIN_FONT_PT,
        handlelength=2.6,
    )


def wrapped(text: str, fig: Figure, *, size: float = 8.0) -> str:
    """``text`` wrapped to the width of ``fig`` at ``size`` points (about 0.5 em a
    character), each line kept."""
    width = max(30, int(fig.get_figwidth() * 72 / (0.52 * size)))
    return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))


def panel_grid(n: int, *, height: float = 1.9) -> tuple[Figure, list[Axes]]:
    """A figure at print width of ``n`` panels, three to a row (two for four)."""
    ncols = 2 if n == 4 else min(3, max(n, 1))
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = small_multiples(nrows, ncols, height=height + (0.6 if ncols < 3 else 0.0))
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


def log_time_axis(ax: Axes) -> None:
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
