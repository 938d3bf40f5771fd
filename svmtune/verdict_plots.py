"""The verdict's figures: critical-difference diagram, anytime profiles, ECDF data profile.

Each ``plot_*`` function returns a :class:`matplotlib.figure.Figure` drawn without pyplot;
:func:`save_verdict_plots` writes the set as PNG files. The data come from
:func:`svmtune.study.compare` and the profiles of :mod:`svmtune.study`. They live with the
studies (``svmtune/study/figures/_verdict_plots.py``), which draw them into a study's
report; this module is their public place. Importing it imports matplotlib.

Examples
--------
>>> from svmtune.verdict_plots import plot_cd_diagram, save_verdict_plots
"""

from svmtune.study.figures import (
    plot_anytime,
    plot_cd_diagram,
    plot_ecdf,
    plot_normalized_profile,
    save_verdict_plots,
)

__all__ = [
    "plot_anytime",
    "plot_cd_diagram",
    "plot_ecdf",
    "plot_normalized_profile",
    "save_verdict_plots",
]
