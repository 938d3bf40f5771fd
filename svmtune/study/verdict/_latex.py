"""The verdict's tables as LaTeX (booktabs), for a paper to ``\\input``: the tests against the
baseline (``verdict_table.tex``) and the mean ± sd test error per data set, the best of each
row in bold (``errors_table.tex``).

Each file is a ``table`` environment with its caption and label; the paper needs
``\\usepackage{booktabs}``. Method and data set names are escaped (``_``, ``%``, ``&``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from svmtune.study.verdict._bayes import ROPE
from svmtune.study.verdict._compare import Comparison
from svmtune.study.verdict._noise import paired_intervals

__all__ = [
    "INTERVAL_COLUMNS",
    "errors_table",
    "latex_escape",
    "verdict_table",
    "write_latex_tables",
]

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}

#: Column pairs (low, high) of a 95 % interval of the mean test-error difference from the
#: baseline, looked for in this order in the Wilcoxon-Holm table and in
#: ``Comparison.summary()``; in fractions of test error, like ``mean_diff``.
INTERVAL_COLUMNS = (
    ("mean_diff_ci_low", "mean_diff_ci_high"),
    ("diff_ci_low", "diff_ci_high"),
    ("ci_low", "ci_high"),
    ("mean_diff_lo", "mean_diff_hi"),
    ("ci95_low", "ci95_high"),
)

#: Methods per block of columns of the per-data-set table (a block is a tabular of its own).
METHODS_PER_BLOCK = 5


def latex_escape(text: object) -> str:
    """``text`` with LaTeX's special characters escaped.

    Examples
    --------
    >>> print(latex_escape("LOO_2 + 50% & more"))
    LOO\\_2 + 50\\% \\& more
    """
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def _num(v: object, fmt: str) -> str:
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    return "" if math.isnan(x) else format(x, fmt)


def _table(body: list[str], caption: str, label: str) -> str:
    return "\n".join(
        [
            r"\begin{table}[htbp]",
            r"\centering",
            r"\small",
            rf"\caption{{{caption}}}",
            rf"\label{{{label}}}",
            *body,
            r"\end{table}",
            "",
        ]
    )


def _tabular(spec: str, head: list[str], rows: list[list[str]]) -> list[str]:
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    return [*lines, r"\bottomrule", r"\end{tabular}"]


def interval_columns(frame: pd.DataFrame) -> tuple[str, str] | None:
    """The first pair of :data:`INTERVAL_COLUMNS` that ``frame`` holds, else None."""
    for lo, hi in INTERVAL_COLUMNS:
        if lo in frame.columns and hi in frame.columns:
            return lo, hi
    return None


def verdict_table(c: Comparison, *, rope: float = ROPE) -> str:
    """The tests of every method against the baseline as a booktabs table: mean difference
    of test error in points (with its 95 % interval where the comparison holds one,
    :data:`INTERVAL_COLUMNS`), wins/ties/losses over the data sets, Wilcoxon's p-value with
    Holm's correction, and the Bayesian signed-rank test's P(better), P(equivalent),
    P(worse) and verdict. An empty string where the comparison holds no test against the
    baseline (fewer than two methods, too few data sets)."""
    wil = c.posthoc.get("wilcoxon_holm")
    if wil is None or wil.empty:
        return ""
    t = wil.copy()
    if c.baseline is not None and c.baseline in c.errors.columns:  # the paired t interval
        paired = paired_intervals(c.errors, c.baseline)[["low", "high"]]
        t = t.join(paired.rename(columns={"low": "ci_low", "high": "ci_high"}), how="left")
    summary = c.summary()
    ci = interval_columns(t)
    in_summary = interval_columns(summary)
    if ci is None and in_summary is not None:
        ci = in_summary
        t = t.join(summary[list(in_summary)], how="left")
    t = t.join(c.win_tie_loss, how="left")
    bayes = c.bayesian_signed_rank(rope=rope)
    t = t.join(bayes, how="left").sort_values("mean_diff", kind="stable")
    head = ["Method", "$\\Delta$ [points]", "W/T/L", "$p$ (Holm)"]
    head += ["$P(\\mathrm{better})$", "$P(\\mathrm{equiv.})$", "$P(\\mathrm{worse})$", "Verdict"]
    rows = []
    for m, r in t.iterrows():
        diff = _num(100 * float(r["mean_diff"]), "+.2f")
        if ci is not None:
            lo, hi = _num(100 * float(r[ci[0]]), "+.2f"), _num(100 * float(r[ci[1]]), "+.2f")
            if lo and hi:
                diff += f" [{lo}, {hi}]"
        wtl = "/".join(_num(r.get(k), ".0f") for k in ("wins", "ties", "losses"))
        rows.append(
            [
                latex_escape(m),
                diff,
                wtl,
                _num(r.get("pvalue_holm"), ".3g"),
                *(_num(r.get(k), ".3f") for k in ("p_better", "p_rope", "p_worse")),
                latex_escape(r.get("verdict", "") if isinstance(r.get("verdict"), str) else ""),
            ]
        )
    interval = " [95\\,\\% interval]" if ci is not None else ""
    caption = (
        f"Each method against {latex_escape(c.baseline)} over {c.n_datasets} data sets: mean "
        f"test-error difference $\\Delta$ in points{interval} (negative: lower error), "
        "wins/ties/losses, Wilcoxon's signed-rank test with Holm's correction, and the Bayesian "
        "signed-rank test (Benavoli et al.\\ 2017) with a region of practical equivalence of "
        f"{100 * rope:g} point."
    )
    return _table(_tabular("lrrrrrrl", head, rows), caption, "tab:verdict")


def _bold_best(shown: dict[str, str]) -> set[str]:
    """The methods whose shown mean equals the lowest shown mean (ties bold together)."""
    values = {m: float(s) for m, s in shown.items() if s}
    if not values:
        return set()
    best = min(values.values())
    return {m for m, v in values.items() if v == best}


def errors_table(c: Comparison, *, methods: Sequence[str] | None = None) -> str:
    """Mean ± sd of test error [%] over the splits, one row per data set, one column per
    method (in blocks of :data:`METHODS_PER_BLOCK`, one tabular each, so that a page holds
    them); in each row the lowest mean as shown (two decimals) is bold, every method that
    ties it too."""
    order = [m for m in (methods or c.methods) if m in c.methods]
    mean = 100 * c.table.xs("test_error", axis=1, level="stat")[order]
    sd = 100 * c.table.xs("test_error_sd", axis=1, level="stat")[order]
    cells: dict[str, dict[str, str]] = {}
    for d in mean.index:
        shown = {m: _num(mean.loc[d, m], ".2f") for m in order}
        bold = _bold_best(shown)
        row = {}
        for m in order:
            text = shown[m]
            if text:
                s = _num(sd.loc[d, m], ".2f")
                text = f"{text} $\\pm$ {s}" if s else text
                if m in bold:
                    text = f"\\textbf{{{text}}}"
            row[m] = text
        cells[str(d)] = row
    body: list[str] = []
    for i in range(0, len(order), METHODS_PER_BLOCK):
        block = order[i : i + METHODS_PER_BLOCK]
        head = ["Data set", *(latex_escape(m) for m in block)]
        rows = [[latex_escape(d), *(cells[d][m] for m in block)] for d in cells]
        if body:
            body.append(r"\par\medskip")
        body += _tabular("l" + "r" * len(block), head, rows)
    caption = (
        "Test error [\\%] per data set: mean $\\pm$ sd over the splits; the lowest mean of "
        "each row (as shown) in bold, ties bold together."
    )
    return _table(body, caption, "tab:errors")


def write_latex_tables(
    c: Comparison, outdir: str | Path, *, methods: Sequence[str] | None = None
) -> dict[str, Path]:
    """Write ``verdict_table.tex`` (when the comparison tests against the baseline) and
    ``errors_table.tex`` into ``outdir``; return name -> path.

    Examples
    --------
    >>> import pandas as pd, tempfile
    >>> from svmtune.study import compare
    >>> r = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "split": [0] * 4,
    ...                   "method": ["x_1", "y", "x_1", "y"], "status": ["ok"] * 4,
    ...                   "test_error": [0.1, 0.2, 0.3, 0.3], "cpu_s": [1.0] * 4})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     files = write_latex_tables(compare(r), d)
    ...     text = files["errors_table"].read_text()
    >>> sorted(files), r"x\\_1" in text, r"\\textbf{10.00}" in text
    (['errors_table'], True, True)
    """
    out = Path(outdir)
    written: dict[str, Path] = {}
    for name, text in (
        ("verdict_table", verdict_table(c)),
        ("errors_table", errors_table(c, methods=methods)),
    ):
        if text:
            path = out / f"{name}.tex"
            path.write_text(text, encoding="utf-8")
            written[name] = path
    return written
