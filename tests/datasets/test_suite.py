"""The benchmark suite: every problem loads, binary labels, the documented shape and rules."""

import numpy as np
import pytest

from svmtune.cli import main
from svmtune.datasets import SUITE, load, load_problem, suite_table
from svmtune.datasets._suite import MAX_IMBALANCE, MAX_ROWS


def test_suite_has_40_problems_from_25_base_sets_one_each():
    table = suite_table()
    assert len(table) >= 40
    assert table["base"].nunique() >= 25
    assert table["base"].value_counts().max() <= 2
    assert (table["imbalance"] <= MAX_IMBALANCE).all()
    # cheapest first: rows in use never decrease
    assert (np.diff(table["rows_used"].to_numpy()) >= 0).all()


@pytest.mark.parametrize("name", list(SUITE))
def test_every_problem_loads_binary_with_its_documented_shape(name):
    p = SUITE[name]
    X, y = load_problem(name)
    assert X.shape == (p.rows_used, p.features)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert np.isfinite(X).all()
    if p.rows <= MAX_ROWS:  # small sets are used whole
        X_full, y_full = load(name)
        np.testing.assert_array_equal(X, X_full)
        np.testing.assert_array_equal(y, y_full)


def test_large_sets_are_a_fixed_stratified_subsample():
    X, y = load_problem("page-blocks0")  # 5472 rows, 559 positives
    assert len(y) == MAX_ROWS
    assert int((y == 1).sum()) == round(MAX_ROWS * 559 / 5472)
    X_full, _ = load("page-blocks0")
    rows = {tuple(r) for r in X_full}
    assert all(tuple(r) in rows for r in X)
    X2, y2 = load_problem("page-blocks0")
    np.testing.assert_array_equal(X, X2)


def test_multiclass_halves_rule():
    # vehicle: bus, opel, saab, van -> {bus, opel} +1
    _, y = load("vehicle-halves")
    assert int((y == 1).sum()) == 218 + 212
    # wine: classes 1, 2, 3 (59, 71, 48) -> {1, 2} +1
    _, y = load("wine-halves")
    assert int((y == 1).sum()) == 59 + 71


def test_unknown_problem_is_named():
    with pytest.raises(ValueError, match="'nope'"):
        load_problem("nope")


def test_cli_lists_the_suite(capsys):
    assert main(["datasets", "--suite"]) == 0
    out = capsys.readouterr().out
    assert "mushroom" in out and "42 problems from 42 base data sets" in out
