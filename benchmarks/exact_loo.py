"""Exact leave-one-out error: svmtune's ExactLOO against retraining once per point.

Four ways to the same number, in this process, on the same data, C and kernel:

- ``franc``: ``exact_loo(stopping="franc")`` (sufficiency checks, alpha-seeded retrains stopped
  as soon as Franc et al.'s bound certifies the left-out sign);
- ``kkt``: ``exact_loo(stopping="kkt")`` (the same, stopped by the eps-KKT gap only: the paper's
  standard approach);
- ``scratch``: our SMO retrained from alpha = 0 without each point, over the same Gram matrix;
- ``sklearn``: scikit-learn's LeaveOneOut loop, ``SVC(C, kernel, tol).fit`` on all but one point
  and ``predict`` on it, once per point (what ``cross_val_score(..., cv=LeaveOneOut())`` does).

Data: the training part of ``fischetti_split`` seed 0 for heart, sonar, ionosphere, wdbc, pima,
german, and Ratsch's training sizes (``ratsch_split`` seed 0) for banana, ringnorm, twonorm,
titanic, splice. RBF with gamma = 1/d and the linear kernel. Our times include computing the
Gram matrix. CPU seconds of this process, one BLAS thread (threadpoolctl); the numba
compile/load cost is paid by a warm-up first. Columns (the paper's Table 3 with scikit-learn
added): the four LOO errors; time ratios sklearn/franc, scratch/franc, kkt/franc; the kernel-row
ratio kkt/franc (kernel columns read, the paper's KerEval); Prec % (retrains certified early);
which stop the efficiency test kept. The script prints; it asserts nothing.

    python benchmarks/exact_loo.py                               # everything (~5-10 min)
    python benchmarks/exact_loo.py --datasets german --kernels rbf
    python benchmarks/exact_loo.py --franc-study                 # at the tuned parameters

``--franc-study`` times the RBF kernel on the data sets of ``studies/franc2008.py`` (Ratsch's
realization ``--seed``), each at the (C, gamma) that minimises the exact LOO error over that
study's grid (C = 10^(i/7 log10 500), gamma = 2^(-11 i/7), i = 0..7), the setting a user of the
study ends up evaluating most.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.svm import SVC as LibSVC
from threadpoolctl import threadpool_limits

from svmtune.datasets import Split, fischetti_split, load, ratsch_split
from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, decision_from_gradient, exact_loo

FISCHETTI = ["heart", "sonar", "ionosphere", "wdbc", "pima", "german"]
RATSCH = ["banana", "ringnorm", "twonorm", "titanic", "splice"]
FRANC_STUDY = [
    "banana", "breast-cancer", "diabetis", "german", "heart", "ringnorm", "thyroid", "titanic",
    "twonorm",
]  # fmt: skip
FRANC_GRID_C = [float(10 ** (i / 7 * np.log10(500))) for i in range(8)]
FRANC_GRID_GAMMA = [float(2.0 ** (-11 * i / 7)) for i in range(8)]


def tuned_rbf(split: Split) -> tuple[float, float]:
    """The (C, gamma) of the Franc study's RBF grid with the lowest exact LOO error."""
    X, y = split.X_train, split.y_train
    prepared = RBF().prepare(X)
    best = (np.inf, 0.0, 0.0)
    for gamma in FRANC_GRID_GAMMA:
        K = prepared.gram({"gamma": gamma})
        for C in FRANC_GRID_C:
            err = exact_loo(y, C=C, gram=K).error
            if err < best[0]:
                best = (err, C, gamma)
    return best[1], best[2]


