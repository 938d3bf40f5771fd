"""The Bayesian tests of svmtune.study.verdict._bayes against baycomp (Benavoli et al.'s code)."""

import numpy as np
import pytest
from baycomp import CorrelatedTTest, SignedRankTest

from svmtune.study.verdict._bayes import correlated_t, signed_rank, verdict_word


@pytest.mark.parametrize("n,shift,rope", [(5, 0.0, 0.01), (12, 0.004, 0.01), (30, 0.02, 0.01),
                                          (12, 0.004, 0.0), (8, -0.03, 0.005)])  # fmt: skip
def test_signed_rank_equals_baycomp_on_the_same_seed(n, shift, rope):
    rng = np.random.default_rng(n)
    a = rng.uniform(0.05, 0.3, n)
    b = a + rng.normal(shift, 0.01, n)
    ours = signed_rank(a, b, rope=rope, nsamples=4000, seed=7)
    # baycomp compares scores (higher is better): accuracy = 1 - error
    ref = SignedRankTest.probs(1 - a, 1 - b, rope=rope, nsamples=4000, random_state=7)
    if rope == 0:
        ref = (ref[0], 0.0, ref[1])
    assert ours == tuple(float(p) for p in ref)


@pytest.mark.parametrize("runs", [1, 2, 5])
def test_correlated_t_equals_baycomp(runs):
    rng = np.random.default_rng(runs)
    a = rng.uniform(0.1, 0.2, 10)
    b = a + rng.normal(0.01, 0.01, 10)
    ours = correlated_t(a, b, rho=runs / 10, rope=0.01)  # baycomp: rho = runs / n
    ref = CorrelatedTTest.probs(1 - a, 1 - b, rope=0.01, runs=runs)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)


def test_signed_rank_is_seeded_and_sums_to_one():
    a, b = [0.1, 0.2, 0.3, 0.25, 0.15], [0.11, 0.19, 0.33, 0.2, 0.15]
    p = signed_rank(a, b, nsamples=3000, seed=1)
    assert p == signed_rank(a, b, nsamples=3000, seed=1)
    assert sum(p) == pytest.approx(1.0)


def test_clear_differences_and_equivalence_are_decided():
    a = np.linspace(0.1, 0.3, 20)
    assert verdict_word(*signed_rank(a, a + 0.05, nsamples=5000)) == "better"
    assert verdict_word(*signed_rank(a + 0.05, a, nsamples=5000)) == "worse"
    assert verdict_word(*signed_rank(a, a + 0.001, nsamples=5000)) == "equivalent"
    # identical errors on every split: the posterior is a point mass inside the ROPE
    assert correlated_t(a, a, rho=0.3) == (0.0, 1.0, 0.0)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="rope must be a non-negative number; got -1"):
        signed_rank([0.1, 0.2], [0.1, 0.2], rope=-1)
    with pytest.raises(ValueError, match="rho must be in"):
        correlated_t([0.1, 0.2], [0.1, 0.2], rho=1.0)
    with pytest.raises(ValueError, match="same length"):
        signed_rank([0.1, 0.2], [0.1])
