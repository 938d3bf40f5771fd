"""``report.md``'s figure section: every figure of the report, each with a one-line caption,
and the one rule for whether a critical-difference diagram is drawn at all."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["CAPTIONS", "cd_diagram_drawn", "figure_section"]

#: One-line caption of each figure a report can hold (by file stem), in the report's order.
CAPTIONS = {
    "cd_diagram": (
        "Critical-difference diagram (Demšar 2006): average rank of mean test error, methods "
        "the Nemenyi test does not separate joined by a bar."
    ),
    "error_vs_time": (
        "Mean test error [%] against CPU seconds per tuning run, averaged over the data sets; "
        "the Pareto front ringed."
    ),
    "anytime_normalized": (
        "Normalized score (1 = best on a data set, 0 = worst) against budget, mean over data sets."
    ),
    "ecdf": "Data profile: fraction of (data set, split, target) triples reached against budget.",
    "error_vs_time_by_dataset": "Test error [%] against CPU seconds, one panel per data set.",
    "best_so_far": (
        "Best objective value so far [%] against CPU seconds, one panel per data set and "
        "objective family (thin: one run; bold: the mean over splits)."
    ),
    "anytime_test_error_cpu": (
        "Test error [%] of the incumbent against CPU seconds: median over splits and "
        "interquartile band, per data set."
    ),
    "anytime_test_error_kernel_evals": (
        "Test error [%] of the incumbent against kernel evaluations, per data set."
    ),
    "anytime_objective_cpu": (
        "Objective's best value so far [%] against CPU seconds, one panel per data set and "
        "objective family."
    ),
}


def cd_diagram_drawn(comparison: Any) -> bool:
    """Whether a study's comparison gets a critical-difference diagram: only when the
    statistics hold a rank test to draw (Nemenyi's post-hoc p-values and a finite critical
    difference), never ranks without a test."""
    if comparison is None or not comparison.has_rank_tests:
        return False
    nemenyi = comparison.posthoc.get("nemenyi")
    return nemenyi is not None and not nemenyi.empty


def _caption(key: str, known: Mapping[str, str]) -> str:
    """A figure's caption; a page ``stem_pN`` of a figure set takes its figure's, with the page."""
    if key in known:
        return known[key]
    page = re.fullmatch(r"(.+)_p(\d+)", key)
    if page and page.group(1) in known:
        return f"{known[page.group(1)].removesuffix('.')} (page {page.group(2)})."
    return f"{key.replace('_', ' ').capitalize()}."


def _order(key: str) -> tuple[int, int]:
    page = re.fullmatch(r"(.+)_p(\d+)", key)
    base, n = (page.group(1), int(page.group(2))) if page else (key, 0)
    keys = list(CAPTIONS)
    return (keys.index(base) if base in keys else len(keys), n)


def figure_section(
    figures: Mapping[str, Path], *, captions: Mapping[str, str] | None = None
) -> list[str]:
    """The markdown lines of the section: ``## Figures``, then each figure embedded with its
    caption below it (known figures in :data:`CAPTIONS` order, a figure's pages in order, then
    the others); none for none. ``captions`` overrides a figure's caption (the verdict gives
    the CD diagram its CD and N). A figure saved in further formats (keys with a suffix, such
    as ``"ecdf.pdf"``) gets them linked under its caption; a figure with no PNG or SVG is
    linked instead of embedded.

    Examples
    --------
    >>> from pathlib import Path
    >>> print("\\n".join(figure_section({"ecdf": Path("out/ecdf.png")})))
    ## Figures
    <BLANKLINE>
    ![Data profile: fraction of (data set, split, target) triples reached against budget.](ecdf.png)
    <BLANKLINE>
    *Data profile: fraction of (data set, split, target) triples reached against budget.*
    <BLANKLINE>
    """
    main = {k: Path(p) for k, p in figures.items() if "." not in k}
    if not main:
        return []
    other: dict[str, list[str]] = {}
    for k, p in figures.items():
        if "." in k:
            other.setdefault(k.split(".", 1)[0], []).append(Path(p).name)
    known = {**CAPTIONS, **(captions or {})}
    out = ["## Figures", ""]
    for key in sorted(main, key=_order):
        caption, name = _caption(key, known), main[key].name
        shown = f"![{caption}]({name})" if main[key].suffix in (".png", ".svg") else None
        more = ", ".join(f"[{n.rsplit('.', 1)[-1].upper()}]({n})" for n in other.get(key, []))
        below = f"*{caption}*" + (f" Also as {more}." if more else "")
        out += [shown or f"[{caption}]({name})", "", below, ""]
    return out
