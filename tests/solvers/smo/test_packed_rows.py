"""Kernel rows held in the active variables' positions (``_packed_rows``): every row the loop
reads is the kernel row at the active columns, however it was made (copied from the row store,
computed by position, compacted after shrinking, placed again after eviction), and a solve that
holds its rows by position in slots lent by the row store meets the same stop."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import load, standardize
from svmtune.kernels import RBF
from svmtune.solvers import SMO
from svmtune.solvers.smo._loop_rows import ROWS_RBF, compute_packed, compute_row
from svmtune.solvers.smo._packed_rows import (
    STRIDE,
    copy_at,
    drop_packed,
    fill_from_row,
    new_packed,
    place,
    set_layout,
)
from svmtune.solvers.smo._shrinking import LENT
from svmtune.solvers.smo._smo_loop import COPY_ROWS_FROM


def _row(r, K, order, size, buf, pk, keep):
    """Row ``r`` by position, as the loop gets it (held, compacted, or placed and copied)."""
    pmap, powner, play, pref, meta = pk[:5]
    base = copy_at(r, pmap, play, pref, meta)
    if base < 0:
        slots = min(buf.shape[0] // meta[STRIDE], powner.shape[0])
        base, held = place(r, keep, slots, buf, pk)
        if not held:
            fill_from_row(K[r], order, size, buf, base)
    return buf[base : base + size]


@pytest.mark.parametrize("slots", [2, 5, 40])
@pytest.mark.parametrize("seed", range(3))
def test_rows_by_position_are_the_rows_at_the_active_columns(slots: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 60
    K = rng.normal(size=(n, n))
    order = np.arange(n, dtype=np.int64)
    size = n
    buf = np.full(slots * n, np.nan)
    pk = new_packed(n, n)
    set_layout(order, size, pk)
    reads = 0
    for _ in range(40):  # layouts: shrinking drops a few variables (the rest stay sorted)
        for _ in range(10):
            i, j = (int(r) for r in rng.choice(order[:size], 2, replace=False))
            if rng.random() < 0.1:  # the store recomputed row j
                drop_packed(j, pk[0], pk[1])
            Pi = _row(i, K, order, size, buf, pk, -1)
            Pj = _row(j, K, order, size, buf, pk, i)
            assert np.array_equal(Pi, K[i, order[:size]])  # row j did not take row i's slot
            assert np.array_equal(Pj, K[j, order[:size]])
            reads += 2
        if size > 6 and rng.random() < 0.7:  # some layouts are skipped by a row: compacted later
            keep = np.sort(rng.choice(order[:size], size - int(rng.integers(1, 4)), replace=False))
            dropped = np.setdiff1d(order[:size], keep)
            size = keep.size
            order[:size] = keep
            order[size : size + dropped.size] = dropped
            set_layout(order, size, pk)
    assert pk[4][0] > 10 and reads == 800  # many layouts, including re-laid-out slots


@pytest.mark.parametrize("rbf", [True, False])
def test_rows_computed_by_position_are_the_store_rows_entries(rbf: bool) -> None:
    """A row computed in the active variables' positions has the entries, bit for bit, of the
    same partial row computed into the row store (the same arithmetic), and counts as many."""
    rng = np.random.default_rng(0)
    n, d = 300, 7
    X = rng.normal(size=(n, d))
    sq = np.einsum("ij,ij->i", X, X)
    kind = ROWS_RBF if rbf else 2
    source = (kind, X, sq, 0.3)
    order = np.sort(rng.choice(n, 120, replace=False)).astype(np.int64)
    size = order.size
    r = int(order[17])
    cap = 4
    rows = np.zeros((cap, n))
    evals = np.zeros(1, dtype=np.int64)
    cache = (
        rows, np.full(n, -1, dtype=np.int64), np.zeros(cap, dtype=np.int64),
        np.ones(1, dtype=np.int64), np.full(cap, -1, dtype=np.int64),
        np.zeros(1, dtype=np.int64), np.full(cap, -1, dtype=np.int64), evals,
    )  # fmt: skip
    full = np.concatenate([order, np.setdiff1d(np.arange(n), order)]).astype(np.int64)
    compute_row(r, cache, source, full, size, np.bool_(False), cap)
    assert evals[0] == size
    out = np.full(size + 5, np.nan)
    compute_packed(r, out, 5, source, full, size, evals)
    assert evals[0] == 2 * size
    assert np.array_equal(out[5:], rows[cache[1][r], order])
    if rbf:
        assert out[5 + 17] == 1.0


@pytest.mark.parametrize("C", [100.0, 1e4])
def test_rows_held_in_lent_slots_meet_the_stop(C: float) -> None:
    """On more than COPY_ROWS_FROM points with a small row store (so that slots are lent to the
    rows held by position once a quarter of the points are active), a solve, the same solve
    stepped by hand (the rows by position are made again in every call), the solve by the
    maximal violating pair and the solve without shrinking all meet the eps-KKT stop on every
    variable and reach the same dual objective within what that stop allows."""
    X, y = load("ring")  # 7,400 points
    X = standardize(X, X[:1])[0]
    assert y.size >= COPY_ROWS_FROM
    params = {"gamma": 1.0 / X.shape[1]}
    budget = 64 * 8 * y.size  # a row store of 48 rows
    runs = {}
    fewest = y.size
    for how in ("one call", "stepped", "unshrunk", "first order"):
        selection = "max_violating_pair" if how == "first order" else "second_order"
        smo = SMO(shrinking=how != "unshrunk", selection=selection, memory_budget=budget)
        run = smo.start(y, C=C, kernel=RBF(), params=params, X=X)
        if how == "stepped":
            while not run.run(300):
                fewest = min(fewest, run.n_active)
        else:
            run.run()
        runs[how] = run
    assert fewest <= 0.25 * y.size
    for how in ("one call", "stepped", "first order"):  # slots were lent: rows by position
        assert runs[how]._state[LENT] >= 24, how
    assert runs["unshrunk"]._state[LENT] == 0
    tol = 1e-3
    for how, run in runs.items():
        assert run.converged, how
        G = run.gradient
        a, Cv = run.alpha, np.full(y.size, C)
        v = -y * G
        up = np.where(y > 0, a < Cv, a > 0)
        low = np.where(y > 0, a > 0, a < Cv)
        assert v[up].max() - v[low].min() <= tol, how
    objs = [run.objective() for run in runs.values()]
    # eps-KKT solutions differ in the dual objective by at most about tol * sum(alpha)
    slack = tol * max(float(run.alpha.sum()) for run in runs.values())
    assert max(objs) - min(objs) <= slack
