"""The shrinking SMO that finishes a leave-one-out retrain (ShrinkingTail): run in parts, it
makes the same steps as at once, and it ends at the eps-KKT stop of the problem without the
left-out point."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.kernels import Linear
from svmtune.solvers import SMO, FullGram
from svmtune.solvers.loo import _exact_loo_loop as loop
from svmtune.solvers.loo._bias import left_out_decision
from svmtune.solvers.loo._retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    ShrinkingTail,
)
from tests.solvers._data import real_split

C = 10.0


@pytest.fixture(scope="module")
def handed_over():
    """Heart, linear kernel, C = 10: a retrain not done in the compiled loop's first steps."""
    X, y, _, _ = real_split("heart")
    K = np.ascontiguousarray(Linear().prepare(X).gram({}))
    diag = np.ascontiguousarray(np.diag(K))
    solver = SMO(tol=1e-3, check_kernel=False)
    full = solver.solve(y, C=C, gram=K)
    setup = RetrainSetup(FullGram(K), K, diag, y, C, full, solver, 10**7)
    opts = setup.options(tol=1e-3, franc=False, max_iter=SHRINK_AFTER)
    a, G = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
    work = loop.work_arrays(y.size)
    for r in np.argsort(-full.alpha):  # support vectors first: their retrains move
        if loop.retrain_one(K, diag, y, a, G, int(r), opts, work)[1] == loop.MAX_ITER:
            return setup, int(r), work[0].copy(), work[1].copy()
    pytest.fail("no retrain went past the compiled loop's first steps")


def _tail(handed_over) -> tuple[ShrinkingTail, CountedGram]:
    setup, r, alpha, G = handed_over
    store = CountedGram(setup.K, setup.diag)
    gbar = FullGbar(setup.K, setup.y, setup.C, setup.full.alpha)
    return ShrinkingTail(setup, store, gbar, alpha.copy(), G.copy(), r, max_iter=10**7), store


def test_in_parts_as_at_once(handed_over) -> None:
    once, _ = _tail(handed_over)
    once.advance()
    parts, _ = _tail(handed_over)
    n_parts = 0
    while not parts.done():
        parts.advance(7)
        n_parts += 1
    assert n_parts > 1
    assert parts.run.iterations == once.run.iterations
    np.testing.assert_array_equal(parts.run.alpha, once.run.alpha)
    assert parts.rows() == once.rows()
    assert parts.cpu == pytest.approx(once.cpu, rel=1e-9)
    assert parts.decision() == once.decision()


def test_ends_at_the_eps_kkt_stop_without_the_point(handed_over) -> None:
    setup, r, _, _ = handed_over
    tail, _ = _tail(handed_over)
    tail.advance()
    assert tail.done() and tail.status() == loop.KKT
    y, a = setup.y, tail.run.alpha
    assert a[r] == 0.0
    assert abs(a @ y) < 1e-9 * setup.C * y.size
    assert np.all((a >= 0.0) & (a <= setup.C))
    # the gradient, recomputed from alpha, meets the KKT conditions to the tolerance
    keep = np.arange(y.size) != r
    g = y * (setup.K @ (a * y)) - 1.0
    up = keep & (((y > 0) & (a < C)) | ((y < 0) & (a > 0)))
    down = keep & (((y > 0) & (a > 0)) | ((y < 0) & (a < C)))
    gap = np.max(-y[up] * g[up]) - np.min(-y[down] * g[down])
    assert gap <= 1e-3 * (1 + 1e-9)
    # and the decision at the left-out point is that of this solution
    assert tail.decision() == pytest.approx(left_out_decision(y, g, r), abs=1e-9)
    # rows: its start's, two per step, and the gradient refreshes' (at least none)
    assert tail.rows() >= tail.moved + 2 * tail.run.iterations
