"""One colour and one marker per method, the same in every figure of a study.

Every figure asks :func:`method_styles` with the study's whole method list (its order is the
study's), never with the methods one panel happens to show, so a method keeps its colour and
marker from ``error_vs_time.png`` to ``cd_diagram.png``. Up to ten methods get tab10's ten hues;
more get tab20's ten dark shades first, then the light ones; markers cycle through 13 shapes, so
at 20 methods a colour shared by two methods (tab20 has 20) never shares its marker too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["MARKERS", "method_styles"]

#: Marker shapes, distinct at small sizes (matplotlib codes).
MARKERS = "osD^vP*Xhp<>d"


def method_styles(methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``{method: {"color": rgba, "marker": code}}`` for ``methods`` in the study's order.

    Examples
    --------
    >>> styles = method_styles(["a", "b"])
    >>> styles["a"]["marker"], styles["b"]["marker"]
    ('o', 's')
    >>> styles["a"]["color"] != styles["b"]["color"]
    True
    >>> method_styles(["a", "b", "c"])["b"] == styles["b"]  # the same for the same position
    True
    """
    from matplotlib import colormaps

    names = list(dict.fromkeys(methods))
    many = len(names) > 10
    cmap = colormaps["tab20" if many else "tab10"]
    out: dict[str, dict[str, Any]] = {}
    for i, m in enumerate(names):
        j = (2 * i) % 20 + (2 * i // 20) % 2 if many else i % 10
        out[m] = {"color": cmap(j % cmap.N), "marker": MARKERS[i % len(MARKERS)]}
    return out
