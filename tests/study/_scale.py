"""A synthetic study at the benchmark's scale (42 data sets x 22 methods, three objective
families, long method names with underscores), its results and traces, for the figure tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

FAMILY_LABELS = ("LOOEstimate(model='loo2')", "KFoldCV", "PlattError", "LOOEstimate(model='loo3')")


def scale_methods(n: int = 22) -> list[str]:
    base = ["LOO_2 + bisection", "CV TPE pruned 25", "CV grid 50 & more", "Platt 100%"]
    return [f"{base[i % len(base)]} #{i}" for i in range(n)]


def scale_objectives(methods: list[str]) -> dict[str, str]:
    return {m: FAMILY_LABELS[i % len(FAMILY_LABELS)] for i, m in enumerate(methods)}


def scale_results(n_datasets: int = 42, n_methods: int = 22, n_splits: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    methods = scale_methods(n_methods)
    rows = [
        {
            "dataset": f"data_set_{d}",
            "split": s,
            "method": m,
            "status": "ok",
            "objective_value": 0.1 + 0.05 * rng.random(),
            "test_error": 0.05 + 0.01 * (d % 7) + 0.002 * i + 0.02 * rng.random(),
            "cpu_s": 0.01 * (i + 1) * (1 + rng.random()),
            "kernel_evals": 1000 * (i + 1),
            "n_train": 70,
            "n_test": 30,
        }
        for d in range(n_datasets)
        for s in range(n_splits)
        for i, m in enumerate(methods)
    ]
    return pd.DataFrame(rows)


def scale_traces(
    n_datasets: int = 42, n_methods: int = 22, n_splits: int = 2, n_evals: int = 6
) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    methods = scale_methods(n_methods)
    rows = []
    for d in range(n_datasets):
        for s in range(n_splits):
            for i, m in enumerate(methods):
                values = 0.1 + 0.2 * rng.random(n_evals)
                for e in range(n_evals):
                    rows.append(
                        {
                            "dataset": f"data_set_{d}",
                            "split": s,
                            "method": m,
                            "eval": e,
                            "n_train": 70,
                            "n_samples": 70,
                            "status": "ok",
                            "value": values[e],
                            "best_value": values[: e + 1].min(),
                            "incumbent_test_error": values[: e + 1].min() + 0.01,
                            "cum_cpu_s": 0.01 * (e + 1) * (i + 1),
                            "cum_wall_s": 0.01 * (e + 1) * (i + 1),
                            "cum_kernel_evals": 0 if i == n_methods - 1 else 1000 * (e + 1),
                        }
                    )
    return pd.DataFrame(rows)
