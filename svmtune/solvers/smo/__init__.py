"""The SMO room: sequential minimal optimization for the SVM dual, its kernel rows and loops.

What the rest of the package may use is named here; the modules behind it are private.
:class:`SMO` solves (``_solver.py``: options and set-up; ``_run.py``: one run and its
restarts), :class:`SMOResult` is what a solve returns (``_result.py``), :class:`KernelRows`
and :class:`FullGram` are the kernel rows it reads (``_kernel_rows.py``, numba-compiled in
``_loop_rows.py``, ``_packed_rows.py``, ``_refresh.py``, ``_gram_scan.py``, ``_rbf_gram.py``; a
given Gram matrix checked in ``_gram_check.py``; the memory budget shared out in
``_row_budget.py``), and the compiled loop is ``_smo_loop.py`` with its working-set step
``_pair_step.py`` and shrinking ``_shrinking.py``. The exact leave-one-out room
(:mod:`svmtune.solvers.loo`) reuses the compiled pair step and shrinking in its own retrain
loop; it is the one place that reads those two private modules from outside this room.

Examples
--------
>>> import numpy as np
>>> from svmtune.solvers.smo import SMO
>>> y = np.array([-1.0, -1.0, 1.0, 1.0])
>>> K = np.eye(4)
>>> result = SMO().solve(y, C=1.0, gram=K)
>>> bool(result.converged)
True
"""

from svmtune.solvers.smo._blas_threads import blas_controller, one_blas_thread
from svmtune.solvers.smo._kernel_rows import BLOCK_SHARE, ROW_CACHE_SHARE, RowStore, as_f8_2d
from svmtune.solvers.smo._solver import (
    DEFAULT_MEMORY_BUDGET,
    SMO,
    FullGram,
    KernelRows,
    Selection,
    SMOResult,
    SMORun,
    check_gram,
    decision_from_gradient,
    default_max_iter,
    feasible_start,
    gram_bytes,
    rbf_gram,
)
from svmtune.solvers.smo._solver import _rows_beat_gram as rows_beat_gram

__all__ = [
    "BLOCK_SHARE",
    "DEFAULT_MEMORY_BUDGET",
    "ROW_CACHE_SHARE",
    "SMO",
    "FullGram",
    "KernelRows",
    "RowStore",
    "SMOResult",
    "SMORun",
    "Selection",
    "as_f8_2d",
    "blas_controller",
    "check_gram",
    "decision_from_gradient",
    "default_max_iter",
    "feasible_start",
    "gram_bytes",
    "one_blas_thread",
    "rbf_gram",
    "rows_beat_gram",
]
