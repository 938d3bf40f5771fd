"""Kernel rows computed inside the compiled loop (RBF, linear): same optimum, honest counts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmtune.datasets import load, standardize
from svmtune.kernels import RBF, AnisotropicRBF, Linear
from svmtune.solvers import SMO, KernelRows
from tests.solvers._data import real_split
from tests.solvers.smo.test_smo import TOL, _duality_gap, _kkt_violation, _libsvm_alpha


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize(("kernel", "params", "C"), [(Linear(), {}, 0.05), (RBF(), None, 10.0)])
def test_rows_in_the_loop_match_the_full_gram(kernel, params, C, shrinking) -> None:
    X, y, _, _ = real_split("heart")
    params = {"gamma": 1.0 / X.shape[1]} if params is None else params
    K = kernel.gram(params, X)
    full = SMO(shrinking=shrinking).solve(y, C=C, gram=K)
    rows = KernelRows(kernel, params, X, capacity=16)
    assert rows.kind > 0  # computed in the loop, not through Python
    cached = SMO(shrinking=shrinking).solve(y, C=C, gram=rows)
    assert full.converged and cached.converged
    gaps = [_duality_gap(r, y, K, C) for r in (full, cached)]
    assert abs(cached.objective - full.objective) <= max(gaps) + 1e-9 * abs(full.objective)
    assert _kkt_violation(cached, y, C) <= TOL
    exact = y * (K @ (cached.alpha * y)) - 1.0
    assert np.abs(cached.gradient - exact).max() <= 1e-8 * max(1.0, np.abs(exact).max())
    # Every entry counted: rows of 173 (or fewer, once shrunk), the diagonal at construction.
    assert cached.kernel_evals == rows.kernel_evals - y.size
    assert cached.kernel_evals > 16 * y.size  # the 16-row cache recomputed rows


def test_many_points_use_rows_on_demand_and_agree_with_libsvm() -> None:
    # 2,000 twonorm points, 20 features: rows on demand (fewer entries than the n^2 Gram).
    X, y = load("twonorm")
    idx = np.sort(np.random.default_rng(0).choice(X.shape[0], 2000, replace=False))
    X, y = standardize(X[idx], X[idx][:1])[0], np.where(y[idx] > 0, 1.0, -1.0)
    gamma, C = 0.05, 1.0
    res = SMO().solve(y, C=C, kernel=RBF(), params={"gamma": gamma}, X=X)
    assert res.converged
    assert res.kernel_evals < 0.5 * y.size**2
    K = RBF().gram({"gamma": gamma}, X)
    assert _kkt_violation(res, y, C) <= TOL
    sk = LibSVC(C=C, gamma=gamma, tol=TOL).fit(X, y)
    ay = _libsvm_alpha(sk, y.size) * y
    ref = 0.5 * ay @ K @ ay - np.abs(ay).sum()
    assert abs(res.objective - ref) <= _duality_gap(res, y, K, C) + 1e-9 * abs(ref)


@pytest.mark.parametrize("shrinking", [True, False])
def test_rows_from_python_match_the_full_gram(shrinking: bool) -> None:
    # An anisotropic RBF's rows come through Python (NEED_ROW / NEED_COMPLETE_ROW), partial once
    # variables are shrunk.
    X, y, _, _ = real_split("heart")
    d = X.shape[1]
    kernel = AnisotropicRBF(n_features=d)
    params = {f"gamma_{f}": (0.5 + f % 3) / d for f in range(d)}
    K = kernel.gram(params, X)
    C = 10.0
    full = SMO(shrinking=shrinking).solve(y, C=C, gram=K)
    rows = KernelRows(kernel, params, X, capacity=16)
    assert rows.kind == 0
    cached = SMO(shrinking=shrinking).solve(y, C=C, gram=rows)
    assert full.converged and cached.converged
    gaps = [_duality_gap(r, y, K, C) for r in (full, cached)]
    assert abs(cached.objective - full.objective) <= max(gaps) + 1e-9 * abs(full.objective)
    assert _kkt_violation(cached, y, C) <= TOL
    exact = y * (K @ (cached.alpha * y)) - 1.0
    assert np.abs(cached.gradient - exact).max() <= 1e-8 * max(1.0, np.abs(exact).max())
    assert cached.kernel_evals == rows.kernel_evals - y.size


@pytest.mark.parametrize(
    ("kernel", "params"),
    [
        (RBF(), {"gamma": 0.05}),
        (Linear(), {}),
        (AnisotropicRBF(n_features=23), {f"gamma_{f}": 0.01 * (1 + f % 3) for f in range(23)}),
    ],
)
def test_each_kernel_entry_is_computed_once_when_every_row_fits(kernel, params) -> None:
    # K is symmetric: with room for every row and no shrinking (complete rows only), the entry
    # K[r, t] of a row r computed in Python is copied from row t when row t is already held,
    # once the rows held are a quarter of the columns (before, rows are computed whole). Rows S
    # computed then cost |S| n - |S| (|S| - 1) / 2 entries (each unordered pair once), plus n
    # for the diagonal, plus at most the pairs among the first quarter of rows, computed on
    # both sides. Rows of short points computed in the compiled loop (RBF, linear; d <= 64)
    # are computed whole: reading the held rows' columns cost more than computing the entries.
    X, y = load("heart")
    X = standardize(X, X)[0]
    n = y.size
    K = kernel.gram(params, X)
    rows = KernelRows(kernel, params, X, capacity=n)
    C = 1.0 if isinstance(kernel, Linear) else 10.0
    res = SMO(shrinking=False).solve(y, C=C, gram=rows)
    full = SMO(shrinking=False).solve(y, C=C, gram=K)
    assert res.converged and full.converged
    held = rows.owner[rows.owner >= 0]
    s = held.size
    assert s > 10
    if kernel.inner_product_form(params) is not None:
        assert res.kernel_evals == n * s  # whole rows, each computed once
    else:
        distinct = s * n - s * (s - 1) // 2
        q = -(-n // 4)
        assert distinct <= res.kernel_evals <= distinct + q * (q - 1) // 2
        assert res.kernel_evals < n * s  # fewer than whole rows
    assert rows.kernel_evals == res.kernel_evals + n
    # the rows held are the Gram matrix's rows (a copied entry is the entry)
    scale = max(1.0, float(np.abs(K).max()))
    assert np.abs(rows.rows[rows.slot[held]] - K[held]).max() <= 1e-12 * scale
    gap = max(_duality_gap(r, y, K, C) for r in (res, full))
    assert abs(res.objective - full.objective) <= gap + 1e-9 * abs(full.objective)
    # rows asked for from outside the loop (validation decisions) reuse the held rows as well
    before = rows.kernel_evals
    rest = np.setdiff1d(np.arange(n), held)
    if rest.size:
        got = rows.rows_of(rest)
        assert np.abs(got - K[rest]).max() <= 1e-12 * scale
        # the rest's own block is symmetric too: computed in chunks of 64 rows, each on the
        # columns from its own chunk on (at most 63 / 2 entries a row twice)
        r = rest.size
        assert r * (r + 1) // 2 <= rows.kernel_evals - before <= r * (r + 1) // 2 + 32 * r
