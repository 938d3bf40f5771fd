"""Warm starts solve the problem a cold start solves, under the same bias rule.

A warm start changes where SMO starts, never the problem: the variables it leaves within
round-off of a bound (a class rescaled by ``1 - 1e-16``) are on the bound, as in a cold solve,
so that they do not count as free support vectors (which would make one end of the interval of
valid biases the bias, instead of LIBSVM's midpoint, when no support vector is free).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.datasets import stratified_kfold
from svmtune.kernels import RBF
from svmtune.solvers import SMO, feasible_start
from svmtune.solvers.smo._pair_step import SNAP
from svmtune.solvers.smo._warm_start import BOUND_SNAP, check_warm_start, snap_to_bounds


def test_the_snap_is_the_loops() -> None:
    # the loop clips a step ending within SNAP C of a bound onto it; a warm start the same
    assert BOUND_SNAP == SNAP


def test_snap_to_bounds_moves_round_off_onto_the_bounds_only() -> None:
    C = np.array([0.1, 0.1, 0.1, 0.1, 1e4, 1e-3])
    a = np.array([0.1 * (1 - 2e-16), 1e-17, 0.05, 0.1 * (1 - 1e-12), 1e4 - 1e-11, -1e-20])
    out = snap_to_bounds(a, C)
    assert out.tolist() == [0.1, 0.0, 0.05, 0.1 * (1 - 1e-12), 1e4, 0.0]
    assert a[0] != 0.1  # a new array


def test_feasible_start_leaves_no_variable_within_round_off_of_a_bound() -> None:
    # Every alpha at C = 0.3 clipped to C = 0.1: the positives' sum exceeds the negatives' by
    # round-off, and the rescaling by N / P = 1 - 1e-16 used to leave them at C - 1.7e-17.
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(4, 60))
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        y[:2] = (-1.0, 1.0)
        guess = np.where(rng.random(n) < 0.7, 0.3, rng.uniform(0, 0.3, n))
        C = float(rng.choice([0.1, 1e-3, 7.0, 1e4]))
        a = feasible_start(guess * C / 0.1, y, C)
        near = (a > 0) & (a <= BOUND_SNAP * C) | (a < C) & (a >= C - BOUND_SNAP * C)
        assert not near.any()
        assert abs(float(y @ a)) <= 1e-12 * C * n


def test_check_warm_start_puts_round_off_on_the_bounds() -> None:
    y = np.array([1.0, 1.0, -1.0, -1.0])
    C = np.full(4, 0.1)
    a = check_warm_start([0.1 - 1e-17, 0.05, 0.1, 0.05], y, C, np.arange(4))
    assert a.tolist() == [0.1, 0.05, 0.1, 0.05]


def _seeded_fold() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A fold whose solution at C = 0.1 has every support vector at C (none free), and its
    seed: the solution at C = 0.3 clipped to C = 0.1 (what KFoldCV seeds it with)."""
    rng = np.random.default_rng(103)
    X = rng.normal(size=(40, 3))
    y = np.repeat([-1.0, 1.0], 20)
    X[y > 0] += 0.5
    K = RBF().gram({"gamma": 0.1}, X)
    tr = stratified_kfold(y, 5, 0)[0][0]
    seed = SMO().solve(y, C=0.3, gram=K, active=tr).alpha
    return y, K, tr, feasible_start(seed, y, 0.1, active=tr)


def test_a_seed_rescaled_by_round_off_gives_libsvms_midpoint_bias() -> None:
    y, K, tr, start = _seeded_fold()
    cold = SMO().solve(y, C=0.1, gram=K, active=tr)
    assert np.all((cold.alpha == 0.0) | (cold.alpha == 0.1))  # no free support vector
    # The clipped classes' sums differ by round-off: feasible_start rescales one by
    # 1 - 1e-16, which used to leave 16 variables at C - 1.7e-17, one of them to the end of
    # the solve, counted as free: the bias was 0.69 (an end of the interval of valid
    # biases) instead of LIBSVM's midpoint, 0.027.
    assert np.all((start == 0.0) | (start == 0.1) | ((start > 1e-3) & (start < 0.099)))
    warm = SMO().solve(y, C=0.1, gram=K, active=tr, alpha0=start)
    assert warm.b == pytest.approx(cold.b, abs=1e-9)
    assert np.all((warm.alpha == 0.0) | (warm.alpha == 0.1))


def test_the_bias_counts_round_off_at_a_bound_as_bound() -> None:
    # SMORun started (by hand) from the cold solution with one class moved by round-off: the
    # bias is still the midpoint, not the one near-bound variable's value
    y, K, tr, _ = _seeded_fold()
    cold = SMO().solve(y, C=0.1, gram=K, active=tr)
    run = SMO().start(y, C=0.1, gram=K, active=tr, alpha0=cold.alpha)
    run.alpha[np.flatnonzero(run.alpha)[0]] *= 1.0 - 2.0**-52
    assert run.bias() == pytest.approx(cold.b, abs=1e-12)


