"""report.md's building blocks: markdown tables and the header that says what was stored and
which code computed it."""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["markdown_table"]


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
