"""Figures fit for a paper: one colour and marker per method in every figure, the CD diagram
only where a rank test exists and legible at 20+ methods, every figure in report.md with a
caption."""

from __future__ import annotations

import colorsys
import re

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, compare, write_report
from svmtune.study.figures._cd_diagram import plot_cd_diagram, readable
from svmtune.study.figures._figure_section import CAPTIONS, cd_diagram_drawn, figure_section
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._plots import plot_error_vs_time
from svmtune.study.figures._verdict_plots import verdict_plot_jobs
from svmtune.tuners import Grid

from ._toys import blobs, halves


def _results(n_methods: int, n_datasets: int, *, long_names: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    methods = [
        f"method {i} with a rather long name" if long_names and i % 3 == 0 else f"m{i}"
        for i in range(n_methods)
    ]
    rows = [
        {
            "dataset": f"d{d}",
            "split": s,
            "method": m,
            "status": "ok",
            "test_error": 0.1 + 0.002 * i + 0.01 * rng.random(),
            "cpu_s": 0.01 * (i + 1),
            "kernel_evals": 10,
        }
        for d in range(n_datasets)
        for s in range(2)
        for i, m in enumerate(methods)
    ]
    return pd.DataFrame(rows)


def _rgb(c) -> tuple[float, ...]:
    return tuple(np.round(np.asarray(c, dtype=float).ravel()[:3], 6))


def test_a_method_keeps_its_colour_and_marker_in_every_figure():
    results = _results(12, 6)
    methods = list(dict.fromkeys(results["method"]))
    styles = method_styles(methods)
    assert len({(_rgb(s["color"]), s["marker"]) for s in styles.values()}) == len(methods)
    # a figure showing only some methods still draws each in its study-wide style
    fig = plot_error_vs_time(results, methods=methods)
    drawn = {}
    for line in fig.axes[0].get_lines():
        if line.get_label() in styles and line.get_marker() not in (None, "None", ""):
            drawn[line.get_label()] = (_rgb(line.get_color()), line.get_marker())
    for m, (colour, marker) in drawn.items():
        assert colour == _rgb(styles[m]["color"]) and marker == styles[m]["marker"], m
    cd = plot_cd_diagram(compare(results, methods=methods), methods=methods)
    label_colours = {
        re.sub(r"\s*\(\d+\.\d+\)\s*", "", t.get_text()): _rgb(t.get_color())
        for t in cd.axes[0].texts
        if "(" in t.get_text()
    }
    # each label in its method's colour, darkened where that is too light to read on white
    assert label_colours == {m: _rgb(readable(styles[m]["color"])) for m in methods}
    for m, (r, g, b) in label_colours.items():
        h, li, _ = colorsys.rgb_to_hls(r, g, b)
        assert li <= 0.42 + 1e-6, m
        assert abs(h - colorsys.rgb_to_hls(*_rgb(styles[m]["color"]))[0]) < 1e-6, m


def test_the_cd_diagram_needs_a_rank_test_and_clips_no_label_at_21_methods():
    few = compare(_results(4, 3), methods=None)  # 3 data sets: no Friedman/Nemenyi test
    assert not cd_diagram_drawn(few)
    assert [j.name for j in verdict_plot_jobs(few, pd.DataFrame())] == []
    many = compare(_results(21, 8, long_names=True))
    assert cd_diagram_drawn(many)
    fig = plot_cd_diagram(many)
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    box = fig.bbox
    labels = [t for t in fig.axes[0].texts if "(" in t.get_text()]
    assert len(labels) == 21
    for t in labels:
        ext = t.get_window_extent(renderer)
        assert box.x0 <= ext.x0 and ext.x1 <= box.x1, t.get_text()
    # the critical-difference bar and its label sit above the rank axis's tick labels, the
    # title above them
    ax = fig.axes[0]
    ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    top = max(e.y1 for e in ticks)
    (cd_label,) = [t for t in ax.texts if t.get_text().startswith("CD =")]
    cd_box = cd_label.get_window_extent(renderer)
    assert cd_box.y0 > top
    assert ax.title.get_window_extent(renderer).y0 > cd_box.y1
    bar = [
        ln for ln in ax.lines if len(ln.get_xdata()) == 2 and ln.get_transform() is not ax.transData
    ]
    assert len(bar) == 1
    assert bar[0].get_window_extent(renderer).y0 > top


def test_report_md_embeds_every_figure_with_a_caption(tmp_path):
    study = Study(
        "paper",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        storage=f"sqlite:///{tmp_path / 'p.db'}",
        methods={
            "g": Method(LOOEstimate(model="loo2"), Grid(n_points=3), RBF()),
            "h": Method(LOOEstimate(model="loo3"), Grid(n_points=3), RBF()),
        },
    ).run()
    out = tmp_path / "out"
    write_report(study.results(), study.traces(), out, methods=["g", "h"])
    report = (out / "report.md").read_text()
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert "best_so_far.png" in pngs and "error_vs_time.png" in pngs
    assert "cd_diagram.png" not in pngs  # one data set: no rank test, no diagram
    for name in pngs:
        caption = CAPTIONS[name.removesuffix(".png")]
        assert f"![{caption}]({name})" in report and f"*{caption}*" in report
    assert figure_section({}) == []
