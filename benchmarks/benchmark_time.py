"""Where the benchmark study's time goes, and how long its full run takes on 2 cores.

Runs split 0 of a sample of the suite's problems (the smallest, a middle one, and several of
the 600-row ones that make up half of the suite) with every method of
``studies/benchmark.py``, in 2 worker processes, and prints

- the CPU seconds per cell of each method (mean over the sampled problems), the share of the
  total each method takes;
- the CPU seconds of one split of each sampled problem (all methods);
- the estimate of the full run: every problem of the suite costed from the measured problem
  nearest to it in rows used (then in features), x 10 splits, / 2 cores, + the measured
  overhead (wall time beyond CPU time / 2 of this run, scaled to the full run's cell count).

CPU seconds are steadier than wall seconds on a shared machine, but a loaded machine still
inflates them: the estimate is for this machine as loaded as it is now::

    nice -n 5 python benchmarks/benchmark_time.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
#: The problems timed (names of the suite): sizes 150 to 600 rows, 2 to 240 features.
SAMPLE = ("iris-halves", "bands", "wdbc", "pima", "banana", "image", "mushroom", "splice")


def main() -> None:
    from svmtune.datasets import SUITE, SuiteLoader
    from svmtune.study import Study, load_study

    os.environ.setdefault("SVMTUNE_BENCHMARK_SPLITS", "1")
    bench = load_study(ROOT / "studies" / "benchmark.py")
    with tempfile.TemporaryDirectory() as tmp:
        study = Study(
            "benchmark_time",
            datasets={n: SuiteLoader(n) for n in SAMPLE},
            split="fischetti",
            n_splits=1,
            seed=bench.seed,
            methods=bench.methods,
            storage=f"sqlite:///{tmp}/t.db",
        )
        t0 = time.perf_counter()
        study.run(n_jobs=2, progress=False)
        wall = time.perf_counter() - t0
        res = study.results()
    ok = res[res["status"] == "ok"]
    print(f"{len(res)} cells ({len(ok)} ok) in {wall:.0f} s wall on 2 processes")
    per_method = ok.groupby("method")["cpu_s"].mean().sort_values(ascending=False)
    share = 100 * ok.groupby("method")["cpu_s"].sum() / ok["cpu_s"].sum()
    print("\nCPU s per cell, mean over the sampled problems, and share of the total:")
    print(pd.DataFrame({"cpu_s": per_method.round(3), "share %": share.round(1)}).to_string())
    per_problem = ok.groupby("dataset")["cpu_s"].sum()
    print("\nCPU s of one split of each sampled problem (all methods):")
    print(per_problem.round(1).to_string())
    measured = {n: (SUITE[n].rows_used, SUITE[n].features) for n in SAMPLE}

    def nearest(name: str) -> str:
        r, f = SUITE[name].rows_used, SUITE[name].features
        return min(measured, key=lambda m: (abs(measured[m][0] - r), abs(measured[m][1] - f)))

    full_cpu = sum(per_problem[nearest(n)] for n in SUITE) * 10
    overhead = max(0.0, wall - ok["cpu_s"].sum() / 2) / len(res)
    n_cells = len(SUITE) * 10 * len(bench.methods)
    est = full_cpu / 2 + overhead * n_cells
    print(
        f"\nfull run: {len(SUITE)} problems x 10 splits x {len(bench.methods)} methods = "
        f"{n_cells} cells; estimated {full_cpu:.0f} CPU s of tuning, {est / 60:.0f} min wall "
        f"on 2 cores (overhead {overhead:.3f} s per cell: splits, storage, scheduling)"
    )


if __name__ == "__main__":
    sys.exit(main())
