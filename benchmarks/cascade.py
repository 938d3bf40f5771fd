"""Cascade: a cheap screen, then 5-fold CV only around its answer, against the 5 x 5 CV grid.

On the data sets of the Fischetti study (``studies/fischetti2016.py``; Fischetti's random 70/30
splits, the study's split seeds), each split is tuned over (C, gamma) of the RBF SVM in the
default box (C in 0.1..1000, gamma in 0.001..10) by:

- ``CV grid 5x5``: ``Grid(n_points=5)`` on ``KFoldCV(k=5)``, the baseline (25 evaluations);
- ``Cascade``: ``Cascade()`` on ``KFoldCV(k=5)``: 5-fold CV on a stratified quarter of the data
  on a 4 x 4 grid of the box, then 3 full evaluations by VNS within half a decade (a factor
  ``sqrt(10)``) of its best point;
- ``Cascade LOO_2``: ``Cascade(screen="loo2")``: gamma by bisection on Fischetti's LOO_2, then
  the same refine stage (C over the whole box);
- ``Cascade +grid 3x3``: the subsample screen, then a 3 x 3 grid over the neighbourhood;
- ``Cascade 5x5 screen``: the subsample screen on the grid's own 5 x 5 points, then the same
  refine stage as ``Cascade``;
- cheap peers with about Cascade's cost: ``VNS(max_evals=5)`` and ``TPE(max_evals=5)`` on 5-fold
  CV, and Fischetti's LOO_2 by bisection (``LOOEstimate`` + ``Bisection()``, the paper's
  method: its own kernel-expansion classifier, no C);
- scikit-learn's multi-fidelity search, ``HalvingGridSearchCV(SVC(), 5 x 5 grid, cv=5)``
  (successive halving on data); libsvm does not count kernel evaluations, so it has CPU seconds
  only and is on the CPU front alone.

It prints, per method, the mean test error (percent) over all runs, its difference to the grid,
the totals of kernel evaluations, SMO iterations and CPU seconds of this process (one run after
another in one process), each as a ratio to the grid's, then whether ``Cascade`` is within 0.5
point of the grid at no more than a fifth of its kernel evaluations, and which methods lie on
the Pareto fronts of mean test error against total kernel evaluations and against CPU seconds.

    python benchmarks/cascade.py                              # 9 sets x 10 splits
    python benchmarks/cascade.py --datasets heart sonar --splits 2
    python benchmarks/cascade.py --variants --seed 2017 --splits 5   # how the defaults were chosen
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate, Objective
from svmtune.study import load_study, split_seed
from svmtune.tuners import TPE, VNS, Bisection, Cascade, Grid, Tuner

#: The Fischetti study's data sets (bundled names) and seed: the same splits as its cells.
FISCHETTI = load_study(Path(__file__).resolve().parents[1] / "studies" / "fischetti2016.py")
DATASETS = [str(v) for v in FISCHETTI.datasets.values()]
STUDY_SEED = FISCHETTI.seed
BASELINE = "CV grid 5x5"
TARGET_POINTS = 0.5  # test-error points from the grid
TARGET_COST = 0.2  # share of the grid's kernel evaluations
HALVING = "HalvingGridSearchCV 5x5"
BOX = {"C": (1e-1, 1e3), "gamma": (1e-3, 1e1)}  # the default box
GRID = {k: np.geomspace(lo, hi, 5).tolist() for k, (lo, hi) in BOX.items()}

METHODS: dict[str, Callable[[], tuple[Objective, Tuner]]] = {
    BASELINE: lambda: (KFoldCV(k=5), Grid(n_points=5)),
    "Cascade": lambda: (KFoldCV(k=5), Cascade()),
    "Cascade LOO_2": lambda: (KFoldCV(k=5), Cascade(screen="loo2")),
    "Cascade +grid 3x3": lambda: (KFoldCV(k=5), Cascade(refine=Grid(n_points=3))),
    "Cascade 5x5 screen": lambda: (KFoldCV(k=5), Cascade(screen_points=5)),
    "CV VNS 5": lambda: (KFoldCV(k=5), VNS(max_evals=5)),
    "CV TPE 5": lambda: (KFoldCV(k=5), TPE(max_evals=5)),
    "LOO_2 bisection": lambda: (LOOEstimate(model="loo2"), Bisection()),
}

#: ``--variants``: the settings the defaults were chosen from (on other splits: ``--seed 2017``).
VARIANTS: dict[str, Callable[[], tuple[Objective, Tuner]]] = {
    "5x5 screen, radius 1, VNS 3": lambda: (
        KFoldCV(k=5),
        Cascade(screen_points=5, radius=1.0),
    ),
    "5x5 screen, radius 1.66, VNS 3": lambda: (KFoldCV(k=5), Cascade(screen_points=5)),
    "4x4 screen, radius 1.66, VNS 3 (default)": lambda: (KFoldCV(k=5), Cascade()),
    "4x4 screen, radius 1.66, VNS 4": lambda: (
        KFoldCV(k=5),
        Cascade(refine=VNS(max_evals=4, step=0.83, k_max=2)),
    ),
    "4x4 screen, radius 1.66, TPE 3": lambda: (KFoldCV(k=5), Cascade(refine=TPE(max_evals=3))),
    "3x3 screen, radius 2, VNS 4": lambda: (
        KFoldCV(k=5),
        Cascade(screen_points=3, radius=2.0, refine=VNS(max_evals=4, step=1.0, k_max=2)),
    ),
}


def run(
    datasets: list[str], n_splits: int, methods: list[str], seed: int = STUDY_SEED
) -> pd.DataFrame:
    every = {**METHODS, **VARIANTS}
    rows = []
    for name in datasets:
        X, y = load(name)
        for i in range(n_splits):
            Xtr, ytr, Xte, yte = fischetti_split(X, y, split_seed(seed, name, i))
            for method in methods:
                if method == HALVING:
                    rows.append(_halving(name, i, Xtr, ytr, Xte, yte))
                    continue
                objective, tuner = every[method]()
                cpu0 = time.process_time()
                res = tuner.tune(objective, Xtr, ytr, kernel=RBF(), random_state=i)
                cpu = time.process_time() - cpu0
                t = res.trace
                screen = int(t["kernel_evals"][t["stage"] == "screen"].sum()) if "stage" in t else 0
                rows.append(
                    {
                        "dataset": name,
                        "split": i,
                        "method": method,
                        "n_train": len(ytr),
                        "evaluations": len(res.trace),
                        "kernel_evals": res.total_cost.kernel_evals,
                        "screen_kernel_evals": screen,
                        "iterations": res.total_cost.iterations,
                        "cpu_s": cpu,
                        "test_error": 100 * float(res.best_classifier.error(Xte, yte)),
                    }
                )
            print(f"  {name} split {i} done", flush=True)
    return pd.DataFrame(rows)


def _halving(
    name: str, i: int, Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, yte: np.ndarray
) -> dict[str, object]:
    search = HalvingGridSearchCV(SVC(), GRID, cv=5, random_state=i)
    cpu0 = time.process_time()
    search.fit(Xtr, ytr)
    cpu = time.process_time() - cpu0
    return {
        "dataset": name,
        "split": i,
        "method": HALVING,
        "n_train": len(ytr),
        "evaluations": len(search.cv_results_["params"]),
        "kernel_evals": np.nan,
        "screen_kernel_evals": 0,
        "iterations": np.nan,
        "cpu_s": cpu,
        "test_error": 100 * float(np.mean(search.predict(Xte) != yte)),
    }


def summary(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby("method", sort=False)
    out = g[["kernel_evals", "iterations", "cpu_s"]].sum(min_count=1)
    base = out.loc[BASELINE]
    for c in ["kernel_evals", "iterations", "cpu_s"]:
        out[f"{c} ratio"] = out[c] / base[c]
    out["screen share"] = g["screen_kernel_evals"].sum() / out["kernel_evals"]
    out["test error %"] = g["test_error"].mean()
    out["vs grid (points)"] = out["test error %"] - out.loc[BASELINE, "test error %"]
    counted = out["kernel_evals"].notna()
    out["pareto"] = pareto(out["test error %"][counted], out["kernel_evals"][counted])
    out["pareto"] = out["pareto"].astype(object).where(counted, "-")
    out["pareto CPU"] = pareto(out["test error %"], out["cpu_s"])
    return out


def pareto(error: pd.Series, cost: pd.Series) -> pd.Series:
    """True for the methods no other method beats on both (no worse on both, better on one)."""
    front = {}
    for m in error.index:
        front[m] = not any(
            error[o] <= error[m]
            and cost[o] <= cost[m]
            and (error[o] < error[m] or cost[o] < cost[m])
            for o in error.index
            if o != m
        )
    return pd.Series(front)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--splits", type=int, default=10)
    names = [*METHODS, HALVING]
    ap.add_argument("--methods", nargs="+", default=names, choices=names)
    ap.add_argument("--variants", action="store_true", help="the settings the defaults came from")
    ap.add_argument("--seed", type=int, default=STUDY_SEED, help="split seed (2016: the study's)")
    ap.add_argument("--csv", help="write the per-run rows to this file")
    args = ap.parse_args()
    chosen = ["CV TPE 5", *VARIANTS] if args.variants else args.methods
    methods = [BASELINE] + [m for m in chosen if m != BASELINE]
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    with threadpool_limits(limits=1, user_api="blas"):
        df = run(args.datasets, args.splits, methods, args.seed)
    if args.csv:
        df.to_csv(args.csv, index=False)
    runs = len(args.datasets) * args.splits
    print(f"\n{runs} runs ({len(args.datasets)} data sets x {args.splits} splits), RBF, 5-fold CV")
    table = summary(df)
    with pd.option_context("display.width", 250, "display.float_format", "{:.3f}".format):
        print(table.to_string())
    mine = "Cascade" if "Cascade" in table.index else "4x4 screen, radius 1.66, VNS 3 (default)"
    if mine in table.index:
        c = table.loc[mine]
        ok = c["vs grid (points)"] <= TARGET_POINTS and c["kernel_evals ratio"] <= TARGET_COST
        print(
            f"\nCascade within {TARGET_POINTS} point of the grid ({c['vs grid (points)']:+.2f}) "
            f"at <= {TARGET_COST:.0%} of its kernel evaluations ({c['kernel_evals ratio']:.1%}): "
            f"{'yes' if ok else 'no'}"
        )
        print(f"Cascade on the Pareto front (test error vs kernel evaluations): {c['pareto']}")
    counted_front = table.index[table["pareto"].eq(True)]
    print("Pareto front, kernel evaluations:", ", ".join(counted_front))
    print("Pareto front, CPU seconds:", ", ".join(table.index[table["pareto CPU"]]))


if __name__ == "__main__":
    main()
