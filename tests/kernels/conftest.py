"""Real data for the kernel tests: small slices of the bundled KEEL copies of UCI data sets.

Loaded through :mod:`svmtune.datasets`; features are min-max scaled to [0, 1] over the loaded
rows (the widths of Carrizosa et al.'s eq. (13) presume features on comparable scales).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from numpy.typing import NDArray

from svmtune.datasets import load, load_groups


class Data(NamedTuple):
    X: NDArray[np.float64]
    groups: list[list[int]]


def _scaled(X: NDArray[np.float64]) -> NDArray[np.float64]:
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span


def _load(name: str, n_rows: int | None, groups_of: str | None) -> Data:
    X = _scaled(load(name)[0][:n_rows])
    if groups_of is None:  # three bands of consecutive columns
        bands = np.array_split(np.arange(X.shape[1]), 3)
        return Data(X, [b.tolist() for b in bands])
    return Data(X, [g.tolist() for g in load_groups(groups_of)])


@pytest.fixture(scope="session")
def spambase() -> Data:
    """300 rows, 57 features; groups: 48 word, 6 char, 3 capital-run features."""
    data = _load("spambase", 300, "spambase")
    assert [len(g) for g in data.groups] == [48, 6, 3]
    return data


@pytest.fixture(scope="session")
def optdigits() -> Data:
    """300 rows, 64 pixels; groups: the four 4x4 image quadrants."""
    data = _load("optdigits-eo", 300, "optdigits")
    assert data.X.shape == (300, 64) and [len(g) for g in data.groups] == [16] * 4
    return data


@pytest.fixture(scope="session")
def sonar() -> Data:
    """All 208 rows, 60 features; groups: three bands of 20 consecutive frequencies."""
    data = _load("sonar", None, None)
    assert data.X.shape == (208, 60)
    return data


@pytest.fixture(scope="session", params=["spambase", "optdigits", "sonar"])
def real(request: pytest.FixtureRequest) -> Data:
    return request.getfixturevalue(request.param)
