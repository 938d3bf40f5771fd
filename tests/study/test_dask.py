"""The same study on a dask.distributed cluster (two worker processes) gives the same results."""

from __future__ import annotations

import textwrap

import distributed  # in the test extra: a missing install must fail, not skip
import pandas as pd

from svmtune.cli import main
from svmtune.study import load_study

from ._toys import stable

# The data set and the split are defined in the study file: they reach the workers by value.
STUDY_FILE = textwrap.dedent(
    """
    import numpy as np

    from svmtune.kernels import RBF
    from svmtune.objectives import LOOEstimate
    from svmtune.study import Method, Study
    from svmtune.tuners import Bisection, Grid


    def rings():
        rng = np.random.default_rng(5)
        r = np.r_[rng.uniform(0, 1, 60), rng.uniform(1.5, 2.5, 60)]
        t = rng.uniform(0, 2 * np.pi, 120)
        X = np.c_[r * np.cos(t), r * np.sin(t)]
        return X, np.repeat([-1.0, 1.0], 60)


    def thirds(X, y, seed):
        idx = np.random.default_rng(seed).permutation(len(y))
        return X[idx[40:]], y[idx[40:]], X[idx[:40]], y[idx[:40]]


    study = Study(
        "on-dask",
        datasets=[rings],
        split=thirds,
        n_splits=2,
        methods={
            "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
            "LOO3+grid": Method(LOOEstimate(model="loo3"), Grid(n_points=4), RBF()),
        },
    )
    """
)


def test_a_study_runs_on_a_local_dask_cluster_through_the_cli(tmp_path, capsys):
    path = tmp_path / "on_dask.py"
    path.write_text(STUDY_FILE)
    url = f"sqlite:///{tmp_path / 'dask.db'}"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        code = main(
            [
                "run",
                str(path),
                "--storage",
                url,
                "--scheduler",
                cluster.scheduler_address,
                "--no-progress",
                "--output",
                str(tmp_path / "out"),
            ]
        )
        assert code == 0, capsys.readouterr().err
        assert cluster.scheduler.transition_counter > 0  # the cells went through the scheduler
    on_dask = load_study(path).results(storage=url)
    assert len(on_dask) == 4 and (on_dask["status"] == "ok").all()
    local = load_study(path).run(storage=f"sqlite:///{tmp_path / 'local.db'}").results()
    pd.testing.assert_frame_equal(stable(on_dask), stable(local))


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "on_dask.py"
    path.write_text(STUDY_FILE)
    code = main(
        [
            "run",
            str(path),
            "--storage",
            f"sqlite:///{tmp_path / 'x.db'}",
            "--scheduler",
            "tcp://127.0.0.1:1",
            "--connect-timeout",
            "1",
        ]
    )
    assert code == 2
    assert "cannot reach the dask scheduler 'tcp://127.0.0.1:1'" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()
