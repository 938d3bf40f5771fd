"""KFoldCV: the pooled CV error against brute force, seeding, parallel folds, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmtune import SVC
from svmtune.kernels import RBF, Linear
from svmtune.objectives import KFoldCV
from svmtune.solvers.smo._kernel_rows import DEFAULT_MEMORY_BUDGET
from svmtune.study import Method
from svmtune.tuners import Grid
from tests.solvers._data import real_split
from tests.solvers._optimality import bias_of, gap_of, undecided_validation_points, w_bound

GRID = Grid(values={"C": [0.3, 1.0, 3.0, 10.0], "gamma": [0.003, 0.01, 0.03, 0.1]})


@pytest.fixture(scope="module")
def heart() -> tuple[np.ndarray, np.ndarray]:
    X, y, _, _ = real_split("heart")
    return X, y


def _libsvm_folds(X, y, folds, C, gamma, tol) -> list[tuple[int, np.ndarray, float]]:
    """Per fold: libsvm's validation errors, alphas over the training part and bias."""
    out = []
    for tr, va in folds:
        clf = LibSVC(C=C, gamma=gamma, tol=tol).fit(X[tr], y[tr])
        a = np.zeros(tr.size)
        a[clf.support_] = np.abs(clf.dual_coef_[0])
        out.append((int(np.sum(clf.predict(X[va]) != y[va])), a, float(clf.intercept_[0])))
    return out


def _allowance(X, y, folds, C, gamma, alphas, biases, tol) -> tuple[int, int]:
    """libsvm's pooled validation errors, and how many validation points a tol-optimal solution
    with the given per-fold ``alphas`` (over each training part) and ``biases`` may classify
    differently from libsvm's: those within the guaranteed distance of the two decision
    functions (duality gaps, strong convexity) of zero."""
    K = RBF().gram({"gamma": gamma}, X)
    lib_errors = allowed = 0
    for (tr, va), (err, lib_a, lib_b), a, b in zip(
        folds, _libsvm_folds(X, y, folds, C, gamma, tol), alphas, biases, strict=True
    ):
        lib_errors += err
        allowed += undecided_validation_points(a, b, lib_a, lib_b, y, K, C, tr, va)
    return lib_errors, allowed


@pytest.mark.parametrize("params", [{"C": 1.0, "gamma": 0.01}, {"C": 10.0, "gamma": 0.1}])
def test_value_is_the_pooled_cv_error(heart, params) -> None:
    X, y = heart
    # At a tight tolerance, so that what it guarantees is informative (at tol=1e-3 and C=10
    # the guaranteed band covers most points).
    tol = 1e-6
    bound = KFoldCV(k=5, seeding=False, tol=tol).bind(X, y, kernel=RBF())
    ev = bound.evaluate(params)
    C, gamma = params["C"], params["gamma"]
    K = RBF().gram({"gamma": gamma}, X)
    solved = [bound._solve_fold(f, C, {"gamma": gamma}, K, None)[0] for f in range(5)]
    alphas = [res.alpha[tr] for res, (tr, _) in zip(solved, bound.folds, strict=True)]
    lib_errors, allowed = _allowance(
        X, y, bound.folds, C, gamma, alphas, [res.b for res in solved], tol
    )
    assert abs(ev.info["errors"] - lib_errors) <= allowed
    assert allowed <= 0.05 * y.size  # the comparison says something
    assert ev.value == ev.info["errors"] / y.size
    assert ev.cost.kernel_evals == y.size**2  # one Gram matrix for all five folds
    assert ev.cost.iterations > 0 and ev.info["converged"]


def test_folds_are_stratified_seeded_and_partition_the_data(heart) -> None:
    X, y = heart
    folds = KFoldCV(k=5, random_state=3).bind(X, y, kernel=RBF()).folds
    again = KFoldCV(k=5, random_state=3).bind(X, y, kernel=RBF()).folds
    other = KFoldCV(k=5, random_state=4).bind(X, y, kernel=RBF()).folds
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again, strict=True))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other, strict=True))
    assert np.array_equal(np.sort(np.concatenate([va for _, va in folds])), np.arange(y.size))
    pos = [int(np.sum(y[va] > 0)) for _, va in folds]
    assert max(pos) - min(pos) <= 1
    assert all(np.intersect1d(tr, va).size == 0 for tr, va in folds)


