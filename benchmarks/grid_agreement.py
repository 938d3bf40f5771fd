"""Why "CV grid 25" and "GridSearchCV 25" choose different points, counted.

On the training part of 3 Fischetti splits of 8 bundled data sets, the 25-point grid of
``studies/benchmark.py`` searched by svmtune (``Grid`` + ``KFoldCV(k=5, random_state=0)``) and
by ``GridSearchCV(SVC(), grid)`` with (a) ``cv=5`` as users run it, (b) svmtune's folds, and
(c) svmtune's folds with scikit-learn's fold results scored as svmtune scores them (pooled
misclassification counts, the first lowest in C-major order). Prints, per case, whether each
chooses svmtune's point and the largest difference in misclassified validation points between
the two solvers over the 25 candidates, then the counts::

    python benchmarks/grid_agreement.py
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from svmtune.datasets import fischetti_split, load, stratified_kfold
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.tuners import Grid

GRID = {"C": np.geomspace(0.1, 1000, 5).tolist(), "gamma": np.geomspace(0.001, 10, 5).tolist()}
DATASETS = ("heart", "wdbc", "sonar", "bupa", "pima", "ionosphere", "breast", "australian")


def main() -> None:
    same = {"cv=5": 0, "svmtune folds": 0, "svmtune folds, pooled counts": 0}
    n = 0
    for name in DATASETS:
        X, y = load(name)
        for split in range(3):
            Xtr, ytr, _, _ = fischetti_split(X, y, split)
            folds = stratified_kfold(ytr, 5, 0)
            ours = Grid(values=GRID, max_evals=25).tune(
                KFoldCV(k=5, random_state=0), Xtr, ytr, kernel=RBF(gamma_bounds=(0.001, 10))
            )
            point = (ours.best_params["C"], ours.best_params["gamma"])
            users = GridSearchCV(SVC(), GRID, cv=5).fit(Xtr, ytr).best_params_
            gs = GridSearchCV(SVC(), GRID, cv=folds).fit(Xtr, ytr)
            res, sizes = gs.cv_results_, [len(te) for _, te in folds]
            wrong = np.rint(sum((1 - res[f"split{f}_test_score"]) * sizes[f] for f in range(5)))
            first = res["params"][int(np.argmin(wrong))]
            counts = np.rint(ours.trace["value"].to_numpy() * len(ytr))
            chosen = {
                "cv=5": users,
                "svmtune folds": gs.best_params_,
                "svmtune folds, pooled counts": first,
            }
            row = []
            for key, p in chosen.items():
                agree = bool(np.allclose((p["C"], p["gamma"]), point))
                same[key] += agree
                row.append(f"{key}: {'same' if agree else 'other'}")
            n += 1
            gap = int(np.abs(counts - wrong).max())
            print(f"{name:<11} split {split}: {'; '.join(row)}; solvers differ by <= {gap}")
    for key, k in same.items():
        print(f"GridSearchCV with {key} chooses svmtune's point on {k} of {n}")


if __name__ == "__main__":
    main()
