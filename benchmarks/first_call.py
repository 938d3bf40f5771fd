"""CPU seconds a first ``Tuner.tune`` call in a fresh process reports, against later calls.

Each measurement runs in a new Python process: three ``Bisection().tune(LOOEstimate(), ...)``
calls on the bundled ``heart`` data, printing each call's ``total_cost.cpu_s``. ``--no-warm-up``
marks the method as warmed up before the first call (so ``Tuner.tune`` skips its untimed
warm-up run, as svmtune did before it had one): the first call then pays for loading numba's
compiled code. It prints; it asserts nothing. CPU seconds of one process: they hold on a loaded
machine better than wall seconds, but still vary with the load.

    python benchmarks/first_call.py
"""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from svmtune.datasets import load
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection, skip_warm_up

X, y = load("heart")
if sys.argv[1] == "off":
    skip_warm_up(LOOEstimate(), Bisection(), RBF())
costs = [Bisection().tune(LOOEstimate(), X, y, kernel=RBF()).total_cost.cpu_s for _ in range(3)]
print(" ".join(f"{c:.3f}" for c in costs))
"""


def main() -> None:
    print(f"{'warm-up':10s} {'1st call':>9s} {'2nd':>7s} {'3rd':>7s}   (CPU s of total_cost)")
    for mode in ("on", "off"):
        out = subprocess.run(
            [sys.executable, "-c", CODE, mode], capture_output=True, text=True, check=True
        )
        first, second, third = out.stdout.split()
        print(f"{mode:10s} {first:>9s} {second:>7s} {third:>7s}")


if __name__ == "__main__":
    main()
