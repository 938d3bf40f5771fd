"""Between svmtune runs and Optuna: distributions of a search space, opening a study, and
writing a trace as Optuna trials (so Optuna's plots and optuna-dashboard show any tuner)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import pandas as pd

from svmtune.objectives import BoundObjective, Cost, Evaluation, Status
from svmtune.space import SearchSpace

__all__ = [
    "check_fingerprint",
    "distributions",
    "earlier_evaluations",
    "open_study",
    "quiet",
    "trace_to_optuna",
]

#: Cost columns of a trace stored on each trial as user attributes.
COST_ATTRS = ("wall_s", "cpu_s", "kernel_evals", "iterations")


def distributions(space: SearchSpace) -> dict[str, Any]:
    """One ``FloatDistribution`` per parameter (``log=True`` where the space says so)."""
    from optuna.distributions import FloatDistribution

    return {p.name: FloatDistribution(p.low, p.high, log=p.log) for p in space}


def open_study(
    storage: Any, study_name: str | None, *, sampler: Any = None, default_name: str = "svmtune"
) -> Any:
    """Create or load a single-objective minimising study; ValueError naming a bad storage."""
    import optuna

    if storage is not None and not isinstance(storage, str | optuna.storages.BaseStorage):
        raise ValueError(
            f"storage must be an Optuna storage URL (str) or an optuna.storages.BaseStorage; "
            f"got {storage!r}"
        )
    name = study_name if study_name is not None else (default_name if storage else None)
    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # no "A new study created" line
    try:
        study = optuna.create_study(
            storage=storage,
            study_name=name,
            sampler=sampler,
            direction="minimize",
            load_if_exists=True,
        )
    except Exception as exc:  # SQLAlchemy, Optuna and OS errors alike
        raise ValueError(f"cannot open the Optuna storage {storage!r}: {exc}") from exc
    finally:
        optuna.logging.set_verbosity(level)
    check_study(study)
    return study


def check_study(study: Any) -> None:
    import optuna

    if not isinstance(study, optuna.Study):
        raise ValueError(f"expected an optuna.Study or a storage URL; got {study!r}")
    if len(study.directions) != 1 or study.direction != optuna.study.StudyDirection.MINIMIZE:
        raise ValueError(
            f"Optuna study {study.study_name!r} must minimise one objective (svmtune values are "
            f"errors); its directions are {study.directions}"
        )


def trace_to_optuna(
    trace: pd.DataFrame,
    space: SearchSpace,
    study_or_storage: Any,
    *,
    study_name: str | None = None,
) -> Any:
    """Write every row of a tuning trace into an Optuna study, one trial each, in order.

    Parameters
    ----------
    trace : pandas.DataFrame
        A :class:`~svmtune.tuners.TuningResult` trace (``param_<name>``, ``value``,
        ``status``, cost columns; ``level`` for nested searches).
    space : SearchSpace
        Gives each parameter's distribution (bounds, log scale).
    study_or_storage : optuna.Study, str or optuna.storages.BaseStorage
        A study (trials are added to it), or a storage (URL) in which the study ``study_name``
        (default ``"svmtune"``) is created, or loaded and added to.
    study_name : str, optional

    Returns
    -------
    optuna.Study
        Evaluations with status ``ok`` are COMPLETE trials with their value; pruned ones are
        PRUNED trials (their partial value in the user attribute ``partial_value``); failed ones
        are FAIL trials. Each trial's user attributes hold the evaluation's cost (``wall_s``,
        ``cpu_s``, ``kernel_evals``, ``iterations``), its index ``eval`` and, when the trace
        has one, its ``level`` or ``stage``. A cascade's screen rows (another objective's
        values) are FAIL trials with their value in the user attribute ``screen_value``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Grid
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = Grid(n_points=4).tune(LOOEstimate(model="loo2"), X, y, kernel=RBF())
    >>> study = res.to_optuna("sqlite://")
    >>> len(study.trials), study.best_value == res.best_value
    (4, True)
    """
    import optuna
    from optuna.trial import TrialState, create_trial

    if isinstance(study_or_storage, optuna.Study):
        study = study_or_storage
        check_study(study)
    else:
        study = open_study(study_or_storage, study_name)
    dists = distributions(space)
    trials = []
    for rec in trace.to_dict("records"):
        params = {}
        for name in space.names:
            v = rec.get(f"param_{name}")
            if v is not None and not math.isnan(float(v)):
                params[name] = float(v)
        attrs: dict[str, Any] = {"eval": int(rec["eval"]), "status": str(rec.get("status"))}
        if "level" in rec:
            attrs["level"] = int(rec["level"])
        if "stage" in rec:
            attrs["stage"] = str(rec["stage"])
        for c in COST_ATTRS:
            if c in rec and rec[c] is not None:
                attrs[c] = float(rec[c]) if c.endswith("_s") else int(rec[c])
        value = rec.get("value")
        ok = str(rec.get("status")) == "ok" and value is not None and not math.isnan(value)
        pruned = str(rec.get("status")) == "pruned"
        if pruned and value is not None and not math.isnan(value):
            attrs["partial_value"] = float(value)
        if str(rec.get("status")) == "screen" and value is not None and not math.isnan(value):
            attrs["screen_value"] = float(value)
        state = TrialState.COMPLETE if ok else TrialState.PRUNED if pruned else TrialState.FAIL
        trials.append(
            create_trial(
                state=state,
                value=float(value) if ok else None,
                params=params,
                distributions={n: dists[n] for n in params},
                user_attrs=attrs,
            )
        )
    study.add_trials(trials)
    return study


def fingerprint(bound: BoundObjective) -> str:
    """What a stored study's trials were computed on: the data, objective and kernel."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(bound.X).tobytes())
    h.update(np.ascontiguousarray(bound.y).tobytes())
    h.update(repr(bound.objective).encode())
    h.update(repr(bound.kernel).encode())
    return h.hexdigest()[:16]


