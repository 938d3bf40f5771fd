"""``report.md``: a study's verdict in one paragraph, its tables, its figures, what it left out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from svmtune.study.figures._figure_jobs import ReportJob, run_jobs
from svmtune.study.figures._figure_section import figure_section
from svmtune.study.store._results import with_units
from svmtune.study.verdict._bayes import ROPE
from svmtune.study.verdict._compare import Comparison, compare
from svmtune.study.verdict._latex import write_latex_tables
from svmtune.study.verdict._markdown import _header, markdown_table
from svmtune.study.verdict._noise import (
    NoiseControls,
    all_controls,
    noise_controls_of,
    paired_intervals,
    ranked_methods,
    without_controls,
)
from svmtune.study.verdict._sections import noise_lines, protocol_lines, provenance_lines
from svmtune.study.verdict._ties import names, place_labels

__all__ = ["markdown_table", "write_verdict"]


def _baseline_line(c: Comparison, planned: bool) -> str:
    if planned:
        return (
            f"Baseline: **{c.baseline}**, named by the study before it ran (a pre-planned "
            "comparison: each method is tested against it alone)."
        )
    tied = [m for m in c.tied[0] if m != c.baseline]
    why = (
        f" (tied at the best average rank with {names(tied)}; chosen by the lowest mean test "
        "error, then by name)"
        if tied
        else ""
    )
    return (
        f"Baseline: {c.baseline}, the best-ranked method{why}, chosen after seeing the data "
        "(the study named none: `Study(baseline=...)`); read its tests as exploratory."
    )


def _bayes_summary(
    c: Comparison, bayes: pd.DataFrame, rope: float, what: str = "region of practical equivalence"
) -> list[str]:
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
        f"Against {c.baseline} (Bayesian signed-rank test, {what} {100 * rope:.3g} point, "
        "verdict at probability 0.95): " + "; ".join(groups) + ".",
        "",
    ]


def _bayes_table(c: Comparison, rope: float) -> pd.DataFrame:
    wil = c.posthoc.get("wilcoxon_holm")
    if wil is None or wil.empty:
        return pd.DataFrame()
    return c.bayesian_signed_rank(rope=rope)


def _against_baseline(
    c: Comparison, bayes: pd.DataFrame, rope: float, at_resolution: pd.DataFrame | None = None
) -> list[str]:
    """The paired mean difference with its interval, Wilcoxon-Holm and the Bayesian
    signed-rank test against the baseline, one table."""
    wil = c.posthoc.get("wilcoxon_holm")
    if wil is None or wil.empty:
        return []
    ci = paired_intervals(c.errors, c.baseline)
    t = pd.DataFrame(index=wil.index)
    t["mean diff [points]"] = 100 * wil["mean_diff"]
    t["95% CI [points]"] = [
        f"{100 * ci.loc[m, 'low']:+.2f} to {100 * ci.loc[m, 'high']:+.2f}" for m in t.index
    ]
    t = t.join(c.win_tie_loss)
    t["p (Holm)"] = wil["pvalue_holm"]
    t = t.join(bayes)
    extra = ""
    if at_resolution is not None and not at_resolution.empty:
        t["verdict at resolution"] = at_resolution["verdict"].reindex(t.index)
        extra = (
            " The last column is the Bayesian verdict with the region of practical equivalence "
            "set to the resolution the noise controls measured."
        )
    t.index.name = "method"
    return [
        f"## Against {c.baseline}",
        "",
        f"Per method: the paired mean test-error difference from {c.baseline} over the data "
        "sets (negative = lower error) with its 95 % Student t interval over the data sets, "
        "wins/ties/losses, Wilcoxon's signed-rank test over the data sets (zero differences "
        "split between the signs) with Holm's correction, and the "
        "Bayesian signed-rank test (Benavoli, Corani, Demšar and Zaffalon 2017; 50,000 seeded "
        f"posterior draws) with a region of practical equivalence of {100 * rope:g} point of "
        "test error: P(better), P(equivalent), P(worse), and the verdict (the one reaching "
        "0.95, else undecided)." + extra,
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
    s.insert(0, "place", place_labels(c.ranks).reindex(s.index))
    s["test_error"] = 100 * s["test_error"]
    s = s.rename(columns={"test_error": "test error [%]"})
    return [
        "## Methods",
        "",
        f"Place (tied methods share one: 2=), average rank over the {c.n_datasets} data sets "
        "(1 = lowest mean test error, ties "
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
        markdown_table(100 * c.errors[c.methods], digits=3),
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
    noise: NoiseControls | None = None,
    definition: Mapping[str, Any] | None = None,
) -> str:
    out = _header(name, results)
    c = comparison
    if c is None:
        out += ["## Verdict", "", f"No comparison: {why_not}.", ""]
    else:
        bayes = _bayes_table(c, rope)
        res_bayes = None
        if noise is not None and noise.resolution > 0 and not bayes.empty:
            res_bayes = _bayes_table(c, noise.resolution)
        out += ["## Verdict", "", c.verdict(), "", _baseline_line(c, planned), ""]
        out += _bayes_summary(c, bayes, rope)
        if res_bayes is not None and noise is not None:
            out += _bayes_summary(c, res_bayes, noise.resolution, "at the measured resolution")
        out += noise_lines(noise, rope, markdown_table)
        out += _against_baseline(c, bayes, rope, res_bayes) + _small_study(c, rope)
        out += _methods(c) + _tests(c) + _tables(c)
    out += protocol_lines(definition, results, markdown_table) + provenance_lines(results)
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
    dpi: int = 200
    cost: float = 3.0
    planned: bool = False  # the baseline was named by the study before it ran
    noise_controls: tuple[tuple[str, str], ...] = ()  # control -> the method it replicates
    definition: Mapping[str, Any] | None = None  # the study's (its protocol section)
    formats: tuple[str, ...] = ("png", "pdf")  # the figures' files (the first embedded)

    def __call__(self, outdir: Path) -> dict[str, Path]:
        from svmtune.study.figures._verdict_plots import verdict_plot_jobs

        out = Path(outdir)
        results = self.results
        stored = list(dict.fromkeys(results["method"])) if "method" in results.columns else []
        controls = all_controls(self.methods or stored, self.noise_controls)
        methods = ranked_methods(self.methods, controls, stored)
        paths: dict[str, Path] = {}
        comparison: Comparison | None = None
        why_not = ""
        present = set(stored)
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
            with_units(comparison.summary()).to_csv(out / "comparison.csv")
            paths["comparison"] = out / "comparison.csv"
            paths.update(write_latex_tables(comparison, out, methods=methods))
        if comparison is not None and comparison.has_rank_tests:  # a CD diagram needs its test
            empty = self.traces.iloc[:0]  # the CD diagram only: the others are other jobs
            cd_jobs = verdict_plot_jobs(
                comparison, empty, methods=methods, dpi=self.dpi, formats=self.formats
            )
            for job in cd_jobs:
                paths.update(job(out))
        figures = {k: p for k, p in paths.items() if p.suffix not in (".csv", ".tex")}
        figures.update({Path(f).stem: out / f for f in self.figures})
        for stem in (Path(f).stem for f in self.figures):  # its other formats, linked
            figures.update({f"{stem}.{e}": out / f"{stem}.{e}" for e in self.formats[1:]})
        noise = None
        if comparison is not None and controls:
            noise = noise_controls_of(results, controls, datasets=list(comparison.errors.index))
        text = _report_text(
            self.name, results, comparison, why_not, figures, planned=planned, noise=noise,
            definition=self.definition,
        )  # fmt: skip
        (out / "report.md").write_text(text, encoding="utf-8")
        paths["report"] = out / "report.md"
        return paths


def verdict_jobs(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    *,
    name: str = "study",
    methods: Sequence[str] | None = None,
    baseline: str | None = None,
    dpi: int = 200,
    noise_controls: Mapping[str, str] | None = None,
    definition: Mapping[str, Any] | None = None,
    formats: str | Sequence[str] = ("png", "pdf"),
    objectives: Mapping[str, str] | None = None,
) -> list[ReportJob]:
    """What :func:`write_verdict` writes, as report jobs: :class:`VerdictText` (comparison,
    CD diagram, ``report.md``) and one figure job per anytime figure (:func:`svmtune.study.
    _figure_jobs.run_jobs` runs them, in one process or two). Noise controls (``noise_controls``
    or the study ``definition``'s; control -> the method it replicates) are in report.md's own
    section, not in the ranks, the tests or the verdict's figures."""
    from svmtune.study.figures._output import check_formats
    from svmtune.study.figures._verdict_plots import verdict_plot_jobs

    formats = check_formats(formats)

    given = dict(noise_controls or (definition or {}).get("noise_controls") or {})
    stored = list(dict.fromkeys(results["method"])) if "method" in results.columns else []
    controls = all_controls(methods or stored, tuple(given.items()))
    ranked = ranked_methods(methods, controls, stored)
    figures = verdict_plot_jobs(
        None,
        without_controls(traces, controls),
        methods=ranked,
        dpi=dpi,
        formats=formats,
        objectives=objectives,
    )
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
        noise_controls=tuple(given.items()),
        definition=definition,
        formats=formats,
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
    noise_controls: Mapping[str, str] | None = None,
    definition: Mapping[str, Any] | None = None,
) -> dict[str, Path]:
    """Write ``report.md``, ``comparison.csv`` (one row per method) and the verdict's figures
    (:func:`svmtune.study.figures.save_verdict_plots`) into ``outdir``.

    A study that cannot be compared (no finished cell, a single method) still gets its report
    saying why, and its anytime figures. ``noise_controls`` (control -> the method it
    replicates; default the ``definition``'s) are reported apart, not ranked; ``definition``
    (``Study.definition()``) gives report.md its protocol section.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = verdict_jobs(
        results, traces, name=name, methods=methods, baseline=baseline,
        noise_controls=noise_controls, definition=definition,
    )  # fmt: skip
    paths = run_jobs(jobs, out)
    paths["report"] = paths.pop("report")  # last, as before
    return paths
