"""The compiled gradient refresh of KernelRows equals the gradient from the whole kernel matrix."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.kernels import RBF, Linear
from svmtune.solvers import KernelRows


@pytest.mark.parametrize(("kernel", "params"), [(RBF(), {"gamma": 0.3}), (Linear(), {})])
def test_refresh_equals_the_full_kernel_gradient_and_counts_what_it_computes(
    kernel, params
) -> None:
    rng = np.random.default_rng(3)
    n, C = 120, 2.0
    X = rng.normal(size=(n, 4))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    alpha = np.where(rng.random(n) < 0.4, rng.uniform(0.0, C, n), 0.0)
    alpha[rng.random(n) < 0.15] = C  # some at the upper bound
    K = kernel.gram(params, X)
    at_c = alpha >= C
    Gbar = (K[:, at_c] @ (C * y[at_c])) * y
    expected = -1.0 + y * (K @ (alpha * y))
    rows = KernelRows(kernel, params, X, capacity=30)
    assert rows.kind > 0  # rows computed in compiled code
    for r in rng.choice(n, 12, replace=False):
        rows.get(int(r))  # complete rows, cached
    rows.fetch(5, np.arange(0, n, 2, dtype=np.int64))  # a partial row: not used
    targets = np.sort(rng.choice(n, 50, replace=False)).astype(np.int64)
    G = np.full(n, np.nan)
    Cv = np.full(n, C)
    free = np.flatnonzero((alpha > 0) & (alpha < C))
    held = rows._full_mask(free.astype(np.int64))
    before = rows.kernel_evals
    rows.refresh_gradient(G, Gbar, alpha, y, Cv, targets)
    np.testing.assert_allclose(G[targets], expected[targets], rtol=1e-12, atol=1e-11)
    assert np.isnan(np.delete(G, targets)).all()  # nothing else written
    assert 0 < held.sum() < free.size  # both kinds of support vectors were met
    assert rows.kernel_evals - before == (free.size - held.sum()) * targets.size
