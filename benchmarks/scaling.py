"""Scaling a study: fixed costs of a run, the 1 -> 2 process speed-up, and claim throughput.

Each part runs ``svmtune run`` (or claiming workers) as separate processes, as a user would:

- ``rerun``: a rerun of ``studies/quickstart.py`` with every cell stored (median of 3 runs,
  wall and CPU seconds of the whole process and its children): what a run costs when there is
  nothing to compute (imports, the report; the plots are not redrawn).
- ``cold``: the quickstart from scratch on an empty numba cache (``NUMBA_CACHE_DIR``, as in a
  fresh install) minus the same from scratch on the cache it filled: what a first run compiles.
- ``speedup``: the quickstart from scratch with ``--n-jobs 1`` and ``--n-jobs 2``: whole process
  (wall seconds) and cell phase (first cell started to last cell finished, from the database);
  ``--repeat N`` runs N such pairs interleaved and prints the ratio of the medians too.
- ``claims``: 1, 2 and 4 (and 16) processes claim and store 1,000 zero-cost cells of one study
  on a SQLite file, and on PostgreSQL when ``SVMTUNE_POSTGRES_URL`` names a server (its
  maintenance database; a scratch database is created and dropped): cells per second.
- ``tail``: the reduced benchmark (``studies/benchmark.py`` with its first 8 problems x 2 splits
  x its 24 methods = 384 cells, ``SVMTUNE_BENCHMARK_DATASETS=8 SVMTUNE_BENCHMARK_SPLITS=2``) from
  scratch with ``--workers`` processes (default 1 and 2): the cell phase, the serial tail (the
  last cell's end to the report written) and the whole run, in wall seconds and in CPU seconds
  of each process (psutil), the cells' summed CPU; then Amdahl's serial fraction and the
  speed-up it projects at 8, 16 and 64 cores.
- ``startup``: what a fresh worker process spends before its cells are what they cost in a warm
  one, in CPU seconds: its imports, then one cell of each of the reduced benchmark's methods run
  twice (the first time loads the compiled loops from numba's cache and the method's modules);
  the start-up is the imports plus the sum of first-minus-second, and which heavy modules a
  worker that ran only svmtune's own methods has imported.

Wall seconds on a shared machine are noisy: run it on an idle one. It prints; it asserts nothing.

    python benchmarks/scaling.py                      # everything (~7 min on 2 idle cores)
    python benchmarks/scaling.py --parts rerun claims
    python benchmarks/scaling.py --parts speedup --repeat 5   # ~7 min
    python benchmarks/scaling.py --parts tail startup        # ~5 min on 2 idle cores

CPU seconds are what ``tail`` and ``startup`` are meant to be read by: on a machine shared with
other jobs, wall seconds measure the neighbours as much as the study.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import sqlalchemy as sa
from scaling_tail import part_startup, part_tail, tail_child

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "studies" / "quickstart.py"


def timed_run(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None):
    """(wall seconds, CPU seconds of the children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def run_cmd(url: str, out: Path, n_jobs: int = 2) -> list[str]:
    return [
        sys.executable,
        "-m",
        "svmtune.cli",
        "run",
        str(QUICKSTART),
        "--storage",
        url,
        "--n-jobs",
        str(n_jobs),
        "--no-progress",
        "--output",
        str(out),
    ]


def cell_phase(url: str) -> float:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        lo, hi = conn.exec_driver_sql("SELECT MIN(started_at), MAX(finished_at) FROM cells").one()
    engine.dispose()
    from datetime import datetime

    return (datetime.fromisoformat(str(hi)) - datetime.fromisoformat(str(lo))).total_seconds()


def part_rerun(tmp: Path) -> None:
    url = f"sqlite:///{tmp / 'q.db'}"
    timed_run(run_cmd(url, tmp / "out"))  # compute and store every cell once
    runs = [timed_run(run_cmd(url, tmp / "out")) for _ in range(3)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    print(f"stored rerun of the quickstart: {wall:.2f} s wall, {cpu:.2f} s CPU (median of 3)")


def part_cold(tmp: Path, repeat: int = 1) -> None:
    """``repeat`` times: the quickstart from scratch on a new, empty numba cache (as in a fresh
    install: ``NUMBA_CACHE_DIR`` is the only place numba then looks), then from scratch again on
    the cache that run filled; the difference is what the first run compiles."""
    for r in range(repeat):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / f"numba-cache-{r}")}
        runs = [
            timed_run(run_cmd(f"sqlite:///{tmp / f'cold{r}-{k}.db'}", tmp / f"c{r}-{k}"), env=env)
            for k in range(2)
        ]
        (w0, c0), (w1, c1) = runs
        print(
            f"cold start, quickstart from scratch --n-jobs 2: first run (empty numba cache) "
            f"{w0:.1f} s wall ({c0:.1f} CPU s), second (cache filled) {w1:.1f} s ({c1:.1f}): "
            f"{w0 - w1:.1f} s extra ({c0 - c1:.1f} CPU s)"
        )


