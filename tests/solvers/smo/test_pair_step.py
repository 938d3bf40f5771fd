"""The compiled pair step and working-set selection shared by the SMO loop and the exact-LOO
retrains, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.solvers.loo._franc_bound import kth_smallest
from svmtune.solvers.smo._loop_passes import _select_i_st, _select_j_st, _statuses
from svmtune.solvers.smo._pair_step import SNAP, TAU, add_pair, clipped_step


def _problem(seed: int, n: int = 12):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    C = rng.uniform(0.5, 2.0, n)
    alpha = np.where(rng.random(n) < 0.4, 0.0, np.where(rng.random(n) < 0.5, C, C * rng.random(n)))
    G = rng.normal(size=n)
    return K, y, C, alpha, G


def _up_low(y, C, alpha):
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return up, low


def _st(y, C, alpha, skip=-1):
    """The int8 statuses the passes read; a left-out position (``skip``) in neither set."""
    st_ = np.empty(y.size, dtype=np.int8)
    _statuses(y, C, alpha, y.size, st_)
    if skip >= 0:
        st_[skip] = 0
    return st_


@pytest.mark.parametrize("seed", range(20))
def test_selection_matches_its_definition(seed: int) -> None:
    K, y, C, alpha, G = _problem(seed)
    n = y.size
    v = -y * G
    up, low = _up_low(y, C, alpha)
    no_order = np.empty(0, dtype=np.int64)
    for skip in (-1, 3):  # 3: the exact-LOO retrain's left-out point, in neither set
        keep = np.arange(n) != skip
        s = _st(y, C, alpha, skip)
        gmax, i = _select_i_st(s, y, G, n)
        cand = np.flatnonzero(up & keep)
        assert i == cand[np.argmax(v[cand])] and gmax == v[i]
        lows = np.flatnonzero(low & keep)
        # max violating pair: j minimises v over I_low (first index among ties)
        gmin, j = _select_j_st(s, y, G, np.diag(K).copy(), n, gmax, False, K[0], 0.0, no_order,
                               True)  # fmt: skip
        assert j == lows[np.argmin(v[lows])] and gmin == v[j]
        # second order: among v_t < gmax, the largest (gmax - v_t)^2 / a_it
        gmin2, j2 = _select_j_st(s, y, G, np.diag(K).copy(), n, gmax, True, K[i], K[i, i],
                                 no_order, True)  # fmt: skip
        assert gmin2 == gmin
        viol = lows[v[lows] < gmax]
        if viol.size:
            a = np.maximum(K[i, i] + np.diag(K)[viol] - 2 * K[i, viol], 0.0)
            a[a <= 0.0] = TAU
            assert j2 == viol[np.argmin(-((gmax - v[viol]) ** 2) / a)]
        else:
            assert j2 == -1


def test_selection_through_an_index_map_reads_the_mapped_columns() -> None:
    K, y, C, alpha, G = _problem(5)
    order = np.array([7, 2, 9, 4, 0, 11], dtype=np.int64)  # packed positions -> columns
    yP, CP, aP, GP, dP = (arr[order].copy() for arr in (y, C, alpha, G, np.diag(K)))
    sP = _st(yP, CP, aP)
    gmax, pi = _select_i_st(sP, yP, GP, order.size)
    i = order[pi]
    _, pj = _select_j_st(sP, yP, GP, dP, order.size, gmax, True, K[i], K[i, i], order, False)
    _, j_full = _select_j_st(_st(y, C, alpha), y, G, np.diag(K).copy(), y.size, gmax, True, K[i],
                             K[i, i], np.empty(0, dtype=np.int64), True)  # fmt: skip
    sub = np.full(y.size, False)
    sub[order] = True
    if j_full >= 0 and sub[j_full]:
        assert order[pj] == j_full


@given(
    a=st.floats(-1.0, 4.0),
    b=st.floats(1e-6, 5.0),
    yi=st.sampled_from([-1.0, 1.0]),
    yj=st.sampled_from([-1.0, 1.0]),
    Ci=st.floats(0.1, 10.0),
    Cj=st.floats(0.1, 10.0),
    fi=st.sampled_from([0.0, 1.0]) | st.floats(1e-6, 1.0 - 1e-6),  # at a bound or clear of it
    fj=st.sampled_from([0.0, 1.0]) | st.floats(1e-6, 1.0 - 1e-6),
)
@settings(max_examples=300, deadline=None)
def test_clipped_step_is_the_box_constrained_minimiser(a, b, yi, yj, Ci, Cj, fi, fj) -> None:
    ai, aj = fi * Ci, fj * Cj
    # along d = y_i e_i - y_j e_j the objective is -b s + a s^2 / 2 (b = gmax + y_j G_j > 0)
    Gj = 0.0
    gmax = b
    new_i, new_j = clipped_step(a, gmax, yi, yj, Gj, Ci, Cj, ai, aj)
    s_i = yi * (new_i - ai)
    s_j = -yj * (new_j - aj)
    assert s_i == pytest.approx(s_j, rel=1e-12, abs=1e-12)  # y'alpha unchanged
    assert 0.0 <= new_i <= Ci and 0.0 <= new_j <= Cj
    room = min(Ci - ai if yi > 0 else ai, aj if yj > 0 else Cj - aj)
    curv = a if a > 0.0 else TAU
    s = min(b / curv, room)
    assert s_i == pytest.approx(s, rel=1e-9, abs=2 * SNAP * max(Ci, Cj))
    for new, old, C in ((new_i, ai, Ci), (new_j, aj, Cj)):  # a move never ends a hair off a bound
        assert new == old or new in (0.0, C) or SNAP * C < new < C - SNAP * C


def test_a_step_ending_within_snap_of_a_bound_ends_on_it() -> None:
    C = 1.0
    # alpha_i = 0.5 (y_i = +1) has room 0.5; a step of 0.5 - 1e-15 ends on C exactly
    new_i, new_j = clipped_step(1.0, 0.5 - 1e-15, 1.0, -1.0, 0.0, C, C, 0.5, 0.0)
    assert new_i == C and new_j == 0.5
    new_i, _ = clipped_step(1.0, 0.5 - 1e-12, 1.0, -1.0, 0.0, C, C, 0.5, 0.0)
    assert new_i < C  # beyond SNAP: a free variable


def test_gradient_update_matches_numpy() -> None:
    K, y, _, _, G = _problem(3)
    G0 = G.copy()
    add_pair(G, y, K[2], K[5], 0.3, -0.7, y.size, np.empty(0, dtype=np.int64), True)
    np.testing.assert_allclose(G, G0 + y * (0.3 * K[2] - 0.7 * K[5]), rtol=0, atol=1e-15)
    order = np.array([4, 1, 8], dtype=np.int64)
    GP, yP = G0[order].copy(), y[order].copy()
    add_pair(GP, yP, K[2], K[5], 0.3, -0.7, order.size, order, False)
    np.testing.assert_allclose(GP, (G0 + y * (0.3 * K[2] - 0.7 * K[5]))[order], atol=1e-15)


@given(
    z=st.lists(st.integers(-3, 3) | st.floats(-1e3, 1e3), min_size=1, max_size=40),
    data=st.data(),
)
@settings(max_examples=300, deadline=None)
def test_kth_smallest_is_numpy_partition(z, data) -> None:
    arr = np.asarray(z, dtype=np.float64)
    m = data.draw(st.integers(1, arr.size))
    k = data.draw(st.integers(0, m - 1))
    work = arr.copy()
    value = kth_smallest(work, np.int64(m), np.int64(k))
    assert value == np.partition(arr[:m], k)[k] == work[k]
    assert np.all(work[:k] <= value) and np.all(work[k + 1 : m] >= value)
    assert sorted(work[:m]) == sorted(arr[:m]) and np.array_equal(work[m:], arr[m:])
