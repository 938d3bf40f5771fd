"""Workers on a real PostgreSQL server (and the same on SQLite where it applies): every cell
computed once, a killed worker's claim taken over, a claim storm without double claims, and
clear errors for a database that cannot be used."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from svmtune.cli import main
from svmtune.study import load_study

from ._run_cmd import run_cmd
from ._toys import stable
from .test_kill import N_CELLS, STUDY_FILE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes and signals")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    return request.getfixturevalue("postgres_url")


def cell_rows(url: str) -> list[tuple]:
    """(dataset, split, method, status, worker, host, n rows) of every cell key."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table("cells"):
                return []
            return [
                tuple(r)
                for r in conn.exec_driver_sql(
                    "SELECT dataset, split, method, MIN(status), MIN(worker), MIN(host), COUNT(*) "
                    "FROM cells GROUP BY dataset, split, method"
                )
            ]
    except sa.exc.OperationalError:  # a SQLite file being created
        return []
    finally:
        engine.dispose()


def n_traces(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT COUNT(*) FROM traces").scalar_one())
    finally:
        engine.dispose()


def _finished_once(url: str) -> None:
    rows = cell_rows(url)
    assert len(rows) == N_CELLS
    assert all(r[3] == "ok" and r[6] == 1 for r in rows), rows
    assert n_traces(url) == 3 * N_CELLS  # each cell's 3 evaluations, once


def test_four_worker_processes_on_postgres_compute_every_cell_once(
    tmp_path, postgres_url, reference
):
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    env = {**os.environ, "KILLME_SECONDS": "0.05"}
    procs = [
        subprocess.Popen(
            run_cmd(path, postgres_url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1].decode()[-2000:] for o in outs]
    _finished_once(postgres_url)
    # every worker waited for the others' last cells: each printed the complete table
    for out, _err in outs:
        assert f"{N_CELLS} cells stored" in out.decode() and "partial" not in out.decode()
    results = stable(load_study(path).results(storage=postgres_url))
    pd.testing.assert_frame_equal(results, reference)


def _unshare_ok() -> bool:
    try:
        cmd = ["unshare", "--uts", "sh", "-c", "hostname svmtune-elsewhere"]
        return subprocess.run(cmd, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_a_worker_killed_on_another_host_has_its_claim_taken_over_after_stale_after(
    tmp_path, db_url, reference
):
    """The victim runs under another host name (its own UTS namespace; without `unshare`, its
    worker ids say another host through SVMTUNE_WORKER_HOST), as a worker on another machine
    does: its dead claim is not recognised by process id, only by its stale heartbeat."""
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    env = {**os.environ, "KILLME_SECONDS": "0.25"}
    args = run_cmd(path, db_url, "--stale-after", "3")
    if _unshare_ok():
        victim_cmd = ["unshare", "--uts", "sh", "-c", 'hostname svmtune-elsewhere && exec "$@"']
        victim_cmd, victim_env = [*victim_cmd, "-", *args], env
    else:
        victim_cmd, victim_env = args, {**env, "SVMTUNE_WORKER_HOST": "svmtune-elsewhere"}
    victim = subprocess.Popen(
        victim_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=victim_env
    )
    survivor = None
    try:
        deadline = time.monotonic() + 300
        while not any(r[3] == "ok" for r in cell_rows(db_url)):  # the victim is under way
            assert victim.poll() is None, victim.stderr.read().decode()
            assert time.monotonic() < deadline, "the victim stored no cell"
            time.sleep(0.05)
        survivor = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        while not [r for r in cell_rows(db_url) if r[3] == "running" and "elsewhere" in r[4]]:
            assert victim.poll() is None, "the victim finished before the kill"
            time.sleep(0.02)  # wait for a claim of the victim's, mid-cell
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
        held = {r[:3] for r in cell_rows(db_url) if r[3] == "running" and "elsewhere" in r[4]}
        out, err = survivor.communicate(timeout=300)
    finally:
        for p in (victim, survivor):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        victim.stderr.close()
    assert victim.returncode == -signal.SIGKILL
    assert survivor.returncode == 0, err.decode()[-2000:]
    assert held, "the kill should land while the victim holds a claim"
    _finished_once(db_url)
    rows = {r[:3]: r for r in cell_rows(db_url)}
    for key in held:  # the survivor computed the victim's cell once its claim went stale
        assert rows[key][5] == socket.gethostname()
    assert f"{N_CELLS} cells stored" in out.decode()
    pd.testing.assert_frame_equal(stable(load_study(path).results(storage=db_url)), reference)


STORM = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from svmtune.study import CellKey
    from svmtune.study import Storage
    from svmtune.study.store._claims import new_worker_id
    from svmtune.study.run._runner import claim_cells

    url, sid, n, go, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    store = Storage(url)
    worker = new_worker_id()
    keys = [CellKey("storm", i, "zero") for i in range(n)]
    Path(out + ".ready").touch()
    while not Path(go).exists():
        time.sleep(0.005)
    won = [k.split for k in claim_cells(store, sid, "storm", keys, worker)]
    Path(out).write_text(json.dumps({"won": won, "t": time.time()}))
    store.close()
    """
)


def claim_storm(url: str, directory: Path, n_procs: int, n_cells: int) -> tuple[list, float]:
    """``n_procs`` processes claim the same ``n_cells`` zero-cost cells, in the same order, at
    once, as workers do (:func:`~svmtune.study.run._runner.claim_cells`): the cells each won, and
    the cells claimed per second (first claim to last)."""
    from svmtune.study import Storage

    store = Storage(url)
    sid = store.register_study("storm", 0, {})
    store.close()
    script = directory / "storm.py"
    script.write_text(STORM)
    go = directory / "go"
    outs = [directory / f"won{i}.json" for i in range(n_procs)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), url, str(sid), str(n_cells), str(go), str(o)],
            stderr=subprocess.PIPE,
        )
        for o in outs
    ]
    try:
        deadline = time.monotonic() + 300
        while not all(Path(str(o) + ".ready").exists() for o in outs):
            assert all(p.poll() is None for p in procs), [p.stderr.read() for p in procs]
            assert time.monotonic() < deadline
            time.sleep(0.02)
        t0 = time.time()
        go.touch()
        errs = [p.communicate(timeout=300)[1].decode() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [p.returncode for p in procs] == [0] * n_procs, errs
    done = [json.loads(o.read_text()) for o in outs]
    return [d["won"] for d in done], n_cells / (max(d["t"] for d in done) - t0)


def test_a_claim_storm_claims_every_cell_exactly_once(tmp_path, db_url, capsys):
    """16 processes (4 on SQLite, whose writers queue for one lock) race for every cell."""
    pg = db_url.startswith("postgresql")
    n_procs, n_cells = (16, 1000) if pg else (4, 1000)
    won, rate = claim_storm(db_url, tmp_path, n_procs=n_procs, n_cells=n_cells)
    everything = sorted(s for w in won for s in w)
    assert everything == list(range(n_cells))  # each claimed once: no double claim, none lost
    with capsys.disabled():
        print(
            f"\nclaim storm, {n_procs} processes, {db_url.partition(':')[0]}: {rate:.0f} claims/s"
        )


# -- a database that cannot be used: exit 2, a clear message, nothing written ---------------


@pytest.fixture
def quiet_study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "killme.py"
    path.write_text(STUDY_FILE)
    return path


def _nothing_written(tmp_path: Path) -> None:
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killme.py"]


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://svmtune:pw@127.0.0.1:1/db",  # nothing listens
        "postgresql+psycopg://svmtune:pw@10.255.255.1:5432/db",  # no answer: connect timeout
    ],
)
def test_an_unreachable_database_is_a_clear_error(quiet_study, tmp_path, capsys, url):
    assert main(["run", str(quiet_study), "--storage", url, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot open storage 'postgresql+psycopg://svmtune:***@" in err
    assert ":pw@" not in err  # the password is not shown
    _nothing_written(tmp_path)


def test_a_wrong_password_is_a_clear_error(quiet_study, tmp_path, capsys, postgres_url):
    bad = sa.make_url(postgres_url).set(password="not-the-password")
    url = bad.render_as_string(hide_password=False)
    assert main(["run", str(quiet_study), "--storage", url, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot open storage" in err and "password authentication failed" in err
    assert "not-the-password" not in err
    _nothing_written(tmp_path)
    assert cell_rows(postgres_url) == []  # no table created either


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("postgresql+pg8000://u:p@127.0.0.1/db", "'postgresql+pg8000'"),
        ("postgresql+psycopg2://u:p@127.0.0.1/db", "'postgresql+psycopg2'"),
    ],
)
def test_a_missing_driver_names_the_extra_to_install(quiet_study, tmp_path, capsys, url, driver):
    assert main(["run", str(quiet_study), "--storage", url, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"the database driver {driver} is not installed" in err
    assert "pip install 'svmtune[postgres]'" in err and "postgresql+psycopg://" in err
    _nothing_written(tmp_path)


def test_stale_after_must_be_positive(quiet_study, tmp_path, capsys):
    args = ["run", str(quiet_study), "--stale-after", "0", "--no-progress"]
    assert main(args) == 2
    assert "stale_after must be a positive number of seconds; got 0.0" in capsys.readouterr().err
    _nothing_written(tmp_path)
