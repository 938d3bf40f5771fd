"""Solvers: SMO for the SVM dual (numba loops), and the machinery other objectives build on."""

from svmtune.solvers.exact_loo import ExactLOOResult, exact_loo
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
from svmtune.solvers.warm_up import compile_cache_is_warm, warm_up

__all__ = [
    "SMO",
    "ExactLOOResult",
    "FullGram",
    "KernelRows",
    "SMOResult",
    "SMORun",
    "check_gram",
    "decision_from_gradient",
    "exact_loo",
    "feasible_start",
    "compile_cache_is_warm",
    "warm_up",
]
