"""What PlattError's warm start saves, and what it costs in order-independence.

``PlattError(warm_start=True)`` starts each SMO solve from the previous evaluation's ``alpha``;
the default (``warm_start=False``) starts every solve from ``alpha = 0``. Two parts:

- cost: ``GradientDescent()`` and ``IncrementalGradient()`` (their defaults) tune
  ``PlattError`` over an RBF kernel on the training part of ``ratsch_split(name, seed=0)``,
  once with each start (``random_state=0``); prints the evaluations, SMO iterations and
  kernel entries the trace bills, and the iterations per evaluation (the two runs may take
  different paths);
- order: on ``--problems`` random problems (classes of 3 to 14 points, 1 to 3 features, up to
  3 points duplicated, as ``tests/objectives/test_seeded_values.py`` draws them), a walk of 8
  evaluations (4 settings, C in [1e-3, 1e4] and gamma in [1e-3, 1e3] log-uniform, 4 of them
  repeated, shuffled) on one bound objective, each value compared with a fresh bind's: prints
  how many values differ at all and by more than 1e-6, at ``tol=1e-10``;
- an example: ten 1-d points (one duplicated in both classes) at ``C = 1``, ``gamma = 0.01``,
  warm-started from ``gamma = 1`` and cold, at ``tol=1e-10``: the values, the SMO iterations
  and the sigmoids' slopes ``A`` (the validation decisions spread over about ``1 / |A|``)::

    python benchmarks/platt_warm_start.py
    python benchmarks/platt_warm_start.py --datasets heart --problems 50

Counts only (no timings): they are the same on every machine.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF
from svmtune.objectives import PlattError
from svmtune.tuners import GradientDescent, IncrementalGradient


def cost(name: str) -> None:
    Xtr, ytr, _, _ = ratsch_split(name, seed=0)
    for tuner in (GradientDescent(), IncrementalGradient()):
        for warm in (False, True):
            res = tuner.tune(PlattError(warm_start=warm), Xtr, ytr, kernel=RBF(), random_state=0)
            tr = res.trace
            its, kev = int(tr["iterations"].sum()), int(tr["kernel_evals"].sum())
            print(
                f"{name:8s} {type(tuner).__name__:20s} {'warm' if warm else 'cold':5s} "
                f"{len(tr):6d} {its:10d} {kev:12d} {its / len(tr):10.1f}"
            )


def problem(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n_pos = int(rng.integers(3, 15))
    n_neg = n_pos if rng.random() < 0.5 else int(rng.integers(3, 15))
    X = rng.normal(size=(n_pos + n_neg, int(rng.integers(1, 4))))
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    X[y > 0] += rng.uniform(0.0, 2.0)
    for _ in range(int(rng.integers(0, 4))):
        i, j = rng.integers(0, y.size, 2)
        X[j] = X[i]
    return X, y


def order(n_problems: int, tol: float) -> None:
    for warm in (False, True):
        differ = far = total = 0
        for seed in range(n_problems):
            rng = np.random.default_rng(seed)
            X, y = problem(rng)
            settings = [
                {"C": 10.0 ** rng.uniform(-3, 4), "gamma": 10.0 ** rng.uniform(-3, 3)}
                for _ in range(4)
            ]
            walk = settings + [settings[i] for i in rng.integers(0, 4, 4)]
            rng.shuffle(walk)  # type: ignore[arg-type]
            bound = PlattError(tol=tol, warm_start=warm).bind(X, y, kernel=RBF())
            for params in walk:
                walked = bound.evaluate(params).value
                fresh = PlattError(tol=tol).bind(X, y, kernel=RBF()).evaluate(params).value
                total += 1
                differ += walked != fresh
                far += abs(walked - fresh) > 1e-6
        print(
            f"{'warm' if warm else 'cold':5s} tol={tol:g}: {differ} of {total} values differ "
            f"from a fresh bind's, {far} by more than 1e-6"
        )


def example() -> None:
    X = np.array([-0.082, 1.557, 1.546, -0.588, -1.638, -0.07, -1.916, -0.168, -0.016, 1.546])
    y = np.r_[np.ones(3), -np.ones(7)]
    target = {"C": 1.0, "gamma": 0.01}
    warm = PlattError(tol=1e-10, warm_start=True).bind(X[:, None], y, kernel=RBF())
    warm.evaluate({"C": 1.0, "gamma": 1.0})
    cold = PlattError(tol=1e-10).bind(X[:, None], y, kernel=RBF())
    ev_w, ev_c = warm.evaluate(target), cold.evaluate(target)
    print(
        f"1-d example: warm {ev_w.value:.5f} ({ev_w.cost.iterations} iterations, "
        f"A = {ev_w.info['A']:.3g}), cold {ev_c.value:.5f} ({ev_c.cost.iterations} iterations, "
        f"A = {ev_c.info['A']:.3g})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["heart", "banana"])
    parser.add_argument("--problems", type=int, default=100)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # sigmoid fits on near-constant decisions warn
    print(
        f"{'data':8s} {'tuner':20s} {'start':5s} {'evals':>6s} {'iterations':>10s} "
        f"{'kernel':>12s} {'it/eval':>10s}"
    )
    for name in args.datasets:
        cost(name)
    order(args.problems, 1e-10)
    example()


if __name__ == "__main__":
    main()
