"""One cell of a study: (data set, split, method), run where joblib puts it.

The parent process sends each cell as a cloudpickled :class:`CellTask` (so data-set callables and
objectives defined in a study file travel by value to any joblib backend, dask included) and gets
a :class:`CellRecord` back; the parent alone writes to the storage.
"""

from __future__ import annotations

import copy
import math
import os
import socket
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from svmtune._quiet import quiet_optuna_logging, third_party_quiet
from svmtune.objectives import Status
from svmtune.solvers import blas_controller
from svmtune.study.run._code import code_version
from svmtune.study.run._data import DatasetSpec, Splitter
from svmtune.study.run._folds import with_folds
from svmtune.study.run._incumbent import incumbent_test_errors
from svmtune.study.run._method import Method, study_box
from svmtune.study.run._peer import PeerMethod, fit_peer, warm_up_peer
from svmtune.study.store._records import CellKey, CellRecord
from svmtune.tuners import BracketEdgeWarning, box_record, cpu_budget, warm_up_method

__all__ = ["CellKey", "CellRecord", "CellTask", "run_cell", "run_payload"]

try:  # joblib >= 1.5 depends on cloudpickle; older joblib vendors it
    import cloudpickle
except ImportError:  # pragma: no cover
    from joblib.externals import cloudpickle  # type: ignore[no-redef]


#: The folder svmtune is installed in (a checkout or site-packages), with its separator.
_ROOT = str(Path(__file__).parents[3]) + os.sep  # this file: svmtune/study/run/


def _failure_text(exc: BaseException) -> str:
    """A failed cell's stored error: the traceback, with the files under svmtune's install folder
    named from it (``svmtune/...``), so a stored study does not carry this machine's paths."""
    return "".join(traceback.format_exception(exc)).strip().replace(_ROOT, "")


@dataclass(frozen=True)
class CellTask:
    """Everything a worker needs to run one cell."""

    key: CellKey
    data: DatasetSpec
    protocol: str | Splitter
    test_size: float
    method: Method
    split_seed: int
    seed: int
    max_seconds: float | None = None
    bounds: dict[str, tuple[float, float]] | None = None
    #: Seed of the cell's fold assignment (:func:`~svmtune.study.run._folds.fold_seed`): a
    #: k-fold method cross-validates on the folds it draws; None keeps the method's own.
    fold_seed: int | None = None
    #: Per-run budget in CPU seconds of the process (:func:`svmtune.tuners.cpu_budget`).
    max_cpu_seconds: float | None = None


def _limited_tuner(method: Method, max_seconds: float | None) -> tuple[Any, bool]:
    """The tuner with its deadline lowered to the cell's limit, and whether that limit rules."""
    tuner = method.tuner
    if max_seconds is None:
        return tuner, False
    own = tuner.max_seconds
    if own is not None and own <= max_seconds:
        return tuner, False
    tuner = copy.copy(tuner)
    tuner.max_seconds = float(max_seconds)
    return tuner, True


def _seeded_objective(method: Method, seed: int) -> Any:
    """The objective, with ``random_state=seed`` if it has a ``random_state`` left as None (so
    that, e.g., k-fold CV's folds are reproducible per cell)."""
    objective = method.objective
    if hasattr(objective, "random_state") and objective.random_state is None:
        objective = copy.copy(objective)
        objective.random_state = seed
    return objective


#: Peer methods this process has run once already (svmtune's own: ``warm_up_method``).
_WARMED: set[str] = set()


def _warm_up(method: Method, X: Any, y: Any) -> None:
    """Run a method once, untimed, on a small slice of the training data, the first time this
    process meets it (:func:`svmtune.tuners._warm_up.warm_up_method`, as ``Tuner.tune`` does)."""
    warm_up_method(method.objective, method.tuner, method.kernel, X, y)


def _one_blas_thread() -> Any:
    """BLAS limited to one thread for a cell, in any thread, through the process's controller
    (its libraries inspected once per process, not once per cell: see ``blas_controller``)."""
    return blas_controller().limit(limits=1)


