"""Ties are ties: methods of equal average rank are named together, and no baseline is chosen
by the order the methods were defined in."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

__all__ = ["best_ranked", "names", "place_labels", "tie_groups"]


def tie_groups(ranks: pd.Series) -> list[list[str]]:
    """Methods grouped by equal average rank (within 1e-9), in the order of ``ranks``.

    Examples
    --------
    >>> import pandas as pd
    >>> tie_groups(pd.Series({"a": 1.5, "b": 1.5, "c": 3.0}))
    [['a', 'b'], ['c']]
    """
    groups: list[list[str]] = []
    last = math.nan
    for m, r in ranks.items():
        if groups and abs(float(r) - last) <= 1e-9:
            groups[-1].append(str(m))
        else:
            groups.append([str(m)])
        last = float(r)
    return groups


def names(methods: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    ms = list(methods)
    return ms[0] if len(ms) == 1 else ", ".join(ms[:-1]) + " and " + ms[-1]


def best_ranked(ranks: pd.Series, errors: pd.DataFrame) -> tuple[str, list[str]]:
    """The best-ranked method, never chosen by the order methods were defined in: among those
    tied at the best average rank, the lowest mean test error, then the first by name; and the
    methods it was tied with."""
    lead = tie_groups(ranks)[0]
    means = errors[lead].mean()
    chosen = min(lead, key=lambda m: (round(float(means[m]), 12), m))
    return chosen, [m for m in lead if m != chosen]


def place_labels(ranks: pd.Series) -> pd.Series:
    """Method -> its place by average rank, tied methods sharing one: ``"1"``, ``"2="``.

    Examples
    --------
    >>> import pandas as pd
    >>> place_labels(pd.Series({"a": 1.5, "b": 1.5, "c": 3.0})).to_dict()
    {'a': '1=', 'b': '1=', 'c': '3'}
    """
    out = {}
    place = 1
    for group in tie_groups(ranks):
        for m in group:
            out[m] = f"{place}=" if len(group) > 1 else str(place)
        place += len(group)
    return pd.Series(out, name="place")
