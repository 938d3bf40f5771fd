"""Redraw ``docs/benchmark/`` from its committed cells (``results.csv``), without a rerun.

``svmtune run studies/benchmark.py`` writes the benchmark's report from its database; the
database (``results/benchmark.db``) is not committed, but every cell is, one row of
``docs/benchmark/results.csv`` each. This reads them back (error rates in percent, or as the
fractions an older report wrote), takes the methods, their objectives and the baseline from
``studies/benchmark.py``, and writes the report again with the code of today: ``report.md``,
the CSV files, the LaTeX tables and every figure the cells give (``error_vs_time``, its pages
per data set, the critical-difference diagram), each as PDF and PNG.

The figures drawn from the traces (best-so-far, anytime, ECDF, normalized score) need the
database: the next full run (``svmtune run studies/benchmark.py --output docs/benchmark``)
redraws them. ``anytime_normalized.png`` and ``ecdf.png`` (README shows the latter), when in the
folder, are kept and linked from ``report.md`` as the last full run's.

    python studies/benchmark_redraw.py                       # docs/benchmark in place
    python studies/benchmark_redraw.py --output /tmp/bench --format pdf,svg
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def read_cells(path: Path) -> pd.DataFrame:
    """The cells of a report's ``results.csv`` as ``Study.results()`` gives them: error rates
    as fractions, the parameter and box columns as dicts."""
    cells = pd.read_csv(path)
    for col in [c for c in cells.columns if c.endswith("_pct")]:
        cells[col.removesuffix("_pct")] = cells.pop(col) / 100
    for col in ("best_params", "box"):
        if col in cells.columns:
            cells[col] = [json.loads(v) if isinstance(v, str) else None for v in cells[col]]
    return cells


def keep_trace_figures(outdir: Path, paths: dict[str, Path]) -> list[str]:
    """Link into ``report.md`` the figures drawn from traces by the last full run that are
    still in the folder (this redraw has no traces to draw them from), captioned as such."""
    from svmtune.study.figures import CAPTIONS

    kept = [
        stem
        for stem in ("anytime_normalized", "ecdf")
        if stem not in paths and (outdir / f"{stem}.png").is_file()
    ]
    report = outdir / "report.md"
    if not kept or not report.is_file():
        return kept
    text = report.read_text(encoding="utf-8")
    kept = [stem for stem in kept if f"]({stem}.png)" not in text]  # linked once
    if not kept:
        return kept
    lines = []
    for stem in kept:
        caption = f"{CAPTIONS[stem]} Drawn by the last full run, before this redraw."
        lines += [f"![{caption}]({stem}.png)", "", f"*{caption}*", ""]
    text = text.replace("## Left out", "\n".join(lines) + "\n## Left out", 1)
    report.write_text(text, encoding="utf-8")
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default=str(ROOT / "docs" / "benchmark" / "results.csv"))
    parser.add_argument("--output", default=str(ROOT / "docs" / "benchmark"))
    parser.add_argument("--format", default="png,pdf", help="figure files (pdf, png, svg)")
    args = parser.parse_args(argv)

    from svmtune.study import load_study, objective_labels, write_report

    study = load_study(ROOT / "studies" / "benchmark.py")
    cells = read_cells(Path(args.cells))
    methods = [m for m in study.methods if m in set(cells["method"])]
    paths = write_report(
        cells,
        pd.DataFrame(),
        args.output,
        methods=methods,
        objectives=objective_labels(study.definition()["methods"]),
        baseline=study.baseline,
        formats=args.format,
    )
    kept = keep_trace_figures(Path(args.output), paths)
    for name, path in paths.items():
        size = path.stat().st_size
        print(f"{name:>36}: {path.name} ({size / 1e6:.2f} MB)")
    for stem in kept:
        print(f"{stem:>36}: {stem}.png, kept from the last full run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
