"""Fused RBF loops (numba): ``K @ W`` straight from squared distances, ``K`` never stored.

Leave-one-out estimates need only the class sums of the kernel rows; computing them in one pass
saves the n x n kernel matrix, its memory traffic and, on a symmetric block, half the ``exp``
calls. The ``exp`` of a row is computed by :func:`_exp_nonpositive` in two vectorizable passes
(Cody-Waite reduction and a degree-13 polynomial, then the power of two through the exponent
bits): within one unit in the last place of ``numpy.exp`` and about twice as fast as a libm
call per element, which is what these loops spend their time on.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from svmtune.kernels._distances import DISTANCE_ROUNDOFF

__all__ = [
    "exp_nonpositive",
    "rbf_block_sums",
    "rbf_net_sums",
    "rbf_symmetric_net_sums",
]

#: Side of the square tiles of the fused loop: a tile's columns of ``X`` (``d x 256`` doubles)
#: and its partial column sums stay in the first-level caches.
NET_SUMS_TILE = 256

#: Chunks of tiles the fused loop's threads share out (at most; fewer when there are fewer
#: tiles). Fixed, so that the summation order, and so every bit of the result, does not depend
#: on the number of threads; few, since each holds n x m partial sums (16 keep the 19,000-point
#: LOO_3 pass under 16 MiB and give 8 chunks a thread on 2 cores).
NET_SUMS_CHUNKS = 16

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.4426950408889634
_TWO_M64 = 2.0**-64


@njit(cache=True, nogil=True)
def _exp_nonpositive(x, out, bits):  # pragma: no cover - compiled
    """out[i] = exp(x[i]) for x[i] <= 0, subnormal results and the underflow to 0 included.

    ``out`` must not alias ``x``: the compiler then cannot vectorize the loop (2.7x slower).
    Below ``x = -708`` the power of two ``2**k`` is no longer a normal float: the result is
    built as ``p 2**(k + 64)`` and then scaled by ``2**-64``, which rounds it to the subnormal
    (or to 0 below about -745) as the C library's exp does."""
    n = x.size
    for i in range(n):
        xi = max(x[i], -746.0)
        k = np.floor(xi * _LOG2E + 0.5)
        r = (xi - k * _LN2_HI) - k * _LN2_LO  # |r| <= ln2 / 2
        # Taylor polynomial of degree 13: remainder below 0.347^14 / 14! ~ 4e-18
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        tiny = k < -1000.0
        out[i] = p * (_TWO_M64 if tiny else 1.0)
        bits[i] = (np.int64(k + 64.0 if tiny else k) + 1023) << 52  # the float 2**k (or k+64)
    scale = bits[:n].view(np.float64)
    for i in range(n):
        out[i] *= scale[i]


@njit(cache=True, nogil=True)
def _symmetric(D, gamma, WT, ST):  # pragma: no cover - compiled
    n = D.shape[0]
    m = WT.shape[0]
    arg = np.empty(n)
    buf = np.empty(n)
    bits = np.empty(n, dtype=np.int64)
    for i in range(n - 1):
        # the strict upper triangle of row i through one exp pass
        k = n - i - 1
        for j in range(k):
            arg[j] = -gamma * D[i, i + 1 + j]
        row = buf[:k]
        _exp_nonpositive(arg[:k], row, bits)
        for c in range(m):
            w = WT[c, i + 1 :]
            s = ST[c, i + 1 :]
            wi = WT[c, i]
            acc = 0.0
            for j in range(k):
                acc += row[j] * w[j]
                s[j] += row[j] * wi
            ST[c, i] += acc


@njit(cache=True, nogil=True)
def _block(D, gamma, WT, skip, ST):  # pragma: no cover - compiled
    rows, cols = D.shape
    m = WT.shape[0]
    arg = np.empty(cols)
    row = np.empty(cols)
    bits = np.empty(cols, dtype=np.int64)
    for i in range(rows):
        for j in range(cols):
            arg[j] = -gamma * D[i, j]
        _exp_nonpositive(arg, row, bits)
        own = i + skip
        if skip >= 0 and own < cols:
            row[own] = 0.0
        for c in range(m):
            acc = 0.0
            for j in range(cols):
                acc += row[j] * WT[c, j]
            ST[c, i] = acc


