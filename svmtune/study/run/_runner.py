"""Running a study's cells: claim, run (joblib processes or dask workers), store, repeat.

:func:`run_cells` is the loop behind :meth:`Study.run`: it registers the study (the storage
refuses a changed definition, or data that changed under a data set's name), orders the
missing cells longest first (:func:`expected_cost`), claims them one by one
(:func:`claim_cells`), runs them and stores each finished cell at once; then it waits for the
cells other workers still run, and takes over those whose workers die, so that the study is
complete when it returns.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from svmtune.study.run._cell import CellTask, run_payload
from svmtune.study.run._data import data_prints
from svmtune.study.run._start import first_result_note, starting_note
from svmtune.study.run._workers import watched_backend
from svmtune.study.store._claim_times import HEARTBEAT_S, STALE_AFTER_S
from svmtune.study.store._claims import new_worker_id
from svmtune.study.store._data_prints import register_with_data
from svmtune.study.store._records import CellKey, CellRecord
from svmtune.study.store._storage import Storage

__all__ = [
    "HEARTBEAT_S",
    "STALE_AFTER_S",
    "Heartbeat",
    "capped_n_jobs",
    "claim_cells",
    "execute",
    "run_cells",
]

#: Seconds between two looks at the cells other workers run, once this one has none left.
POLL_S = 2.0
#: After a lost claim, the next cell is drawn among this many free ones (see claim_cells).
_WINDOW = 16


def claim_cells(
    store: Storage,
    study_id: int,
    study: str,
    keys: Sequence[CellKey],
    worker: str,
    *,
    redo: tuple[str, ...] = (),
    stale_after: float = STALE_AFTER_S,
) -> Iterator[CellKey]:
    """Claim the cells of ``keys`` one by one, as the caller asks for the next; yield those won.

    Cells are tried in the order given until a claim is lost: other workers walk the same
    order. Then the cells that have a row (stored or claimed) are read in one query and
    skipped, and the next cell is drawn at random among the first ``_WINDOW`` free ones, so that
    workers that start together spread out instead of all racing for the same next cell (and
    the order is kept, up to that window). A second pass over the skipped cells takes over the
    claims of workers that died meanwhile.
    """
    rng = random.Random(worker)
    order = list(keys)
    skipped: list[CellKey] = []
    taken: set[CellKey] = set()
    lost = False
    while order:
        if redo:  # stored cells are to be tried again: nothing to skip
            key = order.pop(0)
        else:
            free = [i for i, k in enumerate(order[: 4 * _WINDOW]) if k not in taken]
            if not free:  # the next cells are all taken: skip them
                skipped.extend(order[: 4 * _WINDOW])
                del order[: 4 * _WINDOW]
                continue
            i = free[rng.randrange(min(len(free), _WINDOW))] if lost else free[0]
            key = order.pop(i)
            skipped.extend(k for k in order[:i] if k in taken)
            order[:i] = [k for k in order[:i] if k not in taken]
        if store.claim(study_id, key, worker, redo=redo, stale_after=stale_after):
            lost = False
            yield key
        else:
            lost = True
            skipped.append(key)
            if not redo:
                taken = store.taken(study)
    if skipped:
        stored, running = store.finished(study), store.running(study)
        stale = store.stale(study, stale_after)
        for key in skipped:
            open_ = key not in stored and (key not in running or key in stale)
            if open_ and store.claim(study_id, key, worker, stale_after=stale_after):
                yield key


class Heartbeat:
    """A daemon thread renewing the heartbeat of a worker's claims every ``interval`` seconds."""

    def __init__(self, store: Storage, worker: str, interval: float = HEARTBEAT_S) -> None:
        self.store = store
        self.worker = worker
        self.interval = interval
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="svmtune-heartbeat", daemon=True)

    def _loop(self) -> None:
        while not self.done.wait(self.interval):
            try:
                self.store.heartbeat(self.worker)
            except Exception:  # a busy database: the next beat will do
                pass

    def start(self) -> None:
        if not self.store.in_memory:  # no other process can see an in-memory database
            self.thread.start()

    def stop(self) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()


