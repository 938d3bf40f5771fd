"""TunedSVC as scikit-learn users expect: ``best_score_``, ``cv_results_``, ``scoring``, ``cv``
and the weights, each checked against ``GridSearchCV(SVC())`` on the same grid and folds."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import get_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmtune import TunedSVC
from svmtune.objectives import KFoldCV, LOOEstimate
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


# Both sides solve tightly, so that they agree on every decision not within MARGIN of zero: at
# the default tol (a KKT gap of 1e-3 for LIBSVM and svmtune's SMO alike) a validation decision
# may lie within the solvers' accuracy of zero, where two eps-optimal solutions, or one solver
# compiled for two CPUs, may take either sign.
TIGHT = 1e-8
MARGIN = 1e-4


def _undecided(X, y, cv, *, class_weight=None, sample_weight=None) -> set[tuple[float, float]]:
    """The grid settings where some validation decision of a tight LIBSVM fit lies within
    ``MARGIN`` of zero: the two solvers need not agree on its sign there."""
    out = set()
    for C in GRID["C"]:
        for gamma in GRID["gamma"]:
            for tr, te in cv.split(X, y):
                sw = None if sample_weight is None else sample_weight[tr]
                svc = SVC(C=C, gamma=gamma, tol=TIGHT, class_weight=class_weight)
                f = svc.fit(X[tr], y[tr], sample_weight=sw).decision_function(X[te])
                if np.any(np.abs(f) <= MARGIN):
                    out.add((round(float(C), 6), round(float(gamma), 6)))
    return out


def _assert_same_scores(ours, theirs, undecided, *, exact: bool = True) -> None:
    """Scores equal at every setting whose decisions are all away from zero; the best setting
    and score equal when every setting's are; ``exact=False`` (an AUC) lets a fold's score move
    by a swapped pair of near-equal decisions."""
    mine, sk = _scores_by_setting(ours.cv_results_), _scores_by_setting(theirs.cv_results_)
    assert mine.keys() == sk.keys()
    assert len(undecided) <= 2  # the comparison says something
    decided = [k for k in sk if k not in undecided]
    same = np.isclose([mine[k] for k in decided], [sk[k] for k in decided], rtol=0, atol=1e-12)
    assert same.all() or (not exact and same.mean() > 0.8)
    assert np.allclose([mine[k] for k in sk], list(sk.values()), rtol=0, atol=0.01)
    if not undecided and exact:
        assert ours.best_params_ == pytest.approx(theirs.best_params_)
        assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)
        assert ours.best_error_ == pytest.approx(1 - theirs.best_score_, abs=1e-12)


@pytest.mark.parametrize("scoring", ["accuracy", "balanced_accuracy", "roc_auc", "f1"])
def test_scores_match_grid_search_on_the_same_folds(data, scoring):
    X, y = data
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    ours = TunedSVC(objective=KFoldCV(tol=TIGHT), scoring=scoring, cv=cv).fit(X, y)
    theirs = GridSearchCV(SVC(tol=TIGHT), GRID, cv=cv, scoring=scoring).fit(X, y)
    assert set(ours.cv_results_) == set(theirs.cv_results_)
    # an AUC may swap a pair of near-equal decisions (1/(n+ n-) of a fold's score)
    _assert_same_scores(ours, theirs, _undecided(X, y, cv), exact=scoring != "roc_auc")
    assert ours.cv_results_["rank_test_score"][ours.best_index_] == 1


def test_weights_match_grid_search(data):
    X, y = data
    cv = StratifiedKFold(3)  # what cv=3 means to both
    weights = np.where(y == 1, 2.0, 1.0)
    tight = KFoldCV(tol=TIGHT)
    ours = TunedSVC(objective=tight, cv=3, class_weight="balanced").fit(X, y, sample_weight=weights)
    # scikit-learn's search with the weights in the fits and in the scores (as svmtune's): asked
    # for by metadata routing, which scikit-learn 1.6 needs (it weighed the fits only)
    with sklearn.config_context(enable_metadata_routing=True):
        svc = SVC(class_weight="balanced", tol=TIGHT).set_fit_request(sample_weight=True)
        scorer = get_scorer("accuracy").set_score_request(sample_weight=True)
        theirs = GridSearchCV(svc, GRID, cv=3, scoring=scorer).fit(X, y, sample_weight=weights)
    near = _undecided(X, y, cv, class_weight="balanced", sample_weight=weights)
    _assert_same_scores(ours, theirs, near)
    # a class weight dict, keyed by the user's labels, moves the SVM as scikit-learn's does
    dict_weights = {0: 3.0, 1: 1.0}
    ours = TunedSVC(objective=tight, cv=3, class_weight=dict_weights).fit(X, y)
    theirs = GridSearchCV(SVC(class_weight=dict_weights, tol=TIGHT), GRID, cv=3).fit(X, y)
    _assert_same_scores(ours, theirs, _undecided(X, y, cv, class_weight=dict_weights))


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
