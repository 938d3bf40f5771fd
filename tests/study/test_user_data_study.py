"""A study of one's own data: a bundled set, a 0/1 CSV, a DataFrame with string labels and a
LIBSVM file run to a report; bad data is refused where the study is defined, before any cell."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification

from svmtune.cli import main
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, load_study
from svmtune.tuners import Grid

from ._toys import blobs

METHODS = {"LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF())}

STUDY = textwrap.dedent(
    """
    from pathlib import Path

    import pandas as pd

    from svmtune.kernels import RBF
    from svmtune.objectives import LOOEstimate
    from svmtune.study import Method, Study
    from svmtune.tuners import Grid

    HERE = Path(__file__).parent
    frame = pd.read_csv(HERE / "frame.csv")
    study = Study(
        "own",
        datasets={"heart": "heart", "csv01": HERE / "zero_one.csv", "frame": frame,
                  "svmlight": HERE / "data.libsvm"},
        split="fischetti",
        n_splits=2,
        methods={
            "LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF()),
            "LOO3+grid": Method(LOOEstimate(model="loo3"), Grid(n_points=3), RBF()),
        },
    )
    """
)


def _files(folder, labels_of_the_csv=(0, 1)):
    X, y = make_classification(n_samples=80, n_features=4, random_state=1)
    a, b = labels_of_the_csv
    pd.DataFrame(X).assign(t=np.where(y == 1, b, a)).to_csv(folder / "zero_one.csv", index=False)
    frame = pd.DataFrame(X[:, :3], columns=["p", "q", "r"])
    frame.assign(target=np.where(y == 1, "sick", "well")).to_csv(folder / "frame.csv", index=False)
    dump_svmlight_file(X, np.where(y == 1, 4, 2), str(folder / "data.libsvm"))
    (folder / "own.py").write_text(STUDY)
    return folder / "own.py"


def test_four_forms_of_data_run_to_a_report(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = _files(tmp_path)
    assert load_study(path).labels == {
        "csv01": {"0": -1.0, "1": 1.0},
        "frame": {"sick": -1.0, "well": 1.0},  # alphabetical: the lower one is -1
        "svmlight": {"2": -1.0, "4": 1.0},
    }
    assert main(["run", str(path), "--n-jobs", "1", "--no-progress", "--format", "png"]) == 0
    out, err = capsys.readouterr()
    assert "own: 16 cells (4 data sets x 2 splits x 2 methods)" in err
    assert "data set 'frame': 80 rows x 3 features, labels sick -> -1, well -> +1" in err
    assert "data set 'heart': 270 rows x 23 features (bundled, labels -1/+1)" in err
    assert "16 cells stored" in out and "(16 ok)" in out
    report = (tmp_path / "results" / "own" / "report.md").read_text()
    assert "## Verdict" in report
    results = pd.read_csv(tmp_path / "results" / "own" / "results.csv")
    assert set(results["dataset"]) == {"heart", "csv01", "frame", "svmlight"}
    assert (results["status"] == "ok").all()


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ((0, 1, 2), r"data set 'csv01' .*3 classes \['0', '1', '2'\]"),
        ((7, 7), r"data set 'csv01' .*a single class \(7\)"),
    ],
)
def test_bad_data_exits_2_before_any_cell_and_writes_nothing(
    tmp_path, monkeypatch, capsys, labels, match
):
    monkeypatch.chdir(tmp_path)
    path = _files(tmp_path, labels_of_the_csv=labels[:2])
    if len(labels) == 3:  # a third class in the last rows
        table = pd.read_csv(tmp_path / "zero_one.csv")
        table.loc[table.index[-5:], "t"] = labels[2]
        table.to_csv(tmp_path / "zero_one.csv", index=False)
    assert main(["run", str(path), "--n-jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1
    assert pytest.importorskip("re").search(match, err), err
    assert not (tmp_path / "results").exists()


def test_a_callable_with_zero_one_labels_is_mapped_and_checked_at_definition():
    def zero_one():
        X, y = blobs()
        return X, (y > 0).astype(int)

    study = Study("z", datasets=[zero_one], methods=METHODS, n_splits=1, storage="sqlite://")
    assert study.labels == {"zero_one": {"0": -1.0, "1": 1.0}}
    assert study.run().results()["status"].tolist() == ["ok"]

    def broken():
        raise OSError("the share is offline")

    with pytest.raises(ValueError, match="data set 'broken': its callable failed: .*offline"):
        Study("b", datasets=[broken], methods=METHODS)
    with pytest.raises(ValueError, match="name arrays and DataFrames in a dict"):
        Study("b", datasets=[blobs()], methods=METHODS)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"", r"zero_one.csv' is empty"),
        (b"a,b,c,d,t\n0.5,1,2,3,0\n0.7,caf\xe9,2,3,1\n", r"not UTF-8 text: byte 0xe9 on line 3"),
        (b"a,b,c,d,t\n0.5,1,2,3,0\n0.7,1,2,1\n", r"line 3 has 4 fields where the file has 5"),
        (b"a,b,c,d,t\n0.5,1,?,3,0\n0.7,1,2,5,1\n", r"missing value \('\?'\) at line 2, column 'c'"),
        (b"t\n0\n1\n", r"one column \(labels only"),
    ],
)
def test_an_unreadable_file_exits_2_with_one_sentence(
    tmp_path, monkeypatch, capsys, content, match
):
    monkeypatch.chdir(tmp_path)
    path = _files(tmp_path)
    (tmp_path / "zero_one.csv").write_bytes(content)
    assert main(["run", str(path), "--n-jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and len(err.strip().splitlines()) == 1, err
    assert "data set 'csv01'" in err and pytest.importorskip("re").search(match, err), err
    assert not (tmp_path / "results").exists()
