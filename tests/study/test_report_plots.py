"""write_report: the tables and plots of a study."""

from __future__ import annotations

import os

import pytest

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, write_report
from svmtune.study._figure_jobs import balance
from svmtune.tuners import Grid

from ._toys import blobs, halves


def test_the_plots_are_redrawn_only_when_the_cells_changed(tmp_path):
    study = Study(
        "plots",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        storage=f"sqlite:///{tmp_path / 'p.db'}",
        methods={"g": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF())},
    ).run()
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
    study = Study(
        "plots",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        storage=f"sqlite:///{tmp_path / 'p.db'}",
        methods={
            "g": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF()),
            "h": Method(LOOEstimate(model="loo3"), Grid(n_points=3), RBF()),
        },
    ).run()
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


def test_balance_splits_jobs_into_lists_of_about_equal_cost():
    costs = [16.0, 2.0, 4.0, 4.0, 4.0, 3.0, 3.0, 4.0, 4.0]  # the quickstart's nine figures
    bins = balance(costs, 2)
    assert sorted(i for b in bins for i in b) == list(range(len(costs)))  # each job once
    assert [sum(costs[i] for i in b) for b in bins] == [22.0, 22.0]
    assert all(b == sorted(b) for b in bins)  # in the order given
    assert balance([1.0, 1.0], 1) == [[0, 1]]
    assert balance([5.0], 3) == [[0]]  # no empty lists
    with pytest.raises(ValueError, match="n_bins must be at least 1, got 0"):
        balance([1.0], 0)
