"""PreparedKernel.weighted_sums (K @ W without keeping K) against the Gram matrix."""

import numpy as np
import pytest

from svmtune.datasets import load
from svmtune.kernels import RBF, Linear


@pytest.fixture(scope="module")
def data():
    X, y = load("sonar")
    return X[:120] / X.max(), np.column_stack([y[:120] > 0, y[:120] < 0]).astype(float)


@pytest.mark.parametrize("kernel,params", [(RBF(), {"gamma": 0.7}), (Linear(), {})])
def test_symmetric_net_sums(data, kernel, params):
    X, W = data
    K = kernel.gram(params, X)
    np.fill_diagonal(K, 0.0)
    S, evals = kernel.prepare(X).weighted_sums(params, W, skip=0)
    np.testing.assert_allclose(S, K @ W, rtol=1e-12, atol=1e-12)
    n = len(X)
    assert evals == (n * (n - 1) // 2 if isinstance(kernel, RBF) else n * n - n)


@pytest.mark.parametrize("kernel,params", [(RBF(), {"gamma": 0.7}), (Linear(), {})])
@pytest.mark.parametrize("skip", [None, 0, 30, 100])
def test_block_sums(data, kernel, params, skip):
    X, W = data
    rows = X[30:50] if skip == 30 else X[:20]
    K = kernel.gram(params, rows, X)
    if skip is not None:
        for r in range(len(rows)):
            if r + skip < len(X):
                K[r, r + skip] = 0.0
    S, evals = kernel.prepare(rows, X).weighted_sums(params, W, skip=skip)
    np.testing.assert_allclose(S, K @ W, rtol=1e-12, atol=1e-12)
    skipped = 0 if skip is None else sum(r + skip < len(X) for r in range(len(rows)))
    assert evals == len(rows) * len(X) - skipped


def test_bad_params(data):
    X, W = data
    with pytest.raises(ValueError, match="gamma=-1 is outside"):
        RBF().prepare(X).weighted_sums({"gamma": -1}, W, skip=0)


def test_loop_exp_is_within_1_5_ulp_of_the_exact_value():
    """Measured against exp in extended precision, not against numpy.exp: two float64 exps that
    are each within an ulp of the truth may differ by two (and numba compiles for the host CPU,
    with or without fused multiply-adds), so only the distance to the exact value is portable."""
    from svmtune.kernels._rbf_sums import exp_nonpositive

    rng = np.random.default_rng(0)
    x = np.concatenate(
        [[0.0, -0.0, -1e-300, -0.5 * np.log(2), -700.0], -rng.exponential(20, 10**5)]
    )
    got = exp_nonpositive(x)
    assert got[0] == 1.0
    if np.finfo(np.longdouble).eps < 1e-18:  # x86 80-bit or quad precision
        exact = np.exp(x.astype(np.longdouble))
        tol_ulp = 1.5
    else:  # long double is double: numpy's exp (about 0.7 ulp) as the reference
        exact = np.exp(x)
        tol_ulp = 2.5
    big = exact > 1e-300
    ulp = np.spacing(exact[big].astype(np.float64)).astype(exact.dtype)
    assert np.all(np.abs(got[big].astype(exact.dtype) - exact[big]) <= tol_ulp * ulp)
    assert np.all(np.abs(got[~big] - exact[~big].astype(np.float64)) < 1e-300)
    assert exp_nonpositive(np.array([-800.0]))[0] < 1e-307
    with pytest.raises(ValueError, match="x <= 0"):
        exp_nonpositive(np.array([0.5]))
