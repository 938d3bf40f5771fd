"""PreparedKernel.weighted_sums (K @ W without keeping K) against the Gram matrix."""

import math

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


def test_loop_exp_is_within_2_ulp_of_the_c_library_exp():
    """Measured against the C library's exp (``math.exp``, within half an ulp of the exact
    value with glibc), not against numpy.exp, whose SIMD paths differ between CPUs, nor against
    long double, whose precision the x87 control word may cut to double: our exp is within
    1.1 ulp of the exact value (measured), hence within 2 ulp of ``math.exp`` anywhere."""
    from svmtune.kernels._rbf_sums import exp_nonpositive

    rng = np.random.default_rng(0)
    x = np.concatenate(
        [[0.0, -0.0, -1e-300, -0.5 * np.log(2), -700.0], -rng.exponential(20, 10**5)]
    )
    got = exp_nonpositive(x)
    assert got[0] == 1.0
    ref = np.array([math.exp(v) for v in x.tolist()])
    big = ref > 1e-300
    assert np.all(np.abs(got[big] - ref[big]) <= 2 * np.spacing(ref[big]))
    assert np.all(np.abs(got[~big] - ref[~big]) < 1e-300)
    assert exp_nonpositive(np.array([-800.0]))[0] < 1e-307
    with pytest.raises(ValueError, match="x <= 0"):
        exp_nonpositive(np.array([0.5]))


def _naive_net_sums(X, gamma, W):
    """The definition: direct differences, the C library's exp, the diagonal left out."""
    n = len(X)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.array([[math.exp(-gamma * v) for v in row] for row in D.tolist()])
    K[np.arange(n), np.arange(n)] = 0.0
    return K, K @ W


@pytest.mark.parametrize("n,tile", [(1, 16), (2, 16), (37, 16), (203, 16), (203, 64), (300, 256)])
@pytest.mark.parametrize("m", [1, 3])
def test_fused_net_sums_equal_the_definition_within_the_float64_bound(n, tile, m):
    """Tiles of any size, a last partial tile, one or several weight columns. Bound: a float64
    sum of n terms (n eps relative to sum_j k_ij |W_j|), the exp's 2 ulp, and the rounding of
    the expanded distance |x_i|^2 + |x_j|^2 - 2 x_i.x_j (a few eps of the squared norms, times
    gamma, relative)."""
    from svmtune.kernels._rbf_sums import rbf_net_sums

    rng = np.random.default_rng(n + m)
    X = rng.normal(size=(n, 3))
    W = rng.normal(size=(n, m))
    gamma = 0.7
    K, ref = _naive_net_sums(X, gamma, W)
    S = rbf_net_sums(X, gamma, W, tile=tile)
    assert S.shape == (n, m)
    eps = np.finfo(np.float64).eps
    sq = (X**2).sum(1)
    rel = (n + 4) * eps + 8 * gamma * eps * (sq[:, None] + sq.max())
    bound = rel * (K @ np.abs(W))
    assert np.all(np.abs(S - ref) <= bound + 1e-300)


def test_fused_net_sums_through_the_kernels_and_threads():
    """RBF and anisotropic RBF `net_sums` against their Gram matrices, vector or matrix W,
    the same values on one thread and on all of them (the chunks do not depend on it)."""
    import numba

    from svmtune.kernels import AnisotropicRBF

    rng = np.random.default_rng(1)
    X = rng.normal(size=(700, 4))
    w = rng.normal(size=700)
    for kernel, params in [
        (RBF(), {"gamma": 0.3}),
        (AnisotropicRBF(n_features=4), {f"gamma_{f}": g for f, g in enumerate([1, 0.1, 2, 0.5])}),
    ]:
        assert kernel.fused_net_sums
        K = kernel.gram(params, X)
        np.fill_diagonal(K, 0.0)
        s, evals = kernel.net_sums(params, X, w)
        assert s.shape == (700,) and evals == 700 * 699 // 2
        assert np.all(np.abs(s - K @ w) <= 1e-12 * (np.abs(K) @ np.abs(w)))
        threads = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            s1, _ = kernel.net_sums(params, X, w[:, None])
        finally:
            numba.set_num_threads(threads)
        np.testing.assert_allclose(s1[:, 0], s, rtol=1e-13, atol=1e-13)
    # the generic default (prepared Gram, skip=0) gives the same signals for other kernels
    S, evals = Linear().net_sums({}, X, np.ones((700, 1)))
    G = X @ X.T
    np.fill_diagonal(G, 0.0)
    np.testing.assert_allclose(S[:, 0], G.sum(1), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="gamma=-1 is outside"):
        RBF().net_sums({"gamma": -1}, X, w)
    with pytest.raises(ValueError, match="squared distances overflow float64"):
        RBF().net_sums({"gamma": 1.0}, X * 1e160, w)


def test_net_sums_are_the_same_to_the_digit_on_any_thread_count():
    """The chunking of the fused loop does not follow numba's thread count: a study run in one
    process (all threads) and in worker processes (one thread each) sums in the same order."""
    import numba

    from svmtune.kernels._rbf_sums import rbf_net_sums

    rng = np.random.default_rng(0)
    X, W = rng.normal(size=(1100, 6)), rng.normal(size=(1100, 2))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rbf_net_sums(X, 0.2, W)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = rbf_net_sums(X, 0.2, W)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, many)
