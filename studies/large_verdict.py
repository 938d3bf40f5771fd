"""The large benchmark's verdict at CPU budgets and its size ladder (for ``benchmark_large.py``).

A tuning run's *answer at a budget of B CPU seconds* is what a user who stops it at B holds:

- a svmtune run (which keeps an anytime trace) answers with the incumbent after the last
  evaluation that finished within B seconds;
- a peer (a scikit-learn or Optuna search, which cannot be stopped part-way) answers only if its
  whole run took at most B seconds;
- a run that failed or refused (a size limit) answers at no budget.

At each budget the methods are compared three ways, each saying what it leaves out:

- the mean test error over the runs that answered, and how many answered;
- the average rank over every problem, where a method without an answer ranks below every
  method with one (tied with the others without one): at a budget, having no model is worse
  than having any;
- each method against the pre-planned baseline, paired over the problems where both answered:
  the mean difference of test error with its 95 % Student t interval, and Benavoli, Corani,
  Demšar and Zaffalon's Bayesian signed-rank test ("Time for a change: a tutorial for comparing
  multiple classifiers through Bayesian analysis", JMLR 2017) with a region of practical
  equivalence of one point (:meth:`svmtune.study.Comparison.bayesian_signed_rank`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from svmtune.study import compare

#: Half-width of the region of practical equivalence: one point of test error.
ROPE = 0.01
#: Cell statuses that carry an answer (a run stopped at the study's budget keeps its trace).
FINISHED = ("ok", "timeout")


def answers(
    cells: pd.DataFrame, traces: pd.DataFrame, *, peers: Iterable[str], budgets: Sequence[float]
) -> pd.DataFrame:
    """One row per (dataset, split, method, budget): ``error`` (the answer's test error, a
    fraction; NaN without one) and ``cpu_s`` (the CPU seconds spent to reach it)."""
    peers = set(peers)
    rows = []
    by_run = {k: t for k, t in traces.groupby(["dataset", "split", "method"], sort=False)}
    for cell in cells.itertuples(index=False):
        key = (cell.dataset, cell.split, cell.method)
        tr = by_run.get(key)
        for b in budgets:
            err = cpu = math.nan
            if cell.status in FINISHED:
                if cell.method in peers:
                    if cell.cpu_s <= b:
                        err, cpu = cell.test_error, cell.cpu_s
                elif tr is not None:
                    done = tr[(tr["cum_cpu_s"] <= b) & tr["incumbent_test_error"].notna()]
                    if len(done):
                        err = done["incumbent_test_error"].iloc[-1]
                        cpu = done["cum_cpu_s"].iloc[-1]
            rows.append(
                dict(
                    zip(("dataset", "split", "method"), key, strict=True),
                    budget=b,
                    error=err,
                    cpu_s=cpu,
                )
            )
    return pd.DataFrame(rows, columns=["dataset", "split", "method", "budget", "error", "cpu_s"])


def at_budgets(answered: pd.DataFrame) -> pd.DataFrame:
    """Mean test error (percent) of each method's answers at each budget and how many runs
    answered: indexed by method, columns ``error_<B>s`` and ``answered_<B>s``."""
    g = (100 * answered.set_index(["method", "budget"])["error"]).groupby(level=[0, 1])
    out = pd.DataFrame({"error": g.mean(), "answered": g.count()}).unstack("budget")
    out.columns = [f"{what}_{b:g}s" for what, b in out.columns]
    return out


def _ranks(errors: pd.DataFrame, present: pd.DataFrame) -> pd.Series:
    """Average rank per method (columns) over the problems (rows) where it has a cell
    (``present``): lowest error 1, ties averaged, a NaN (no answer) below every answer, tied
    with the other NaNs."""
    filled = errors.fillna(np.inf).where(present)  # inf == inf: those without an answer tie
    return filled.rank(axis=1, method="average").mean()


def _errors_and_ranks(part: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """One budget's answers: the test error per problem (rows) and method (columns, the mean
    over its splits that answered) and each method's average rank (:func:`_ranks`)."""
    errors = part.pivot_table(index="dataset", columns="method", values="error", dropna=False)
    present = part.pivot_table(index="dataset", columns="method", values="budget", aggfunc="size")
    return errors, _ranks(errors, present.reindex_like(errors).notna())


