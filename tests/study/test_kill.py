"""A study killed with SIGKILL part-way resumes and ends with exactly the uninterrupted results."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pandas as pd
import psutil
import pytest

from svmtune.study import load_study

from ._toys import stable

STUDY_FILE = textwrap.dedent(
    '''
    """A study whose cells take a moment (an objective defined here, slowed down)."""
    import os
    import time

    from svmtune.kernels import RBF
    from svmtune.objectives import BoundObjective, LOOEstimate, Objective, Outcome
    from svmtune.study import Method, Study
    from svmtune.tuners import Grid


    class Slow(Objective):
        """LOOEstimate, slowed down by KILLME_SECONDS per evaluation (not an option: the
        slowed and the plain run are the same method)."""

        def __init__(self, *, model):
            self.model = model

        def _bind(self, X, y, kernel, space):
            inner = LOOEstimate(model=self.model).bind(X, y, kernel=kernel)
            return SlowBound(self, X, y, kernel, space, inner)


    class SlowBound(BoundObjective):
        def __init__(self, objective, X, y, kernel, space, inner):
            super().__init__(objective, X, y, kernel, space)
            self.inner = inner

        def _evaluate(self, params):
            time.sleep(SECONDS)
            ev = self.inner.evaluate(params)
            return Outcome(ev.value, ev.cost.kernel_evals)

        def classifier(self, params):
            return self.inner.classifier(params)


    SECONDS = float(os.environ.get("KILLME_SECONDS", "0"))

    study = Study(
        "killme",
        datasets=["heart", "sonar"],
        split="fischetti",
        n_splits=3,
        seed=11,
        methods={
            "slow-LOO2": Method(Slow(model="loo2"), Grid(n_points=3), RBF()),
            "slow-LOO3": Method(Slow(model="loo3"), Grid(n_points=3), RBF()),
        },
    )
    '''
)
N_CELLS = 12


def count_cells(db) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            query = "SELECT COUNT(*) FROM cells WHERE status != 'running'"
            return int(conn.execute(query).fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_part_way_then_resume_gives_every_cell_once_with_the_same_values(tmp_path):
    """The killed run is slowed down (0.25 s per evaluation) so that the kill lands part-way;
    the resume and the reference run are not (the values do not depend on the sleep)."""
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "killed.db"
    url = f"sqlite:///{db}"
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", url]
    cmd += ["--n-jobs", "2", "--no-progress", "--format", "png", "--output", str(tmp_path / "out")]
    env = {**os.environ, "KILLME_SECONDS": "0.25"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while count_cells(db) < 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the study wrote no cells"
            time.sleep(0.02)
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 2  # the loky workers (and loky's resource tracker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        # the workers notice their parent is gone and exit (instead of idling for minutes)
        _gone, alive = psutil.wait_procs(children, timeout=20)
        assert alive == [], [(p.pid, p.name()) for p in alive]
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
    study.run(n_jobs=2, storage=url, progress=lambda *a: calls.append(a))
    assert len(calls) == N_CELLS - n_killed  # only the missing cells ran

    with sqlite3.connect(db) as conn:
        counts = conn.execute(
            "SELECT dataset, split, method, COUNT(*) FROM cells GROUP BY dataset, split, method"
        ).fetchall()
        n_trace = conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0]
    assert len(counts) == N_CELLS and all(c[3] == 1 for c in counts)
    assert n_trace == 3 * N_CELLS  # no half-written trace

    resumed = stable(study.results(storage=url))
    reference = load_study(path).run(n_jobs=2, storage=f"sqlite:///{tmp_path / 'ref.db'}")
    pd.testing.assert_frame_equal(resumed, stable(reference.results()))
    # the cells stored before the kill were not touched by the resume
    merged = before.merge(resumed, on=["dataset", "split", "method"], suffixes=("", "_after"))
    assert len(merged) == n_killed
    assert (merged["test_error"] == merged["test_error_after"]).all()


def _default_sigint() -> None:
    """Ctrl-C's default action in the child, as in a terminal. A shell without job control
    starts a background command (``pytest &``) with SIGINT ignored, its children inherit that,
    and Python then installs no KeyboardInterrupt handler: the run would ignore the signal and
    finish."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group is POSIX")
def test_ctrl_c_gives_back_the_claims_and_leaves_the_cells_in_the_db_file(tmp_path):
    import shutil

    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "int.db"
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", f"sqlite:///{db}"]
    cmd += ["--n-jobs", "1", "--no-progress", "--format", "png", "--output", str(tmp_path / "out")]
    env = {**os.environ, "KILLME_SECONDS": "0.25"}
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 120
        while count_cells(db) < 1:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1].decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "Traceback" not in err
    alone = tmp_path / "copy" / "alone.db"
    alone.parent.mkdir()
    shutil.copy(db, alone)  # the .db file alone, without -wal/-shm
    with sqlite3.connect(alone) as conn:
        statuses = [r[0] for r in conn.execute("SELECT status FROM cells")]
    assert statuses and set(statuses) == {"ok"}  # stored cells, no claim left behind
    assert len(statuses) == count_cells(db) < N_CELLS


def _session(sid: int) -> list[psutil.Process]:
    """The live processes of session ``sid`` (a killed run's workers keep its session)."""
    out = []
    for p in psutil.process_iter(["pid"]):
        try:
            if os.getsid(p.pid) == sid and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except (ProcessLookupError, psutil.Error, PermissionError):
            continue
    return out


def _workers(pid: int) -> int:
    """How many loky worker processes (not its resource tracker) ``pid`` has started."""
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return 0
    n = 0
    for k in kids:
        try:
            n += "popen_loky" in " ".join(k.cmdline())
        except psutil.Error:
            pass
    return n


def _report_started(out) -> bool:
    return out.exists() and any(out.iterdir())


@pytest.mark.skipif(sys.platform != "linux", reason="sessions and SIGKILL as on Linux")
@pytest.mark.parametrize(
    "moment, delay",
    [("start-up", 0.0), ("start-up", 0.3), ("start-up", 1.0), ("cells", 0.0), ("report", 0.0)],
)
def test_sigkill_at_any_moment_leaves_no_worker_behind(tmp_path, moment, delay):
    """``svmtune run --n-jobs 2`` killed (SIGKILL) ``delay`` seconds after its first worker
    process starts, while its workers run cells, or while it writes the report: every process it
    started (loky workers, resource trackers) is gone within 10 s. The run gets a session of
    its own, so that a worker it started a moment before the kill is counted too. (Before,
    workers killed at start-up idled on for minutes.)"""
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "killed.db"
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", f"sqlite:///{db}"]
    cmd += ["--n-jobs", "2", "--no-progress", "--output", str(out)]
    env = {**os.environ, "KILLME_SECONDS": "0.25" if moment == "cells" else "0"}
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    ready = {
        "start-up": lambda: _workers(proc.pid) >= 1,  # the first worker is starting
        "cells": lambda: count_cells(db) >= 2,
        "report": lambda: _report_started(out),
    }[moment]
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert proc.poll() is None, f"the run ended before the {moment} kill"
            assert time.monotonic() < deadline, f"no {moment} moment within 120 s"
            time.sleep(0.005)
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        killed_at = time.monotonic()
        left = _session(proc.pid)
        while left and time.monotonic() - killed_at < 10.0:
            time.sleep(0.1)
            left = _session(proc.pid)
        assert left == [], [(p.pid, " ".join(p.cmdline())[:120]) for p in left]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in _session(proc.pid):  # never leave the machine littered, even on failure
            try:
                p.kill()
            except psutil.Error:
                pass
