"""The parts of :class:`svmtune.TunedSVC` that are not the estimator: checking an (objective,
tuner, kernel) combination, the canonical row order and seeds, ``sample_weight``, and the
deprecated ``platt_sigmoid``."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._warnings import warn_deprecated
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective
from svmtune.solvers.sigmoid import fit_sigmoid
from svmtune.space import SearchSpace
from svmtune.tuners import Tuner

__all__ = ["check_combination", "platt_sigmoid"]


def check_combination(objective: Objective, tuner: Tuner, kernel: KernelModel) -> SearchSpace:
    """The box ``tuner`` searches for ``objective`` on ``kernel``; ValueError naming the parts
    if they cannot work together (a tuner that needs a gradient the objective lacks, bisection
    over two parameters, ...).

    A tuner that needs the objective's gradient says so with a class attribute
    ``needs_gradient = True``.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.tuners import Bisection
    >>> check_combination(KFoldCV(), Bisection(), RBF())
    Traceback (most recent call last):
    ...
    ValueError: KFoldCV() cannot be tuned by Bisection() over RBF(): Bisection searches one \
parameter ('gamma'); fix the others with fixed={...}: missing ['C']
    """
    if not isinstance(objective, Objective):
        raise ValueError(f"objective must be a svmtune Objective; got {objective!r}")
    if not isinstance(tuner, Tuner):
        raise ValueError(f"tuner must be a svmtune Tuner; got {tuner!r}")
    if not isinstance(kernel, KernelModel):
        raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
    parts = f"{objective!r} cannot be tuned by {tuner!r} over {kernel!r}"
    try:
        tuner.check_objective(objective)
        tuner.check_kernel(kernel)
        return tuner.check(objective.search_space(kernel))
    except ValueError as exc:
        raise ValueError(f"{parts}: {exc}") from exc


def platt_sigmoid(decision: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """``(A, B)`` of Platt's sigmoid ``P(y = +1 | f) = 1 / (1 + exp(A f + B))``.

    .. deprecated::
        Use :func:`svmtune.solvers.sigmoid.fit_sigmoid`, which this calls (Lin, Lin and Weng's
        Newton method on Platt's regularized targets) and which also returns the fit's
        iterations and convergence and evaluates the probabilities.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     A, B = platt_sigmoid([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], [-1, -1, 1, -1, 1, 1])
    >>> bool(A < 0)
    True
    """
    warn_deprecated(
        "platt_sigmoid",
        since="0.1.0",
        removed_in="0.2.0",
        instead="svmtune.solvers.sigmoid.fit_sigmoid",
    )
    fit = fit_sigmoid(decision, y)
    return fit.A, fit.B


def _canonical_order(X: NDArray[np.float64], codes: NDArray[np.intp]) -> NDArray[np.intp]:
    """Rows sorted by class code, then by feature values: any permutation of the same data
    gives the same order, so the folds of a CV objective (and so the result) do not depend on
    the order of the samples."""
    return np.lexsort((*X.T[::-1], codes))


def _child_seed(seed: int, problem: int) -> int:
    return int(np.random.SeedSequence([seed, problem]).generate_state(1)[0])


def _check_sample_weight(sample_weight: ArrayLike | None, n: int) -> NDArray[np.float64] | None:
    if sample_weight is None:
        return None
    sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.shape != (n,) or not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError(f"sample_weight must be {n} non-negative finite numbers; got {sw!r}")
    return sw


def _with(objective: Objective, **options: Any) -> Objective:
    """A shallow copy of ``objective`` with some options changed."""
    out = copy.copy(objective)
    for k, v in options.items():
        setattr(out, k, v)
    return out
