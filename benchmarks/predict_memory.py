"""Memory of a prediction with a kernel expansion over many points (the classifier of the LOO
routes holds every training point): the peak bytes numpy allocates while ``KernelExpansion``
predicts ``--points`` new points with ``--vectors`` expansion vectors (``tracemalloc``, which
sees numpy's allocations), beside the block plan (``block_shape``: rows, vectors per block, and
the bytes it counts) and the memory budget. Nothing is asserted.

    python benchmarks/predict_memory.py                      # 5,000 points, 50k and 200k vectors
    python benchmarks/predict_memory.py --budget-mib 64 --vectors 50000
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from svmtune.classifier import PREDICT_MEMORY_BUDGET, KernelExpansion
from svmtune.kernels import RBF


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=5000)
    ap.add_argument("--vectors", nargs="+", type=int, default=[50_000, 200_000])
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--budget-mib", type=float, default=PREDICT_MEMORY_BUDGET / 2**20)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    budget = int(args.budget_mib * 2**20)
    X = rng.normal(size=(args.points, args.features))
    for m in args.vectors:
        clf = KernelExpansion(
            kernel=RBF(),
            params={"gamma": 1.0 / args.features},
            vectors=rng.normal(size=(m, args.features)),
            coef=rng.normal(size=m),
            intercept=0.0,
            memory_budget=budget,
        )
        rows, cols = clf.block_shape()
        planned = rows * cols * 8 * clf.kernel.block_arrays()
        tracemalloc.start()
        t0 = time.process_time()
        clf.predict(X)
        cpu = time.process_time() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{args.points} points, {m} vectors: blocks of {rows} x {cols}, planned "
            f"{planned / 2**20:.1f} MiB (budget {budget / 2**20:.0f} MiB); peak allocated "
            f"{peak / 2**20:.1f} MiB; {cpu:.1f} CPU s",
            flush=True,
        )


if __name__ == "__main__":
    main()