def expected_cost(task: CellTask) -> float:
    """A cheap guess of a cell's cost, to start the longest cells first: ``n_train ** 2`` (a
    kernel matrix) x the tuner's evaluations x the objective's solves per evaluation (k for
    k-fold CV, ``n_train / 10`` retrains for the exact leave-one-out error, else 1); a peer
    search counts its candidates x its CV folds. ``n_train`` comes from the bundled data set's
    row count, or a loader's ``n_rows`` attribute (:class:`svmtune.datasets.SuiteLoader`).

    Only the order of the cells depends on it, never their results.
    """
    n = 100.0
    hint = getattr(task.data.loader, "n_rows", None)  # a loader that knows its size
    if isinstance(hint, int | float) and hint > 0:
        n = float(hint) * (1.0 - task.test_size if task.protocol == "holdout" else 0.7)
    elif task.data.bundled:
        try:
            from svmtune.datasets import n_rows

            rows = n_rows(task.data.bundled_name)
            n = rows * (1.0 - task.test_size if task.protocol == "holdout" else 0.7)
        except (KeyError, ValueError):
            pass
    method = task.method
    tuner, objective = getattr(method, "tuner", None), getattr(method, "objective", None)
    evals = float(getattr(tuner, "max_evals", None) or 0)
    est = getattr(method, "estimator", None)  # a peer: its candidates x its CV folds
    if est is not None and not evals:
        grid = getattr(est, "param_grid", None)
        size = getattr(est, "n_iter", None) or getattr(est, "n_trials", None)
        if isinstance(grid, dict):
            size = math.prod(len(v) for v in grid.values())
        cv = getattr(est, "cv", None)
        evals = float(size or 1) * float(cv if isinstance(cv, int) else 5)
    if not evals:
        try:
            dims = len(method.search_space())
        except Exception:
            dims = 1
        evals = float(getattr(tuner, "n_points", 0) or 0) ** dims or 20.0
    per_eval = 1.0
    name = type(objective).__name__
    if name == "KFoldCV":
        per_eval = float(getattr(objective, "k", 5))
    elif name == "ExactLOO":
        per_eval = max(1.0, n / 10)
    return n * n * evals * per_eval


def run_cells(
    name: str,
    seed: int,
    definition: dict[str, Any],
    tasks: list[CellTask],
    payloads: Mapping[CellKey, bytes],
    url: str,
    *,
    n_jobs: int | None = 1,
    retry_failed: bool = False,
    replace_changed: bool = False,
    progress: bool | Callable[[CellRecord, int, int], None] = False,
    stale_after: float = STALE_AFTER_S,
    warm_workers: Callable[[], object] | None = None,
    rerun: Sequence[str] = (),
) -> None:
    """Run the cells of ``tasks`` not stored yet in the database at ``url`` (see
    :meth:`Study.run`, whose options these are; ``payloads`` are the pickled tasks;
    ``warm_workers``, what idle local workers call after the last cell, is handed in by
    ``Study.run`` with ``report_next``).

    At most one worker process per cell to run is started (``n_jobs`` is capped at their
    number before any call is built)."""
    store = Storage(url)
    worker = new_worker_id()
    beat = Heartbeat(store, worker, min(HEARTBEAT_S, stale_after / 3))
    try:
        register = partial(
            store.register_study, name, seed, definition, replace_changed=replace_changed
        )
        study_id = register_with_data(
            store, name, data_prints(t.data for t in tasks), rerun, register
        )
        redo = ("failed", "timeout") if retry_failed else ()
        done = store.finished(name)
        candidates = [t for t in tasks if t.key not in done or done[t.key] in redo]
        # longest first: no core idles at the end while one runs the last long cell
        candidates.sort(key=expected_cost, reverse=True)
        if not candidates and progress is True:
            print(
                f"{name}: nothing to run, all {len(tasks)} cells are stored in {url}",
                file=sys.stderr,
            )
        tally = _Tally(name, len(done), len(tasks), progress)
        claimer = _Claimer(store, study_id, name, worker, stale_after)
        if candidates:
            tally.starting(n_jobs)
        beat.start()
        try:
            pending, redo_now = candidates, redo
            while pending:
                records = execute(
                    claimer.claimed(pending, redo_now),
                    payloads,
                    capped_n_jobs(n_jobs, len(pending)),
                    warm_workers=warm_workers,
                    announce=tally.announce,
                )
                for rec in records:
                    if store.write_cell(study_id, rec, worker=worker):
                        tally.stored(rec)
                    # else taken over meanwhile (we were presumed dead): theirs counts
                redo_now = ()
                pending = _wait_for_other_workers(store, name, candidates, stale_after)
        finally:
            tally.close()
    finally:
        beat.stop()
        try:
            store.release(worker)  # an interrupted run gives its cells back at once
        except Exception:  # a broken database: its claims go stale (this pid ends)
            pass
        finally:
            store.close()


