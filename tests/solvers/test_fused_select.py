"""The SMO loop's fused gradient update and next select-i equal the two passes they replace."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.solvers._pair_step import add_pair, select_i
from svmtune.solvers._smo_loop import _add_pair_select_i


@pytest.mark.parametrize("whole", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_fused_pass_equals_add_pair_then_select_i(whole: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, size = 300, 250
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    C = rng.uniform(0.5, 2.0, n)
    alpha = np.where(rng.random(n) < 0.3, C, rng.uniform(0, 1, n) * C)
    alpha[rng.random(n) < 0.3] = 0.0
    G = rng.normal(size=n)
    G[:20] = G[20]  # ties: the first position wins in both
    Ki, Kj = rng.random(n), rng.random(n)
    order = rng.permutation(n).astype(np.int64)
    ci, cj = rng.normal(), rng.normal()
    G_ref = G.copy()
    add_pair(G_ref, y, Ki, Kj, ci, cj, size, order, whole)
    expected = select_i(y, C, alpha, G_ref, size, np.int64(-1))
    got = _add_pair_select_i(G, y, C, alpha, Ki, Kj, ci, cj, size, order, whole)
    assert np.array_equal(G, G_ref)  # bit for bit
    assert got == expected
