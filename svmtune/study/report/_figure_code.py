"""What a fresh process loads before a report's first figure, in the foreground or in a
background thread (:func:`~svmtune.study.figures._figure_jobs.load_in_background`).

It imports the figure modules and the verdict, which import the figure jobs: the jobs
module is given this loader by its callers and never imports it back.
"""

from __future__ import annotations

from svmtune.study.figures._figure_jobs import load_in_background

__all__ = ["load_figure_code", "load_figure_code_soon"]


def load_figure_code_soon() -> None:
    """Start :func:`load_figure_code` in a background thread of this process and return at
    once (once per process): a worker process with nothing to do loads the report's code
    meanwhile, and the process that hands it out does not wait for it (a figure job waits
    for the thread before it draws)."""
    load_in_background(load_figure_code)


def load_figure_code() -> None:
    """Import matplotlib (Agg), the report's figure modules and the verdict's statistics
    (scipy.stats, scikit-posthocs), and render one text label (the font cache): what a report's
    first figure and first test in a fresh process pay first (about 1.5 s). It draws on a
    figure of its own, outside pyplot's registry of figures, so that it may run in a thread."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401 - what the figure modules draw with
    import scikit_posthocs  # noqa: F401 - the verdict's post-hoc tests
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from scipy import stats  # noqa: F401 - the verdict's Friedman and Wilcoxon tests

    import svmtune.study.figures._plots
    import svmtune.study.report._verdict  # noqa: F401 - loaded for the figures to come

    fig = Figure(figsize=(1, 1))
    ax = fig.add_subplot()
    ax.set_title("x")
    ax.set_xscale("log")
    FigureCanvasAgg(fig).draw()
