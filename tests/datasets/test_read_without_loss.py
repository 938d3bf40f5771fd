"""Files read without loss: every row of a header-less file, KEEL headers read as headers,
missing values and stray text refused naming the file, line and column, one clear sentence for
each file svmtune cannot read, and the same X and y from a CSV file and from its DataFrame.

The KEEL files under ``data/`` keep the layout of KEEL's saheart, crx, haberman and housevotes
(a few rows each): an ``@attribute`` header, or bare rows whose first row holds text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file

from svmtune.datasets import read_file, user_data

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("name", "rows", "features", "labels"),
    [
        # 8 numbers + Famhist one-hot (Absent, Present)
        ("saheart.dat", 8, 10, {"0": -1.0, "1": 1.0}),
        ("saheart-rows.dat", 8, 10, {"0": -1.0, "1": 1.0}),  # no @ header: no header line
        ("haberman-rows.csv", 8, 3, {"negative": -1.0, "positive": 1.0}),
        ("housevotes-rows.csv", 7, 32, {"democrat": -1.0, "republican": 1.0}),  # text only
    ],
)
def test_header_less_files_keep_their_first_row(name, rows, features, labels):
    data = user_data(DATA / name)
    X, y = data()
    assert X.shape == (rows, features) and data.labels == labels
    n_data_lines = sum(
        1 for line in (DATA / name).read_text().splitlines() if line and not line.startswith("@")
    )
    assert X.shape[0] == n_data_lines


def test_a_keel_header_and_its_bare_rows_give_the_same_table():
    Xh, yh = user_data(DATA / "saheart.dat")()
    Xr, yr = user_data(DATA / "saheart-rows.dat")()
    assert np.array_equal(Xh, Xr) and np.array_equal(yh, yr)
    assert Xh[0, 0] == 160.0  # the first data row, not a header


def test_a_question_mark_is_refused_with_file_line_and_column(tmp_path):
    with pytest.raises(
        ValueError, match=r"crx.dat'.*missing value \('\?'\) at line 16, column 'A2'"
    ):
        user_data(DATA / "crx.dat")
    # without that row: the numbers stay numbers, the nominal columns are one-hot encoded
    lines = (DATA / "crx.dat").read_text().splitlines()
    (tmp_path / "crx.dat").write_text("\n".join(line for line in lines if "?" not in line))
    X, y = user_data(tmp_path / "crx.dat")()
    # A1 (a, b), A4 (u, y), A9 (f, t): 6 columns; A2, A3, A8, A11: 4 numbers
    assert X.shape == (9, 10)
    # "+" sorts before "-": "+" -> -1, "-" -> +1
    assert y.tolist() == [-1.0] * 5 + [1.0] * 4
    assert user_data(tmp_path / "crx.dat").labels == {"+": -1.0, "-": 1.0}


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("file", "text", "match"),
    [
        ("empty.csv", "", r"empty.csv' is empty"),
        ("blank.csv", "\n\n  \n", r"blank.csv' is empty"),
        ("q.csv", "a,b,y\n1,?,0\n2,3,1\n", r"missing value \('\?'\) at line 2, column 'b'"),
        (
            "e.csv",
            "a,b,y\n1,2,0\n2,,1\n",
            r"missing value \(an empty field\) at line 3, column 'b'",
        ),
        ("n.csv", "a,b,y\n1,NaN,0\n2,3,1\n", r"missing value \('NaN'\) at line 2, column 'b'"),
        ("t.csv", "a,b,y\n1.5,2,0\n2.5,x3,1\n", r"column 'b' holds 1 numbers and the text 'x3' at"),
        ("dc.csv", "a;b;y\n1,5;2,3;0\n2,5;1,3;1\n", r"'1,5' at line 2, a number written with a"),
        ("k.csv", 'a,b,y\n"1,000",2,0\n"2,500",3,1\n', r"'1,000' at line 2, a number written"),
        ("c.csv", "a,b,y\n1+2j,2,0\n3j,3,1\n", r"complex number '1\+2j' at line 2"),
        ("d.csv", "d,b,y\n2020-01-01,2,0\n2020-02-01,3,1\n", r"date or time '2020-01-01' at"),
        ("l.csv", b"a,b,y\ncaf\xe9,2,0\n", r"not UTF-8 text: byte 0xe9 on line 2"),
        ("r.csv", "a,b,y\n1,2,0\n2,3\n3,4,1\n", r"line 3 has 2 fields where the file has 3"),
        ("o.csv", "0\n1\n0\n1\n", r"o.csv' has one column \(labels only"),
        ("h.csv", "a,b,y\n", r"h.csv' has one line"),
        ("kh.dat", "@relation x\n@attribute a real\n@attribute y {0,1}\n", r"no @data line"),
        ("kq.dat", "@attribute a real\n@attribute y {0,1}\n@data\nx,0\n1,1\n", r"text 'x' at line"),
    ],
)
def test_each_unreadable_file_gets_one_sentence_naming_it(tmp_path, file, text, match):
    path = _write(tmp_path / file, text)
    with pytest.raises(ValueError, match=match) as info:
        user_data(path)
    message = str(info.value)
    assert file in message and "\n" not in message


def test_stray_text_in_a_column_of_numbers_is_never_one_hot_encoded(tmp_path):
    lines = ["a,b,y"] + [f"{i}.5,{i},{i % 2}" for i in range(30)]
    lines[12] = "11.5,eleven,1"
    path = _write(tmp_path / "typo.csv", "\n".join(lines))
    with pytest.raises(ValueError, match=r"holds 29 numbers and the text 'eleven' at line 13"):
        user_data(path)


def test_a_column_named_categorical_is_one_hot_encoded(tmp_path):
    path = _write(tmp_path / "codes.csv", "x,code,y\n0.5,1,0\n0.2,2,1\n0.9,3,0\n0.1,1,1\n")
    assert user_data(path)().__getitem__(0).shape == (4, 2)
    X, _ = user_data(path, categorical=["code"])()
    assert X.shape == (4, 4) and np.array_equal(X[:, 1:].sum(axis=1), np.ones(4))
    with pytest.raises(ValueError, match=r"categorical names \['nope'\], not feature columns"):
        user_data(path, categorical=["nope"])


def test_header_option(tmp_path):
    path = _write(tmp_path / "t.csv", "small,red,yes\nlarge,red,no\nsmall,blue,no\nbig,red,yes\n")
    assert user_data(path)()[0].shape[0] == 4  # text recurring below: a data row
    assert user_data(path, header=True)()[0].shape[0] == 3
    numbers = _write(tmp_path / "n.csv", "1,2,0\n3,4,1\n5,6,0\n")
    assert user_data(numbers, header=False)()[0].shape == (3, 2)
    named = _write(tmp_path / "named.csv", "0,1,label\n1.5,2,0\n3.5,4,1\n")
    assert user_data(named)()[0].shape == (2, 2)  # pandas' 0, 1, ... names above numbers
    with pytest.raises(ValueError, match="header must be True, False or None"):
        user_data(numbers, header="yes")


def test_libsvm_is_recognised_by_its_content(tmp_path):
    # a first row of zeros is a line with a label alone
    X = np.array([[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 3.0]])
    y = np.array([1, -1, 1, -1])
    dump_svmlight_file(X, y, str(tmp_path / "data.txt"))
    assert (tmp_path / "data.txt").read_text().splitlines()[0].split() == ["1"]
    Xr, yr = user_data(tmp_path / "data.txt")()
    assert np.array_equal(Xr, X) and np.array_equal(yr, y.astype(float))


def test_an_object_dataframe_of_numbers_is_numeric():
    frame = pd.DataFrame({"a": [0.5, 1.5, 2.5, 3.5], "y": [0, 1, 0, 1]})
    as_objects = frame.astype({"a": object})
    Xo, yo = user_data(as_objects)()
    Xf, yf = user_data(frame)()
    assert Xo.shape == (4, 1) and np.array_equal(Xo, Xf) and np.array_equal(yo, yf)
    dates = frame.assign(a=pd.date_range("2020-01-01", periods=4))
    with pytest.raises(ValueError, match=r"column 'a' holds the date or time .* at row 0"):
        user_data(dates)
    with pytest.raises(ValueError, match=r"missing value \(nan\) at row 2 \(index 2\), column 'a'"):
        user_data(frame.assign(a=[0.5, 1.0, np.nan, 2.0]))
    nullable = frame.assign(a=pd.array([1, None, 3, 4], dtype="Int64"))
    with pytest.raises(ValueError, match=r"missing value \(nan\) at row 1 \(index 1\), column 'a'"):
        user_data(nullable)
    with pytest.raises(ValueError, match=r"column 't' holds the date or time"):
        user_data(frame.assign(t=pd.to_timedelta([1, 2, 3, 4], unit="D")))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(4, 12),
    st.integers(1, 3),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_a_csv_file_and_its_dataframe_give_the_same_X_and_y(n, n_num, with_text, seed):
    import tempfile

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(n_num)})
    if with_text:
        frame["colour"] = rng.choice(["red", "green", "blue"], size=n)
    frame["label"] = np.resize(["no", "yes"], n)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        frame.to_csv(path, index=False)
        Xp, yp = user_data(path)()
        read = pd.read_csv(path)
        Xr, yr = user_data(read)()
    Xf, yf = user_data(frame)()
    assert np.array_equal(Xp, Xf) and np.array_equal(yp, yf)
    # a frame the user read: its own numbers, unchanged (pandas' default float parser may be an
    # ulp off the file's digits, depending on the version), the same text columns and labels
    numeric = [f"x{j}" for j in range(n_num)]
    assert np.array_equal(Xr[:, :n_num], read[numeric].to_numpy(dtype=np.float64))
    assert np.array_equal(Xr[:, n_num:], Xf[:, n_num:]) and np.array_equal(yr, yf)


def test_read_file_gives_typed_columns_and_labels():
    features, labels = read_file(DATA / "saheart.dat")
    assert list(features.columns)[:2] == ["Sbp", "Tobacco"] and "Chd" not in features
    assert features["Famhist"].tolist()[:2] == ["Present", "Absent"]
    assert features["Sbp"].dtype == np.float64 and labels.tolist()[:3] == [1.0, 1.0, 0.0]
