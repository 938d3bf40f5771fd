"""SMO's kernel values within its memory budget, counted by block shapes (never RSS).

The row cache, the packed copies of rows beside it and the blocks of rows read at once add up
to at most ``memory_budget`` (svmtune/solvers/smo/_row_budget.py); a warm start with many support
vectors reads their rows in blocks within the budget and still gets the gradient the full Gram
matrix gives; SMO builds the full Gram matrix only when it fits with what it needs beside it.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.kernels import RBF
from svmtune.solvers import SMO, FullGram, KernelRows, feasible_start
from svmtune.solvers.smo import BLOCK_SHARE, ROW_CACHE_SHARE, gram_bytes
from svmtune.solvers.smo._run import packed_rows_len


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@settings(max_examples=60, deadline=None)
@given(n=st.integers(10, 3000), rows_in_budget=st.integers(32, 5000))
def test_row_cache_packed_copies_and_blocks_add_up_to_the_budget(n, rows_in_budget):
    """Whenever the budget holds a few dozen rows (else two rows and one block are the floor)."""
    budget = 8 * n * rows_in_budget
    X = np.zeros((n, 1))
    rows = KernelRows(RBF(), {"gamma": 1.0}, X, memory_budget=budget, check=False)
    assert rows.rows.nbytes <= ROW_CACHE_SHARE * budget or rows.capacity == n
    assert rows.block_budget <= BLOCK_SHARE * budget
    packed = 8 * packed_rows_len(n, rows.rows.nbytes)
    assert rows.rows.nbytes + packed + rows.block_budget <= budget


def test_warm_start_reads_support_vector_rows_in_blocks_within_the_budget(monkeypatch):
    n = 800
    X, y = _data(n)
    params = {"gamma": 0.5}
    budget = 8 * n * 160  # 120 cached rows; blocks of 20 rows' bytes (3 rows of six arrays)
    first = SMO(memory_budget=budget).solve(y, C=10.0, kernel=RBF(), params=params, X=X)
    sv = np.flatnonzero(first.alpha)
    assert sv.size > 120  # more support vectors than the cache holds, and than a block
    read: list[int] = []
    original = KernelRows.rows_of

    def counting(self, idx):
        read.append(len(idx))
        return original(self, idx)

    monkeypatch.setattr(KernelRows, "rows_of", counting)
    alpha0 = feasible_start(first.alpha, y, 30.0)
    run = SMO(memory_budget=budget).start(
        y, C=30.0, kernel=RBF(), params=params, X=X, alpha0=alpha0
    )
    # every block: its rows times the six arrays of a block (the kernel's three and the
    # rows, the computed part, the rows assembled) within the block budget
    per_row = 8 * n * (RBF().block_arrays() + 3)
    assert read and max(read) * per_row <= BLOCK_SHARE * budget
    assert sum(read) >= sv.size
    # the oracle: the gradient of the full Gram matrix (y K (alpha y) - 1)
    K = RBF().gram(params, X)
    assert np.allclose(run.gradient, y * (K @ (alpha0 * y)) - 1.0, rtol=0, atol=1e-9)


def test_full_gram_only_when_it_fits_with_what_sits_beside_it():
    n = 300  # at most 500 RBF points: the full Gram matrix is SMO's choice when it fits
    X, y = _data(n, seed=1)
    params = {"gamma": 0.5}
    need = gram_bytes(RBF(), params, n)
    assert need >= 8 * n * n * 9 // 8  # the matrix and the packed copies beside it
    store, _ = SMO(memory_budget=need)._store(n, None, RBF(), params, X)
    assert isinstance(store, FullGram)
    store, _ = SMO(memory_budget=need - 1)._store(n, None, RBF(), params, X)
    assert isinstance(store, KernelRows)
    assert store.rows.nbytes + 8 * packed_rows_len(n, store.rows.nbytes) <= need
