"""The Gaussian (RBF) kernel ``k(x, z) = exp(-gamma |x - z|^2)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import check_bounds, check_X
from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels._combine import scaled_exp
from svmtune.kernels._distances import squared_distances, squared_norms
from svmtune.kernels.row_forms import InnerProductForm
from svmtune.space import Param, SearchSpace

__all__ = ["RBF"]


def fused_rbf_net_sums(
    X: NDArray[np.float64], gamma: float, W: NDArray[np.float64]
) -> tuple[NDArray[np.float64], int]:
    """:func:`rbf_net_sums` for checked points, ``W`` of shape ``(n,)`` or ``(n, m)``."""
    from svmtune.kernels._rbf_sums import rbf_net_sums  # compiled (numba): loaded on first use

    Xc = np.ascontiguousarray(X, dtype=np.float64)
    n = Xc.shape[0]
    Wc = np.ascontiguousarray(W, dtype=np.float64).reshape(n, -1)
    S = rbf_net_sums(Xc, gamma, Wc, sq=squared_norms(Xc))
    return (S if W.ndim == 2 else S[:, 0]), n * (n - 1) // 2


def _n_skipped(shape: tuple[int, int], skip: int | None) -> int:
    if skip is None:
        return 0
    return max(0, min(shape[0], shape[1] - skip))


class _PreparedRBF(PreparedKernel):
    def __init__(self, model: RBF, D: NDArray[np.float64], symmetric: bool) -> None:
        super().__init__(model, D.shape)
        self.D = D
        self.symmetric = symmetric

    def _gram(self, params: dict[str, float]) -> NDArray[np.float64]:
        return scaled_exp(self.D, params["gamma"])

    def _gram_gradient(self, params: dict[str, float]) -> dict[str, NDArray[np.float64]]:
        # d/dgamma exp(-gamma D) = -D exp(-gamma D)
        K = scaled_exp(self.D, params["gamma"])
        np.multiply(K, self.D, out=K)
        return {"gamma": np.negative(K, out=K)}

    def weighted_sums(
        self, params: Mapping[str, float], W: NDArray[np.float64], *, skip: int | None = None
    ) -> tuple[NDArray[np.float64], int]:
        from svmtune.kernels._rbf_sums import rbf_block_sums, rbf_symmetric_net_sums

        gamma = self.model.check_params(params)["gamma"]
        Wc = np.ascontiguousarray(W, dtype=np.float64).reshape(self.shape[1], -1)
        if self.symmetric and skip == 0:
            S = rbf_symmetric_net_sums(self.D, gamma, Wc)
            n = self.shape[0]
            evals = n * (n - 1) // 2
        else:
            S = rbf_block_sums(self.D, gamma, Wc, -1 if skip is None else int(skip))
            evals = self.n_kernel_evals - _n_skipped(self.shape, skip)
        return (S if W.ndim == 2 else S[:, 0]), evals

    @property
    def nbytes(self) -> int:
        return int(self.D.nbytes)


class RBF(KernelModel):
    """Gaussian kernel with one width parameter ``gamma``.

    Parameters
    ----------
    gamma_bounds : tuple of float, default (1e-5, 1e5)
        Bounds of ``gamma``, searched on a log scale.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> K = RBF().gram({"gamma": 0.5}, X)
    >>> bool(np.allclose(K, [[1.0, np.exp(-1.0)], [np.exp(-1.0), 1.0]]))
    True
    """

    fused_net_sums: ClassVar[bool] = True

    def __init__(self, *, gamma_bounds: tuple[float, float] = (1e-5, 1e5)) -> None:
        self.gamma_bounds = gamma_bounds
        lo, hi = check_bounds(gamma_bounds, name="gamma_bounds")
        self._space = SearchSpace((Param("gamma", lo, hi),))

    @property
    def space(self) -> SearchSpace:
        return self._space

    def _prepare(self, X: NDArray[np.float64], Z: NDArray[np.float64] | None) -> PreparedKernel:
        return _PreparedRBF(self, squared_distances(X, Z), symmetric=Z is None)

    def net_sums(
        self, params: Mapping[str, float], X: ArrayLike, W: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], int]:
        """Net signals in one fused pass over upper-triangle tiles of the points (see
        :func:`svmtune.kernels._rbf_sums.rbf_net_sums`): ``n (n - 1) / 2`` kernel evaluations,
        memory ``O(n)``, the tiles spread over numba's threads."""
        gamma = self.check_params(params)["gamma"]
        return fused_rbf_net_sums(check_X(X), gamma, np.asarray(W, dtype=np.float64))

    def diag(self, params: Mapping[str, float], X: ArrayLike) -> NDArray[np.float64]:
        self.check_params(params)
        return np.ones(check_X(X).shape[0])

    def inner_product_form(self, params: Mapping[str, float]) -> InnerProductForm | None:
        """``exp(-gamma (|x|^2 + |z|^2 - 2 x.z))``: solvers compute its rows (and its Gram
        matrix, fused) from inner products."""
        gamma = self.check_params(params)["gamma"]
        # a subclass may compute another kernel: it announces the form by overriding this
        return InnerProductForm("rbf", gamma) if type(self) is RBF else None

    def __eq__(self, other: object) -> bool:
        return type(other) is RBF and other.gamma_bounds == self.gamma_bounds

    def __hash__(self) -> int:
        return hash(("RBF", self.gamma_bounds))
