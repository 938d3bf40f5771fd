"""TunedSVC with Fischetti's LOO estimates: predicting with what was tuned, or a refit hinge SVM.

On scikit-learn's breast_cancer (569 points, 30 features), 5 stratified folds (shuffled, seed
0), ``make_pipeline(StandardScaler(), TunedSVC(objective=LOOEstimate(model=...),
tuner=Bisection()))`` is scored by accuracy on each held-out fold, with

- ``predictor="objective"`` (the default): the classifier the LOO estimate evaluated, Fischetti's
  kernel expansion at the tuned gamma, trained on the whole training fold;
- ``predictor="svm"``: a hinge-loss SVM with ``C = 1`` at the same gamma (the former behaviour);

and, for reference, the tuning result's own classifier (``Bisection().tune(...)
.best_classifier`` on the scaled training fold), which ``predictor="objective"`` must match.
Also the default ``TunedSVC()`` (5-fold CV on the 5 x 5 grid). Accuracies are exact counts
(no timing), so the figures do not depend on the machine.

    python benchmarks/tunedsvc_loo.py
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from svmtune import TunedSVC
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection


def main() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    rows: dict[str, list[float]] = {}
    for model in ("loo2", "loo3"):
        for predictor in ("objective", "svm"):
            name = f"{model} predictor={predictor}"
            for tr, te in folds:
                clf = make_pipeline(
                    StandardScaler(),
                    TunedSVC(
                        objective=LOOEstimate(model=model), tuner=Bisection(), predictor=predictor
                    ),
                ).fit(X[tr], y[tr])
                rows.setdefault(name, []).append(clf.score(X[te], y[te]))
        name = f"{model} tuning result's classifier"
        for tr, te in folds:
            sc = StandardScaler().fit(X[tr])
            yb = np.where(y[tr] == 1, 1.0, -1.0)
            res = Bisection().tune(
                LOOEstimate(model=model), sc.transform(X[tr]), yb, kernel=RBF(), random_state=0
            )
            yt = np.where(y[te] == 1, 1.0, -1.0)
            rows.setdefault(name, []).append(
                1.0 - res.best_classifier.error(sc.transform(X[te]), yt)
            )
    for tr, te in folds:
        clf = make_pipeline(StandardScaler(), TunedSVC()).fit(X[tr], y[tr])
        rows.setdefault("TunedSVC() (5-fold CV, 5x5 grid)", []).append(clf.score(X[te], y[te]))
    print("mean accuracy over 5 stratified folds of breast_cancer:")
    for name, acc in rows.items():
        print(f"  {name:40s} {np.mean(acc):.3f}  (folds: {', '.join(f'{a:.3f}' for a in acc)})")


if __name__ == "__main__":
    main()
