"""Successive halving on data: svmtune's SuccessiveHalving against scikit-learn's
HalvingGridSearchCV, same candidates, same box, side by side in one process.

On the data sets of the Fischetti study (``studies/fischetti2016.py``; Fischetti's random 70/30
splits, the study's split seeds), each split is tuned over (C, gamma) of the RBF SVM by

- ``SuccessiveHalving``: svmtune's, on ``KFoldCV(k=5)`` (its SMO, cold starts);
- ``SuccessiveHalving+carry``: the same with ``carry_seeds=True`` on ``KFoldCV(k=5,
  seeding=True)`` (each rung warm-started from the fold solutions of the rung before, and
  seeded within a rung);
- ``HalvingGridSearchCV``: scikit-learn's, over ``sklearn.svm.SVC`` with 5-fold stratified CV;
- ``Grid``: svmtune's grid on ``KFoldCV(k=5)`` over all the training points, for reference;

every one on the same 25 candidates (the 5 x 5 grid log-spaced over C in [0.1, 1000], gamma in
[0.001, 10]), both halvings with factor 3 and ``min_resources="exhaust"`` (the same schedule:
25, 9 and 3 candidates on growing subsamples). The folds differ: scikit-learn splits all the
points into folds and subsamples each fold, svmtune draws a nested stratified subsample per
rung and splits it into folds; the tuner seed is the split's index for both.

It prints, per method, the mean test error of the tuned SVMs (percent), the total CPU seconds
of this process (one method after the other, one BLAS thread) and their ratio to
HalvingGridSearchCV's, and for svmtune's the kernel evaluations and SMO iterations; then
whether svmtune's SuccessiveHalving is at least as good (mean test error no higher) at lower
CPU cost.

    python benchmarks/halving.py                     # 9 sets x 10 splits
    python benchmarks/halving.py --datasets heart sonar --splits 2
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV, StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.study import load_study, split_seed
from svmtune.tuners import Grid, SuccessiveHalving

#: The Fischetti study's data sets (bundled names) and seed: the same splits as its cells.
FISCHETTI = load_study(Path(__file__).resolve().parents[1] / "studies" / "fischetti2016.py")
DATASETS = [str(v) for v in FISCHETTI.datasets.values()]
STUDY_SEED = FISCHETTI.seed
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}
GRID = {k: np.geomspace(lo, hi, 5).tolist() for k, (lo, hi) in BOX.items()}
BASE = "HalvingGridSearchCV"


def _ours(tuner, Xtr, ytr, Xte, yte, seed: int) -> dict[str, float]:
    # carrying seeds needs an objective that keeps its fold solutions: KFoldCV(seeding=True)
    objective = KFoldCV(k=5, seeding=bool(getattr(tuner, "carry_seeds", False)))
    cpu0 = time.process_time()
    res = tuner.tune(objective, Xtr, ytr, kernel=RBF(gamma_bounds=BOX["gamma"]), random_state=seed)
    cpu = time.process_time() - cpu0
    return {
        "test_error": 100 * float(np.mean(res.best_classifier.predict(Xte) != yte)),
        "cpu_s": cpu,
        "kernel_evals": res.total_cost.kernel_evals,
        "iterations": res.total_cost.iterations,
        "evaluations": len(res.trace),
    }


def _sklearn(Xtr, ytr, Xte, yte, seed: int) -> dict[str, float]:
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    cpu0 = time.process_time()
    search = HalvingGridSearchCV(
        SVC(), GRID, cv=cv, factor=3, min_resources="exhaust", random_state=seed
    ).fit(Xtr, ytr)
    cpu = time.process_time() - cpu0
    return {
        "test_error": 100 * float(np.mean(search.predict(Xte) != yte)),
        "cpu_s": cpu,
        "kernel_evals": np.nan,
        "iterations": np.nan,
        "evaluations": int(sum(search.n_candidates_)),
    }


def run(datasets: list[str], n_splits: int) -> pd.DataFrame:
    methods = {
        "SuccessiveHalving": SuccessiveHalving(values=GRID),
        "SuccessiveHalving+carry": SuccessiveHalving(values=GRID, carry_seeds=True),
        "Grid": Grid(values=GRID),
    }
    rows = []
    for name in datasets:
        X, y = load(name)
        for i in range(n_splits):
            Xtr, ytr, Xte, yte = fischetti_split(X, y, split_seed(STUDY_SEED, name, i))
            out = {m: _ours(t, Xtr, ytr, Xte, yte, i) for m, t in methods.items()}
            out[BASE] = _sklearn(Xtr, ytr, Xte, yte, i)
            for method, row in out.items():
                rows.append({"dataset": name, "split": i, "method": method, **row})
            print(f"  {name} split {i} done", flush=True)
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby("method", sort=False)
    out = g[["test_error"]].mean().rename(columns={"test_error": "test error %"})
    out["vs sklearn (points)"] = out["test error %"] - out.loc[BASE, "test error %"]
    out["cpu_s"] = g["cpu_s"].sum()
    out["cpu ratio"] = out["cpu_s"] / out.loc[BASE, "cpu_s"]
    out["kernel_evals"] = g["kernel_evals"].sum(min_count=1)
    out["iterations"] = g["iterations"].sum(min_count=1)
    out["evaluations/run"] = g["evaluations"].mean()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--splits", type=int, default=10)
    args = ap.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    with threadpool_limits(limits=1, user_api="blas"):
        df = run(args.datasets, args.splits)
    runs = len(args.datasets) * args.splits
    print(f"\n{runs} runs ({len(args.datasets)} data sets x {args.splits} splits), 25 candidates")
    table = summary(df)
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(table.to_string())
    ours, base = table.loc["SuccessiveHalving"], table.loc[BASE]
    good = ours["test error %"] <= base["test error %"]
    cheap = ours["cpu_s"] < base["cpu_s"]
    verdict = "at least as good at lower cost" if good and cheap else "NOT both"
    print(
        f"\nSuccessiveHalving vs {BASE}: mean test error {ours['test error %']:.2f} % vs "
        f"{base['test error %']:.2f} % ({'at least as good' if good else 'worse'}), CPU "
        f"{ours['cpu_s']:.2f} s vs {base['cpu_s']:.2f} s ({ours['cpu ratio']:.2f}x: "
        f"{'lower' if cheap else 'not lower'}): {verdict}"
    )


if __name__ == "__main__":
    main()