def run_cell(task: CellTask) -> CellRecord:
    """Run one cell; any exception becomes a FAILED record with its error text."""
    started = datetime.now(UTC)
    rec = CellRecord(key=task.key, status=str(Status.OK), seed=task.seed, started_at=started)
    rec.host = socket.gethostname()
    rec.code = code_version()
    t0 = math.inf
    try:
        Xtr, ytr, Xte, yte = task.data.split(
            task.protocol, task.key.split, task.split_seed, test_size=task.test_size
        )
        rec.n_train, rec.n_test = int(Xtr.shape[0]), int(Xte.shape[0])
        if isinstance(task.method, PeerMethod):
            return _run_peer_cell(task, rec, Xtr, ytr, Xte, yte)
        tuner, limited = _limited_tuner(task.method, task.max_seconds)
        objective = _seeded_objective(task.method, task.seed)
        if task.fold_seed is not None:
            objective = with_folds(objective, ytr, task.fold_seed)
        # One BLAS thread per cell: parallelism is across cells, and idle BLAS threads spin,
        # which would bill CPU seconds to whatever runs after them.
        with _one_blas_thread():
            _warm_up(task.method, Xtr, ytr)
            t0 = time.perf_counter()
            # the CPU budget (None: none) counts from the set-up (bind), which the run is billed
            with cpu_budget(task.max_cpu_seconds), warnings.catch_warnings():
                bound = objective.bind(Xtr, ytr, kernel=task.method.kernel)
                # a bisection at its bracket's edge: the cell stores its box and best_params,
                # which show it; one warning per cell would bury a study's output
                warnings.simplefilter("ignore", BracketEdgeWarning)
                result = tuner.tune_bound(
                    bound,
                    random_state=task.seed,
                    bounds=study_box(objective.search_space(task.method.kernel), task.bounds),
                )
            rec.test_error = float(result.best_classifier.error(Xte, yte))
            elapsed = time.perf_counter() - t0
            # anytime curves: the test error of each incumbent, after the timed run (uncharged)
            trace = result.trace.copy()
            trace["incumbent_test_error"] = incumbent_test_errors(
                trace,
                lambda p: bound.classifier(p).error(Xte, yte),
                final=rec.test_error,
                n_train=bound.n_samples,
            )
    except Exception as exc:  # a failed cell is recorded and the study goes on
        rec.status = str(Status.FAILED)
        rec.error = _failure_text(exc)
        spent = time.perf_counter() - t0
        if (
            task.max_seconds is not None
            and isinstance(exc, RuntimeError)
            and spent >= task.max_seconds
        ):
            # the limit struck before the tuner finished a single evaluation
            rec.status = str(Status.TIMEOUT)
            rec.error = (
                f"cell time limit of {task.max_seconds:g} s reached after {spent:.3g} s, before "
                f"the first evaluation finished ({exc})"
            )
            rec.n_evaluations = 0
            rec.stopped_by = "max_seconds"
        else:
            _cpu_budget_status(task, rec, exc=exc)
        rec.finished_at = datetime.now(UTC)
        return rec
    cost = result.total_cost
    rec.best_params = {k: float(v) for k, v in result.best_params.items()}
    rec.box = None if result.space is None else box_record(result.space)
    rec.objective_value = float(result.best_value)
    rec.wall_s, rec.cpu_s = float(cost.wall_s), float(cost.cpu_s)
    rec.kernel_evals, rec.iterations = int(cost.kernel_evals), int(cost.iterations)
    rec.n_evaluations = int(result.n_evaluations)
    rec.stopped_by = result.stopped_by
    rec.trace = trace
    if task.max_seconds is not None and (
        (limited and result.stopped_by == "max_seconds") or elapsed > task.max_seconds
    ):
        rec.status = str(Status.TIMEOUT)
        rec.error = (
            f"cell time limit of {task.max_seconds:g} s reached after {elapsed:.3g} s "
            f"({rec.n_evaluations} evaluations); values are the best found until then"
        )
    _cpu_budget_status(task, rec)
    rec.finished_at = datetime.now(UTC)
    return rec


