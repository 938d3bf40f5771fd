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
