"""Demšar's critical-difference diagram, each method in its study-wide colour and marker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from svmtune.study.figures._axes import wrapped
from svmtune.study.figures._output import MIN_FONT_PT, PRINT_WIDTH, legible
from svmtune.study.figures._palette import method_styles
from svmtune.study.verdict._compare import Comparison

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.figure import Figure

__all__ = ["plot_cd_diagram", "readable"]


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
    # for the longest label (about 0.6 em per character) so none is clipped at 20+ methods;
    # the rank axis takes what print width is left (at least 2.5 inches).
    font = 7 if k > 12 else 8
    label_in = (max((len(str(m)) for m in ranks.index), default=10) + 9) * 0.6 * font / 72
    width, height = max(PRINT_WIDTH, 2.5 + 2 * label_in), 1.4 + 0.22 * k
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
    ax.set_title(wrapped(title, fig), fontsize=8, pad=pad)
    return legible(fig)


def _cd_bar_above_ticks(ax: Any, fig: Any, font: float) -> float:
    """Move the critical-difference bar and its label (drawn by scikit-posthocs just above the
    rank axis, across its tick labels) above the tick labels; returns the title's pad (points)
    that keeps the title above them."""
    from matplotlib.transforms import offset_copy

    lift = MIN_FONT_PT + 12.0  # the tick labels, the ticks and their pads
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