def rank_curves(answered: pd.DataFrame) -> pd.DataFrame:
    """Per budget (rows) and method (columns): the average rank over every problem where the
    method has a cell (no answer ranks last, as in :func:`budget_verdict`) and the share of its
    runs that answered; columns a two-level index (``avg_rank`` / ``answered``, method)."""
    out = {}
    for b, part in answered.groupby("budget"):
        _, ranks = _errors_and_ranks(part)
        share = part.groupby("method")["error"].apply(lambda e: float(e.notna().mean()))
        out[b] = pd.concat({"avg_rank": ranks, "answered": share})
    frame = pd.DataFrame(out).T
    frame.index.name = "budget"
    return frame


def rank_figure(curves: pd.DataFrame, *, budget: float):
    """Two panels against the CPU budget (log axis): each method's average rank (1 = best;
    lower is better) and the share of its runs with an answer within the budget."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    methods = list(curves["avg_rank"].columns)
    final = curves["avg_rank"].iloc[-1].sort_values(kind="stable")
    methods = list(final.index) + [m for m in methods if m not in final.index]
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax_rank, ax_ans = fig.subplots(1, 2)
    colours = matplotlib.colormaps["tab20"](np.linspace(0, 1, max(len(methods), 2)))
    markers = "osD^v<>pPX*hH+x"
    x = curves.index.to_numpy(dtype=float)
    for i, m in enumerate(methods):
        style = dict(color=colours[i], marker=markers[i % len(markers)], ms=3, lw=1.2, label=m)
        ax_rank.plot(x, curves[("avg_rank", m)], **style)
        ax_ans.plot(x, 100 * curves[("answered", m)], **style)
    ax_rank.set(xscale="log", xlabel="CPU budget per tuning run [s]",
                ylabel="average rank (1 = lowest test error)")  # fmt: skip
    ax_rank.invert_yaxis()
    ax_ans.set(xscale="log", xlabel="CPU budget per tuning run [s]",
               ylabel="runs with an answer [%]", ylim=(-3, 103))  # fmt: skip
    for ax in (ax_rank, ax_ans):
        ax.axvline(budget, color="0.4", ls="--", lw=0.8)
        ax.grid(True, which="major", lw=0.4, alpha=0.5)
    ax_ans.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def _against(errors: pd.DataFrame, method: str, baseline: str) -> dict:
    """``method`` against ``baseline`` over the problems where both answered."""
    both = errors[[method, baseline]].dropna()
    row: dict = {"pairs": len(both)}
    d = 100 * (both[method] - both[baseline]).to_numpy()
    row["mean_diff"] = float(d.mean()) if d.size else math.nan
    row["low"] = row["high"] = math.nan
    if d.size >= 2:
        from scipy.stats import t as student

        half = float(student.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size))
        row["low"], row["high"] = row["mean_diff"] - half, row["mean_diff"] + half
    row.update(p_better=math.nan, p_rope=math.nan, p_worse=math.nan, verdict="")
    if len(both) >= 2:
        long = (
            both.rename_axis("dataset")
            .reset_index()
            .melt(id_vars="dataset", var_name="method", value_name="test_error")
        )
        long["split"], long["status"], long["cpu_s"] = 0, "ok", 0.0
        c = compare(long, methods=[baseline, method], baseline=baseline)
        bayes = c.bayesian_signed_rank(rope=ROPE).loc[method]
        row.update({k: bayes[k] for k in ("p_better", "p_rope", "p_worse", "verdict")})
    return row


def budget_verdict(answered: pd.DataFrame, *, baseline: str) -> pd.DataFrame:
    """Per budget and method: ``answered`` runs, mean ``error`` [%] over them, ``avg_rank``
    over every problem (no answer ranks last), and against ``baseline`` over the problems where
    both answered: ``pairs``, ``mean_diff`` [points] with its 95 % interval (``low``,
    ``high``), the Bayesian signed-rank probabilities and ``verdict``."""
    rows = []
    for b, part in answered.groupby("budget"):
        errors, ranks = _errors_and_ranks(part)
        counts = part.groupby("method")["error"].count()
        for m in errors.columns:
            row = {"budget": b, "method": m, "answered": int(counts[m])}
            row["error"] = 100 * float(part.loc[part["method"] == m, "error"].mean())
            row["avg_rank"] = float(ranks[m])
            if m != baseline and baseline in errors.columns:
                row.update(_against(errors, m, baseline))
            rows.append(row)
    out = pd.DataFrame(rows)
    return out.sort_values(["budget", "avg_rank"], kind="stable").set_index(["budget", "method"])


def _ladder_cells(cells: pd.DataFrame, sizes: Mapping[str, int]) -> pd.DataFrame:
    """The finished cells of the ladder's problems, with their nominal size ``size``."""
    gen = cells[cells["dataset"].isin(list(sizes)) & cells["status"].isin(FINISHED)].copy()
    gen["size"] = [sizes[d] for d in gen["dataset"]]
    return gen


