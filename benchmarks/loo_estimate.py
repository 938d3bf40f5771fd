"""Fischetti's LOO_2 estimate on a large problem: the fused RBF pass against the row-block path.

One ``LOOEstimate(model="loo2")`` evaluation (RBF, gamma = 1/d) on generated data the size of
the MAGIC gamma telescope set (19,020 points x 10 features, two classes of Gaussian clusters),
computed two ways in this process, interleaved, median of ``--repeats``:

- ``fused``: the RBF kernel's fused loop (:meth:`svmtune.kernels.RBF.net_sums`): upper-triangle
  tiles of the points, products, exp and the class sums in compiled code, numba's threads;
- ``blocks``: the generic path every other kernel takes (``fused_net_sums = False``): row blocks
  of squared distances within ``memory_budget`` (1 GiB here, the default when these figures
  were taken; the default is now 256 MiB, ``svmtune._memory.DEFAULT_MEMORY_BUDGET``), each
  turned into sums.

Prints per way and thread count: wall seconds, CPU seconds of the process (all threads), the
peak extra resident memory (``VmHWM`` reset before the call, minus the resident size before it)
and tracemalloc's peak of numpy allocations, and the two values (equal when the sums agree to
the last decision). Wall time on a machine shared with other jobs moves by 2x between runs;
CPU seconds are steadier. The script prints; it asserts nothing.

    python benchmarks/loo_estimate.py
    python benchmarks/loo_estimate.py --n 5000 --repeats 5 --threads 1 2
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

import numba
import numpy as np

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate


class BlockedRBF(RBF):
    """The RBF kernel through the prepared row-block path."""

    fused_net_sums = False


def magic_sized(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two classes (65% / 35%, MAGIC's proportions), each a mixture of 3 Gaussian clusters."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.65, 1.0, -1.0)
    centers = rng.normal(scale=1.5, size=(2, 3, d))
    which = rng.integers(0, 3, size=n)
    X = centers[(y > 0).astype(int), which] + rng.normal(size=(n, d))
    X = (X - X.mean(0)) / X.std(0)
    return X, y


def _rss_kib() -> tuple[int, int]:
    """(current resident set, its peak since the last reset), KiB (Linux /proc)."""
    rss = hwm = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(fn: Callable[[], float]) -> tuple[float, float, float, float, float]:
    """(value, wall s, CPU s, peak extra RSS MiB, tracemalloc peak MiB) of one call."""
    ok = _reset_peak()
    rss0, _ = _rss_kib()
    tracemalloc.start()
    w0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    _, hwm = _rss_kib()
    extra = (hwm - rss0) / 1024 if ok else float("nan")
    return value, wall, cpu, extra, traced / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=19_020)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[numba.config.NUMBA_NUM_THREADS, 1])
    ap.add_argument("--no-blocks", action="store_true", help="time the fused pass only")
    args = ap.parse_args()

    X, y = magic_sized(args.n, args.d)
    gamma = 1.0 / args.d
    ways = {"fused": RBF()}
    if not args.no_blocks:
        ways["blocks"] = BlockedRBF()
    loo2 = LOOEstimate(model="loo2", memory_budget=2**30)
    bound = {k: loo2.bind(X, y, kernel=kern) for k, kern in ways.items()}
    for b in bound.values():  # compile / load the numba loops
        LOOEstimate(model="loo2").bind(X[:600], y[:600], kernel=b.kernel).evaluate({"gamma": 1.0})
    print(
        f"LOO_2, one evaluation: n = {args.n}, d = {args.d}, gamma = {gamma:g}, "
        f"{args.n * (args.n - 1) // 2:,} pairs; median of {args.repeats} (interleaved)"
    )
    print(
        f"{'way':>7} {'threads':>7} {'wall s':>8} {'CPU s':>8} {'+RSS MiB':>9} "
        f"{'traced MiB':>10} {'value':>9}"
    )
    for threads in args.threads:
        numba.set_num_threads(threads)
        runs: dict[str, list[tuple[float, float, float, float, float]]] = {k: [] for k in bound}
        for _ in range(args.repeats):
            for k, b in bound.items():
                runs[k].append(measure(lambda b=b: b.evaluate({"gamma": gamma}).value))
        for k, r in runs.items():
            a = np.array(r)
            med = np.median(a, axis=0)
            print(
                f"{k:>7} {threads:>7} {med[1]:8.2f} {med[2]:8.2f} {a[:, 3].max():9.1f} "
                f"{a[:, 4].max():10.1f} {a[0, 0]:9.5f}"
            )


if __name__ == "__main__":
    main()
