"""The data of the SMO benchmarks (``smo.py``, ``smo_real.py``): a generated set and ``n``
points drawn from a bundled data set, standardized."""

from __future__ import annotations

import numpy as np

from svmtune.datasets import generate, load, standardize


def gauss10(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A generated set: 10 features, two classes (60/40) of 3 Gaussian clusters each, centres
    drawn with scale 0.5 so the classes overlap, standardized."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.6, 1.0, -1.0)
    centers = 0.5 * np.random.default_rng(12345).normal(size=(2, 3, 10))
    X = centers[(y > 0).astype(int), rng.integers(0, 3, size=n)] + rng.normal(size=(n, 10))
    return standardize(X, X[:1])[0], y


def draw(name: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``n`` points of a whole data set, standardized; None when it has fewer. ``gauss10`` and
    ``<generator>-gen`` (Breiman's ``twonorm``, ``ringnorm``, ``threenorm``, ``waveform``:
    :func:`svmtune.datasets.generate`) are drawn at any ``n``."""
    if name == "gauss10":
        return gauss10(n, seed)
    if name.endswith("-gen"):
        X, y = generate(name.removesuffix("-gen"), n=n, seed=seed)
        return standardize(X, X[:1])[0], y
    X, y = load("ring" if name == "ringnorm" else name)
    if X.shape[0] < n:
        return None
    idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))
    Xs = standardize(X[idx], X[idx][:1])[0]
    return Xs, y[idx]
