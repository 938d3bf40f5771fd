"""The bundled UCI multiple-features digits: the four tasks of Carrizosa et al. (2014)."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np
import pytest

from svmtune.datasets import list_datasets, load, load_groups, mfeat_info, n_rows
from svmtune.datasets._mfeat import MFEAT_VIEWS

VIEWS4 = [76, 64, 240, 47]  # fou, kar, pix, zer (the paper's Table 2)
VIEWS6 = VIEWS4 + [216, 6]  # and fac, mor
VIEW_NAMES = ["fou", "kar", "pix", "zer", "fac", "mor"]
TASKS = {"mfeatEO4": VIEWS4, "mfeatEO6": VIEWS6, "mfeatSL4": VIEWS4, "mfeatSL6": VIEWS6}


def _raw(view: str) -> np.ndarray:
    """A view's file read independently of the loader (header line dropped)."""
    path = resources.files("svmtune.datasets").joinpath("data", f"mfeat-{view}.csv.gz")
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()[1:]
    return np.array([[float(v) for v in line.split(",")] for line in lines])


@pytest.mark.parametrize("name", list(TASKS))
def test_shapes_labels_and_views_are_the_readmes(name):
    X, y = load(name)
    views = TASKS[name]
    assert X.shape == (2000, sum(views)) and X.dtype == np.float64
    assert set(np.unique(y)) == {-1.0, 1.0} and int((y == 1).sum()) == 1000
    # 200 rows per digit, digits 0-9 in order: EO puts the even digits at +1, SL digits 0-4.
    digit = np.arange(2000) // 200
    positive = digit % 2 == 0 if "EO" in name else digit < 5
    np.testing.assert_array_equal(y == 1, positive)
    groups = load_groups(name)
    assert [len(g) for g in groups] == views
    cols = np.concatenate(groups)
    np.testing.assert_array_equal(np.sort(cols), np.arange(X.shape[1]))  # disjoint, cover all
    assert n_rows(name) == 2000
    info = mfeat_info(name)
    assert (info.rows, info.features, info.positives) == (2000, sum(views), 1000)


def test_each_group_is_its_view_file_column_for_column():
    X, _ = load("mfeatEO6")
    for g, view in zip(load_groups("mfeatEO6"), VIEW_NAMES, strict=True):
        raw = _raw(view)
        assert raw.shape[1] - 1 == MFEAT_VIEWS[view][1] == len(g)
        np.testing.assert_array_equal(X[:, g], raw[:, :-1])
        np.testing.assert_array_equal(raw[:, -1], np.arange(2000) // 200)


def test_four_views_are_the_first_four_of_six():
    X4, y4 = load("mfeatSL4")
    X6, y6 = load("mfeatSL6")
    np.testing.assert_array_equal(X4, X6[:, : X4.shape[1]])
    np.testing.assert_array_equal(y4, y6)


def test_load_returns_copies():
    X, y = load("mfeatEO4")
    X[0, 0] = 1e9
    y[:] = 0.0
    X2, y2 = load("mfeatEO4")
    assert X2[0, 0] != 1e9 and set(np.unique(y2)) == {-1.0, 1.0}


def test_listed_and_bad_names_rejected():
    table = list_datasets().set_index("name")
    for name, views in TASKS.items():
        assert int(table.loc[name, "features"]) == sum(views)
        assert int(table.loc[name, "rows"]) == 2000
    with pytest.raises(ValueError, match="mfeatEO5"):
        load_groups("mfeatEO5")
    with pytest.raises(ValueError, match="mfeatXX"):
        mfeat_info("mfeatXX")
