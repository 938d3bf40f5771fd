"""Write a study's report: results and summary as CSV, the standard plots as PNG."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from svmtune.study.store._results import summary_by_method, summary_long, with_units

__all__ = ["objective_labels", "search_boxes", "write_report"]


def _box_text(box: object) -> str:
    if not isinstance(box, Mapping) or not box:
        return "(own search space)"
    return ", ".join(f"{name} {lo:g}..{hi:g}" for name, (lo, hi) in box.items())


def search_boxes(results: pd.DataFrame, *, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """The boxes the cells of each method searched: one row per (method, box) with the number
    of cells (a peer, which searches its own space, shows ``(own search space)``).

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"method": ["a", "a"], "box": [{"C": [0.1, 1000.0]}] * 2})
    >>> search_boxes(cells).to_dict("records")
    [{'method': 'a', 'box': 'C 0.1..1000', 'cells': 2}]
    """
    if "box" not in results.columns or results.empty:
        return pd.DataFrame(columns=["method", "box", "cells"])
    flat = pd.DataFrame({"method": results["method"], "box": results["box"].map(_box_text)})
    out = flat.groupby(["method", "box"], sort=False).size().reset_index(name="cells")
    if methods is not None:
        rank = {m: i for i, m in enumerate(methods)}
        out = out.sort_values("method", key=lambda c: c.map(rank), kind="stable")
    return out.reset_index(drop=True)


def objective_labels(method_records: Mapping[str, object]) -> dict[str, str]:
    """Method -> a short name of its objective, from a study definition's ``"methods"``.

    Methods whose objective records are equal get the same name: the class name, followed by
    the options that tell it from the other objectives of the same class in the study.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV, LOOEstimate
    >>> from svmtune.study import Method
    >>> from svmtune.tuners import Bisection, Grid
    >>> ms = {"a": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
    ...       "b": Method(LOOEstimate(model="loo3"), Grid(), RBF()),
    ...       "c": Method(KFoldCV(), Grid(), RBF())}
    >>> objective_labels({k: m.describe() for k, m in ms.items()})
    {'a': "LOOEstimate(model='loo2')", 'b': "LOOEstimate(model='loo3')", 'c': 'KFoldCV'}
    """
    records: dict[str, dict[str, object]] = {}
    for m, rec in method_records.items():
        obj = rec.get("objective") if isinstance(rec, Mapping) else None
        if isinstance(obj, Mapping) and isinstance(obj.get("params"), Mapping):
            records[m] = {"class": obj.get("class"), **obj["params"]}
        else:  # a method type of its own, or an old stored definition
            records[m] = {"class": str(obj) if obj is not None else m}
    out = {}
    for m, rec in records.items():
        same_class = [r for r in records.values() if r["class"] == rec["class"]]
        differing = [k for k in rec if k != "class" and any(r.get(k) != rec[k] for r in same_class)]
        opts = ", ".join(f"{k}={rec[k]!r}" for k in differing)
        out[m] = f"{rec['class']}({opts})" if opts else str(rec["class"])
    return out


def _study_name(results: pd.DataFrame, out: Path) -> str:
    """The study's name (the results' ``study`` column), else the report folder's name."""
    names = results["study"].dropna().unique() if "study" in results.columns else []
    return str(names[0]) if len(names) == 1 else out.resolve().name


