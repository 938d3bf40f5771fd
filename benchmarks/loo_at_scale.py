"""How accurate Fischetti's LOO routes are at scale: LOO_2 / LOO_3 + bisection on 2,000 to 30,000
training points, against the Bayes error and a 5-fold CV grid.

Fischetti's LOO estimates ("Fast training of support vector machines with Gaussian kernel",
Fischetti 2016) tune ``gamma`` alone by bisection and predict with a kernel expansion, at a
fraction of k-fold CV's cost. How good the answer is at the sizes where that cost matters was not
measured; at about 13,000 points of letter the bisection over its default bracket [0.01, 1]
ended at the bracket's top edge. This script measures, per problem and training size:

- ``loo2 bracket`` / ``loo3 bracket``: :class:`~svmtune.tuners.Bisection` with its defaults
  (``gamma`` in [0.01, 1], linear scale, ``tol=0.01``);
- ``loo2 box`` / ``loo3 box``: the bisection the benchmarks run, over the benchmarks' whole box
  (``gamma`` in [0.001, 10], log scale, ``tol=0.05``);
- ``cv grid``: 5-fold CV on the benchmarks' 5 x 5 grid of ``(C, gamma)`` (``C`` in [0.1, 1000],
  log-spaced), predicting with the hinge SVM refit on all training points; run only up to
  ``--grid-max`` training points (its cost grows about as n^2: at 8,000 points it needs many
  CPU minutes on one core).

Problems: Breiman's generators (:func:`svmtune.datasets.generate`; Breiman 1996, "Bias,
variance and arcing classifiers") twonorm, ringnorm and waveform at each ``--sizes`` training
size, tested on 10,000 fresh points (another seed), with their Bayes errors; and bundled real
sets (``--real``) split by Fischetti's protocol (70 % to training, standardized), whole.

Printed per run: the ``gamma`` found (and ``C`` for the grid), ``at_edge`` (the bracket's edge
the bisection ended at, if any), the test error in percent, the excess over the Bayes error
(generated problems), the evaluations and the process CPU seconds of the tuning (including the
final classifier; one process: on a loaded machine CPU seconds are orders of magnitude). Test
errors do not depend on the machine beyond round-off. Nothing is asserted.

    python benchmarks/loo_at_scale.py                                   # about 15-30 CPU min
    python benchmarks/loo_at_scale.py --sizes 2000 8000 --real letter-halves --grid-max 0
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from svmtune.datasets import GENERATORS, fischetti_split, generate, load, standardize
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.tuners import Bisection, BracketEdgeWarning, Grid

#: The benchmarks' box (studies/benchmark.py, studies/benchmark_large.py).
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}
#: Bayes errors in percent, as :data:`svmtune.datasets.GENERATORS` gives them (twonorm exact,
#: ringnorm the likelihood-ratio rule's measured error; waveform's binary task has none).
BAYES = {name: g.bayes_error for name, g in GENERATORS.items()}
GENERATED = ("twonorm", "ringnorm", "waveform")
SIZES = (2000, 8000, 30000)
REAL = ("ring", "penbased-eo", "letter-halves")
TEST_POINTS = 10_000


def _problems(sizes, real):
    """``(name, n_train, X_train, y_train, X_test, y_test)`` for each problem."""
    for name in GENERATED:
        for n in sizes:
            X, y = generate(name, n=n, seed=n)
            Xt, yt = generate(name, n=TEST_POINTS, seed=10**6 + n)
            s = standardize(X, Xt)
            yield name, n, s.X_train, y, s.X_test, yt
    for name in real:
        Xtr, ytr, Xte, yte = fischetti_split(*load(name)[:2], seed=0)
        yield name, len(ytr), Xtr, ytr, Xte, yte


def _methods(n: int, grid_max: int):
    box = RBF(gamma_bounds=BOX["gamma"])
    for model in ("loo2", "loo3"):
        obj = LOOEstimate(model=model)
        yield f"{model} bracket", obj, Bisection(), RBF()
        b = Bisection(low=BOX["gamma"][0], high=BOX["gamma"][1], log=True, tol=0.05)
        yield f"{model} box", obj, b, box
    if n <= grid_max:
        yield "cv grid", KFoldCV(k=5), Grid(n_points=5, bounds=BOX), box


def run_one(method, objective, tuner, kernel, X, y, Xt, yt) -> dict[str, object]:
    """Tune, then test the classifier the objective estimated."""
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BracketEdgeWarning)
        res = tuner.tune(objective, X, y, kernel=kernel, random_state=0)
    pred = res.best_classifier.predict(Xt)
    cpu = time.process_time() - t0
    return {
        "method": method,
        "gamma": res.best_params.get("gamma"),
        "C": res.best_params.get("C", np.nan),
        "at_edge": ",".join(f"{k}:{v}" for k, v in res.at_edge.items()) or "-",
        "test_error_pct": 100.0 * float(np.mean(pred != yt)),
        "evals": len(res.trace),
        "cpu_s": cpu,
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    p.add_argument("--real", nargs="*", default=list(REAL))
    p.add_argument("--grid-max", type=int, default=2000, help="largest n_train for the CV grid")
    args = p.parse_args(argv)
    rows = []
    for name, n, X, y, Xt, yt in _problems(args.sizes, args.real):
        for method, obj, tuner, kernel in _methods(n, args.grid_max):
            row = {"problem": name, "n_train": n}
            row.update(run_one(method, obj, tuner, kernel, X, y, Xt, yt))
            row["excess_pct"] = row["test_error_pct"] - BAYES.get(name, np.nan)
            rows.append(row)
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()), flush=True)  # fmt: skip
    df = pd.DataFrame(rows)
    print("\n== LOO routes at scale: test error % (excess over Bayes), gamma, at_edge ==")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    piv = df.pivot_table(index=["problem", "n_train"], columns="method", values="test_error_pct")
    print("\n== test error % by method ==")
    print(piv.to_string(float_format=lambda v: f"{v:.2f}"))
    return df


if __name__ == "__main__":
    main()
