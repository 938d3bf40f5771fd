"""``report.md``: a study's verdict in one paragraph, its tables, its figures, what it left out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from svmtune.study._compare import Comparison, compare
from svmtune.study._figure_jobs import ReportJob, run_jobs
from svmtune.study._figure_section import figure_section

__all__ = ["markdown_table", "write_verdict"]


def _fmt(v: object, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def markdown_table(df: pd.DataFrame, *, digits: int = 3, index: bool = True) -> str:
    """A DataFrame as a GitHub markdown table (numbers with ``digits`` significant digits).

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"x": [0.12345]}, index=["a"])))
    |  | x |
    |---|---|
    | a | 0.123 |
    """
    cols = [str(c) for c in df.columns]
    head = ([str(df.index.name or "")] if index else []) + cols
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for idx, row in df.iterrows():
        cells = ([str(idx)] if index else []) + [_fmt(v, digits) for v in row.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(df: pd.DataFrame) -> pd.DataFrame:
    return df * 100


def _report_text(
    name: str,
    results: pd.DataFrame,
    comparison: Comparison | None,
    why_not: str,
    figures: dict[str, Path],
) -> str:
    counts = results["status"].value_counts().to_dict() if len(results) else {}
    status = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"
    out = [f"# {name}: the verdict", ""]
    n_d = results["dataset"].nunique() if len(results) else 0
    n_m = results["method"].nunique() if len(results) else 0
    splits = sorted(set(results.groupby("dataset")["split"].nunique())) if len(results) else []
    per = f" x {splits[0]} splits" if len(splits) == 1 else ""
    out.append(f"{len(results)} cells stored ({status}): {n_d} data sets{per}, {n_m} methods.")
    out.append("")
    if comparison is None:
        out += ["## Verdict", "", f"No comparison: {why_not}.", ""]
    else:
        c = comparison
        out += ["## Verdict", "", c.verdict(), ""]
        out += [
            "## Methods",
            "",
            f"Average rank over the {c.n_datasets} data sets (1 = lowest mean test error, ties "
            f"averaged), mean test error [%] and mean {c.cost} over them, mean normalized score "
            f"(1 = best on a data set, 0 = worst), and wins/ties/losses of mean test error "
            f"against the baseline {c.baseline}.",
            "",
        ]
        s = c.summary()
        s["test_error"] = 100 * s["test_error"]
        s = s.rename(columns={"test_error": "test error [%]"})
        out += [markdown_table(s), ""]
        out += ["## Tests", ""]
        for t in (c.friedman, c.iman_davenport):
            out.append(f"- {t}")
        if not math.isnan(c.critical_difference):
            out.append(
                f"- Nemenyi critical difference at alpha = {c.alpha:g}: "
                f"{c.critical_difference:.3f} ranks"
            )
        for note in c.notes:
            if not note.startswith(("Friedman", "Iman")):
                out.append(f"- {note}")
        out.append("")
        nem = c.posthoc.get("nemenyi")
        if nem is not None and not nem.empty:
            out += ["Nemenyi post-hoc p-values (pairs of methods):", "", markdown_table(nem), ""]
        wil = c.posthoc.get("wilcoxon_holm")
        if wil is not None and not wil.empty:
            w = wil.copy()
            w["mean_diff"] = 100 * w["mean_diff"]
            w = w.rename(columns={"mean_diff": "mean diff [points]"})
            out += [
                f"Wilcoxon signed-rank test against {c.baseline} over the data sets (zero "
                "differences split between the signs), Holm-adjusted:",
                "",
                markdown_table(w),
                "",
            ]
        if c.n_datasets >= 5:
            try:
                bayes = c.bayesian_signed_rank(rope=0.01)
            except ImportError:
                out += ["(Bayesian signed-rank test: `pip install baycomp` to add it.)", ""]
            else:
                out += [
                    f"Bayesian signed-rank test against {c.baseline} (Benavoli et al. 2017, "
                    "baycomp; region of practical equivalence: 1 point of test error):",
                    "",
                    markdown_table(bayes),
                    "",
                ]
        out += [
            "## Mean test error per data set [%]",
            "",
            "Means over the splits every method finished (the block the tests use).",
            "",
            markdown_table(_pct(c.errors[c.methods]), digits=3),
            "",
        ]
        cost = c.table.xs("cost", axis=1, level="stat")[c.methods]
        out += [
            f"## Mean {c.cost} per tuning run",
            "",
            markdown_table(cost, digits=3),
            "",
        ]
    out += figure_section(figures)
    out += ["## Left out", ""]
    left = comparison.left_out if comparison is not None else []
    if left:
        out += [f"- {x}" for x in left]
    elif comparison is None:
        out.append(f"- the statistics: {why_not}")
    else:
        out.append("- nothing: every method finished every cell")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class VerdictText:
    """The verdict's job that needs the comparison: :func:`~svmtune.study.compare`, then
    ``comparison.csv``, ``cd_diagram.png`` and ``report.md``, whose figure section also shows
    ``figures`` (the file names of the verdict's other figures, drawn by other jobs)."""

    results: pd.DataFrame
    traces: pd.DataFrame
    name: str = "study"
    methods: Sequence[str] | None = None
    baseline: str | None = None
    figures: tuple[str, ...] = ()
    dpi: int = 130
    cost: float = 3.0

    def __call__(self, outdir: Path) -> dict[str, Path]:
        from svmtune.study._verdict_plots import verdict_plot_jobs

        out = Path(outdir)
        results, methods = self.results, self.methods
        paths: dict[str, Path] = {}
        comparison: Comparison | None = None
        why_not = ""
        present = set(results["method"]) if "method" in results.columns else set()
        absent = [m for m in methods or () if m not in present]
        try:
            comparison = compare(
                results,
                methods=None if methods is None else [m for m in methods if m in present],
                baseline=self.baseline,
            )
        except ValueError as exc:
            why_not = str(exc)
        if comparison is not None and absent:
            comparison.left_out.insert(0, f"methods with no stored cell yet: {', '.join(absent)}")
        if comparison is not None:
            comparison.summary().to_csv(out / "comparison.csv")
            paths["comparison"] = out / "comparison.csv"
            empty = self.traces.iloc[:0]  # the CD diagram only: the others are other jobs
            for job in verdict_plot_jobs(comparison, empty, methods=methods, dpi=self.dpi):
                paths.update(job(out))
        figures = {k: p for k, p in paths.items() if k != "comparison"}
        figures.update({Path(f).stem: out / f for f in self.figures})
        (out / "report.md").write_text(
            _report_text(self.name, results, comparison, why_not, figures), encoding="utf-8"
        )
        paths["report"] = out / "report.md"
        return paths


def verdict_jobs(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    *,
    name: str = "study",
    methods: Sequence[str] | None = None,
    baseline: str | None = None,
    dpi: int = 130,
) -> list[ReportJob]:
    """What :func:`write_verdict` writes, as report jobs: :class:`VerdictText` (comparison,
    CD diagram, ``report.md``) and one figure job per anytime figure (:func:`svmtune.study.
    _figure_jobs.run_jobs` runs them, in one process or two)."""
    from svmtune.study._verdict_plots import verdict_plot_jobs

    figures = verdict_plot_jobs(None, traces, methods=methods, dpi=dpi)
    k = len(methods) if methods is not None else results.get("method", pd.Series()).nunique()
    text = VerdictText(
        results,
        traces,
        name=name,
        methods=methods,
        baseline=baseline,
        figures=tuple(job.name for job in figures),
        dpi=dpi,
        cost=2.0 + k / 4,
    )
    return [text, *figures]


def write_verdict(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    name: str = "study",
    methods: Sequence[str] | None = None,
    baseline: str | None = None,
) -> dict[str, Path]:
    """Write ``report.md``, ``comparison.csv`` (one row per method) and the verdict's figures
    (:func:`svmtune.verdict_plots.save_verdict_plots`) into ``outdir``.

    A study that cannot be compared (no finished cell, a single method) still gets its report
    saying why, and its anytime figures.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = verdict_jobs(results, traces, name=name, methods=methods, baseline=baseline)
    paths = run_jobs(jobs, out)
    paths["report"] = paths.pop("report")  # last, as before
    return paths
