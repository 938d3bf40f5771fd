"""Optuna's samplers as svmtune tuners, through ask/tell: TPE, random search, or any sampler."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from svmtune._validation import check_positive_int
from svmtune._warnings import deprecated_budget
from svmtune.objectives import Objective
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner
from svmtune.tuners._box import narrow
from svmtune.tuners._optuna_export import (
    COST_ATTRS,
    check_fingerprint,
    distributions,
    earlier_evaluations,
    open_study,
    quiet,
)
from svmtune.tuners._optuna_trials import grid_names, reporter, tell

__all__ = ["TPE", "OptunaTuner", "RandomSearch", "tpe_startup_trials"]

#: Trials of an Optuna run when ``max_evals`` is not given.
DEFAULT_TRIALS = 50


def tpe_startup_trials(budget: int) -> int:
    """Random start-up trials of TPE for a budget: a quarter of it, at least 3 and at most
    Optuna's 10 (with 18 evaluations: 5). Measured in ``benchmarks/search_efficiency.py``
    (``--small``): with Optuna's 10 start-up trials out of 18, more than half of a small budget
    goes to random draws.

    Examples
    --------
    >>> [tpe_startup_trials(b) for b in (8, 18, 25, 50, 100)]
    [3, 5, 7, 10, 10]
    """
    return int(min(10, max(3, math.ceil(budget / 4))))


class _OptunaSearch(Tuner):
    """The ask/tell loop shared by the Optuna tuners; subclasses build the sampler."""

    n_trials: int | None
    bounds: Mapping[str, tuple[float, float]] | None
    storage: Any
    study_name: str | None
    pruner: Any

    def _new_sampler(self, seed: int, budget: int) -> Any:
        raise NotImplementedError

    def _budget(self) -> int:
        return deprecated_budget(self, "n_trials", DEFAULT_TRIALS)

    def _check_space(self, space: SearchSpace) -> None:
        if self.n_trials is not None:
            check_positive_int(self.n_trials, "n_trials")
        narrow(space, self.bounds)
        if self.storage is not None and not isinstance(self.storage, str):
            from optuna.storages import BaseStorage

            if not isinstance(self.storage, BaseStorage):
                raise ValueError(
                    "storage must be an Optuna storage URL (str) or an "
                    f"optuna.storages.BaseStorage; got {self.storage!r}"
                )
        if self.study_name is not None and not isinstance(self.study_name, str):
            raise ValueError(f"study_name must be a string; got {self.study_name!r}")
        if self.pruner is not None:
            from optuna.pruners import BasePruner

            if not isinstance(self.pruner, BasePruner):
                raise ValueError(
                    f"pruner must be an Optuna pruner (an optuna.pruners.BasePruner instance, "
                    f"e.g. SuccessiveHalvingPruner()); {self.name} got {self.pruner!r}"
                )

    def check_objective(self, objective: Objective) -> None:
        """ValueError if a ``pruner`` is given and ``objective`` cannot report per-step values
        (only objectives with ``reports_steps``, such as k-fold CV, can be pruned)."""
        super().check_objective(objective)
        if self.pruner is not None and not getattr(objective, "reports_steps", False):
            raise ValueError(
                f"{self.name} has a pruner ({type(self.pruner).__name__}) but {objective!r} "
                "cannot report per-fold values (reports_steps=False); prune KFoldCV, or drop "
                "the pruner"
            )

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        import optuna

        box = space
        dists = distributions(box)
        seed = int(rng.integers(2**31 - 1))
        budget = evaluate.max_evals if evaluate.max_evals is not None else DEFAULT_TRIALS
        study = open_study(self.storage, self.study_name)
        earlier = earlier_evaluations(study, box)
        check_fingerprint(study, evaluate.bound)
        if earlier:
            # A resumed run: a sampler seeded as in the first run would propose its first
            # points again; seed it from the run's seed and the number of trials done.
            seed = int(np.random.SeedSequence([seed, len(earlier)]).generate_state(1)[0] >> 1)
        study.sampler = self._new_sampler(seed, budget)
        if self.pruner is not None:
            study.pruner = copy.deepcopy(self.pruner)
        evaluate.restore(earlier)
        if start is not None:  # the caller's point first (Optuna's enqueue_trial)
            study.enqueue_trial(dict(start), skip_if_exists=True)
        with quiet(optuna):
            # until the budget of distinct evaluations is spent (a repeated point costs a
            # trial, not an evaluation); the cap guards a sampler that keeps repeating
            for _ in range(10 * int(budget)):
                if evaluate.spent():
                    return
                trial = study.ask(dists)
                if self.pruner is None:
                    ev = evaluate([trial.params])[0]
                else:
                    ev = evaluate.evaluate_steps(trial.params, reporter(trial))
                for name in COST_ATTRS:
                    trial.set_user_attr(name, getattr(ev.cost, name))
                trial.set_user_attr("status", str(ev.status))
                if not tell(study, trial, ev):
                    return


_COMMON_DOC = """
    max_evals : int, default 50
        Distinct evaluations of the run (a point the sampler repeats costs a trial, not an
        evaluation); ``max_seconds`` may stop it earlier. A resumed study counts its earlier
        trials.
    bounds : mapping name -> (low, high), optional
        The search box of some parameters (inside the search space's bounds; default
        :data:`~svmtune.tuners.DEFAULT_BOX`).
    storage : str or optuna.storages.BaseStorage, optional
        Where the Optuna study lives (e.g. ``"sqlite:///tpe.db"``); default in memory. With a
        storage, running again with the same ``study_name`` resumes: the finished trials
        already stored are taken as this run's first evaluations (with their stored costs),
        and only the rest are evaluated; a study made on other data, objective or kernel model
        is refused. Watch a run with ``optuna-dashboard <URL>``. Not for tuners inside a
        :class:`~svmtune.study.Study` (every cell would share the one Optuna study; a study
        stores and resumes its cells itself).
    study_name : str, optional
        Name of the Optuna study in ``storage`` (default ``"svmtune"``).
    pruner : optuna.pruners.BasePruner, optional
        Stop bad trials early (any Optuna pruner: ``SuccessiveHalvingPruner()``,
        ``HyperbandPruner()``, ``MedianPruner()``, ...; deep-copied for each run). The
        objective must report per-step values (``reports_steps``: :class:`~svmtune.objectives.
        KFoldCV` reports its running error after each fold); others are refused. A pruned trial
        is a ``pruned`` row of the trace with its partial value and the cost of the folds
        solved; it counts as one evaluation of ``max_evals`` and is never the answer.
    max_seconds : float, optional
        Stop starting new trials after this many wall-clock seconds.
    n_trials : int, optional
        Deprecated alias of ``max_evals`` (removed in the next release).