def _cpu_budget_status(task: CellTask, rec: CellRecord, *, exc: Exception | None = None) -> None:
    """Mark a svmtune run that the study's CPU budget stopped (or that overran it) TIMEOUT,
    also when the budget was spent before the first evaluation (``exc``: the tuner's error)."""
    limit = task.max_cpu_seconds
    if limit is None:
        return
    if exc is not None:
        if "made no evaluation" in str(exc):
            rec.status, rec.n_evaluations = str(Status.TIMEOUT), 0
            rec.stopped_by = "max_cpu_seconds"
            rec.error = f"CPU budget of {limit:g} s spent before the first evaluation ({exc})"
        return
    if rec.stopped_by == "max_cpu_seconds" or (rec.cpu_s or 0.0) > limit:
        rec.status = str(Status.TIMEOUT)
        rec.error = (
            f"CPU budget of {limit:g} s reached after {rec.cpu_s:.3g} CPU s "
            f"({rec.n_evaluations} evaluations); values are the best found until then"
        )


def _run_peer_cell(
    task: CellTask, rec: CellRecord, Xtr: Any, ytr: Any, Xte: Any, yte: Any
) -> CellRecord:
    """A cell of a :class:`~svmtune.study.run._peer.PeerMethod`: warm up, fit timed, record."""
    method = task.method
    assert isinstance(method, PeerMethod)
    with _one_blas_thread():
        key = repr(method.describe())
        if key not in _WARMED:
            _WARMED.add(key)
            warm_up_peer(method, Xtr, ytr)
        out = fit_peer(method, Xtr, ytr, Xte, yte, seed=task.seed, fold_seed=task.fold_seed)
    rec.test_error = out.test_error
    rec.wall_s, rec.cpu_s = out.wall_s, out.cpu_s
    rec.best_params = out.best_params
    rec.objective_value = out.objective_value
    rec.n_evaluations = out.n_fits
    rec.stopped_by = "converged"
    rec.trace = out.trace
    if task.max_seconds is not None and out.wall_s > task.max_seconds:
        rec.status = str(Status.TIMEOUT)
        rec.error = (
            f"cell time limit of {task.max_seconds:g} s overrun: the peer's fit took "
            f"{out.wall_s:.3g} s (a peer cannot be stopped part-way; its values are stored)"
        )
    if task.max_cpu_seconds is not None and out.cpu_s > task.max_cpu_seconds:
        rec.status = str(Status.TIMEOUT)
        rec.error = (
            f"CPU budget of {task.max_cpu_seconds:g} s overrun: the peer's fit took "
            f"{out.cpu_s:.3g} CPU s (a peer cannot be stopped part-way; its values are stored)"
        )
    rec.finished_at = datetime.now(UTC)
    return rec


def dump_task(task: CellTask) -> bytes:
    """Serialize a task by value (cloudpickle), whatever module its callables live in."""
    return cloudpickle.dumps(task)


#: The parent process a worker watches (see :func:`_watch_parent`).
_WATCHED: list[int] = []


def _watch_parent(parent_pid: int | None) -> None:
    """In a local worker process (whose parent is the process running the study), exit as soon
    as that parent is gone: after a ``kill -9`` of ``svmtune run``, idle joblib/loky workers
    would otherwise live on for minutes, holding memory."""
    if parent_pid is None or _WATCHED or os.getpid() == parent_pid:
        return
    if os.getppid() != parent_pid:  # not a direct child (a dask worker): not ours to watch
        return
    _WATCHED.append(parent_pid)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent_pid:  # re-parented: the study process died
                os._exit(0)

    threading.Thread(target=watch, name="svmtune-parent-watch", daemon=True).start()


def run_payload(
    key: CellKey, seed: int, payload: bytes, parent_pid: int | None = None
) -> CellRecord:
    """Worker entry point: unpickle a :func:`dump_task` payload and run the cell.

    A payload the worker cannot unpickle (a module missing there) gives a FAILED record too.
    ``parent_pid`` is the process running the study: a local worker exits when it dies.
    """
    _watch_parent(parent_pid)
    with third_party_quiet():  # optuna's import-time and experimental warnings, per cell
        try:
            task = cloudpickle.loads(payload)
        except Exception as exc:
            return CellRecord(
                key=key,
                status=str(Status.FAILED),
                seed=seed,
                error="could not unpickle the cell on the worker: " + _failure_text(exc),
                host=socket.gethostname(),
            )
        with quiet_optuna_logging():
            return run_cell(task)