def write_report(
    results: pd.DataFrame,
    traces: pd.DataFrame,
    outdir: str | Path,
    *,
    methods: Sequence[str] | None = None,
    objectives: Mapping[str, str] | None = None,
    n_jobs: int = 1,
    baseline: str | None = None,
    definition: Mapping[str, object] | None = None,
    formats: str | Sequence[str] = ("png", "pdf"),
) -> dict[str, Path]:
    """Write ``results.csv``, ``summary.csv``, ``summary_by_method.csv``, ``boxes.csv`` (the
    box each method searched, :func:`search_boxes`), the plots of
    :func:`svmtune.study.figures.save_plots`, and the verdict (:func:`~svmtune.study.write_verdict`:
    ``report.md``, ``comparison.csv``, the critical-difference diagram, anytime profiles, ECDF).

    ``summary.csv`` is tidy: one row per method x data set, one named column per statistic
    (:func:`~svmtune.study.summary_long`); ``summary_by_method.csv`` holds one row per method,
    the averages over the data sets (:func:`~svmtune.study.summary_by_method`).

    Parameters
    ----------
    results, traces : DataFrame
        ``Study.results()`` and ``Study.traces()`` (or ``Storage.cells()/traces()``).
    outdir : path
        Created if missing.
    methods : sequence of str, optional
        Order of the methods in the table and plots. A method with no stored cell yet may be
        named beside others; names that match none of the results' methods (a typo) are
        refused with a ValueError naming them and the stored ones.
    objectives : dict method -> str, optional
        The objective of each method (:func:`objective_labels`): the best-so-far plot shows
        one objective per panel.
    n_jobs : int, default 1
        Processes that draw: with 2 or more (-1: all cores), the figures of the study's plots
        and of the verdict are drawn in that many joblib worker processes, one figure per task
        and at most one process per figure (the pool the cells ran in, when it is still up),
        handed out one at a time, largest estimated cost first, to whichever is free. The files
        written are the same either way.
    baseline : str, optional
        The study's pre-planned baseline (``Study(baseline=...)``): report.md tests every
        method against it. Default: the best-ranked method, and report.md says it was chosen
        after seeing the data.
    definition : dict, optional
        The study's definition (``Study.definition()`` or the stored one): report.md's
        protocol section, and its noise controls (``"noise_controls"``: reported apart from the
        ranked methods).
    formats : str or sequence of str, default ("png", "pdf")
        The files of each figure: any of ``"pdf"`` (fonts embedded), ``"png"`` and ``"svg"``,
        as a list or one string (``"pdf,png"``); report.md embeds the PNG (else the SVG).

    Returns
    -------
    dict
        Name -> path of every file written (``"results"``, ``"summary"``,
        ``"summary_by_method"``, then one per plot).
    """
    _check_methods(results, methods)
    from svmtune.study.figures._output import check_formats

    formats = check_formats(formats)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    flat = results.copy()
    for col in ("best_params", "box"):
        if col in flat.columns:
            flat[col] = [None if p is None else json.dumps(p, sort_keys=True) for p in flat[col]]
    with_units(flat).to_csv(out / "results.csv", index=False)
    paths["results"] = out / "results.csv"
    summary_long(results, methods=methods).to_csv(out / "summary.csv", index=False)
    paths["summary"] = out / "summary.csv"
    by_method = summary_by_method(results, methods=methods)
    by_method.to_csv(out / "summary_by_method.csv", index=False)
    paths["summary_by_method"] = out / "summary_by_method.csv"
    search_boxes(results, methods=methods).to_csv(out / "boxes.csv", index=False)
    paths["boxes"] = out / "boxes.csv"
    # The plots and the verdict are redrawn only when what they show changed (a rerun of a
    # fully stored study redraws nothing): their inputs' fingerprint is kept beside them.
    stamp = out / ".plots.json"
    key = _plots_fingerprint(flat, traces, methods, objectives, baseline, definition, formats)
    try:
        old = json.loads(stamp.read_text())
    except (OSError, ValueError):
        old = {}
    files = old.get("files")
    if (
        old.get("key") == key
        and isinstance(files, dict)
        and all((out / f).is_file() for f in files.values())
    ):
        drawn = {name: out / f for name, f in files.items()}
    else:
        from svmtune.study.figures import run_jobs  # the public name: scripts may time it
        from svmtune.study.figures._plots import plot_jobs  # matplotlib: only when drawing
        from svmtune.study.report._verdict import VerdictText, verdict_jobs

        stamp.unlink(missing_ok=True)
        # the study's plots, then the verdict: report.md, comparison.csv, CD diagram, anytime
        # profiles, ECDF; with n_jobs != 1 drawn in up to n_jobs processes (largest first)
        plots = plot_jobs(results, traces, methods=methods, objectives=objectives, formats=formats)
        verdict = verdict_jobs(
            results,
            traces,
            name=_study_name(results, out),
            methods=methods,
            baseline=baseline,
            definition=definition,
            formats=formats,
            objectives=objectives,
        )
        # report.md embeds every figure: the study's plots too, not only the verdict's
        text = verdict[0]
        if isinstance(text, VerdictText):
            verdict[0] = replace(text, figures=(*(j.name for j in plots), *text.figures))
        jobs = [*plots, *verdict]
        drawn = run_jobs(jobs, out, n_jobs=n_jobs)
        stamp.write_text(json.dumps({"key": key, "files": {k: p.name for k, p in drawn.items()}}))
    paths.update(drawn)
    return paths


def _check_methods(results: pd.DataFrame, methods: Sequence[str] | None) -> None:
    """ValueError if ``methods`` is not a list of distinct names, or names none of the methods
    of non-empty ``results`` (a typo would write an empty report). A method without stored
    cells yet is allowed beside others that have some (a study half done)."""
    if methods is None:
        return
    if isinstance(methods, str) or not all(isinstance(m, str) for m in methods):
        raise ValueError(f"methods must be a list of method names; got {methods!r}")
    repeated = sorted({m for m in methods if list(methods).count(m) > 1})
    if repeated:
        raise ValueError(f"methods must be distinct; repeated: {repeated}")
    stored = list(dict.fromkeys(results["method"])) if "method" in results.columns else []
    if stored and not set(methods) & set(stored):
        raise ValueError(
            f"methods {list(methods)} name none of the methods in the results ({stored})"
        )


def _plots_fingerprint(
    flat: pd.DataFrame,
    traces: pd.DataFrame,
    methods: Sequence[str] | None,
    objectives: Mapping[str, str] | None,
    baseline: str | None = None,
    definition: Mapping[str, object] | None = None,
    formats: Sequence[str] = (),
) -> str:
    """A hash of everything the plots and the verdict show, and of the code that draws them."""
    import hashlib
    import importlib.util

    h = hashlib.sha256()
    h.update(flat.to_csv(index=False).encode())
    h.update(traces.to_csv(index=False).encode())
    h.update(json.dumps([list(methods or []), dict(objectives or {})], default=str).encode())
    h.update(repr((baseline, tuple(formats))).encode())
    h.update(json.dumps(definition, sort_keys=True, default=str).encode())
    for module in (
        "svmtune.study.figures._plots",
        "svmtune.study.figures._verdict_plots",
        "svmtune.study.figures._best_so_far",
        "svmtune.study.figures._cd_diagram",
        "svmtune.study.figures._output",
        "svmtune.study.figures._axes",
        "svmtune.study.figures._save",
        "svmtune.study.figures._palette",
        "svmtune.study.figures._small_multiples",
        "svmtune.study.verdict._latex",
        "svmtune.study.report._verdict",
        "svmtune.study.figures._figure_jobs",
        "svmtune.study.verdict._compare",
        "svmtune.study.verdict._bayes",
        "svmtune.study.verdict._noise",
        "svmtune.study.verdict._sections",
        "svmtune.study.verdict._ties",
    ):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin:
            h.update(Path(spec.origin).read_bytes())
    return h.hexdigest()
