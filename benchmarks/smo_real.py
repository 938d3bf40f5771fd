"""The real-data parts of ``benchmarks/smo.py`` (run through it: ``--part real``, ``--part kfold``).

``real``: one fit of svmtune's SVC and of libsvm (scikit-learn's SVC) per (real data set, n, C):
penbased (even/odd digits), ring, twonorm, banana, letter (A-M against N-Z) and spambase (not
used while tuning the solver) at n = 2,000-20,000 points (as many as the set has), C = 1, 100,
1e4, gamma = 1/d on standardized data, tol 1e-3, the same cache size; with the machine's
default BLAS threads and with one (``--threads``). Per fit the CPU and wall seconds (best of
``--repeats`` pairs, default 1, the pair's order alternating), the CPU ratio ours / libsvm (the
median of the pairs' ratios; ``cpu_ratio_best`` the ratio of the bests) and the wall ratio,
iterations, support vectors and the relative difference of the dual objectives; then per
thread setting the median and worst ratios.

``passes``: microseconds an SMO iteration, ours and libsvm's (``SVC`` with the same tol, cache
and shrinking), with and without shrinking, default threads, on real sets the solver was not
tuned on (letter A-M/N-Z, spambase, optdigits even/odd, page-blocks0) at 2,000 and 5,000 points
and C = 1, 10, 100, 1e3, 1e4: per fit both iteration counts, both times an iteration and their
ratio (best of ``--repeats``, default 3, interleaved); then the median and worst ratio per
shrinking setting, over all C and over C >= 100.

``kfold``: one-shot ``KFoldCV(k=5)`` (a fresh binding, one evaluation: its folds start cold)
against ``cross_val_score(SVC)`` on the same folds, at n = 2,000-10,000, default threads.

    python benchmarks/smo.py --part real                    # ~30-60 minutes on a loaded machine
    python benchmarks/smo.py --part kfold --Cs 1 100
    python benchmarks/smo.py --part passes                  # ~5-10 minutes
    python benchmarks/smo.py --part passes --real-sets penbased-eo --Cs 10000
"""

from __future__ import annotations

import argparse
import gzip
import time
from collections.abc import Callable
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC as LibSVC
from smo_data import draw, gauss10
from threadpoolctl import threadpool_limits

from svmtune import SVC
from svmtune.datasets import standardize
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.solvers import SMO
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET

REAL_SETS = ["penbased-eo", "ring", "twonorm", "banana", "letter-am", "spambase"]
REAL_SIZES = [2000, 5000, 10000, 20000]
REAL_CS = [1.0, 100.0, 1e4]
KFOLD_SIZES = [2000, 5000, 10000]
#: real sets the solver's loop was not tuned on
PASSES_SETS = ["letter-am", "spambase", "optdigits-eo", "page-blocks0"]
PASSES_SIZES = [2000, 5000]
PASSES_CS = [1.0, 10.0, 100.0, 1e3, 1e4]


def letter_am() -> tuple[np.ndarray, np.ndarray]:
    """KEEL's letter (20,000 points, 16 features) as a binary task, letters A-M (+1) against
    N-Z (-1): read from the package's data folder (the file is bundled, not yet a task)."""
    path = resources.files("svmtune.datasets").joinpath("data", "letter.dat.gz")
    with gzip.open(str(path), "rt") as fh:
        raw = np.array([line.strip().split(",") for line in fh if line.strip()])
    return raw[:, :-1].astype(float), np.where(raw[:, -1] <= "M", 1.0, -1.0)


