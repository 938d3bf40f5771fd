"""The same study on a real dask.distributed cluster (`dask scheduler` and two `dask worker`
processes on loopback) gives the same results, also when a worker dies mid-study."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time

import distributed  # noqa: F401 - in the test extra: a missing install must fail, not skip
import pandas as pd
import pytest

from svmtune.cli import main
from svmtune.study import load_study

from ._toys import stable
from .test_kill import N_CELLS, count_cells
from .test_kill import STUDY_FILE as KILL_STUDY

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


def test_a_study_runs_on_a_dask_cluster_through_the_cli(tmp_path, capsys, dask_cluster):
    """A `dask scheduler` and two `dask worker` processes on loopback, as on a real cluster."""
    path = tmp_path / "on_dask.py"
    path.write_text(STUDY_FILE)
    url = f"sqlite:///{tmp_path / 'dask.db'}"
    args = ["run", str(path), "--storage", url, "--scheduler", dask_cluster.address]
    code = main([*args, "--no-progress", "--format", "png", "--output", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    on_dask = load_study(path).results(storage=url)
    assert len(on_dask) == 4 and (on_dask["status"] == "ok").all()
    assert set(on_dask["host"]) == {socket.gethostname()}
    local = load_study(path).run(storage=f"sqlite:///{tmp_path / 'local.db'}").results()
    pd.testing.assert_frame_equal(stable(on_dask), stable(local))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_dask_worker_killed_mid_study_loses_and_duplicates_no_cell(
    tmp_path, dask_cluster, reference
):
    path = tmp_path / "killme.py"
    path.write_text(KILL_STUDY)
    db = tmp_path / "dask.db"
    url = f"sqlite:///{db}"
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", url]
    cmd += ["--scheduler", dask_cluster.address, "--no-progress", "--format", "png"]
    cmd += ["--output", str(tmp_path / "o")]
    env = {**os.environ, "KILLME_SECONDS": "0.25"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    victim = dask_cluster.workers[0]
    try:
        deadline = time.monotonic() + 300
        while count_cells(db) < 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the study wrote no cells"
            time.sleep(0.02)
        os.kill(victim.pid, signal.SIGKILL)  # mid-cell: both workers are busy until the end
        victim.wait(timeout=30)
        err = proc.communicate(timeout=300)[1].decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert victim.returncode == -signal.SIGKILL
    assert proc.returncode == 0, err[-3000:]
    with sqlite3.connect(db) as conn:
        counts = conn.execute(
            "SELECT status, COUNT(*) FROM cells GROUP BY dataset, split, method"
        ).fetchall()
        n_trace = conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0]
    assert len(counts) == N_CELLS and all(c == ("ok", 1) for c in counts)
    assert n_trace == 3 * N_CELLS
    assert dask_cluster.n_workers() == 1  # the cells of the dead worker ran on the other
    pd.testing.assert_frame_equal(stable(load_study(path).results(storage=url)), reference)


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
        ]
    )
    assert code == 2
    assert "cannot reach the dask scheduler 'tcp://127.0.0.1:1'" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()
