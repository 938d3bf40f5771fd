"""Stored cells tied to their data: a data set that reads differently under the same name is
refused before any cell runs, ``rerun`` starts it afresh, and two writers agree."""

from __future__ import annotations

import threading

import pandas as pd
import pytest
import sqlalchemy as sa
from sklearn.datasets import make_classification

from svmtune.cli import main
from svmtune.datasets import user_data
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import DataChangedError, Method, Storage, Study
from svmtune.study.run._data import DatasetSpec
from svmtune.study.store._data_prints import DataPrint, check_data
from svmtune.tuners import Grid

METHODS = {"m": Method(LOOEstimate(model="loo2"), Grid(n_points=2), RBF())}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'prints.db'}"
    return request.getfixturevalue("postgres_url")


def _write(path, n: int, seed: int = 0) -> None:
    X, y = make_classification(n_samples=n, n_features=3, n_redundant=0, random_state=seed)
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y).to_csv(path, index=False)


def _study(path, url, n_splits: int = 1) -> Study:
    return Study(
        "tied",
        datasets={"mine": path},
        methods=METHODS,
        n_splits=n_splits,
        split="holdout",
        storage=url,
    )


def _cells(url: str) -> pd.DataFrame:
    store = Storage(url, read_only=True)
    try:
        return store.cells("tied")
    finally:
        store.close()


def test_an_edited_file_under_the_same_name_is_refused_before_any_cell(tmp_path, db_url):
    path = tmp_path / "mine.csv"
    _write(path, 40)
    _study(path, db_url).run()
    assert len(_cells(db_url)) == 1
    _write(path, 90, seed=1)  # another file under the same name, and more splits
    with pytest.raises(DataChangedError, match=r"data set 'mine' is not the data its 1 stored"):
        _study(path, db_url, n_splits=2).run()
    cells = _cells(db_url)
    sizes = (cells["n_train"] + cells["n_test"]).tolist()
    assert sizes == [40]  # nothing ran, nothing mixed
    store = Storage(db_url, read_only=True)
    assert store.study_definition("tied")["n_splits"] == 1  # nor was the definition touched
    store.close()
    # rerun starts that data set afresh: every cell of the new file, none of the old one
    _study(path, db_url, n_splits=2).run(rerun=["mine"])
    cells = _cells(db_url)
    assert (cells["n_train"] + cells["n_test"]).tolist() == [90, 90]
    assert (cells["status"] == "ok").all()


def test_one_changed_value_is_a_change_and_the_same_data_passes(tmp_path, db_url):
    path = tmp_path / "mine.csv"
    _write(path, 40)
    _study(path, db_url).run()
    _study(path, db_url, n_splits=2).run()  # the same data: one more split is added
    assert len(_cells(db_url)) == 2
    table = pd.read_csv(path)
    table.loc[5, "b"] += 1e-9
    table.to_csv(path, index=False)
    with pytest.raises(DataChangedError, match=r"same shape, other values.*--rerun mine"):
        _study(path, db_url, n_splits=2).run()


def test_a_changed_file_while_a_study_is_defined_fails_its_cells_not_silently(tmp_path):
    path = tmp_path / "mine.csv"
    _write(path, 40)
    data = user_data(path)
    _write(path, 41)
    with pytest.raises(ValueError, match=r"data set 'mine': .*mine.csv now reads as 41x3"):
        data()


def test_a_callable_must_return_the_same_data_on_every_call():
    calls = []

    def drifting():
        calls.append(1)
        X, y = make_classification(n_samples=30 + len(calls), n_features=4, random_state=0)
        return X, y

    study = Study("d", datasets=[drifting], methods=METHODS, n_splits=1, storage="sqlite://")
    spec = study._data_specs()[0]
    with pytest.raises(ValueError, match="data set 'drifting': its callable returned other data"):
        spec.load()


def test_rerun_names_a_data_set_of_the_study(tmp_path):
    path = tmp_path / "mine.csv"
    _write(path, 40)
    with pytest.raises(ValueError, match=r"rerun names \['theirs'\], not data sets.*\['mine'\]"):
        _study(path, f"sqlite:///{tmp_path / 's.db'}").run(rerun=["theirs"])


def test_bundled_data_sets_are_fingerprinted_too():
    heart = DatasetSpec("heart").data_print()
    assert (heart.rows, heart.features) == (270, 23)
    assert heart.fingerprint == DatasetSpec("H", source="heart").data_print().fingerprint
    assert heart.fingerprint != DatasetSpec("sonar").data_print().fingerprint


def test_a_database_from_before_fingerprints_is_upgraded_in_place(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    path = tmp_path / "mine.csv"
    _write(path, 40)
    _study(path, url).run()
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # as a database written before the table existed
        conn.exec_driver_sql("DROP TABLE datasets")
    _study(path, url, n_splits=2).run()  # the table is made, the data it has recorded
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT name, rows, features FROM datasets").all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("mine", 40, 3)]
    assert len(_cells(url)) == 2


def _race(url: str, prints: list[DataPrint]) -> list[str]:
    store = Storage(url)
    sid = store.register_study("race", 0, {"datasets": ["d"], "methods": {}})
    barrier = threading.Barrier(len(prints))
    outcome: list[str] = []

    def writer(p: DataPrint) -> None:
        barrier.wait()
        try:
            check_data(store.engine, sid, {"d": p}, where="study 'race'")
            outcome.append("ok")
        except DataChangedError:
            outcome.append("refused")

    threads = [threading.Thread(target=writer, args=(p,)) for p in prints]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with store.engine.connect() as conn:
        n = conn.execute(sa.text("SELECT COUNT(*) FROM datasets")).scalar_one()
    store.close()
    assert n == 1
    return sorted(outcome)


def test_two_writers_starting_at_once_agree(tmp_path, db_url):
    same = DataPrint("10x2:aa", 10, 2)
    assert _race(db_url, [same] * 4) == ["ok"] * 4


def test_two_writers_with_different_data_one_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'race.db'}"
    assert _race(url, [DataPrint("10x2:aa", 10, 2), DataPrint("10x2:bb", 10, 2)]) == [
        "ok",
        "refused",
    ]


STUDY_FILE = """
from pathlib import Path
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Grid

study = Study(
    "cli_tied",
    datasets={"mine": Path(__file__).parent / "mine.csv"},
    methods={"m": Method(LOOEstimate(model="loo2"), Grid(n_points=2), RBF())},
    n_splits=1,
)
"""


def test_svmtune_run_refuses_changed_data_with_exit_2_and_reruns_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "mine.csv", 40)
    (tmp_path / "tied.py").write_text(STUDY_FILE)
    args = ["run", str(tmp_path / "tied.py"), "--n-jobs", "1", "--no-progress", "--format", "png"]
    assert main(args) == 0
    assert (
        "data set 'mine': 40 rows x 3 features, labels 0 -> -1, 1 -> +1" in capsys.readouterr().err
    )
    _write(tmp_path / "mine.csv", 50, seed=3)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "--rerun mine" in err, err
    assert "stored 40 rows x 3 features" in err and "now 50 rows x 3 features" in err
    assert main([*args, "--rerun", "mine"]) == 0
    out = capsys.readouterr().out
    assert "1 cells stored" in out
    results = pd.read_csv(tmp_path / "results" / "cli_tied" / "results.csv")
    assert (results["n_train"] + results["n_test"]).tolist() == [50]
