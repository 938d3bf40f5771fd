"""svmtune's SMO against libsvm (scikit-learn's SVC), and the HINGE baseline against GridSearchCV.

Comparisons in this process, CPU seconds (``time.process_time``); parts 1-4 with one BLAS thread:

1. ``fit``: one training at the same C, gamma (default ``1 / n_features``), tol and cache size
   (``SVC(cache_size=...)`` = our ``memory_budget``) on the benchmark sets: the
   training parts of Fischetti's standardized 70/30 split (seed 0) of heart, sonar, ionosphere,
   wdbc, pima and german, and banana, ringnorm, twonorm, titanic and splice at Ratsch's training
   sizes (``ratsch_split``, seed 0). Prints per set the best-of-``--repeats`` CPU time of
   ``svmtune.SVC.fit`` and of ``sklearn.svm.SVC.fit`` (interleaved, so both see the same load),
   their ratio (ours / libsvm), iterations, support vectors, the two dual objective values
   ``1/2 a'Qa - e'a``, our kernel evaluations, and the median ratio.
2. ``sizes``: the same single fit on larger draws of the Ratsch sets (standardized, up to 5,000
   points: ``--sizes``), where a fit no longer fits in cache and libsvm's on-demand rows and
   shrinking matter; per (set, n) the ratio, and the median.
3. ``limit``: every (data set, n, C) of ``--limit-sets`` x ``--sizes`` x ``--Cs`` (default
   banana and twonorm, real, and ``gauss10``, a generated 10-feature mixture with overlapping
   classes; n = 500, 2,000, 5,000; C = 1, 100, 1e4; gamma = 1 / d): per row both solvers' CPU
   seconds (median of ``--repeats``, interleaved), their ratio, both iteration counts and
   whether our solve converged; then the median and worst ratio and the fits that ended on
   ``max_iter``.
4. ``grid``: the HINGE baseline of Fischetti (2016): ``KFoldCV(k=5)`` + ``Grid(n_points=5)``
   (25 settings of C and gamma, 5 folds, then the final classifier) against
   ``GridSearchCV(SVC(), same grid, cv=the same folds)`` with its refit. Prints the times, their
   ratio, the chosen parameters, the CV errors and the test errors, and the SMO iterations our
   run needed with alpha seeding and without it.

5. ``real``, ``kfold`` and ``passes`` (in ``benchmarks/smo_real.py``, not part of ``all``): real
   data sets at 2,000-20,000 points and C = 1, 100, 1e4 with the machine's default BLAS threads
   and with one, CPU and wall ratios against libsvm; one-shot ``KFoldCV(k=5)`` against
   ``cross_val_score(SVC)``; microseconds an SMO iteration beside libsvm's, C = 1 to 1e4, on
   real sets the solver was not tuned on. SMO itself limits BLAS to one thread while its loop
   runs.

libsvm is single-threaded, and on a busy two-core machine a multi-threaded BLAS slows small
matrix products down by an order of magnitude, hence one BLAS thread (``--blas-threads``). The
numba compile/load cost is paid by a warm-up fit before timing. The script prints; it asserts
nothing. On a machine shared with other jobs the ratios move by 10-30% between runs (both
sides are timed alternately, best of the repeats).

    python benchmarks/smo.py                          # all parts (~2-4 minutes)
    python benchmarks/smo.py --part fit --repeats 20
    python benchmarks/smo.py --part sizes --sizes 2000 5000 --datasets banana twonorm
    python benchmarks/smo.py --part limit --repeats 3           # ~10-20 minutes
    python benchmarks/smo.py --part real                        # ~30-60 minutes
    python benchmarks/smo.py --part kfold --Cs 1 100
    python benchmarks/smo.py --part passes                      # ~5-10 minutes
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC as LibSVC
from smo_data import draw, gauss10
from threadpoolctl import threadpool_limits

from svmtune import SVC
from svmtune.datasets import Split, fischetti_split, load, ratsch_split
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET
from svmtune.tuners import Grid

FISCHETTI_SETS = ["heart", "sonar", "ionosphere", "wdbc", "pima", "german"]
RATSCH_SETS = ["banana", "ringnorm", "twonorm", "titanic", "splice"]
FIT_SETS = FISCHETTI_SETS + RATSCH_SETS
GRID_SETS = ["heart", "sonar", "wdbc", "german", "banana"]
SIZES = [1000, 2000, 5000]
LIMIT_SETS = ["banana", "twonorm", "gauss10"]
LIMIT_SIZES = [500, 2000, 5000]
LIMIT_CS = [1.0, 100.0, 1e4]


def split(name: str, seed: int, banana_rows: int | None = None) -> Split:
    """Ratsch's split for the Ratsch sets, else Fischetti's (banana subsampled if asked)."""
    if name in RATSCH_SETS and banana_rows is None:
        return ratsch_split("ring" if name == "ringnorm" else name, seed)
    X, y = load(name)
    if name == "banana" and banana_rows is not None and X.shape[0] > banana_rows:
        idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], banana_rows, replace=False))
        X, y = X[idx], y[idx]
    return fischetti_split(X, y, seed=seed)


def cpu_time(fn: Callable[[], object]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def dual_objective(alpha_y: np.ndarray, X: np.ndarray, gamma: float) -> float:
    """``1/2 a'Qa - e'a`` from ``alpha_i y_i`` (``e'a = sum |alpha_i y_i|``), blockwise."""
    sv = np.flatnonzero(alpha_y)
    K = RBF().gram({"gamma": gamma}, X[sv])
    a = alpha_y[sv]
    return float(0.5 * a @ K @ a - np.abs(a).sum())


def fit_row(name: str, X: np.ndarray, y: np.ndarray, C: float, gamma: float | None, tol: float,
            repeats: int) -> dict[str, object]:  # fmt: skip
    g = 1.0 / X.shape[1] if gamma is None else gamma
    ours = SVC(C=C, kernel_params={"gamma": g}, tol=tol, memory_budget=DEFAULT_MEMORY_BUDGET)
    lib = LibSVC(C=C, gamma=g, tol=tol, cache_size=DEFAULT_MEMORY_BUDGET / 2**20)
    ours.fit(X, y)  # warm-up (numba cache load)
    lib.fit(X, y)
    t_ours = t_lib = np.inf
    for _ in range(repeats):  # interleaved, so both see the same machine load
        t_ours = min(t_ours, cpu_time(lambda: ours.fit(X, y)))
        t_lib = min(t_lib, cpu_time(lambda: lib.fit(X, y)))
    a_ours = np.zeros(y.size)
    a_ours[ours.support_] = ours.dual_coef_[0]
    a_lib = np.zeros(y.size)
    a_lib[lib.support_] = lib.dual_coef_[0]
    obj_ours, obj_lib = dual_objective(a_ours, X, g), dual_objective(a_lib, X, g)
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
        "kevals_per_n2": ours.kernel_evals_ / y.size**2,
        "dual_ours": obj_ours,
        "dual_libsvm": obj_lib,
        "dual_rel_diff": abs(obj_ours - obj_lib) / abs(obj_lib),
    }


