import numpy as np
import pytest

from svmtune.kernels import Linear
from svmtune.space import SearchSpace


def test_linear_is_inner_product(real):
    X, Z = real.X[:120], real.X[120:]
    np.testing.assert_allclose(Linear().gram({}, X, Z), X @ Z.T, rtol=1e-13, atol=1e-12)
    K = Linear().gram({}, real.X)
    np.testing.assert_allclose(K, real.X @ real.X.T, rtol=1e-13, atol=1e-12)
    np.testing.assert_array_equal(K, K.T)


def test_linear_has_empty_space():
    k = Linear()
    assert k.space == SearchSpace(())
    assert len(k.space) == 0
    assert k.space.names == ()
    assert k.check_params({}) == {}
    assert k.space.center() == {}
    assert k.space.to_unit({}).shape == (0,)
    assert k.space.from_unit([]) == {}
    assert k.nested() == (k,)
    assert k.embed({}, Linear()) == {}
    assert not k.includes_scale


def test_linear_rejects_parameters():
    with pytest.raises(ValueError, match="unknown"):
        Linear().gram({"gamma": 1.0}, np.eye(2))


def test_linear_gram_returns_fresh_array(sonar):
    P = Linear().prepare(sonar.X)
    K = P.gram({})
    K[:] = 0.0
    assert P.gram({})[0, 0] > 0
    assert P.n_kernel_evals == 208 * 208


def test_linear_diag(real):
    np.testing.assert_allclose(
        Linear().diag({}, real.X), np.diag(Linear().gram({}, real.X)), rtol=1e-13
    )


def test_linear_identity():
    assert Linear() == Linear()
    assert hash(Linear()) == hash(Linear())
    assert repr(Linear()) == "Linear()"
    assert Linear() != object()
