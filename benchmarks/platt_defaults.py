"""Platt's error + gradient descent from its default start, against a 5 x 5 grid of 5-fold CV.

On heart, pima, breast-cancer, ionosphere and sonar (Fischetti's random 70/30 splits,
standardized on the training part), ``--splits`` splits each, every method tunes on the
training part and its classifier is scored on the test part:

- ``grid CV``: the hinge SVM, (C, gamma) on the 5 x 5 log grid of the default box, 5-fold CV;
- ``GD``: ``PlattError()`` + ``GradientDescent()`` with no start and no box given (the
  defaults: C = 1, gamma = 1 / n_features, plateau restarts), RBF;
- ``GD aniso``: the same over ``AnisotropicRBF`` (one width per feature, all starting at
  1 / n_features; the widths first move together, then at most 5 free steps);
- ``GD aniso untied``: ``GradientDescent(tie_widths=False)``: every width free from the start,
  for up to 30 steps (what the tied phase and the 5-step limit avoid);
- ``GD no restarts``: ``GradientDescent(restarts=0)``, RBF (what the restarts add);
- ``GD centre start``: the former default, the centre of the objective's whole space
  (C = 10, gamma = 1) in that space, no restarts, RBF.

Prints, per data set and on average, the mean test error (%) of the tuned classifier
(``best_classifier``: for Platt's error the SVM with its sigmoid's threshold), that of the plain
SVM's sign at the same parameters (``svm_sign_error``), the mean CPU seconds of one tuning run
(``time.process_time`` of this process, one BLAS thread, compilation warmed up first) and its
ratio to the grid's, and the mean number of evaluations.

    python benchmarks/platt_defaults.py                 # 10 splits
    python benchmarks/platt_defaults.py --splits 3 --datasets heart sonar
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from svmtune import SVC
from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import KFoldCV, PlattError
from svmtune.tuners import GradientDescent, Grid

DATASETS = ["heart", "pima", "breast-cancer", "ionosphere", "sonar"]
#: the whole space of the objective (what every tuner but the grid searched before the
#: default box) and its centre (the former default start of gradient descent)
WHOLE = {"C": (1e-3, 1e5), "gamma": (1e-5, 1e5)}
CENTRE = {"C": 10.0, "gamma": 1.0}


def methods(seed: int, n_features: int) -> dict[str, tuple[object, object, object]]:
    """name -> (objective, tuner, kernel)."""
    platt = PlattError(random_state=seed)
    return {
        "grid CV": (KFoldCV(k=5, random_state=seed), Grid(n_points=5), RBF()),
        "GD": (platt, GradientDescent(), RBF()),
        "GD aniso": (platt, GradientDescent(), AnisotropicRBF(n_features=n_features)),
        "GD aniso untied": (
            platt,
            GradientDescent(tie_widths=False),
            AnisotropicRBF(n_features=n_features),
        ),
        "GD no restarts": (platt, GradientDescent(restarts=0), RBF()),
        "GD centre start": (
            platt,
            GradientDescent(restarts=0, bounds=WHOLE, start=CENTRE),
            RBF(),
        ),
    }


def run_one(objective, tuner, kernel, Xtr, ytr, Xte, yte) -> dict[str, float]:  # type: ignore[no-untyped-def]
    cpu0 = time.process_time()
    res = tuner.tune(objective, Xtr, ytr, kernel=kernel, random_state=0)
    cpu = time.process_time() - cpu0
    # the plain SVM's sign at the same parameters (what Platt's error predicted with before
    # its classifier took the sigmoid's threshold)
    p = res.best_params
    svm = SVC(C=p.get("C", 1.0), kernel=kernel, kernel_params={n: p[n] for n in kernel.space.names})
    return {
        "test_error": 100.0 * float(res.best_classifier.error(Xte, yte)),
        "svm_sign_error": 100.0 * float(np.mean(svm.fit(Xtr, ytr).predict(Xte) != yte)),
        "cpu_s": cpu,
        "evals": float(res.n_evaluations),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--splits", type=int, default=10)
    args = ap.parse_args()
    rows = []
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # warm-up: numba compilation out of the timings
        Xw, yw, Xv, yv = fischetti_split(*load("heart"), 0)
        for obj, tuner, kernel in methods(0, Xw.shape[1]).values():
            run_one(obj, tuner, kernel, Xw[:40], yw[:40], Xv, yv)
        for name in args.datasets:
            X, y = load(name)
            for split in range(args.splits):
                Xtr, ytr, Xte, yte = fischetti_split(X, y, split)
                for mname, (obj, tuner, kernel) in methods(split, Xtr.shape[1]).items():
                    out = run_one(obj, tuner, kernel, Xtr, ytr, Xte, yte)
                    rows.append({"dataset": name, "split": split, "method": mname, **out})
                print(f"{name} split {split} done", flush=True)
    df = pd.DataFrame(rows)
    cols = ["test_error", "svm_sign_error", "cpu_s", "evals"]
    per = df.groupby(["dataset", "method"], sort=False)[cols].mean()
    grid_cpu = per.xs("grid CV", level="method")["cpu_s"]
    per["cpu_vs_grid"] = per["cpu_s"] / grid_cpu.reindex(per.index.get_level_values(0)).to_numpy()
    pd.set_option("display.width", 140)
    print(per.round(3).to_string())
    overall = df.groupby("method", sort=False)[cols].mean()
    overall["cpu_vs_grid"] = overall["cpu_s"] / overall.loc["grid CV", "cpu_s"]
    overall["error_vs_grid"] = overall["test_error"] - overall.loc["grid CV", "test_error"]
    print(f"\nmean over {len(args.datasets)} data sets x {args.splits} splits:")
    print(overall.round(3).to_string())
    print(f"(np {np.__version__}; CPU seconds of this process, one BLAS thread)")


if __name__ == "__main__":
    main()
