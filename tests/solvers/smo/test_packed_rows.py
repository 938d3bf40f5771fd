"""Kernel rows copied into the active variables' positions (``_packed_rows``): every row the
loop reads is the row store's row at the active columns, bit for bit, however the copies were
made (copied, compacted after shrinking, copied again after eviction)."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import load, standardize
from svmtune.kernels import RBF
from svmtune.solvers import SMO
from svmtune.solvers.smo._packed_rows import drop_packed, new_packed, packed_row, set_layout
from svmtune.solvers.smo._smo_loop import COPY_ROWS_FROM


@pytest.mark.parametrize("slots", [2, 5, 40])
@pytest.mark.parametrize("seed", range(3))
def test_packed_rows_are_the_rows_at_the_active_columns(slots: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 60
    K = rng.normal(size=(n, n))
    order = np.arange(n, dtype=np.int64)
    size = n
    pbuf = np.full(slots * n, np.nan)
    pmap, powner, play, meta, pos_map, porder = new_packed(n, n)
    set_layout(order, size, pmap, powner, meta, pos_map, porder)
    reads = 0
    for _ in range(40):  # layouts: shrinking drops a few variables (the rest stay sorted)
        for _ in range(10):
            i, j = (int(r) for r in rng.choice(order[:size], 2, replace=False))
            if rng.random() < 0.1:  # the store recomputed row j
                drop_packed(j, pmap, powner)
            Pi = packed_row(i, K[i], order, pbuf, pmap, powner, play, meta, pos_map, -1)
            Pj = packed_row(j, K[j], order, pbuf, pmap, powner, play, meta, pos_map, i)
            assert np.array_equal(Pi, K[i, order[:size]])  # row j did not take row i's slot
            assert np.array_equal(Pj, K[j, order[:size]])
            reads += 2
        if size > 6:
            keep = np.sort(rng.choice(order[:size], size - int(rng.integers(0, 4)), replace=False))
            dropped = np.setdiff1d(order[:size], keep)
            size = keep.size
            order[:size] = keep
            order[size : size + dropped.size] = dropped
            set_layout(order, size, pmap, powner, meta, pos_map, porder)
    assert meta[0] > 3 and reads == 800  # several layouts, including re-laid-out slots


def test_the_copies_change_no_iterate() -> None:
    """A solve whose copies are evicted at every iteration (two slots) follows the same path as
    one that keeps and compacts them, and as one stepped by hand (the copies are made again in
    every call): the copies only move values."""
    X, y = load("ring")  # 7,400 points: the loop copies rows from COPY_ROWS_FROM points on
    X = standardize(X, X[:1])[0]
    assert y.size >= COPY_ROWS_FROM
    params = {"gamma": 1.0 / X.shape[1]}
    runs = []
    fewest = y.size
    for how in ("one call", "two slots", "stepped"):
        run = SMO(shrinking=True).start(y, C=100.0, kernel=RBF(), params=params, X=X)
        if how == "two slots":
            run._pbuf = np.empty(2 * y.size)
        if how == "stepped":
            while not run.run(400):
                fewest = min(fewest, run.n_active)
        else:
            run.run()
        runs.append(run)
    assert fewest < 0.75 * y.size  # variables were shrunk: the passes read the copies
    one = runs[0]
    assert one.converged
    for other in runs[1:]:
        assert other.converged
        assert other.iterations == one.iterations
        assert other.kernel_evals == one.kernel_evals
        assert np.array_equal(other.alpha, one.alpha)
        assert np.array_equal(other.gradient, one.gradient)
