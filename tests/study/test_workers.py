"""Several processes work one study on one database: claims, heartbeats, takeover."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
import sqlalchemy as sa

from svmtune.study import CellKey, Storage, load_study
from svmtune.study.store._schema import cells_table

from ._run_cmd import run_cmd
from ._toys import stable
from .test_kill import N_CELLS, STUDY_FILE, count_cells
from .test_storage import record

KEY = CellKey("d", 0, "m")


@pytest.fixture
def store(tmp_path):
    s = Storage(f"sqlite:///{tmp_path / 'w.db'}")
    yield s
    s.close()


def test_a_cell_is_claimed_once_and_written_only_by_its_claimant(store):
    sid = store.register_study("st", 0, {})
    assert store.claim(sid, KEY, "host:1:a")
    assert not store.claim(sid, KEY, "host:1:b")  # a live claim: a lost race, not an error
    assert store.finished("st") == {}  # a claim is not a result
    assert len(store.cells("st")) == 0
    assert not store.write_cell(sid, record(), worker="host:1:b")
    assert store.write_cell(sid, record(), worker="host:1:a")
    assert store.finished("st") == {KEY: "ok"}
    assert not store.claim(sid, KEY, "host:1:b")  # stored: nothing to do
    assert len(store.traces("st")) == 2


def test_a_stale_claim_is_taken_over_and_the_old_claimant_cannot_write(store):
    sid = store.register_study("st", 0, {})
    assert store.claim(sid, KEY, "elsewhere:1:a")
    assert not store.claim(sid, KEY, "here:1:b", stale_after=60)
    old = datetime.now(UTC) - timedelta(seconds=120)
    with store.engine.begin() as conn:
        conn.execute(sa.update(cells_table).values(heartbeat=old))
    assert store.claim(sid, KEY, "here:1:b", stale_after=60)
    assert not store.claim(sid, KEY, "here:1:c", stale_after=60)  # b's claim is fresh
    assert not store.write_cell(sid, record(test_error=0.9), worker="elsewhere:1:a")
    assert store.write_cell(sid, record(), worker="here:1:b")
    assert store.cells("st")["test_error"].tolist() == [0.25]


def test_a_claim_of_a_dead_process_on_this_host_is_taken_over_at_once(store):
    import socket

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    sid = store.register_study("st", 0, {})
    assert store.claim(sid, KEY, f"{socket.gethostname()}:{dead.pid}:x")
    assert store.claim(sid, KEY, f"{socket.gethostname()}:{os.getpid()}:y")


def test_heartbeat_renews_and_release_gives_back_the_claims(store):
    sid = store.register_study("st", 0, {})
    assert store.claim(sid, KEY, "w:1:a")
    assert store.claim(sid, CellKey("d", 1, "m"), "w:1:a")
    assert store.running("st") == {KEY: "w:1:a", CellKey("d", 1, "m"): "w:1:a"}
    assert store.heartbeat("w:1:a") == 2
    assert store.release("w:1:a") == 2
    assert store.claim(sid, KEY, "w:1:b")


def test_retry_claims_a_failed_cell_and_replaces_it(store):
    sid = store.register_study("st", 0, {})
    store.write_cell(sid, record(status="failed"))
    assert not store.claim(sid, KEY, "w:1:a")
    assert store.claim(sid, KEY, "w:1:a", redo=("failed",))
    assert store.write_cell(sid, record(), worker="w:1:a")
    assert store.cells("st")["status"].tolist() == ["ok"]


def _start(path, url, env):
    cmd = run_cmd(path, url)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def _cell_counts(db):
    with sqlite3.connect(db) as conn:
        counts = conn.execute(
            "SELECT dataset, split, method, status, COUNT(*) FROM cells "
            "GROUP BY dataset, split, method"
        ).fetchall()
        n_trace = conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0]
    return counts, n_trace


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")
def test_three_processes_on_one_sqlite_file_store_every_cell_once(tmp_path, reference):
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "shared.db"
    url = f"sqlite:///{db}"
    env = {**os.environ, "KILLME_SECONDS": "0.05"}
    procs = [_start(path, url, env) for _ in range(3)]
    errors = [p.communicate(timeout=300)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    counts, n_trace = _cell_counts(db)
    assert len(counts) == N_CELLS and all(c[3] == "ok" and c[4] == 1 for c in counts)
    assert n_trace == 3 * N_CELLS
    results = stable(load_study(path).results(storage=url))
    pd.testing.assert_frame_equal(results, reference)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_one_of_two_workers_the_other_and_a_resume_finish_each_cell_once(tmp_path, reference):
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    db = tmp_path / "shared.db"
    url = f"sqlite:///{db}"
    env = {**os.environ, "KILLME_SECONDS": "0.25"}
    victim, survivor = _start(path, url, env), _start(path, url, env)
    try:
        deadline = time.monotonic() + 120
        while count_cells(db) < 2:
            assert victim.poll() is None, victim.stderr.read().decode()
            assert time.monotonic() < deadline, "the study wrote no cells"
            time.sleep(0.02)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
        err = survivor.communicate(timeout=300)[1].decode()
    finally:
        for p in (victim, survivor):
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()
    assert victim.returncode == -signal.SIGKILL
    assert survivor.returncode == 0, err
    # the survivor took over the victim's claim (its process is gone); a resume has nothing to do
    calls = []
    load_study(path).run(n_jobs=1, storage=url, progress=lambda *a: calls.append(a))
    counts, n_trace = _cell_counts(db)
    assert len(counts) == N_CELLS and all(c[3] == "ok" and c[4] == 1 for c in counts)
    assert n_trace == 3 * N_CELLS
    assert calls == []
    pd.testing.assert_frame_equal(stable(load_study(path).results(storage=url)), reference)


def test_worker_host_names_the_machine_where_host_names_collide(store, monkeypatch):
    """With SVMTUNE_WORKER_HOST set, a claim made under the machine's host name is another
    machine's: a dead process id here says nothing about it (only its heartbeat does)."""
    import socket

    from svmtune.study.store._claims import new_worker_id

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    sid = store.register_study("st", 0, {})
    assert store.claim(sid, KEY, f"{socket.gethostname()}:{dead.pid}:x")
    monkeypatch.setenv("SVMTUNE_WORKER_HOST", "container-7")
    me = new_worker_id()
    assert me.startswith(f"container-7:{os.getpid()}:")
    assert not store.claim(sid, KEY, me)  # not judged by pid: its heartbeat is fresh
    assert store.claim(sid, KEY, me, stale_after=0.0)  # stale: taken over
