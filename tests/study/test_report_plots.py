"""write_report: the tables and plots of a study."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, write_report
from svmtune.study.figures._figure_jobs import FigureJob, by_cost, draw_workers, run_jobs
from svmtune.tuners import Grid

from ._toys import blobs, halves


def _blob_study(tmp_path, *models: str) -> Study:
    """A study "plots" on blobs, two splits, run: one method per LOO model given ("g", "h")."""
    methods = {
        "gh"[i]: Method(LOOEstimate(model=m), Grid(n_points=3), RBF()) for i, m in enumerate(models)
    }
    return Study(
        "plots",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        storage=f"sqlite:///{tmp_path / 'p.db'}",
        methods=methods,
    ).run()


def test_the_plots_are_redrawn_only_when_the_cells_changed(tmp_path):
    study = _blob_study(tmp_path, "loo2")
    out = tmp_path / "out"
    paths = write_report(study.results(), study.traces(), out, methods=["g"])
    pngs = sorted(p for p in paths.values() if p.suffix == ".png")
    assert pngs
    for p in pngs:  # mark them: a redraw would replace the files
        os.utime(p, ns=(1, 1))
    again = write_report(study.results(), study.traces(), out, methods=["g"])
    assert again == paths
    assert all(p.stat().st_mtime_ns == 1 for p in pngs)  # unchanged cells: nothing redrawn
    fewer = study.results().iloc[:1]
    write_report(fewer, study.traces(), out, methods=["g"])
    assert all(p.stat().st_mtime_ns != 1 for p in pngs)  # another table: redrawn


def test_parallel_and_serial_reports_write_the_same_files(tmp_path):
    study = _blob_study(tmp_path, "loo2", "loo3")
    results, traces = study.results(), study.traces()
    serial = write_report(results, traces, tmp_path / "a" / "out", methods=["g", "h"])
    parallel = write_report(results, traces, tmp_path / "b" / "out", methods=["g", "h"], n_jobs=2)
    assert list(parallel) == list(serial)  # the same names, in the same order
    assert [p.name for p in parallel.values()] == [p.name for p in serial.values()]
    assert sorted(f.name for f in (tmp_path / "a" / "out").iterdir()) == sorted(
        f.name for f in (tmp_path / "b" / "out").iterdir()
    )
    assert {"best_so_far", "anytime_test_error_cpu", "report"} <= set(serial)
    report = (tmp_path / "a" / "out" / "report.md").read_text()
    assert report == (tmp_path / "b" / "out" / "report.md").read_text()
    assert "anytime_test_error_cpu.png" in report  # drawn by another job, linked all the same
    # the report is headed by the study's name, whatever the folder is called
    assert report.startswith("# plots: the verdict")


def test_jobs_are_handed_out_largest_cost_first():
    costs = [16.0, 2.0, 4.0, 4.0, 4.0, 3.0, 3.0, 4.0, 4.0]  # the quickstart's nine figures
    jobs = [FigureJob(f"{i}.png", draw=list, dpi=10, cost=c) for i, c in enumerate(costs)]
    order = by_cost(jobs)
    assert sorted(order) == list(range(len(costs)))  # each job once
    assert [costs[i] for i in order] == sorted(costs, reverse=True)
    assert order[:5] == [0, 2, 3, 4, 7]  # ties keep the order given
    assert by_cost([]) == []


class _Shared:
    """Data several report jobs share; each unpickling counts in its process."""

    def __init__(self) -> None:
        self.values = list(range(10_000))

    def __setstate__(self, state: dict) -> None:
        import sys

        self.__dict__.update(state)
        sys._svmtune_test_reads = getattr(sys, "_svmtune_test_reads", 0) + 1  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _PidJob:
    """A report job that writes which process ran it and how often that process read data."""

    name: str
    shared: _Shared
    cost: float = 1.0

    def __call__(self, outdir: Path) -> dict[str, Path]:
        import sys
        import time

        time.sleep(0.05)  # long enough for the other process to take the next job
        path = Path(outdir) / f"{self.name}.txt"
        path.write_text(f"{os.getpid()} {getattr(sys, '_svmtune_test_reads', 0)}")
        return {self.name: path}


def test_jobs_run_one_per_task_in_workers_that_read_the_shared_data_once(tmp_path):
    shared = _Shared()
    jobs = [_PidJob(f"j{i}", shared, cost=float(i % 3)) for i in range(6)]
    paths = run_jobs(jobs, tmp_path, n_jobs=2)
    assert list(paths) == [j.name for j in jobs]  # every job, in the order given
    seen: dict[int, set[int]] = {}
    for p in paths.values():
        pid, reads = map(int, p.read_text().split())
        seen.setdefault(pid, set()).add(reads)
    assert os.getpid() not in seen  # drawn in worker processes, not here
    # six jobs on two processes: one ran several, and read the jobs' shared data once for all
    assert max(len(v) for v in seen.values()) == 1, seen
    assert draw_workers(2, 6) == 2 and draw_workers(8, 3) == 3 and draw_workers(1, 6) == 1
