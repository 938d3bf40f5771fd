"""Franc's certificate on the shrinking SMO (FrancTail): H in a low-rank factor of the Gram
matrix is a lower bound on H over the matrix itself, and a sign the tail certifies is the sign
of the retrain's optimum (brute-force retraining)."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, FullGram, exact_loo
from svmtune.solvers.loo import _exact_loo_loop as loop
from svmtune.solvers.loo import _low_rank_loop
from svmtune.solvers.loo._franc_tail import FrancTail, LowRank, low_rank_factor
from svmtune.solvers.loo._retrains import (
    SHRINK_AFTER,
    CountedGram,
    FullGbar,
    RetrainSetup,
    ShrinkingTail,
)
from tests._oracles import loo_by_retraining
from tests.solvers._data import real_split

C = 10.0


@pytest.fixture(scope="module")
def heart_linear():
    """Heart, linear kernel, C = 10: the Gram matrix (rank 13), the setup, and the retrains
    not done in the compiled loop's first steps (point, alpha, G where they were handed over)."""
    X, y, _, _ = real_split("heart")
    K = np.ascontiguousarray(Linear().prepare(X).gram({}))
    diag = np.ascontiguousarray(np.diag(K))
    solver = SMO(tol=1e-3, check_kernel=False)
    full = solver.solve(y, C=C, gram=K)
    setup = RetrainSetup(FullGram(K), K, diag, y, C, full, solver, 10**7)
    opts = setup.options(tol=1e-3, franc=False, max_iter=SHRINK_AFTER)
    a, G = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
    work = loop.work_arrays(y.size)
    handed = []
    for r in np.argsort(-full.alpha)[:40]:  # support vectors first: their retrains move
        if loop.retrain_one(K, diag, y, a, G, int(r), opts, work)[1] == loop.MAX_ITER:
            handed.append((int(r), work[0].copy(), work[1].copy()))
    assert handed, "no retrain went past the compiled loop's first steps"
    return X, setup, handed


def test_factor_of_a_linear_gram_matrix_bounds_its_rest(heart_linear) -> None:
    X, setup, _ = heart_linear
    L, rho = low_rank_factor(setup.K, setup.diag)
    assert L.shape == (setup.y.size, np.linalg.matrix_rank(X))
    rest = np.linalg.eigvalsh(setup.K - L @ L.T)
    assert rest.max() <= rho
    assert rho <= 1e-9 * setup.diag.max()


def test_no_factor_for_a_full_rank_gram_matrix() -> None:
    X, _, _, _ = real_split("heart")
    K = np.ascontiguousarray(RBF().prepare(X).gram({"gamma": 1.0}))
    assert low_rank_factor(K, np.ascontiguousarray(np.diag(K))) is None
    assert LowRank(K, np.ascontiguousarray(np.diag(K))).get() is None


def _exact_h(K: np.ndarray, y: np.ndarray, r: int, beta: np.ndarray) -> float:
    """Franc's ``H(beta) = sum beta - 1/2 v'Kv`` (``v_t = y_t beta_t``, ``v_r = -y'beta``) on
    the Gram matrix itself."""
    v = y * beta
    v[r] = -float(np.sum(np.delete(v, r)))
    return float(np.sum(np.delete(beta, r)) - 0.5 * v @ K @ v)


@pytest.mark.parametrize("seed", range(5))
def test_h_in_the_factor_is_a_lower_bound_and_ascends_from_the_dual_value(
    heart_linear, seed
) -> None:
    _, setup, _ = heart_linear
    K, y = setup.K, setup.y
    L, rho = low_rank_factor(K, setup.diag)
    rng = np.random.default_rng(seed)
    r = int(rng.integers(y.size))
    w = np.empty(L.shape[1])
    # any beta of the box
    beta = C * rng.random(y.size) * (rng.random(y.size) < 0.5)
    h = _low_rank_loop.h_value(L, y, r, beta, w, rho)
    exact = _exact_h(K, y, r, beta)
    assert h <= exact and exact - h <= 1e-9 * (1.0 + abs(exact))
    # from a point with y'alpha = 0, where H is the dual value, the passes only climb
    alpha = setup.full.alpha.copy()
    alpha[r] = 0.0
    alpha[np.flatnonzero(y == y[r])[0]] += setup.full.alpha[r]  # y'alpha = 0 again
    alpha = np.clip(alpha, 0.0, C)
    if abs(alpha @ y) > 1e-9:
        pytest.skip("the class is full")
    start = _exact_h(K, y, r, alpha)
    out = np.empty(y.size)
    h, passes = _low_rank_loop.h_above(L, y, C, r, alpha, out, w, rho, 20, np.inf, 0.0)
    assert 3 <= passes <= 1 + 2 * 20
    assert h >= start - 1e-9 * (1.0 + abs(start))
    assert h <= _exact_h(K, y, r, out)
    assert h - start > 0.0  # the passes climb: the dual value is not H's maximum


