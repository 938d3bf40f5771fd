"""The study's figures: the plots, the verdict's plots and the jobs that draw them.

The drawing functions are public here (``from svmtune.study.figures import save_plots``);
they load on first use (PEP 562), so that importing this package,
or the figure jobs a worker runs, imports no drawing code.

A report is a list of jobs (:func:`plot_jobs`, the study's plots; the verdict's are
:func:`svmtune.study.verdict_jobs`), each drawing and saving its files when called with the
output folder; :func:`run_jobs` runs them in one process or two, handing them out in the order
of :func:`by_cost` (largest estimated cost first). :data:`CAPTIONS` holds the one-line caption
of each figure a report can hold, by file stem, in the report's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svmtune._lazy import lazy_exports

_PLOTS = "svmtune.study.figures._plots"
_VERDICT_PLOTS = "svmtune.study.figures._verdict_plots"
_JOBS = "svmtune.study.figures._figure_jobs"

#: Public name -> module that defines it.
_EXPORTS: dict[str, str] = {
    "TIME_LABELS": _PLOTS,
    "CAPTIONS": "svmtune.study.figures._figure_section",
    "by_cost": _JOBS,
    "run_jobs": _JOBS,
    "plot_jobs": _PLOTS,
    "plot_best_so_far": "svmtune.study.figures._best_so_far",
    "plot_error_vs_time": _PLOTS,
    "plot_parameter_curves": "svmtune.study.figures._parameter_curves",
    "save_plots": _PLOTS,
    "plot_anytime": _VERDICT_PLOTS,
    "plot_cd_diagram": _VERDICT_PLOTS,
    "plot_ecdf": _VERDICT_PLOTS,
    "plot_normalized_profile": _VERDICT_PLOTS,
    "save_verdict_plots": _VERDICT_PLOTS,
}

__all__ = [
    "CAPTIONS",
    "TIME_LABELS",
    "by_cost",
    "plot_anytime",
    "plot_best_so_far",
    "plot_cd_diagram",
    "plot_ecdf",
    "plot_error_vs_time",
    "plot_jobs",
    "plot_normalized_profile",
    "plot_parameter_curves",
    "run_jobs",
    "save_plots",
    "save_verdict_plots",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from svmtune.study.figures._best_so_far import plot_best_so_far
    from svmtune.study.figures._figure_jobs import by_cost, run_jobs
    from svmtune.study.figures._figure_section import CAPTIONS
    from svmtune.study.figures._parameter_curves import plot_parameter_curves
    from svmtune.study.figures._plots import (
        TIME_LABELS,
        plot_error_vs_time,
        plot_jobs,
        save_plots,
    )
    from svmtune.study.figures._verdict_plots import (
        plot_anytime,
        plot_cd_diagram,
        plot_ecdf,
        plot_normalized_profile,
        save_verdict_plots,
    )

__getattr__ = lazy_exports("svmtune.study.figures", _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
