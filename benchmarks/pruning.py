"""Fold-level pruning: TPE on 5-fold CV with and without an Optuna pruner, 25 trials each.

On the data sets of the Fischetti study (``studies/fischetti2016.py``; Fischetti's random 70/30
splits, the study's split seeds), each split is tuned by ``TPE(max_evals=25)`` over (C, gamma)
of the RBF SVM on ``KFoldCV(k=5)``, once without a pruner and once with each pruner asked for
(default: Optuna's ``SuccessiveHalvingPruner()`` and ``HyperbandPruner()``), the same tuner
seed for all. ``KFoldCV`` reports its running error after each fold, so a pruned trial stops
after one or a few folds; it counts as one of the 25 trials.

It prints, per method, the totals over all runs of the tuning cost (kernel evaluations, SMO
iterations, CPU seconds of this process: the same machine, one after another), each as a ratio
to unpruned TPE's, the share of pruned trials, and the mean test error of the tuned SVMs
(percent) with its difference to unpruned TPE's.

An evaluation with a pruner computes kernel rows on demand, shared by its folds (``KFoldCV``),
so a pruned trial pays for the rows its folds touched; ``TPE+NopPruner`` (never prunes) shows
what the rows alone change against the unpruned TPE's one Gram matrix per trial. The column
``pruned trial / n^2`` is the kernel entries of a pruned trial as a share of the Gram matrix.

    python benchmarks/pruning.py                                 # 9 sets x 3 splits
    python benchmarks/pruning.py --datasets heart sonar --splits 2
    python benchmarks/pruning.py --pruners sha hyperband median
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
from threadpoolctl import threadpool_limits

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.study import load_study, split_seed
from svmtune.tuners import TPE

#: The Fischetti study's data sets (bundled names) and seed: the same splits as its cells.
FISCHETTI = load_study(Path(__file__).resolve().parents[1] / "studies" / "fischetti2016.py")
DATASETS = [str(v) for v in FISCHETTI.datasets.values()]
STUDY_SEED = FISCHETTI.seed
TRIALS = 25

PRUNERS = {
    "sha": ("TPE+SuccessiveHalving", optuna.pruners.SuccessiveHalvingPruner),
    "hyperband": ("TPE+Hyperband", optuna.pruners.HyperbandPruner),
    "median": ("TPE+Median", optuna.pruners.MedianPruner),
    # never prunes, but evaluates fold by fold on kernel rows: what the rows alone save
    "nop": ("TPE+NopPruner", optuna.pruners.NopPruner),
}


def run(datasets: list[str], n_splits: int, pruners: list[str]) -> pd.DataFrame:
    methods: dict[str, type | None] = {"TPE": None}
    methods.update({PRUNERS[p][0]: PRUNERS[p][1] for p in pruners})
    rows = []
    for name in datasets:
        X, y = load(name)
        for i in range(n_splits):
            Xtr, ytr, Xte, yte = fischetti_split(X, y, split_seed(STUDY_SEED, name, i))
            for method, pruner in methods.items():
                tuner = TPE(max_evals=TRIALS, pruner=None if pruner is None else pruner())
                cpu0 = time.process_time()
                res = tuner.tune(KFoldCV(k=5), Xtr, ytr, kernel=RBF(), random_state=i)
                cpu = time.process_time() - cpu0
                test = float(np.mean(res.best_classifier.predict(Xte) != yte))
                gone = res.trace["status"] == "pruned"
                rows.append(
                    {
                        "dataset": name,
                        "split": i,
                        "method": method,
                        "kernel_evals": res.total_cost.kernel_evals,
                        "iterations": res.total_cost.iterations,
                        "cpu_s": cpu,
                        "pruned": int(gone.sum()),
                        # kernel entries of the pruned trials, in Gram matrices (n^2 each)
                        "pruned_grams": res.trace.loc[gone, "kernel_evals"].sum() / len(ytr) ** 2,
                        "test_error": 100 * test,
                    }
                )
            print(f"  {name} split {i} done", flush=True)
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby("method", sort=False)
    out = g[["kernel_evals", "iterations", "cpu_s"]].sum()
    base = out.loc["TPE"]
    for c in ["kernel_evals", "iterations", "cpu_s"]:
        out[f"{c} ratio"] = out[c] / base[c]
    out["pruned %"] = 100 * g["pruned"].sum() / (g.size() * TRIALS)
    # what a pruned trial cost, as a share of one Gram matrix (1.0: the shared-Gram path)
    out["pruned trial / n^2"] = g["pruned_grams"].sum() / g["pruned"].sum()
    out["test error %"] = g["test_error"].mean()
    out["vs TPE (points)"] = out["test error %"] - out.loc["TPE", "test error %"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument(
        "--pruners", nargs="+", default=["nop", "sha", "hyperband"], choices=list(PRUNERS)
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    with threadpool_limits(limits=1, user_api="blas"):
        df = run(args.datasets, args.splits, args.pruners)
    runs = len(args.datasets) * args.splits
    print(f"\n{runs} runs ({len(args.datasets)} data sets x {args.splits} splits), {TRIALS} trials")
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(summary(df).to_string())


if __name__ == "__main__":
    main()
