"""PeerMethod: scikit-learn searches as study methods, checked against fitting them by hand."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest
from joblib.parallel import get_active_backend
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV
from sklearn.svm import SVC

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, PeerMethod, Study, load_study
from svmtune.study.run._data import resolve_datasets
from svmtune.tuners import Bisection

from ._toys import blobs, halves, stable
from .test_kill import count_cells

GRID = {"C": [1.0, 10.0], "gamma": [0.1, 1.0]}


def _shared_folds(study: Study, split: int, ytr, k: int):
    """The study's shared folds of a split: stratified, shuffled from the split's seed."""
    from svmtune.datasets import stratified_kfold
    from svmtune.study import split_seed
    from svmtune.study.run._folds import fold_seed

    (spec,) = resolve_datasets(study.datasets)
    return stratified_kfold(ytr, k, fold_seed(split_seed(study.seed, spec.name, split)))


def _split(study: Study, split: int):
    from svmtune.study import split_seed

    (spec,) = resolve_datasets(study.datasets)
    return spec.split(
        study.split, split, split_seed(study.seed, spec.name, split), test_size=study.test_size
    )


def test_peer_cells_record_what_the_search_found_by_hand() -> None:
    study = Study(
        "peer-hand",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        storage="sqlite://",
        methods={
            "grid": PeerMethod(GridSearchCV(SVC(), GRID, cv=3)),
            "random": PeerMethod(
                RandomizedSearchCV(SVC(), {"C": loguniform(0.1, 100)}, n_iter=3, cv=3)
            ),
            "loo2": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
        },
    ).run()
    res = study.results().set_index(["split", "method"])
    traces = study.traces()
    assert (res["status"] == "ok").all()
    for split in range(2):
        Xtr, ytr, Xte, yte = _split(study, split)
        folds = _shared_folds(study, split, ytr, 3)  # what every k-fold method of the split gets
        grid = GridSearchCV(SVC(), GRID, cv=folds).fit(Xtr, ytr)
        row = res.loc[(split, "grid")]
        assert row["best_params"] == grid.best_params_
        assert row["test_error"] == np.mean(grid.predict(Xte) != yte)
        assert row["objective_value"] == pytest.approx(1 - grid.best_score_)
        assert row["n_evaluations"] == 4 * 3 + 1  # 4 candidates x 3 folds + the refit
        tr = traces[(traces["split"] == split) & (traces["method"] == "grid")]
        np.testing.assert_allclose(tr["value"], 1 - grid.cv_results_["mean_test_score"])
        assert tr["cum_cpu_s"].iloc[-1] == pytest.approx(row["cpu_s"])
        # a RandomizedSearchCV left with random_state=None is seeded with the cell's seed
        seed = int(res.loc[(split, "random")]["seed"])
        rand = RandomizedSearchCV(
            SVC(), {"C": loguniform(0.1, 100)}, n_iter=3, cv=folds, random_state=seed
        ).fit(Xtr, ytr)
        assert res.loc[(split, "random")]["best_params"] == rand.best_params_
        assert res.loc[(split, "random")]["n_evaluations"] == 3 * 3 + 1
    assert (res["cpu_s"] > 0).all()


class _Recorder(ClassifierMixin, BaseEstimator):
    """Remembers the joblib backend active during fit (a peer must not start workers)."""

    def __init__(self, *, n_jobs=None) -> None:
        self.n_jobs = n_jobs

    def fit(self, X, y):
        self.backend_ = type(get_active_backend()[0]).__name__
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_a_peer_fits_in_the_cell_process_and_asking_for_workers_is_refused() -> None:
    from svmtune.study.run._peer import fit_peer

    X, y = blobs()
    peer = PeerMethod(_Recorder())
    out = fit_peer(peer, X, y, X, y, seed=0)
    assert out.n_fits == 1 and out.best_params is None and np.isnan(out.objective_value)
    recorded = []

    class Spy(_Recorder):
        def fit(self, X, y):
            recorded.append(type(get_active_backend()[0]).__name__)
            return super().fit(X, y)

    fit_peer(PeerMethod(Spy()), X, y, X, y, seed=0)
    assert recorded == ["SequentialBackend"]

    for bad, name in [
        (GridSearchCV(SVC(), GRID, n_jobs=2), "n_jobs=2"),
        (GridSearchCV(_Recorder(n_jobs=-1), {"n_jobs": [-1]}), "estimator__n_jobs=-1"),
    ]:
        study = Study("bad", datasets=[blobs], methods={"p": PeerMethod(bad)}, storage="sqlite://")
        with pytest.raises(ValueError, match=f"method 'p' cannot run: .*{name}.*unbilled"):
            study.validate()


@pytest.mark.parametrize("bad", [SVC, "GridSearchCV", object(), np.zeros(3)])
def test_a_peer_that_is_not_an_estimator_is_refused_naming_it(bad) -> None:
    study = Study("bad", datasets=[blobs], methods={"p": PeerMethod(bad)}, storage="sqlite://")
    with pytest.raises(ValueError, match="PeerMethod needs a scikit-learn estimator instance"):
        study.validate()


def test_describe_records_the_complete_parameters_stably() -> None:
    a = PeerMethod(RandomizedSearchCV(SVC(), {"C": loguniform(0.1, 100)}, n_iter=3))
    b = PeerMethod(RandomizedSearchCV(SVC(), {"C": loguniform(0.1, 100)}, n_iter=3))
    c = PeerMethod(RandomizedSearchCV(SVC(), {"C": loguniform(0.1, 1000)}, n_iter=3))
    assert a.describe() == b.describe() and a == b
    assert a.describe() != c.describe()
    params = a.describe()["params"]
    assert params["estimator__C"] == 1.0 and params["n_iter"] == 3
    assert params["param_distributions"]["C"] == {
        "distribution": "loguniform",
        "args": [0.1, 100],
        "kwds": {},
    }


STUDY_FILE = textwrap.dedent(
    '''
    """A study of peers whose fits take a moment (a slowed-down SVC defined here)."""
    import os
    import time

    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    from svmtune.study import PeerMethod, Study

    SECONDS = float(os.environ.get("KILLME_SECONDS", "0"))


    class SlowSVC(SVC):
        def fit(self, X, y, sample_weight=None):
            time.sleep(SECONDS)
            return super().fit(X, y, sample_weight=sample_weight)


    study = Study(
        "killpeers",
        datasets=["heart", "sonar"],
        split="fischetti",
        n_splits=2,
        seed=5,
        methods={
            "grid": PeerMethod(GridSearchCV(SlowSVC(), {"C": [1.0, 10.0]}, cv=2)),
            "grid-gamma": PeerMethod(GridSearchCV(SlowSVC(), {"gamma": [0.01, 0.1]}, cv=2)),
        },
    )
    '''
)
N_CELLS = 8


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_peer_cells_resume_after_sigkill_with_the_same_values(tmp_path) -> None:
    path = tmp_path / "killpeers.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "killed.db"
    url = f"sqlite:///{db}"
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", url]
    cmd += ["--n-jobs", "2", "--no-progress", "--format", "png", "--output", str(tmp_path / "out")]
    env = {**os.environ, "KILLME_SECONDS": "0.1"}  # 5 fits per cell: about 0.5 s
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while count_cells(db) < 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the study wrote no cells"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    n_killed = count_cells(db)
    assert 2 <= n_killed < N_CELLS, "the kill should land part-way"

    study = load_study(path)
    before = stable(study.results(storage=url))
    calls = []
    study.run(n_jobs=1, storage=url, progress=lambda *a: calls.append(a))
    assert len(calls) == N_CELLS - n_killed  # only the missing cells ran

    with sqlite3.connect(db) as conn:
        counts = conn.execute(
            "SELECT dataset, split, method, COUNT(*) FROM cells GROUP BY dataset, split, method"
        ).fetchall()
        n_trace = conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0]
    assert len(counts) == N_CELLS and all(c[3] == 1 for c in counts)
    assert n_trace == 2 * N_CELLS  # two candidates per search, no half-written trace

    resumed = stable(study.results(storage=url))
    reference = load_study(path).run(n_jobs=1, storage=f"sqlite:///{tmp_path / 'ref.db'}")
    pd.testing.assert_frame_equal(resumed, stable(reference.results()))
    merged = before.merge(resumed, on=["dataset", "split", "method"], suffixes=("", "_after"))
    assert len(merged) == n_killed
    assert (merged["test_error"] == merged["test_error_after"]).all()
    assert set(resumed["n_evaluations"]) == {2 * 2 + 1}


class _Slow(_Recorder):
    def fit(self, X, y):
        time.sleep(0.05)
        return super().fit(X, y)


def test_a_peer_that_overruns_the_cell_limit_is_stored_as_timeout_with_its_values() -> None:
    study = Study(
        "peer-timeout",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        max_seconds=0.01,
        storage="sqlite://",
        methods={"slow": PeerMethod(_Slow())},
    ).run()
    row = study.results().iloc[0]
    assert row["status"] == "timeout"
    assert "cannot be stopped part-way" in row["error"]
    assert 0 <= row["test_error"] <= 1 and row["n_evaluations"] == 1


@pytest.mark.filterwarnings("ignore:OptunaSearchCV is experimental")
@pytest.mark.filterwarnings("ignore:`optuna.terminator` module has been deprecated")
def test_an_optuna_peer_fits_without_a_log_line_per_trial(capfd) -> None:
    # OptunaSearchCV logs one INFO line a trial; in a cell (a worker process, where the study
    # file's set_verbosity never ran) the fit is quiet, and the verbosity is restored after.
    optuna = pytest.importorskip("optuna")
    integration = pytest.importorskip("optuna_integration")
    from optuna.distributions import FloatDistribution

    from svmtune.study.run._peer import fit_peer

    X, y = blobs()
    search = integration.OptunaSearchCV(
        SVC(),
        {"C": FloatDistribution(0.1, 10.0, log=True)},
        n_trials=3,
        cv=3,
        n_jobs=1,
    )
    optuna.logging.set_verbosity(optuna.logging.INFO)
    try:
        out = fit_peer(PeerMethod(search), X, y, X, y, seed=0)
        assert optuna.logging.get_verbosity() == optuna.logging.INFO
    finally:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    assert 0.0 <= out.test_error <= 1.0
    assert "Trial 0 finished" not in capfd.readouterr().err