def limit_row(name: str, X: np.ndarray, y: np.ndarray, C: float, tol: float,
              repeats: int) -> dict[str, object]:  # fmt: skip
    """Both fits, median CPU seconds of ``repeats`` interleaved runs (no warm-up: main pays
    numba's load once)."""
    g = 1.0 / X.shape[1]
    ours = SVC(C=C, kernel_params={"gamma": g}, tol=tol, memory_budget=DEFAULT_MEMORY_BUDGET)
    lib = LibSVC(C=C, gamma=g, tol=tol, cache_size=DEFAULT_MEMORY_BUDGET / 2**20)
    t_ours, t_lib = [], []
    for _ in range(repeats):
        t_ours.append(cpu_time(lambda: ours.fit(X, y)))
        t_lib.append(cpu_time(lambda: lib.fit(X, y)))
    mo, ml = float(np.median(t_ours)), float(np.median(t_lib))
    return {
        "data": name,
        "n": y.size,
        "d": X.shape[1],
        "C": C,
        "gamma": round(g, 4),
        "ours_s": mo,
        "libsvm_s": ml,
        "ratio": mo / ml,
        "iter_ours": ours.n_iter_,
        "iter_libsvm": int(lib.n_iter_[0]),
        "us_per_iter_ours": 1e6 * mo / max(ours.n_iter_, 1),
        "us_per_iter_libsvm": 1e6 * ml / max(int(lib.n_iter_[0]), 1),
        "converged": bool(ours.converged_),
        "sv_ours": ours.support_.size,
        "sv_libsvm": lib.support_.size,
    }


