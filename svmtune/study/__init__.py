"""Studies: compare tuning methods over data sets and splits, in parallel, stored cell by cell.

A study file ``studies/NAME.py`` defines a module-level ``study = Study(...)``;
``svmtune run studies/NAME.py`` runs it, ``svmtune report`` redraws its table and plots.
"""

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
