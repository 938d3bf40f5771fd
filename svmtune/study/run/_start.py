"""What a study run says before and as its first cells finish (``svmtune run``'s first lines)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from svmtune.study.run._cell import CellRecord

__all__ = [
    "add_left_out_to_report",
    "first_result_note",
    "left_out_lines",
    "starting_note",
    "study_intro",
]


def study_intro(study: Any) -> str:
    """One line naming the run's size, then one line per data set: what was read (rows x
    features, as loaded and before any split) and how its labels were mapped.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.study import Method, Study
    >>> from svmtune.tuners import Grid
    >>> study = Study("doc", datasets=["heart", "sonar"], n_splits=3,
    ...               methods={"m": Method(LOOEstimate(), Grid(), RBF())})
    >>> print(study_intro(study))
    doc: 6 cells (2 data sets x 3 splits x 1 methods)
      data set 'heart': 270 rows x 23 features (bundled, labels -1/+1)
      data set 'sonar': 208 rows x 60 features (bundled, labels -1/+1)
    """
    names = study._dataset_names()
    n_methods = len(study.methods)
    lines = [
        f"{study.name}: {len(names) * study.n_splits * n_methods} cells ({len(names)} data sets "
        f"x {study.n_splits} splits x {n_methods} methods)"
    ]
    lines += left_out_lines(study.left_out)
    for spec in study._data_specs():
        data = spec.data_print()
        size = f"{data.rows} rows x {data.features} features"
        if spec.bundled:
            lines.append(f"  data set {spec.name!r}: {size} (bundled, labels -1/+1)")
        else:
            lines.append(f"  data set {spec.name!r}: {size}, labels {data.labels}")
    return "\n".join(lines)


def starting_note(n_jobs: int | None) -> str:
    """What the progress bar says until the first cell is stored."""
    workers = "1 process" if n_jobs == 1 else "worker processes"
    return f"starting {workers}: loading the compiled solver code, then the longest cells first"


def first_result_note(rec: CellRecord) -> str:
    """The progress bar's note once the first cell is stored: which one and how it went."""
    where = f"{rec.key.dataset}/{rec.key.split}/{rec.key.method}"
    if rec.status != "ok":
        return f"first cell {where}: {rec.status}"
    err = getattr(rec, "test_error", None)
    shown = "" if err is None or err != err else f", test error {100 * float(err):.1f}%"
    return f"first cell {where}{shown}"


def left_out_lines(left_out: Mapping[str, str] | None) -> list[str]:
    """One line per method a study file left out (a missing extra), naming it and why.

    Examples
    --------
    >>> left_out_lines({"OptunaSearchCV": "needs pip install 'svmtune[peers]'"})
    ["  left out: OptunaSearchCV (needs pip install 'svmtune[peers]')"]
    """
    return [f"  left out: {name} ({why})" for name, why in (left_out or {}).items()]


def add_left_out_to_report(report: Path, left_out: Mapping[str, str] | None) -> None:
    """Name the left-out methods under ``report.md``'s "## Left out" heading (once)."""
    if not left_out or not report.is_file():
        return
    text = report.read_text(encoding="utf-8")
    lines = [f"- {name}: not run, {why}" for name, why in left_out.items()]
    lines = [line for line in lines if line not in text]
    if not lines:
        return
    head = "## Left out\n\n"
    if head in text:
        text = text.replace(head, head + "\n".join(lines) + "\n", 1)
    else:
        text = text.rstrip("\n") + "\n\n" + head + "\n".join(lines) + "\n"
    report.write_text(text, encoding="utf-8")