def real_draw(name: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``n`` points of a real set (None when it has fewer), standardized."""
    if name != "letter-am":
        return draw(name, n, seed)
    X, y = letter_am()
    if X.shape[0] < n:
        return None
    idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))
    return standardize(X[idx], X[idx][:1])[0], y[idx]


def times(fn: Callable[[], object]) -> tuple[float, float]:
    """CPU and wall seconds of one call."""
    t0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - t0, time.perf_counter() - w0


def dual_blocked(alpha_y: np.ndarray, X: np.ndarray, gamma: float) -> float:
    """:func:`dual_objective` by blocks of 2,000 support vectors (no SV x SV matrix at once)."""
    sv = np.flatnonzero(alpha_y)
    a, Xs, quad = alpha_y[sv], X[sv], 0.0
    for lo in range(0, sv.size, 2000):
        K = RBF().gram({"gamma": gamma}, Xs[lo : lo + 2000], Xs)
        quad += float(a[lo : lo + 2000] @ (K @ a))
    return 0.5 * quad - float(np.abs(a).sum())


def real_row(name: str, X: np.ndarray, y: np.ndarray, C: float, tol: float, repeats: int,
             threads: list[int]) -> list[dict[str, object]]:  # fmt: skip
    """Both fits with each BLAS thread setting (0: the machine's default): best CPU (and its
    wall time) of ``repeats`` pairs of runs each, the pair's order alternating; ``cpu_ratio``
    the median of the pairs' ratios (the run second in a pair is favoured, and the best of
    each side can come from different pairs), ``cpu_ratio_best`` the ratio of the bests."""
    g = 1.0 / X.shape[1]
    ours = SVC(C=C, kernel_params={"gamma": g}, tol=tol, memory_budget=DEFAULT_MEMORY_BUDGET)
    lib = LibSVC(C=C, gamma=g, tol=tol, cache_size=DEFAULT_MEMORY_BUDGET / 2**20)
    out = []
    for nt in threads:
        with threadpool_limits(limits=nt or None, user_api="blas"):
            best_o = best_l = (np.inf, np.inf)
            ratios = []
            for rep in range(repeats):
                if rep % 2:  # LIBSVM first in every other pair
                    t_l = times(lambda: lib.fit(X, y))
                    t_o = times(lambda: ours.fit(X, y))
                else:
                    t_o = times(lambda: ours.fit(X, y))
                    t_l = times(lambda: lib.fit(X, y))
                best_o, best_l = min(best_o, t_o), min(best_l, t_l)
                ratios.append(t_o[0] / t_l[0])
        out.append({
            "data": name, "n": y.size, "d": X.shape[1], "C": C,
            "blas": nt or "default",
            "ours_cpu": best_o[0], "libsvm_cpu": best_l[0],
            "cpu_ratio": float(np.median(ratios)), "cpu_ratio_best": best_o[0] / best_l[0],
            "ours_wall": best_o[1], "libsvm_wall": best_l[1], "wall_ratio": best_o[1] / best_l[1],
            "iter_ours": ours.n_iter_, "iter_libsvm": int(lib.n_iter_[0]),
            "sv_ours": ours.support_.size, "sv_libsvm": lib.support_.size,
        })  # fmt: skip
    a_o, a_l = np.zeros(y.size), np.zeros(y.size)
    a_o[ours.support_] = ours.dual_coef_[0]
    a_l[lib.support_] = lib.dual_coef_[0]
    d_o, d_l = dual_blocked(a_o, X, g), dual_blocked(a_l, X, g)
    for row in out:
        row["dual_rel_diff"] = (d_o - d_l) / abs(d_l)
    return out


def real_part(args: argparse.Namespace) -> None:
    SVC().fit(*gauss10(600, 0))  # load the compiled loop once
    rows = []
    for name in args.real_sets or REAL_SETS:
        for n in args.sizes or REAL_SIZES:
            drawn = real_draw(name, n, args.seed)
            if drawn is None:
                continue
            for C in args.Cs or REAL_CS:
                for row in real_row(name, *drawn, C, args.tol, args.repeats or 1, args.threads):
                    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                   for k, v in row.items()), flush=True)  # fmt: skip
                    rows.append(row)
    df = pd.DataFrame(rows)
    print(f"\n== one fit per (real data set, n, C): tol={args.tol:g}, gamma = 1/d, "
          f"{args.repeats or 1} pairs in alternating order: cpu_ratio the median of the "
          f"pairs' ratios ==")  # fmt: skip
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for blas, part in df.groupby("blas", sort=False):
        print(
            f"BLAS threads {blas}: CPU ratio ours/libsvm median {part.cpu_ratio.median():.2f}, "
            f"worst {part.cpu_ratio.max():.2f}; wall ratio median {part.wall_ratio.median():.2f}, "
            f"worst {part.wall_ratio.max():.2f} over {len(part)} fits"
        )


def passes_row(name: str, X: np.ndarray, y: np.ndarray, C: float, shrinking: bool,
               tol: float, repeats: int) -> dict[str, object]:  # fmt: skip
    """One (set, n, C, shrinking): both solvers' best CPU of ``repeats`` interleaved runs."""
    g = 1.0 / X.shape[1]
    solver = SMO(tol=tol, shrinking=shrinking, memory_budget=DEFAULT_MEMORY_BUDGET)
    lib = LibSVC(C=C, gamma=g, tol=tol, cache_size=DEFAULT_MEMORY_BUDGET / 2**20,
                 shrinking=shrinking)  # fmt: skip
    kw = {"C": C, "kernel": RBF(), "params": {"gamma": g}, "X": X}
    res = solver.solve(y, **kw)  # warm-up
    t_o = t_l = np.inf
    for _ in range(repeats):
        t_o = min(t_o, times(lambda: solver.solve(y, **kw))[0])
        t_l = min(t_l, times(lambda: lib.fit(X, y))[0])
    it_l = int(lib.n_iter_[0])
    us_o, us_l = 1e6 * t_o / res.iterations, 1e6 * t_l / it_l
    return {
        "data": name, "n": y.size, "C": C, "shrinking": shrinking,
        "iter_ours": res.iterations, "iter_libsvm": it_l,
        "us_it_ours": us_o, "us_it_libsvm": us_l, "it_ratio": us_o / us_l,
        "cpu_ratio": t_o / t_l,
    }  # fmt: skip