def data(name: str, seed: int, ratsch: bool = False) -> Split:
    if ratsch or name in RATSCH:
        return ratsch_split(name, seed)
    X, y = load(name)
    return fischetti_split(X, y, seed=seed)


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def row(
    name: str,
    kernel: str,
    split: Split,
    C: float,
    tol: float,
    skip_sklearn: bool,
    gamma: float | None = None,
) -> dict:
    X, y = split.X_train, split.y_train
    n, d = X.shape
    gamma = 1.0 / d if gamma is None else gamma
    model = RBF() if kernel == "rbf" else Linear()
    kp = {"gamma": gamma} if kernel == "rbf" else {}

    def ours(stopping: str):
        K = model.prepare(X).gram(kp)
        return exact_loo(y, C=C, gram=K, stopping=stopping, tol=tol)

    def scratch():
        K = model.prepare(X).gram(kp)
        solver = SMO(tol=tol)
        everyone = np.arange(n)
        wrong = 0
        for r in range(n):
            res = solver.solve(y, C=C, gram=K, active=everyone[everyone != r])
            f = decision_from_gradient(res.gradient[r : r + 1], y[r : r + 1], res.b)[0]
            wrong += int((1.0 if f >= 0 else -1.0) != y[r])
        return wrong / n

    def sklearn():
        wrong = 0
        everyone = np.arange(n)
        svc = (
            LibSVC(C=C, kernel="rbf", gamma=gamma, tol=tol)
            if kernel == "rbf"
            else LibSVC(C=C, kernel="linear", tol=tol)
        )
        for r in range(n):
            keep = everyone != r
            svc.fit(X[keep], y[keep])
            wrong += int(svc.predict(X[r : r + 1])[0] != y[r])
        return wrong / n

    t_f, franc = cpu(lambda: ours("franc"))
    t_k, kkt = cpu(lambda: ours("kkt"))
    t_s, err_s = cpu(scratch)
    t_l, err_l = (np.nan, np.nan) if skip_sklearn else cpu(sklearn)
    return {
        "data": name,
        "kernel": kernel,
        "n": n,
        "C": C,
        "gamma": gamma if kernel == "rbf" else np.nan,
        "err_franc": franc.error,
        "err_kkt": kkt.error,
        "err_scratch": err_s,
        "err_sklearn": err_l,
        "franc_s": t_f,
        "sklearn/franc": t_l / t_f,
        "scratch/franc": t_s / t_f,
        "kkt/franc": t_k / t_f,
        "rows kkt/franc": kkt.counts["kernel_rows"] / franc.counts["kernel_rows"],
        "prec%": franc.counts["prec_percent"],
        "used": franc.stopping_used,
        "retrained": franc.counts["retrained"],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=FISCHETTI + RATSCH)
    ap.add_argument("--kernels", nargs="+", choices=["rbf", "linear"], default=["rbf", "linear"])
    ap.add_argument("--C", type=float, default=1.0, help="C of the RBF runs")
    ap.add_argument("--C-linear", type=float, default=0.1, help="C of the linear runs")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--blas-threads", type=int, default=1)
    ap.add_argument(
        "--franc-study",
        action="store_true",
        help="RBF on the Franc study's sets, at the (C, gamma) its grid selects",
    )
    args = ap.parse_args(argv)
    if args.franc_study:
        args.datasets, args.kernels = FRANC_STUDY, ["rbf"]
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        warm = data("heart", 0)
        exact_loo(warm.y_train, C=1.0, gram=RBF().prepare(warm.X_train).gram({"gamma": 0.1}))
        rows = []
        for name in args.datasets:
            split = data(name, args.seed, ratsch=args.franc_study)
            for kernel in args.kernels:
                C = args.C if kernel == "rbf" else args.C_linear
                gamma = None
                if args.franc_study:
                    C, gamma = tuned_rbf(split)
                rows.append(row(name, kernel, split, C, args.tol, args.skip_sklearn, gamma))
                print(
                    pd.DataFrame(rows[-1:]).to_string(
                        index=False, header=len(rows) == 1, float_format=lambda v: f"{v:.4g}"
                    ),
                    flush=True,
                )
    df = pd.DataFrame(rows)
    print(
        f"\n== exact LOO (tol={args.tol:g}): ours (franc, kkt, scratch) vs sklearn LeaveOneOut =="
    )
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for kernel, part in df.groupby("kernel"):
        print(
            f"{kernel}: sklearn/franc min {part['sklearn/franc'].min():.1f}, "
            f"median {part['sklearn/franc'].median():.1f}; kkt/franc time median "
            f"{part['kkt/franc'].median():.2f}, kernel rows median "
            f"{part['rows kkt/franc'].median():.2f} (min {part['rows kkt/franc'].min():.2f})"
        )


if __name__ == "__main__":
    main()
