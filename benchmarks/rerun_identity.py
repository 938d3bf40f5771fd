"""Does a stored study give the same numbers when its cells run again? A check at scale.

Reruns some data sets and splits of a study whose cells are stored (e.g. the full benchmark,
run with 2 worker processes) into a fresh database, with another number of worker processes,
and compares every stored value of every rerun cell exactly: the cell's test error, objective
value, best parameters, kernel evaluations, solver iterations, evaluation count and status, and
every evaluation of its trace (parameters, objective value, kernel evaluations, iterations,
the incumbent's test error). Timing columns are not compared: they are measurements, not
results.

    python benchmarks/rerun_identity.py studies/benchmark.py \\
        --storage sqlite:///results/benchmark.db --datasets wdbc breast --splits 2 --n-jobs 1

prints how many cells and trace rows were compared and how many differ (and which); exit
code 1 if any differs. ``tests/study/test_reproducible.py`` asserts the same on a small study
in every CI run; this script checks the large stored study itself.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pandas as pd

from svmtune.study import Study, load_study

#: What a stored cell says about its result (not its timing or its worker).
VALUES = ["test_error", "objective_value", "best_params", "kernel_evals", "iterations",
          "n_evaluations", "stopped_by", "n_train", "n_test", "seed", "status"]  # fmt: skip
KEY = ["dataset", "split", "method"]


def _subset(study: Study, datasets: list[str], n_splits: int, storage: str) -> Study:
    """The same study on some of its data sets and splits (a bad label ends the run)."""
    try:
        return study.subset(datasets=datasets, n_splits=n_splits, storage=storage)
    except ValueError as e:
        raise SystemExit(str(e)) from None


def _trace_values(study: Study, storage: str) -> pd.DataFrame:
    tr = study.traces(storage=storage)
    cols = [c for c in tr.columns if "wall" not in c and "cpu" not in c]  # values, not times
    return tr[cols].sort_values([*KEY, "eval"]).reset_index(drop=True)


def compare(a: pd.DataFrame, b: pd.DataFrame, on: list[str]) -> pd.DataFrame:
    """Rows of ``a`` and ``b`` (matched on ``on``) whose other columns differ, side by side."""
    m = a.merge(b, on=on, how="outer", suffixes=("_stored", "_rerun"), indicator=True)
    bad = m["_merge"] != "both"
    differs = []
    for c in a.columns:
        if c not in on:
            x, y = m[f"{c}_stored"], m[f"{c}_rerun"]
            diff = ~((x.isna() & y.isna()) | (x.astype(str) == y.astype(str)))  # exact
            if diff.any():
                differs.append(c)
            bad |= diff
    cols = on + [f"{c}_{side}" for c in differs for side in ("stored", "rerun")]
    return m.loc[bad, cols]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("study_file", type=Path)
    ap.add_argument("--storage", required=True, help="the stored study's SQLAlchemy URL")
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--splits", type=int, default=1, help="rerun splits 0 .. splits-1")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument(
        "--rerun-storage",
        help="SQLAlchemy URL of the rerun's database (default: a temporary file); "
        "a database that already holds the rerun's cells is compared without running",
    )
    args = ap.parse_args(argv)
    full = load_study(args.study_file)
    stored = _subset(full, args.datasets, args.splits, args.storage)
    have = stored.results()
    if have.empty:
        raise SystemExit(f"no stored cells of {args.datasets} in {args.storage}")
    with tempfile.TemporaryDirectory() as tmp:
        url = args.rerun_storage or f"sqlite:///{Path(tmp) / 'rerun.db'}"
        rerun = _subset(full, args.datasets, args.splits, url)
        rerun.run(n_jobs=args.n_jobs, progress=True)
        a = have[KEY + VALUES].sort_values(KEY).reset_index(drop=True)
        b = rerun.results()[KEY + VALUES].sort_values(KEY).reset_index(drop=True)
        cells = compare(a, b, KEY)
        ta, tb = _trace_values(stored, args.storage), _trace_values(rerun, url)
        traces = compare(ta, tb, [*KEY, "eval"])
    print(f"cells compared: {len(a)} stored, {len(b)} rerun with --n-jobs {args.n_jobs}; "
          f"differing: {len(cells)}")  # fmt: skip
    print(f"trace rows compared: {len(ta)} stored, {len(tb)} rerun; differing: {len(traces)}")
    if len(cells):
        print(cells.to_string(max_rows=40))
    if len(traces):
        print(traces.head(40).to_string())
    return int(bool(len(cells) or len(traces)))


if __name__ == "__main__":
    sys.exit(main())
