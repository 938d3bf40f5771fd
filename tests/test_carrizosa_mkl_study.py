"""studies/carrizosa2014_mkl.py is the paper's protocol: its models' sizes, budgets, estimate,
split, and the rank it reports among the 13 methods."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "studies"))

import carrizosa2014_mkl as C  # noqa: E402
import paper_tables as P  # noqa: E402

from svmtune.datasets import load  # noqa: E402


@pytest.mark.parametrize("views", [4, 6])
def test_models_budgets_and_estimate_are_the_papers(views):
    methods = C.methods(views)
    assert list(methods) == ["(7) linear", "(7) RBF", "(8)"]
    name = C.TASKS[views][0]
    p_lin = len(methods["(7) linear"].kernel.space)
    assert p_lin == views == P.CARRIZOSA_TABLE4[name][0] - 1
    assert len(methods["(7) RBF"].kernel.space) == 3 * views == P.CARRIZOSA_TABLE5[name][0]
    assert len(methods["(8)"].kernel.space) == 2 * views == P.CARRIZOSA_TABLE5[name][6]
    for m in methods.values():
        assert m.tuner.budgets(2) == [100, 500]
        assert (m.tuner.k_max, m.tuner.step, m.tuner.start) == (25, 1.0, "random")
        assert (m.objective.k, m.objective.repeats) == (2, 5)
    # model (8) searches its widths in the whole box, at both levels
    space = methods["(8)"].search_space()
    assert (space["gamma_0"].low, space["gamma_0"].high) == C.BOUNDS


def test_split_is_two_thirds_standardized_by_the_training_part():
    X, y = load("mfeatSL4")
    Xtr, ytr, Xte, yte = C.two_thirds_split(X, y, 5)
    assert (len(Xtr), len(Xte)) == (1333, 667) and Xtr.shape[1] == 427
    np.testing.assert_allclose(Xtr.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(Xtr.std(axis=0), 1, atol=1e-10)
    assert sorted(np.concatenate([ytr, yte]).tolist()) == sorted(y.tolist())
    again = C.two_thirds_split(X, y, 5)
    np.testing.assert_array_equal(again[0], Xtr)


def test_rank_among_the_13_from_best_median_worst():
    assert C.rank_among(0.5, 0.67, 0.96, 2.18) == "1/13"
    assert C.rank_among(0.67, 0.67, 0.96, 2.18) == "1/13"  # a tie counts for us
    assert C.rank_among(0.9, 0.67, 0.96, 2.18) == "2-7/13"
    assert C.rank_among(0.96, 0.67, 0.96, 2.18) == "7-12/13"
    assert C.rank_among(2.5, 0.67, 0.96, 2.18) == "13/13"


def test_table_means_sds_and_ranks_from_cells():
    res = pd.DataFrame(
        {
            "dataset": ["mfeatEO6"] * 3,
            "method": ["(8)"] * 3,
            "split": [0, 1, 2],
            "status": ["ok"] * 3,
            "test_error": [0.006, 0.004, 0.005],
            "objective_value": [0.01, 0.01, 0.01],
            "n_evaluations": [600] * 3,
            "cpu_s": [100.0, 110.0, 120.0],
        }
    )
    t = C.table(res).set_index(["model", "dataset"])
    row = t.loc[("(8)", "mfeatEO6")]
    assert row["realizations"] == 3
    assert row["ours mean"] == pytest.approx(0.5) and row["ours sd"] == pytest.approx(0.1)
    assert row["ours rank"] == "1/13"  # 0.50 below the best 0.58
    assert row["CPU s per run"] == pytest.approx(110.0)
    assert t.loc[("(7) linear", "mfeatEO6"), "realizations"] == 0
    lines = C.section(res)
    assert lines[0] == C.HEADING
    assert any("| (8) | mfeatEO6 | 12 |" in line and "0.50 ± 0.10 (3)" in line for line in lines)
