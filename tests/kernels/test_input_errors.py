"""Bad data gets a ValueError naming it, for every kernel model."""

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel

MODELS = [
    RBF(),
    Linear(),
    AnisotropicRBF(n_features=4),
    MultipleKernel([[0, 1], [2, 3]], form="common"),
    MultipleKernel([[0, 1], [2, 3]], form="weights"),
    MultipleKernel([[0, 1], [2, 3]], form="weights_widths"),
    MultipleKernel([[0, 1], [2, 3]], base="linear", form="weights"),
]
IDS = [repr(m) for m in MODELS]


@pytest.fixture
def X(sonar):
    return sonar.X[:10, :4].copy()


@pytest.mark.parametrize("model", MODELS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X(model, X, bad):
    X[3, 2] = bad
    with pytest.raises(ValueError, match=r"X contains 1 non-finite value.*row 3, column 2"):
        model.prepare(X)
    with pytest.raises(ValueError, match="non-finite"):
        model.gram(model.space.center(), X)


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_non_finite_Z(model, X):
    Z = X.copy()
    Z[0, 0] = np.nan
    with pytest.raises(ValueError, match="Z contains 1 non-finite"):
        model.prepare(X, Z)


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_mismatched_feature_counts(model, X, sonar):
    Z = sonar.X[:5, :5]
    with pytest.raises(ValueError, match="X and Z have different numbers of features: 4 and 5"):
        model.prepare(X, Z)


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_bad_shapes(model):
    with pytest.raises(ValueError, match="2-dimensional"):
        model.prepare(np.ones(4))
    with pytest.raises(ValueError, match="empty"):
        model.prepare(np.ones((0, 4)))


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_bad_params(model, X):
    P = model.prepare(X)
    params = model.space.center()
    if params:
        name = model.space.names[-1]
        with pytest.raises(ValueError, match=name):
            P.gram({**params, name: -1.0})
    with pytest.raises(ValueError, match="missing|unknown"):
        P.gram({**params, "extra": 1.0})


@pytest.mark.parametrize(
    "bounds", [(1,), (1, 2, 3), ("a", "b"), 5.0, "ab", (0, 1), (2, 1), (1, np.inf)]
)
@pytest.mark.parametrize(
    "make", [lambda b: RBF(gamma_bounds=b), lambda b: AnisotropicRBF(n_features=2, gamma_bounds=b)]
)
def test_bad_gamma_bounds_are_named(make, bounds):
    with pytest.raises(ValueError, match="gamma_bounds must"):
        make(bounds)
