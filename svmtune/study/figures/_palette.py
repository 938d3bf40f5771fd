"""One colour, one marker and one line style per method, the same in every figure of a study.

Every figure asks :func:`method_styles` with the study's whole method list (its order is the
study's), never with the methods one panel happens to show, so a method keeps its style from
``error_vs_time.png`` to ``cd_diagram.png``. The i-th method gets tab10's colour ``i mod 10``,
marker ``i mod 13`` and line style ``i div 10`` (solid, dashed, dotted, dash-dot): as 10 and
13 share no factor, no two of the first 130 methods share colour and marker, and no two of the
first 40 share colour and line style, so a line without markers and a marker without a line
both tell the methods apart at 30+ methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["LINESTYLES", "MARKERS", "method_styles"]

#: Marker shapes, distinct at small sizes (matplotlib codes).
MARKERS = "osD^vP*Xhp<>d"

#: Line styles, one per block of ten methods.
LINESTYLES = ("-", "--", ":", "-.")


def method_styles(methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``{method: {"color": rgba, "marker": code, "ls": line style}}`` for ``methods`` in the
    study's order.

    Examples
    --------
    >>> styles = method_styles(["a", "b"])
    >>> styles["a"]["marker"], styles["b"]["marker"], styles["a"]["ls"]
    ('o', 's', '-')
    >>> styles["a"]["color"] != styles["b"]["color"]
    True
    >>> method_styles(["a", "b", "c"])["b"] == styles["b"]  # the same for the same position
    True
    >>> method_styles([f"m{i}" for i in range(11)])["m10"]["ls"]  # the 11th: a new line style
    '--'
    """
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    out: dict[str, dict[str, Any]] = {}
    for i, m in enumerate(dict.fromkeys(methods)):
        out[m] = {
            "color": cmap(i % 10),
            "marker": MARKERS[i % len(MARKERS)],
            "ls": LINESTYLES[(i // 10) % len(LINESTYLES)],
        }
    return out
