"""The classifier every objective yields: a kernel expansion plus a threshold."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import check_X
from svmtune.kernels._base import KernelModel

__all__ = ["KernelExpansion"]


class KernelExpansion:
    """``f(x) = sum_i coef_i k(x, x_i) + intercept``; ``predict(x) = sign(f(x))`` (ties -> +1).

    For an SVM, ``coef_i = alpha_i y_i``; for Fischetti's LOO models, ``coef_i = alpha_{y_i} y_i``.

    Parameters
    ----------
    kernel : KernelModel
    params : mapping
        Kernel parameters (validated against the kernel's space).
    vectors : array of shape (n_vectors, n_features)
        The expansion points (support vectors).
    coef : array of shape (n_vectors,)
    intercept : float
    block_size : int
        Rows of new points per kernel block in :meth:`decision_function` (bounds memory).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> clf = KernelExpansion(kernel=RBF(), params={"gamma": 1.0},
    ...                       vectors=np.array([[-1.0], [1.0]]), coef=np.array([-1.0, 1.0]),
    ...                       intercept=0.0)
    >>> clf.predict(np.array([[-2.0], [0.5]])).tolist()
    [-1.0, 1.0]
    """

    def __init__(
        self,
        *,
        kernel: KernelModel,
        params: Mapping[str, float],
        vectors: ArrayLike,
        coef: ArrayLike,
        intercept: float,
        block_size: int = 4096,
    ) -> None:
        self.kernel = kernel
        self.params = kernel.check_params(params)
        self.vectors = check_X(vectors, name="vectors")
        self.coef = np.asarray(coef, dtype=np.float64).ravel()
        if self.coef.shape[0] != self.vectors.shape[0]:
            raise ValueError(
                f"coef has {self.coef.shape[0]} entries but there are "
                f"{self.vectors.shape[0]} vectors"
            )
        self.intercept = float(intercept)
        self.block_size = int(block_size)

    @property
    def n_features(self) -> int:
        return int(self.vectors.shape[1])

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Signed score of each row of ``X``."""
        Xc = check_X(X)
        if Xc.shape[1] != self.n_features:
            raise ValueError(
                f"X has {Xc.shape[1]} features but the classifier was built on {self.n_features}"
            )
        out = np.empty(Xc.shape[0])
        for start in range(0, Xc.shape[0], self.block_size):
            stop = min(start + self.block_size, Xc.shape[0])
            K = self.kernel.gram(self.params, Xc[start:stop], self.vectors)
            out[start:stop] = K @ self.coef + self.intercept
        return out

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Labels in {-1, +1}."""
        return np.where(self.decision_function(X) >= 0.0, 1.0, -1.0)

    def error(self, X: ArrayLike, y: ArrayLike) -> float:
        """Fraction of ``(X, y)`` misclassified."""
        yy = np.asarray(y, dtype=np.float64).ravel()
        return float(np.mean(self.predict(X) != yy))
