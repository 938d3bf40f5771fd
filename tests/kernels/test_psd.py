"""Every kernel's Gram matrix on real data is symmetric positive semi-definite."""

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel


def _models(data):
    d = data.X.shape[1]
    yield RBF()
    yield Linear()
    yield AnisotropicRBF(n_features=d)
    for base, form in [
        ("rbf", "common"),
        ("rbf", "weights"),
        ("rbf", "common_width"),
        ("rbf", "weights_widths"),
        ("linear", "common"),
        ("linear", "weights"),
    ]:
        yield MultipleKernel(data.groups, base=base, form=form)


@pytest.mark.parametrize("unit", [0.3, 0.5, 0.7, None])
def test_gram_is_symmetric_psd(real, unit):
    rng = np.random.default_rng(11)
    n = real.X.shape[0]
    for model in _models(real):
        u = rng.uniform(0.3, 0.7, len(model.space)) if unit is None else [unit] * len(model.space)
        p = model.space.from_unit(u)
        K = model.gram(p, real.X)
        np.testing.assert_array_equal(K, K.T, err_msg=repr(model))
        scale = np.max(np.abs(K))
        min_eig = np.linalg.eigvalsh(K)[0]
        assert min_eig >= -1e-8 * n * scale, (repr(model), p, min_eig, scale)