@njit(cache=True, nogil=True, parallel=True)
def _net_tiles(XT, sq, gamma, WT, tiles, tile, SC):  # pragma: no cover - compiled
    """Upper-triangle tiles of ``exp(-gamma |x_i - x_j|^2)`` into per-chunk sums ``SC``.

    ``XT`` is ``X`` transposed (``d x n``), ``sq`` the squared norms, ``WT`` the weights
    transposed (``m x n``), ``tiles`` the ``(row tile, column tile)`` pairs with row <= column.
    Chunk ``t`` takes tiles ``t, t + n_chunks, ...`` and adds pair ``(i, j)``, ``i < j``, to
    ``SC[t, :, i]`` (with ``W[j]``) and ``SC[t, :, j]`` (with ``W[i]``): one product, one exp
    per pair, no shared writes between chunks.
    """
    n_chunks = SC.shape[0]
    m = WT.shape[0]
    d = XT.shape[0]
    n = XT.shape[1]
    n_tiles = tiles.shape[0]
    for t in prange(n_chunks):
        S = SC[t]
        dot = np.empty(tile)
        arg = np.empty(tile)
        row = np.empty(tile)
        bits = np.empty(tile, dtype=np.int64)
        cols = np.zeros((m, tile))
        for q in range(t, n_tiles, n_chunks):
            i0 = tiles[q, 0] * tile
            j0 = tiles[q, 1] * tile
            i1 = min(i0 + tile, n)
            j1 = min(j0 + tile, n)
            for i in range(i0, i1):
                js = max(j0, i + 1)
                k = j1 - js
                if k <= 0:
                    continue
                p = dot[:k]
                for j in range(k):
                    p[j] = 0.0
                for f in range(d):
                    xf = XT[f, i]
                    xr = XT[f, js:j1]
                    for j in range(k):
                        p[j] += xf * xr[j]
                si = sq[i]
                sj = sq[js:j1]
                a = arg[:k]
                for j in range(k):
                    dist = si + sj[j] - 2.0 * p[j]
                    a[j] = -gamma * dist if dist > DISTANCE_ROUNDOFF * (si + sj[j]) else 0.0
                e = row[:k]
                _exp_nonpositive(a, e, bits)
                off = js - j0
                for c in range(m):
                    w = WT[c, js:j1]
                    wi = WT[c, i]
                    cc = cols[c, off : off + k]
                    acc = 0.0
                    for j in range(k):
                        acc += e[j] * w[j]
                        cc[j] += e[j] * wi
                    S[c, i] += acc
            for c in range(m):
                for j in range(j1 - j0):
                    S[c, j0 + j] += cols[c, j]
                    cols[c, j] = 0.0


def rbf_net_sums(
    X: NDArray[np.float64],
    gamma: float,
    W: NDArray[np.float64],
    *,
    sq: NDArray[np.float64] | None = None,
    tile: int = NET_SUMS_TILE,
) -> NDArray[np.float64]:
    """``S[i] = sum_{j != i} exp(-gamma |x_i - x_j|^2) W[j]`` straight from the points.

    One fused, tiled pass over the upper triangle: each pair's inner product, squared distance
    (``|x_i|^2 + |x_j|^2 - 2 x_i.x_j``, clipped at 0, as
    :func:`svmtune.kernels._distances.squared_distances`), exp and both weighted sums in compiled
    code, ``n (n - 1) / 2`` exps, the tiles spread over numba's threads in
    :data:`NET_SUMS_CHUNKS` chunks whatever the thread count (the result is the same to the
    digit on any number of threads). Memory: ``O(t n m)`` for ``t`` chunks of partial sums
    and ``O(tile (d + m))`` per chunk, never ``O(n^2)``.
    Sums are float64; each differs from the exactly rounded sum by the usual bound of a
    float64 sum of ``n`` nonnegative terms (relative ``n * 2**-53`` of ``sum_j k_ij |W_j|``)
    plus the exp's 2 ulp and the distances' rounding.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> S = rbf_net_sums(X, 0.5, np.ones((3, 1)))
    >>> bool(np.isclose(S[0, 0], np.exp(-0.5) + np.exp(-4.5)))
    True
    """
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    n = Xc.shape[0]
    Wc = np.ascontiguousarray(W, dtype=np.float64).reshape(n, -1)
    if sq is None:
        sq = np.einsum("ij,ij->i", Xc, Xc)
    sq = np.ascontiguousarray(sq, dtype=np.float64)
    nb = -(-n // tile) if n else 0
    bi, bj = np.triu_indices(nb)
    tiles = np.ascontiguousarray(np.column_stack([bi, bj]), dtype=np.int64)
    # A fixed number of chunks, not one tied to numba's thread count: the chunks' partial sums
    # are added in chunk order, so the result is the same to the digit on 1 thread or 16 (a
    # thread count in the chunking changed the LOO estimates' last bits between a study run in
    # one process and in worker processes, and round-off then decided ties between settings).
    # Several chunks per thread keep a core taken by another process from stalling the pass.
    n_chunks = max(1, min(len(tiles), NET_SUMS_CHUNKS))
    SC = np.zeros((n_chunks, Wc.shape[1], n))
    _net_tiles(
        np.ascontiguousarray(Xc.T),
        sq,
        float(gamma),
        np.ascontiguousarray(Wc.T),
        tiles,
        int(tile),
        SC,
    )
    return np.ascontiguousarray(SC.sum(axis=0).T)


def exp_nonpositive(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``exp(x)`` for ``x <= 0`` with the loops' exp (exposed for tests)."""
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    if np.any(x > 0):
        raise ValueError("exp_nonpositive needs x <= 0")
    out = np.empty_like(x)
    _exp_nonpositive(x, out, np.empty(x.size, dtype=np.int64))
    return out


def rbf_symmetric_net_sums(
    D: NDArray[np.float64], gamma: float, W: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``S[i] = sum_{j != i} exp(-gamma D[i, j]) W[j]`` for a symmetric ``D``; n(n-1)/2 exps."""
    WT = np.ascontiguousarray(W.T)
    ST = np.zeros((W.shape[1], D.shape[0]))
    _symmetric(D, float(gamma), WT, ST)
    return ST.T.copy()


def rbf_block_sums(
    D: NDArray[np.float64], gamma: float, W: NDArray[np.float64], skip: int = -1
) -> NDArray[np.float64]:
    """``S[i] = sum_j exp(-gamma D[i, j]) W[j]``, without ``j = i + skip`` if ``skip >= 0``."""
    WT = np.ascontiguousarray(W.T)
    ST = np.zeros((W.shape[1], D.shape[0]))
    _block(D, float(gamma), WT, int(skip), ST)
    return ST.T.copy()