def size_ladder(cells: pd.DataFrame, sizes: Mapping[str, int]) -> pd.DataFrame:
    """Each method's slope of log CPU seconds on log training size over the ladder's problems
    (``sizes``: problem -> nominal training size; least squares over every finished cell, NaN
    with fewer than two sizes), with the mean test error (percent) and CPU seconds at each
    nominal size."""
    gen = _ladder_cells(cells, sizes)
    rows = []
    for m, part in gen.groupby("method"):
        x, y = np.log(part["n_train"].to_numpy(float)), np.log(part["cpu_s"].to_numpy(float))
        slope = float(np.polyfit(x, y, 1)[0]) if part["size"].nunique() >= 2 else math.nan
        row = {"method": m, "slope": slope}
        for n, at in part.groupby("size"):
            row[f"cpu_s_{n}"] = at["cpu_s"].mean()
            row[f"error_{n}"] = 100 * at["test_error"].mean()
        rows.append(row)
    return pd.DataFrame(rows).set_index("method")


def ladder_figure(cells: pd.DataFrame, sizes: Mapping[str, int], *, budget: float):
    """Two panels over the ladder's training sizes (log axes): each method's mean CPU seconds
    of a tuning run (the budget drawn as a line) and its mean test error; a marker per size."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    gen = _ladder_cells(cells, sizes)
    means = gen.groupby(["method", "size"])[["cpu_s", "test_error"]].mean()
    methods = list(dict.fromkeys(gen["method"]))
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax_cpu, ax_err = fig.subplots(1, 2)
    colours = matplotlib.colormaps["tab20"](np.linspace(0, 1, max(len(methods), 2)))
    markers = "osD^v<>pPX*hH+x"
    for i, m in enumerate(methods):
        at = means.loc[m]
        style = dict(color=colours[i], marker=markers[i % len(markers)], ms=4, lw=1.2, label=m)
        ax_cpu.plot(at.index, at["cpu_s"], **style)
        ax_err.plot(at.index, 100 * at["test_error"], **style)
    ax_cpu.axhline(budget, color="0.4", ls="--", lw=0.8)
    ax_cpu.annotate(f"budget {budget:g} s", (0.02, budget), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize=8, color="0.3")  # fmt: skip
    ax_cpu.set(xscale="log", yscale="log", xlabel="training points", ylabel="CPU seconds per run")
    ax_err.set(xscale="log", xlabel="training points", ylabel="test error [%] (mean of problems)")
    for ax in (ax_cpu, ax_err):
        ax.grid(True, which="major", lw=0.4, alpha=0.5)
    ax_err.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    """A markdown table of ``df`` (index first; NaN as an empty cell)."""

    def cell(v: object) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.{digits}g}"
        return str(v)

    head = [df.index.name or "", *map(str, df.columns)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [
        "| " + " | ".join([str(i), *map(cell, r)]) + " |"
        for i, r in zip(df.index, df.values, strict=True)
    ]
    return "\n".join(lines)


def report_sections(
    verdict: pd.DataFrame,
    ladder: pd.DataFrame,
    *,
    baseline: str,
    figure: str | None,
    rank_figure: str | None = None,
) -> str:
    """``report.md``'s sections on the verdict at budgets and the size ladder (markdown)."""
    how = re.sub(r":\w+:`([^`]+)`", r"`\1`", __doc__.split("\n\n", 1)[1].strip())
    out = ["## The verdict at CPU budgets", "", how, ""]
    if rank_figure:
        out += [
            f"![Average rank and runs with an answer against the CPU budget]({rank_figure})",
            "",
            "*Each method's average rank over the problems (left; no answer ranks last) and the "
            "share of its runs with an answer (right) at CPU budgets from 1 s to the study's "
            "budget (dashed), log-spaced (`rank_at_budgets.csv`).*",
            "",
        ]
    for b, part in verdict.groupby(level="budget"):
        t = part.droplevel("budget")
        t = t.reindex(columns=[*t.columns, *({"low", "high"} - set(t.columns))])
        t["ci"] = [
            "" if math.isnan(lo) else f"{lo:+.2f} to {hi:+.2f}"
            for lo, hi in zip(t["low"], t["high"], strict=True)
        ]
        cols = ["answered", "error", "avg_rank", "pairs", "mean_diff", "ci", "p_better", "p_rope",
                "p_worse", "verdict"]  # fmt: skip
        t = t.reindex(columns=cols)
        t.columns = ["answered", "test error [%]", "avg rank", "pairs", "diff [points]",
                     "95% CI", "p_better", "p_rope", "p_worse", "verdict"]  # fmt: skip
        out += [f"### Within {b:g} CPU seconds (against {baseline})", "", to_markdown(t), ""]
    out += ["## The size ladder", ""]
    out += [
        "Breiman's generated problems at each training size (mean over the generators): each "
        "method's CPU seconds per tuning run and test error, and the slope of log CPU seconds "
        "on log training size (least squares over every finished cell). A run stopped at the "
        "budget flattens its slope: read the slope where the CPU column stays below the budget.",
        "",
    ]
    if figure:
        out += [f"![The size ladder]({figure})", ""]
    out += [to_markdown(ladder.sort_values("slope")), ""]
    return "\n".join(out)


