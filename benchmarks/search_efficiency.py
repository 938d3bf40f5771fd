"""Search efficiency: evaluations VNS, NestedVNS, TPE and random search need to reach a grid.

On each Ratsch data set (first split, 5-fold CV error of the RBF SVM, Carrizosa et al. 2014's
box ``log2 C in [-8, 2]``, ``log2 gamma in [-8, 8]``), a 10 x 10 grid (log-spaced over the box,
100 evaluations) sets the target: its lowest CV error. Every search then runs with a budget of
100 evaluations, for ``--seeds`` seeds, and we count the evaluations until its best-so-far CV
error is at most the grid's. The goal: at most a third of the grid's evaluations.

- VNS: Algorithm 1, step 0.5, k_max 25, start (C, gamma) = (2^-3, 1) as in the paper.
- NestedVNS: RBF (50 evaluations, from the same start) then the anisotropic RBF (50), the
  box's gamma bounds for every width; it reaches the target in level 1 or level 2.
- TPE: Optuna's multivariate TPE (10 random start-up trials); RandomSearch: log-uniform draws.

``--small``: the small budgets of a fair comparison. On the Carrizosa study's data sets
(``studies/carrizosa2014.py``: 11 Ratsch sets), for each seed s (Ratsch split s, tuner seed s),
a 54-point grid (6 x 9, log-spaced over the default box ``svmtune.tuners.DEFAULT_BOX``) sets
the 5-fold CV value to reach, and every search gets 18 evaluations:

- ``VNS`` and ``TPE``: the defaults, ``VNS(max_evals=18)`` and ``TPE(max_evals=18)`` (the
  default box; TPE multivariate with 5 start-up trials, a quarter of the budget);
- ``TPE 10 startup``, ``TPE univariate``: Optuna's own defaults, one at a time;
- ``VNS whole space``, ``TPE whole space``: the defaults in the objective's whole space
  (C 1e-3..1e5, gamma 1e-5..1e5), what every tuner but the grid searched before the default
  box.

It prints each method's mean gap to the grid's CV value (percentage points; goal <= 1).

    python benchmarks/search_efficiency.py
    python benchmarks/search_efficiency.py --datasets heart banana --seeds 3
    python benchmarks/search_efficiency.py --small                       # 11 sets x 3 seeds
    python benchmarks/search_efficiency.py --small --datasets heart diabetis --seeds 2
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import KFoldCV
from svmtune.tuners import DEFAULT_BOX, TPE, VNS, Grid, NestedVNS, RandomSearch

DATASETS = ["banana", "breast-cancer", "diabetis", "heart", "thyroid"]
BOX = {"C": (2.0**-8, 2.0**2), "gamma": (2.0**-8, 2.0**8)}
START = {"C": 2.0**-3, "gamma": 1.0}
BUDGET = 100


def searches(n_features: int) -> dict[str, tuple[object, object]]:
    """name -> (tuner, kernel model)."""
    return {
        "VNS": (VNS(max_evals=BUDGET, step=0.5, bounds=BOX, start=START), RBF()),
        "NestedVNS": (
            NestedVNS(m=(50, 50), step=0.5, bounds={"C": BOX["C"]}, start=START),
            AnisotropicRBF(n_features=n_features, gamma_bounds=BOX["gamma"]),
        ),
        "TPE": (TPE(max_evals=BUDGET, bounds=BOX), RBF()),
        "Random": (RandomSearch(max_evals=BUDGET, bounds=BOX), RBF()),
    }


#: the Carrizosa study's data sets (studies/carrizosa2014.py)
CARRIZOSA = [
    "banana",
    "diabetis",
    "image",
    "splice",
    "ringnorm",
    "twonorm",
    "german",
    "heart",
    "thyroid",
    "titanic",
    "breast-cancer",
]
SMALL_BUDGET = 18
WHOLE = {"C": (1e-3, 1e5), "gamma": (1e-5, 1e5)}


def small_searches() -> dict[str, object]:
    """name -> tuner, each with 18 evaluations."""
    b = SMALL_BUDGET
    return {
        "VNS": VNS(max_evals=b),
        "TPE": TPE(max_evals=b),
        "TPE 10 startup": TPE(max_evals=b, n_startup_trials=10),
        "TPE univariate": TPE(max_evals=b, multivariate=False),
        "VNS whole space": VNS(max_evals=b, bounds=WHOLE),
        "TPE whole space": TPE(max_evals=b, bounds=WHOLE),
    }


def small(datasets: list[str], seeds: int) -> None:
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for name in datasets:
            for seed in range(seeds):
                Xtr, ytr, _, _ = ratsch_split(name, seed=seed)
                cv = KFoldCV(k=5, random_state=seed)
                grid = Grid(
                    values={
                        "C": np.geomspace(*DEFAULT_BOX["C"], 6).tolist(),
                        "gamma": np.geomspace(*DEFAULT_BOX["gamma"], 9).tolist(),
                    }
                ).tune(cv, Xtr, ytr, kernel=RBF())
                for method, tuner in small_searches().items():
                    res = tuner.tune(cv, Xtr, ytr, kernel=RBF(), random_state=seed)  # type: ignore[attr-defined]
                    rows.append(
                        {
                            "dataset": name,
                            "seed": seed,
                            "method": method,
                            "gap": 100 * (res.best_value - grid.best_value),
                        }
                    )
                print(f"{name} seed {seed}: 54-point grid {100 * grid.best_value:.2f}%", flush=True)
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 140)
    per = df.pivot_table(index="dataset", columns="method", values="gap", aggfunc="mean")
    print("\nCV error above the 54-point grid's (points), mean over seeds:")
    print(per[list(small_searches())].round(2).to_string())
    print(f"\nmean over {len(datasets)} data sets x {seeds} seeds (goal <= 1 point):")
    print(df.groupby("method", sort=False)["gap"].mean().round(2).to_string())


def evals_to_reach(best_so_far: pd.Series, target: float) -> float:
    """1-based index of the first evaluation whose best-so-far value is <= target (NaN if none)."""
    hit = np.flatnonzero(best_so_far.to_numpy() <= target + 1e-12)
    return float(hit[0] + 1) if hit.size else math.nan


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--small", action="store_true", help="18 evaluations against a 54-point grid")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.small:
        small(args.datasets or CARRIZOSA, args.seeds or 3)
        return
    args.datasets = args.datasets or DATASETS
    args.seeds = args.seeds or 5
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for name in args.datasets:
            Xtr, ytr, _, _ = ratsch_split(name, seed=0)
            cv = KFoldCV(k=5)
            grid = Grid(
                values={
                    "C": np.geomspace(*BOX["C"], 10).tolist(),
                    "gamma": np.geomspace(*BOX["gamma"], 10).tolist(),
                }
            ).tune(cv, Xtr, ytr, kernel=RBF())
            target = grid.best_value
            print(f"{name}: n={len(ytr)}, 10x10 grid CV error {100 * target:.2f}%", flush=True)
            for method, (tuner, kernel) in searches(Xtr.shape[1]).items():
                for seed in range(args.seeds):
                    res = tuner.tune(cv, Xtr, ytr, kernel=kernel, random_state=seed)  # type: ignore[attr-defined]
                    rows.append(
                        {
                            "dataset": name,
                            "method": method,
                            "seed": seed,
                            "grid_cv": target,
                            "best_cv": res.best_value,
                            "evals": evals_to_reach(res.trace["best_value"], target),
                        }
                    )
    df = pd.DataFrame(rows)
    df["reached"] = df["evals"].notna()
    per = df.groupby(["dataset", "method"]).agg(
        median_evals=("evals", "median"),
        reached=("reached", "sum"),
        runs=("reached", "size"),
        mean_best_cv=("best_cv", "mean"),
    )
    pd.set_option("display.width", 120)
    print("\nEvaluations to reach the 10x10 grid's CV error (median over seeds that reached it;")
    print(f"budget {BUDGET}; reached = runs out of {args.seeds} that reached it within the budget)")
    print(per.round(4).to_string())
    # Unreached runs count as the full budget + 1 in the overall median (a lower bound).
    df["evals_or_budget"] = df["evals"].fillna(BUDGET + 1)
    overall = df.groupby("method").agg(
        median_evals=("evals_or_budget", "median"),
        reached=("reached", "mean"),
    )
    overall["ratio_to_grid"] = overall["median_evals"] / 100
    print("\nOver all data sets and seeds (unreached counted as 101):")
    print(overall.round(3).to_string())
    print("goal: ratio_to_grid <= 0.333")


if __name__ == "__main__":
    main()
