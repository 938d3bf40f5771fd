"""TunedSVC as a GridSearchCV drop-in: cv_results_ (per-split scores, ranks, times), refit,
sparse input, feature names and weights checked as scikit-learn's SVC checks them."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.stats import rankdata
from sklearn import metrics
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.svm import SVC as LibSVC

import svmtune._validation as validation
from svmtune import SVC, TunedSVC
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection, Grid

#: Decisions closer to zero than this may come out either side in two solves that each stop
#: at SMO's KKT tolerance (1e-3): their labels are not compared.
NEAR = 1e-2


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=90, n_features=4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=3
    )
    return X, np.where(y == 1, "yes", "no")


@pytest.fixture(scope="module")
def default_fit(data) -> TunedSVC:
    X, y = data
    return TunedSVC(tuner=Grid(n_points=3), random_state=0).fit(X, y)


def metric_values(scoring, y_true, decision, pos) -> set[float]:
    """Every value ``scoring`` can take on the labels of ``decision`` when the decisions within
    NEAR of zero go either way (sklearn's metric on svmtune's own fold predictions)."""
    pred = np.where(decision > 0, pos, "other")
    near = np.flatnonzero(np.abs(decision) < NEAR)
    assert near.size <= 10, "too many ties to enumerate"
    values = set()
    for flips in itertools.product([False, True], repeat=near.size):
        p = pred.copy()
        for i, f in zip(near, flips, strict=True):
            if f:
                p[i] = "other" if p[i] == pos else pos
        truth = np.where(y_true == pos, pos, "other")
        if scoring == "accuracy":
            values.add(round(metrics.accuracy_score(truth, p), 12))
        else:
            values.add(round(metrics.balanced_accuracy_score(truth, p), 12))
    return values


def check_splits(clf, X, y, scoring) -> None:
    """Each split score equals scikit-learn's ``scoring`` on svmtune's own SVC trained on the
    fold's training rows (ties near zero either way); exactly so where no decision is near."""
    res, folds = clf.cv_results_, clf.cv_folds_
    exact = 0
    for i, params in enumerate(res["params"]):
        for k, (tr, te) in enumerate(folds):
            svc = SVC(C=params["C"], kernel_params={"gamma": params["gamma"]}).fit(X[tr], y[tr])
            decision = svc.decision_function(X[te])
            got = round(float(res[f"split{k}_test_score"][i]), 12)
            assert got in metric_values(scoring, y[te], decision, clf.classes_[1]), (params, k)
            exact += bool(np.all(np.abs(decision) >= NEAR))
    assert exact >= 0.8 * len(res["params"]) * len(folds)  # the check is not vacuous


def test_cv_results_have_grid_search_keys_params_and_ranks_on_the_same_folds(
    data, default_fit
) -> None:
    X, y = data
    res = default_fit.cv_results_
    grid = {
        "C": sorted({p["C"] for p in res["params"]}),
        "gamma": sorted({p["gamma"] for p in res["params"]}),
    }
    gs = GridSearchCV(LibSVC(), grid, cv=default_fit.cv_folds_).fit(X, y)
    ref = gs.cv_results_
    assert set(res) == set(ref)
    assert sorted(map(tuple, (sorted(p.items()) for p in res["params"]))) == sorted(
        map(tuple, (sorted(p.items()) for p in ref["params"]))
    )
    for name in ("param_C", "param_gamma"):
        assert isinstance(res[name], np.ma.MaskedArray)
        assert sorted(res[name].tolist()) == sorted(ref[name].tolist())
    # GridSearchCV's rank rule (ties share the smallest rank), on each one's own means
    for r in (res, ref):
        want = rankdata(-np.asarray(r["mean_test_score"]), method="min").astype(np.int32)
        np.testing.assert_array_equal(r["rank_test_score"], want)
    assert default_fit.best_index_ == int(np.argmax(res["mean_test_score"]))
    assert res["params"][default_fit.best_index_] == default_fit.best_params_
    assert res["rank_test_score"][default_fit.best_index_] == 1


