"""What a study run says before and as its first cells finish (``svmtune run``'s first lines)."""

from __future__ import annotations

from typing import Any

from svmtune.study._cell import CellRecord

__all__ = ["first_result_note", "starting_note", "study_intro"]


def study_intro(study: Any) -> str:
    """One line naming the run's size, then one line per data set whose labels were mapped.

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
    """
    names = study._dataset_names()
    n_methods = len(study.methods)
    lines = [
        f"{study.name}: {len(names) * study.n_splits * n_methods} cells ({len(names)} data sets "
        f"x {study.n_splits} splits x {n_methods} methods)"
    ]
    for name, mapping in study.labels.items():
        shown = ", ".join(f"{label} -> {int(sign):+d}" for label, sign in mapping.items())
        lines.append(f"  data set {name!r}: labels {shown}")
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
