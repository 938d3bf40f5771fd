"""A small-multiples grid: one row per data set, one column per objective, sized to fit."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["small_multiples"]


def small_multiples(
    nrows: int, ncols: int, *, width: float = 3.3, height: float = 2.5
) -> tuple[Figure, list[Axes]]:
    """A figure of ``nrows x ncols`` panels, row-major, each ``width x height`` inches (a
    wide grid gets narrower panels so the figure stays within about 17 inches).

    Examples
    --------
    >>> fig, axes = small_multiples(3, 5)
    >>> len(axes), fig.get_size_inches().tolist()
    (15, [16.5, 8.7])
    """
    from matplotlib.figure import Figure

    nrows, ncols = max(1, nrows), max(1, ncols)
    w = min(width, 16.5 / ncols) if ncols > 1 else max(width, 6.0)
    fig = Figure(figsize=(w * ncols, height * nrows + 1.2), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    return fig, axes
