"""Saving a figure: a PDF with its fonts embedded, an SVG, a PNG; no date in the file.

A figure saved in several formats is laid out once (:func:`save_figures`): matplotlib's
``savefig`` runs the figure's layout engine on every call, and with it a whole draw of the
figure that renders nothing (to place the constrained layout's text), before the draw that
writes the file; one layout, then one draw per format, gives the same files for half the
draws."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["save_figure", "save_figures"]


def save_figure(fig: Figure, path: str | Path, *, dpi: int) -> Path:
    """Save ``fig`` as ``path`` in the format its suffix names: a PDF with its fonts embedded
    as TrueType (``pdf.fonttype`` 42, which journals require), an SVG with text as paths, a
    PNG at ``dpi``; no creation date is written, so the same figure gives the same file."""
    import matplotlib

    p = Path(path)
    ext = p.suffix.lstrip(".").lower()
    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(ext)
    with matplotlib.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "svmtune"}):
        fig.savefig(p, dpi=dpi, metadata=metadata)
    return p


def save_figures(fig: Figure, paths: Sequence[str | Path], *, dpi: int) -> list[Path]:
    """Save ``fig`` in each of ``paths`` (:func:`save_figure`), laid out once: its layout
    engine (constrained layout) runs once, measuring the text as the PNG's renderer does at
    ``dpi``, and is then held off while each file is drawn, so that each file costs one draw
    of the figure (``savefig`` alone lays out and draws twice per file). The engine is the
    figure's again afterwards. Returns the paths written.

    Examples
    --------
    >>> import tempfile
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(3, 2), layout="constrained")
    >>> _ = fig.subplots().plot([1, 2, 3])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = save_figures(fig, [f"{tmp}/a.png", f"{tmp}/a.pdf"], dpi=100)
    ...     [f.name for f in files if f.stat().st_size > 0]
    ['a.png', 'a.pdf']
    >>> type(fig.get_layout_engine()).__name__
    'ConstrainedLayoutEngine'
    """
    import matplotlib

    engine = fig.get_layout_engine()
    if engine is None or not paths:
        return [save_figure(fig, p, dpi=dpi) for p in paths]
    shown = fig.dpi
    fig.dpi = dpi  # the layout measures the text at the resolution of the PNG
    try:
        engine.execute(fig)
    finally:
        fig.dpi = shown
    # no engine while drawing (a placeholder engine would still make savefig lay out):
    # set_layout_engine(None) drops it unless the rc parameters name one
    with matplotlib.rc_context(
        {"figure.autolayout": False, "figure.constrained_layout.use": False}
    ):
        fig.set_layout_engine(None)
    try:
        return [save_figure(fig, p, dpi=dpi) for p in paths]
    finally:
        fig.set_layout_engine(engine)
