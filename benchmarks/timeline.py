"""Where the wall time of one ``svmtune run`` of the quickstart goes, phase by phase.

Runs ``studies/quickstart.py`` from scratch (a new SQLite database) with ``--n-jobs`` processes
through ``svmtune.cli.main`` in a child process, and prints, in seconds from the child's first
line of Python: its imports; ``Study.run`` start; the first cell started and the last finished
(from the database); ``Study.run`` end; the figures (``run_jobs``) start and end;
``svmtune run`` end; and the exit (the child's end, seen from this process); then the seconds
of all cells against the cell phase times the processes: how busy the processes were.
What lies outside "first cell started" .. "last cell finished" is what a second process cannot
share. It prints; it asserts nothing.

    python benchmarks/timeline.py                 # 2 processes (about 30 s)
    python benchmarks/timeline.py --n-jobs 1
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scaling import QUICKSTART  # the same study file as the scaling benchmark


def child(db: Path, n_jobs: int) -> None:
    t0 = time.time()
    marks: list[tuple[float, str]] = []

    def mark(what: str) -> None:
        marks.append((time.time() - t0, what))

    import sqlalchemy as sa

    import svmtune.cli as cli
    import svmtune.study.figures as figures
    from svmtune.study import Study

    figures.run_jobs  # noqa: B018 - loads the figure jobs' module with the imports

    mark("imports done")

    def timed(owner: object, name: str, label: str) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        def wrapper(*args: object, **kwargs: object) -> object:
            mark(f"{label} start")
            try:
                return inner(*args, **kwargs)
            finally:
                mark(f"{label} end")

        setattr(owner, name, wrapper)

    timed(Study, "run", "Study.run")
    timed(figures, "run_jobs", "figures (run_jobs)")  # the report takes it from there
    argv = ["run", str(QUICKSTART), "--storage", f"sqlite:///{db}", "--n-jobs", str(n_jobs)]
    argv += ["--no-progress", "--output", str(db.parent / "report")]
    cli.main(argv)
    mark("svmtune run end")
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        spans = conn.exec_driver_sql("SELECT started_at, finished_at FROM cells").all()
    engine.dispose()
    from datetime import datetime

    def stamp(v: object) -> float:
        return datetime.fromisoformat(str(v)).timestamp() - t0

    lo, hi = min(stamp(a) for a, _ in spans), max(stamp(b) for _, b in spans)
    marks += [(lo, "first cell started"), (hi, "last cell finished")]
    busy = sum(stamp(b) - stamp(a) for a, b in spans)
    out = {"t0": t0, "marks": sorted(marks), "end": time.time(), "busy": busy, "span": hi - lo}
    print("TIMELINE " + json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.n_jobs < 1:
        ap.error(f"--n-jobs must be at least 1, got {args.n_jobs}")
    if args.child is not None:
        child(args.child, args.n_jobs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, __file__, "--n-jobs", str(args.n_jobs), "--child"]
        started = time.time()
        out = subprocess.run(cmd + [str(Path(tmp) / "q.db")], capture_output=True, text=True)
        gone = time.time()
        if out.returncode != 0:
            sys.exit(out.stderr)
        line = next(s for s in out.stdout.splitlines() if s.startswith("TIMELINE "))
        tl = json.loads(line.removeprefix("TIMELINE "))
    print(f"quickstart, --n-jobs {args.n_jobs}: seconds from the child's first line of Python")
    print(f"{tl['t0'] - started:7.2f}  (before: interpreter start, from this process)")
    for t, what in tl["marks"]:
        print(f"{t:7.2f}  {what}")
    print(f"{gone - tl['t0']:7.2f}  process gone (exit: {gone - tl['end']:.2f} s)")
    share = tl["busy"] / (args.n_jobs * tl["span"])
    print(
        f"cells: {tl['busy']:.1f} s of cells in a cell phase of {tl['span']:.1f} s: the "
        f"{args.n_jobs} processes were running cells {100 * share:.1f} % of it"
    )


if __name__ == "__main__":
    main()