def test_search_space_is_C_and_the_kernel_parameters(heart) -> None:
    X, y = heart
    assert KFoldCV.needs_C
    assert KFoldCV().search_space(RBF()).names == ("C", "gamma")
    assert KFoldCV().search_space(Linear()).names == ("C",)
    ev = KFoldCV(k=3).bind(X, y, kernel=Linear()).evaluate({"C": 0.1})
    assert 0.0 <= ev.value < 0.3


def test_seeding_is_opt_in_and_changes_no_value(heart) -> None:
    X, y = heart
    hinge = Grid(n_points=5)  # Fischetti's HINGE baseline: 5x5 grid, 5-fold CV
    seeded = hinge.tune(KFoldCV(k=5, seeding=True), X, y, kernel=RBF())
    cold = hinge.tune(KFoldCV(k=5), X, y, kernel=RBF())
    assert KFoldCV().seeding is False
    # the default solves each fold once from zero: a setting late in the walk costs what it
    # costs a fresh bind, and seeding (with its settling) changes no value on this grid
    last = {
        "C": float(cold.trace["param_C"].iloc[-1]),
        "gamma": float(cold.trace["param_gamma"].iloc[-1]),
    }
    fresh = KFoldCV(k=5).bind(X, y, kernel=RBF()).evaluate(last)
    assert int(cold.trace["iterations"].iloc[-1]) == fresh.cost.iterations
    assert np.array_equal(seeded.trace["value"], cold.trace["value"])
    assert np.array_equal(seeded.trace["kernel_evals"], cold.trace["kernel_evals"])
    # Seeding changes where SMO starts, not the problem: both runs' values are CV errors of
    # tol-optimal solutions, so each agrees with libsvm's up to the points within the
    # guaranteed distance of the decision functions (two tol-optimal solutions need not share
    # alphas, so exact equality of the values holds on one machine's rounding only). At a tight
    # tolerance, so that the guarantee is informative.
    tol = 1e-6
    allowances = []
    for seeding in (True, False):
        bound = KFoldCV(k=5, seeding=seeding, tol=tol).bind(X, y, kernel=RBF())
        run = hinge.tune_bound(bound)
        for i, row in run.trace.iterrows():
            C, gamma = row["param_C"], row["param_gamma"]
            K = RBF().gram({"gamma": gamma}, X)
            # each fold's solution at this setting (kept in the order evaluated: gamma-major)
            at = bound._seed_point({"C": C, "gamma": gamma})
            alphas = [
                next(a for p, a in bound._seeds[f] if np.array_equal(p, at))[tr]
                for f, (tr, _) in enumerate(bound.folds)
            ]
            biases = [
                bias_of(a, y[tr], K[np.ix_(tr, tr)], C)
                for a, (tr, _) in zip(alphas, bound.folds, strict=True)
            ]
            lib_errors, allowed = _allowance(X, y, bound.folds, C, gamma, alphas, biases, tol)
            errors = round(row["value"] * y.size)
            assert abs(errors - lib_errors) <= allowed, (seeding, i, errors, lib_errors)
            allowances.append(allowed)
    # the comparison says something (the band is wide only at the largest C)
    assert np.median(allowances) <= 0.02 * y.size


def test_parallel_folds_give_the_same_evaluations(heart) -> None:
    X, y = heart
    one = GRID.tune(KFoldCV(k=5, n_jobs=1), X, y, kernel=RBF())
    two = GRID.tune(KFoldCV(k=5, n_jobs=2), X, y, kernel=RBF())
    for col in ("value", "iterations", "kernel_evals"):
        assert np.array_equal(one.trace[col], two.trace[col]), col


