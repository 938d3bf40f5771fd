"""The exact leave-one-out room: Franc et al.'s Algorithm 1 and the retrains behind it.

What the rest of the package may use is named here; the modules behind it are private.
:func:`exact_loo` decides which points to settle and which to retrain (``_exact_loo.py``);
``_passes.py`` runs the retrains, ``_retrains.py`` sets each one up (shrinking SMO or the
compiled loop), ``_refine.py`` refines a decision until its sign is certain, ``_bias.py``
holds the left-out decision and its bias, ``_efficiency.py`` the CPU efficiency test,
``_shrinking_cost.py`` the count of a shrinking retrain's CPU, and ``_exact_loo_loop.py``
(with Franc's bound in ``_franc_bound.py``) the numba-compiled retrain, built on the SMO
room's compiled pair step and shrinking.

:data:`retrain_loop` is that compiled retrain module (``retrain_one``, ``RetrainOptions``,
``work_arrays``, the outcome codes and the constants of its CPU count), imported when first
asked for, :data:`refinement` the module of the refinements, whose ``REFINE_FRANC_AFTER``
the benchmarks vary, and :data:`efficiency_test` and :data:`retrain_passes` the modules of
the CPU efficiency test (``PART_POINTS``, ``Measure``, ``Probe``) and of the passes that run
it (``PROBE_POINTS``), which ``benchmarks/franc_cost.py`` patches to fit ``PART_POINTS``.

Examples
--------
>>> import numpy as np
>>> from svmtune.solvers.loo import exact_loo
>>> y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
>>> result = exact_loo(y, C=1.0, gram=np.eye(6))
>>> result.decision.shape
(6,)
"""

import importlib
from types import ModuleType

from svmtune.solvers.loo import _efficiency as efficiency_test
from svmtune.solvers.loo import _passes as retrain_passes
from svmtune.solvers.loo import _refine as refinement
from svmtune.solvers.loo._exact_loo import (
    EFFICIENCY_POINTS,
    Efficiency,
    ExactLOOResult,
    Stopping,
    exact_loo,
)
from svmtune.solvers.loo._retrains import CountedGram, FullGbar, RetrainSetup, ShrinkingTail
from svmtune.solvers.loo._shrinking_cost import (
    WORK_READ,
    WORK_SHRINK_STEP,
    WORK_SWEPT,
    WORK_TAIL,
    shrinking_cpu,
)

__all__ = [
    "EFFICIENCY_POINTS",
    "WORK_READ",
    "WORK_SHRINK_STEP",
    "WORK_SWEPT",
    "WORK_TAIL",
    "CountedGram",
    "Efficiency",
    "ExactLOOResult",
    "FullGbar",
    "RetrainSetup",
    "ShrinkingTail",
    "Stopping",
    "efficiency_test",
    "exact_loo",
    "refinement",
    "retrain_loop",
    "retrain_passes",
    "shrinking_cpu",
]


def __getattr__(name: str) -> ModuleType:
    """``retrain_loop``, imported on first use (numba compiles or loads it then)."""
    if name == "retrain_loop":
        return importlib.import_module("svmtune.solvers.loo._exact_loo_loop")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
