"""Small-multiples grids at print width: panels in rows of at most three, and a grid of one
block of panels per data set with one panel per objective family (values of different kinds
never share an axis; the panels of one data set share their time axis)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from svmtune.study.figures._output import PRINT_WIDTH

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["FAMILIES", "bottom_xlabels", "family_grid", "objective_family", "small_multiples"]

#: Objective class -> the family of values it gives: the values of one family share an axis.
FAMILIES = {
    "LOOEstimate": "LOO estimate",
    "KFoldCV": "CV error",
    "RepeatedKFoldCV": "CV error",
    "ScoredCV": "CV score",
    "ExactLOO": "CV error",
    "PlattError": "Platt error",
}


def objective_family(label: str) -> str:
    """The family of an objective label (:func:`svmtune.study.objective_labels`): its class's
    entry in :data:`FAMILIES`, else the class name itself.

    Examples
    --------
    >>> objective_family("LOOEstimate(model='loo2')"), objective_family("KFoldCV")
    ('LOO estimate', 'CV error')
    >>> objective_family("GridSearchCV")
    'GridSearchCV'
    """
    cls = str(label).split("(", 1)[0].strip()
    return FAMILIES.get(cls, cls)


def method_families(methods: Sequence[str], objectives: Mapping[str, str] | None) -> dict[str, str]:
    """Method -> its objective's family; without ``objectives`` each method is its own."""
    return {m: objective_family((objectives or {}).get(m, m)) for m in methods}


def small_multiples(
    nrows: int, ncols: int, *, height: float = 1.9, extra: float = 1.0, **share: Any
) -> tuple[Figure, list[Axes]]:
    """A figure :data:`PRINT_WIDTH` wide of ``nrows x ncols`` panels, row-major, each
    ``height`` inches tall, with ``extra`` inches for the titles and the legend below.

    Examples
    --------
    >>> fig, axes = small_multiples(3, 3)
    >>> len(axes), round(float(fig.get_figwidth()), 2)
    (9, 6.69)
    """
    from matplotlib.figure import Figure

    nrows, ncols = max(1, nrows), max(1, ncols)
    fig = Figure(figsize=(PRINT_WIDTH, height * nrows + extra), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **share).ravel().tolist()
    return fig, axes


def family_grid(
    datasets: Sequence[str], families: Sequence[str], *, height: float = 1.9, extra: float = 1.0
) -> tuple[Figure, dict[tuple[str, str], Axes]]:
    """One block of panels per data set, one panel per family in it, three to a row (a data
    set with more families takes more rows); the panels of a data set share their x axis.

    Examples
    --------
    >>> fig, axes = family_grid(["a", "b"], ["LOO estimate", "CV error"])
    >>> sorted(axes)[0], len(fig.axes)
    (('a', 'CV error'), 4)
    """
    ncols = min(3, max(1, len(families)))
    per = math.ceil(max(1, len(families)) / ncols)  # rows per data set
    fig, flat = small_multiples(len(datasets) * per, ncols, height=height, extra=extra)
    out: dict[tuple[str, str], Axes] = {}
    for i, d in enumerate(datasets):
        block = flat[i * per * ncols : (i + 1) * per * ncols]
        for j, f in enumerate(families):
            out[(d, f)] = block[j]
            if j:
                block[j].sharex(block[0])
        for ax in block[len(families) :]:
            ax.set_visible(False)
    return fig, out


def bottom_xlabels(axes: Sequence[Axes], label: str) -> None:
    """Label the x axis of the lowest visible panel of each column only (a label on every
    panel repeats itself; one for the figure would sit where the legend goes)."""
    lowest: dict[int, tuple[int, Axes]] = {}
    for ax in axes:
        spec = ax.get_subplotspec() if ax.get_visible() else None
        if spec is None:
            continue
        row, col = spec.rowspan.stop, spec.colspan.start
        if col not in lowest or row > lowest[col][0]:
            lowest[col] = (row, ax)
    for _, ax in lowest.values():
        ax.set_xlabel(label, fontsize=7)
