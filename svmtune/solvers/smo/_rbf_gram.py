"""The Gaussian Gram matrix for one SMO fit, fused (numba): one BLAS product, one exp pass.

``K_ij = exp(-gamma (|x_i|^2 + |x_j|^2 - 2 x_i.x_j))`` from the inner products ``P = X X'``,
turned into the exponents in place tile by tile (only the upper triangle of ``P`` is read and
each value is written to ``K_ij`` and ``K_ji``, so ``K`` is exactly symmetric with a unit
diagonal), then one in-place ``numpy.exp`` (SIMD; measured 3-5x faster here than the scalar-
vectorized exp of :mod:`svmtune.kernels.row_forms`). Against building squared distances first
(several passes over ``n^2`` doubles, then a copy through the exp) this saves most of the Gram
time, which is most of a single fit's time on the 150-1,000-point sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmtune.kernels.row_forms import DISTANCE_ROUNDOFF, squared_norms

__all__ = ["rbf_gram", "squared_norms"]

_TILE = 64


@njit(cache=True, nogil=True)
def _exponents_from_products(P, sq, gamma):  # pragma: no cover - compiled
    """``P_ij <- -gamma (sq_i + sq_j - 2 P_ij)`` from the upper triangle, mirrored; 0 where the
    squared distance is round-off (``DISTANCE_ROUNDOFF``)."""
    n = P.shape[0]
    for i0 in range(0, n, _TILE):
        i1 = min(i0 + _TILE, n)
        for j0 in range(i0, n, _TILE):
            j1 = min(j0 + _TILE, n)
            for i in range(i0, i1):
                si = sq[i]
                row = P[i]
                for j in range(max(j0, i + 1), j1):
                    d = si + sq[j] - 2.0 * row[j]
                    row[j] = -gamma * d if d > DISTANCE_ROUNDOFF * (si + sq[j]) else 0.0
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    P[j, i] = P[i, j]
        for i in range(i0, i1):
            P[i, i] = 0.0


def rbf_gram(X: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """``exp(-gamma |x_i - x_j|^2)`` for the rows of ``X`` (C-contiguous float64), symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> K = rbf_gram(np.array([[0.0], [1.0]]), 0.5)
    >>> bool(np.allclose(K, [[1.0, np.exp(-0.5)], [np.exp(-0.5), 1.0]]))
    True
    """
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    sq = squared_norms(Xc)
    P = np.ascontiguousarray(Xc @ Xc.T)
    _exponents_from_products(P, sq, float(gamma))
    np.exp(P, out=P)
    return P
