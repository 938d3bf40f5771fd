import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from svmtune.kernels import RBF


@pytest.mark.parametrize("gamma", [1e-3, 0.05, 1.0, 20.0])
def test_rbf_matches_sklearn_x_vs_x(real, gamma):
    K = RBF().gram({"gamma": gamma}, real.X)
    np.testing.assert_allclose(K, rbf_kernel(real.X, gamma=gamma), rtol=0, atol=1e-12)


@pytest.mark.parametrize("gamma", [1e-3, 0.05, 1.0, 20.0])
def test_rbf_matches_sklearn_x_vs_z(real, gamma):
    X, Z = real.X[:150], real.X[150:]
    K = RBF().gram({"gamma": gamma}, X, Z)
    assert K.shape == (150, real.X.shape[0] - 150)
    np.testing.assert_allclose(K, rbf_kernel(X, Z, gamma=gamma), rtol=0, atol=1e-12)


def test_rbf_prepared_reuses_distances(sonar):
    P = RBF().prepare(sonar.X)
    D = P.D
    for gamma in (0.01, 0.1, 1.0):
        np.testing.assert_allclose(
            P.gram({"gamma": gamma}), rbf_kernel(sonar.X, gamma=gamma), rtol=0, atol=1e-12
        )
    assert P.D is D
    assert P.n_kernel_evals == 208 * 208


def test_rbf_diag(sonar):
    np.testing.assert_array_equal(RBF().diag({"gamma": 0.3}, sonar.X), np.ones(208))


@pytest.mark.parametrize("gamma", [-1.0, 0.0, np.nan, np.inf, 1e6])
def test_rbf_bad_gamma(sonar, gamma):
    with pytest.raises(ValueError, match="gamma"):
        RBF().gram({"gamma": gamma}, sonar.X[:5])
