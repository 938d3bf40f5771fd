"""Figures at the benchmark's scale (42 data sets x 22 methods): legible at print width (17 cm,
no text under 7 pt), no text over another, legends outside the data, one style per method,
bounded files, PDFs with their fonts embedded."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from svmtune.study import compare
from svmtune.study.figures._best_so_far import plot_best_so_far
from svmtune.study.figures._cd_diagram import plot_cd_diagram
from svmtune.study.figures._output import MIN_FONT_PT, PRINT_WIDTH
from svmtune.study.figures._palette import method_styles
from svmtune.study.figures._plots import plot_error_vs_time, plot_jobs
from svmtune.study.figures._save import save_figure
from svmtune.study.figures._verdict_plots import (
    plot_anytime,
    plot_ecdf,
    plot_normalized_profile,
    verdict_plot_jobs,
)

from ._scale import scale_methods, scale_objectives, scale_results, scale_traces

METHODS = scale_methods()
OBJECTIVES = scale_objectives(METHODS)


@functools.cache
def _results():
    return scale_results()


@functools.cache
def _traces():
    return scale_traces()


def _page(n: int = 12) -> list[str]:
    return [f"data_set_{d}" for d in range(n)]


FIGURES = {
    "error_vs_time": lambda: plot_error_vs_time(_results(), methods=METHODS),
    "error_vs_time_runs": lambda: plot_error_vs_time(_results(), methods=METHODS, runs=True),
    "error_vs_time_by_dataset": lambda: plot_error_vs_time(
        _results(), methods=METHODS, by_dataset=True, datasets=_page()
    ),
    "best_so_far": lambda: plot_best_so_far(
        _traces(), methods=METHODS, objectives=OBJECTIVES, datasets=_page(4)
    ),
    "anytime_test_error_cpu": lambda: plot_anytime(_traces(), methods=METHODS, datasets=_page()),
    "anytime_objective_cpu": lambda: plot_anytime(
        _traces(), methods=METHODS, metric="best_value", objectives=OBJECTIVES, datasets=_page(4)
    ),
    "anytime_normalized": lambda: plot_normalized_profile(_traces(), methods=METHODS),
    "ecdf": lambda: plot_ecdf(_traces(), methods=METHODS),
    "cd_diagram": lambda: plot_cd_diagram(compare(_results(), methods=METHODS), methods=METHODS),
}


def _drawn_texts(fig, renderer) -> list[Text]:
    """Every text the figure shows: titles, labels, legend entries, and the tick labels of
    the ticks inside each axis's view (matplotlib keeps others it does not draw)."""
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.add(id(tick.label1))
                ticks.add(id(tick.label2))
                if lo - 1e-12 <= tick.get_loc() <= hi + 1e-12 and tick.label1.get_visible():
                    ticks.discard(id(tick.label1))
    out = []
    for t in fig.findobj(Text):
        if id(t) in ticks or not t.get_text().strip() or not t.get_visible():
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        out.append(t)
    return out


@pytest.mark.parametrize("name", list(FIGURES))
def test_no_text_overlaps_another_and_all_is_legible_at_print_width(name):
    fig = FIGURES[name]()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    width = fig.get_figwidth()
    assert width <= PRINT_WIDTH + 1e-6, (name, width)
    texts = _drawn_texts(fig, renderer)
    assert len(texts) > 5
    for t in texts:
        assert t.get_fontsize() >= MIN_FONT_PT - 1e-9, (name, t.get_text(), t.get_fontsize())
    boxes = [(t, t.get_window_extent(renderer).shrunk(0.98, 0.9)) for t in texts]
    page = fig.bbox
    for t, b in boxes:  # nothing clipped at the figure's edges
        assert b.x0 >= page.x0 - 1 and b.x1 <= page.x1 + 1, (name, t.get_text())
        assert b.y0 >= page.y0 - 1 and b.y1 <= page.y1 + 1, (name, t.get_text())
    clashes = [
        (a.get_text(), b.get_text())
        for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
        if ba.overlaps(bb)
    ]
    assert not clashes, (name, clashes[:5])
    # the legend sits outside every axes: it covers no data
    for legend in fig.legends:
        lb = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.get_visible():
                assert not lb.overlaps(ax.get_window_extent(renderer)), name


def test_no_two_methods_of_a_study_share_a_style_at_40_methods():
    styles = method_styles([f"m{i}" for i in range(40)])
    colour = {m: tuple(np.round(s["color"], 6)) for m, s in styles.items()}
    assert len({(colour[m], s["marker"]) for m, s in styles.items()}) == 40
    assert len({(colour[m], s["ls"]) for m, s in styles.items()}) == 40  # lines alone differ
    # a method keeps its style whatever the figure: the study's list decides
    assert method_styles([f"m{i}" for i in range(41)])["m7"] == styles["m7"]


def test_every_line_of_a_figure_is_drawn_in_its_methods_study_wide_style():
    styles = method_styles(METHODS)
    fig = FIGURES["anytime_test_error_cpu"]()
    seen = 0
    for ax in fig.axes:
        for line in ax.get_lines():
            m = line.get_label()
            if m in styles:
                seen += 1
                assert tuple(np.round(line.get_color(), 6)) == tuple(
                    np.round(styles[m]["color"], 6)
                )
                assert line.get_linestyle() == styles[m]["ls"]
                assert line.get_marker() == styles[m]["marker"]
    assert seen >= 22


def test_objectives_of_different_families_never_share_an_axis():
    fig = FIGURES["anytime_objective_cpu"]()
    families = {"LOOEstimate": "LOO estimate", "KFoldCV": "CV error", "PlattError": "Platt error"}
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        on_axis = {
            families[OBJECTIVES[line.get_label()].split("(")[0]]
            for line in ax.get_lines()
            if line.get_label() in OBJECTIVES
        }
        assert len(on_axis) <= 1
        assert ax.get_title().endswith(tuple(on_axis)) or not on_axis


def test_a_benchmark_sized_report_pages_its_per_data_set_figures(tmp_path):
    jobs = plot_jobs(_results(), _traces(), methods=METHODS, objectives=OBJECTIVES)
    jobs += verdict_plot_jobs(
        None, _traces(), methods=METHODS, objectives=OBJECTIVES, formats="pdf,png"
    )
    names = [j.name for j in jobs]
    assert "error_vs_time.png" in names
    pages = [n for n in names if n.startswith("error_vs_time_by_dataset_p")]
    assert len(pages) == 4  # 42 data sets, at most 12 panels a page
    assert all(j.also == ("pdf",) for j in jobs)
    # the largest page as PNG and PDF: bounded, the PDF's fonts embedded as TrueType
    job = next(j for j in jobs if j.name == "anytime_test_error_cpu_p1.png")
    files = job(tmp_path)
    png, pdf = files["anytime_test_error_cpu_p1"], files["anytime_test_error_cpu_p1.pdf"]
    assert png.stat().st_size <= 1.5e6 and pdf.stat().st_size <= 1.5e6
    data = pdf.read_bytes()
    assert b"/FontFile2" in data and b"/Type3" not in data


def test_a_pdf_of_the_same_figure_is_the_same_file(tmp_path):
    small = scale_results(n_datasets=3, n_methods=4, n_splits=2)

    def pdf(name):
        fig = plot_error_vs_time(small)
        return save_figure(fig, tmp_path / name, dpi=100).read_bytes()

    a, b = pdf("a.pdf"), pdf("b.pdf")
    assert a == b  # no creation date, no random font-subset names
    assert b"/FontFile2" in a
