"""Studies: compare tuning methods over data sets and splits, in parallel, stored cell by cell.

A study file ``studies/NAME.py`` defines a module-level ``study = Study(...)``;
``svmtune run studies/NAME.py`` runs it, ``svmtune report`` redraws its table and plots.

The public names below are imported on first use (PEP 562): a worker process that runs a
cell imports :mod:`svmtune.study._cell` and what it needs, not the storage, the reports and
their libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svmtune._lazy import lazy_exports

#: Public name -> module that defines it. Add new exports here (and to __all__).
_EXPORTS: dict[str, str] = {
    "PROTOCOLS": "svmtune.study._data",
    "CellKey": "svmtune.study._cell",
    "CellRecord": "svmtune.study._cell",
    "Comparison": "svmtune.study._compare",
    "HypothesisTest": "svmtune.study._compare",
    "Method": "svmtune.study._method",
    "PeerMethod": "svmtune.study._peer",
    "Storage": "svmtune.study._storage",
    "Study": "svmtune.study._study",
    "StudyChangedError": "svmtune.study._definition",
    "SummaryTable": "svmtune.study._results",
    "anytime_profile": "svmtune.study._profiles",
    "best_so_far": "svmtune.study._fidelity",
    "cell_seed": "svmtune.study._data",
    "compare": "svmtune.study._compare",
    "check_study_name": "svmtune.study._names",
    "default_storage_url": "svmtune.study._schema",
    "ecdf_profile": "svmtune.study._profiles",
    "format_summary": "svmtune.study._results",
    "full_fidelity": "svmtune.study._fidelity",
    "load_study": "svmtune.study._loading",
    "load_study_module": "svmtune.study._loading",
    "method_means": "svmtune.study._results",
    "normalized_profile": "svmtune.study._profiles",
    "normalized_scores": "svmtune.study._profiles",
    "objective_labels": "svmtune.study._report",
    "parameter_curve": "svmtune.study._curve",
    "pareto_mask": "svmtune.study._results",
    "search_boxes": "svmtune.study._report",
    "split_seed": "svmtune.study._data",
    "summary_by_method": "svmtune.study._results",
    "summary_long": "svmtune.study._results",
    "summary_table": "svmtune.study._results",
    "write_report": "svmtune.study._report",
    "write_verdict": "svmtune.study._verdict",
}

__all__ = [
    "PROTOCOLS",
    "CellKey",
    "CellRecord",
    "Comparison",
    "HypothesisTest",
    "Method",
    "PeerMethod",
    "Storage",
    "Study",
    "StudyChangedError",
    "SummaryTable",
    "anytime_profile",
    "best_so_far",
    "cell_seed",
    "compare",
    "check_study_name",
    "default_storage_url",
    "ecdf_profile",
    "format_summary",
    "full_fidelity",
    "load_study",
    "load_study_module",
    "method_means",
    "normalized_profile",
    "normalized_scores",
    "objective_labels",
    "parameter_curve",
    "pareto_mask",
    "search_boxes",
    "split_seed",
    "summary_by_method",
    "summary_long",
    "summary_table",
    "write_report",
    "write_verdict",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from svmtune.study._cell import CellKey, CellRecord
    from svmtune.study._compare import Comparison, HypothesisTest, compare
    from svmtune.study._curve import parameter_curve
    from svmtune.study._data import PROTOCOLS, cell_seed, split_seed
    from svmtune.study._definition import StudyChangedError
    from svmtune.study._fidelity import best_so_far, full_fidelity
    from svmtune.study._loading import load_study, load_study_module
    from svmtune.study._method import Method
    from svmtune.study._names import check_study_name
    from svmtune.study._peer import PeerMethod
    from svmtune.study._profiles import (
        anytime_profile,
        ecdf_profile,
        normalized_profile,
        normalized_scores,
    )
    from svmtune.study._report import objective_labels, search_boxes, write_report
    from svmtune.study._results import (
        SummaryTable,
        format_summary,
        method_means,
        pareto_mask,
        summary_by_method,
        summary_long,
        summary_table,
    )
    from svmtune.study._schema import default_storage_url
    from svmtune.study._storage import Storage
    from svmtune.study._study import Study
    from svmtune.study._verdict import write_verdict


__getattr__ = lazy_exports("svmtune.study", _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
