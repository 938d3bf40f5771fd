"""svmtune's SMO against libsvm (scikit-learn's SVC), and the HINGE baseline against GridSearchCV.

Two comparisons, both in this process, on Fischetti's standardized 70/30 split of bundled real
data (banana subsampled to ``--banana-rows`` rows before the split):

1. ``fit``: one training at the same C, gamma (default ``1 / n_features``) and tol. Prints the
   best-of-``--repeats`` wall time of ``svmtune.SVC.fit`` and of ``sklearn.svm.SVC.fit``, their
   ratio (ours / libsvm), the iterations, the support-vector counts and the two dual objective
   values ``1/2 a'Qa - e'a``.
2. ``grid``: the HINGE baseline of Fischetti (2016): ``KFoldCV(k=5)`` + ``Grid(n_points=5)``
   (25 settings of C and gamma, 5 folds, then the final classifier) against
   ``GridSearchCV(SVC(), same grid, cv=the same folds)`` with its refit. Prints the times, their
   ratio, the chosen parameters, the CV errors and the test errors, and the SMO iterations our
   run needed with alpha seeding and without it.

Everything runs on one core: BLAS is limited to ``--blas-threads`` threads (default 1; libsvm is
single-threaded, and on a busy two-core machine a multi-threaded BLAS slows small matrix
products down by an order of magnitude). The numba compile/load cost is paid by a warm-up fit
before timing. The script prints; it asserts nothing.

    python benchmarks/smo.py                          # both parts, five sets (~1-2 minutes)
    python benchmarks/smo.py --part fit --datasets heart wdbc --repeats 20
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC as LibSVC
from threadpoolctl import threadpool_limits

from svmtune import SVC
from svmtune.datasets import Split, fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.tuners import Grid

DATASETS = ["heart", "sonar", "wdbc", "german", "banana"]


def split(name: str, seed: int, banana_rows: int) -> Split:
    X, y = load(name)
    if name == "banana" and X.shape[0] > banana_rows:
        idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], banana_rows, replace=False))
        X, y = X[idx], y[idx]
    return fischetti_split(X, y, seed=seed)


def best_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def dual_objective(alpha_y: np.ndarray, K: np.ndarray) -> float:
    """``1/2 a'Qa - e'a`` from ``alpha_i y_i`` (``e'a = sum |alpha_i y_i|``)."""
    return float(0.5 * alpha_y @ K @ alpha_y - np.abs(alpha_y).sum())


def fit_row(name: str, data: Split, C: float, gamma: float | None, tol: float, repeats: int):
    X, y = data.X_train, data.y_train
    g = 1.0 / X.shape[1] if gamma is None else gamma
    ours = SVC(C=C, kernel_params={"gamma": g}, tol=tol)
    lib = LibSVC(C=C, gamma=g, tol=tol)
    ours.fit(X, y)  # warm-up (numba cache load)
    lib.fit(X, y)
    t_ours = t_lib = np.inf
    for _ in range(repeats):  # interleaved, so both see the same machine load
        t_ours = min(t_ours, best_time(lambda: ours.fit(X, y), 1))
        t_lib = min(t_lib, best_time(lambda: lib.fit(X, y), 1))
    K = RBF().gram({"gamma": g}, X)
    a_ours = np.zeros(y.size)
    a_ours[ours.support_] = ours.dual_coef_[0]
    a_lib = np.zeros(y.size)
    a_lib[lib.support_] = lib.dual_coef_[0]
    obj_ours, obj_lib = dual_objective(a_ours, K), dual_objective(a_lib, K)
    return {
        "data": name,
        "n": y.size,
        "d": X.shape[1],
        "gamma": round(g, 5),
        "ours_ms": 1e3 * t_ours,
        "libsvm_ms": 1e3 * t_lib,
        "ratio": t_ours / t_lib,
        "iter_ours": ours.n_iter_,
        "iter_libsvm": int(lib.n_iter_[0]),
        "sv_ours": ours.support_.size,
        "sv_libsvm": lib.support_.size,
        "dual_ours": obj_ours,
        "dual_libsvm": obj_lib,
        "dual_rel_diff": abs(obj_ours - obj_lib) / abs(obj_lib),
    }


def grid_row(name: str, data: Split, tol: float, repeats: int):
    X, y, Xt, yt = data
    grid = Grid(n_points=5)
    kernel = RBF()
    objective = KFoldCV(k=5, tol=tol)
    axes = grid.axes(objective.search_space(kernel))
    folds = objective.bind(X, y, kernel=kernel).folds

    def ours():
        return grid.tune(objective, X, y, kernel=kernel)

    def peer():
        params = {"C": axes["C"], "gamma": axes["gamma"]}
        return GridSearchCV(LibSVC(tol=tol), params, cv=folds, n_jobs=1).fit(X, y)

    res, gs = ours(), peer()  # warm-up
    t_ours = t_lib = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = ours()
        t_ours = min(t_ours, time.perf_counter() - t0)
        t0 = time.perf_counter()
        gs = peer()
        t_lib = min(t_lib, time.perf_counter() - t0)
    cold = grid.tune(KFoldCV(k=5, tol=tol, seeding=False), X, y, kernel=kernel)
    return {
        "data": name,
        "n": y.size,
        "ours_s": t_ours,
        "gridsearchcv_s": t_lib,
        "ratio": t_ours / t_lib,
        "C_ours": res.best_params["C"],
        "gamma_ours": res.best_params["gamma"],
        "C_gscv": gs.best_params_["C"],
        "gamma_gscv": gs.best_params_["gamma"],
        "cv_err_ours": res.best_value,
        "cv_err_gscv": 1.0 - gs.best_score_,
        "test_err_ours": res.best_classifier.error(Xt, yt),
        "test_err_gscv": float(np.mean(gs.predict(Xt) != yt)),
        "iters_seeded": int(res.trace["iterations"].sum()),
        "iters_cold": int(cold.trace["iterations"].sum()),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["fit", "grid", "all"], default="all")
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--seed", type=int, default=0, help="split seed")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--gamma", type=float, default=None, help="default 1 / n_features")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--repeats", type=int, default=None, help="default 10 (fit), 3 (grid)")
    ap.add_argument("--banana-rows", type=int, default=400)
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args(argv)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    data = {name: split(name, args.seed, args.banana_rows) for name in args.datasets}
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        if args.part in ("fit", "all"):
            rows = [
                fit_row(n, d, args.C, args.gamma, args.tol, args.repeats or 10)
                for n, d in data.items()
            ]
            df = pd.DataFrame(rows)
            print(f"\n== one fit: svmtune.SVC vs libsvm (C={args.C:g}, tol={args.tol:g}) ==")
            print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
            print(
                f"time ratio ours/libsvm: median {df.ratio.median():.2f}, max {df.ratio.max():.2f}"
            )
        if args.part in ("grid", "all"):
            rows = [grid_row(n, d, args.tol, args.repeats or 3) for n, d in data.items()]
            df = pd.DataFrame(rows)
            print("\n== HINGE: KFoldCV(k=5) + Grid(5x5) vs GridSearchCV(SVC) on the same folds ==")
            print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
            print(
                f"time ratio ours/GridSearchCV: median {df.ratio.median():.2f}, "
                f"max {df.ratio.max():.2f}; seeding saved "
                f"{100 * (1 - df.iters_seeded.sum() / df.iters_cold.sum()):.0f}% of SMO iterations"
            )


if __name__ == "__main__":
    main()
