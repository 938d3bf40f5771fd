"""Cheap deterministic objectives with known minima, for the VNS and Optuna tuner tests."""

from __future__ import annotations

import math

import numpy as np

from svmtune.classifier import KernelExpansion
from svmtune.objectives import BoundObjective, Objective, Outcome


class Rastrigin(Objective):
    """A multimodal function of the log2 of every parameter, with its global minimum 0 at
    ``log2(p) = target[p]`` and a local minimum near every other multiple of ``period`` away
    from it: ``sum_i (u_i^2 + 2 (1 - cos(2 pi u_i)))``, ``u_i = (log2(p_i) - target_i) / period``.
    Every local minimum but the global one has a value of at least 1."""

    min_per_class = 1

    def __init__(self, *, target, period=1.0):
        self.target = target
        self.period = period

    def _bind(self, X, y, kernel, space):
        return _BoundRastrigin(self, X, y, kernel, space)


class _BoundRastrigin(BoundObjective):
    n_calls = 0  # evaluations actually computed by this bound objective

    def _evaluate(self, params):
        self.n_calls += 1
        fail_above = getattr(self.objective, "fail_above", None)
        if fail_above is not None and params["gamma"] > fail_above:
            raise FloatingPointError(f"gamma {params['gamma']} too large")
        v = 0.0
        for name, t in self.objective.target.items():
            d = (math.log2(params[name]) - t) / self.objective.period
            v += d * d + 2.0 * (1.0 - math.cos(2.0 * math.pi * d))
        return Outcome(value=v, kernel_evals=1, iterations=1)

    def classifier(self, params):
        kp = self.kernel_params(params)
        return KernelExpansion(
            kernel=self.kernel, params=kp, vectors=self.X[:1], coef=[1.0], intercept=0.0
        )


class FlakyRastrigin(Rastrigin):
    """:class:`Rastrigin` whose evaluation fails (a numerical error) where gamma > fail_above."""

    def __init__(self, *, target, fail_above, period=1.0):
        super().__init__(target=target, period=period)
        self.fail_above = fail_above


class GramDistance(Objective):
    """Mean absolute difference between the Gram matrix at ``params`` and a target Gram matrix:
    a value that depends on the parameters only through the kernel, so that embedded nested
    parameters (same Gram) give exactly the same value."""

    min_per_class = 1

    def __init__(self, *, target_kernel, target_params):
        self.target_kernel = target_kernel
        self.target_params = target_params

    def _bind(self, X, y, kernel, space):
        bound = _BoundGramDistance(self, X, y, kernel, space)
        bound.prepared = kernel.prepare(X)
        bound.K0 = self.target_kernel.gram(self.target_params, X)
        return bound


class _BoundGramDistance(BoundObjective):
    prepared = None
    K0 = None

    def _evaluate(self, params):
        K = self.prepared.gram(self.kernel_params(params))
        return Outcome(value=float(np.abs(K - self.K0).mean()), kernel_evals=K.size)

    def classifier(self, params):
        kp = self.kernel_params(params)
        return KernelExpansion(
            kernel=self.kernel, params=kp, vectors=self.X[:1], coef=[1.0], intercept=0.0
        )
