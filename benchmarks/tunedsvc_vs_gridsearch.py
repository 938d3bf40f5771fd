"""TunedSVC's default search against GridSearchCV on the same grid and folds, at 5,000+ points.

Per bundled real data set (a binary task, at least 5,000 training points available) and
training size ``n``: the training part of Fischetti's split (seed 1; features standardized
with its statistics), ``n`` of its points drawn at random (seed 0), then

- ``TunedSVC().fit(X, y)``: 5-fold CV (``KFoldCV(k=5)``) on the 5 x 5 log grid of ``(C, gamma)``
  (``C`` in 0.1..1000, ``gamma`` in 0.001..10) over an RBF kernel, and the refit;
- ``GridSearchCV(sklearn.svm.SVC(), the same 5 x 5 grid, cv=TunedSVC's folds)``: 125 fits on
  the very folds TunedSVC cross-validated on (``cv_folds_``, indices into the rows given to
  ``fit``), and the refit,

one after the other in one process (a warm-up fit of each on 200 points first, untimed). Prints
per (set, n) the process CPU seconds of each, their ratio (TunedSVC / GridSearchCV), whether the
chosen setting is the same, TunedSVC's SMO iterations and kernel entries (counts, the same on
every machine), then the geometric mean of the ratios::

    python benchmarks/tunedsvc_vs_gridsearch.py                      # 5,000 points, 4 sets
    python benchmarks/tunedsvc_vs_gridsearch.py --sets letter-halves --sizes 10000
    python benchmarks/tunedsvc_vs_gridsearch.py --memory-budget-mib 512   # the Gram path at 5,000

CPU seconds are this machine's (default BLAS threads, as a user runs both); on a machine shared
with other work they move by some 10 %, the counts do not. GridSearchCV's 125 fits take about
1-2 CPU minutes at 5,000 points and 4-5 at 10,000.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from svmtune import TunedSVC
from svmtune.datasets import fischetti_split, load
from svmtune.objectives import KFoldCV

SETS = ["twonorm", "ring", "penbased-eo", "letter-halves"]
#: TunedSVC()'s grid (Grid(n_points=5) over the default box), given to GridSearchCV too.
GRID = {"C": np.geomspace(0.1, 1000.0, 5).tolist(), "gamma": np.geomspace(0.001, 10.0, 5).tolist()}


def sample(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points of the standardized training part of ``name`` (Fischetti's split, seed 1)."""
    X, y = load(name)
    Xtr, ytr, _, _ = fischetti_split(X, y, seed=1)
    if n > ytr.size:
        raise ValueError(f"{name} has {ytr.size} training points, fewer than n={n}")
    idx = np.sort(np.random.default_rng(0).choice(ytr.size, n, replace=False))
    return np.ascontiguousarray(Xtr[idx]), ytr[idx]


def compare(X: np.ndarray, y: np.ndarray, budget: int | None = None) -> dict[str, float]:
    """CPU seconds of TunedSVC() (its k-fold objective given ``budget`` bytes, if any) and of
    GridSearchCV on its folds, its counts, the choices."""
    objective = None if budget is None else KFoldCV(k=5, memory_budget=budget)
    t0 = time.process_time()
    tuned = TunedSVC(objective=objective).fit(X, y)
    cpu_tuned = time.process_time() - t0
    t0 = time.process_time()
    search = GridSearchCV(SVC(), GRID, cv=tuned.cv_folds_).fit(X, y)
    cpu_search = time.process_time() - t0
    chosen = {k: float(v) for k, v in tuned.best_params_.items()}
    same = all(np.isclose(chosen[k], float(search.best_params_[k])) for k in GRID)
    trace = tuned.trace_
    return {
        "tuned": cpu_tuned,
        "search": cpu_search,
        "same": same,
        "iterations": int(trace["iterations"].sum()),
        "kernel_evals": int(trace["kernel_evals"].sum()),
        "C": chosen["C"],
        "gamma": chosen["gamma"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=SETS)
    parser.add_argument("--sizes", nargs="*", type=int, default=[5000])
    parser.add_argument(
        "--memory-budget-mib",
        type=int,
        default=None,
        help="KFoldCV's memory_budget (default its own)",
    )
    args = parser.parse_args()
    budget = None if args.memory_budget_mib is None else args.memory_budget_mib * 2**20
    Xw, yw = sample(args.sets[0], 200)
    compare(Xw, yw)  # compile and import everything before any timing
    print(
        f"{'set':14s} {'n':>6s} {'TunedSVC s':>10s} {'GridSCV s':>10s} {'ratio':>6s} "
        f"{'same':>5s} {'iterations':>11s} {'kernel evals':>13s}  chosen (C, gamma)"
    )
    ratios = []
    for n in args.sizes:
        for name in args.sets:
            r = compare(*sample(name, n), budget)
            ratios.append(r["tuned"] / r["search"])
            print(
                f"{name:14s} {n:6d} {r['tuned']:10.1f} {r['search']:10.1f} {ratios[-1]:6.2f} "
                f"{'yes' if r['same'] else 'NO':>5s} {r['iterations']:11d} "
                f"{r['kernel_evals']:13.3e}  ({r['C']:g}, {r['gamma']:g})",
                flush=True,
            )
    geo = float(np.exp(np.mean(np.log(ratios))))
    print(f"TunedSVC / GridSearchCV CPU over {len(ratios)} runs: geometric mean {geo:.2f}")


if __name__ == "__main__":
    main()
