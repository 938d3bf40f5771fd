"""Exact leave-one-out error: does ExactLOO equal retraining once per point, everywhere?

Draws random settings over the whole default box, on real bundled data sets: a data set, a
random subset of its standardized training part (``--max-rows`` points, both classes kept
at 3 or more), ``C`` log-uniform in 1e-3..1e5 and the RBF ``gamma`` log-uniform in 1e-5..1e5.
For each, the exact leave-one-out error by ``exact_loo`` (both stopping rules, default
tolerance) is compared point by point with two references computed without any shortcut:

- ``scratch``: svmtune's SMO retrained from alpha = 0 without each point, at a KKT tolerance of
  1e-10 max(1, C max K_ii), the bias the midpoint of the biases minimising the primal (LIBSVM's
  convention at the optimum), a decision within 1e-8 max(1, C max K_ii) of zero a tie (+1);
- ``sklearn``: scikit-learn's ``SVC`` (LIBSVM) fitted without each point at ``tol=1e-8``
  (``max_iter`` 10^7; settings where it stops early are reported, not compared).

It prints one line per setting where anything disagrees, then the counts: settings and points
compared, disagreements with each reference, and the shortcuts taken. It asserts nothing.

    python benchmarks/exact_loo_agreement.py               # 100 settings (~10 min on 2 cores)
    python benchmarks/exact_loo_agreement.py --settings 20 --seed 3
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC
from threadpoolctl import threadpool_limits

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.solvers import SMO, exact_loo

DATASETS = [
    "heart", "sonar", "ionosphere", "wdbc", "pima", "german", "australian", "bupa", "breast",
    "banana", "ringnorm", "twonorm", "titanic", "thyroid", "wisconsin",
]  # fmt: skip


def scratch_decisions(y: np.ndarray, C: float, K: np.ndarray) -> tuple[np.ndarray, bool]:
    """Left-out decisions by SMO from scratch, at a tight tolerance; and whether all converged."""
    n = y.size
    scale = max(1.0, C * float(np.max(np.diag(K))))
    solver = SMO(tol=1e-10 * scale, max_iter=3_000_000, check_kernel=False)
    dec = np.empty(n)
    ok = True
    everyone = np.arange(n)
    for r in range(n):
        act = everyone[everyone != r]
        res = solver.solve(y, C=C, gram=K, active=act)
        ok &= bool(res.converged)
        v = np.sort(-y[act] * res.gradient[act])
        P = int(np.sum(y[act] > 0))
        dec[r] = y[r] * (res.gradient[r] + 1.0) + 0.5 * (v[P - 1] + v[P])
    dec[np.abs(dec) <= 1e-8 * scale] = 0.0
    return dec, ok


def sklearn_decisions(X: np.ndarray, y: np.ndarray, C: float, gamma: float):
    svc = LibSVC(C=C, gamma=gamma, tol=1e-8, max_iter=10_000_000)
    everyone = np.arange(y.size)
    dec = np.empty(y.size)
    ok = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        for r in range(y.size):
            keep = everyone != r
            svc.fit(X[keep], y[keep])
            dec[r] = svc.decision_function(X[r : r + 1])[0]
    ok = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return dec, ok


def draw_setting(rng: np.random.Generator, max_rows: int):
    name = str(rng.choice(DATASETS))
    X, y = load(name)
    split = fischetti_split(X, y, seed=int(rng.integers(10)))
    Xt, yt = split.X_train, split.y_train
    if yt.size > max_rows:
        idx = rng.choice(yt.size, max_rows, replace=False)
        Xt, yt = Xt[idx], yt[idx]
    C = float(10.0 ** rng.uniform(-3, 5))
    gamma = float(10.0 ** rng.uniform(-5, 5))
    return name, Xt, yt, C, gamma


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", type=int, default=100)
    ap.add_argument("--max-rows", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    totals = dict.fromkeys(
        ["settings", "points", "vs_scratch", "vs_sklearn", "sklearn_compared", "retrained",
         "refined", "settled"], 0)  # fmt: skip
    with threadpool_limits(limits=1, user_api="blas"):
        done = 0
        while done < args.settings:
            name, X, y, C, gamma = draw_setting(rng, args.max_rows)
            if min(np.sum(y > 0), np.sum(y < 0)) < 3:
                continue
            done += 1
            K = RBF().prepare(X).gram({"gamma": gamma})
            ref, ok = scratch_decisions(y, C, K)
            lib, lib_ok = sklearn_decisions(X, y, C, gamma)
            truth = np.where(ref >= 0.0, 1.0, -1.0) != y
            lib_wrong = np.where(lib >= 0.0, 1.0, -1.0) != y
            totals["settings"] += 1
            totals["points"] += y.size
            for stopping in ("franc", "kkt"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    res = exact_loo(y, C=C, gram=K, stopping=stopping)
                d_scratch = int(np.sum(res.wrong != truth)) if ok else 0
                d_lib = int(np.sum(res.wrong != lib_wrong)) if lib_ok else 0
                totals["vs_scratch"] += d_scratch
                totals["vs_sklearn"] += d_lib
                totals["sklearn_compared"] += int(lib_ok)
                totals["retrained"] += res.counts["retrained"]
                totals["refined"] += res.counts["refined"]
                totals["settled"] += y.size - res.counts["retrained"]
                if d_scratch or d_lib or not ok:
                    print(
                        f"{name:12s} n={y.size} C={C:.3g} gamma={gamma:.3g} {stopping}: "
                        f"{d_scratch} vs scratch{'' if ok else ' (scratch not converged)'}, "
                        f"{d_lib} vs sklearn{'' if lib_ok else ' (sklearn not converged)'}",
                        flush=True,
                    )
    print(
        f"\n{totals['settings']} settings, {totals['points']} points, each with franc and kkt; "
        f"disagreements with retraining from scratch: {totals['vs_scratch']}; with scikit-learn "
        f"(compared in {totals['sklearn_compared']} of {2 * totals['settings']} runs): "
        f"{totals['vs_sklearn']}"
    )
    print(
        f"points settled without retraining: {totals['settled']}, retrained: "
        f"{totals['retrained']}, of which refined at tighter tolerances: {totals['refined']}"
    )


if __name__ == "__main__":
    main()
