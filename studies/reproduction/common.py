"""What every part of the reproduction page shares: how a number prints, a markdown table, and
the stored cells and traces of a study (those ok, on the splits asked for)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from svmtune.study import Study

COMMAND = "python studies/reproductions.py"
NOT_RUN = "not run"
NOT_BUNDLED = "not bundled"
LEFT_OUT = "left out (time)"


def num(x: float | None, nd: int = 2) -> str:
    """A number as the page prints it; NaN/None is "not run"."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return NOT_RUN
    return f"{x:.{nd}f}"


def pm(mean: float, sd: float, nd: int = 2) -> str:
    if math.isnan(mean):
        return NOT_RUN
    return f"{mean:.{nd}f} ± {sd:.{nd}f}" if not math.isnan(sd) else f"{mean:.{nd}f}"


def delta(ours: float, paper: float) -> str:
    if math.isnan(ours) or math.isnan(paper):
        return ""
    return f"{ours - paper:+.2f}"


def md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def stats(values: pd.Series) -> tuple[float, float, int]:
    """Mean, sd and count of the numbers among ``values``."""
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return math.nan, math.nan, 0
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan, len(v)


def params_of(value: Any) -> dict[str, float]:
    """A cell's ``best_params`` (a dict, or its JSON) as floats."""
    raw = json.loads(value) if isinstance(value, str) else value
    return {str(k): float(v) for k, v in dict(raw).items()}


def ok_results(study: Study | None) -> pd.DataFrame:
    """The study's cells that are ok, on its first ``n_splits`` splits (none without a
    database)."""
    if study is None:
        return pd.DataFrame(columns=["dataset", "split", "method", "status"])
    try:
        res = study.results()
    except Exception:  # no database yet
        return pd.DataFrame(columns=["dataset", "split", "method", "status"])
    if res.empty:
        return res
    res = res[(res["status"] == "ok") & (res["split"] < study.n_splits)]
    return res


def ok_traces(study: Study) -> pd.DataFrame:
    """The traces of :func:`ok_results`' cells."""
    try:
        tr = study.traces()
    except Exception:
        return pd.DataFrame()
    if tr.empty:
        return tr
    return tr[(tr["status"] == "ok") & (tr["split"] < study.n_splits)]


def splits_done(res: pd.DataFrame) -> int:
    """How many splits the cells ``res`` cover."""
    return int(res["split"].nunique()) if len(res) else 0