def busy_seconds(starts: pd.Series, ends: pd.Series) -> float:
    """Seconds during which at least one cell ran: the length of the union of the cells'
    [start, end] intervals (a run interrupted and resumed later counts no gap)."""
    spans = sorted(zip(starts, ends, strict=True))
    total, cur_lo, cur_hi = 0.0, None, None
    for lo, hi in spans:
        if cur_hi is None or lo > cur_hi:
            if cur_hi is not None:
                total += (cur_hi - cur_lo).total_seconds()
            cur_lo, cur_hi = lo, hi
        else:
            cur_hi = max(cur_hi, hi)
    if cur_hi is not None:
        total += (cur_hi - cur_lo).total_seconds()
    return total


def cost_ratios(cells: pd.DataFrame, pairs: Mapping[str, str]) -> pd.DataFrame:
    """Each svmtune method's CPU seconds over its peer's (``pairs``: method -> peer) on the
    problems where both runs finished ok (a run stopped at the budget, refused or failed is
    left out): how many problems, the median, the smallest and the largest ratio, and the
    problems where the smallest and the largest were found."""
    ok = cells[cells["status"] == "ok"].pivot_table(
        index="dataset", columns="method", values="cpu_s", aggfunc="mean"
    )
    rows = []
    for method, peer in pairs.items():
        if method not in ok or peer not in ok:
            continue
        ratio = (ok[method] / ok[peer]).dropna()
        if ratio.empty:
            continue
        rows.append({"method": method, "peer": peer, "problems": len(ratio),
                     "median": ratio.median(), "min": ratio.min(), "at_min": ratio.idxmin(),
                     "max": ratio.max(), "at_max": ratio.idxmax()})  # fmt: skip
    columns = ["method", "peer", "problems", "median", "min", "at_min", "max", "at_max"]
    return pd.DataFrame(rows, columns=columns).set_index("method")