def test_classifier_is_the_svm_on_all_training_data(heart) -> None:
    X, y = heart
    _, _, Xt, _ = real_split("heart")
    bound = KFoldCV().bind(X, y, kernel=RBF())
    clf = bound.classifier({"C": 2.0, "gamma": 0.02})
    ref = SVC(C=2.0, kernel_params={"gamma": 0.02}).fit(X, y)
    assert np.allclose(clf.decision_function(Xt), ref.decision_function(Xt))
    assert np.array_equal(clf.vectors, ref.support_vectors_)


def test_small_memory_budget_trains_each_fold_on_cached_rows(heart) -> None:
    X, y = heart
    params = {"C": 1.0, "gamma": 0.02}
    tol = 1e-6  # tight, so that what the tolerance guarantees is informative
    full = KFoldCV(seeding=False, tol=tol).bind(X, y, kernel=RBF())
    small = KFoldCV(seeding=False, tol=tol, memory_budget=8 * y.size * 50).bind(X, y, kernel=RBF())
    assert full.fits and not small.fits
    a, b = full.evaluate(params), small.evaluate(params)
    assert b.cost.kernel_evals > 0 and b.cost.kernel_evals != a.cost.kernel_evals
    # Rows on demand round differently from the full Gram: the two runs reach different
    # tol-optimal solutions, whose CV errors each agree with libsvm's up to the validation
    # points within the guaranteed distance of the decision functions.
    K = RBF().gram({"gamma": 0.02}, X)
    for bound, ev in ((full, a), (small, b)):
        alphas = [bound._seeds[f][-1][1][tr] for f, (tr, _) in enumerate(bound.folds)]
        biases = [
            bias_of(al, y[tr], K[np.ix_(tr, tr)], 1.0)
            for al, (tr, _) in zip(alphas, bound.folds, strict=True)
        ]
        lib_errors, allowed = _allowance(X, y, bound.folds, 1.0, 0.02, alphas, biases, tol)
        assert abs(ev.info["errors"] - lib_errors) <= allowed <= 0.05 * y.size
    # The final classifiers: decision values within ||w - w'|| sqrt(k(x, x)) + |b - b'|.
    c_small, c_full = small.classifier(params), full.classifier(params)
    alpha = []
    for clf in (c_small, c_full):
        al = np.zeros(y.size)
        rows = [int(np.flatnonzero((X == v).all(axis=1))[0]) for v in clf.vectors]
        al[rows] = np.abs(clf.coef)
        alpha.append(al)
    gaps = [
        gap_of(al, clf.intercept, y, K, 1.0)
        for al, clf in zip(alpha, (c_small, c_full), strict=True)
    ]
    band = w_bound(*gaps) + abs(c_small.intercept - c_full.intercept)
    assert band < 0.05
    diff = c_small.decision_function(X[:20]) - c_full.decision_function(X[:20])
    assert np.abs(diff).max() <= band


def test_seeded_evaluation_order_does_not_change_values(heart) -> None:
    # Seeded from different neighbours, each fold solves the same problem under the same bias
    # rule. Solved tightly, so that no validation decision lies within the solver's accuracy
    # of zero (at tol 1e-3 one may, and take either sign from another start or on another
    # CPU: tests/objectives/test_seeded_values.py counts what may differ there).
    X, y = heart
    points = list(GRID.candidates(KFoldCV().search_space(RBF())))
    bound = KFoldCV(tol=1e-8).bind(X, y, kernel=RBF())
    forward = [bound.evaluate(p).value for p in points]
    backward = KFoldCV(tol=1e-8).bind(X, y, kernel=RBF())
    reverse = [backward.evaluate(p).value for p in points[::-1]][::-1]
    assert forward == reverse


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"k": 1}, "k must be an integer >= 2"),
        ({"k": 2.5}, "k must be an integer >= 2"),
        ({"k": 1000}, "needs at least 1000 points of each class"),
        ({"n_jobs": 0}, "n_jobs must be a non-zero integer"),
        ({"tol": -1.0}, "tol must be a positive"),
        ({"max_seeds": 0}, "max_seeds must be a positive integer"),
    ],
)
def test_bad_options(heart, options, match) -> None:
    X, y = heart
    with pytest.raises(ValueError, match=match):
        KFoldCV(**options).bind(X, y, kernel=RBF())


