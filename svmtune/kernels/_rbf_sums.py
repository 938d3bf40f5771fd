"""Fused RBF loops (numba): ``K @ W`` straight from squared distances, ``K`` never stored.

Leave-one-out estimates need only the class sums of the kernel rows; computing them in one pass
saves the n x n kernel matrix, its memory traffic and, on a symmetric block, half the ``exp``
calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["rbf_block_sums", "rbf_symmetric_net_sums"]


@njit(cache=True, nogil=True)
def _symmetric(D, gamma, W, S):  # pragma: no cover - compiled
    n = D.shape[0]
    m = W.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            k = np.exp(-gamma * D[i, j])
            for c in range(m):
                S[i, c] += k * W[j, c]
                S[j, c] += k * W[i, c]


@njit(cache=True, nogil=True)
def _block(D, gamma, W, skip, S):  # pragma: no cover - compiled
    rows, cols = D.shape
    m = W.shape[1]
    for i in range(rows):
        own = i + skip if skip >= 0 else -1
        for j in range(cols):
            if j == own:
                continue
            k = np.exp(-gamma * D[i, j])
            for c in range(m):
                S[i, c] += k * W[j, c]


def rbf_symmetric_net_sums(
    D: NDArray[np.float64], gamma: float, W: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``S[i] = sum_{j != i} exp(-gamma D[i, j]) W[j]`` for a symmetric ``D``; n(n-1)/2 exps."""
    S = np.zeros((D.shape[0], W.shape[1]))
    _symmetric(D, float(gamma), W, S)
    return S


def rbf_block_sums(
    D: NDArray[np.float64], gamma: float, W: NDArray[np.float64], skip: int = -1
) -> NDArray[np.float64]:
    """``S[i] = sum_j exp(-gamma D[i, j]) W[j]``, without ``j = i + skip`` if ``skip >= 0``."""
    S = np.zeros((D.shape[0], W.shape[1]))
    _block(D, float(gamma), W, int(skip), S)
    return S
