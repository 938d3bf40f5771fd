"""UCI Multiple Features (mfeat): handwritten digits in six feature views, and its four tasks.

The data set of the multiple-kernel experiments of Gonen and Alpaydin ("Multiple kernel learning
algorithms", JMLR 12, 2011) reused by Carrizosa, Martin-Barragan and Romero Morales ("A nested
heuristic for parameter tuning in Support Vector Machines", 2014, Tables 2, 4 and 5): 2,000
digits (200 of each of 0-9), described six ways. Each view is one bundled file
``data/mfeat-<view>.csv.gz`` (a header of column numbers, then 2,000 rows in the same order in
every file; the last column is the digit).

Tasks (the paper's names): ``EO`` even (+1) vs odd digits, ``SL`` small 0-4 (+1) vs large 5-9;
``4`` views are fou, kar, pix, zer (427 features), ``6`` add fac and mor (649 features), in the
order of the paper's Table 2 (cluster sizes 76, 64, 240, 47, 216, 6). The feature groups of a
task are its views, one per base kernel group. The paper's 2/3-1/3 training/test split is a
protocol, not part of the data: see ``studies/carrizosa2014_mkl.py``.
"""

from __future__ import annotations

import gzip
from functools import cache
from importlib import resources
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["MFEAT_TASKS", "MFEAT_VIEWS", "MfeatInfo", "load_mfeat", "mfeat_groups", "mfeat_info"]

#: The six views: name -> (what it holds, number of columns), in the paper's Table 2 order.
MFEAT_VIEWS: dict[str, tuple[str, int]] = {
    "fou": ("Fourier coefficients of the character shapes", 76),
    "kar": ("Karhunen-Loeve coefficients", 64),
    "pix": ("pixel averages in 2 x 3 windows", 240),
    "zer": ("Zernike moments", 47),
    "fac": ("profile correlations", 216),
    "mor": ("morphological features", 6),
}
_ROWS = 2000

#: The tasks: name -> (digits labelled +1, views).
MFEAT_TASKS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "mfeatEO4": ((0, 2, 4, 6, 8), ("fou", "kar", "pix", "zer")),
    "mfeatEO6": ((0, 2, 4, 6, 8), ("fou", "kar", "pix", "zer", "fac", "mor")),
    "mfeatSL4": ((0, 1, 2, 3, 4), ("fou", "kar", "pix", "zer")),
    "mfeatSL6": ((0, 1, 2, 3, 4), ("fou", "kar", "pix", "zer", "fac", "mor")),
}


def _check_task(name: object) -> str:
    if not isinstance(name, str) or name not in MFEAT_TASKS:
        raise ValueError(f"unknown mfeat task {name!r}; valid names are {sorted(MFEAT_TASKS)}")
    return name


@cache
def _view(view: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """One view's features and digits (read-only), checked against :data:`MFEAT_VIEWS`."""
    path = resources.files("svmtune.datasets").joinpath("data", f"mfeat-{view}.csv.gz")
    with path.open("rb") as fh:
        lines = gzip.decompress(fh.read()).decode("utf-8").splitlines()
    table = np.array([line.split(",") for line in lines[1:] if line.strip()], dtype=np.float64)
    width = MFEAT_VIEWS[view][1]
    if table.shape != (_ROWS, width + 1):
        raise RuntimeError(  # pragma: no cover - a broken package
            f"mfeat-{view}.csv.gz holds a {table.shape} table; expected ({_ROWS}, {width + 1})"
        )
    X = np.ascontiguousarray(table[:, :-1])
    digits = table[:, -1].astype(np.int64)
    X.setflags(write=False)
    digits.setflags(write=False)
    return X, digits


class MfeatInfo(NamedTuple):
    """What an mfeat task is: its size, its views and the digits labelled +1."""

    rows: int
    features: int
    positives: int
    views: tuple[str, ...]
    positive_digits: tuple[int, ...]


def mfeat_info(name: str) -> MfeatInfo:
    """What a task is, without reading the data: rows, features, positives, views, +1 digits.

    Raises
    ------
    ValueError
        For a name that is not an mfeat task, listing the valid ones.

    Examples
    --------
    >>> from svmtune.datasets import mfeat_info
    >>> info = mfeat_info("mfeatEO4")
    >>> info.rows, info.features, info.positives, info.views
    (2000, 427, 1000, ('fou', 'kar', 'pix', 'zer'))
    """
    positive, views = MFEAT_TASKS[_check_task(name)]
    return MfeatInfo(
        rows=_ROWS,
        features=sum(MFEAT_VIEWS[v][1] for v in views),
        positives=_ROWS // 10 * len(positive),
        views=views,
        positive_digits=positive,
    )


def load_mfeat(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Load an mfeat task: the views side by side, labels in {-1, +1}.

    Parameters
    ----------
    name : {"mfeatEO4", "mfeatEO6", "mfeatSL4", "mfeatSL6"}
        ``EO``: even digits +1; ``SL``: digits 0-4 +1. ``4``: views fou, kar, pix, zer;
        ``6``: those, then fac and mor.

    Returns
    -------
    X : ndarray of shape (2000, 427) or (2000, 649)
        Raw features (not standardized), the views' columns in the order of the name's views.
    y : ndarray of shape (2000,)
        +1 for the task's positive digits, -1 otherwise (1,000 of each).

    Raises
    ------
    ValueError
        For another name, listing the valid ones.

    Examples
    --------
    >>> from svmtune.datasets import load
    >>> X, y = load("mfeatSL6")
    >>> X.shape, int((y == 1).sum())
    ((2000, 649), 1000)
    """
    positive, views = MFEAT_TASKS[_check_task(name)]
    parts = [_view(v) for v in views]
    digits = parts[0][1]
    for v, (_, d) in zip(views, parts, strict=True):
        if not np.array_equal(d, digits):  # pragma: no cover - a broken package
            raise RuntimeError(f"mfeat-{v}.csv.gz lists its rows in another order")
    X = np.hstack([p[0] for p in parts])
    y = np.where(np.isin(digits, positive), 1.0, -1.0)
    return X, y


def mfeat_groups(name: str) -> list[NDArray[np.intp]]:
    """The views of an mfeat task as feature groups: column indices into ``load_mfeat(name)[0]``.

    Examples
    --------
    >>> from svmtune.datasets import load_groups
    >>> [len(g) for g in load_groups("mfeatEO6")]
    [76, 64, 240, 47, 216, 6]
    """
    _, views = MFEAT_TASKS[_check_task(name)]
    out, start = [], 0
    for v in views:
        width = MFEAT_VIEWS[v][1]
        out.append(np.arange(start, start + width, dtype=np.intp))
        start += width
    return out
