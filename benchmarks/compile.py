"""What numba compilation costs a fresh install: per compiled path, and for a first quickstart.

Every compiled function of svmtune is compiled on its first call and cached on disk
(``cache=True``), so a fresh install pays the compile time once. Each measurement runs in a new
process with an empty numba cache (``NUMBA_CACHE_DIR`` set to a new directory, as in a fresh
install) and prints CPU seconds of that process:

- ``import``: ``import svmtune`` (nothing compiles at import);
- one line per path, each on its own empty cache (so a path's figure includes the helpers it
  shares with the others): an SMO solve on a full RBF Gram matrix, an SMO solve on kernel rows
  computed in the loop, exact leave-one-out on a Gram matrix, the RBF kernel's fused sums;
- the two shares ``svmtune run`` has two worker processes compile at once on an empty cache
  (``warm_up(exact=False, kernel_sums=False)``: the SMO loop; ``warm_up(smo=False)``: the exact
  leave-one-out retrain loop and the RBF sums), each on its own empty cache;
- ``warm_up()``: :func:`svmtune.solvers.warm_up` (all of the above) on an empty cache, then
  again on the cache it filled (loading instead of compiling).

With ``--quickstart`` it also runs ``studies/quickstart.py`` from scratch (a new database) twice
on one new numba cache, ``--n-jobs 2``: the first run compiles (``svmtune run`` has its two
worker processes compile the loops first, split between them), the second loads; wall seconds
of both and their difference (and CPU seconds of the run's processes, steadier on a shared
machine); ``--repeat N`` does that N times, each on a new cache. The script prints; it asserts
nothing. CPU seconds are steadier than wall seconds on a shared machine, but still move by
10-20% with its load.

    python benchmarks/compile.py
    python benchmarks/compile.py --quickstart     # + two quickstart runs (a few minutes)
    python benchmarks/compile.py --quickstart --no-paths --repeat 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SETUP = textwrap.dedent(
    """
    import time
    t0 = time.process_time()
    import numpy as np
    import svmtune
    from svmtune.kernels import RBF
    from svmtune.solvers import SMO, KernelRows, exact_loo, warm_up
    t_import = time.process_time() - t0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1.0, -1.0)
    p = {"gamma": 0.5}
    t0 = time.process_time()
    """
)

PATHS = {
    "import svmtune": "pass",
    "SMO, full RBF Gram": "SMO().solve(y, C=1.0, kernel=RBF(), params=p, X=X)",
    "SMO, rows in the loop": "SMO().solve(y, C=1.0, gram=KernelRows(RBF(), p, X, capacity=8))",
    "exact LOO": "exact_loo(y, C=1.0, gram=RBF().gram(p, X))",
    "RBF fused sums": "RBF().net_sums(p, X, np.ones((60, 2)))",
    "warm_up(), SMO share": "warm_up(exact=False, kernel_sums=False)",
    "warm_up(), other share": "warm_up(smo=False)",
    "warm_up()": "warm_up()",
}


def cpu_seconds(statement: str, cache: str) -> tuple[float, float]:
    """(import CPU seconds, CPU seconds of ``statement``) in a new process on ``cache``."""
    code = SETUP + statement + "\nprint(t_import, time.process_time() - t0)\n"
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    return float(out[0]), float(out[1])


def part_paths() -> None:
    print("first use on an empty numba cache (CPU seconds, each path in a new process):")
    for name, statement in PATHS.items():
        with tempfile.TemporaryDirectory() as cache:
            t_import, t = cpu_seconds(statement, cache)
            if name == "import svmtune":
                print(f"  {name:24s} {t_import:6.2f} s")
                continue
            print(f"  {name:24s} {t:6.2f} s")
            if name == "warm_up()":
                _, again = cpu_seconds(statement, cache)
                print(f"  {'warm_up(), cache filled':24s} {again:6.2f} s")


def part_quickstart(repeat: int = 1) -> None:
    from scaling import part_cold  # the same runs as the scaling benchmark's cold part

    with tempfile.TemporaryDirectory() as tmp:
        part_cold(Path(tmp), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quickstart", action="store_true", help="also two quickstart runs")
    parser.add_argument("--no-paths", action="store_true", help="skip the per-path figures")
    parser.add_argument("--repeat", type=int, default=1, help="quickstart: pairs of runs")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if not args.no_paths:
        part_paths()
    if args.quickstart:
        part_quickstart(args.repeat)


if __name__ == "__main__":
    main()