def check_fingerprint(study: Any, bound: BoundObjective) -> None:
    """Tag a new study with the run's fingerprint; refuse to resume one made on other data."""
    key = "svmtune_fingerprint"
    mine = fingerprint(bound)
    theirs = study.user_attrs.get(key)
    if theirs is None:
        if not study.get_trials(deepcopy=False):
            study.set_user_attr(key, mine)
        return
    if theirs != mine:
        raise ValueError(
            f"Optuna study {study.study_name!r} holds trials of another tuning problem (other "
            "data, objective or kernel model); use another study_name to start afresh"
        )


def earlier_evaluations(study: Any, box: SearchSpace) -> list[Evaluation]:
    """Finished trials of a study being resumed, as evaluations (their stored costs)."""
    from optuna.trial import TrialState

    out = []
    states = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
    for t in study.get_trials(deepcopy=False, states=states):
        if set(t.params) != set(box.names):
            raise ValueError(
                f"Optuna study {study.study_name!r} has trials over {sorted(t.params)}; this run "
                f"searches {list(box.names)} (use another study_name)"
            )
        try:
            params = box.check(t.params)
        except ValueError as exc:
            raise ValueError(
                f"Optuna study {study.study_name!r} has a trial outside this run's box: {exc}"
            ) from None
        a = t.user_attrs
        cost = Cost(
            float(a.get("wall_s", 0.0)),
            float(a.get("cpu_s", 0.0)),
            int(a.get("kernel_evals", 0)),
            int(a.get("iterations", 0)),
        )
        if t.state == TrialState.COMPLETE:
            out.append(Evaluation(params, float(t.value), Status.OK, cost))
        elif t.state == TrialState.PRUNED:
            steps = t.intermediate_values
            partial = float(steps[max(steps)]) if steps else a.get("partial_value", math.nan)
            out.append(Evaluation(params, partial, Status.PRUNED, cost))
        else:
            out.append(Evaluation(params, math.nan, Status.FAILED, cost, error="failed trial"))
    return out


class quiet:
    """Silence Optuna's per-trial INFO log lines for the duration of a run."""

    def __init__(self, optuna: Any) -> None:
        self.logging = optuna.logging

    def __enter__(self) -> None:
        self.level = self.logging.get_verbosity()
        self.logging.set_verbosity(self.logging.WARNING)

    def __exit__(self, *exc: object) -> None:
        self.logging.set_verbosity(self.level)
