"""Solvers: SMO for the SVM dual (numba loops), and the machinery other objectives build on.

Two rooms, each with its public face: :mod:`svmtune.solvers.smo` (SMO, its kernel rows and
compiled loops) and :mod:`svmtune.solvers.loo` (Franc et al.'s exact leave-one-out on top of
SMO). Beside them: :mod:`svmtune.solvers.sigmoid` (Platt's sigmoid fit) and
:mod:`svmtune.solvers.warm_up` (compiling both rooms' numba code ahead of use). The names below
are what the rest of the package mostly uses.

:data:`retrain_loop` is the compiled retrain of exact leave-one-out (one point left out,
alpha-seeded SMO with Franc et al.'s stop or the eps-KKT stop): its ``retrain_one``,
``RetrainOptions``, ``work_arrays``, the outcome codes ``KKT``, ``CERTIFIED``, ``MAX_ITER`` and
the constants of its CPU count ``WORK_RETRAIN``, ``WORK_FRANC_STEP``, ``WORK_SELECT``. It is
imported when first asked for; :func:`exact_loo` is the way to use it, and the benchmarks time
and fit it directly (``benchmarks/franc_stop.py``).

:data:`smo_loop` is the SMO loop's compiled module: its passes (``_select_i_st``,
``_select_j_unit``, ``_add_pair_select_i``), the status bits ``POS``, ``UP``, ``LOW``, the
curvature floor ``TAU`` and ``_statuses``. It is imported when first asked for, for the
benchmark that times the passes one by one (``benchmarks/smo_passes.py``) and the profile that
names its compiled functions (``benchmarks/smo_profile.py``); :class:`SMO` is the way to use it.
"""

import importlib
from types import ModuleType

from svmtune.solvers.loo import ExactLOOResult, exact_loo
from svmtune.solvers.smo import (
    SMO,
    FullGram,
    KernelRows,
    SMOResult,
    SMORun,
    blas_controller,
    check_gram,
    decision_from_gradient,
    feasible_start,
    one_blas_thread,
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
    "blas_controller",
    "check_gram",
    "decision_from_gradient",
    "exact_loo",
    "feasible_start",
    "one_blas_thread",
    "rbf_gram",
    "retrain_loop",
    "smo_loop",
    "compile_cache_is_warm",
    "warm_up",
]


def __getattr__(name: str) -> ModuleType:
    """``retrain_loop`` and ``smo_loop``, imported on first use (numba compiles or loads them)."""
    if name == "retrain_loop":
        return importlib.import_module("svmtune.solvers.loo._exact_loo_loop")
    if name == "smo_loop":
        return importlib.import_module("svmtune.solvers.smo._smo_loop")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
