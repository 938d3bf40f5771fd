"""A report's figures as tasks of comparable size: a page of a per-data-set figure draws what
the whole figure draws for its data sets (its data prepared from its own rows), and no task of
a benchmark-sized report is more than one page of panels."""

from __future__ import annotations

import numpy as np

from svmtune.study.figures._best_so_far import plot_best_so_far
from svmtune.study.figures._output import PANELS_PER_PAGE
from svmtune.study.figures._plots import plot_jobs
from svmtune.study.figures._verdict_plots import verdict_plot_jobs

from ._scale import scale_methods, scale_objectives, scale_results, scale_traces


def _lines(fig):
    """Title of each visible panel -> the (x, y) data of its lines, in drawing order."""
    return {
        ax.get_title(): [(line.get_xdata(), line.get_ydata()) for line in ax.get_lines()]
        for ax in fig.axes
        if ax.get_visible() and ax.get_title()
    }


def test_a_page_of_best_so_far_draws_the_whole_figures_panels_of_its_data_sets():
    methods = scale_methods(6)
    objectives = scale_objectives(methods)
    traces = scale_traces(n_datasets=3, n_methods=6, n_splits=2)
    whole = _lines(plot_best_so_far(traces, methods=methods, objectives=objectives))
    page = _lines(
        plot_best_so_far(traces, methods=methods, objectives=objectives, datasets=["data_set_1"])
    )
    assert page and all(title.startswith("data_set_1: ") for title in page)
    for title, lines in page.items():
        assert len(lines) == len(whole[title]) > 0
        for (x, y), (wx, wy) in zip(lines, whole[title], strict=True):
            np.testing.assert_array_equal(np.asarray(x, float), np.asarray(wx, float))
            np.testing.assert_array_equal(np.asarray(y, float), np.asarray(wy, float))


def test_no_figure_task_of_a_benchmark_sized_report_exceeds_a_page_of_panels():
    methods = scale_methods()
    objectives = scale_objectives(methods)
    traces = scale_traces()
    jobs = plot_jobs(scale_results(), traces, methods=methods, objectives=objectives)
    jobs += verdict_plot_jobs(None, traces, methods=methods, objectives=objectives)
    # cost: about one unit per panel, plus one for the page
    assert max(j.cost for j in jobs) <= PANELS_PER_PAGE + 1
    assert sum(j.name.startswith("best_so_far_p") for j in jobs) >= 42 * 3 // PANELS_PER_PAGE


def test_a_page_of_objective_profiles_is_costed_by_its_panels():
    # the jobs are handed out largest cost first: a page of many panels costed as a page of
    # few would start last and be the tail's critical path
    methods = scale_methods()
    traces = scale_traces(n_datasets=8)
    jobs = verdict_plot_jobs(None, traces, methods=methods, objectives=scale_objectives(methods))
    page = next(j for j in jobs if j.name.startswith("anytime_objective_cpu"))
    panels = sum(ax.get_visible() for ax in page.draw().axes)
    assert panels > 4
    assert page.cost >= panels