def cost_section(ratios: pd.DataFrame) -> str:
    """``report.md``'s section on each svmtune method's CPU against its peer's."""
    return "\n".join(
        [
            "## Cost against the peers",
            "",
            "CPU seconds of each svmtune method over its scikit-learn / Optuna counterpart's on "
            "the same problems, box and folds, where both finished ok "
            "(`cost_ratios.csv`; below 1: svmtune took less).",
            "",
            to_markdown(ratios) if len(ratios) else "(no problem where both finished ok)",
            "",
        ]
    )


def time_spent(cells: pd.DataFrame, *, by: Mapping[str, str]) -> str:
    """``report.md``'s section on where the run's time went: CPU seconds billed by method and by
    group of problems (``by``: problem -> group), and the wall time the cells took."""
    done = cells[cells["started_at"].notna() & cells["finished_at"].notna()]
    cpu = float(done["cpu_s"].sum())
    busy = busy_seconds(done["started_at"], done["finished_at"])
    span = (done["finished_at"].max() - done["started_at"].min()).total_seconds()
    groups = done.assign(group=[by.get(d, d) for d in done["dataset"]])
    lines = [
        "## Where the time went",
        "",
        f"{len(done)} cells billed {cpu:,.0f} CPU seconds ({cpu / 3600:.1f} CPU hours). Cells "
        f"ran during {busy / 3600:.2f} hours of wall time (the union of their start-to-end "
        f"intervals; {span / 3600:.2f} hours from the first start to the last end, pauses "
        "included).",
        "",
    ]
    for key, title in (("group", "problems"), ("method", "method")):
        t = groups.groupby(key)["cpu_s"].agg(["count", "sum", "mean", "max"])
        t["share"] = 100 * t["sum"] / cpu
        t = t.sort_values("sum", ascending=False)
        for col in ("sum", "mean", "max"):
            t[col] = [f"{v:,.0f}" if v == v else "" for v in t[col]]
        t["share"] = [f"{v:.1f}" for v in t["share"]]
        t.columns = ["cells", "CPU s", "mean CPU s", "max CPU s", "share [%]"]
        t.index.name = title
        lines += [to_markdown(t), ""]
    return "\n".join(lines)


#: Put under the generic report's "## Verdict" heading: which verdict is this suite's.
VERDICT_NOTE = (
    'This suite\'s verdict is the one at CPU budgets ("The verdict at CPU budgets", below). '
    "The comparison in this section is the main benchmark's: it keeps only the problems on which "
    "every method finished ok, and here a run stopped at the budget, a peer refused above its "
    "size limit or Platt's error refused above its memory limit drops the problem from it; the "
    "generic figures below draw only the cells that finished ok."
)


def point_to_budget_verdict(report: Path, note: str = VERDICT_NOTE) -> None:
    """Put ``note`` first under ``report``'s ``## Verdict`` heading (once; none if absent)."""
    if not report.is_file():
        return
    text = report.read_text(encoding="utf-8")
    head = "## Verdict\n\n"
    if head in text and note not in text:
        report.write_text(text.replace(head, head + note + "\n\n", 1), encoding="utf-8")


def append_to_report(
    report: Path, text: str, *, marker: str = "## The verdict at CPU budgets"
) -> None:
    """Put ``text`` at the end of ``report`` (replacing an earlier copy from ``marker`` on)."""
    if not report.is_file():
        report.write_text(text + "\n", encoding="utf-8")
        return
    old = report.read_text(encoding="utf-8")
    head = old.split(marker, 1)[0].rstrip("\n")
    report.write_text(head + "\n\n" + text + "\n", encoding="utf-8")