def capped_n_jobs(n_jobs: int | None, n_cells: int) -> int | None:
    """``n_jobs`` capped at the number of cells to run (a positive ``n_jobs`` only: -1 and
    None are joblib's to resolve, for the cores or a dask cluster's workers).

    Examples
    --------
    >>> capped_n_jobs(1_000_000_000, 12), capped_n_jobs(-1, 12), capped_n_jobs(4, 0)
    (12, -1, 1)
    """
    if n_jobs is not None and n_jobs > 1:
        return max(1, min(n_jobs, n_cells))
    return n_jobs


class _Claimer:
    """Claims the cells of a list of tasks for one worker, as the run loop asks for the next."""

    def __init__(
        self, store: Storage, study_id: int, study: str, worker: str, stale_after: float
    ) -> None:
        self.store, self.study_id, self.study = store, study_id, study
        self.worker, self.stale_after = worker, stale_after

    def claimed(self, pending: list[CellTask], redo: tuple[str, ...]) -> Iterator[CellTask]:
        by_key = {t.key: t for t in pending}
        keys = claim_cells(
            self.store,
            self.study_id,
            self.study,
            list(by_key),
            self.worker,
            redo=redo,
            stale_after=self.stale_after,
        )
        return (by_key[k] for k in keys)


class _Tally:
    """Counts the stored cells and shows them: a tqdm bar (``progress=True``) or a callback."""

    def __init__(
        self,
        name: str,
        n_done: int,
        n_total: int,
        progress: bool | Callable[[CellRecord, int, int], None],
    ) -> None:
        self.n_done, self.n_total, self.progress = n_done, n_total, progress
        self.bar: Any = None
        if progress is True:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=n_total, initial=n_done, unit="cell", desc=name)
        self.announce = None if self.bar is None else _bar_note(self.bar)
        self.first = True

    def starting(self, n_jobs: int | None) -> None:
        """Say on the bar that the workers are starting (before the first cell ends)."""
        if self.bar is not None:
            self.bar.set_postfix_str(starting_note(n_jobs), refresh=True)

    def stored(self, rec: CellRecord) -> None:
        self.n_done += 1
        first, self.first = self.first, False
        if self.bar is not None:
            self.bar.update(1)
            if first:
                self.bar.set_postfix_str(first_result_note(rec))
            elif rec.status != "ok":
                key = rec.key
                self.bar.set_postfix_str(
                    f"last {rec.status}: {key.dataset}/{key.split}/{key.method}"
                )
        elif callable(self.progress):
            self.progress(rec, self.n_done, self.n_total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _wait_for_other_workers(
    store: Storage, name: str, candidates: list[CellTask], stale_after: float
) -> list[CellTask]:
    """Wait while other workers still run cells of ``candidates``; the cells to run here
    (those whose worker died: stale claims), or none once every cell is stored, so that the
    study is complete when the run returns."""
    while True:
        stored = store.finished(name)
        left = [t for t in candidates if t.key not in stored]
        if not left:
            return []
        running = store.running(name)
        stale = store.stale(name, stale_after)
        pending = [t for t in left if t.key not in running or t.key in stale]
        if pending:
            return pending
        time.sleep(min(POLL_S, stale_after / 3))


def _bar_note(bar: Any) -> Callable[[str], object]:
    """A line on stderr above the progress bar ``bar`` (which stays at the bottom)."""
    return lambda text: bar.write(text, file=sys.stderr)


def execute(
    tasks: Iterable[CellTask],
    payloads: Mapping[CellKey, bytes],
    n_jobs: int | None,
    *,
    warm_workers: Callable[[], object] | None = None,
    announce: Callable[[str], object] | None = None,
) -> Iterator[CellRecord]:
    """The records of ``tasks`` as they finish (in this process with ``n_jobs=1``, else
    through joblib). With ``warm_workers`` and local worker processes, a ``warm_workers()``
    call per worker follows the last cell (``report_next`` of :meth:`Study.run` hands in the
    report's :func:`~svmtune.study.report._figure_code.load_figure_code_soon`, which returns
    at once, so nothing here waits for the loading; the runner never imports what it is
    handed).
    ``announce`` is told when the solver loops are compiled first (an empty cache)."""
    pid = os.getpid()
    from joblib import Parallel, delayed, effective_n_jobs  # ~0.2 s to import: only when used

    calls: Iterator[Any] = (
        delayed(run_payload)(t.key, t.seed, payloads[t.key], pid) for t in tasks
    )
    if n_jobs == 1:
        for call in calls:
            fn, args, kwargs = call
            yield fn(*args, **kwargs)
        return
    backend = watched_backend()  # local workers exit with this process, even after kill -9
    local = backend is not None
    if local:
        _fill_compile_cache(n_jobs, announce=announce, backend=backend)
    parallel = Parallel(
        n_jobs=n_jobs, return_as="generator_unordered", batch_size=1, backend=backend
    )
    if warm_workers is not None and local:
        # handed out after the last cell: a free worker loads the figure code in a thread of
        # its own meanwhile, without holding up the records of the cells still running
        warm = [delayed(warm_workers)() for _ in range(effective_n_jobs(n_jobs))]
        calls = itertools.chain(calls, warm)
    for rec in parallel(calls):
        if rec is not None:
            yield rec


def stop_local_workers() -> None:
    """Stop joblib's local worker processes now, killing them, when they are idle and nothing
    will use them again (the end of ``svmtune run``).

    At interpreter exit loky would stop them one by one and wait for each to unload its
    modules (numba, matplotlib): 0.9 s from the end of a two-process quickstart run to the end
    of its process, against 0.2 s when they are stopped here first (``benchmarks/timeline.py``).
    Nothing is done if this process never started them (joblib not imported, or no pool)."""
    if "joblib" not in sys.modules:
        return
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)  # loky's one reusable pool
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def _fill_compile_cache(
    n_jobs: int | None, *, announce: Callable[[str], object] | None = None, backend: Any = None
) -> None:
    """Compile the solvers' loops in the local worker processes, once, before the cells start.

    On an empty numba cache (a fresh install) every local worker would compile the same loops
    at the same time as its first cells need them. Instead one worker compiles the SMO loop
    while another compiles the exact leave-one-out retrain loop and the RBF kernel's sums, which
    share only small helpers with it (:func:`~svmtune.solvers.warm_up`), both into the cache;
    every other process then loads the machine code. Nothing is done on a warm cache (the
    caller runs this only for local worker processes: a dask cluster's workers have caches of
    their own). ``announce`` (the progress bar's ``write``) is told when it compiles."""
    from svmtune.solvers import compile_cache_is_warm, warm_up

    if compile_cache_is_warm():
        return
    if announce is not None:
        announce("compiling the solver loops first (once after an install, a few seconds)")
    from joblib import Parallel, delayed

    shares = [{"exact": False, "kernel_sums": False}, {"smo": False}]
    Parallel(n_jobs=n_jobs, batch_size=1, backend=backend)(
        delayed(warm_up)(**share) for share in shares
    )
