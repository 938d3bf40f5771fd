"""Studies: compare tuning methods over data sets and splits, in parallel, stored cell by cell.

A study file ``studies/NAME.py`` defines a module-level ``study = Study(...)``;
``svmtune run studies/NAME.py`` runs it, ``svmtune report`` redraws its table and plots.

The public names below are imported on first use (PEP 562): a worker process that runs a
cell imports :mod:`svmtune.study.run._cell` and what it needs, not the storage, the reports and
their libraries.

Beside the study itself, the parts a script may time or drive on their own (the benchmarks
do): :func:`claim_cells` and :func:`new_worker_id`, the claim protocol a worker runs against
the storage; :func:`dump_task` and :func:`run_payload`, a cell as a worker receives and runs
it; :func:`verdict_jobs`, the verdict of a report as jobs to draw (run them with
:func:`svmtune.study.figures.run_jobs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svmtune._lazy import lazy_exports

#: Public name -> module that defines it. Add new exports here (and to __all__).
_EXPORTS: dict[str, str] = {
    "PROTOCOLS": "svmtune.study.run._data",
    "STALE_AFTER_S": "svmtune.study.store._claim_times",
    "CellKey": "svmtune.study.store._records",
    "CellRecord": "svmtune.study.store._records",
    "Comparison": "svmtune.study.verdict._compare",
    "DataChangedError": "svmtune.study.store._data_prints",
    "HypothesisTest": "svmtune.study.verdict._compare",
    "Method": "svmtune.study.run._method",
    "PeerMethod": "svmtune.study.run._peer",
    "Storage": "svmtune.study.store._storage",
    "Study": "svmtune.study._study",
    "StudyChangedError": "svmtune.study.store._definition",
    "SummaryTable": "svmtune.study.store._results",
    "add_left_out_to_report": "svmtune.study.run._start",
    "anytime_profile": "svmtune.study.verdict._profiles",
    "best_so_far": "svmtune.study.run._fidelity",
    "cell_seed": "svmtune.study.run._data",
    "compare": "svmtune.study.verdict._compare",
    "check_study_name": "svmtune.study.run._names",
    "claim_cells": "svmtune.study.run._runner",
    "default_storage_url": "svmtune.study.store._schema",
    "ecdf_profile": "svmtune.study.verdict._profiles",
    "format_summary": "svmtune.study.store._results",
    "full_fidelity": "svmtune.study.run._fidelity",
    "left_out_lines": "svmtune.study.run._start",
    "load_study": "svmtune.study._loading",
    "load_study_module": "svmtune.study._loading",
    "method_means": "svmtune.study.store._results",
    "new_worker_id": "svmtune.study.store._claims",
    "normalized_profile": "svmtune.study.verdict._profiles",
    "normalized_scores": "svmtune.study.verdict._profiles",
    "objective_labels": "svmtune.study.report._report",
    "parameter_curve": "svmtune.study.verdict._curve",
    "pareto_mask": "svmtune.study.store._results",
    "search_boxes": "svmtune.study.report._report",
    "split_seed": "svmtune.study.run._data",
    "stop_local_workers": "svmtune.study.run._runner",
    "dump_task": "svmtune.study.run._cell",
    "run_payload": "svmtune.study.run._cell",
    "watched_workers": "svmtune.study.run._workers",
    "summary_by_method": "svmtune.study.store._results",
    "summary_long": "svmtune.study.store._results",
    "study_intro": "svmtune.study.run._start",
    "summary_table": "svmtune.study.store._results",
    "write_report": "svmtune.study.report._report",
    "verdict_jobs": "svmtune.study.report._verdict",
    "write_verdict": "svmtune.study.report._verdict",
}

__all__ = [
    "PROTOCOLS",
    "STALE_AFTER_S",
    "CellKey",
    "CellRecord",
    "Comparison",
    "DataChangedError",
    "HypothesisTest",
    "Method",
    "PeerMethod",
    "Storage",
    "Study",
    "StudyChangedError",
    "SummaryTable",
    "add_left_out_to_report",
    "anytime_profile",
    "best_so_far",
    "cell_seed",
    "compare",
    "check_study_name",
    "claim_cells",
    "default_storage_url",
    "ecdf_profile",
    "format_summary",
    "full_fidelity",
    "left_out_lines",
    "load_study",
    "load_study_module",
    "method_means",
    "new_worker_id",
    "normalized_profile",
    "normalized_scores",
    "objective_labels",
    "parameter_curve",
    "pareto_mask",
    "search_boxes",
    "split_seed",
    "stop_local_workers",
    "dump_task",
    "run_payload",
    "watched_workers",
    "summary_by_method",
    "summary_long",
    "study_intro",
    "summary_table",
    "verdict_jobs",
    "write_report",
    "write_verdict",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from svmtune.study._loading import load_study, load_study_module
    from svmtune.study._study import Study
    from svmtune.study.report._report import objective_labels, search_boxes, write_report
    from svmtune.study.report._verdict import verdict_jobs, write_verdict
    from svmtune.study.run._cell import dump_task, run_payload
    from svmtune.study.run._data import PROTOCOLS, cell_seed, split_seed
    from svmtune.study.run._fidelity import best_so_far, full_fidelity
    from svmtune.study.run._method import Method
    from svmtune.study.run._names import check_study_name
    from svmtune.study.run._peer import PeerMethod
    from svmtune.study.run._runner import claim_cells, stop_local_workers
    from svmtune.study.run._start import add_left_out_to_report, left_out_lines, study_intro
    from svmtune.study.run._workers import watched_workers
    from svmtune.study.store._claim_times import STALE_AFTER_S
    from svmtune.study.store._claims import new_worker_id
    from svmtune.study.store._data_prints import DataChangedError
    from svmtune.study.store._definition import StudyChangedError
    from svmtune.study.store._records import CellKey, CellRecord
    from svmtune.study.store._results import (
        SummaryTable,
        format_summary,
        method_means,
        pareto_mask,
        summary_by_method,
        summary_long,
        summary_table,
    )
    from svmtune.study.store._schema import default_storage_url
    from svmtune.study.store._storage import Storage
    from svmtune.study.verdict._compare import Comparison, HypothesisTest, compare
    from svmtune.study.verdict._curve import parameter_curve
    from svmtune.study.verdict._profiles import (
        anytime_profile,
        ecdf_profile,
        normalized_profile,
        normalized_scores,
    )


__getattr__ = lazy_exports("svmtune.study", _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
