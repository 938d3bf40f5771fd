"""Feature groups for multiple-kernel models."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import feature_names, load, load_groups, restrict_groups


def _check_partition(groups, n_features):
    cols = np.concatenate(groups)
    assert all(g.dtype.kind == "i" for g in groups)
    assert len(cols) == len(np.unique(cols)), "groups overlap"
    np.testing.assert_array_equal(np.sort(cols), np.arange(n_features))


def test_spambase_word_char_capital():
    groups = load_groups("spambase")
    assert [len(g) for g in groups] == [48, 6, 3]
    np.testing.assert_array_equal(groups[0], np.arange(48))
    np.testing.assert_array_equal(groups[1], np.arange(48, 54))
    np.testing.assert_array_equal(groups[2], np.arange(54, 57))
    _check_partition(groups, load("spambase")[0].shape[1])
    # The capital-run lengths are >= 1 (they count characters); the frequencies are percents.
    X, _ = load("spambase")
    assert X[:, groups[2]].min() >= 1.0
    assert X[:, groups[0]].max() <= 100.0


@pytest.mark.parametrize("name", ["optdigits", "optdigits-eo", "optdigits-sl"])
def test_optdigits_quadrants(name):
    groups = load_groups(name)
    assert [len(g) for g in groups] == [16, 16, 16, 16]
    image = np.arange(64).reshape(8, 8)
    expected = [image[:4, :4], image[:4, 4:], image[4:, :4], image[4:, 4:]]
    for g, quad in zip(groups, expected, strict=True):
        np.testing.assert_array_equal(np.sort(g), np.sort(quad.ravel()))
    _check_partition(groups, 64)


@pytest.mark.parametrize("name", ["penbased", "penbased-eo", "penbased-sl"])
def test_penbased_x_and_y(name):
    groups = load_groups(name)
    assert [len(g) for g in groups] == [8, 8]
    names = feature_names("penbased-eo")
    assert all(names[j].startswith("x") for j in groups[0])
    assert all(names[j].startswith("y") for j in groups[1])
    np.testing.assert_array_equal(groups[0], np.arange(0, 16, 2))
    _check_partition(groups, 16)


def test_groups_are_fresh_copies():
    g = load_groups("spambase")
    g[0][:] = 0
    assert load_groups("spambase")[0][1] == 1


def test_data_set_without_groups_names_those_with_groups():
    with pytest.raises(
        ValueError, match=r"'heart' has no feature groups.*'optdigits-eo'.*'spambase'"
    ):
        load_groups("heart")
    with pytest.raises(ValueError, match="unknown data set"):
        load_groups("nope")


def test_restrict_groups_after_dropping_columns():
    groups = load_groups("optdigits-eo")
    kept = np.array([c for c in range(64) if c not in (0, 7, 8)])
    new = restrict_groups(groups, kept)
    assert [len(g) for g in new] == [14, 15, 16, 16]
    _check_partition(new, kept.size)
    # New index k stands for original column kept[k], in the same group as before.
    for g_old, g_new in zip(groups, new, strict=True):
        assert set(kept[g_new]) == set(g_old) - {0, 7, 8}


def test_restrict_groups_empty_group():
    assert [g.tolist() for g in restrict_groups([[0], [1, 2]], [2])] == [[0]]
    with pytest.raises(ValueError, match="group 0 lost all its columns"):
        restrict_groups([[0], [1, 2]], [2], drop_empty=False)
