"""Study.subset: the same study on some of its data sets; its cells are the whole study's."""

from __future__ import annotations

import pytest

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Grid

from ._toys import blobs, halves


def _study(storage: str) -> Study:
    m = Method(LOOEstimate(model="loo2"), Grid(values={"gamma": [0.1, 1.0]}), RBF())
    X, y = blobs()
    Xb, yb = X[:90], y[:90]
    return Study(
        "whole",
        datasets={"A": (X, y), "B": (Xb, yb)},
        methods={"loo2": m},
        split=halves,
        n_splits=2,
        seed=5,
        storage=storage,
    )


def test_subset_keeps_the_definition_but_data_sets_and_splits(tmp_path) -> None:
    whole = _study(f"sqlite:///{tmp_path / 'w.db'}")
    part = whole.subset(datasets=["B"], n_splits=1, storage=f"sqlite:///{tmp_path / 'p.db'}")
    a, b = whole.definition(), part.definition()
    assert b["datasets"] == ["B"] and b["n_splits"] == 1
    assert {k: v for k, v in a.items() if k not in ("datasets", "n_splits", "labels")} == {
        k: v for k, v in b.items() if k not in ("datasets", "n_splits", "labels")
    }
    assert set(part.cell_keys()) < set(whole.cell_keys())
    assert whole.subset().cell_keys() == whole.cell_keys()


def test_whole_study_resumes_what_a_subset_stored(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    whole = _study(url)
    part = whole.subset(datasets=["A"], n_splits=1)
    first = part.run().results()
    assert len(first) == 1
    res = whole.run().results()
    assert len(res) == 4  # 2 data sets x 2 splits
    again = res[(res["dataset"] == "A") & (res["split"] == 0)].iloc[0]
    assert again["objective_value"] == first.iloc[0]["objective_value"]
    assert again["started_at"] == first.iloc[0]["started_at"]  # stored once, not recomputed


def test_subset_names_unknown_data_sets(tmp_path) -> None:
    whole = _study(f"sqlite:///{tmp_path / 'w.db'}")
    with pytest.raises(ValueError, match=r"not in study 'whole': \['C'\]; it has \['A', 'B'\]"):
        whole.subset(datasets=["B", "C"])
