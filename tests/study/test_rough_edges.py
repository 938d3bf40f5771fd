"""Bad options and damaged databases found by trying them: each is refused with a sentence
naming the bad value (or what is missing), before anything runs or is written."""

from __future__ import annotations

import inspect
import sqlite3

import pytest

from svmtune.cli import build_parser, main
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import STALE_AFTER_S, Method, Storage, Study, write_report
from svmtune.study.run._runner import capped_n_jobs, run_cells
from svmtune.study.store import _claims
from svmtune.tuners import Grid

from ._toys import blobs

METHODS = {"g": Method(LOOEstimate(model="loo2"), Grid(n_points=2), RBF())}


def tiny(tmp_path, **kw) -> Study:
    opts = {"datasets": [blobs], "split": "holdout", "n_splits": 1, "methods": METHODS}
    opts.update(kw)
    return Study("edges", storage=f"sqlite:///{tmp_path / 'e.db'}", **opts)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A study run once (one cell), its database copied by the tests that damage it."""
    tmp = tmp_path_factory.mktemp("edges")
    study = tiny(tmp).run(n_jobs=1)
    return study, tmp / "e.db"


def test_absurd_n_splits_is_refused_at_once(tmp_path):
    with pytest.raises(ValueError, match="n_splits must be at most 10000 .*got 1000000000"):
        tiny(tmp_path, n_splits=10**9).validate()
    assert not (tmp_path / "e.db").exists()


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_run_refuses_a_bad_n_jobs_before_the_database(tmp_path, n_jobs):
    with pytest.raises(ValueError, match=f"n_jobs must be a positive number.*got {n_jobs!r}"):
        tiny(tmp_path).run(n_jobs=n_jobs)
    assert not (tmp_path / "e.db").exists()


def test_a_huge_n_jobs_is_capped_at_the_cells_to_run(tmp_path):
    """One cell, 10**9 processes asked: one runs it (in this process), at once."""
    assert capped_n_jobs(10**9, 3) == 3 and capped_n_jobs(10**9, 1) == 1
    assert capped_n_jobs(-1, 3) == -1 and capped_n_jobs(None, 3) is None
    study = tiny(tmp_path).run(n_jobs=10**9)
    assert study.results()["status"].tolist() == ["ok"]


def test_the_stale_claim_time_has_one_definition():
    defaults = [
        inspect.signature(f).parameters["stale_after"].default
        for f in (Study.run, Storage.claim, _claims.claim, run_cells)
    ]
    run = build_parser().parse_args(["run", "x.py"])
    assert defaults == [STALE_AFTER_S] * 4 and run.stale_after == STALE_AFTER_S == 300.0


def test_damaged_json_in_the_database_is_one_clear_sentence(stored, tmp_path, capsys):
    study, db = stored
    copy = tmp_path / "damaged.db"
    copy.write_bytes(db.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE cells SET best_params = '{\"C\": }'")
    url = f"sqlite:///{copy}"
    with pytest.raises(ValueError, match="a stored best_params is not JSON.*restore it from a"):
        study.results(storage=url)
    assert main(["report", "--storage", url, "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmtune report: error: the study database cannot be read")
    assert "restore it from a copy" in err and "Traceback" not in err


@pytest.mark.parametrize("read_only", [True, False])
def test_a_lost_traces_table_is_named(stored, tmp_path, read_only):
    _, db = stored
    copy = tmp_path / "lost.db"
    copy.write_bytes(db.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("DROP TABLE traces")
    with pytest.raises(ValueError, match=r"has no traces table \(it has studies, cells\)"):
        Storage(f"sqlite:///{copy}", read_only=read_only)


def test_a_report_of_a_study_with_a_lost_table_says_so(stored, tmp_path, capsys):
    _, db = stored
    copy = tmp_path / "lost.db"
    copy.write_bytes(db.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("DROP TABLE traces")
    assert main(["report", "--storage", f"sqlite:///{copy}", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no traces table" in err and "Left out: nothing" not in err


def test_write_report_refuses_methods_naming_none_of_the_results(stored, tmp_path):
    study, _ = stored
    results, traces = study.results(), study.traces()
    with pytest.raises(ValueError, match=r"methods \['nope'\] name none of the methods.*\['g'\]"):
        write_report(results, traces, tmp_path / "r", methods=["nope"])
    with pytest.raises(ValueError, match=r"repeated: \['g'\]"):
        write_report(results, traces, tmp_path / "r", methods=["g", "g"])
    assert not (tmp_path / "r").exists()


def test_a_sqlite_url_deep_in_missing_folders_makes_no_folder(tmp_path):
    url = f"sqlite:///{tmp_path / 'missing' / 'dir' / 'x.db'}"
    with pytest.raises(ValueError, match=r"the folder '.*missing' does not exist"):
        Storage(url)
    assert not (tmp_path / "missing").exists()
    Storage(f"sqlite:///{tmp_path / 'results' / 'x.db'}").close()  # one level: the default's
    assert (tmp_path / "results" / "x.db").is_file()
