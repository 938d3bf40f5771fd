"""Plots of a study: test error against compute time, best-so-far traces, parameter curves.

Each ``plot_*`` function takes DataFrames (``Study.results()``, ``Study.traces()``,
:func:`svmtune.study.parameter_curve`) and returns a :class:`matplotlib.figure.Figure`, drawn
without pyplot (no global state, no display needed); :func:`save_plots` writes the standard set
as PNG files. They live with the studies (``svmtune/study/figures/_plots.py``), which draw
them into a study's report; this module is their public place. Importing it imports
matplotlib.

Examples
--------
>>> from svmtune.plots import plot_error_vs_time, save_plots
"""

from svmtune.study.figures import (
    TIME_LABELS,
    plot_best_so_far,
    plot_error_vs_time,
    plot_parameter_curves,
    save_plots,
)

__all__ = [
    "TIME_LABELS",
    "plot_best_so_far",
    "plot_error_vs_time",
    "plot_parameter_curves",
    "save_plots",
]
