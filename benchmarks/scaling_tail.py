"""The ``tail`` and ``startup`` parts of ``benchmarks/scaling.py`` (see its docstring).

``tail``: the reduced benchmark run from scratch by ``svmtune run`` in a child process that
notes, at three moments, the wall clock and the CPU seconds of itself and of each of its worker
processes (psutil): ``Study.run`` starting, ``Study.run`` returned (every cell stored), and the
report done (``stop_local_workers`` called: tables, figures and report.md written). The cells'
own times come from the database. ``startup``: a fresh process runs one cell of each method
twice (:func:`startup_child`).
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "studies" / "benchmark.py"
#: The reduced benchmark: the first 8 problems (the cheapest) x 2 splits x every method.
REDUCED = {"SVMTUNE_BENCHMARK_DATASETS": "8", "SVMTUNE_BENCHMARK_SPLITS": "2"}
#: Modules a worker that only runs svmtune's own cells should not need.
HEAVY = ("matplotlib", "sklearn", "optuna", "scikit_posthocs", "sqlalchemy", "dask", "pandas")


def _tree_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of this process and of each process below it, by pid."""
    import psutil

    me = psutil.Process()
    out = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.Error:  # gone meanwhile
            continue
        out[proc.pid] = t.user + t.system
    return out


def tail_child(db: Path, outdir: Path, n_jobs: int) -> None:
    """Run the reduced benchmark into ``db`` with ``n_jobs`` processes; print the marks."""
    t0 = time.time()
    marks: dict[str, tuple[float, dict[int, float]]] = {}

    def mark(label: str) -> None:
        marks[label] = (time.time(), _tree_cpu())

    import svmtune.cli as cli
    import svmtune.study as study_package

    run = study_package.Study.run

    @functools.wraps(run)
    def timed_run(*args: object, **kwargs: object) -> object:
        mark("run start")
        try:
            return run(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            mark("cells done")

    stop = study_package.stop_local_workers

    @functools.wraps(stop)
    def timed_stop() -> None:
        mark("report done")  # the workers are still up: their CPU is readable
        stop()

    study_package.Study.run = timed_run  # type: ignore[method-assign]
    study_package.stop_local_workers = timed_stop  # the CLI takes it from the package
    argv = ["run", str(BENCHMARK), "--storage", f"sqlite:///{db}", "--n-jobs", str(n_jobs)]
    cli.main([*argv, "--no-progress", "--output", str(outdir)])
    end = time.time()
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        lo, hi, cpu, n = conn.exec_driver_sql(
            "SELECT MIN(started_at), MAX(finished_at), SUM(cpu_s), COUNT(*) FROM cells"
        ).one()
    engine.dispose()
    stamp = {k: [t, {str(p): c for p, c in cpus.items()}] for k, (t, cpus) in marks.items()}
    out = {
        "t0": t0,
        "end": end,
        "pid": os.getpid(),
        "first": datetime.fromisoformat(str(lo)).timestamp(),
        "last": datetime.fromisoformat(str(hi)).timestamp(),
        "cells_cpu": cpu,
        "cells": n,
        "marks": stamp,
    }
    print("TAIL " + json.dumps(out))


def _delta(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """CPU seconds each process spent from ``a`` to ``b`` (a process new in ``b`` from 0)."""
    return {p: c - a.get(p, 0.0) for p, c in b.items()}


def tail_run(tmp: Path, n_jobs: int, stored: Path | None = None) -> dict[str, float]:
    """One run of the reduced benchmark with ``n_jobs`` processes, from scratch or on a copy of
    the database ``stored`` (every cell stored: only the report is computed): its figures."""
    db, out = tmp / f"tail{n_jobs}.db", tmp / f"tail{n_jobs}"
    db.unlink(missing_ok=True)
    if stored is not None:
        shutil.copyfile(stored, db)
    cmd = [sys.executable, str(Path(__file__).with_name("scaling.py")), "--tail-child"]
    env = {**os.environ, **REDUCED}
    started = time.time()
    res = subprocess.run(
        [*cmd, str(db), str(out), str(n_jobs)], capture_output=True, text=True, env=env
    )
    gone = time.time()
    if res.returncode != 0:
        sys.exit(res.stderr)
    line = next(s for s in res.stdout.splitlines() if s.startswith("TAIL "))
    tl = json.loads(line.removeprefix("TAIL "))
    me = str(tl["pid"])
    (t_run, c_run), (t_done, c_done), (t_rep, c_rep) = (
        tl["marks"][k] for k in ("run start", "cells done", "report done")
    )
    cells = _delta(c_run, c_done)
    first, last = tl["first"], tl["last"]
    span = last - first
    if stored is not None:  # no cell computed here: the stored cells' phase stands for it
        first, last = t_run, t_done
    tail = _delta(c_done, c_rep)
    workers = [c for p, c in tail.items() if p != me]
    return {
        "n_jobs": n_jobs,
        "cells": tl["cells"],
        "whole_wall": gone - started,
        "whole_cpu": sum(c_rep.values()),
        "start_wall": first - started,
        "start_cpu": c_run.get(me, 0.0),
        "phase_wall": span,
        # stored cells: their own CPU stands for the phase's
        "phase_cpu": sum(cells.values()) if stored is None else tl["cells_cpu"],
        "cells_cpu": tl["cells_cpu"],
        "tail_wall": t_rep - last,
        "tail_parent_cpu": tail.get(me, 0.0),
        "tail_workers_cpu": sum(workers),
        "tail_busiest_cpu": max(workers, default=0.0),
        "exit_wall": gone - t_rep,
        "run_to_done_wall": t_done - t_run,
    }


def part_tail(tmp: Path, workers: list[int], stored: Path | None = None) -> None:
    """``stored``: a database holding the reduced benchmark's cells (``--tail-db``): the runs
    compute only the report, on workers started for it (after a run from scratch they would
    have loaded the figure code during the last cells), and the cell phase is the stored one."""
    runs = [tail_run(tmp, w, stored) for w in workers]
    how = "from scratch" if stored is None else f"on the cells stored in {stored} (report only)"
    print(f"reduced benchmark (8 problems x 2 splits x every method), {how}: wall s, CPU s")
    for r in runs:
        tail_cpu = r["tail_parent_cpu"] + r["tail_workers_cpu"]
        crit = r["tail_parent_cpu"] + r["tail_busiest_cpu"]
        print(
            f"--n-jobs {r['n_jobs']}: {r['cells']} cells; whole {r['whole_wall']:.1f} s wall, "
            f"{r['whole_cpu']:.1f} CPU s; before the first cell {r['start_wall']:.1f} s wall "
            f"(the parent {r['start_cpu']:.2f} CPU s); cell phase {r['phase_wall']:.1f} s wall, "
            f"{r['phase_cpu']:.1f} CPU s (the cells' own {r['cells_cpu']:.1f}); serial tail "
            f"(last cell's end to the report) {r['tail_wall']:.1f} s wall, {tail_cpu:.1f} CPU s "
            f"(the parent {r['tail_parent_cpu']:.2f}, the workers {r['tail_workers_cpu']:.2f}, "
            f"the busiest {r['tail_busiest_cpu']:.2f}): critical path {crit:.2f} CPU s = "
            f"{100 * crit / r['cells_cpu']:.1f} % of the cells' CPU; exit {r['exit_wall']:.2f} s"
        )
    amdahl(runs[0])


def amdahl(r: dict[str, float]) -> None:
    """Amdahl's serial fraction from one run, in CPU seconds: the serial part is what the parent
    does before the cells and the tail's critical path (the parent, then the busiest drawing
    process); the parallel part is the cell phase's CPU of all processes."""
    serial = r["start_cpu"] + r["tail_parent_cpu"] + r["tail_busiest_cpu"]
    parallel = r["phase_cpu"]
    s = serial / (serial + parallel)
    ups = ", ".join(f"{n} cores {1 / (s + (1 - s) / n):.1f}x" for n in (8, 16, 64))
    print(
        f"Amdahl (from --n-jobs {r['n_jobs']}): serial {serial:.2f} CPU s, parallel "
        f"{parallel:.1f} CPU s: serial fraction {s:.3f}; projected speed-up {ups} "
        f"(limit {1 / s:.0f}x)"
    )


STARTUP = r"""
import json, pickle, sys, time
t0 = time.process_time()
from svmtune.study import run_payload
imported = time.process_time() - t0
cells = pickle.loads(open(sys.argv[1], "rb").read())  # (method, key, seed, payload, peer)
extra, seen = {}, None
for method, key, seed, payload, peer in cells:
    if peer and seen is None:  # svmtune's own methods done: what has this worker imported?
        seen = [m for m in sys.argv[2].split(",") if m in sys.modules]
    a = time.process_time()
    run_payload(key, seed, payload, None)
    b = time.process_time()
    run_payload(key, seed, payload, None)
    extra[method] = (b - a) - (time.process_time() - b)
print("STARTUP " + json.dumps({"imported": imported, "extra": extra, "own_imports": seen}))
"""


def part_startup(tmp: Path) -> None:
    """A fresh process that, like a worker, only unpickles and runs cells: its imports, then
    each method's first cell (split 0 of the first problem) against the same cell again;
    svmtune's own methods first, then the scikit-learn peers."""
    os.environ.update(REDUCED)
    from svmtune.study import PeerMethod, dump_task, load_study

    study = load_study(BENCHMARK)
    first: dict[str, object] = {}
    for t in study._tasks():
        first.setdefault(t.key.method, t)
    cells = [
        (m, t.key, t.seed, dump_task(t), isinstance(t.method, PeerMethod)) for m, t in first.items()
    ]
    cells.sort(key=lambda c: c[4])  # svmtune's own methods first
    data = tmp / "startup.pkl"
    data.write_bytes(pickle.dumps(cells))
    script = tmp / "startup.py"
    script.write_text(STARTUP)
    cmd = [sys.executable, str(script), str(data), ",".join(HEAVY)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(res.stderr)
    line = next(s for s in res.stdout.splitlines() if s.startswith("STARTUP "))
    st = json.loads(line.removeprefix("STARTUP "))
    extra = st["extra"]
    total = st["imported"] + sum(extra.values())
    worst = sorted(extra.items(), key=lambda kv: -kv[1])[:4]
    print(
        f"worker start-up: {total:.2f} CPU s = imports {st['imported']:.2f} + the first cell of "
        f"each of {len(extra)} methods over its second {sum(extra.values()):.2f} (most: "
        + ", ".join(f"{m} {v:.2f}" for m, v in worst)
        + ")"
    )
    own = st["own_imports"] or []
    print(
        "a worker that ran svmtune's own methods only has imported: "
        + (", ".join(own) if own else "none")
        + f" (of {', '.join(HEAVY)})"
    )
