"""Real data for the kernel tests: small slices of the bundled KEEL copies of UCI data sets.

A tiny local parser keeps these tests independent of ``svmtune.datasets``. Features are
min-max scaled to [0, 1] over the loaded rows (the widths of Carrizosa et al.'s eq. (13) presume
features on comparable scales).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from numpy.typing import NDArray

KEEL = Path("/work/shared/data/keel")


class Data(NamedTuple):
    X: NDArray[np.float64]
    groups: list[list[int]]


def read_keel(name: str, n_rows: int | None = None) -> NDArray[np.float64]:
    """Feature matrix of ``name.dat`` (comma-separated rows, class last; ``@`` lines skipped)."""
    rows = []
    with open(KEEL / f"{name}.dat") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("@"):
                continue
            rows.append([float(v) for v in line.split(",")[:-1]])
            if n_rows is not None and len(rows) == n_rows:
                break
    X = np.array(rows)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span


def _quadrants() -> list[list[int]]:
    """The four 4x4 quadrants of optdigits' 8x8 images (pixel index 8 * row + col)."""
    return [
        [8 * r + c for r in rows for c in cols]
        for rows in (range(4), range(4, 8))
        for cols in (range(4), range(4, 8))
    ]


@pytest.fixture(scope="session")
def spambase() -> Data:
    """300 rows, 57 features; groups: 48 word, 6 char, 3 capital-run frequencies."""
    return Data(read_keel("spambase", 300), [list(range(48)), list(range(48, 54)), [54, 55, 56]])


@pytest.fixture(scope="session")
def optdigits() -> Data:
    """300 rows, 64 pixels; groups: the four image quadrants (16 pixels each)."""
    return Data(read_keel("optdigits", 300), _quadrants())


@pytest.fixture(scope="session")
def sonar() -> Data:
    """All 208 rows, 60 features; groups: three bands of 20 consecutive frequencies."""
    return Data(read_keel("sonar"), [list(range(20)), list(range(20, 40)), list(range(40, 60))])


@pytest.fixture(scope="session", params=["spambase", "optdigits", "sonar"])
def real(request: pytest.FixtureRequest) -> Data:
    return request.getfixturevalue(request.param)
