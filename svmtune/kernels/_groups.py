"""Feature groups: validation, display, and the per-group statistics multiple kernels share.

A group is a set of column indices of the data; a multiple-kernel model puts one or more base
kernels on each group (Carrizosa et al. 2014, Section 3.3: the clusters ``B_1, ..., B_T``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune.kernels._distances import inner_products, squared_distances

__all__ = [
    "check_group_features",
    "check_groups",
    "format_groups",
    "group_inner_products",
    "group_squared_distance",
    "group_squared_distances",
    "union_inner_products",
]

Groups = tuple[tuple[int, ...], ...]


def check_groups(groups: Sequence[ArrayLike]) -> Groups:
    """Validate feature groups and return them as a tuple of tuples of column indices.

    Each group must be a non-empty one-dimensional collection of distinct, non-negative integer
    column indices, and no column may belong to two groups. Whether the indices exist in the data
    is checked later, by :func:`check_group_features`, when the number of features is known.

    Raises
    ------
    ValueError
        Naming the bad group (by its position) and the bad value.

    Examples
    --------
    >>> check_groups([[0, 1], range(2, 5)])
    ((0, 1), (2, 3, 4))
    """
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence | np.ndarray):
        raise ValueError(
            f"groups must be a sequence of column-index arrays, one per group; got {groups!r}"
        )
    if len(groups) == 0:
        raise ValueError("groups must hold at least one group of column indices; got none")
    out: list[tuple[int, ...]] = []
    owner: dict[int, int] = {}
    for t, group in enumerate(groups):
        if isinstance(group, str | bytes):
            raise ValueError(f"group {t} must be an array of column indices; got {group!r}")
        arr = np.asarray(group)
        if arr.ndim != 1:
            raise ValueError(
                f"group {t} must be a one-dimensional array of column indices; "
                f"got shape {arr.shape}"
            )
        if arr.size == 0:
            raise ValueError(f"group {t} is empty; every group needs at least one column")
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"group {t} must hold integer column indices; got {arr.tolist()!r} "
                f"(dtype {arr.dtype})"
            )
        idx = [int(i) for i in arr]
        neg = [i for i in idx if i < 0]
        if neg:
            raise ValueError(f"group {t} has negative column indices {neg}")
        seen: set[int] = set()
        for i in idx:
            if i in seen:
                raise ValueError(f"group {t} lists column {i} more than once")
            seen.add(i)
            if i in owner:
                shared = sorted(set(idx) & set(out[owner[i]]))
                raise ValueError(
                    f"groups {owner[i]} and {t} overlap: both contain columns {shared}"
                )
            owner[i] = t
        out.append(tuple(idx))
    result = tuple(out)
    # already in this form: the very object (so scikit-learn's clone sees its option kept)
    exact = all(type(g) is tuple and all(type(i) is int for i in g) for g in groups)
    if isinstance(groups, tuple) and exact and groups == result:
        return groups
    return result


def check_group_features(groups: Groups, n_features: int) -> None:
    """Raise ValueError if a group refers to a column ``>= n_features``."""
    for t, group in enumerate(groups):
        big = [i for i in group if i >= n_features]
        if big:
            raise ValueError(
                f"group {t} has column indices {big} out of range: the data has only "
                f"{n_features} features (columns 0..{n_features - 1})"
            )


def format_groups(groups: Groups) -> str:
    """A short, evaluable text of groups: contiguous groups as ``range(a, b)``.

    Examples
    --------
    >>> format_groups(((0, 1, 2), (5, 3)))
    '[range(0, 3), [5, 3]]'
    """
    parts = []
    for g in groups:
        if len(g) > 1 and list(g) == list(range(g[0], g[-1] + 1)):
            parts.append(f"range({g[0]}, {g[-1] + 1})")
        else:
            parts.append(str(list(g)))
    return "[" + ", ".join(parts) + "]"


def _columns(A: NDArray[np.float64], group: tuple[int, ...]) -> NDArray[np.float64]:
    g = list(group)
    if g == list(range(g[0], g[0] + len(g))):
        return A[:, g[0] : g[0] + len(g)]  # a view, no copy
    return A[:, g]


def group_squared_distance(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None, group: tuple[int, ...]
) -> NDArray[np.float64]:
    """``D[i, j] = sum_{f in group} (X[i, f] - Z[j, f])^2``.

    One matrix product (see :func:`~svmtune.kernels._distances.squared_distances`); with ``Z``
    omitted the matrix is exactly symmetric with a zero diagonal.
    """
    return squared_distances(_columns(X, group), None if Z is None else _columns(Z, group))


def group_squared_distances(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None, groups: Groups
) -> list[NDArray[np.float64]]:
    """:func:`group_squared_distance` for every group."""
    return [group_squared_distance(X, Z, g) for g in groups]


def group_inner_products(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None, groups: Groups
) -> list[NDArray[np.float64]]:
    """``G[t][i, j] = sum_{f in group t} X[i, f] * Z[j, f]`` for every group ``t``.

    With ``Z`` omitted each matrix is exactly symmetric.
    """
    return [inner_products(_columns(X, g), None if Z is None else _columns(Z, g)) for g in groups]


def union_inner_products(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None, groups: Groups
) -> NDArray[np.float64]:
    """``sum_t G[t]`` of :func:`group_inner_products` in one matrix product (disjoint groups)."""
    cols = tuple(i for g in groups for i in g)
    return inner_products(_columns(X, cols), None if Z is None else _columns(Z, cols))
