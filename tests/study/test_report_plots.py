"""write_report: the tables and plots of a study."""

from __future__ import annotations

import os

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, write_report
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
