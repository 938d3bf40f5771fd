"""``report.md``: a study's verdict in one paragraph, its tables, its figures, what it left out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from svmtune.study.figures._figure_jobs import ReportJob, run_jobs
from svmtune.study.figures._figure_section import figure_section
from svmtune.study.verdict._bayes import ROPE
from svmtune.study.verdict._compare import Comparison, compare

__all__ = ["OTHER_FOLDS", "markdown_table", "noise_floor", "write_verdict"]


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


#: The suffix that names a method's rerun on other fold assignments (the noise floor).
OTHER_FOLDS = ", other folds"


def _header(name: str, results: pd.DataFrame) -> list[str]:
    counts = results["status"].value_counts().to_dict() if len(results) else {}
    status = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"
    n_d = results["dataset"].nunique() if len(results) else 0
    n_m = results["method"].nunique() if len(results) else 0
    splits = sorted(set(results.groupby("dataset")["split"].nunique())) if len(results) else []
    per = f" x {splits[0]} splits" if len(splits) == 1 else ""
    line = f"{len(results)} cells stored ({status}): {n_d} data sets{per}, {n_m} methods."
    return [f"# {name}: the verdict", "", " ".join([line, *_code_line(results)]), ""]


def _code_line(results: pd.DataFrame) -> list[str]:
    """Which code computed the cells (``code``: svmtune's version and git commit), and a
    warning when more than one did: a later run at another commit reuses stored cells."""
    if "code" not in results.columns or not len(results):
        return []
    codes = results["code"].value_counts()
    unknown = int(results["code"].isna().sum())
    out = []
    if len(codes) == 1:
        out.append(f"Computed by svmtune {codes.index[0]}.")
    elif len(codes) > 1:
        each = ", ".join(f"{k} ({v} cells)" for k, v in codes.items())
        out.append(
            f"**Computed by {len(codes)} versions of the code**: {each}. Cells computed by "
            "different code can differ where a solver's stopping tolerance decides a point; "
            "for numbers from one code, run the study into a new database."
        )
    if unknown:
        out.append(f"{unknown} cells were stored before svmtune recorded the code of a cell.")
    return out


def _baseline_line(c: Comparison, planned: bool) -> str:
    if planned:
        return (
            f"Baseline: **{c.baseline}**, named by the study before it ran (a pre-planned "
            "comparison: each method is tested against it alone)."
        )
    return (
        f"Baseline: {c.baseline}, the best-ranked method, chosen after seeing the data (the "
        "study named none: `Study(baseline=...)`); read its tests as exploratory."
    )


def noise_floor(c: Comparison) -> tuple[str, str, float, float] | None:
    """The first method ``m`` with a rerun ``m + ", other folds"`` in the comparison: ``(m,
    rerun, mean difference, mean absolute per-data-set difference)`` of test error, or None."""
    for m in c.methods:
        twin = m + OTHER_FOLDS
        if twin in c.errors.columns:
            d = c.errors[twin] - c.errors[m]
            return m, twin, float(d.mean()), float(d.abs().mean())
    return None


def _noise_floor_lines(c: Comparison) -> list[str]:
    floor = noise_floor(c)
    if floor is None:
        return []
    m, twin, mean, spread = floor
    return [
        f"Noise floor: {m} run again on other fold assignments ({twin}) differs from itself by "
        f"{100 * mean:+.2f} points of mean test error over the {c.n_datasets} data sets "
        f"({100 * spread:.2f} points per data set on average). That is the smallest difference "
        "between two methods this study resolves; smaller ones are fold assignment, not "
        "tuning.",
        "",
    ]


def _bayes_summary(c: Comparison, bayes: pd.DataFrame, rope: float) -> list[str]:
    """One sentence: the methods by their Bayesian verdict against the baseline."""
    if bayes.empty:
        return []
    groups = [
        f"{word} ({len(ms)}): {', '.join(ms)}"
        for word in ("better", "equivalent", "worse", "undecided")
        if (
            ms := [
                f'"{m}"' if "," in str(m) else str(m) for m in bayes.index[bayes["verdict"] == word]
            ]
        )
    ]
    return [
        f"Against {c.baseline} (Bayesian signed-rank test, region of practical equivalence "
        f"{100 * rope:g} point, verdict at probability 0.95): " + "; ".join(groups) + ".",
        "",
    ]


def _bayes_table(c: Comparison, rope: float) -> pd.DataFrame:
    wil = c.posthoc.get("wilcoxon_holm")
    if wil is None or wil.empty:
        return pd.DataFrame()
    return c.bayesian_signed_rank(rope=rope)


def _against_baseline(c: Comparison, bayes: pd.DataFrame, rope: float) -> list[str]:
    """Wilcoxon-Holm and the Bayesian signed-rank test against the baseline, one table."""
    wil = c.posthoc.get("wilcoxon_holm")
    if wil is None or wil.empty:
        return []
    t = pd.DataFrame(index=wil.index)
    t["mean diff [points]"] = 100 * wil["mean_diff"]
    t = t.join(c.win_tie_loss)
    t["p (Holm)"] = wil["pvalue_holm"]
    t = t.join(bayes)
    t.index.name = "method"
    return [
        f"## Against {c.baseline}",
        "",
        f"Per method: mean test-error difference from {c.baseline} over the data sets "
        "(negative = lower error), wins/ties/losses, Wilcoxon's signed-rank test over the data "
        "sets (zero differences split between the signs) with Holm's correction, and the "
        "Bayesian signed-rank test (Benavoli, Corani, Demšar and Zaffalon 2017; 50,000 seeded "
        f"posterior draws) with a region of practical equivalence of {100 * rope:g} point of "
        "test error: P(better), P(equivalent), P(worse), and the verdict (the one reaching "
        "0.95, else undecided).",
        "",
        markdown_table(t.sort_values("mean diff [points]", kind="stable")),
        "",
    ]


def _small_study(c: Comparison, rope: float) -> list[str]:
    """Per-data-set tests over the splits, for studies too small for tests across data sets."""
    if c.has_rank_tests or c.per_split.empty:
        return []
    t = c.per_dataset(rope=rope)
    if t["p_better"].isna().all():
        return []
    t = t.copy()
    t["mean_diff"] = 100 * t["mean_diff"]
    t = t.rename(columns={"mean_diff": "mean diff [points]"})
    flat = t.reset_index()
    label = flat.pop("dataset").astype(str) + " / " + flat.pop("method").astype(str)
    flat.index = pd.Index(label, name="data set / method")
    return [
        f"## Per data set, against {c.baseline}",
        "",
        f"Too few data sets for tests across them; on each data set, over its splits: "
        "Wilcoxon's signed-rank p-value and the Bayesian correlated t-test (Benavoli et al. "
        "2017; correlation = the test fraction, Nadeau and Bengio's correction) with a region "
        f"of practical equivalence of {100 * rope:g} point.",
        "",
        markdown_table(flat),
        "",
    ]


def _tests(c: Comparison) -> list[str]:
    out = ["## Tests across data sets", ""]
    out += [f"- {t}" for t in (c.friedman, c.iman_davenport)]
    if not math.isnan(c.critical_difference):
        out.append(
            f"- Nemenyi critical difference at alpha = {c.alpha:g}: "
            f"{c.critical_difference:.3f} ranks (N = {c.n_datasets} data sets, "
            f"k = {len(c.methods)} methods)"
        )
    out += [f"- {n}" for n in c.notes if not n.startswith(("Friedman", "Iman"))]
    out.append("")
    nem = c.posthoc.get("nemenyi")
    if nem is not None and not nem.empty:
        out += ["Nemenyi post-hoc p-values (pairs of methods):", "", markdown_table(nem), ""]
    return out


def _methods(c: Comparison) -> list[str]:
    s = c.summary()
    s["test_error"] = 100 * s["test_error"]
    s = s.rename(columns={"test_error": "test error [%]"})
    return [
        "## Methods",
        "",
        f"Average rank over the {c.n_datasets} data sets (1 = lowest mean test error, ties "
        f"averaged), mean test error [%] and mean {c.cost} over them, mean normalized score "
        f"(1 = best on a data set, 0 = worst), and wins/ties/losses of mean test error "
        f"against the baseline {c.baseline}.",
        "",
        markdown_table(s),
        "",
    ]


def _tables(c: Comparison) -> list[str]:
    cost = c.table.xs("cost", axis=1, level="stat")[c.methods]
    return [
        "## Mean test error per data set [%]",
        "",
        "Means over the splits every method finished (the block the tests use).",
        "",
        markdown_table(_pct(c.errors[c.methods]), digits=3),
        "",
        f"## Mean {c.cost} per tuning run",
        "",
        markdown_table(cost, digits=3),
        "",
    ]


def _figures(c: Comparison | None, figures: dict[str, Path]) -> list[str]:
    captions = {}
    if c is not None and c.has_rank_tests:
        captions["cd_diagram"] = (
            f"Critical-difference diagram (Demšar 2006): average rank of mean test error; "
            f"methods Nemenyi's test does not separate are joined by a bar (CD = "
            f"{c.critical_difference:.2f} ranks at alpha = {c.alpha:g}, N = {c.n_datasets} "
            f"data sets, k = {len(c.methods)} methods)."
        )
    return figure_section(figures, captions=captions)


def _left_out(c: Comparison | None, why_not: str) -> list[str]:
    out = ["## Left out", ""]
    if c is not None and c.left_out:
        out += [f"- {x}" for x in c.left_out]
    elif c is None:
        out.append(f"- the statistics: {why_not}")
    else:
        out.append("- nothing: every method finished every cell")
    return out


def _report_text(
    name: str,
    results: pd.DataFrame,
    comparison: Comparison | None,
    why_not: str,
    figures: dict[str, Path],
    *,
    planned: bool = False,
    rope: float = ROPE,
) -> str:
    out = _header(name, results)
    c = comparison
    if c is None:
        out += ["## Verdict", "", f"No comparison: {why_not}.", ""]
    else:
        bayes = _bayes_table(c, rope)
        out += ["## Verdict", "", c.verdict(), "", _baseline_line(c, planned), ""]
        out += _bayes_summary(c, bayes, rope) + _noise_floor_lines(c)
        out += _against_baseline(c, bayes, rope) + _small_study(c, rope)
        out += _methods(c) + _tests(c) + _tables(c)
    out += _figures(c, figures) + _left_out(c, why_not)
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
    planned: bool = False  # the baseline was named by the study before it ran

    def __call__(self, outdir: Path) -> dict[str, Path]:
        from svmtune.study.figures._verdict_plots import verdict_plot_jobs

        out = Path(outdir)
        results, methods = self.results, self.methods
        paths: dict[str, Path] = {}
        comparison: Comparison | None = None
        why_not = ""
        present = set(results["method"]) if "method" in results.columns else set()
        absent = [m for m in methods or () if m not in present]
        baseline, planned = self.baseline, self.planned
        if baseline is not None and baseline not in present:  # not run yet: say so, go on
            absent = [baseline, *[m for m in absent if m != baseline]]
            baseline, planned = None, False
        try:
            comparison = compare(
                results,
                methods=None if methods is None else [m for m in methods if m in present],
                baseline=baseline,
            )
        except ValueError as exc:
            why_not = str(exc)
        if comparison is not None and absent:
            comparison.left_out.insert(0, f"methods with no stored cell yet: {', '.join(absent)}")
        if comparison is not None:
            comparison.summary().to_csv(out / "comparison.csv")
            paths["comparison"] = out / "comparison.csv"
        if comparison is not None and comparison.has_rank_tests:  # a CD diagram needs its test
            empty = self.traces.iloc[:0]  # the CD diagram only: the others are other jobs
            for job in verdict_plot_jobs(comparison, empty, methods=methods, dpi=self.dpi):
                paths.update(job(out))
        figures = {k: p for k, p in paths.items() if k != "comparison"}
        figures.update({Path(f).stem: out / f for f in self.figures})
        (out / "report.md").write_text(
            _report_text(self.name, results, comparison, why_not, figures, planned=planned),
            encoding="utf-8",
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
    from svmtune.study.figures._verdict_plots import verdict_plot_jobs

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
        planned=baseline is not None,
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
    (:func:`svmtune.study.figures.save_verdict_plots`) into ``outdir``.

    A study that cannot be compared (no finished cell, a single method) still gets its report
    saying why, and its anytime figures.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = verdict_jobs(results, traces, name=name, methods=methods, baseline=baseline)
    paths = run_jobs(jobs, out)
    paths["report"] = paths.pop("report")  # last, as before
    return paths
