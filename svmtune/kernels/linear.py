"""The linear kernel ``k(x, z) = x . z``."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import check_X
from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels._distances import inner_products
from svmtune.kernels.row_forms import InnerProductForm
from svmtune.space import SearchSpace

__all__ = ["Linear"]


class _PreparedLinear(PreparedKernel):
    def __init__(self, model: Linear, G: NDArray[np.float64]) -> None:
        super().__init__(model, G.shape)
        self.G = G

    def _gram(self, params: dict[str, float]) -> NDArray[np.float64]:
        return self.G.copy()

    def _gram_gradient(self, params: dict[str, float]) -> dict[str, NDArray[np.float64]]:
        return {}

    @property
    def nbytes(self) -> int:
        return int(self.G.nbytes)


class Linear(KernelModel):
    """The linear kernel ``k(x, z) = x . z``: no kernel hyperparameters (an empty search space).

    With an objective that has a regularization constant, only ``C`` is tuned (model (5) of
    Carrizosa et al. 2014 with the linear base kernel). The prepared statistic is the matrix of
    inner products, so every :meth:`~PreparedKernel.gram` call is a copy.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import Linear
    >>> X = np.array([[1.0, 2.0], [0.0, 1.0]])
    >>> Linear().gram({}, X).tolist()
    [[5.0, 2.0], [2.0, 1.0]]
    >>> len(Linear().space)
    0
    """

    def __init__(self) -> None:
        self._space = SearchSpace(())

    @property
    def space(self) -> SearchSpace:
        return self._space

    def _prepare(self, X: NDArray[np.float64], Z: NDArray[np.float64] | None) -> PreparedKernel:
        return _PreparedLinear(self, inner_products(X, Z))

    def diag(self, params: Mapping[str, float], X: ArrayLike) -> NDArray[np.float64]:
        """Squared row norms ``x_i . x_i``."""
        self.check_params(params)
        Xc = check_X(X)
        return np.einsum("ij,ij->i", Xc, Xc)

    def inner_product_form(self, params: Mapping[str, float]) -> InnerProductForm | None:
        """``k(x, z) = x . z``: solvers compute its rows from inner products."""
        self.check_params(params)
        # a subclass may compute another kernel: it announces the form by overriding this
        return InnerProductForm("linear") if type(self) is Linear else None

    def __eq__(self, other: object) -> bool:
        return type(other) is Linear

    def __hash__(self) -> int:
        return hash("Linear")
