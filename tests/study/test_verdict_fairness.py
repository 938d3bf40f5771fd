"""report.md's fair verdict: ties called ties, the baseline never chosen by definition order,
each method's paired difference with its interval, the protocol and the provenance named."""

from __future__ import annotations

from importlib import metadata

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from svmtune.study import compare
from svmtune.study.report._verdict import _report_text
from svmtune.study.verdict._noise import paired_intervals

# three methods that share the average rank 2.00 on three data sets; "b" has the lowest mean
# test error of the three (a 0.17, b 0.093, c 0.14); "d" is last everywhere
ERRORS = {
    "d0": {"a": 0.10, "b": 0.11, "c": 0.12, "d": 0.5},
    "d1": {"a": 0.30, "b": 0.05, "c": 0.20, "d": 0.5},
    "d2": {"a": 0.11, "b": 0.12, "c": 0.10, "d": 0.5},
}


def _tied():
    rows = [
        {"dataset": d, "split": 0, "method": m, "status": "ok", "test_error": e, "cpu_s": 1.0,
         "n_train": 70, "n_test": 30, "code": "0.1+gabc", "host": "h"}
        for d, errs in ERRORS.items()
        for m, e in errs.items()
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("order", [["a", "b", "c", "d"], ["c", "a", "d", "b"]])
def test_tied_methods_share_the_first_place_and_none_is_the_baseline_by_order(order):
    c = compare(_tied(), methods=order)
    assert c.ranks[["a", "b", "c"]].tolist() == [2.0, 2.0, 2.0]
    assert c.tied[0] == [m for m in order if m != "d"]
    assert c.baseline == "b"  # the lowest mean test error among the tied, whatever the order
    text = c.verdict()
    assert "ranks first" not in text
    group = " and ".join([", ".join(c.tied[0][:2]), c.tied[0][2]])
    assert f"{group} share the first place (average rank 2.00 each)" in text
    assert "d last (4.00)" in text
    report = _report_text("t", _tied(), c, "", {})
    assert "tied at the best average rank with" in report
    assert "| a | 1= |" in report and "| d | 4 |" in report  # the place column


def test_the_named_baseline_is_kept_even_when_another_ties_it():
    c = compare(_tied(), baseline="a")
    assert c.baseline == "a"


def test_paired_mean_difference_has_the_student_t_interval_over_the_data_sets():
    rng = np.random.default_rng(1)
    errors = pd.DataFrame({"base": rng.uniform(0.1, 0.3, 12)})
    errors["m"] = errors["base"] + rng.normal(0.01, 0.02, 12)
    t = paired_intervals(errors, "base")
    ci = stats.ttest_rel(errors["m"], errors["base"]).confidence_interval(0.95)
    assert t.loc["m", "mean_diff"] == pytest.approx((errors["m"] - errors["base"]).mean())
    assert (t.loc["m", "low"], t.loc["m", "high"]) == pytest.approx((ci.low, ci.high))


def test_the_report_names_the_protocol_versions_and_machine():
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    from svmtune.kernels import RBF
    from svmtune.objectives import KFoldCV
    from svmtune.study import Method, PeerMethod, Study
    from svmtune.tuners import TPE

    grid = {"C": [1.0, 10.0], "gamma": [0.1, 1.0]}
    study = Study(
        "p",
        datasets=["heart"],
        split="fischetti",
        methods={
            "TPE": Method(KFoldCV(k=5), TPE(max_evals=25), RBF()),
            "GS": PeerMethod(GridSearchCV(SVC(), grid, cv=5)),
            "GS, folds 1": PeerMethod(GridSearchCV(SVC(), grid, cv=5), folds=1),
        },
    )
    res = _tied()
    text = _report_text("t", res, compare(res), "", {}, definition=study.definition())
    assert "## Protocol" in text and "## Provenance" in text
    assert "Fischetti's: each point to the training part with probability 0.7" in text
    assert "one stratified fold assignment shuffled from the split's seed" in text
    assert "Noise controls (1) use other assignments" in text
    assert "| TPE | KFoldCV(k=5) by TPE, at most 25 evaluations | 0 |" in text
    assert "| GS, folds 1 | GridSearchCV, 4 grid points, cv=5 | 1 |" in text
    assert "the first candidate in candidate order on ties" in text  # the tie rules
    for dist in ("scikit-learn", "optuna", "numpy", "scipy", "numba"):
        assert f"{dist} {metadata.version(dist)}" in text
    assert "svmtune: 0.1+gabc" in text and "logical cores" in text
