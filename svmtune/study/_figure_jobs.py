"""Figure jobs of a report: what to draw and save, with a cost estimate, and running a list of
them in one process or in two balanced by cost."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FigureJob", "ReportJob", "balance", "load_figure_code", "run_jobs"]


class ReportJob(Protocol):
    """Anything a report draws or writes: called with the output folder, it returns the files
    it wrote (name -> path); ``cost`` is a relative estimate of its CPU time."""

    @property
    def cost(self) -> float: ...

    def __call__(self, outdir: Path) -> dict[str, Path]: ...


@dataclass(frozen=True)
class FigureJob:
    """One figure: ``draw()`` builds it, calling the job saves it as ``outdir / name``.

    ``cost`` is a relative estimate of its drawing time (roughly one unit per panel, as ticks
    and labels dominate); only the ratios between jobs matter (:func:`balance`).
    """

    name: str
    draw: Callable[[], Figure]
    dpi: int
    cost: float = 1.0

    def __call__(self, outdir: Path) -> dict[str, Path]:
        path = Path(outdir) / self.name
        self.draw().savefig(path, dpi=self.dpi)
        return {path.stem: path}


def balance(costs: Sequence[float], n_bins: int) -> list[list[int]]:
    """Indices of ``costs`` split into ``n_bins`` lists of about equal total: largest first,
    each to the bin with the smallest total so far (Graham's LPT rule); a bin keeps its jobs in
    the order given.

    Examples
    --------
    >>> balance([4.0, 1.0, 2.0, 2.0, 1.0], 2)
    [[0, 1], [2, 3, 4]]
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    bins: list[list[int]] = [[] for _ in range(n_bins)]
    totals = [0.0] * n_bins
    for i in sorted(range(len(costs)), key=lambda i: -costs[i]):
        b = min(range(n_bins), key=lambda b: totals[b])
        bins[b].append(i)
        totals[b] += costs[i]
    return [sorted(b) for b in bins if b]


def _run_list(jobs: Sequence[ReportJob], outdir: Path) -> list[dict[str, Path]]:
    return [job(outdir) for job in jobs]


def run_jobs(jobs: Sequence[ReportJob], outdir: str | Path, *, n_jobs: int = 1) -> dict[str, Path]:
    """Run ``jobs`` into ``outdir``; with ``n_jobs`` other than 1 (and more than one core) in
    two joblib worker processes, each given a list balanced by ``cost`` (:func:`balance`), so
    that both finish about together. The files come back in the order of ``jobs``."""
    out = Path(outdir)
    if n_jobs == 1 or (os.cpu_count() or 1) < 2 or len(jobs) < 2:
        parts = _run_list(jobs, out)
    else:
        from joblib import Parallel, delayed

        bins = balance([job.cost for job in jobs], 2)
        # a worker of a reused pool may run in another folder than this process: an absolute
        # path there, the paths returned as given here
        where = out.resolve()
        done = Parallel(n_jobs=len(bins))(
            delayed(_run_list)([jobs[i] for i in b], where) for b in bins
        )
        by_index: dict[int, dict[str, Path]] = {}
        for b, wrote in zip(bins, done, strict=True):
            for i, files in zip(b, wrote, strict=True):
                by_index[i] = {k: out / p.relative_to(where) for k, p in files.items()}
        parts = [by_index[i] for i in range(len(jobs))]
    written: dict[str, Path] = {}
    for files in parts:
        written.update(files)
    return written


def load_figure_code() -> None:
    """Import matplotlib (Agg), the report's figure modules and the verdict's statistics
    (scipy.stats, scikit-posthocs), and render one text label (the font cache): what a report's
    first figure and first test in a fresh process pay first (about 1.5 s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import scikit_posthocs  # noqa: F401 - the verdict's post-hoc tests
    from scipy import stats  # noqa: F401 - the verdict's Friedman and Wilcoxon tests

    import svmtune.study._plots
    import svmtune.study._verdict  # noqa: F401 - loaded for the figures to come

    fig, ax = plt.subplots(figsize=(1, 1))
    ax.set_title("x")
    ax.set_xscale("log")
    fig.canvas.draw()
    plt.close(fig)