def part_speedup(tmp: Path, repeat: int = 1) -> None:
    """``repeat`` pairs of runs, one process then two, interleaved (so that a slow spell of a
    shared machine hits both about alike): each pair's speed-up, then the ratio of the medians."""
    runs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for r in range(repeat):
        pair = {}
        for n_jobs in (1, 2):
            url = f"sqlite:///{tmp / f'speed{n_jobs}-{r}.db'}"
            wall, _cpu = timed_run(run_cmd(url, tmp / f"o{n_jobs}-{r}", n_jobs))
            pair[n_jobs] = (wall, cell_phase(url))
            runs[n_jobs].append(pair[n_jobs])
            cells = pair[n_jobs][1]
            print(f"quickstart --n-jobs {n_jobs}: {wall:.1f} s whole, {cells:.1f} s cells")
        print(
            f"speed-up 1 -> 2: {pair[1][0] / pair[2][0]:.2f}x whole process, "
            f"{pair[1][1] / pair[2][1]:.2f}x cell phase"
        )
    if repeat > 1:
        med = {n: [statistics.median(r[k] for r in runs[n]) for k in (0, 1)] for n in runs}
        whole = sorted(a[0] / b[0] for a, b in zip(runs[1], runs[2], strict=True))
        print(
            f"medians of {repeat} pairs: --n-jobs 1 {med[1][0]:.1f} s whole, {med[1][1]:.1f} s "
            f"cells; --n-jobs 2 {med[2][0]:.1f} s whole, {med[2][1]:.1f} s cells; speed-up "
            f"{med[1][0] / med[2][0]:.2f}x whole process, {med[1][1] / med[2][1]:.2f}x cell "
            f"phase (pairs: whole {', '.join(f'{w:.2f}' for w in whole)})"
        )


WORKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from svmtune.study import CellKey, CellRecord
    from svmtune.study import Storage
    from svmtune.study import claim_cells, new_worker_id

    url, sid, n, go, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    store = Storage(url)
    worker = new_worker_id()
    keys = [CellKey("z", i, "zero") for i in range(n)]
    Path(out + ".ready").touch()
    while not Path(go).exists():
        time.sleep(0.005)
    n_won = 0
    for key in claim_cells(store, sid, "z", keys, worker):
        store.write_cell(sid, CellRecord(key=key, status="ok", seed=0), worker=worker)
        n_won += 1
    Path(out).write_text(json.dumps({"won": n_won, "t": time.time()}))
    """
)


def throughput(url: str, tmp: Path, n_procs: int, n_cells: int = 1000) -> float:
    """Cells per second claimed and stored by ``n_procs`` processes (zero-cost cells)."""
    from svmtune.study import Storage

    store = Storage(url)
    sid = store.register_study("z", 0, {})
    store.close()
    script = tmp / "worker.py"
    script.write_text(WORKER)
    go = tmp / f"go-{uuid.uuid4().hex}"
    outs = [tmp / f"w{i}-{go.name}.json" for i in range(n_procs)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), url, str(sid), str(n_cells), str(go), str(o)]
        )
        for o in outs
    ]
    while not all(Path(f"{o}.ready").exists() for o in outs):
        time.sleep(0.02)
    t0 = time.time()
    go.touch()
    for p in procs:
        p.wait()
    done = [json.loads(o.read_text()) for o in outs]
    assert sum(d["won"] for d in done) == n_cells
    return n_cells / (max(d["t"] for d in done) - t0)


def part_claims(tmp: Path) -> None:
    targets = [("sqlite", lambda i: f"sqlite:///{tmp / f'claims{i}.db'}", None)]
    server = os.environ.get("SVMTUNE_POSTGRES_URL")
    if server:
        admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")

        def pg(i: int) -> str:
            name = f"svmtune_bench_{uuid.uuid4().hex[:10]}"
            with admin.connect() as conn:
                conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
            created.append(name)
            return sa.make_url(server).set(database=name).render_as_string(hide_password=False)

        created: list[str] = []
        targets.append(("postgresql", pg, admin))
    for label, make, admin in targets:
        rates = {n: throughput(make(n), tmp, n) for n in (1, 2, 4, 16)}
        print(
            f"{label}: zero-cost cells claimed and stored per second: "
            + ", ".join(f"{n} workers {r:.0f}" for n, r in rates.items())
        )
        if admin is not None:
            with admin.connect() as conn:
                for name in created:
                    conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["rerun", "cold", "speedup", "claims"],
        choices=["rerun", "cold", "speedup", "claims", "tail", "startup"],
    )
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="tail: the --n-jobs to run"
    )
    parser.add_argument(
        "--tail-db", type=Path, help="tail: reuse this database of the reduced benchmark's cells"
    )
    parser.add_argument("--tail-child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument(
        "--repeat", type=int, default=1, help="cold, speedup: pairs of runs (speedup: interleaved)"
    )
    args = parser.parse_args()
    if args.tail_child:
        tail_child(Path(args.tail_child[0]), Path(args.tail_child[1]), int(args.tail_child[2]))
        return
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "rerun" in args.parts:
            part_rerun(tmp)
        if "cold" in args.parts:
            part_cold(tmp, args.repeat)
        if "speedup" in args.parts:
            part_speedup(tmp, args.repeat)
        if "claims" in args.parts:
            part_claims(tmp)
        if "tail" in args.parts:
            part_tail(tmp, args.workers, args.tail_db)
        if "startup" in args.parts:
            part_startup(tmp)


if __name__ == "__main__":
    main()
