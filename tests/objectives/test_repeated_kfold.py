"""RepeatedKFoldCV: the 5 x 2-fold CV estimate is the mean of five 2-fold CVs on its folds."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import stratified_kfold
from svmtune.kernels import RBF, Linear
from svmtune.objectives import KFoldCV, RepeatedKFoldCV


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-0.6, 1, (n // 2, 3)), rng.normal(0.6, 1, (n // 2, 3))])
    return X, np.repeat([-1.0, 1.0], n // 2)


def test_folds_are_repeats_of_stratified_partitions():
    X, y = _data()
    bound = RepeatedKFoldCV(k=2, repeats=5, random_state=7).bind(X, y, kernel=RBF())
    assert len(bound.folds) == 10
    children = np.random.SeedSequence(7).spawn(5)
    for r in range(5):
        expected = stratified_kfold(y, 2, children[r])
        for (tr, va), (etr, eva) in zip(bound.folds[2 * r : 2 * r + 2], expected, strict=True):
            np.testing.assert_array_equal(tr, etr)
            np.testing.assert_array_equal(va, eva)
        validated = np.sort(np.concatenate([va for _, va in bound.folds[2 * r : 2 * r + 2]]))
        np.testing.assert_array_equal(validated, np.arange(len(y)))  # each repeat a partition


@pytest.mark.parametrize(
    "kernel, params", [(RBF(), {"C": 2.0, "gamma": 0.3}), (Linear(), {"C": 0.5})]
)
def test_value_is_the_mean_of_the_single_kfold_values(kernel, params):
    # Without seeding every fold starts from alpha = 0: the same problems, the same solutions.
    X, y = _data()
    rep = RepeatedKFoldCV(k=2, repeats=5, random_state=3, seeding=False).bind(X, y, kernel=kernel)
    ev = rep.evaluate(params)
    singles = [
        KFoldCV(k=2, random_state=child, seeding=False).bind(X, y, kernel=kernel).evaluate(params)
        for child in np.random.SeedSequence(3).spawn(5)
    ]
    assert ev.value == pytest.approx(np.mean([s.value for s in singles]), abs=1e-12)
    assert ev.info["errors"] == sum(s.info["errors"] for s in singles)
    assert ev.value == ev.info["errors"] / (5 * len(y))
    # one Gram matrix per evaluation, ten SMO solves
    assert ev.cost.kernel_evals == len(y) ** 2
    assert ev.cost.iterations == sum(s.cost.iterations for s in singles)


def test_seeded_value_matches_the_definition():
    X, y = _data(seed=1)
    bound = RepeatedKFoldCV(random_state=0).bind(X, y, kernel=RBF())
    for params in ({"C": 1.0, "gamma": 0.5}, {"C": 4.0, "gamma": 0.25}):
        ev = bound.evaluate(params)
        assert 0 <= ev.info["errors"] <= 5 * len(y)
        assert ev.value == ev.info["errors"] / (5 * len(y))


def test_one_seed_sequence_gives_the_same_folds_every_time():
    X, y = _data()
    ss = np.random.SeedSequence(11)
    a = RepeatedKFoldCV(random_state=ss).bind(X, y, kernel=RBF()).folds
    b = RepeatedKFoldCV(random_state=ss).bind(X, y, kernel=RBF()).folds
    c = RepeatedKFoldCV(random_state=11).bind(X, y, kernel=RBF()).folds
    for (_, va), (_, vb), (_, vc) in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(va, vb)
        np.testing.assert_array_equal(va, vc)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_repeats_named(bad):
    X, y = _data()
    with pytest.raises(ValueError, match="repeats"):
        RepeatedKFoldCV(repeats=bad).bind(X, y, kernel=RBF())
