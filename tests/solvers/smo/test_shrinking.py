"""SMO shrinking: the same eps-KKT stop as without it, fewer kernel entries, exact gradients."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmtune.kernels import RBF
from svmtune.solvers import SMO, FullGram, KernelRows, feasible_start
from tests.solvers._data import real_split
from tests.solvers.smo.test_smo import TOL, _duality_gap, _kkt_violation, _libsvm_alpha


def _gram(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, float]]:
    X, y, _, _ = real_split(name)
    params = {"gamma": 1.0 / X.shape[1]}
    return X, y, RBF().gram(params, X), params


def _min_active(smo: SMO, y: np.ndarray, C: float, K: np.ndarray, chunk: int = 25):
    """Solve in chunks of ``chunk`` iterations; the result and the fewest variables the loop
    worked on at a chunk boundary."""
    run = smo.start(y, C=C, gram=K)
    fewest = y.size
    while not run.run(chunk):
        fewest = min(fewest, run.n_active)
    return run.result(), fewest


@pytest.mark.parametrize(("name", "C"), [("heart", 10.0), ("banana", 100.0), ("german", 10.0)])
def test_shrinking_meets_the_same_stop_as_without(name: str, C: float) -> None:
    _, y, K, _ = _gram(name)
    shrunk, fewest = _min_active(SMO(shrinking=True), y, C, K)
    plain, plain_fewest = _min_active(SMO(shrinking=False), y, C, K)
    assert shrunk.converged and plain.converged
    assert fewest < 0.75 * y.size and plain_fewest == y.size  # it shrank, and only when asked
    # Both are eps-optimal: objectives within the larger duality gap, KKT to tol on all points
    # (the final check runs on every variable with the gradient recomputed).
    gaps = [_duality_gap(r, y, K, C) for r in (shrunk, plain)]
    assert min(gaps) >= -1e-9 * abs(plain.objective)
    assert abs(shrunk.objective - plain.objective) <= max(gaps) + 1e-9 * abs(plain.objective)
    for r in (shrunk, plain):
        assert _kkt_violation(r, y, C) <= TOL
        assert r.gap < TOL
        assert abs(y @ r.alpha) <= 1e-10 * r.alpha.sum()
    # The returned gradient is Q alpha - e on every point, not the stale one of shrunk points.
    exact = y * (K @ (shrunk.alpha * y)) - 1.0
    assert np.abs(shrunk.gradient - exact).max() <= 1e-9 * max(1.0, np.abs(exact).max())


def test_shrinking_agrees_with_libsvm() -> None:
    X, y, K, params = _gram("german")
    C = 10.0
    res = SMO(shrinking=True).solve(y, C=C, gram=K)
    sk = LibSVC(C=C, gamma=params["gamma"], tol=TOL, shrinking=True).fit(X, y)
    ay = _libsvm_alpha(sk, y.size) * y
    ref = 0.5 * ay @ K @ ay - np.abs(ay).sum()
    assert abs(res.objective - ref) <= _duality_gap(res, y, K, C) + 1e-9 * abs(ref)
    assert res.b == pytest.approx(sk.intercept_[0], abs=2 * TOL)


def test_shrinking_computes_fewer_kernel_entries() -> None:
    # Rows cached for 40 of 678 points: once shrunk, a row is computed on the active variables.
    X, y, _, params = _gram("german")
    counts = {}
    for shrinking in (True, False):
        rows = KernelRows(RBF(), params, X, capacity=40)
        res = SMO(shrinking=shrinking).solve(y, C=10.0, gram=rows)
        assert res.converged and _kkt_violation(res, y, 10.0) <= TOL
        assert res.kernel_evals == rows.kernel_evals - y.size  # all counted (diagonal aside)
        counts[shrinking] = res.kernel_evals
    assert counts[True] < 0.95 * counts[False]


def test_stepping_a_shrinking_solve_follows_the_same_path() -> None:
    _, y, K, _ = _gram("banana")
    smo = SMO(shrinking=True)
    whole = smo.solve(y, C=100.0, gram=K)
    run = smo.start(y, C=100.0, gram=K)
    reads = 0
    while not run.run(max_steps=37):
        if reads < 5:  # reading the gradient mid-solve recomputes the shrunk part exactly
            G = run.gradient
            assert np.allclose(G, y * (K @ (run.alpha * y)) - 1.0, rtol=0, atol=1e-8)
            reads += 1
    res = run.result()
    assert res.iterations == whole.iterations
    assert np.array_equal(res.alpha, whole.alpha)
    assert np.array_equal(res.gradient, whole.gradient)


@pytest.mark.parametrize("cached_rows", [False, True])
def test_left_out_points_get_their_decision_after_a_shrinking_solve(cached_rows: bool) -> None:
    X, y, K, params = _gram("heart")
    C = 10.0
    full = SMO().solve(y, C=C, gram=K)
    store = KernelRows(RBF(), params, X, capacity=30) if cached_rows else FullGram(K)
    for r in full.support[:3]:
        keep = np.delete(np.arange(y.size), r)
        start = feasible_start(full.alpha, y, C, active=keep)
        sub = SMO(shrinking=True).solve(y, C=C, gram=store, active=keep, alpha0=start)
        assert sub.converged and sub.alpha[r] == 0.0
        assert _kkt_violation(sub, y, C, active=keep) <= TOL
        exact = y * (K @ (sub.alpha * y)) - 1.0
        assert sub.gradient[r] == pytest.approx(exact[r], abs=1e-9)
        assert np.abs(sub.gradient - exact).max() <= 1e-9 * np.abs(exact).max()


def test_shrinking_option_is_checked() -> None:
    _, y, K, _ = _gram("heart")
    with pytest.raises(ValueError, match="shrinking must be True or False; got 'yes'"):
        SMO(shrinking="yes").solve(y, C=1.0, gram=K)  # type: ignore[arg-type]
