"""Algorithm 1 (best beta0) against a brute-force search over every threshold."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.objectives._threshold import best_threshold


def brute_force(nu, y):
    """Try beta0 below, between and above all breakpoints -nu_j; same conventions."""
    c = np.unique(-nu)
    margin = max(0.5 * (c[-1] - c[0]), 0.5)
    candidates = [c[0] - margin, *(0.5 * (c[:-1] + c[1:])), c[-1] + margin]
    counts = [int(np.sum(y * (nu + b) > 0)) for b in candidates]
    k = int(np.argmax(counts))
    return candidates[k], counts[k]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-20, 20), st.sampled_from([-1.0, 1.0])), min_size=1, max_size=40
    ),
    st.floats(0.01, 100.0),
)
def test_matches_brute_force_with_ties(points, scale):
    # Integer signals scaled: many exact ties, gaps far above float resolution.
    nu = np.array([p[0] for p in points], dtype=float) * scale
    y = np.array([p[1] for p in points])
    beta0, n_ok = best_threshold(nu, y)
    bf_beta0, bf_ok = brute_force(nu, y)
    assert n_ok == bf_ok
    assert beta0 == pytest.approx(bf_beta0, rel=1e-12, abs=1e-12)
    assert int(np.sum(y * (nu + beta0) > 0)) == n_ok


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=30), st.randoms())
def test_random_real_signals(values, rnd):
    nu = np.array(values)
    y = np.array([rnd.choice([-1.0, 1.0]) for _ in values])
    _, n_ok = best_threshold(nu, y)
    assert n_ok == brute_force(nu, y)[1] or np.min(np.diff(np.unique(nu))) < 1e-9


def test_hand_computed_cases():
    # Everything separable at 0.
    assert best_threshold([2.0, 1.0, -1.0], [1, 1, -1]) == (0.0, 3)
    # Shift needed: the -1 point has the smallest positive signal.
    assert best_threshold([3.0, 2.0, 1.0], [1, 1, -1]) == (-1.5, 3)
    # All one side: the best is to call everything -1 (2 right) below all breakpoints.
    b, k = best_threshold([1.0, 1.0, 1.0], [-1, -1, 1])
    assert k == 2 and b < -1.0
    # A single point of each class sitting on the same signal: only one can be right.
    assert best_threshold([0.5, 0.5], [1, -1])[1] == 1


def test_reversed_scan_order_would_be_wrong():
    # The paper's pseudo-code scans nu in increasing order; the correct order is decreasing nu.
    nu = np.array([5.0, 4.0, 3.0, -3.0, -4.0])
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    beta0, n_ok = best_threshold(nu, y)
    assert n_ok == 5
    assert -4.0 < beta0 < -3.0


def test_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        best_threshold([1.0, 2.0], [1.0])
