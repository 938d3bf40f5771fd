"""Figure jobs of a report: what to draw and save, with a cost estimate, and running a list of
them in one process or in several (handed out largest estimate first to whichever is free)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FigureJob",
    "ReportJob",
    "by_cost",
    "draw_workers",
    "load_in_background",
    "run_jobs",
]


class ReportJob(Protocol):
    """Anything a report draws or writes: called with the output folder, it returns the files
    it wrote (name -> path); ``cost`` is a relative estimate of its CPU time."""

    @property
    def cost(self) -> float: ...

    def __call__(self, outdir: Path) -> dict[str, Path]: ...


@dataclass(frozen=True)
class FigureJob:
    """One figure: ``draw()`` builds it, calling the job saves it as ``outdir / name`` and in
    each further format of ``also`` (file suffixes such as ``"pdf"``: the same figure, built
    and laid out once, :func:`~svmtune.study.figures._save.save_figures`).

    ``cost`` is a relative estimate of its drawing time (roughly one unit per panel, as ticks
    and labels dominate); only the order of the jobs' costs matters (:func:`by_cost`).
    """

    name: str
    draw: Callable[[], Figure]
    dpi: int
    cost: float = 1.0
    also: tuple[str, ...] = ()

    def __call__(self, outdir: Path) -> dict[str, Path]:
        from svmtune.study.figures._save import save_figures

        path = Path(outdir) / self.name
        others = [path.with_suffix(f".{ext}") for ext in self.also]
        first, *rest = save_figures(self.draw(), [path, *others], dpi=self.dpi)
        return {first.stem: first, **{p.name: p for p in rest}}


def by_cost(jobs: Sequence[ReportJob]) -> list[int]:
    """Indices of ``jobs``, largest ``cost`` first (ties in the order given): the order in
    which :func:`run_jobs` hands them out to two processes, so that the last job to start is a
    small one (Graham's LPT rule, applied as each process becomes free).

    Examples
    --------
    >>> from svmtune.study.figures._figure_jobs import FigureJob
    >>> jobs = [FigureJob(n, draw=list, dpi=100, cost=c) for n, c in zip("abcd", [1, 4, 2, 4])]
    >>> by_cost(jobs)
    [1, 3, 2, 0]
    """
    return sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)


def _run_one(job: ReportJob, outdir: Path) -> dict[str, Path]:
    _wait_for_figure_code()  # a worker still loading it in the background: no race
    return job(outdir)


#: The jobs of the report being drawn, as a worker read them: file path -> jobs.
_READ: dict[str, list[ReportJob]] = {}


def _run_listed(path: str, index: int, outdir: Path) -> dict[str, Path]:
    """Run job ``index`` of the list pickled at ``path`` (:func:`run_jobs`), reading the list
    only the first time this worker meets the file."""
    jobs = _READ.get(path)
    if jobs is None:
        _READ.clear()  # one report at a time: the last one's data goes
        jobs = _READ[path] = _cloudpickle().loads(Path(path).read_bytes())
    return _run_one(jobs[index], outdir)


def run_jobs(jobs: Sequence[ReportJob], outdir: str | Path, *, n_jobs: int = 1) -> dict[str, Path]:
    """Run ``jobs`` into ``outdir``; with ``n_jobs`` other than 1 (and more than one core) in
    joblib worker processes, one job per task: as many processes as ``n_jobs`` (-1: all cores)
    allows, at most one per job (:func:`draw_workers`), each handed the next job when it is free,
    largest ``cost`` first (:func:`by_cost`), so a process that must first load the figure code
    simply draws fewer. After a study's cells these are the processes the cells ran in (joblib
    reuses its pool).

    The jobs' data (the study's results and traces, which most of them share) is serialized
    once: local worker processes read the whole list from one temporary file, once each, and
    are then handed job numbers; other backends (a dask cluster) get each job by value. The
    files come back in the order of ``jobs``."""
    out = Path(outdir)
    workers = draw_workers(n_jobs, len(jobs))
    if workers == 1:
        parts = [job(out) for job in jobs]
    else:
        parts = _run_parallel(jobs, out, workers)
    written: dict[str, Path] = {}
    for files in parts:
        written.update(files)
    return written


def _cloudpickle() -> Any:
    try:  # joblib >= 1.5 depends on cloudpickle; older joblib vendors it
        import cloudpickle
    except ImportError:  # pragma: no cover
        from joblib.externals import cloudpickle  # type: ignore[no-redef]
    return cloudpickle


def _run_parallel(jobs: Sequence[ReportJob], out: Path, workers: int) -> list[dict[str, Path]]:
    import tempfile

    from joblib import Parallel, delayed
    from joblib.parallel import get_active_backend

    order = by_cost(jobs)
    # a worker of a reused pool may run in another folder than this process: an absolute
    # path there, the paths returned as given here
    where = out.resolve()
    local = "loky" in type(get_active_backend()[0]).__name__.lower()
    with tempfile.TemporaryDirectory(prefix="svmtune-report-") as tmp:
        if local:  # pickled once (shared frames once), read once per worker
            listed = Path(tmp) / "jobs.pkl"
            listed.write_bytes(_cloudpickle().dumps(list(jobs)))
            calls = (delayed(_run_listed)(str(listed), i, where) for i in order)
        else:
            calls = (delayed(_run_one)(jobs[i], where) for i in order)
        done = Parallel(n_jobs=workers, batch_size=1, pre_dispatch="n_jobs")(calls)
    by_index = {
        i: {k: out / p.relative_to(where) for k, p in files.items()}
        for i, files in zip(order, done, strict=True)
    }
    return [by_index[i] for i in range(len(jobs))]


def draw_workers(n_jobs: int | None, n_figures: int) -> int:
    """How many processes :func:`run_jobs` draws ``n_figures`` jobs in: 1 for ``n_jobs=1``, a
    single job or a single core; else joblib's number for ``n_jobs`` (-1 or None: all cores),
    at most one per job (a process more would only load the figure code).

    Examples
    --------
    >>> draw_workers(1, 9), draw_workers(4, 1), draw_workers(16, 3) <= 3
    (1, 1, True)
    """
    if n_jobs == 1 or n_figures < 2 or (os.cpu_count() or 1) < 2:
        return 1
    from joblib import effective_n_jobs

    return max(1, min(effective_n_jobs(n_jobs), n_figures))


_loading: threading.Thread | None = None


def load_in_background(load: Callable[[], None]) -> None:
    """Start ``load`` in a background thread of this process and return at once (once per
    process; later calls do nothing): a worker process with nothing to do loads a report's
    code meanwhile (``svmtune.study.report._figure_code.load_figure_code``, handed in by its
    caller, so that this module imports none of the drawing code), and a figure job waits for
    the thread before it draws."""
    global _loading
    if _loading is None:
        _loading = threading.Thread(target=load, name="load-figure-code", daemon=True)
        _loading.start()


def _wait_for_figure_code() -> None:
    if _loading is not None:
        _loading.join()