def _problem(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n_pos = draw(st.integers(2, 24))
    n_neg = n_pos if draw(st.booleans()) else draw(st.integers(2, 24))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_pos + n_neg, d))
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    X[y > 0] += draw(st.floats(0.0, 2.0))
    dup = draw(st.integers(0, 3))  # duplicated points, of either class
    for _ in range(dup):
        i, j = rng.integers(0, y.size, 2)
        X[j] = X[i]
    return X, y


@st.composite
def problems(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Over the whole box: C in [1e-3, 1e4], gamma in [1e-3, 1e3]; classes of 2 to 24
    points (often equal: every variable at C then balances the classes to round-off)."""
    X, y = _problem(draw)
    C = 10 ** draw(st.floats(-3.0, 4.0))
    gamma = 10 ** draw(st.floats(-3.0, 3.0))
    return X, y, C, RBF().gram({"gamma": gamma}, X)


def _no_near_bound(alpha: np.ndarray, C: float) -> bool:
    off = (alpha != 0.0) & (alpha != C)
    return not np.any(off & ((alpha <= SNAP * C) | (alpha >= C - SNAP * C)))


@st.composite
def warm_starts(draw: st.DrawFn) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """A problem and a feasible warm start: the solution at another C (clipped, rescaled),
    random, every variable at C, or the cold solution with a class moved by round-off."""
    _, y, C, K = draw(problems())
    kind = draw(st.sampled_from(["other C", "random", "at C", "round-off"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "other C":
        other = C * 10 ** draw(st.floats(-0.5, 1.5))
        guess = SMO().solve(y, C=other, gram=K).alpha
    elif kind == "random":
        guess = rng.uniform(0.0, 2.0 * C, y.size) * (rng.random(y.size) < 0.6)
    elif kind == "at C":
        guess = np.full(y.size, C)
    else:
        guess = SMO().solve(y, C=C, gram=K).alpha
        guess[y == draw(st.sampled_from([-1.0, 1.0]))] *= 1.0 - draw(st.integers(1, 8)) * 2.0**-53
        return y, C, K, guess  # feasible to round-off, as SMO.solve accepts it
    return y, C, K, feasible_start(guess, y, C)


@settings(max_examples=60, deadline=None)
@given(warm_starts())
def test_a_warm_solve_leaves_no_variable_within_round_off_of_a_bound(case) -> None:
    # the loop's invariant from any start: a variable is on a bound or farther than SNAP C
    # from it, so free and bound are told apart as in a cold solve
    y, C, K, alpha0 = case
    res = SMO().solve(y, C=C, gram=K, alpha0=alpha0)
    assert _no_near_bound(res.alpha, C)


@settings(max_examples=60, deadline=None)
@given(problems(), st.sampled_from([-1.0, 1.0]), st.integers(1, 8))
def test_a_start_at_the_solution_up_to_round_off_keeps_its_bias(case, label, ulps) -> None:
    # Warm-started at the cold solution with a class moved by a few ulp (what feasible_start's
    # rescaling leaves), SMO has nothing to do: the bias is the cold solve's, also when no
    # support vector is free (LIBSVM's midpoint, not an end of the interval of biases).
    _, y, C, K = case
    cold = SMO().solve(y, C=C, gram=K)
    start = cold.alpha.copy()
    start[y == label] *= 1.0 - ulps * 2.0**-53
    warm = SMO().solve(y, C=C, gram=K, alpha0=start)
    scale = max(1.0, C * float(K.diagonal().max()) * y.size)
    assert warm.b == pytest.approx(cold.b, abs=1e-9 * scale)


@settings(max_examples=60, deadline=None)
@given(warm_starts())
def test_any_warm_start_solves_the_cold_problem_with_the_same_bias_rule(case) -> None:
    # Over the whole box (tiny and huge C and gamma, classes of 2 points, duplicated points):
    # solved tightly, a warm start and a cold start reach the same decision function, the
    # bias included.
    y, C, K, alpha0 = case
    smo = SMO(tol=1e-10)
    cold = smo.solve(y, C=C, gram=K)
    warm = smo.solve(y, C=C, gram=K, alpha0=alpha0)
    assert cold.converged and warm.converged
    scale = max(1.0, C * float(K.diagonal().max()) * y.size)
    f_cold = K @ (cold.alpha * y) + cold.b
    f_warm = K @ (warm.alpha * y) + warm.b
    assert np.abs(f_warm - f_cold).max() <= 1e-6 * scale
