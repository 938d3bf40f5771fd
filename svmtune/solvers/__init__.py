"""Solvers: SMO for the SVM dual (numba loops), and the machinery other objectives build on."""

from svmtune.solvers._blas_threads import one_blas_thread
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
    rbf_gram,
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
    "one_blas_thread",
    "rbf_gram",
    "compile_cache_is_warm",
    "warm_up",
]
