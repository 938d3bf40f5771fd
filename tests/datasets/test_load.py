"""Loading the bundled data sets: shapes, labels, encodings, aliases, the cache."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import feature_names, list_datasets, load
from svmtune.datasets._load import _ambiguous_rows
from svmtune.datasets._registry import DATASETS, SOURCES

# The table of svmtune/datasets/data/README.md (rows, raw feature columns before encoding),
# written out here independently of the registry.
README = {
    "australian": (690, 14),
    "wisconsin": (683, 9),
    "bupa": (345, 6),
    "german": (1000, 20),
    "german-numeric": (1000, 24),
    "heart": (270, 13),
    "ionosphere": (351, 33),
    "pima": (768, 8),
    "sonar": (208, 60),
    "wdbc": (569, 30),
    "breast": (277, 9),
    "banana": (5300, 2),
    "ring": (7400, 20),
    "twonorm": (7400, 20),
    "titanic": (2201, 3),
    "splice": (3190, 60),
    "segment": (2310, 19),
    "new-thyroid1": (215, 5),
    "penbased": (10992, 16),
    "optdigits": (5620, 64),
    "spambase": (4597, 57),
}
# The benchmark suite's KEEL additions (the second table of data/README.md).
README.update({
    "bands": (365, 19), "monk-2": (432, 6), "tic-tac-toe": (958, 9), "mushroom": (5644, 22),
    "chess": (3196, 36), "vehicle": (846, 18), "vowel": (990, 13), "wine": (178, 13),
    "contraceptive": (1473, 9), "satimage": (6435, 36), "texture": (5500, 40),
    "led7digit": (500, 7), "movement_libras": (360, 90), "hayes-roth": (160, 4),
    "tae": (151, 5), "iris": (150, 4), "marketing": (6876, 13), "letter": (20000, 16),
    "ecoli1": (336, 7), "glass1": (214, 9), "yeast1": (1484, 8), "page-blocks0": (5472, 10),
})  # fmt: skip

TABLE = list_datasets()
ALL_NAMES = list(TABLE["name"])
CANONICAL = list(TABLE.loc[TABLE["alias_of"] == "", "name"])
# the registry's KEEL tasks; the mfeat views have their own module and tests (test_mfeat.py)
CANONICAL = [n for n in CANONICAL if not n.startswith("mfeat")]


def test_every_file_is_bundled_and_in_the_registry():
    assert set(SOURCES) == set(README)
    assert {d.source for d in DATASETS.values()} == set(README)


@pytest.mark.parametrize("file", sorted(README))
def test_source_rows_and_raw_columns_match_the_readme(file):
    src = SOURCES[file]
    assert (src.rows, src.raw_features) == README[file]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_name_loads_with_the_documented_shape_and_labels(name):
    row = TABLE.set_index("name").loc[name]
    X, y = load(name)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert X.shape == (row["rows"], row["features"])
    assert y.shape == (row["rows"],)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert int((y == 1).sum()) == row["positives"]
    assert np.isfinite(X).all()
    assert X.flags.writeable and X.flags.c_contiguous


def test_positive_class_is_the_minority_unless_a_paper_fixes_it():
    fixed = {"image", "penbased-eo", "penbased-sl", "optdigits-eo", "optdigits-sl"}
    fixed.add("tic-tac-toe")  # KEEL's own "positive" label (the majority)
    for name in CANONICAL:
        if name in fixed or name.endswith("-halves"):  # the halves rule fixes the sign
            continue
        _, y = load(name)
        assert (y == 1).sum() < (y == -1).sum(), name


@pytest.mark.parametrize("alias,canonical", [
    ("diabetis", "pima"),
    ("diabetes", "pima"),
    ("breast-cancer", "breast"),
    ("thyroid", "new-thyroid1"),
    ("ringnorm", "ring"),
    ("segment", "image"),
])  # fmt: skip
def test_aliases_load_the_same_data(alias, canonical):
    Xa, ya = load(alias)
    Xc, yc = load(canonical)
    np.testing.assert_array_equal(Xa, Xc)
    np.testing.assert_array_equal(ya, yc)
    assert TABLE.set_index("name").loc[alias, "alias_of"] == canonical


def test_fischetti_breast_is_wisconsin_not_ratsch_breast():
    assert load("wisconsin")[0].shape == (683, 9)
    assert load("breast")[0].shape[0] == 277
    with pytest.raises(ValueError, match="unknown data set 'Breast'"):
        load("Breast")


def test_unknown_name_lists_the_valid_names():
    with pytest.raises(ValueError, match=r"unknown data set 'nope'.*'australian'.*'diabetis'"):
        load("nope")
    with pytest.raises(ValueError, match="unknown data set"):
        load(3)  # type: ignore[arg-type]


def test_returned_arrays_are_copies_of_the_cache():
    X, y = load("heart")
    X[:] = np.nan
    y[:] = 0.0
    X2, y2 = load("heart")
    assert np.isfinite(X2).all()
    assert set(np.unique(y2)) == {-1.0, 1.0}


def _onehot_blocks(name):
    """Column-index blocks of one-hot encoded variables, from the feature names."""
    blocks: dict[str, list[int]] = {}
    for j, f in enumerate(feature_names(name)):
        if "=" in f:
            blocks.setdefault(f.split("=")[0], []).append(j)
    return blocks


@pytest.mark.parametrize("name,n_cat,n_onehot", [
    ("german", 13, 54),
    ("australian", 8, 36),
    ("heart", 6, 16),
    ("breast", 5, 14),
])  # fmt: skip
def test_onehot_columns_are_0_1_with_one_one_per_row(name, n_cat, n_onehot):
    X, _ = load(name)
    blocks = _onehot_blocks(name)
    assert len(blocks) == n_cat
    assert sum(len(b) for b in blocks.values()) == n_onehot
    for cols in blocks.values():
        part = X[:, cols]
        assert set(np.unique(part)) == {0.0, 1.0}
        np.testing.assert_array_equal(part.sum(axis=1), 1.0)
        assert (part.sum(axis=0) > 0).all()  # only levels that occur


def test_german_levels_are_the_a_codes():
    names = feature_names("german")
    assert names[:4] == ["checking=A11", "checking=A12", "checking=A13", "checking=A14"]
    purpose = [n for n in names if n.startswith("purpose=")]
    assert purpose[-2:] == ["purpose=A49", "purpose=A410"]  # natural order, A47 absent
    assert "duration" in names and "amount" in names


def test_fischetti_feature_counts():
    # Fischetti 2016, Table 1: heart 23; australian 43 = ours + the never-occurring A6=6.
    assert load("heart")[0].shape[1] == 23
    assert load("australian")[0].shape[1] == 43 - 1
    assert "A6=6" not in feature_names("australian")


def test_breast_intervals_become_midpoints():
    X, _ = load("breast")
    names = feature_names("breast")
    age = X[:, names.index("age")]
    assert set(np.unique(age)) == {24.5, 34.5, 44.5, 54.5, 64.5, 74.5}
    nodes = X[:, names.index("inv_nodes")]
    assert set(np.unique(nodes)) == {1.0, 4.0, 7.0, 10.0, 13.0, 16.0, 25.0}
    assert set(np.unique(X[:, names.index("deg_malig")])) == {1.0, 2.0, 3.0}


def test_splice_nucleotides_and_ambiguity_codes():
    X, y = load("splice")
    assert X.shape == (3190, 240)
    per_position = X.reshape(3190, 60, 4)
    np.testing.assert_allclose(per_position.sum(axis=2), 1.0)
    assert set(np.round(np.unique(X), 12)) <= {0.0, 0.25, round(1 / 3, 12), 0.5, 1.0}
    fractional = ((X > 0) & (X < 1)).any(axis=1)
    np.testing.assert_array_equal(fractional, _ambiguous_rows("splice"))
    assert fractional.sum() == 15
    assert feature_names("splice")[:4] == ["p1=A", "p1=C", "p1=G", "p1=T"]
    # Ratsch's binary task: 1535 junctions (EI 767 + IE 768), 1527 without the 15 rows.
    assert (y == 1).sum() == 1535
    assert (y[~fractional] == 1).sum() == 1527


def test_image_is_ratschs_grouping_of_segment():
    X, y = load("image")
    assert X.shape == (2310, 19)
    assert (y == 1).sum() == 1320 and (y == -1).sum() == 990
    assert np.ptp(X[:, feature_names("image").index("pixel_count")]) == 0.0


def test_digit_tasks_share_features_and_differ_in_labels():
    Xe, ye = load("penbased-eo")
    Xs, ys = load("penbased-sl")
    np.testing.assert_array_equal(Xe, Xs)
    assert not np.array_equal(ye, ys)
    assert (load("optdigits-eo")[1] == 1).sum() == 2791


def test_list_datasets_columns_and_rows():
    expected = [
        "name",
        "alias_of",
        "rows",
        "features",
        "raw_features",
        "positives",
        "positive_class",
        "source",
        "papers",
    ]
    assert list(TABLE.columns) == expected
    assert TABLE["name"].is_unique
    assert len(CANONICAL) == len(DATASETS) == 23 + 22  # + the suite's KEEL tasks
    for name in ["penbased-eo", "penbased-sl", "optdigits-eo", "optdigits-sl", "image"]:
        assert name in CANONICAL
    assert "penbased" not in ALL_NAMES
    row = TABLE.set_index("name").loc["german"]
    assert (row["raw_features"], row["features"], row["source"]) == (20, 61, "german.dat")


def test_n_rows_is_the_files_row_count_and_names_a_bad_name():
    """The registry's count, for a name or an alias, without parsing: what every load checks."""
    from svmtune.datasets import n_rows

    assert n_rows("heart") == len(load("heart")[1]) == 270
    assert n_rows("diabetis") == n_rows("pima") == 768
    with pytest.raises(ValueError, match="unknown data set 'Heart'; valid names are"):
        n_rows("Heart")


def test_the_task_table_is_data_every_record_complete():
    """``data/tasks.toml`` holds the tasks; each names a bundled file and maps every label."""
    import tomllib
    from importlib import resources

    records = []
    for file in ("tasks.toml", "suite.toml"):
        text = resources.files("svmtune.datasets").joinpath("data", file).read_text("utf-8")
        records += tomllib.loads(text)["dataset"]
    assert [r["name"] for r in records] == list(DATASETS)
    for rec in records:
        info = DATASETS[rec["name"]]
        assert info.source in SOURCES and info.positive and info.negative
        assert not set(info.positive) & set(info.negative)
