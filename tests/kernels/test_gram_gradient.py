"""PreparedKernel.gram_gradient against central finite differences of the Gram matrix."""

import numpy as np
import pytest

from svmtune.datasets import load
from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel

_HEART = load("heart")[0][:, [0, 3, 4, 7]]  # age, blood pressure, cholesterol, max heart rate
_HEART = (_HEART - _HEART.mean(axis=0)) / _HEART.std(axis=0)
X = _HEART[:9]
Z = _HEART[100:106]

MODELS = [
    (RBF(), {"gamma": 0.3}),
    (
        AnisotropicRBF(n_features=4),
        {"gamma_0": 0.2, "gamma_1": 1.5, "gamma_2": 0.05, "gamma_3": 0.7},
    ),
    (Linear(), {}),
    (MultipleKernel([[0, 1], [2, 3]], form="common"), {"mu": 2.0}),
    (
        MultipleKernel([[0, 1], [2, 3]], form="weights"),
        {f"mu_{t}_{j}": 0.5 + t + j for t in range(2) for j in range(3)},
    ),
    (
        MultipleKernel([[0, 1], [2, 3]], form="weights", memory_budget=0),
        {f"mu_{t}_{j}": 0.5 + t + j for t in range(2) for j in range(3)},
    ),
    (MultipleKernel([[0, 1], [2, 3]], base="linear", form="weights"), {"mu_0": 0.5, "mu_1": 3.0}),
    (MultipleKernel([[0], [1, 2, 3]], form="common_width"), {"mu": 1.5, "gamma": 0.4}),
    (
        MultipleKernel([[0], [1, 2, 3]], form="weights_widths"),
        {"mu_0": 1.5, "mu_1": 0.3, "gamma_0": 0.4, "gamma_1": 2.0},
    ),
]


@pytest.mark.parametrize(("model", "params"), MODELS, ids=lambda m: repr(m)[:40])
@pytest.mark.parametrize("square", [True, False])
def test_gram_gradient_matches_central_differences(model, params, square):
    prep = model.prepare(X) if square else model.prepare(X, Z)
    grads = prep.gram_gradient(params)
    assert sorted(grads) == sorted(model.space.names)
    for name, dK in grads.items():
        h = 1e-6 * params[name]
        up = prep.gram({**params, name: params[name] + h})
        down = prep.gram({**params, name: params[name] - h})
        fd = (up - down) / (2 * h)
        assert dK.shape == prep.shape
        np.testing.assert_allclose(dK, fd, rtol=1e-6, atol=1e-8)


def test_gram_gradient_checks_parameters():
    with pytest.raises(ValueError, match="gamma"):
        RBF().prepare(X).gram_gradient({"gamma": -1.0})
