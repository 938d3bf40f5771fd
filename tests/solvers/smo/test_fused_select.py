"""The SMO loop's status-array passes (LIBSVM's layout: an int8 status a variable) and its fused
gradient update + next select-i equal one plain scan of the same rules (``_one_scan``), bit for
bit."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.solvers.smo._pair_step import add_pair
from svmtune.solvers.smo._smo_loop import (
    _add_pair_select_i,
    _add_pair_select_i_rows,
    _select_i_st,
    _select_j_st,
    _select_j_unit,
    _select_j_unit_rows,
    _statuses,
)
from tests.solvers.smo._one_scan import select_i, select_j


def _state(seed: int):
    rng = np.random.default_rng(seed)
    n = 300
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    C = rng.uniform(0.5, 2.0, n)
    alpha = rng.uniform(0, 1, n) * C
    alpha[rng.random(n) < 0.3] = 0.0
    at_c = rng.random(n) < 0.3
    alpha[at_c] = C[at_c]
    G = rng.normal(size=n)
    G[:20] = G[20]  # ties: the first position wins in both
    order = rng.permutation(n).astype(np.int64)
    return rng, y, C, alpha, G, order


@pytest.mark.parametrize("whole", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_status_passes_equal_the_pair_step_passes(whole: bool, seed: int) -> None:
    """The loop's passes read rows by position: the rows as they are (``whole``) or gathered
    through ``order`` (what the packed copies of ``_packed_rows`` hold)."""
    rng, y, C, alpha, G, order = _state(seed)
    n, size = y.size, 250
    st = np.empty(n, dtype=np.int8)
    _statuses(y, C, alpha, size, st)
    assert _select_i_st(st, y, G, size) == select_i(y, C, alpha, G, size, np.int64(-1))
    Ki, Kj, diag = rng.random(n), rng.random(n), 1.0 + rng.random(n)
    Pi, Pj = (Ki, Kj) if whole else (Ki[order], Kj[order])
    gmax = select_i(y, C, alpha, G, size, np.int64(-1))[0]
    for second_order in (True, False):
        expected = select_j(
            y, C, alpha, G, diag, size, np.int64(-1), gmax, second_order, Ki, 1.0, order, whole
        )
        got = _select_j_st(st, y, G, diag, size, gmax, second_order, Pi, 1.0, order, True)
        assert got == expected
        got = _select_j_st(st, y, G, diag, size, gmax, second_order, Ki, 1.0, order, whole)
        assert got == expected
    # unit diagonal (RBF): the variant that does not read it
    ones, kii = np.ones(n), 1.0
    expected = select_j(y, C, alpha, G, ones, size, np.int64(-1), gmax, True, Ki, kii, order, whole)
    assert _select_j_unit(st, y, G, size, gmax, Pi, kii + 1.0, order, True) == expected
    assert _select_j_unit(st, y, G, size, gmax, Ki, kii + 1.0, order, whole) == expected
    # the same rows read in place in a row store (rows 1 and 3 of four)
    store = rng.random((4, n))
    store[1], store[3] = Ki, Kj
    assert _select_j_unit_rows(st, y, G, size, gmax, store, 1, kii + 1.0, order, whole) == expected
    ci, cj = rng.normal(), rng.normal()
    G_ref = G.copy()
    add_pair(G_ref, y, Ki, Kj, ci, cj, size, order, whole)
    expected = select_i(y, C, alpha, G_ref, size, np.int64(-1))
    G_copy = G.copy()
    got = _add_pair_select_i(G, st, y, Pi, Pj, ci, cj, size, order, True)
    assert np.array_equal(G, G_ref)  # bit for bit
    assert got == expected
    G_rows = G_copy.copy()
    got = _add_pair_select_i(G_copy, st, y, Ki, Kj, ci, cj, size, order, whole)
    assert np.array_equal(G_copy, G_ref)
    assert got == expected
    got = _add_pair_select_i_rows(G_rows, st, y, store, 1, 3, ci, cj, size, order, whole)
    assert np.array_equal(G_rows, G_ref)
    assert got == expected


def _tied_state(seed: int, n: int):
    """Few distinct gradient values and kernel entries: every pass meets ties in several of
    its four lanes, and the first position must win as in one scan."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    C = np.full(n, 2.0)
    alpha = rng.choice([0.0, 1.0, 2.0], n)
    G = rng.choice([-1.0, -0.5, 0.0, 0.5], n)
    Ki = rng.choice([0.25, 0.5, 1.0], n)
    Kj = rng.choice([0.25, 0.5], n)
    order = rng.permutation(n).astype(np.int64)
    return y, C, alpha, G, Ki, Kj, order


