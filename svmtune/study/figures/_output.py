"""How a study's figures leave the process: the file formats (PDF with embedded fonts, SVG,
PNG), the print width they are drawn for, the smallest type size, and pages of panels.

Every figure of a report is drawn :data:`PRINT_WIDTH` inches wide (17 cm, a journal page's
text width) with no text under :data:`MIN_FONT_PT` points, so that it prints legibly at its
own size; a per-data-set figure of many data sets is split into pages of at most
:data:`PANELS_PER_PAGE` panels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from svmtune.study.figures._figure_jobs import FigureJob
from svmtune.study.figures._save import save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_FORMATS",
    "FORMATS",
    "MIN_FONT_PT",
    "PANELS_PER_PAGE",
    "PRINT_WIDTH",
    "check_formats",
    "figure_job",
    "legible",
    "page_names",
    "pages",
    "save_figure",
]

#: The width every report figure is drawn at, in inches (17 cm).
PRINT_WIDTH = 17 / 2.54
#: The smallest type size of a report figure at :data:`PRINT_WIDTH`, in points.
MIN_FONT_PT = 7.0
#: Panels of one page of a per-data-set figure (4 rows of 3).
PANELS_PER_PAGE = 12
#: File formats a figure can be saved in; the first of ``png``/``svg`` given is the one
#: ``report.md`` embeds.
FORMATS = ("pdf", "png", "svg")
#: What a report writes unless told otherwise: a vector file for the paper, a PNG for the page.
DEFAULT_FORMATS = ("png", "pdf")
#: Resolution of the PNG files: 1339 pixels across :data:`PRINT_WIDTH`.
DPI = 200

T = TypeVar("T")


def check_formats(formats: str | Iterable[str]) -> tuple[str, ...]:
    """The formats of ``formats`` (a list, or one string such as ``"pdf,png"``), lower case,
    each once, the one ``report.md`` embeds (png, else svg, else pdf) first.

    Examples
    --------
    >>> check_formats("pdf,png")
    ('png', 'pdf')
    >>> check_formats(["SVG", "pdf", "svg"])
    ('svg', 'pdf')
    >>> check_formats("pdf,jpg")
    Traceback (most recent call last):
    ...
    ValueError: figure format 'jpg' is not one of pdf, png, svg
    """
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    out = list(dict.fromkeys(str(f).strip().lower().lstrip(".") for f in items))
    out = [f for f in out if f]
    for f in out:
        if f not in FORMATS:
            raise ValueError(f"figure format {f!r} is not one of {', '.join(FORMATS)}")
    if not out:
        raise ValueError(f"no figure format given ({formats!r}); choose from {FORMATS}")
    first = next((f for f in ("png", "svg", "pdf") if f in out), out[0])
    return (first, *(f for f in out if f != first))


def figure_job(
    stem: str,
    draw: Callable[[], Figure],
    *,
    formats: str | Iterable[str] = DEFAULT_FORMATS,
    dpi: int = DPI,
    cost: float = 1.0,
) -> FigureJob:
    """The job that draws one figure and saves it as ``stem`` in each of ``formats`` (the one
    ``report.md`` embeds is the job's name, :func:`check_formats`)."""
    first, *rest = check_formats(formats)
    return FigureJob(f"{stem}.{first}", draw, dpi, cost, also=tuple(rest))


def legible(fig: Figure, *, size: float = MIN_FONT_PT) -> Figure:
    """Raise every text of ``fig`` (titles, labels, offset texts, legends) to at least
    ``size`` points, and set the tick labels to ``size`` (:meth:`~matplotlib.axes.Axes.tick_params`
    sets those there are and those the draw makes). Returns ``fig``.

    The ticks are not visited: asking an axis for its ticks makes them, at limits the layout
    has not yet set (each tick five artists and a locator call); the draw makes its own."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    for ax in fig.axes:
        ax.tick_params(axis="both", which="both", labelsize=size)
    for t in _texts_but_ticks(fig, Axis, Text):
        if float(t.get_fontsize()) < size:
            t.set_fontsize(size)
    return fig


def _texts_but_ticks(artist: Any, axis_type: type[Any], text_type: type[Any]) -> Iterator[Any]:
    """The texts of ``artist`` and its children, of an axis its label and offset text only."""
    if isinstance(artist, axis_type):
        yield artist.label
        yield artist.offsetText
        return
    if isinstance(artist, text_type):
        yield artist
    for child in artist.get_children():
        yield from _texts_but_ticks(child, axis_type, text_type)


def pages(items: Sequence[T], per_page: int = PANELS_PER_PAGE) -> list[list[T]]:
    """``items`` cut into pages of at most ``per_page``, as even as possible.

    Examples
    --------
    >>> [len(p) for p in pages(list(range(42)), 12)]
    [11, 11, 10, 10]
    >>> pages(["a"], 12)
    [['a']]
    """
    n = max(1, math.ceil(len(items) / max(per_page, 1)))
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        stop = start + size + (1 if i < extra else 0)
        out.append(list(items[start:stop]))
        start = stop
    return out


def page_names(stem: str, n_pages: int) -> list[str]:
    """File stems of a figure's pages: ``stem`` itself for one page, else ``stem_p1`` ...

    Examples
    --------
    >>> page_names("anytime", 1), page_names("anytime", 2)
    (['anytime'], ['anytime_p1', 'anytime_p2'])
    """
    if n_pages <= 1:
        return [stem]
    return [f"{stem}_p{i + 1}" for i in range(n_pages)]
