"""SMO on cached kernel rows against SMO on the full Gram matrix, over the whole parameter box.

Any cache size (2 rows to all of them), shrinking on or off, rows computed in the compiled loop
(RBF, linear) or through Python (anisotropic RBF); tiny and huge C and gamma, unbalanced labels,
duplicated points. Whatever rows the store copies from the rows it holds (the kernel matrix is
symmetric) or evicts and computes again, the solution is an optimum of the same problem.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.kernels import RBF, AnisotropicRBF, Linear
from svmtune.solvers import SMO, KernelRows
from tests.solvers.smo.test_smo import _duality_gap


@st.composite
def problems(draw):
    n = draw(st.integers(6, 40))
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if draw(st.booleans()):  # duplicated points
        k = draw(st.integers(1, n // 2))
        X[-k:] = X[:k]
    share = draw(st.sampled_from([0.5, 0.2, 0.1]))  # unbalanced labels
    y = np.where(rng.random(n) < share, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0  # both classes
    C = 10.0 ** draw(st.floats(-3, 4))
    gamma = 10.0 ** draw(st.floats(-4, 3))
    kind = draw(st.sampled_from(["rbf", "linear", "anisotropic"]))
    capacity = draw(st.integers(2, n))
    shrinking = draw(st.booleans())
    return X, y, C, gamma, kind, capacity, shrinking


@settings(max_examples=60, deadline=None)
@given(problems())
def test_smo_on_cached_rows_solves_the_same_problem_as_on_the_gram_matrix(problem) -> None:
    X, y, C, gamma, kind, capacity, shrinking = problem
    n, d = X.shape
    if kind == "rbf":
        kernel, params = RBF(), {"gamma": gamma}
    elif kind == "linear":
        kernel, params = Linear(), {}
    else:
        kernel = AnisotropicRBF(n_features=d)
        params = {f"gamma_{f}": gamma * (1 + f) for f in range(d)}
    K = kernel.gram(params, X)
    rows = KernelRows(kernel, params, X, capacity=capacity)
    max_iter = 200_000
    cached = SMO(shrinking=shrinking, max_iter=max_iter).solve(y, C=C, gram=rows)
    full = SMO(shrinking=shrinking, max_iter=max_iter).solve(y, C=C, gram=K)
    # every row the store holds complete is the Gram matrix's row (copied entries included)
    held = rows.owner >= 0
    complete = held & (rows.row_epoch < 0)
    scale = max(1.0, float(np.abs(K).max()))
    if complete.any():
        owners = rows.owner[complete]
        err = np.abs(rows.rows[complete] - K[owners]).max()
        assert err <= 1e-12 * scale, f"row store differs from the Gram rows by {err:g}"
    # the entries computed: at least the distinct entries of the rows held, each counted
    s = int(np.count_nonzero(complete))
    assert cached.kernel_evals >= s * n - s * (s - 1) // 2
    if not (cached.converged and full.converged):
        return  # a max_iter stop: no optimum to compare
    # two eps-optimal solutions of one problem: objectives within the larger duality gap
    gap = max(_duality_gap(r, y, K, C) for r in (cached, full))
    assert abs(cached.objective - full.objective) <= gap + 1e-9 * max(1.0, abs(full.objective))
