"""Running a study's cells: claim, run (joblib processes or dask workers), store, repeat.

:func:`run_cells` is the loop behind :meth:`Study.run`: it registers the study (the storage
refuses a changed definition), orders the missing cells longest first (:func:`expected_cost`),
claims them one by one (:func:`claim_cells`), runs them and stores each
finished cell at once; then it waits for the cells other workers still run, and takes over
those whose workers die, so that the study is complete when it returns.
"""

from __future__ import annotations

import itertools
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from svmtune.study._cell import CellKey, CellRecord, CellTask, run_payload
from svmtune.study._claims import new_worker_id
from svmtune.study._start import first_result_note, starting_note
from svmtune.study._storage import Storage

__all__ = ["HEARTBEAT_S", "STALE_AFTER_S", "Heartbeat", "claim_cells", "execute", "run_cells"]

#: Seconds between two heartbeats of a running study's claims.
HEARTBEAT_S = 30.0
#: A claim whose heartbeat is older than this is taken over by another process.
STALE_AFTER_S = 300.0
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
    k-fold CV, ``n_train / 10`` retrains for the exact leave-one-out error, else 1).

    Only the order of the cells depends on it, never their results.
    """
    n = 100.0
    if task.data.bundled:
        try:
            from svmtune.datasets import n_rows

            rows = n_rows(task.data.bundled_name)
            n = rows * (1.0 - task.test_size if task.protocol == "holdout" else 0.7)
        except (KeyError, ValueError):
            pass
    method = task.method
    tuner, objective = getattr(method, "tuner", None), getattr(method, "objective", None)
    evals = float(getattr(tuner, "max_evals", None) or 0)
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
    report_next: bool = False,
) -> None:
    """Run the cells of ``tasks`` not stored yet in the database at ``url`` (see
    :meth:`Study.run`, whose options these are; ``payloads`` are the pickled tasks)."""
    store = Storage(url)
    worker = new_worker_id()
    beat = Heartbeat(store, worker, min(HEARTBEAT_S, stale_after / 3))
    try:
        study_id = store.register_study(name, seed, definition, replace_changed=replace_changed)
        n_total = len(tasks)
        redo = ("failed", "timeout") if retry_failed else ()
        done = store.finished(name)
        n_done = len(done)
        candidates = [t for t in tasks if t.key not in done or done[t.key] in redo]
        # longest first: no core idles at the end while one runs the last long cell
        candidates.sort(key=expected_cost, reverse=True)
        if not candidates and progress is True:
            print(
                f"{name}: nothing to run, all {n_total} cells are stored in {url}",
                file=sys.stderr,
            )

        def claimed(pending: list[CellTask], redo: tuple[str, ...]) -> Iterator[CellTask]:
            by_key = {t.key: t for t in pending}
            keys = claim_cells(
                store,
                study_id,
                name,
                list(by_key),
                worker,
                redo=redo,
                stale_after=stale_after,
            )
            return (by_key[k] for k in keys)

        bar = None
        if progress is True:
            from tqdm.auto import tqdm

            bar = tqdm(total=n_total, initial=n_done, unit="cell", desc=name)
            if candidates:
                bar.set_postfix_str(starting_note(n_jobs), refresh=True)
        beat.start()
        first = True
        try:
            pending, redo_now = candidates, redo
            while pending:
                for rec in execute(
                    claimed(pending, redo_now),
                    payloads,
                    n_jobs,
                    report_next=report_next,
                    announce=None if bar is None else _bar_note(bar),
                ):
                    if not store.write_cell(study_id, rec, worker=worker):
                        continue  # taken over meanwhile (we were presumed dead): theirs counts
                    n_done += 1
                    if bar is not None:
                        bar.update(1)
                        if first:
                            bar.set_postfix_str(first_result_note(rec))
                        elif rec.status != "ok":
                            bar.set_postfix_str(
                                f"last {rec.status}: {rec.key.dataset}/"
                                f"{rec.key.split}/{rec.key.method}"
                            )
                    elif callable(progress):
                        progress(rec, n_done, n_total)
                    first = False
                # Cells other workers still run: wait for them, and take over the claims of
                # those that die (once their heartbeat is stale), so that the study is
                # complete when this run returns.
                redo_now = ()
                while True:
                    stored = store.finished(name)
                    left = [t for t in candidates if t.key not in stored]
                    if not left:
                        pending = []
                        break
                    running = store.running(name)
                    stale = store.stale(name, stale_after)
                    pending = [t for t in left if t.key not in running or t.key in stale]
                    if pending:
                        break
                    time.sleep(min(POLL_S, stale_after / 3))
        finally:
            if bar is not None:
                bar.close()
    finally:
        beat.stop()
        try:
            store.release(worker)  # an interrupted run gives its cells back at once
        except Exception:  # a broken database: its claims go stale (this pid ends)
            pass
        finally:
            store.close()


def _bar_note(bar: Any) -> Callable[[str], object]:
    """A line on stderr above the progress bar ``bar`` (which stays at the bottom)."""
    return lambda text: bar.write(text, file=sys.stderr)


def execute(
    tasks: Iterable[CellTask],
    payloads: Mapping[CellKey, bytes],
    n_jobs: int | None,
    *,
    report_next: bool = False,
    announce: Callable[[str], object] | None = None,
) -> Iterator[CellRecord]:
    """The records of ``tasks`` as they finish (in this process with ``n_jobs=1``, else
    through joblib). With ``report_next`` and local worker processes, a
    :func:`~svmtune.study._figure_jobs.load_figure_code_soon` call per worker follows the last
    cell (see :meth:`Study.run`): it returns at once, so nothing here waits for the loading.
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
    local = _local_processes()
    if local:
        _fill_compile_cache(n_jobs, announce=announce)
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)
    if report_next and local:
        from svmtune.study._figure_jobs import load_figure_code_soon

        # handed out after the last cell: a free worker loads the figure code in a thread of
        # its own meanwhile, without holding up the records of the cells still running
        warm = [delayed(load_figure_code_soon)() for _ in range(effective_n_jobs(n_jobs))]
        calls = itertools.chain(calls, warm)
    for rec in parallel(calls):
        if rec is not None:
            yield rec


def _local_processes() -> bool:
    """Whether joblib runs the cells in local worker processes (its loky backend), not on a
    dask cluster or in threads."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    return "loky" in type(backend).__name__.lower()


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
    n_jobs: int | None, *, announce: Callable[[str], object] | None = None
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
    Parallel(n_jobs=n_jobs, batch_size=1)(delayed(warm_up)(**share) for share in shares)