def _franc_tail(setup, r, alpha, G) -> FrancTail:
    store = CountedGram(setup.K, setup.diag)
    gbar = FullGbar(setup.K, setup.y, setup.C, setup.full.alpha)
    tail = LowRank(setup.K, setup.diag).tail(
        setup, store, gbar, np.stack([alpha, G]), r, max_iter=10**7, steps_before=SHRINK_AFTER
    )
    assert isinstance(tail, FrancTail)
    return tail


def test_certified_signs_are_the_retrains_and_come_before_the_eps_kkt_stop(heart_linear) -> None:
    _, setup, handed = heart_linear
    y, K = setup.y, setup.K
    # retraining from scratch to 1e-8 (it stops at its iteration cap on some points, but every
    # decision is clear of zero: the least is 0.0057, the same sign at 1e-9)
    truth, _ = loo_by_retraining(y, C, K, tol=1e-8)
    assert np.min(np.abs(truth)) > 1e-3
    certified = 0
    for r, alpha, G in handed:
        tail = _franc_tail(setup, r, alpha, G)
        tail.advance()
        kkt = ShrinkingTail(
            setup,
            CountedGram(K, setup.diag),
            FullGbar(K, y, C, setup.full.alpha),
            alpha.copy(),
            G.copy(),
            r,
            max_iter=10**7,
        )
        kkt.advance()
        if tail.status() == loop.CERTIFIED:
            certified += 1
            assert (tail.decision() >= 0.0) == (truth[r] >= 0.0), r
            assert tail.run.iterations < kkt.run.iterations
            assert tail.rows() < kkt.rows()
        else:  # not certified: the eps-KKT stop, the same steps as without the bound
            assert tail.status() == kkt.status() == loop.KKT
            assert tail.run.iterations == kkt.run.iterations
    assert certified >= len(handed) // 2


def test_stop_checking_goes_on_as_the_eps_kkt_stop(heart_linear) -> None:
    _, setup, handed = heart_linear
    for r, alpha, G in handed:
        tail = _franc_tail(setup, r, alpha, G)
        tail.advance()
        if tail.status() != loop.CERTIFIED:
            continue
        steps = tail.run.iterations
        tail.stop_checking()
        assert not tail.done()
        tail.advance()
        assert tail.status() == loop.KKT and tail.run.iterations > steps
        assert tail.smo_cpu < tail.cpu  # the checks are counted in cpu only
        return
    pytest.fail("no retrain was certified")


def test_exact_loo_certifies_on_the_shrinking_smo_and_stays_exact(heart_linear) -> None:
    # heart, linear, C = 3: the CPU test keeps Franc's stop, whose retrains certify on the
    # shrinking SMO
    _, setup, _ = heart_linear
    y, K, c = setup.y, setup.K, 3.0
    truth, _ = loo_by_retraining(y, c, K, tol=1e-8)
    assert np.min(np.abs(truth)) > 1e-4
    res = exact_loo(y, C=c, gram=K, stopping="franc")
    kkt = exact_loo(y, C=c, gram=K, stopping="kkt")
    assert np.array_equal(res.decision >= 0.0, truth >= 0.0)
    assert res.error == kkt.error
    assert res.stopping_used == "franc"
    assert res.counts["certified"] > 0
    assert res.counts["kernel_rows"] < kkt.counts["kernel_rows"]