def test_bad_parameters_and_data(heart) -> None:
    X, y = heart
    bound = KFoldCV().bind(X, y, kernel=RBF())
    with pytest.raises(ValueError, match="C=-1.0 is outside its bounds"):
        bound.evaluate({"C": -1.0, "gamma": 0.1})
    with pytest.raises(ValueError, match="missing \\['gamma'\\]"):
        bound.evaluate({"C": 1.0})
    with pytest.raises(ValueError, match="single class"):
        KFoldCV().bind(X, np.ones_like(y), kernel=RBF())
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        KFoldCV().bind(bad, y, kernel=RBF())


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"k": 1}, "k must be an integer >= 2"),
        ({"n_jobs": True}, "n_jobs must be a non-zero integer"),
        ({"random_state": "abc"}, "random_state must be None, a non-negative integer"),
        ({"random_state": -1}, "random_state must be None, a non-negative integer"),
        ({"selection": "best"}, "selection"),
    ],
)
def test_options_are_checked_at_first_use_before_any_data(options, match) -> None:
    # search_space is what Tuner.tune and a study's definition (Method) call first
    with pytest.raises(ValueError, match=match):
        KFoldCV(**options).search_space(RBF())
    with pytest.raises(ValueError, match=match):
        Method(KFoldCV(**options), Grid(), RBF()).search_space()


@pytest.mark.parametrize("n", [20, 40, 50])
@pytest.mark.parametrize("memory_budget", [DEFAULT_MEMORY_BUDGET, 1024])
def test_identical_rows_score_one_half(n, memory_budget) -> None:
    # Hand-computed: on identical rows every fold's solution has all alpha = C and f == 0 in
    # exact arithmetic, so every validation point is a tie, labelled +1 (as predict does): with
    # stratified, balanced folds exactly half are wrong. Round-off (+-6e-17, its sign following
    # the labels through seeding) used to decide, scoring 0.3 or even 0.0.
    X = np.ones((2 * n, 3))
    y = np.repeat([-1.0, 1.0], n)
    bound = KFoldCV(k=5, memory_budget=memory_budget).bind(X, y, kernel=RBF())
    assert (not bound.fits) == (memory_budget == 1024)
    for C in (0.1, 1.0, 10.0):
        for gamma in (1.0, 2.0):
            assert bound.evaluate({"C": C, "gamma": gamma}).value == 0.5


def test_folds_on_the_kept_gram_and_on_their_own_rows_match_libsvm() -> None:
    # While the Gram matrix of all points fits the memory budget, an evaluation solves every
    # fold on it and keeps it: the next evaluation at the same kernel parameters computes no
    # kernel entry. Beyond the budget each fold trains on kernel rows of its own points. Both
    # are CV errors of tol-optimal solutions: each agrees with libsvm's up to the points within
    # the guaranteed distance of the decision functions.
    X, y, _, _ = real_split("twonorm", max_rows=1100)
    n, tol, params = y.size, 1e-6, {"C": 1.0, "gamma": 0.05}
    K = RBF().gram({"gamma": params["gamma"]}, X)
    for budget in (DEFAULT_MEMORY_BUDGET, 16 * n * n - 1):
        bound = KFoldCV(k=5, tol=tol, seeding=True, memory_budget=budget).bind(X, y, kernel=RBF())
        for first in (True, False):
            ev = bound.evaluate(params)
            if budget == DEFAULT_MEMORY_BUDGET:
                assert ev.cost.kernel_evals == (n * n if first else 0)
            else:
                assert 0 < ev.cost.kernel_evals != n * n
            alphas = [bound._seeds[f][-1][1][tr] for f, (tr, _) in enumerate(bound.folds)]
            biases = [
                bias_of(a, y[tr], K[np.ix_(tr, tr)], params["C"])
                for a, (tr, _) in zip(alphas, bound.folds, strict=True)
            ]
            lib_errors, allowed = _allowance(X, y, bound.folds, 1.0, 0.05, alphas, biases, tol)
            assert abs(ev.info["errors"] - lib_errors) <= allowed
            assert allowed <= 0.03 * y.size
            assert ev.info["converged"] and ev.info["folds"] == 5
