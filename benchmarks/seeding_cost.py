"""What alpha seeding costs once its values are made order-independent: KFoldCV's default.

``KFoldCV(seeding=True)`` starts each fold from the solution at the nearest setting evaluated
before and settles validation decisions near zero (the fold's solve continued at tighter
tolerances) so that its value does not depend on the order of evaluation;
``KFoldCV(seeding=False)``, the default, solves every fold once from ``alpha = 0``. On the
benchmark suite's problems (``svmtune.datasets.SUITE``, Fischetti's split with seed 1, the
training part as a study hands it over), both walk the 5 x 5 grid over the benchmark's box
(``C`` in [0.1, 1000], ``gamma`` in [0.001, 10], log-spaced, C-major as ``Grid`` walks it).
Prints per problem the SMO iterations (settling's included) and the process CPU seconds of
each, their ratios, and how many of the 25 values differ::

    python benchmarks/seeding_cost.py                       # every problem of the suite
    python benchmarks/seeding_cost.py --problems banana titanic heart

Iterations are machine-independent; CPU seconds are this machine's, one process.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from svmtune.datasets import SUITE, fischetti_split, load_problem
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV

C_GRID = np.geomspace(0.1, 1000.0, 5)
GAMMA_GRID = np.geomspace(0.001, 10.0, 5)


def walk(seeding: bool, X: np.ndarray, y: np.ndarray) -> tuple[int, float, list[float]]:
    """SMO iterations, process CPU seconds and values of one grid walk."""
    bound = KFoldCV(k=5, seeding=seeding, random_state=0).bind(X, y, kernel=RBF())
    iterations, values, t0 = 0, [], time.process_time()
    for c in C_GRID:
        for g in GAMMA_GRID:
            e = bound.evaluate({"C": float(c), "gamma": float(g)})
            iterations += e.cost.iterations
            values.append(e.value)
    return iterations, time.process_time() - t0, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=list(SUITE))
    args = parser.parse_args()
    heads = ["cold it", "seeded it", "it ratio", "cold CPU", "seeded CPU", "CPU ratio", "differ"]
    print(f"{'problem':16s} {'n':>5s} " + " ".join(f"{h:>10s}" for h in heads))
    it_ratios, cpu_ratios = [], []
    X0, y0 = load_problem("iris-halves")  # compile the loops before any timing
    walk(False, X0, y0), walk(True, X0, y0)
    for name in args.problems:
        X, y = load_problem(name)
        Xtr, ytr, _, _ = fischetti_split(X, y, seed=1)
        it_c, cpu_c, v_c = walk(False, Xtr, ytr)
        it_s, cpu_s, v_s = walk(True, Xtr, ytr)
        differ = sum(a != b for a, b in zip(v_c, v_s, strict=True))
        it_ratios.append(it_s / it_c)
        cpu_ratios.append(cpu_s / cpu_c)
        cols = [f"{it_c:10d}", f"{it_s:10d}", f"{it_s / it_c:10.2f}", f"{cpu_c:10.2f}"]
        cols += [f"{cpu_s:10.2f}", f"{cpu_s / cpu_c:10.2f}", f"{differ:10d}"]
        print(f"{name:16s} {ytr.size:5d} " + " ".join(cols), flush=True)
    print(
        f"seeded / cold over {len(it_ratios)} problems: iterations median "
        f"{np.median(it_ratios):.2f} (range {min(it_ratios):.2f}-{max(it_ratios):.2f}), "
        f"CPU median {np.median(cpu_ratios):.2f} (range {min(cpu_ratios):.2f}-"
        f"{max(cpu_ratios):.2f}); cold took less CPU on "
        f"{sum(r > 1 for r in cpu_ratios)} of {len(cpu_ratios)}"
    )


if __name__ == "__main__":
    main()
