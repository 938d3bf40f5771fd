"""german-numeric: Statlog's 24-column numeric coding of the bundled german rows."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np

from svmtune.datasets import feature_names, load


def _rows(file: str) -> list[list[str]]:
    path = resources.files("svmtune.datasets").joinpath("data", f"{file}.dat.gz")
    with path.open("rb") as fh:
        text = gzip.decompress(fh.read()).decode("utf-8")
    return [[t.strip() for t in line.split(",")] for line in text.splitlines() if line.strip()]


def _code(level: str) -> int:
    """``A<k><v>`` -> v: the level is the last digit (k, the column number, is 1-20)."""
    return int(level[-1])


def _statlog_numeric(row: list[str]) -> list[int]:
    (checking, duration, history, purpose, amount, savings, employment, _rate, status,
     debtors, residence, prop, age, plans, housing, credits, job, liable, tel, foreign,
     _cls) = row  # fmt: skip
    return [
        _code(checking), int(duration), _code(history), int(np.round(int(amount) / 100)),
        _code(savings), _code(employment), _code(status), int(residence), _code(prop),
        int(age), _code(plans), int(credits), int(liable), _code(tel), _code(foreign),
        int(purpose == "A40"), int(purpose == "A41"), int(debtors == "A101"),
        int(debtors == "A102"), int(housing == "A151"), int(housing == "A152"),
        int(job == "A171"), int(job == "A172"), int(job == "A173"),
    ]  # fmt: skip


def test_the_bundled_file_is_the_statlog_coding_of_the_german_rows():
    raw, numeric = _rows("german"), _rows("german-numeric")
    assert len(raw) == len(numeric) == 1000
    for i, (r, n) in enumerate(zip(raw, numeric, strict=True)):
        assert [int(v) for v in n[:-1]] == _statlog_numeric(r), f"row {i}"
        assert n[-1] == r[-1], f"row {i}: class"


def test_loads_with_24_features_and_the_labels_of_german():
    X, y = load("german-numeric")
    Xg, yg = load("german")
    assert X.shape == (1000, 24) and Xg.shape == (1000, 61)
    np.testing.assert_array_equal(y, yg)
    np.testing.assert_array_equal(load("german24")[0], X)
    names = feature_names("german-numeric")
    assert names[3] == "amount_100" and names[-1] == "job_skilled"
    # the first row of german: A11, 6, A34, A43, 1169, ... -> 1, 6, 4, 12, ...
    np.testing.assert_array_equal(X[0, :4], [1, 6, 4, 12])
