"""A method of a study: one (objective, tuner, kernel model) triple."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from svmtune._params import describe
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective
from svmtune.space import SearchSpace
from svmtune.tuners import Tuner

__all__ = ["Method", "study_box"]


def study_box(
    space: SearchSpace, bounds: Mapping[str, tuple[float, float]] | None
) -> dict[str, tuple[float, float]] | None:
    """The entries of a study's ``bounds`` that name parameters of ``space``."""
    if bounds is None:
        return None
    return {n: v for n, v in bounds.items() if n in space}


@dataclass(frozen=True)
class Method:
    """What a study compares: an objective tuned by a tuner over a kernel model's parameters.

    Parameters
    ----------
    objective : Objective
        How good is a setting of the hyperparameters (e.g. ``LOOEstimate(model="loo2")``).
    tuner : Tuner
        Which settings to try (e.g. ``Bisection()``).
    kernel : KernelModel
        Which hyperparameters exist (e.g. ``RBF()``).
    folds : int, default 0
        Which fold assignment a k-fold objective gets in a study. Every k-fold method of a
        (data set, split) shares assignment 0, stratified and shuffled from the split's seed
        (the objective's own ``random_state`` is replaced); 1, 2, ... are other assignments of
        the same split: such a method is a *noise control* of the study's method that differs
        from it only in ``folds``, reported apart (not ranked, not tested).

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Grid
    >>> m = Method(LOOEstimate(model="loo2"), Grid(n_points=5), RBF())
    >>> m.search_space().names
    ('gamma',)
    """

    objective: Objective
    tuner: Tuner
    kernel: KernelModel
    folds: int = 0

    def search_space(self, bounds: Mapping[str, tuple[float, float]] | None = None) -> SearchSpace:
        """The box the tuner searches (the objective's space narrowed to the default box, a
        study's ``bounds`` and the tuner's own); ValueError if the parts do not fit together."""
        if not isinstance(self.objective, Objective):
            raise ValueError(f"objective must be a svmtune Objective; got {self.objective!r}")
        if not isinstance(self.tuner, Tuner):
            raise ValueError(f"tuner must be a svmtune Tuner; got {self.tuner!r}")
        if not isinstance(self.kernel, KernelModel):
            raise ValueError(f"kernel must be a svmtune KernelModel; got {self.kernel!r}")
        space = self.objective.search_space(self.kernel)
        self.tuner.check_objective(self.objective)
        self.tuner.check_kernel(self.kernel)
        return self.tuner.check(space, bounds=study_box(space, bounds))

    def describe(self) -> dict[str, Any]:
        """The complete JSON-able record of the three parts: class and every option of each.

        A study stores it, and refuses to mix results when a method under the same name is
        described differently.
        """
        return {
            "objective": describe(self.objective),
            "tuner": describe(self.tuner),
            "kernel": describe(self.kernel),
        }
