"""The SMO loop's status-array passes (LIBSVM's layout: an int8 status a variable) and its fused
gradient update + next select-i equal the passes of ``_pair_step`` they replace, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.solvers.smo._pair_step import add_pair, select_i, select_j
from svmtune.solvers.smo._smo_loop import (
    _add_pair_select_i,
    _add_pair_select_i_rows,
    _select_i_st,
    _select_j_st,
    _select_j_unit,
    _select_j_unit_rows,
    _statuses,
)


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
