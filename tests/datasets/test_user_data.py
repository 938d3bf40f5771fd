"""A user's own data: arrays, DataFrames, CSV / KEEL / LIBSVM files, any two labels."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file

from svmtune.datasets import binary_labels, user_data

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 3))


@pytest.mark.parametrize(
    ("labels", "mapping"),
    [
        ([0, 1] * 6, {"0": -1.0, "1": 1.0}),
        ([-1, 1] * 6, {"-1": -1.0, "1": 1.0}),
        ([1.0, -1.0] * 6, {"-1": -1.0, "1": 1.0}),
        ([2, 4] * 6, {"2": -1.0, "4": 1.0}),
        ([True, False] * 6, {"False": -1.0, "True": 1.0}),
        (["yes", "no"] * 6, {"no": -1.0, "yes": 1.0}),
    ],
)
def test_any_two_labels_map_lower_to_minus_one(labels, mapping):
    y, found = binary_labels(labels)
    assert found == mapping
    lower = sorted(set(labels))[0]
    assert np.array_equal(y, np.where(np.asarray(labels) == lower, -1.0, 1.0))


def test_positive_makes_one_class_against_the_rest():
    y, mapping = binary_labels(["a", "b", "c", "b"], positive="b")
    assert y.tolist() == [-1.0, 1.0, -1.0, 1.0]
    assert mapping == {"a": -1.0, "b": 1.0, "c": -1.0}
    assert binary_labels([1, 2, 3], positive="3")[0].tolist() == [-1.0, -1.0, 1.0]


@pytest.mark.parametrize(
    ("labels", "kw", "match"),
    [
        ([0, 1, 2], {}, r"3 classes \['0', '1', '2'\].*positive=LABEL"),
        ([5, 5, 5], {}, r"a single class \(5\)"),
        ([0, 1], {"positive": 7}, r"positive=7 is not one of the labels \['0', '1'\]"),
        ([0.0, np.nan], {}, "NaN"),
        (["a", None], {}, "missing values"),
    ],
)
def test_bad_labels_are_refused_by_name(labels, kw, match):
    with pytest.raises(ValueError, match=match):
        binary_labels(labels, name="data set 'mine'", **kw)


def test_arrays_and_dataframes(tmp_path):
    y = np.array(["b", "a"] * 6)
    data = user_data((X, y), name="arr")
    Xa, ya = data()
    assert np.array_equal(Xa, X) and ya.tolist() == [1.0, -1.0] * 6
    assert data.labels == {"a": -1.0, "b": 1.0} and data.counts == {"a": 6, "b": 6}
    frame = pd.DataFrame(X, columns=["u", "v", "w"]).assign(kind=y, colour=["red", "blue"] * 6)
    Xf, yf = user_data(frame, target="kind")()
    assert Xf.shape == (12, 5)  # three numbers, the text column one-hot encoded into two
    assert np.array_equal(yf, ya)
    # a DataFrame in a study: its "class"/"target"/"label"/"y" column holds the labels
    assert user_data(frame.rename(columns={"kind": "class"})).labels == data.labels
    assert pickle.loads(pickle.dumps(data))()[1].tolist() == ya.tolist()


def test_files_csv_keel_libsvm(tmp_path):
    y01 = np.array([0, 1] * 6)
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y01).to_csv(tmp_path / "d.csv")
    pd.DataFrame(X).assign(c=y01).to_csv(tmp_path / "plain.csv", header=False, index=False)
    keel = ["@relation toy", "@attribute a real", "@attribute b real", "@attribute c real"]
    keel += ["@attribute cls {neg, pos}", "@outputs cls", "@data"]
    keel += [", ".join([*map(str, r), "pos" if t else "neg"]) for r, t in zip(X, y01, strict=True)]
    (tmp_path / "d.dat").write_text("\n".join(keel) + "\n")
    dump_svmlight_file(X, y01 * 2 + 2, str(tmp_path / "d.libsvm"))  # labels 2 and 4
    expected = np.where(y01 == 1, 1.0, -1.0)
    for name, kw in [("plain.csv", {}), ("d.dat", {}), ("d.libsvm", {})]:
        Xf, yf = user_data(tmp_path / name, **kw)()
        assert np.allclose(Xf, X) and np.array_equal(yf, expected), name
    Xc, yc = user_data(tmp_path / "d.csv", target="label")()  # its first column is the index
    assert np.allclose(Xc[:, 1:], X) and np.array_equal(yc, expected)
    assert user_data(tmp_path / "d.libsvm").name == "d"


def test_bad_files_name_the_data_set_and_the_problem(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        user_data(tmp_path / "nope.csv")
    pd.DataFrame({"a": [1.0, np.nan, 3.0], "y": [0, 1, 0]}).to_csv(tmp_path / "m.csv", index=False)
    with pytest.raises(
        ValueError, match=r"data set 'm': .*m.csv'.*missing .* at line 3, column 'a'"
    ):
        user_data(tmp_path / "m.csv")
    with pytest.raises(ValueError, match=r"no target column 'kind'; the columns are \['a', 'y'\]"):
        user_data(tmp_path / "m.csv", target="kind")
    with pytest.raises(ValueError, match="which column holds the labels"):
        user_data(pd.DataFrame({"a": [1.0, 2.0], "b": [0, 1]}))
