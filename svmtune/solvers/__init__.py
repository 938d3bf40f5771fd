"""Solvers: SMO for the SVM dual (numba loops), and the machinery other objectives build on."""

from svmtune.solvers.kernel_rows import FullGram
from svmtune.solvers.smo import (
    SMO,
    KernelRows,
    SMOResult,
    SMORun,
    check_gram,
    decision_from_gradient,
    feasible_start,
)

__all__ = [
    "SMO",
    "FullGram",
    "KernelRows",
    "SMOResult",
    "SMORun",
    "check_gram",
    "decision_from_gradient",
    "feasible_start",
]