def test_split_scores_are_the_folds_scores_with_their_variance(data, default_fit) -> None:
    """The default pooled-error k-fold CV: per-split accuracies of svmtune's fold predictions;
    the mean weighs the folds by size (1 - the pooled error, the tuned value), the std too; fit
    and score seconds per candidate."""
    X, y = data
    clf, res = default_fit, default_fit.cv_results_
    check_splits(clf, X, y, "accuracy")
    sizes = np.array([te.size for _, te in clf.cv_folds_])
    splits = np.column_stack([res[f"split{k}_test_score"] for k in range(len(sizes))])
    np.testing.assert_allclose(res["mean_test_score"], np.average(splits, axis=1, weights=sizes))
    var = np.average((splits - res["mean_test_score"][:, None]) ** 2, axis=1, weights=sizes)
    np.testing.assert_allclose(res["std_test_score"], np.sqrt(var))
    assert np.any(res["std_test_score"] > 0)  # folds differ: not one pooled number
    trace = clf.trace_.set_index(["param_C", "param_gamma"])["value"]
    for p, m in zip(res["params"], res["mean_test_score"], strict=True):
        assert m == pytest.approx(1.0 - trace[(p["C"], p["gamma"])], abs=1e-12)
    assert clf.best_score_ == pytest.approx(res["mean_test_score"][clf.best_index_], abs=1e-12)
    for key in ("mean_fit_time", "mean_score_time"):
        assert np.all(np.isfinite(res[key])) and np.all(res[key] > 0), key
    for key in ("std_fit_time", "std_score_time"):
        assert np.all(np.isfinite(res[key])) and np.all(res[key] >= 0), key
    # every row of X is validated exactly once, in the order given to fit
    every = np.sort(np.concatenate([te for _, te in clf.cv_folds_]))
    np.testing.assert_array_equal(every, np.arange(len(y)))


