"""The same study at the same commit stores the same values to the digit, whether its cells
run in this process (numba and BLAS on every thread) or in 2 worker processes (one thread
each): seeds come from the cell's key alone, and no sum depends on a thread count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from svmtune.datasets import SuiteLoader
from svmtune.study import Study, load_study

ROOT = Path(__file__).resolve().parents[2]
#: What each stored cell says about its result (not its timing or its worker).
VALUES = ["test_error", "objective_value", "best_params", "kernel_evals", "iterations",
          "n_evaluations", "stopped_by", "n_train", "n_test", "seed", "status"]  # fmt: skip
METHODS = ("CV grid 25", "CV TPE 25", "CV VNS 25", "CV halving 25", "CV cascade",
           "LOO_2 + bisection", "LOO_3 + bisection", "Platt + gradient",
           "GridSearchCV 25")  # fmt: skip


def _study(storage: str, monkeypatch) -> Study:
    monkeypatch.setenv("SVMTUNE_BENCHMARK_SPLITS", "1")
    bench = load_study(ROOT / "studies" / "benchmark.py")
    return Study(
        "repro",
        # pima whole (768 rows, 540 training points): 6 tiles of the fused LOO loop, which the
        # old chunking (4 chunks per numba thread) summed in an order that followed the threads
        datasets={"tae-halves": SuiteLoader("tae-halves"), "pima": "pima"},
        split="fischetti",
        n_splits=1,
        seed=bench.seed,
        methods={m: bench.methods[m] for m in METHODS},
        storage=storage,
        baseline="GridSearchCV 25",
    )


def _values(study: Study) -> pd.DataFrame:
    res = study.results().sort_values(["dataset", "split", "method"]).reset_index(drop=True)
    return res[["dataset", "split", "method", *VALUES]]


def test_one_process_and_two_workers_store_identical_values(tmp_path, monkeypatch):
    one = _study(f"sqlite:///{tmp_path / 'one.db'}", monkeypatch).run(n_jobs=1, progress=False)
    two = _study(f"sqlite:///{tmp_path / 'two.db'}", monkeypatch).run(n_jobs=2, progress=False)
    a, b = _values(one), _values(two)
    assert len(a) == 2 * len(METHODS) and (a["status"] == "ok").all()
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert np.isfinite(a["test_error"]).all()
