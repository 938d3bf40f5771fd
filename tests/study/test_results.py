"""Summary tables, method means and the Pareto front (pure functions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from svmtune.study import format_summary, method_means, pareto_mask, summary_table


@pytest.fixture
def results():
    rows = []
    for d, base in (("a", 0.1), ("b", 0.3)):
        for s in range(2):
            rows.append((d, s, "fast", "ok", base + 0.02 * s, base + 0.1, 1.0 + s))
            rows.append((d, s, "slow", "ok", base - 0.05, base + 0.04 * s, 10.0))
    rows.append(("b", 2, "slow", "failed", np.nan, np.nan, np.nan))
    return pd.DataFrame(
        rows,
        columns=["dataset", "split", "method", "status", "objective_value", "test_error", "cpu_s"],
    )


def test_summary_table_values(results):
    t = summary_table(results, methods=["slow", "fast"])
    assert list(t.index) == ["a", "b", "Average", "Estim. err. [%]"]
    assert list(t.columns.get_level_values(0).unique()) == ["slow", "fast"]
    assert t.loc["a", ("fast", "estimate")] == pytest.approx(11.0)
    assert t.loc["a", ("fast", "estimate sd")] == pytest.approx(100 * np.std([0.1, 0.12], ddof=1))
    assert t.loc["b", ("slow", "test error")] == pytest.approx(32.0)  # the failed cell is left out
    assert t.loc["b", ("slow", "n")] == 2
    assert t.loc["Average", ("fast", "CPU s")] == pytest.approx(1.5)
    assert t.loc["Average", ("fast", "test error")] == pytest.approx(30.0)
    assert t.loc["Average", ("slow", "n")] == 4
    est, mis = t.loc["Average", ("fast", "estimate")], t.loc["Average", ("fast", "test error")]
    assert t.loc["Estim. err. [%]", ("fast", "estimate")] == pytest.approx(100 * (est - mis) / mis)
    text = format_summary(t)
    assert "Averages over the data sets" in text and "slow" in text


def test_method_means_weigh_each_data_set_the_same(results):
    m = method_means(results)
    assert m.loc["fast", "test_error"] == pytest.approx(0.3)
    assert m.loc["fast", "cpu_s"] == pytest.approx(1.5)
    sd_b = np.std([0.3, 0.34], ddof=1)
    assert m.loc["slow", "test_error_sd"] == pytest.approx((np.std([0.1, 0.14], ddof=1) + sd_b) / 2)
    assert m.loc["slow", "n"] == 4


def test_pareto_mask():
    assert pareto_mask([1, 2, 3, 4], [4, 2, 3, 1]).tolist() == [True, True, False, True]
    assert pareto_mask([1, 1], [2, 2]).tolist() == [True, True]  # ties dominate nothing
    assert pareto_mask([1, np.nan], [1, 0]).tolist() == [True, False]


def test_empty_results():
    empty = pd.DataFrame(
        columns=["dataset", "split", "method", "status", "objective_value", "test_error", "cpu_s"]
    )
    assert format_summary(summary_table(empty)) == "(no finished cells)"
    assert method_means(empty).empty