def test_scored_cv_split_scores_are_sklearn_metrics_of_svmtune_predictions(data) -> None:
    X, y = data
    clf = TunedSVC(tuner=Grid(n_points=3), scoring="balanced_accuracy", cv=3).fit(X, y)
    check_splits(clf, X, y, "balanced_accuracy")
    res = clf.cv_results_
    splits = np.column_stack([res[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_allclose(res["mean_test_score"], splits.mean(axis=1))  # unweighted
    np.testing.assert_allclose(res["std_test_score"], splits.std(axis=1))


def test_objectives_without_folds_make_up_no_variance(data) -> None:
    X, y = data
    clf = TunedSVC(objective=LOOEstimate(model="loo2"), tuner=Bisection()).fit(X, y)
    res = clf.cv_results_
    assert not [k for k in res if k.startswith("split")] and clf.cv_folds_ is None
    assert np.all(np.isnan(res["std_test_score"]))
    assert np.all(np.isnan(res["mean_score_time"])) and np.all(np.isnan(res["std_fit_time"]))
    np.testing.assert_allclose(res["mean_test_score"], 1.0 - clf.trace_["value"].to_numpy())


def test_refit_as_grid_search(data, default_fit) -> None:
    X, y = data
    for refit in (True, "accuracy"):
        clf = TunedSVC(tuner=Grid(n_points=3), random_state=0, refit=refit).fit(X, y)
        np.testing.assert_array_equal(clf.predict(X), default_fit.predict(X))

    off = TunedSVC(tuner=Grid(n_points=3), random_state=0, refit=False).fit(X, y)
    assert off.best_params_ == default_fit.best_params_
    assert off.best_score_ == default_fit.best_score_
    assert not hasattr(off, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        off.predict(X)

    def worst(results):
        return int(np.argmin(results["mean_test_score"]))

    picked = TunedSVC(tuner=Grid(n_points=3), random_state=0, refit=worst).fit(X, y)
    i = worst(default_fit.cv_results_)
    assert picked.best_index_ == i
    assert picked.best_params_ == default_fit.cv_results_["params"][i]
    assert picked.best_estimator_.C == picked.best_params_["C"]
    assert picked.best_estimator_.kernel_params == {"gamma": picked.best_params_["gamma"]}
    # as GridSearchCV: no best score when a callable picks
    gs = GridSearchCV(LibSVC(), {"C": [1.0, 2.0]}, refit=worst, cv=3).fit(X, y)
    assert not hasattr(gs, "best_score_") and not hasattr(picked, "best_score_")

    with pytest.raises(IndexError, match="out of bounds"):
        TunedSVC(tuner=Grid(n_points=2), refit=lambda r: 99).fit(X, y)
    with pytest.raises(ValueError, match="predictor='svm'"):
        TunedSVC(refit="svm").fit(X, y)
    with pytest.raises(ValueError, match="'f1'"):
        TunedSVC(refit="f1").fit(X, y)
    with pytest.raises(ValueError, match="'hinge'"):
        TunedSVC(predictor="hinge").fit(X, y)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_gives_the_dense_model(data, default_fit, fmt) -> None:
    X, y = data
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)).asformat(fmt)
    dense = TunedSVC(tuner=Grid(n_points=3), random_state=0).fit(Xs.toarray(), y)
    sparse = TunedSVC(tuner=Grid(n_points=3), random_state=0).fit(Xs, y)
    assert sparse.best_params_ == dense.best_params_
    np.testing.assert_array_equal(
        sparse.decision_function(Xs), dense.decision_function(Xs.toarray())
    )
    np.testing.assert_array_equal(
        SVC().fit(Xs, y).decision_function(Xs), SVC().fit(Xs.toarray(), y).decision_function(Xs)
    )


def test_one_hot_pipeline_and_the_densify_limit(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    colours = rng.choice(["red", "green", "blue", "grey"], size=(60, 2))
    y = np.where((colours[:, 0] == "red") | (colours[:, 1] == "blue"), 1, 0)
    pipe = make_pipeline(OneHotEncoder(), TunedSVC(tuner=Grid(n_points=2))).fit(colours, y)
    assert pipe.score(colours, y) > 0.8
    monkeypatch.setattr(validation, "DENSIFY_LIMIT_BYTES", 1000)
    with pytest.raises(ValueError, match=r"shape \(60, 8\).*above the limit"):
        make_pipeline(OneHotEncoder(), TunedSVC(tuner=Grid(n_points=2))).fit(colours, y)


def test_feature_names_as_scikit_learn(data) -> None:
    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    clf = TunedSVC(tuner=Grid(n_points=2)).fit(frame, y)
    assert clf.feature_names_in_.tolist() == ["a", "b", "c", "d"] and clf.n_features_in_ == 4
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        clf.predict(X)
    with pytest.raises(ValueError, match="feature names should match"):
        clf.predict(frame.rename(columns={"a": "z"}))
    plain = TunedSVC(tuner=Grid(n_points=2)).fit(X, y)
    assert not hasattr(plain, "feature_names_in_")


@pytest.mark.parametrize(
    "class_weight, sample_weight, match",
    [
        ({"no": -1.0, "yes": 1.0}, None, r"class_weight\['no'\].*-1\.0"),
        ({"no": 0.0, "yes": 1.0}, None, "positive weights belong to the same class"),
        (None, "zero for one class", "positive weights belong to the same class"),
        (None, "all zero", "all samples have zero weight"),
        (None, "one negative", r"non-negative; got -2\.0 at row 5"),
    ],
)
def test_weights_refused_as_scikit_learn_refuses_them(
    data, class_weight, sample_weight, match
) -> None:
    X, y = data
    sw = {
        None: None,
        "zero for one class": np.where(y == "no", 0.0, 1.0),
        "all zero": np.zeros(len(y)),
        "one negative": np.where(np.arange(len(y)) == 5, -2.0, 1.0),
    }[sample_weight]
    with pytest.raises(ValueError, match=match):
        TunedSVC(tuner=Grid(n_points=2), class_weight=class_weight).fit(X, y, sample_weight=sw)
    if sample_weight in ("zero for one class", "all zero"):  # LIBSVM refuses these too
        with pytest.raises(ValueError, match="Invalid input - all samples"):
            LibSVC().fit(X, y, sample_weight=sw)


def test_a_class_left_out_of_class_weight_weighs_one(data) -> None:
    X, y = data
    part = TunedSVC(tuner=Grid(n_points=2), class_weight={"yes": 3.0}).fit(X, y)
    full = TunedSVC(tuner=Grid(n_points=2), class_weight={"yes": 3.0, "no": 1.0}).fit(X, y)
    assert part.best_params_ == full.best_params_
    np.testing.assert_array_equal(part.decision_function(X), full.decision_function(X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LibSVC(class_weight={"yes": 3.0}).fit(X, y)  # scikit-learn takes it too
