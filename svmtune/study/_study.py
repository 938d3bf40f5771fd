"""A study: many (objective, tuner, kernel) methods over many data sets and splits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from svmtune._params import _jsonable
from svmtune.study._checks import check_definition_options, check_run_options
from svmtune.study._study_results import StudyResults
from svmtune.study._study_subset import StudySubset
from svmtune.study.run._cell import CellTask, dump_task
from svmtune.study.run._data import (
    PROTOCOLS,
    DatasetSpec,
    Splitter,
    cell_seed,
    resolve_datasets,
    split_seed,
)
from svmtune.study.run._folds import STUDY_PROTOCOL, fold_seed, noise_controls
from svmtune.study.run._method import Method
from svmtune.study.run._names import check_study_name
from svmtune.study.run._peer import PeerMethod
from svmtune.study.run._runner import run_cells
from svmtune.study.store._claim_times import STALE_AFTER_S
from svmtune.study.store._records import CellKey, CellRecord

__all__ = ["Study", "check_study_name"]


class Study(StudyResults, StudySubset):
    """A comparison of tuning methods over data sets and splits, stored cell by cell.

    A *cell* is one (data set, split, method): split the data, tune the method's objective with
    its tuner over its kernel's parameters on the training part, measure the tuned classifier's
    error on the test part. Its costs (``wall_s``, ``cpu_s``, kernel evaluations, solver
    iterations) are those of the tuning run (``TuningResult.total_cost``); one-time costs of a
    worker process (numba compilation) are paid before its first timed run of each method, by
    an untimed run on 20 training points.

    Every finished cell is written at once to a SQL database; running the study again skips the
    stored cells, so an interrupted study resumes where it stopped.

    Parameters
    ----------
    name : str
        Key of the study in the storage (letters, digits, ``_ . + -``).
    datasets : list of (str or callable) or dict name -> (str or callable)
        Bundled data set names (``svmtune datasets`` lists them), paths of CSV / KEEL / LIBSVM
        files, callables returning ``(X, y)``, or :func:`svmtune.datasets.user_data` objects; a
        dict names them (``{"Breast": "wisconsin", "mine": (X, y), "df": frame}``: arrays and
        DataFrames need a name; a DataFrame's labels are its ``target``/``label``/``class``/``y``
        column). Labels of any two values are mapped to -1/+1 (the lower one to -1; see
        ``labels``); three or more classes are refused. Every data set but the bundled ones is
        loaded and checked here, at construction: bad data raises ValueError naming it.
    methods : dict name -> Method
        The compared methods.
    split : {"fischetti", "ratsch", "holdout"} or callable, default "holdout"
        The split protocol (see :mod:`svmtune.study.run._data`); a callable
        ``split(X, y, seed) -> (X_train, y_train, X_test, y_test)`` is accepted too.
    n_splits : int, default 10
        Splits per data set.
    seed : int, default 0
        The study seed; each cell's seeds derive from it and the cell's key alone
        (:func:`~svmtune.study.cell_seed`), so results depend neither on ``n_jobs`` nor on the
        order cells run in. The cell's seed is the tuner's ``random_state``, and the objective's
        too when it has a ``random_state`` left as None. Every k-fold method of a (data set,
        split), svmtune's k-fold objectives and the peers' ``cv=k`` alike, cross-validates on
        one stratified, shuffled fold assignment seeded from the split
        (:mod:`svmtune.study.run._folds`; a ``KFoldCV``'s own ``random_state`` is replaced);
        a method with ``folds=1, 2, ...`` gets another one: a noise control, reported apart.
    test_size : float, default 0.3
        Test fraction of the ``"holdout"`` protocol.
    max_seconds : float, optional
        Per-cell time limit. It is cooperative: the tuner's deadline is lowered to it and checked
        between evaluations; a cell cut by it, or that overran it, is stored with status
        ``"timeout"`` and the best values found until then.
    max_cpu_seconds : float, optional
        The same limit in CPU seconds of the cell's process (:func:`~svmtune.tuners.cpu_budget`).
    storage : str, optional
        SQLAlchemy URL of the database; default ``sqlite:///results/<name>.db`` (relative to the
        current directory).
    bounds : mapping name -> (low, high), optional
        The search box of every method (the one place to change it): parameters named here are
        searched in ``(low, high)`` by every tuner whose own ``bounds`` do not name them;
        the others keep :data:`~svmtune.tuners.DEFAULT_BOX` (``C`` in 0.1..1000, kernel widths
        in 0.001..10). Fischetti's bisection keeps its own interval. Each cell stores the box
        it searched (``box`` column of :meth:`results`).
    baseline : str, optional
        The method every other is tested against in ``report.md`` (Wilcoxon-Holm and the
        Bayesian signed-rank test), named before the study runs: a pre-planned comparison.
        Default: the best-ranked method (among ties, the lowest mean test error, then the first
        by name), chosen after seeing the data (the report says so).
    left_out : mapping name -> reason, optional
        Methods the study file could not define here, and why (``{"OptunaSearchCV": "needs
        pip install 'svmtune[peers]'"}``): ``svmtune run`` names them when it starts and ends,
        and ``report.md`` under "Left out".

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.study import Method, Study
    >>> from svmtune.tuners import Grid
    >>> def blobs():
    ...     rng = np.random.default_rng(0)
    ...     X = np.vstack([rng.normal(-1, 1, (40, 2)), rng.normal(1, 1, (40, 2))])
    ...     return X, np.repeat([-1.0, 1.0], 40)
    >>> def halves(X, y, seed):
    ...     idx = np.random.default_rng(seed).permutation(len(y))
    ...     tr, te = idx[:56], idx[56:]
    ...     return X[tr], y[tr], X[te], y[te]
    >>> study = Study("doc", datasets=[blobs], split=halves, n_splits=2, storage="sqlite://",
    ...               methods={"LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(), RBF())})
    >>> study.run().results()[["dataset", "split", "method", "status"]].shape
    (2, 4)
    """

    def __init__(
        self,
        name: str,
        *,
        datasets: Sequence[Any] | Mapping[str, Any],
        methods: Mapping[str, Method],
        split: str | Splitter = "holdout",
        n_splits: int = 10,
        seed: int = 0,
        test_size: float = 0.3,
        max_seconds: float | None = None,
        max_cpu_seconds: float | None = None,
        storage: str | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        baseline: str | None = None,
        left_out: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.datasets = datasets
        self.methods = methods
        self.split, self.n_splits, self.seed, self.test_size = split, n_splits, seed, test_size
        self.max_seconds, self.max_cpu_seconds = max_seconds, max_cpu_seconds
        self.storage, self.bounds = storage, bounds
        self.baseline = baseline
        self.left_out = left_out
        self._checked_data: tuple[Any, tuple[DatasetSpec, ...]] | None = None
        self._data_specs()  # bad data fails where the study is defined, naming the data set

    def __repr__(self) -> str:
        return (
            f"Study({self.name!r}, {len(self._dataset_names())} data sets, "
            f"{len(self.methods) if isinstance(self.methods, Mapping) else '?'} methods, "
            f"split={self._split_label()!r}, n_splits={self.n_splits})"
        )

    # -- definition ------------------------------------------------------------------------
    def _dataset_names(self) -> list[str]:
        try:
            return [s.name for s in self._data_specs()]
        except ValueError:
            return []

    def _data_specs(self) -> tuple[DatasetSpec, ...]:
        """The checked data sets (loaded once per assignment of ``datasets``)."""
        cached = getattr(self, "_checked_data", None)
        if cached is None or cached[0] is not self.datasets:
            self._checked_data = (self.datasets, resolve_datasets(self.datasets))
            cached = self._checked_data
        return cached[1]

    @property
    def labels(self) -> dict[str, dict[str, float]]:
        """How each data set's labels were mapped to -1/+1 (bundled data sets are -1/+1).

        Examples
        --------
        >>> import numpy as np
        >>> from svmtune.kernels import RBF
        >>> from svmtune.objectives import LOOEstimate
        >>> from svmtune.study import Method, Study
        >>> from svmtune.tuners import Grid
        >>> X = np.arange(20.0).reshape(10, 2)
        >>> study = Study("doc", datasets={"mine": (X, ["a"] * 5 + ["b"] * 5)},
        ...               methods={"m": Method(LOOEstimate(), Grid(), RBF())})
        >>> study.labels
        {'mine': {'a': -1.0, 'b': 1.0}}
        """
        return {s.name: dict(s.labels) for s in self._data_specs() if s.labels}

    def _split_label(self) -> str:
        if callable(self.split):
            return str(getattr(self.split, "__name__", "custom"))
        return str(self.split)

    def validate(self) -> tuple[tuple[DatasetSpec, ...], dict[str, Method]]:
        """Check the whole definition; ValueError naming the first bad part.

        Nothing runs: unknown data sets, an unknown split protocol, a bad number of splits, a
        method whose objective, tuner and kernel do not fit together are all caught here.
        """
        check_study_name(self.name)
        check_definition_options(
            seed=self.seed,
            n_splits=self.n_splits,
            test_size=self.test_size,
            max_seconds=self.max_seconds,
            max_cpu_seconds=self.max_cpu_seconds,
        )
        if not (callable(self.split) or self.split in PROTOCOLS):
            raise ValueError(
                f"unknown split protocol {self.split!r}; use one of {list(PROTOCOLS)} "
                "or a callable split(X, y, seed)"
            )
        specs = self._data_specs()
        if self.split == "ratsch":
            self._check_ratsch(specs)
        if not isinstance(self.methods, Mapping) or not self.methods:
            raise ValueError(
                f"methods must be a non-empty dict name -> Method; got {self.methods!r}"
            )
        if self.left_out is not None and not (
            isinstance(self.left_out, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in self.left_out.items())
        ):
            raise ValueError(f"left_out must be a dict name -> reason; got {self.left_out!r}")
        if self.bounds is not None and not isinstance(self.bounds, Mapping):
            raise ValueError(f"bounds must be a mapping name -> (low, high); got {self.bounds!r}")
        methods: dict[str, Method] = {}
        named: set[str] = set()
        for mname, method in self.methods.items():
            if not isinstance(mname, str) or not mname.strip():
                raise ValueError(f"method names must be non-empty strings; got {mname!r}")
            if not isinstance(method, Method):
                raise ValueError(
                    f"method {mname!r} must be a svmtune.study.Method(objective, tuner, kernel); "
                    f"got {method!r}"
                )
            try:
                if isinstance(method, PeerMethod):
                    method.search_space()
                else:
                    named.update(method.search_space(self.bounds).names)
            except ValueError as exc:
                raise ValueError(f"method {mname!r} cannot run: {exc}") from exc
            methods[mname] = method
        controls = noise_controls(methods)
        if self.baseline is not None and self.baseline in controls:
            raise ValueError(
                f"baseline {self.baseline!r} is a noise control (folds != 0); name the method it "
                f"replicates, {controls[self.baseline]!r}"
            )
        if self.baseline is not None and self.baseline not in methods:
            raise ValueError(
                f"baseline {self.baseline!r} is not a method of the study; the methods are "
                f"{list(methods)}"
            )
        unknown = [n for n in (self.bounds or {}) if n not in named]
        if unknown:
            raise ValueError(
                f"bounds name parameters {unknown} that no method searches "
                f"(they search {sorted(named)})"
            )
        return specs, methods

    def _check_ratsch(self, specs: tuple[DatasetSpec, ...]) -> None:
        from svmtune.datasets import ratsch_indices

        for spec in specs:
            if not spec.bundled:
                raise ValueError(
                    f"the 'ratsch' split protocol needs bundled data sets; {spec.name!r} is a "
                    "callable"
                )
            ratsch_indices(spec.bundled_name, 0)  # ValueError naming the valid names

    def definition(self) -> dict[str, Any]:
        """A JSON-able summary of the study (what the storage keeps in ``studies``)."""
        methods = self.methods if isinstance(self.methods, Mapping) else {}
        return {
            "name": self.name,
            "datasets": self._dataset_names(),
            "split": self._split_label(),
            "n_splits": self.n_splits,
            "seed": self.seed,
            "test_size": float(self.test_size) if self.split == "holdout" else None,
            "max_seconds": self.max_seconds,
            **({"max_cpu_seconds": self.max_cpu_seconds} if self.max_cpu_seconds else {}),
            "methods": {k: self._method_record(m) for k, m in methods.items()},
            "noise_controls": self._noise_controls(),
            **({"baseline": self.baseline} if self.baseline is not None else {}),
            "labels": self.labels,
            "left_out": {str(k): str(v) for k, v in (self.left_out or {}).items()},
        }

    def _method_record(self, method: Any) -> Any:
        if not hasattr(method, "describe"):
            return repr(method)
        record = method.describe()
        if self.bounds is not None and not isinstance(method, PeerMethod):
            record = {**record, "study_bounds": _jsonable(dict(self.bounds))}
        # the protocol (shuffled training parts, shared folds, billing) and the fold draw fix
        # the cells too: a stored cell of another protocol is not reused silently
        return {**record, "protocol": STUDY_PROTOCOL, "folds": int(getattr(method, "folds", 0))}

    def _noise_controls(self) -> dict[str, str]:
        try:
            return noise_controls(dict(self.methods))
        except (ValueError, TypeError):
            return {}

    @property
    def noise_controls(self) -> dict[str, str]:
        """Noise control -> the method it replicates on another fold assignment (methods with
        ``folds`` other than 0; :func:`svmtune.study.run._folds.noise_controls`)."""
        return noise_controls(dict(self.methods))

    def cell_keys(self) -> list[CellKey]:
        """Every cell of the study, in a fixed order (data set, split, method)."""
        specs, methods = self.validate()
        n = range(self.n_splits)
        return [CellKey(spec.name, i, m) for spec in specs for i in n for m in methods]

    def _tasks(self) -> list[CellTask]:
        specs, methods = self.validate()
        limit = None if self.max_seconds is None else float(self.max_seconds)
        tasks = []
        for spec in specs:
            for i in range(self.n_splits):
                sseed = split_seed(self.seed, spec.name, i)
                for mname, method in methods.items():
                    tasks.append(
                        CellTask(
                            key=CellKey(spec.name, i, mname),
                            data=spec,
                            protocol=self.split,
                            test_size=float(self.test_size),
                            method=method,
                            split_seed=sseed,
                            seed=cell_seed(self.seed, spec.name, i, mname),
                            max_seconds=limit,
                            max_cpu_seconds=self.max_cpu_seconds,
                            bounds=None if self.bounds is None else dict(self.bounds),
                            fold_seed=fold_seed(sseed, getattr(method, "folds", 0)),
                        )
                    )
        return tasks

    # -- running ---------------------------------------------------------------------------
    def run(
        self,
        *,
        n_jobs: int | None = 1,
        storage: str | None = None,
        retry_failed: bool = False,
        replace_changed: bool = False,
        progress: bool | Callable[[CellRecord, int, int], None] = False,
        stale_after: float = STALE_AFTER_S,
        report_next: bool = False,
        rerun: Sequence[str] = (),
    ) -> Study:
        """Run every cell not stored yet; write each finished cell at once.

        Parameters
        ----------
        n_jobs : int, default 1
            Parallel cells through joblib (``-1``: all cores, or all dask workers inside
            ``joblib.parallel_config(backend="dask")``); at most one process per cell to run
            is started. 0 is refused.
        storage : str, optional
            SQLAlchemy URL; overrides the study's ``storage``. The URL used is kept in
            ``storage_`` for later reads (``results()``, ``traces()``, ``summary()``).
        retry_failed : bool, default False
            Run again the cells stored as failed or timed out (their rows are replaced).
        replace_changed : bool, default False
            A method whose definition differs from the one stored under its name is refused
            (ValueError naming the method and what changed); with True its stored cells are
            deleted and run again.
        progress : bool or callable, default False
            True shows a tqdm bar (cells done / total, ETA) on stderr; a callable is called
            ``progress(record, n_done, n_total)`` after each stored cell.
        stale_after : float, default :data:`~svmtune.study.STALE_AFTER_S` (300)
            Seconds after which another worker's claim whose heartbeat was not renewed is taken
            over (its process is presumed dead; on this host a dead process's claims are taken
            over at once). Heartbeats are renewed every ``min(30, stale_after / 3)`` seconds;
            every worker of a study should use the same value.
        report_next : bool, default False
            A report follows on the same local worker processes (``write_report(n_jobs=n)``,
            as ``svmtune run`` does): once the last cell is handed out, a worker that is free
            loads the plotting code (matplotlib, the figure modules, a first text rendering)
            in a background thread, which nothing waits for; a figure job waits for it before
            it draws. Nothing changes with ``n_jobs=1`` or a dask cluster.
        rerun : sequence of str, default ()
            Data sets to start afresh: their stored cells and fingerprints are deleted first.
            Without it, a data set that reads differently from the data its stored cells were
            computed on (an edited file under the same name) is refused before any cell runs.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Before any cell runs, if the definition is bad, the storage cannot be opened, or
            the storage holds this study with a different seed, split or method definition, or
            with cells of other data under a data set's name.

        Notes
        -----
        Several processes (or machines) may run the same study on one database at once: each
        claims a cell before it runs it, so every cell is computed once, and the cells of a
        process that died are taken over by the others (see :class:`Storage`).
        """
        check_run_options(n_jobs=n_jobs, stale_after=stale_after, report_next=report_next)
        tasks = self._tasks()  # validates everything first
        unknown = [d for d in rerun if d not in self._dataset_names()]
        if isinstance(rerun, str) or unknown:
            raise ValueError(
                f"rerun names {unknown or rerun!r}, not data sets of the study; its data sets "
                f"are {self._dataset_names()}"
            )
        payloads = {}
        for t in tasks:
            try:
                payloads[t.key] = dump_task(t)
            except Exception as exc:
                raise ValueError(
                    f"cannot send cell {t.key.dataset}/{t.key.split}/{t.key.method} to a worker: "
                    f"{exc!r} (data-set callables and methods must be picklable by cloudpickle)"
                ) from exc
        url = self.storage_url(storage)
        self.storage_ = url
        if report_next:  # idle workers load the report's code: the runner is handed the loader
            from svmtune.study.report._figure_code import load_figure_code_soon
        run_cells(
            self.name,
            self.seed,
            self.definition(),
            tasks,
            payloads,
            url,
            n_jobs=n_jobs,
            retry_failed=retry_failed,
            replace_changed=replace_changed,
            progress=progress,
            stale_after=stale_after,
            warm_workers=load_figure_code_soon if report_next else None,
            rerun=tuple(rerun),
        )
        return self
