import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmtune.kernels import RBF, AnisotropicRBF


def _direct(X, Z, gammas):
    diff2 = (X[:, None, :] - Z[None, :, :]) ** 2
    return np.exp(-(diff2 * gammas).sum(axis=-1))


def _params(gammas):
    return {f"gamma_{f}": float(g) for f, g in enumerate(gammas)}


def test_aniso_matches_formula(real):
    rng = np.random.default_rng(0)
    d = real.X.shape[1]
    k = AnisotropicRBF(n_features=d)
    gammas = np.exp(rng.uniform(np.log(1e-3), np.log(1.0), d))
    X, Z = real.X[:100], real.X[100:160]
    np.testing.assert_allclose(k.gram(_params(gammas), X, Z), _direct(X, Z, gammas), atol=1e-12)
    K = k.gram(_params(gammas), X)
    np.testing.assert_allclose(K, _direct(X, X, gammas), atol=1e-12)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)


def test_aniso_space_and_nesting():
    k = AnisotropicRBF(n_features=3, gamma_bounds=(1e-2, 1e2))
    assert k.space.names == ("gamma_0", "gamma_1", "gamma_2")
    assert k.nested() == (RBF(gamma_bounds=(1e-2, 1e2)), k)
    assert k.embed({"gamma": 0.5}, RBF(gamma_bounds=(1e-2, 1e2))) == {
        "gamma_0": 0.5,
        "gamma_1": 0.5,
        "gamma_2": 0.5,
    }
    with pytest.raises(ValueError, match="not a nested sub-model"):
        k.embed({"gamma": 0.5}, RBF())  # other bounds: not this model's inner class


@pytest.fixture(scope="module")
def sonar_prepared(sonar):
    d = sonar.X.shape[1]
    aniso = AnisotropicRBF(n_features=d)
    rbf = aniso.nested()[0]
    X, Z = sonar.X[:140], sonar.X[140:]
    return aniso, rbf, (rbf.prepare(X, Z), aniso.prepare(X, Z)), (rbf.prepare(X), aniso.prepare(X))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(log_gamma=st.floats(np.log(1e-5), np.log(1e5)))
def test_rbf_embeds_into_aniso_with_the_same_gram(sonar_prepared, log_gamma):
    aniso, rbf, *pairs = sonar_prepared
    p = {"gamma": float(np.exp(log_gamma))}
    q = aniso.embed(p, rbf)
    assert len(set(q.values())) == 1
    for P_rbf, P_aniso in pairs:
        K1, K2 = P_rbf.gram(p), P_aniso.gram(q)
        assert np.max(np.abs(K1 - K2)) <= 1e-12 * max(1.0, np.max(np.abs(K1)))


def test_aniso_prepare_stores_points_not_a_tensor(spambase):
    k = AnisotropicRBF(n_features=57)
    P = k.prepare(spambase.X)
    assert P.nbytes == spambase.X.nbytes  # O(n d), not O(n^2 d)
    assert P.n_kernel_evals == 300 * 300
    g = np.full(57, 0.1)
    K1 = P.gram(_params(g))
    K2 = P.gram(_params(2 * g))
    np.testing.assert_allclose(K2, K1**2, atol=1e-12)


def test_aniso_diag(sonar):
    k = AnisotropicRBF(n_features=60)
    p = k.space.center()
    np.testing.assert_array_equal(k.diag(p, sonar.X), np.diag(k.gram(p, sonar.X)))


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.nan, 1e9])
def test_aniso_bad_gamma(bad):
    k = AnisotropicRBF(n_features=2)
    with pytest.raises(ValueError, match="gamma_1"):
        k.gram({"gamma_0": 1.0, "gamma_1": bad}, np.eye(2))


def test_aniso_feature_count_checked(sonar):
    k = AnisotropicRBF(n_features=59)
    with pytest.raises(ValueError, match="acts on 59 features; the data has 60"):
        k.prepare(sonar.X)
    with pytest.raises(ValueError, match="acts on 59 features"):
        k.diag(k.space.center(), sonar.X)


@pytest.mark.parametrize("n", [0, -2, 2.5, True, "3"])
def test_aniso_bad_n_features(n):
    with pytest.raises(ValueError, match="n_features"):
        AnisotropicRBF(n_features=n)


def test_aniso_bad_bounds():
    with pytest.raises(ValueError, match="gamma_bounds"):
        AnisotropicRBF(n_features=2, gamma_bounds=(1.0, 0.1))


def test_aniso_identity():
    a = AnisotropicRBF(n_features=4)
    assert a == AnisotropicRBF(n_features=4)
    assert hash(a) == hash(AnisotropicRBF(n_features=4))
    assert a != AnisotropicRBF(n_features=5)
    assert a != AnisotropicRBF(n_features=4, gamma_bounds=(1e-3, 1e3))
    assert repr(a) == "AnisotropicRBF(n_features=4)"
    assert repr(AnisotropicRBF(n_features=4, gamma_bounds=(1e-3, 1e3))) == (
        "AnisotropicRBF(n_features=4, gamma_bounds=(0.001, 1000.0))"
    )