def print_ratios(title: str, rows: list[dict[str, object]]) -> None:
    df = pd.DataFrame(rows)
    print(f"\n== {title} ==")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(
        f"time ratio ours/libsvm: median {df.ratio.median():.2f}, "
        f"min {df.ratio.min():.2f}, max {df.ratio.max():.2f} over {len(df)} fits"
    )


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
        t0 = time.process_time()
        res = ours()
        t_ours = min(t_ours, time.process_time() - t0)
        t0 = time.process_time()
        gs = peer()
        t_lib = min(t_lib, time.process_time() - t0)
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
    parts = ["fit", "sizes", "limit", "grid", "real", "kfold", "passes", "all"]
    ap.add_argument("--part", choices=parts, default="all")
    ap.add_argument("--datasets", nargs="+", default=None, help="default: the part's sets")
    ap.add_argument("--sizes", nargs="+", type=int, default=None, help="default: the part's")
    ap.add_argument("--Cs", nargs="+", type=float, default=None, help="default: the part's C")
    ap.add_argument("--limit-sets", nargs="+", default=LIMIT_SETS)
    ap.add_argument("--real-sets", nargs="+", default=None, help="default: the part's sets")
    ap.add_argument("--threads", nargs="+", type=int, default=[0, 1],
                    help="BLAS threads of the real part (0: the machine's default)")  # fmt: skip
    ap.add_argument("--seed", type=int, default=0, help="split seed")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--gamma", type=float, default=None, help="default 1 / n_features")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--repeats", type=int, default=None, help="default 10 (fit), 3 (sizes, grid)")
    ap.add_argument("--banana-rows", type=int, default=400, help="banana rows in the grid part")
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args(argv)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    head = f"C={args.C:g}, tol={args.tol:g}, CPU time, {args.blas_threads} BLAS thread(s)"
    if args.part in ("real", "kfold", "passes"):  # their own thread settings; not in "all"
        import smo_real  # the real-data parts; both take their data from smo_data.py

        getattr(smo_real, f"{args.part}_part")(args)
        return
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        if args.part in ("fit", "all"):
            rows = []
            for name in args.datasets or FIT_SETS:
                X, y, _, _ = split(name, args.seed)
                rows.append(fit_row(name, X, y, args.C, args.gamma, args.tol, args.repeats or 10))
            print_ratios(f"one fit: svmtune.SVC vs libsvm on the benchmark sets ({head})", rows)
        if args.part in ("sizes", "all"):
            rows = []
            for name in args.datasets or RATSCH_SETS:
                for n in args.sizes or SIZES:
                    drawn = draw(name, n, args.seed)
                    if drawn is not None:
                        rows.append(
                            fit_row(name, *drawn, args.C, args.gamma, args.tol, args.repeats or 3)
                        )
            top = max(args.sizes or SIZES)
            print_ratios(f"one fit on larger draws, up to {top} points ({head})", rows)
        if args.part in ("limit", "all"):
            SVC().fit(*gauss10(600, 0))  # load the compiled loop once
            rows = []
            for name in args.limit_sets:
                for n in args.sizes or LIMIT_SIZES:
                    drawn = draw(name, n, args.seed)
                    if drawn is None:
                        continue
                    for C in args.Cs or LIMIT_CS:
                        row = limit_row(name, *drawn, C, args.tol, args.repeats or 3)
                        print(
                            " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                     for k, v in row.items()),
                            flush=True,
                        )  # fmt: skip
                        rows.append(row)
            df = pd.DataFrame(rows)
            lim = f"tol={args.tol:g}, gamma = 1/d, CPU time, median of {args.repeats or 3}"
            print_ratios(f"one fit per (data set, n, C) ({lim}, {args.blas_threads} BLAS)", rows)
            stuck = df[~df.converged]
            print(
                f"ended on max_iter: {len(stuck)} of {len(df)} fits"
                + ("" if stuck.empty else f" ({stuck[['data', 'n', 'C']].to_dict('records')})")
            )
        if args.part in ("grid", "all"):
            data = {n: split(n, args.seed, args.banana_rows) for n in args.datasets or GRID_SETS}
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
