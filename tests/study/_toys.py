"""Small data sets, splits and objectives for the study tests."""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np
from sklearn.datasets import make_classification

from svmtune.classifier import KernelExpansion
from svmtune.objectives import BoundObjective, Objective, Outcome


def blobs() -> tuple[np.ndarray, np.ndarray]:
    """120 points, 4 features, labels in {-1, +1}."""
    X, y = make_classification(
        n_samples=120, n_features=4, n_informative=3, n_redundant=0, random_state=0
    )
    return X, np.where(y == 1, 1.0, -1.0)


def one_class() -> tuple[np.ndarray, np.ndarray]:
    """A data set no split accepts: one point of class +1, so one part of every split has a
    single class. It passes the study's check (two classes), its cells fail."""
    X, _ = blobs()
    y = -np.ones(X.shape[0])
    y[0] = 1.0
    return X, y


def halves(X, y, seed):
    """A simple random 60/40 split (a custom split protocol)."""
    idx = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.6 * len(y))
    return X[idx[:cut]], y[idx[:cut]], X[idx[cut:]], y[idx[cut:]]


class Sleepy(Objective):
    """Another objective, slowed down by ``seconds`` per evaluation (for time limits)."""

    def __init__(self, *, inner: Objective, seconds: float) -> None:
        self.inner = inner
        self.seconds = seconds

    def search_space(self, kernel):
        return self.inner.search_space(kernel)

    def _bind(self, X, y, kernel, space):
        return _SleepyBound(self, X, y, kernel, space, self.inner.bind(X, y, kernel=kernel))

    def __repr__(self) -> str:
        return f"Sleepy({self.inner!r}, seconds={self.seconds})"


class _SleepyBound(BoundObjective):
    def __init__(self, objective, X, y, kernel, space, inner: BoundObjective) -> None:
        super().__init__(objective, X, y, kernel, space)
        self.inner = inner

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        time.sleep(self.objective.seconds)
        ev = self.inner.evaluate(params)
        return Outcome(ev.value, ev.cost.kernel_evals, ev.cost.iterations)

    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        return self.inner.classifier(params)


#: Columns of Study.results() that depend on the machine or the moment (times, host), and on
#: which copy of svmtune ran the cell (``code``: a checkout records its commit, an installed
#: copy its version alone; a test's worker processes may import the other one).
VOLATILE = ["wall_s", "cpu_s", "host", "code", "started_at", "finished_at"]


def stable(results):
    """Results without the volatile columns, sorted by cell key."""
    return (
        results.drop(columns=VOLATILE)
        .sort_values(["dataset", "split", "method"])
        .reset_index(drop=True)
    )