def passes_part(args: argparse.Namespace) -> None:
    """Microseconds an iteration of SMO and of libsvm, with and without shrinking (without,
    every iteration passes over all points: the cost of the passes themselves)."""
    SVC().fit(*gauss10(600, 0))  # load the compiled loop once
    rows = []
    for name in args.real_sets or PASSES_SETS:
        for n in args.sizes or PASSES_SIZES:
            drawn = real_draw(name, n, args.seed)
            if drawn is None:
                continue
            for C in args.Cs or PASSES_CS:
                for shrinking in (True, False):
                    row = passes_row(name, *drawn, C, shrinking, args.tol, args.repeats or 3)
                    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                   for k, v in row.items()), flush=True)  # fmt: skip
                    rows.append(row)
    df = pd.DataFrame(rows)
    print(f"\n== microseconds an SMO iteration, ours and libsvm's: tol={args.tol:g}, gamma = 1/d, "
          f"default threads, best of {args.repeats or 3} ==")  # fmt: skip
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for shrinking, part in df.groupby("shrinking", sort=False):
        big = part[part.C >= 100]
        print(
            f"shrinking={shrinking}: time an iteration ours/libsvm median "
            f"{part.it_ratio.median():.2f}, worst {part.it_ratio.max():.2f} over {len(part)} fits "
            f"(C >= 100: median {big.it_ratio.median():.2f}, worst {big.it_ratio.max():.2f}); "
            f"CPU ratio median {part.cpu_ratio.median():.2f}, worst {part.cpu_ratio.max():.2f}"
        )


def kfold_row(name: str, X: np.ndarray, y: np.ndarray, C: float, folds: list, tol: float,
              repeats: int) -> dict[str, object]:  # fmt: skip
    g = 1.0 / X.shape[1]
    params = {"C": C, "gamma": g}

    def ours() -> float:
        return KFoldCV(k=5, tol=tol).bind(X, y, kernel=RBF()).evaluate(params).value

    def peer() -> float:
        scores = cross_val_score(LibSVC(C=C, gamma=g, tol=tol), X, y, cv=folds)
        return 1.0 - float(np.mean(scores))

    ours(), peer()  # warm-up
    t_o = t_l = (np.inf, np.inf)
    for _ in range(repeats):  # interleaved
        t_o = min(t_o, times(ours))
        t_l = min(t_l, times(peer))
    return {
        "data": name, "n": y.size, "C": C, "ours_cpu": t_o[0], "sklearn_cpu": t_l[0],
        "cpu_ratio": t_o[0] / t_l[0], "wall_ratio": t_o[1] / t_l[1],
        "err_ours": ours(), "err_sklearn": peer(),
    }  # fmt: skip


def kfold_part(args: argparse.Namespace) -> None:
    """One-shot ``KFoldCV(k=5)`` (a fresh binding, one evaluation) against
    ``cross_val_score(SVC)`` on the same folds, best CPU of ``--repeats`` interleaved runs."""
    rows = []
    for name in args.real_sets or REAL_SETS:
        for n in args.sizes or KFOLD_SIZES:
            drawn = real_draw(name, n, args.seed)
            if drawn is None:
                continue
            X, y = drawn
            folds = KFoldCV(k=5).bind(X, y, kernel=RBF()).folds
            for C in args.Cs:
                rows.append(kfold_row(name, X, y, C, folds, args.tol, args.repeats or 2))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    print("\n== one-shot KFoldCV(k=5) vs cross_val_score(SVC), same folds (default threads) ==")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(
        f"CPU ratio median {df.cpu_ratio.median():.2f}, worst {df.cpu_ratio.max():.2f}; "
        f"wall ratio median {df.wall_ratio.median():.2f}, worst {df.wall_ratio.max():.2f}"
    )