"""


_OPTUNA_TUNER_DOC = (
    """Any Optuna sampler, driven through ask/tell over the search space.

    Each parameter is a ``FloatDistribution`` over its bounds, log-scaled where the search space
    says so. A ``start`` passed to :meth:`~svmtune.tuners.Tuner.tune_bound` is enqueued as the
    first trial.

    Parameters
    ----------
    sampler : optuna sampler class or instance, optional
        A subclass of ``optuna.samplers.BaseSampler`` (e.g. ``optuna.samplers.CmaEsSampler``)
        is built as ``sampler(seed=..., **sampler_options)`` with a seed drawn from the run's
        ``random_state``, so seeded runs are reproducible. An instance is deep-copied for each
        run (its own seed rules; ``sampler_options`` must then be empty). Default:
        ``TPESampler(multivariate=True)`` with start-up trials from the budget, as :class:`TPE`.
    sampler_options : mapping, optional
        Keyword arguments of the sampler class.
"""
    + _COMMON_DOC
    + """
    Examples
    --------
    >>> import numpy as np
    >>> import optuna
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import OptunaTuner
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> tuner = OptunaTuner(sampler=optuna.samplers.QMCSampler, max_evals=8)
    >>> res = tuner.tune(LOOEstimate(model="loo2"), X, y, kernel=RBF(), random_state=0)
    >>> len(res.trace)
    8
    """
)


class OptunaTuner(_OptunaSearch):
    __doc__ = _OPTUNA_TUNER_DOC

    def __init__(
        self,
        *,
        sampler: Any = None,
        sampler_options: Mapping[str, Any] | None = None,
        max_evals: int | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        storage: Any = None,
        study_name: str | None = None,
        max_seconds: float | None = None,
        n_trials: int | None = None,
        pruner: Any = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.sampler = sampler
        self.sampler_options = sampler_options
        self.n_trials = n_trials
        self.bounds = bounds
        self.storage = storage
        self.study_name = study_name
        self.pruner = pruner

    def _check_space(self, space: SearchSpace) -> None:
        super()._check_space(space)
        from optuna.samplers import BaseSampler

        s = self.sampler
        ok = s is None or isinstance(s, BaseSampler)
        ok = ok or (isinstance(s, type) and issubclass(s, BaseSampler))
        if not ok:
            raise ValueError(
                "sampler must be an Optuna sampler: a subclass or an instance of "
                f"optuna.samplers.BaseSampler; got {s!r}"
            )
        if self.sampler_options is not None:
            if not isinstance(self.sampler_options, Mapping):
                raise ValueError(f"sampler_options must be a mapping; got {self.sampler_options!r}")
            if isinstance(s, BaseSampler) and self.sampler_options:
                raise ValueError(
                    "sampler_options apply to a sampler class; the sampler given is an instance "
                    f"({s!r})"
                )
        grid = grid_names(self.sampler, self.sampler_options)
        missing = [] if grid is None else [n for n in space.names if n not in grid]
        if missing:
            raise ValueError(
                f"the GridSampler's search space must name every parameter {self.name} tunes; "
                f"it lacks {missing} (it names {sorted(grid or ())}, the tuner searches "
                f"{list(space.names)})"
            )

    def _new_sampler(self, seed: int, budget: int) -> Any:
        import warnings

        from optuna.exceptions import ExperimentalWarning
        from optuna.samplers import BaseSampler, TPESampler

        opts = dict(self.sampler_options or {})
        if self.sampler is None:
            defaults = {"multivariate": True, "n_startup_trials": tpe_startup_trials(budget)}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExperimentalWarning)
                return TPESampler(seed=seed, **{**defaults, **opts})
        if isinstance(self.sampler, BaseSampler):
            return copy.deepcopy(self.sampler)
        return self.sampler(seed=seed, **opts)

    def __repr__(self) -> str:
        name = (
            "TPESampler"
            if self.sampler is None
            else getattr(self.sampler, "__name__", type(self.sampler).__name__)
        )
        return f"OptunaTuner(sampler={name}, max_evals={self.max_evals})"


_TPE_DOC = (
    """Tree-structured Parzen estimator: Optuna's ``TPESampler`` (multivariate by default).

    Parameters
    ----------
    n_startup_trials : int, optional
        Random trials before the Parzen estimators take over; default from the budget
        (:func:`tpe_startup_trials`: a quarter of it, 3 to 10; 5 of 18 evaluations).
    multivariate : bool, default True
        One joint estimator over all parameters (Optuna's ``multivariate=True``).
"""
    + _COMMON_DOC
    + """
    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import TPE
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = TPE(max_evals=12).tune(LOOEstimate(model="loo2"), X, y, kernel=RBF(), random_state=0)
    >>> len(res.trace)
    12

    With a pruner, 5-fold CV stops bad trials after a fold or two:

    >>> from optuna.pruners import SuccessiveHalvingPruner
    >>> from svmtune.objectives import KFoldCV
    >>> tpe = TPE(max_evals=12, pruner=SuccessiveHalvingPruner())
    >>> res = tpe.tune(KFoldCV(k=5), X, y, kernel=RBF(), random_state=0)
    >>> sorted(set(res.trace["status"])), res.best_evaluation.status
    (['ok', 'pruned'], <Status.OK: 'ok'>)
    """
)


class TPE(_OptunaSearch):
    __doc__ = _TPE_DOC

    def __init__(
        self,
        *,
        max_evals: int | None = None,
        n_startup_trials: int | None = None,
        multivariate: bool = True,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        storage: Any = None,
        study_name: str | None = None,
        max_seconds: float | None = None,
        n_trials: int | None = None,
        pruner: Any = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.n_trials = n_trials
        self.n_startup_trials = n_startup_trials
        self.multivariate = multivariate
        self.bounds = bounds
        self.storage = storage
        self.study_name = study_name
        self.pruner = pruner

    def _check_space(self, space: SearchSpace) -> None:
        super()._check_space(space)
        if self.n_startup_trials is not None:
            check_positive_int(self.n_startup_trials, "n_startup_trials")
        if not isinstance(self.multivariate, bool):
            raise ValueError(f"multivariate must be True or False; got {self.multivariate!r}")

    def _new_sampler(self, seed: int, budget: int) -> Any:
        import warnings

        from optuna.exceptions import ExperimentalWarning
        from optuna.samplers import TPESampler

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExperimentalWarning)
            return TPESampler(
                seed=seed,
                n_startup_trials=(
                    tpe_startup_trials(budget)
                    if self.n_startup_trials is None
                    else int(self.n_startup_trials)
                ),
                multivariate=self.multivariate,
            )


_RANDOM_DOC = (
    """Independent uniform draws in the search box (log-uniform for log-scaled parameters),
    by Optuna's ``RandomSampler``.

    Parameters
    ----------
"""
    + _COMMON_DOC.lstrip("\n")
    + """
    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import RandomSearch
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = RandomSearch(max_evals=6).tune(
    ...     LOOEstimate(model="loo2"), X, y, kernel=RBF(), random_state=0
    ... )
    >>> len(res.trace)
    6
    """
)


class RandomSearch(_OptunaSearch):
    __doc__ = _RANDOM_DOC

    def __init__(
        self,
        *,
        max_evals: int | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        storage: Any = None,
        study_name: str | None = None,
        max_seconds: float | None = None,
        n_trials: int | None = None,
        pruner: Any = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.n_trials = n_trials
        self.bounds = bounds
        self.storage = storage
        self.study_name = study_name
        self.pruner = pruner

    def _new_sampler(self, seed: int, budget: int) -> Any:
        from optuna.samplers import RandomSampler

        return RandomSampler(seed=seed)