@pytest.mark.parametrize("n", [*range(10), 17, 64])
@pytest.mark.parametrize("seed", range(4))
def test_lanes_keep_the_first_position_of_ties(n: int, seed: int) -> None:
    """The passes run four independent lanes and merge them: at every size (the tail after
    the last full group of four, sizes below four, an empty set) they return the value and
    the first position one scan returns, bit for bit."""
    y, C, alpha, G, Ki, Kj, order = _tied_state(seed, n)
    st = np.empty(n, dtype=np.int8)
    _statuses(y, C, alpha, n, st)
    none = np.int64(-1)
    ref_i = select_i(y, C, alpha, G, n, none)
    assert _select_i_st(st, y, G, n) == ref_i
    gmax = ref_i[0] if ref_i[1] >= 0 else 1.0  # a j selection without an i still runs here
    diag = np.ones(n)
    for whole in (True, False):
        for second_order in (True, False):
            ref = select_j(y, C, alpha, G, diag, n, none, gmax, second_order, Ki, 1.0, order, whole)
            got = _select_j_st(st, y, G, diag, n, gmax, second_order, Ki, 1.0, order, whole)
            assert got == ref
        ref = select_j(y, C, alpha, G, diag, n, none, gmax, True, Ki, 1.0, order, whole)
        assert _select_j_unit(st, y, G, n, gmax, Ki, 2.0, order, whole) == ref
        store = np.vstack([Kj, Ki])
        assert _select_j_unit_rows(st, y, G, n, gmax, store, 1, 2.0, order, whole) == ref
        G_ref = G.copy()
        add_pair(G_ref, y, Ki, Kj, 0.5, -0.25, n, order, whole)
        ref = select_i(y, C, alpha, G_ref, n, none)
        G_got = G.copy()
        assert _add_pair_select_i(G_got, st, y, Ki, Kj, 0.5, -0.25, n, order, whole) == ref
        assert np.array_equal(G_got, G_ref)
        G_got = G.copy()
        store = np.vstack([Ki, Kj])
        got = _add_pair_select_i_rows(G_got, st, y, store, 0, 1, 0.5, -0.25, n, order, whole)
        assert got == ref
        assert np.array_equal(G_got, G_ref)


def test_lanes_with_empty_sets() -> None:
    """No variable in ``I_up`` (every alpha at the bound that keeps it out) or in ``I_low``:
    ``(-inf, -1)`` and ``(+inf, -1)``, as one scan returns."""
    n = 11
    y = np.ones(n)
    C = np.ones(n)
    G = np.linspace(-1.0, 1.0, n)
    order = np.arange(n, dtype=np.int64)
    st = np.empty(n, dtype=np.int8)
    _statuses(y, C, C.copy(), n, st)  # y = +1 at C: not in I_up
    assert _select_i_st(st, y, G, n) == (-np.inf, -1)
    _statuses(y, C, np.zeros(n), n, st)  # y = +1 at 0: not in I_low
    assert _select_j_unit(st, y, G, n, 1.0, G, 2.0, order, True) == (np.inf, -1)
    assert _select_j_st(st, y, G, np.ones(n), n, 1.0, False, G, 1.0, order, True) == (np.inf, -1)
