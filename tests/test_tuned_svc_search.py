"""TunedSVC as scikit-learn users expect: ``best_score_``, ``cv_results_``, ``scoring``, ``cv``
and the weights, each checked against ``GridSearchCV(SVC())`` on the same grid and folds."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmtune import TunedSVC
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection

# TunedSVC's default grid: C in 0.1..1000, gamma in 0.001..10, 5 log-spaced values each
GRID = {"C": np.logspace(-1, 3, 5), "gamma": np.logspace(-3, 1, 5)}


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rows = np.random.default_rng(0).permutation(len(y))[:150]
    return X[rows], y[rows]


def _scores_by_setting(results) -> dict[tuple[float, float], float]:
    return {
        (round(float(p["C"]), 6), round(float(p["gamma"]), 6)): s
        for p, s in zip(results["params"], results["mean_test_score"], strict=True)
    }


@pytest.mark.parametrize("scoring", ["accuracy", "balanced_accuracy", "roc_auc", "f1"])
def test_scores_match_grid_search_on_the_same_folds(data, scoring):
    X, y = data
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    ours = TunedSVC(scoring=scoring, cv=cv).fit(X, y)
    theirs = GridSearchCV(SVC(), GRID, cv=cv, scoring=scoring).fit(X, y)
    assert set(ours.cv_results_) == set(theirs.cv_results_)
    assert ours.best_params_ == pytest.approx(theirs.best_params_)
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)
    assert ours.best_error_ == pytest.approx(1 - theirs.best_score_, abs=1e-12)
    mine, sk = _scores_by_setting(ours.cv_results_), _scores_by_setting(theirs.cv_results_)
    assert mine.keys() == sk.keys()
    # Both SMO solvers stop at a KKT gap of 1e-3, so decision values differ slightly: a count
    # of errors agrees here, an AUC may swap a pair of near-equal decisions (1/(n+ n-) of a
    # fold's score), never more than that at any setting of the grid.
    same = np.isclose([mine[k] for k in sk], list(sk.values()), rtol=0, atol=1e-12)
    assert same.all() or (scoring == "roc_auc" and same.mean() > 0.8)
    assert np.allclose([mine[k] for k in sk], list(sk.values()), rtol=0, atol=0.01)
    assert ours.cv_results_["rank_test_score"][ours.best_index_] == 1


def test_weights_match_grid_search(data):
    X, y = data
    weights = np.where(y == 1, 2.0, 1.0)
    ours = TunedSVC(cv=3, class_weight="balanced").fit(X, y, sample_weight=weights)
    theirs = GridSearchCV(SVC(class_weight="balanced"), GRID, cv=3).fit(X, y, sample_weight=weights)
    assert ours.best_params_ == pytest.approx(theirs.best_params_)
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)
    # a class weight dict, keyed by the user's labels, moves the SVM as scikit-learn's does
    dict_weights = {0: 3.0, 1: 1.0}
    ours = TunedSVC(cv=3, class_weight=dict_weights).fit(X, y)
    theirs = GridSearchCV(SVC(class_weight=dict_weights), GRID, cv=3).fit(X, y)
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)


def test_best_score_is_a_score_for_every_objective(data):
    X, y = data
    clf = TunedSVC(objective=LOOEstimate(model="loo2"), tuner=Bisection()).fit(X, y)
    assert clf.best_score_ == pytest.approx(1 - clf.best_error_)
    assert 0.5 < clf.best_score_ <= 1.0
    assert clf.cv_results_["mean_test_score"].max() == pytest.approx(clf.best_score_)
    assert len(clf.cv_results_["params"]) == int((clf.trace_["status"] == "ok").sum())


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"scoring": "precision"}, "scoring must be None or one of"),
        ({"cv": 1}, "cv must be an integer >= 2"),
        ({"class_weight": "even"}, "class_weight must be None, 'balanced' or a dict"),
        (
            {"scoring": "f1", "objective": LOOEstimate(), "tuner": Bisection()},
            "apply to the k-fold objective",
        ),
    ],
)
def test_bad_search_options_name_the_value(data, kw, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        TunedSVC(**kw).fit(X, y)
