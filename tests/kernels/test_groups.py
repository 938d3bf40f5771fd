import numpy as np
import pytest

from svmtune.kernels import MultipleKernel
from svmtune.kernels._groups import check_groups, format_groups


def test_check_groups_normalises():
    groups = check_groups([np.arange(3), range(3, 5), [np.int64(7)]])
    assert groups == ((0, 1, 2), (3, 4), (7,))
    assert all(type(i) is int for g in groups for i in g)


@pytest.mark.parametrize(
    ("groups", "match"),
    [
        ([], "at least one group"),
        ("abc", "sequence of column-index arrays"),
        (5, "sequence of column-index arrays"),
        ([[0, 1], []], "group 1 is empty"),
        ([[0, 1], [1, 2]], r"groups 0 and 1 overlap: both contain columns \[1\]"),
        ([[0, 1], [2], [3, 0, 4]], r"groups 0 and 2 overlap: both contain columns \[0\]"),
        ([[0, -1]], r"group 0 has negative column indices \[-1\]"),
        ([[0], [0.5, 1]], "group 1 must hold integer column indices"),
        ([[0], [1.0, 2.0]], "group 1 must hold integer column indices"),
        ([[True, False]], "group 0 must hold integer column indices"),
        ([[0], "12"], "group 1 must be an array of column indices"),
        ([[[0, 1], [2, 3]]], "group 0 must be a one-dimensional array"),
        ([[0, 1, 1]], "group 0 lists column 1 more than once"),
    ],
)
def test_bad_groups(groups, match):
    with pytest.raises(ValueError, match=match):
        check_groups(groups)
    with pytest.raises(ValueError, match=match):
        MultipleKernel(groups)


def test_group_index_out_of_range(sonar):
    k = MultipleKernel([range(30), range(30, 61)])
    k._check_features(61)
    with pytest.raises(ValueError, match=r"group 1 has column indices \[60\] out of range"):
        k._check_features(60)
    with pytest.raises(ValueError, match="only 60 features"):
        k.prepare(sonar.X)
    with pytest.raises(ValueError, match="out of range"):
        k.diag(k.space.center(), sonar.X)


def test_format_groups():
    assert format_groups(((0, 1, 2), (5, 3), (4,), (6, 7))) == (
        "[range(0, 3), [5, 3], [4], range(6, 8)]"
    )


def test_columns_outside_groups_are_ignored(sonar):
    X = sonar.X
    k = MultipleKernel([[0, 1], [5]], base="linear", form="common")
    X2 = X.copy()
    X2[:, 10:] = 0.0
    np.testing.assert_array_equal(k.gram({"mu": 1.0}, X), k.gram({"mu": 1.0}, X2))
