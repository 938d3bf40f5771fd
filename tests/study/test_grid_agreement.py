"""Why "CV grid 25" and "GridSearchCV 25" of the benchmark differ, and where they agree.

Both search the same 25 points of the same box with 5-fold CV and the same tie rule (the first
point in C-major order among the best). They differ by (1) the fold assignment: svmtune's
``KFoldCV(random_state=0)`` deals each class round the folds at random, ``GridSearchCV(cv=5)``
cuts unshuffled stratified blocks; (2) the score: svmtune's pooled error (misclassified /
n) against the unweighted mean of the fold accuracies, whose round-off also decides
GridSearchCV's ties; (3) the solver: libsvm and svmtune's SMO stop at the same KKT tolerance
1e-3 from different paths, so a validation decision within their accuracy of zero may take
either sign (and another CPU's round-off may flip it). Given svmtune's folds and scored by
pooled counts, GridSearchCV's results select svmtune's point wherever the two solvers classify
every validation point alike: checked with both solving tightly (tol 1e-8), where they agree on
every decision not within ``MARGIN`` of zero.
"""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from svmtune.datasets import fischetti_split, load, stratified_kfold
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.tuners import Grid

GRID = {"C": np.geomspace(0.1, 1000, 5).tolist(), "gamma": np.geomspace(0.001, 10, 5).tolist()}
TIGHT = 1e-8
MARGIN = 1e-4


def _undecided(X, y, folds) -> np.ndarray:
    """Per candidate (C-major order): whether a validation decision of a tight libsvm fit lies
    within ``MARGIN`` of zero, where two tight solvers need not agree on its sign."""
    return np.array(
        [
            any(
                np.any(
                    np.abs(SVC(C=C, gamma=g, tol=TIGHT).fit(X[tr], y[tr]).decision_function(X[va]))
                    <= MARGIN
                )
                for tr, va in folds
            )
            for C in GRID["C"]
            for g in GRID["gamma"]
        ]
    )


@pytest.mark.parametrize("name,split", [("heart", 0), ("wdbc", 1), ("sonar", 1), ("bupa", 0)])
def test_same_folds_and_tie_rule_select_the_same_point_up_to_solver_tolerance(name, split):
    X, y = load(name)
    Xtr, ytr, _, _ = fischetti_split(X, y, split)
    folds = stratified_kfold(ytr, 5, 0)  # what KFoldCV(k=5, random_state=0) uses
    ours = Grid(values=GRID, max_evals=25).tune(
        KFoldCV(k=5, random_state=0, tol=TIGHT), Xtr, ytr, kernel=RBF(gamma_bounds=(0.001, 10))
    )
    res = GridSearchCV(SVC(tol=TIGHT), GRID, cv=folds).fit(Xtr, ytr).cv_results_
    sizes = [len(te) for _, te in folds]
    theirs = np.rint(sum((1 - res[f"split{f}_test_score"]) * sizes[f] for f in range(5))).astype(
        int
    )  # misclassified validation points per candidate, in C-major order
    # our trace lists the evaluations as walked (gamma slowest): put it in the grid's order
    traced = ours.trace.sort_values(["param_C", "param_gamma"], kind="stable")
    counts = np.rint(traced["value"].to_numpy() * len(ytr)).astype(int)
    # the same candidates in the same order
    assert [(p["C"], p["gamma"]) for p in res["params"]] == [
        (c, g) for c in GRID["C"] for g in GRID["gamma"]
    ]
    # the solvers agree wherever no decision is within their accuracy of zero
    undecided = _undecided(Xtr, ytr, folds)
    assert undecided.sum() <= 2  # the comparison says something
    assert np.array_equal(counts[~undecided], theirs[~undecided])
    first_best = int(np.argmin(theirs))
    chosen = (res["params"][first_best]["C"], res["params"][first_best]["gamma"])
    if np.array_equal(counts, theirs):  # the solvers agree: the same point
        assert chosen == pytest.approx((ours.best_params["C"], ours.best_params["gamma"]))
