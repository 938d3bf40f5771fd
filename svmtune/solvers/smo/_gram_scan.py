"""One compiled pass over a Gram matrix for what makes it unusable (:func:`scan_gram`)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["scan_gram"]


@njit(cache=True, nogil=True)
def scan_gram(K, rtol):  # pragma: no cover - compiled
    """Scan a Gram matrix once for what makes it unusable: returns ``(code, i, j)``.

    Codes: 0 fine; 1 ``K[i, j]`` is not finite; 2 ``K[i, i] < 0``; 3 ``K[i, j] != K[j, i]``
    beyond ``rtol``; 4 ``|K[i, j]| > sqrt(K[i, i] K[j, j])`` beyond ``rtol`` (a 2x2 principal
    minor is negative, so ``K`` is not positive semidefinite).
    """
    n = K.shape[0]
    scale = 0.0
    for i in range(n):
        d = K[i, i]
        if not np.isfinite(d):
            return 1, i, i
        if d < 0.0:
            return 2, i, i
        scale = max(scale, d)
    atol = rtol * max(scale, 1e-300)
    for i in range(n):
        for j in range(n):
            v = K[i, j]
            if not np.isfinite(v):
                return 1, i, j
        dii = K[i, i]
        for j in range(i + 1, n):
            v = K[i, j]
            if abs(v - K[j, i]) > atol:
                return 3, i, j
            if v * v > dii * K[j, j] * (1.0 + rtol) + atol * atol:
                return 4, i, j
    return 0, -1, -1
