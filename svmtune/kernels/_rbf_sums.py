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
    "rbf_decision_sums",
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

#: Bytes of the inner products :func:`rbf_decision_sums` computes at once (rows of ``X V'``):
#: a block that stays in a core's second-level cache between the product and the pass over it
#: (20 % faster than one block of 1,000 x 4,000 on a 2-core AMD EPYC).
DECISION_ROWS_BYTES = 2**18

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.4426950408889634
_TWO_M64 = 2.0**-64
#: ``2**52 + 1023``: a float whose last mantissa bits hold ``1023 + k`` once ``k`` is added.
_BIASED_2_52 = 2.0**52 + 1023.0


# Not with fastmath={"contract"}: fused multiply-adds made this exp 1.9x faster on a 2-core AMD
# EPYC (AVX2) and closer to the exact value, but every kernel value it changes by an ulp moves
# SMO's path, and on the two long paths measured that cost more than the exp saved (banana at
# 5,000 points and C = 1e4: 6 % more iterations, 1.10x the CPU; `benchmarks/smo_revs.py`).
@njit(cache=True, nogil=True)
def _exp_nonpositive(x, out, bits):  # pragma: no cover - compiled
    """out[i] = exp(x[i]) for x[i] <= 0, subnormal results and the underflow to 0 included.

    ``out`` must not alias ``x``: the compiler then cannot vectorize the loop (2.7x slower).
    Below ``x = -708`` the power of two ``2**k`` is no longer a normal float: the result is
    built as ``p 2**(k + 64)`` and then scaled by ``2**-64``, which rounds it to the subnormal
    (or to 0 below about -745) as the C library's exp does. The biased exponent ``k + 1023``
    (an integer from 11 to 1023) is added to ``2**52`` as a float, which puts it in the low
    bits of the mantissa, and shifted into the exponent field as an integer: no conversion
    of a float to an int64, which CPUs without AVX-512 do one element at a time."""
    n = x.size
    tb = bits[:n].view(np.float64)
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
        tb[i] = (k + 64.0 if tiny else k) + _BIASED_2_52  # 2**52 + k + 1023 (or k + 64)
    ib = bits[:n]
    for i in range(n):
        ib[i] = ib[i] << 52  # tb[i] is now the float 2**k (or 2**(k + 64))
    for i in range(n):
        out[i] *= tb[i]


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


@njit(cache=True, nogil=True)
def _decision_block(G, xx, zz, gamma, coef, abs_coef, out, scale):  # pragma: no cover - compiled
    """``out[i] += sum_j k_ij coef[j]`` and ``scale[i] += sum_j k_ij abs_coef[j]`` for
    ``k_ij = exp(-gamma d_ij)``, ``d_ij = xx[i] + zz[j] - 2 G[i, j]`` (0 within round-off)."""
    rows, cols = G.shape
    arg = np.empty(cols)
    val = np.empty(cols)
    bits = np.empty(cols, dtype=np.int64)
    for i in range(rows):
        xi = xx[i]
        for j in range(cols):
            s = xi + zz[j]
            d = s - 2.0 * G[i, j]
            arg[j] = 0.0 if d <= DISTANCE_ROUNDOFF * s else -gamma * d
        _exp_nonpositive(arg, val, bits)
        acc = 0.0
        acc_abs = 0.0
        for j in range(cols):
            acc += val[j] * coef[j]
            acc_abs += val[j] * abs_coef[j]
        out[i] += acc
        scale[i] += acc_abs


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


def rbf_decision_sums(
    X: NDArray[np.float64],
    V: NDArray[np.float64],
    gamma: float,
    coef: NDArray[np.float64],
    out: NDArray[np.float64],
    scale: NDArray[np.float64],
    *,
    xx: NDArray[np.float64],
    vv: NDArray[np.float64],
) -> None:
    """Add ``sum_j exp(-gamma |x_i - v_j|^2) coef[j]`` to ``out[i]`` and the same sum of
    ``|coef[j]|`` (the kernel is positive) to ``scale[i]``, in place, for the rows ``x_i`` of
    ``X`` against the vectors ``V``; ``xx``, ``vv``: their squared norms
    (:func:`svmtune.kernels._distances.squared_norms`, which has checked that no distance can
    overflow). One BLAS product ``X V'``, then one compiled pass per row: the distance (as
    :func:`~svmtune.kernels._distances.squared_distances`, round-off 0), the exp and both sums,
    without the kernel block or the passes over it that ``gram`` and two products take.

    Examples
    --------
    >>> import numpy as np
    >>> X, V = np.array([[0.0], [2.0]]), np.array([[0.0], [1.0]])
    >>> out, scale = np.zeros(2), np.zeros(2)
    >>> rbf_decision_sums(X, V, 0.5, np.array([1.0, -2.0]), out, scale,
    ...                   xx=np.array([0.0, 4.0]), vv=np.array([0.0, 1.0]))
    >>> bool(np.allclose(out, [1 - 2 * np.exp(-0.5), np.exp(-2.0) - 2 * np.exp(-0.5)]))
    True
    """
    VT = np.ascontiguousarray(V.T)
    vv, coef = np.ascontiguousarray(vv), np.ascontiguousarray(coef)
    abs_coef = np.abs(coef)
    step = max(1, DECISION_ROWS_BYTES // max(8 * V.shape[0], 1))
    for lo in range(0, X.shape[0], step):
        hi = min(lo + step, X.shape[0])
        G = X[lo:hi] @ VT
        _decision_block(G, xx[lo:hi], vv, float(gamma), coef, abs_coef, out[lo:hi], scale[lo:hi])
