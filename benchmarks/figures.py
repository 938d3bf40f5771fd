"""CPU seconds of each figure of the quickstart's report (or any study's), drawn and saved in
one process, against the CPU seconds of the study's own cells.

``svmtune run studies/quickstart.py`` ends with its report: the study's plots
(``svmtune.study.figures.plot_jobs``) and the verdict (``svmtune.study.verdict_jobs``:
comparison, CD diagram, ``report.md``, anytime profiles, ECDF). This runs the quickstart once
into a temporary database (about a minute on two cores; ``--db`` reuses one), then times every
job (build the figure, lay it out once, save each format) in this process, ``--repeat`` times,
and prints the least CPU seconds of each, the totals of the two sets, and how
``write_report(n_jobs=2)`` would share them between its two processes (jobs handed out largest
estimated cost first, each to the process free first): the later end is what the report adds to
a two-process run's wall time on an idle machine with both processes warm; the same schedule of
the measured jobs on 8, 16 and 64 processes (``--processes``) projects what it adds there (a
projection: the jobs run one at a time here).

``--study FILE`` times another study's report instead (run into a temporary database with
``svmtune run FILE --n-jobs 2``, or read from ``--db``); the last line compares the figures' CPU
seconds with the sum of the cells' tuning CPU seconds (a tiny study's report should cost well
under its cells).

CPU seconds of one process, not wall seconds: they hold on a loaded machine. It prints; it
asserts nothing.

    python benchmarks/figures.py                     # run the quickstart, then time
    python benchmarks/figures.py --db /tmp/qs.db --repeat 3 --keep /tmp/figs
    python benchmarks/figures.py --study studies/your_data.py --repeat 1
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from scaling import QUICKSTART, run_cmd  # the same command as the scaling benchmark


def make_db(path: Path, study: Path | None = None) -> None:
    """Run the quickstart (or ``study``) from scratch into the SQLite file ``path`` (2
    processes)."""
    cmd = run_cmd(f"sqlite:///{path}", path.parent / "report")
    if study is not None:
        cmd = ["svmtune", "run", str(study), "--n-jobs", "2", "--no-progress"]
        cmd += ["--storage", f"sqlite:///{path}", "--output", str(path.parent / "report")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="a SQLite file the study was run into")
    ap.add_argument("--study", type=Path, help="a study file (default: the quickstart)")
    ap.add_argument("--repeat", type=int, default=2, help="draws per figure (least is shown)")
    ap.add_argument("--keep", type=Path, help="write the PNGs here (else a temporary folder)")
    ap.add_argument(
        "--processes",
        type=int,
        nargs="*",
        default=[8, 16, 64],
        help="process counts to project the jobs' schedule on, besides 2 (default 8 16 64)",
    )
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "study.db"
            make_db(db, args.study)
        out = args.keep or Path(tmp) / "figures"
        out.mkdir(parents=True, exist_ok=True)

        from matplotlib.figure import Figure

        from svmtune.study import Storage, load_study_module, objective_labels, verdict_jobs
        from svmtune.study.figures import by_cost, plot_jobs

        study = load_study_module(args.study or QUICKSTART).study
        store = Storage(f"sqlite:///{db}", read_only=True)
        try:
            snap = store.snapshot(study.name)
        finally:
            store.close()
        results, traces = study.select(snap.cells), study.select(snap.traces)
        methods = list(study.methods)
        objectives = objective_labels(study.definition()["methods"])
        sets = {
            "plots": plot_jobs(results, traces, methods=methods, objectives=objectives),
            "verdict": verdict_jobs(results, traces, name=out.name, methods=methods),
        }
        Figure().savefig(out / "warm-up.png")  # fonts and the PNG writer load once
        (out / "warm-up.png").unlink()

        print(f"{'set':8s} {'job':38s} {'cost est.':>9s} {'CPU s':>7s}")
        cpu: dict[int, float] = {}
        jobs = [job for js in sets.values() for job in js]
        totals = {}
        for set_name, js in sets.items():
            for job in js:
                best = float("inf")
                for _ in range(args.repeat):
                    t0 = time.process_time()
                    wrote = job(out)
                    best = min(best, time.process_time() - t0)
                cpu[id(job)] = best
                label = "+".join(wrote)  # the names of the files the job wrote
                print(f"{set_name:8s} {label:38s} {job.cost:9.2f} {best:7.3f}")
            totals[set_name] = sum(cpu[id(j)] for j in js)
        for set_name, total in totals.items():
            print(f"total {set_name:10s} {total:6.2f} CPU s")
        print(f"total {'both':10s} {sum(totals.values()):6.2f} CPU s")
        cells = float(results["cpu_s"].sum())
        print(
            f"the {len(results)} cells' tuning: {cells:.2f} CPU s; the figures: "
            f"{sum(totals.values()):.2f} CPU s ({sum(totals.values()) / cells:.2f}x the cells)"
        )
        # the report hands the jobs out largest estimated cost first, each to the process that
        # is free first: that schedule, with the CPU seconds just measured, on 2 processes and
        # (projected) on more; no process can end before the largest job does
        largest = max(cpu.values(), default=0.0)
        for n in (2, *args.processes):
            ends = schedule([cpu[id(jobs[i])] for i in by_cost(jobs)], n)
            shown = " | ".join(f"{t:.2f}" for t in ends) if n <= 2 else f"{min(ends):.2f}-"
            print(
                f"{n} processes, jobs handed out largest estimate first: {shown} CPU s; the "
                f"latest ends at {max(ends):.2f} ({100 * max(ends) / cells:.1f} % of the "
                f"cells' CPU; the largest job {largest:.2f})"
            )


def schedule(costs: list[float], n: int) -> list[float]:
    """When each of ``n`` processes ends, handed ``costs`` in this order, each job to the
    process free first (what ``run_jobs`` does, with every process warm)."""
    ends = [0.0] * max(1, n)
    for c in costs:
        p = ends.index(min(ends))
        ends[p] += c
    return ends


if __name__ == "__main__":
    main()
