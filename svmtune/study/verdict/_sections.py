"""Sections of ``report.md`` beside the statistics: the noise controls (the resolution), the
protocol the cells ran under, and the provenance of the numbers (code, libraries, machine)."""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import pandas as pd

from svmtune.study.verdict._noise import NoiseControls

__all__ = ["LIBRARIES", "noise_lines", "protocol_lines", "provenance_lines"]

#: The libraries whose versions report.md names.
LIBRARIES = ("scikit-learn", "optuna", "optuna-integration", "numpy", "scipy", "numba", "pandas")

_SPLITS = {
    "fischetti": "Fischetti's: each point to the training part with probability 0.7",
    "ratsch": "Ratsch's: a random training part of the benchmark's published size",
    "holdout": "stratified holdout",
}

_TIE_RULES = [
    "svmtune's tuners: the lowest objective value, the first evaluated on ties; a k-fold "
    "objective's value is the pooled error (misclassified validation points over all folds / "
    "training points)",
    "scikit-learn's searches (GridSearchCV, RandomizedSearchCV, HalvingGridSearchCV): the "
    "highest mean of the fold accuracies (`rank_test_score` 1), the first candidate in "
    "candidate order on ties (HalvingGridSearchCV: among its last round's candidates)",
    "OptunaSearchCV: the first trial with the highest mean of the fold scores",
]


def noise_lines(noise: NoiseControls | None, rope: float, table: Any) -> list[str]:
    """The noise-control section (``table`` renders a DataFrame as markdown)."""
    if noise is None:
        return []
    r = 100 * noise.resolution
    return [
        "## Noise controls: the resolution",
        "",
        "Each method below was run again on other assignments of the training points to the "
        "folds of the same splits (nothing else changed). Per data set, the standard deviation "
        "(SD) over the assignments of its mean test error; over the data sets, its mean, and "
        "the standard error of the suite mean that fold assignment alone causes "
        "(sqrt(mean SD^2 / N)); the resolution of a per-data-set difference is "
        "sqrt(2 mean SD^2), the typical difference between two fold assignments of one method "
        "on one data set. These controls are not methods: they are neither ranked nor in "
        "Friedman's test.",
        "",
        table(noise.table),
        "",
        f"Pooled: resolution {r:.2f} points per data set, standard error of the suite mean "
        f"{100 * noise.se_suite_mean:.2f} points. The stated region of practical equivalence is "
        f"{100 * rope:g} point"
        + (f", {rope / noise.resolution:.1f} x the resolution." if noise.resolution > 0 else "."),
        "",
    ]


def _budget(record: Mapping[str, Any]) -> str:
    """What a method runs with, in words, from its stored record."""
    if "estimator" in record:  # a peer
        p = record.get("params") or {}
        bits = [str(record["estimator"])]
        grid = p.get("param_grid")
        if isinstance(grid, Mapping):
            n = math.prod(len(v) for v in grid.values() if isinstance(v, list))
            bits.append(f"{n} grid points")
        for key, word in (("n_iter", "candidates"), ("n_trials", "trials")):
            if p.get(key) is not None:
                bits.append(f"{p[key]} {word}")
        if "cv" in p:
            bits.append(f"cv={p['cv']}")
        return ", ".join(bits)
    obj, tun = record.get("objective") or {}, record.get("tuner") or {}
    objective = str(obj.get("class", "?"))
    tuner = str(tun.get("class", "?"))
    op, tp = obj.get("params") or {}, tun.get("params") or {}
    if "k" in op:
        objective += f"(k={op['k']})"
    budget = tp.get("max_evals")
    return f"{objective} by {tuner}" + (f", at most {budget} evaluations" if budget else "")


def protocol_lines(
    definition: Mapping[str, Any] | None, results: pd.DataFrame, table: Any
) -> list[str]:
    """The protocol section: splits, training sizes, folds, what each method runs with, cost,
    tie rules."""
    if not definition:
        return []
    split = str(definition.get("split", "?"))
    n_splits = definition.get("n_splits")
    out = ["## Protocol", ""]
    out.append(
        f"- Splits: {_SPLITS.get(split, split)}; {n_splits} per data set, seeded from the "
        f"study seed {definition.get('seed')} and the (data set, split); features standardized "
        "with the training part's statistics. The training part comes in a seeded random "
        "order, never the file's."
    )
    if "n_train" in results.columns and results["n_train"].notna().any():
        per = results.groupby("dataset")["n_train"].median()
        out.append(
            f"- Training points per data set (median over its splits): median {per.median():g}, "
            f"{per.min():g} to {per.max():g}."
        )
    controls = definition.get("noise_controls") or {}
    out.append(
        "- Folds: every k-fold method of a (data set, split) cross-validates on one stratified "
        "fold assignment shuffled from the split's seed: svmtune's KFoldCV (its own "
        "random_state replaced) and the peers' cv=k (replaced by the same folds)."
        + (
            f" Noise controls ({len(controls)}) use other assignments of the same splits."
            if controls
            else ""
        )
    )
    out.append(
        "- Cost: a svmtune run is billed its whole process CPU (set-up, evaluations, the "
        "tuner's own work between them, the final fit), a peer its fit() (the refit "
        "included); one BLAS thread, after one untimed warm-up (compilation, imports) per "
        "process and method."
    )
    out += ["- Tie rules: " + "; ".join(_TIE_RULES) + ".", ""]
    methods = definition.get("methods") or {}
    rows = [
        {"method": m, "runs": _budget(r), "folds": r.get("folds", 0)}
        for m, r in methods.items()
        if isinstance(r, Mapping)
    ]
    if rows:
        out += [table(pd.DataFrame(rows).set_index("method")), ""]
    return out


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def provenance_lines(results: pd.DataFrame) -> list[str]:
    """Which code and libraries computed the numbers, on which machine."""
    codes = sorted(results["code"].dropna().unique()) if "code" in results.columns else []
    hosts = results["host"].dropna().nunique() if "host" in results.columns else 0
    libs = ", ".join(f"{d} {_version(d)}" for d in LIBRARIES)
    return [
        "## Provenance",
        "",
        f"- svmtune: {', '.join(map(str, codes)) or 'not recorded'} (the cells' code: version "
        "and git commit).",
        f"- Libraries (the environment writing this report; run the study and its report in "
        f"one environment, as `svmtune run` does): Python {platform.python_version()}, {libs}.",
        f"- Machine writing this report: {_cpu_model()}, {os.cpu_count()} logical cores; the "
        f"cells ran on {hosts} host{'s' if hosts != 1 else ''}.",
        "",
    ]
