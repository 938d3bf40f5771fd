"""Bad study definitions and storages fail with a clear error before any cell runs."""

from __future__ import annotations

import pytest

from svmtune.kernels import RBF, Linear
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Bisection, Grid

from ._toys import blobs, halves

GOOD = {"LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF())}


def make(tmp_path, **kw) -> Study:
    opts = dict(
        datasets=["heart"],
        split="fischetti",
        n_splits=1,
        methods=GOOD,
        storage=f"sqlite:///{tmp_path / 'v.db'}",
    )
    opts.update(kw)
    return Study("v", **opts)


def ran_nothing(tmp_path) -> bool:
    return not (tmp_path / "v.db").exists()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"datasets": ["heart", "no-such-data"]}, r"unknown data set 'no-such-data'.*sonar"),
        ({"datasets": [42]}, "must be a bundled name, a file path, a callable"),
        ({"datasets": []}, "at least one data set"),
        ({"datasets": "heart"}, "must be a list"),
        ({"datasets": [blobs, blobs]}, "unique; repeated: \\['blobs'\\]"),
        ({"split": "kfold"}, "unknown split protocol 'kfold'"),
        ({"split": "ratsch", "datasets": ["sonar"]}, "no Ratsch protocol for data set 'sonar'"),
        ({"split": "ratsch", "datasets": [blobs]}, "needs bundled data sets"),
        ({"n_splits": 0}, "n_splits must be a positive integer; got 0"),
        ({"seed": -1}, "seed must be a non-negative integer; got -1"),
        ({"test_size": 1.5}, "test_size must be in \\(0, 1\\); got 1.5"),
        ({"max_seconds": 0}, "max_seconds must be a positive number; got 0"),
        ({"methods": {}}, "non-empty dict"),
        ({"methods": {"x": (LOOEstimate(), Grid(), RBF())}}, "method 'x' must be a svmtune"),
        (
            {"methods": {"bad": Method(LOOEstimate(model="loo9"), Grid(), RBF())}},
            "method 'bad' cannot run: unknown LOO model 'loo9'",
        ),
        (
            # Bisection over gamma, but the linear kernel has no gamma
            {"methods": {"lin": Method(LOOEstimate(), Bisection(), Linear())}},
            "method 'lin' cannot run: Bisection param 'gamma' is not in the search space \\[\\]",
        ),
        (
            {"methods": {"b": Method(LOOEstimate(), Grid(max_evals=0), RBF())}},
            "method 'b' cannot run: max_evals must be a positive integer; got 0",
        ),
        (
            {"methods": {"o": Method("loo2", Grid(), RBF())}},
            "method 'o' cannot run: objective must be a svmtune Objective",
        ),
    ],
)
def test_bad_definitions_fail_before_any_cell_runs(tmp_path, kw, match):
    with pytest.raises(ValueError, match=match):
        make(tmp_path, **kw).run()  # data sets fail at construction, the rest at run
    assert ran_nothing(tmp_path)


def test_bad_study_name(tmp_path):
    with pytest.raises(ValueError, match="study name must be"):
        Study("has space", datasets=["heart"], methods=GOOD).validate()


@pytest.mark.parametrize(
    ("url", "match"),
    [
        ("not a url", "cannot open storage 'not a url'"),
        ("nosuchdb://host/x", "cannot open storage 'nosuchdb://host/x'"),
        ("sqlite:////proc/no/such/dir/x.db", "cannot open storage 'sqlite:////proc/no/such"),
        (
            "postgresql://user:secret@127.0.0.1:1/x",
            "cannot open storage 'postgresql://user:\\*\\*\\*",
        ),
    ],
)
def test_a_storage_that_cannot_be_opened_fails_before_any_cell_runs(tmp_path, url, match):
    calls = []
    study = make(tmp_path, storage=url, datasets=[blobs], split=halves)
    with pytest.raises(ValueError, match=match):
        study.run(progress=lambda *a: calls.append(a))
    assert calls == []


def test_a_changed_seed_is_refused_on_the_same_storage(tmp_path):
    make(tmp_path, datasets=[blobs], split=halves).run()
    with pytest.raises(ValueError, match="was run with seed 0; this definition has seed 1"):
        make(tmp_path, datasets=[blobs], split=halves, seed=1).run()
    with pytest.raises(ValueError, match="was run with split='halves'"):
        make(tmp_path, datasets=[blobs], split="holdout").run()


def test_an_unpicklable_data_set_fails_before_any_cell_runs(tmp_path):
    import threading

    lock = threading.Lock()

    def locked():
        with lock:
            return blobs()

    study = make(tmp_path, datasets=[locked], split=halves)
    with pytest.raises(ValueError, match="cannot send cell locked/0/LOO2\\+grid to a worker"):
        study.run()
    assert ran_nothing(tmp_path)
