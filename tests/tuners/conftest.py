"""A test objective with a known minimum, so tuners can be checked by hand."""

import math

import numpy as np
import pytest

from svmtune.classifier import KernelExpansion
from svmtune.objectives import BoundObjective, Objective, Outcome


class Bowl(Objective):
    """value = sum over parameters of (ln p - ln target_p)^2; one 'kernel evaluation' per call."""

    min_per_class = 1

    def __init__(self, *, target):
        self.target = target

    def _bind(self, X, y, kernel, space):
        return _BoundBowl(self, X, y, kernel, space)


class _BoundBowl(BoundObjective):
    def _evaluate(self, params):
        v = sum((math.log(params[n]) - math.log(t)) ** 2 for n, t in self.objective.target.items())
        return Outcome(value=v, kernel_evals=1, iterations=2)

    def classifier(self, params):
        kp = self.kernel_params(params)
        return KernelExpansion(
            kernel=self.kernel, params=kp, vectors=self.X[:1], coef=[1.0], intercept=0.0
        )


@pytest.fixture
def toy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.repeat([-1.0, 1.0], 10)
    return X, y
