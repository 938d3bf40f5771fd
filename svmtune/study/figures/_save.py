"""Saving a figure: a PDF with its fonts embedded, an SVG, a PNG; no date in the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["save_figure"]


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
