"""Split protocols and standardization."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.datasets import (
    fischetti_indices,
    fischetti_split,
    holdout_indices,
    holdout_split,
    load,
    ratsch_indices,
    ratsch_split,
    standardize,
    stratified_kfold,
)
from svmtune.datasets._load import _ambiguous_rows

RATSCH = {
    "banana": (400, 4900),
    "ringnorm": (400, 7000),
    "twonorm": (400, 7000),
    "titanic": (150, 2051),
    "thyroid": (140, 75),
    "heart": (170, 100),
    "german": (700, 300),
    "diabetis": (468, 300),
    "breast-cancer": (200, 77),
    "image": (1300, 1010),
    "splice": (1000, 2175),
}


def _toy(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -3.0]
    y = np.where(np.arange(n) % 3 == 0, 1.0, -1.0)
    return X, y


def _assert_partition(tr, te, n):
    assert np.intersect1d(tr, te).size == 0
    np.testing.assert_array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
    assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)


# --- standardize -----------------------------------------------------------------------------


def test_standardize_uses_training_statistics_only():
    X, _ = _toy()
    Xtr, Xte = X[:30], X[30:]
    s = standardize(Xtr, Xte)
    np.testing.assert_allclose(s.X_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(s.X_train.std(axis=0), 1.0, rtol=1e-12)
    mean, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    np.testing.assert_allclose(s.X_test, (Xte - mean) / sd, rtol=1e-12)
    np.testing.assert_allclose(s.mean, mean)
    np.testing.assert_allclose(s.scale, sd)
    np.testing.assert_array_equal(s.kept, [0, 1, 2])
    # The test part is not re-centred: its own mean is not 0.
    assert np.abs(s.X_test.mean(axis=0)).max() > 1e-3


def test_standardize_drops_features_constant_in_the_training_part():
    X, _ = _toy()
    X[:, 1] = 0.1  # constant everywhere (its computed sd need not be exactly 0)
    X[:30, 2] = 7.0  # constant in the training part only
    X[30:, 2] = np.arange(10.0)
    s = standardize(X[:30], X[30:])
    np.testing.assert_array_equal(s.kept, [0])
    assert s.X_train.shape == (30, 1) and s.X_test.shape == (10, 1)
    np.testing.assert_allclose(s.X_train.std(axis=0), 1.0)


def test_standardize_errors():
    with pytest.raises(ValueError, match="different numbers of features"):
        standardize(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="every feature is constant"):
        standardize(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="X_test contains 1 non-finite"):
        standardize(np.eye(3), [[np.nan, 0.0, 0.0]])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3, 30),
    d=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    scale=st.floats(1e-3, 1e3),
)
def test_standardize_property_train_mean_0_sd_1(n, d, seed, scale):
    rng = np.random.default_rng(seed)
    Xtr = rng.normal(size=(n, d)) * scale + rng.normal(size=d) * 10 * scale
    Xte = rng.normal(size=(4, d)) * scale
    s = standardize(Xtr, Xte)
    np.testing.assert_allclose(s.X_train.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(s.X_train.std(axis=0), 1.0, rtol=1e-9)
    np.testing.assert_allclose(s.X_test * s.scale + s.mean, Xte[:, s.kept], rtol=1e-9, atol=1e-9)


# --- fischetti -------------------------------------------------------------------------------


def _row_order(part, rows):
    """The permutation ``p`` with ``part ~= rows[p]`` (the nearest row), asserted to be one."""
    d = ((part[:, None, :] - rows[None, :, :]) ** 2).sum(axis=2)
    p = d.argmin(axis=1)
    assert sorted(p) == list(range(len(rows)))
    return p


def test_fischetti_split_standardizes_with_training_statistics():
    X, y = load("sonar")
    tr, te = fischetti_indices(y, seed=3)
    Xtr, ytr, Xte, yte = fischetti_split(X, y, seed=3)
    mean, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    p = _row_order(Xtr * sd + mean, X[tr])  # the training part's rows, in some order
    np.testing.assert_allclose(Xtr, (X[tr][p] - mean) / sd, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(Xte, (X[te] - mean) / sd, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ytr, y[tr][p])
    np.testing.assert_array_equal(yte, y[te])


@pytest.mark.parametrize(
    "split",
    [
        lambda X, y, s: fischetti_split(X, y, seed=s),
        lambda X, y, s: holdout_split(X, y, seed=s),
    ],
)
def test_a_split_returns_its_training_part_in_a_seeded_random_order_not_the_files(split):
    # sonar's file holds its classes in two blocks; so did every training part, before
    X, y = load("sonar")
    assert (np.diff(y) != 0).sum() == 1
    Xtr, ytr, _, _ = split(X, y, 3)
    assert (np.diff(ytr) != 0).sum() > 20  # the classes interleave
    np.testing.assert_array_equal(split(X, y, 3)[0], Xtr)  # the same seed, the same order


def test_fischetti_train_fraction_is_about_0_7_on_a_large_set():
    _, y = load("penbased-eo")
    fractions = [len(fischetti_indices(y, seed=s)[0]) / y.size for s in range(5)]
    # sd of one fraction is sqrt(.21 / 10992) = 0.0044; 0.015 is > 3 sd.
    assert all(abs(f - 0.7) < 0.015 for f in fractions)
    assert len(set(fractions)) > 1  # independent draws, not a fixed size


def test_fischetti_drops_features_constant_in_the_training_part():
    X, y = load("optdigits-eo")
    Xtr, _, Xte, _ = fischetti_split(X, y, seed=0)
    tr, _ = fischetti_indices(y, seed=0)
    n_const = int((np.ptp(X[tr], axis=0) == 0).sum())
    assert n_const >= 1  # pixel 0 is always blank
    assert Xtr.shape[1] == Xte.shape[1] == 64 - n_const


def test_fischetti_same_seed_same_split_different_seed_different_split():
    X, y = load("heart")
    a = fischetti_split(X, y, seed=7)
    b = fischetti_split(X, y, seed=7)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    tr7, _ = fischetti_indices(y, seed=7)
    tr8, _ = fischetti_indices(y, seed=8)
    assert not np.array_equal(tr7, tr8)
    # A Generator is accepted too, and advances.
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(fischetti_indices(y, rng)[0], tr7)
    assert not np.array_equal(fischetti_indices(y, rng)[0], tr7)


def test_fischetti_redraws_until_both_parts_hold_both_classes():
    # Two positives among 6 points: many draws leave a part without a positive.
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0, -1.0])
    for seed in range(30):
        tr, te = fischetti_indices(y, seed=seed)
        _assert_partition(tr, te, 6)
        assert set(y[tr]) == {-1.0, 1.0} and set(y[te]) == {-1.0, 1.0}


@settings(max_examples=50, deadline=None)
@given(
    n_pos=st.integers(2, 40),
    n_neg=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_fischetti_indices_property(n_pos, n_neg, seed):
    y = np.array([1.0] * n_pos + [-1.0] * n_neg)
    np.random.default_rng(seed).shuffle(y)
    tr, te = fischetti_indices(y, seed)
    _assert_partition(tr, te, y.size)
    assert set(y[tr]) == {-1.0, 1.0} and set(y[te]) == {-1.0, 1.0}
    tr2, _ = fischetti_indices(y, seed)
    np.testing.assert_array_equal(tr, tr2)


def test_fischetti_impossible_with_one_point_of_a_class():
    y = np.array([1.0, -1.0, -1.0, -1.0])
    with pytest.raises(ValueError, match=r"at least 2 points of each class.*\{-1: 3, 1: 1\}"):
        fischetti_split(np.eye(4), y, seed=0)


@pytest.mark.parametrize("split", [
    lambda X, y: fischetti_split(X, y, seed=0),
    lambda X, y: holdout_split(X, y, seed=0),
])  # fmt: skip
def test_bad_input_errors(split):
    X, y = _toy()
    Xnan = X.copy()
    Xnan[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains 1 non-finite value.*row 4, column 1"):
        split(Xnan, y)
    with pytest.raises(ValueError, match="single class"):
        split(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="mismatched lengths"):
        split(X, y[:-1])
    with pytest.raises(ValueError, match="labels -1 and \\+1"):
        split(X, (y > 0).astype(float))


# --- holdout ---------------------------------------------------------------------------------


def test_holdout_is_stratified():
    X, y = load("german")
    tr, te = holdout_indices(y, seed=1, test_size=0.3)
    _assert_partition(tr, te, 1000)
    assert ((y[te] == 1).sum(), (y[te] == -1).sum()) == (90, 210)
    Xtr, ytr, Xte, yte = holdout_split(X, y, seed=1)
    np.testing.assert_array_equal(np.sort(ytr), np.sort(y[tr]))
    np.testing.assert_array_equal(yte, y[te])
    np.testing.assert_allclose(Xtr.mean(axis=0), 0.0, atol=1e-12)
    a, b = holdout_indices(y, seed=2), holdout_indices(y, seed=2)
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(holdout_indices(y, seed=3)[1], a[1])


def test_holdout_keeps_a_point_of_each_class_in_each_part():
    y = np.array([1.0, 1.0] + [-1.0] * 50)
    tr, te = holdout_indices(y, seed=0, test_size=0.05)
    assert (y[te] == 1).sum() == 1 and (y[tr] == 1).sum() == 1


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, "a"])
def test_holdout_bad_test_size(bad):
    _, y = _toy()
    with pytest.raises(ValueError, match="test_size must"):
        holdout_indices(y, seed=0, test_size=bad)


# --- stratified k-fold -----------------------------------------------------------------------


def test_stratified_kfold_partitions_and_balances():
    _, y = load("heart")
    folds = stratified_kfold(y, 5, seed=0)
    assert len(folds) == 5
    tests = [te for _, te in folds]
    np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(270))
    for tr, te in folds:
        _assert_partition(tr, te, 270)
        assert len(te) == 54
        assert (y[te] == 1).sum() == 24
    again = stratified_kfold(y, 5, seed=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again, strict=True))
    other = stratified_kfold(y, 5, seed=1)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other, strict=True))


@settings(max_examples=50, deadline=None)
@given(
    n_pos=st.integers(2, 30),
    n_neg=st.integers(2, 30),
    k=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_stratified_kfold_property(n_pos, n_neg, k, seed):
    y = np.array([1.0] * n_pos + [-1.0] * n_neg)
    if min(n_pos, n_neg) < k:
        with pytest.raises(ValueError, match=f"stratified {k}-fold needs at least {k} points"):
            stratified_kfold(y, k, seed)
        return
    folds = stratified_kfold(y, k, seed)
    sizes = [len(te) for _, te in folds]
    pos = [int((y[te] == 1).sum()) for _, te in folds]
    assert max(sizes) - min(sizes) <= 1
    assert max(pos) - min(pos) <= 1
    np.testing.assert_array_equal(
        np.sort(np.concatenate([te for _, te in folds])), np.arange(y.size)
    )


@pytest.mark.parametrize("k", [1, 0, 2.5, True, "3"])
def test_stratified_kfold_bad_k(k):
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        stratified_kfold(np.array([1.0, -1.0] * 5), k, seed=0)


def test_stratified_kfold_single_class():
    with pytest.raises(ValueError, match="single class"):
        stratified_kfold(np.ones(10), 2, seed=0)


# --- ratsch ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RATSCH))
def test_ratsch_sizes_are_carrizosa_table_1(name):
    n_train, n_test = RATSCH[name]
    tr, te = ratsch_indices(name, seed=0)
    assert (len(tr), len(te)) == (n_train, n_test)
    assert np.intersect1d(tr, te).size == 0
    _, y = load(name)
    assert set(y[tr]) == {-1.0, 1.0} and set(y[te]) == {-1.0, 1.0}
    Xtr, ytr, Xte, yte = ratsch_split(name, seed=0)
    assert Xtr.shape[0] == n_train and Xte.shape[0] == n_test
    np.testing.assert_array_equal(np.sort(ytr), np.sort(y[tr]))
    np.testing.assert_array_equal(yte, y[te])
    np.testing.assert_allclose(Xtr.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(Xtr.std(axis=0), 1.0, rtol=1e-10)


def test_ratsch_split_uses_training_statistics():
    X, y = load("heart")
    tr, te = ratsch_indices("heart", seed=5)
    _, _, Xte, _ = ratsch_split("heart", seed=5)
    keep = np.ptp(X[tr], axis=0) > 0
    mean, sd = X[tr][:, keep].mean(axis=0), X[tr][:, keep].std(axis=0)
    np.testing.assert_allclose(Xte, (X[te][:, keep] - mean) / sd, rtol=1e-10, atol=1e-12)


def test_ratsch_image_drops_the_constant_column():
    Xtr, _, Xte, _ = ratsch_split("image", seed=0)
    assert Xtr.shape[1] == Xte.shape[1] == 18  # Ratsch's d


def test_ratsch_splice_leaves_out_the_ambiguous_rows():
    tr, te = ratsch_indices("splice", seed=0)
    amb = np.flatnonzero(_ambiguous_rows("splice"))
    assert np.intersect1d(amb, np.concatenate([tr, te])).size == 0
    assert len(tr) + len(te) == 3190 - 15


def test_ratsch_same_seed_same_split_and_other_names():
    a, b = ratsch_indices("diabetis", seed=11), ratsch_indices("pima", seed=11)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], ratsch_indices("diabetis", seed=12)[0])
    np.testing.assert_array_equal(ratsch_indices("ring", 0)[0], ratsch_indices("ringnorm", 0)[0])


def test_ratsch_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match=r"no Ratsch protocol for data set 'sonar'.*'banana'"):
        ratsch_split("sonar", seed=0)
    with pytest.raises(ValueError, match=r"no Ratsch protocol for data set 'nope'.*'splice'"):
        ratsch_indices("nope", seed=0)


@pytest.mark.parametrize("seed", [-1, "abc", 1.5, True])
def test_bad_seed_is_named(seed):
    X, y = np.arange(40.0).reshape(20, 2), np.repeat([-1.0, 1.0], 10)
    match = "seed must be None, a non-negative integer, a numpy SeedSequence or a numpy Generator"
    with pytest.raises(ValueError, match=match):
        fischetti_split(X, y, seed=seed)
    with pytest.raises(ValueError, match=match):
        holdout_indices(y, seed=seed)
    with pytest.raises(ValueError, match=match):
        stratified_kfold(y, 2, seed)
