"""A peer as a study method: any scikit-learn estimator or search, timed like svmtune's methods.

``PeerMethod(GridSearchCV(SVC(), ...))`` puts what a scikit-learn or Optuna user would run beside
svmtune's (objective, tuner, kernel) methods in the same study: same cells, splits, seeds,
storage, resume and figures. A cell clones the estimator, seeds it, fits it on the training part
(timed) and measures its error on the test part.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from svmtune._quiet import quiet_optuna_logging
from svmtune.space import SearchSpace
from svmtune.study.run._method import Method

__all__ = ["PeerMethod", "PeerOutcome", "fit_peer", "warm_up_peer"]


def _jsonable(value: Any) -> Any:
    """A JSON-able, run-independent form of a parameter value: numbers, strings, bools and None
    as they are, lists and dicts element-wise, scipy.stats frozen distributions by name and
    arguments, other objects by their repr (by class and attributes if the repr holds an
    address)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else repr(f)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    dist = getattr(value, "dist", None)
    if dist is not None and hasattr(value, "args") and hasattr(value, "kwds"):  # scipy.stats
        return {
            "distribution": str(getattr(dist, "name", type(dist).__name__)),
            "args": _jsonable(list(value.args)),
            "kwds": _jsonable(dict(value.kwds)),
        }
    text = repr(value)
    if " at 0x" in text and hasattr(value, "__dict__"):  # a default repr: not stable
        return {"class": type(value).__qualname__, **_jsonable(dict(vars(value)))}
    return text


class PeerMethod(Method):
    """A scikit-learn estimator (or search) compared in a study beside svmtune's methods.

    A cell of a peer clones ``estimator``, sets every ``random_state`` parameter left as None
    (its own and its nested estimators', e.g. ``RandomizedSearchCV``'s and ``OptunaSearchCV``'s)
    to the cell's seed, fits it on the training part and records:

    - ``test_error``: the fraction of the test part it mispredicts;
    - ``cpu_s`` / ``wall_s``: CPU and wall seconds of ``fit`` (the refit included);
    - ``best_params``: the numeric entries of ``best_params_`` of a search (none for a plain
      estimator);
    - ``objective_value``: ``1 - best_score_`` (the search's cross-validated error) when the
      search scores by accuracy (``scoring=None`` or ``"accuracy"``), else NaN;
    - ``n_evaluations``: the number of fits: candidates x CV splits (+ 1 for the refit), read
      from ``cv_results_``; 1 for a plain estimator;
    - the trace: one row per candidate of ``cv_results_`` (value ``1 - mean_test_score``),
      ``wall_s`` the candidate's fit + score seconds as scikit-learn measured them, ``cpu_s``
      the cell's CPU seconds shared out in proportion to them.

    CPU seconds are those of the cell's process, so the peer runs in it alone: a peer asking
    for parallel workers (any ``n_jobs`` parameter, nested ones included, other than None or 1)
    is refused with a ValueError when the study is validated, and the fit runs under
    ``joblib.parallel_config(backend="sequential")`` so ``n_jobs=None`` cannot pick up a
    parallel backend either. A study parallelizes across cells instead.

    In a study, a search whose ``cv`` is a number of folds (or None, or a ``KFold`` /
    ``StratifiedKFold``) cross-validates on the study's shared folds of the split instead
    (:mod:`svmtune.study.run._folds`): the stratified, shuffled assignment every k-fold method
    of that (data set, split) gets, svmtune's included; ``folds`` picks another assignment, for
    a noise control.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Anything with ``fit``, ``predict`` and ``get_params`` (``GridSearchCV(SVC(), ...)``,
        ``HalvingGridSearchCV``, ``RandomizedSearchCV``, optuna-integration's
        ``OptunaSearchCV``, a ``Pipeline``, a plain ``SVC``).
    folds : int, default 0
        Which fold assignment of the split (see :class:`Method`).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.svm import SVC
    >>> peer = PeerMethod(GridSearchCV(SVC(), {"C": [1, 10], "gamma": [0.1, 1]}, cv=3))
    >>> peer.describe()["estimator"]
    'GridSearchCV'
    >>> peer.describe()["params"]["cv"]
    3
    """

    estimator: Any

    def __init__(self, estimator: Any, *, folds: int = 0) -> None:
        # Method is a frozen dataclass; a peer has no objective, tuner or kernel of svmtune.
        object.__setattr__(self, "estimator", estimator)
        object.__setattr__(self, "objective", None)
        object.__setattr__(self, "tuner", None)
        object.__setattr__(self, "kernel", None)
        object.__setattr__(self, "folds", folds)

    def __repr__(self) -> str:
        folds = f", folds={self.folds!r}" if self.folds else ""
        return f"PeerMethod({self.estimator!r}{folds})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PeerMethod)
            and self.describe() == other.describe()
            and self.folds == other.folds
        )

    def __hash__(self) -> int:
        return hash((repr(self.describe()), self.folds))

    def check(self) -> None:
        """ValueError if ``estimator`` is not a scikit-learn estimator or asks for workers."""
        est = self.estimator
        missing = [
            a
            for a in ("fit", "predict", "get_params", "set_params")
            if not callable(getattr(est, a, None))
        ]
        if isinstance(est, type) or missing:
            raise ValueError(
                "PeerMethod needs a scikit-learn estimator instance (with fit, predict, "
                f"get_params, set_params); got {est!r}"
                + (f", which has no {', '.join(missing)}" if missing else "")
            )
        for name, value in est.get_params(deep=True).items():
            if (name == "n_jobs" or name.endswith("__n_jobs")) and value not in (None, 1):
                raise ValueError(
                    f"PeerMethod({type(est).__name__}) has {name}={value!r}: a peer runs in the "
                    "cell's process and is billed that process's CPU seconds, so worker "
                    "processes it started would go unbilled; set it to 1 (a study runs cells "
                    "in parallel instead)"
                )

    def search_space(self, bounds: Mapping[str, tuple[float, float]] | None = None) -> SearchSpace:
        """A peer searches its own space (a study's ``bounds`` do not apply); this checks it
        and returns an empty space."""
        self.check()
        return SearchSpace(())

    def describe(self) -> dict[str, Any]:
        """The estimator's class and its complete ``get_params(deep=True)``, JSON-able."""
        est = self.estimator
        try:
            params = est.get_params(deep=True)
        except Exception:
            return {"estimator": repr(est), "params": None}
        return {
            "estimator": type(est).__name__,
            "module": type(est).__module__,
            "params": {k: _jsonable(v) for k, v in sorted(params.items())},
        }

    def seeded(self, seed: int) -> Any:
        """A clone of the estimator with every ``random_state`` left as None set to ``seed``."""
        from sklearn.base import clone

        est = clone(self.estimator)
        params = est.get_params(deep=True)
        todo = {
            k: int(seed)
            for k, v in params.items()
            if (k == "random_state" or k.endswith("__random_state")) and v is None
        }
        if todo:
            est.set_params(**todo)
        return est


@dataclass
class PeerOutcome:
    """What one timed fit of a peer gave (see :class:`PeerMethod`)."""

    test_error: float
    wall_s: float
    cpu_s: float
    best_params: dict[str, float] | None
    objective_value: float
    n_fits: int
    trace: pd.DataFrame = field(default_factory=pd.DataFrame)


def _n_splits(est: Any, results: Mapping[str, Any]) -> int:
    n = getattr(est, "n_splits_", None)
    if isinstance(n, int | np.integer) and n > 0:
        return int(n)
    return sum(1 for k in results if k.startswith("split") and k.endswith("_test_score"))


def _cv_results(est: Any) -> dict[str, Any] | None:
    """``cv_results_`` with a ``params`` list (OptunaSearchCV keeps those in ``trials_``)."""
    try:
        res = est.cv_results_
    except Exception:  # not a search, or not fitted
        return None
    if not isinstance(res, Mapping) or "mean_test_score" not in res:
        return None
    out = dict(res)
    if "params" not in out:
        trials = getattr(est, "trials_", None)
        n = len(out["mean_test_score"])
        params = [dict(getattr(t, "params", {})) for t in trials or []]
        out["params"] = params if len(params) == n else [{} for _ in range(n)]
    return out


def _trace(
    results: Mapping[str, Any], n_splits: int, cpu_s: float, *, n_train: int | None = None
) -> pd.DataFrame:
    """The trace of a search's ``cv_results_``. A successive-halving search on samples
    (scikit-learn's ``HalvingGridSearchCV``, whose results have ``n_resources`` and ``iter``)
    gives each row its ``rung`` and ``n_samples``, and ``best_value`` counts only the rows on
    ``n_train`` points (NaN before)."""
    params = list(results["params"])
    score = np.asarray(results.get("mean_test_score", [np.nan] * len(params)), dtype=float)
    fit_t = np.asarray(results.get("mean_fit_time", [0.0] * len(params)), dtype=float)
    score_t = np.asarray(results.get("mean_score_time", [0.0] * len(params)), dtype=float)
    wall = (fit_t + score_t) * max(n_splits, 1)
    total = float(np.nansum(wall))
    cpu = wall * (cpu_s / total) if total > 0 else np.full(len(params), cpu_s / max(len(params), 1))
    names = sorted({k for p in params for k, v in p.items() if _is_number(v)})
    value = 1.0 - score
    sizes = results.get("n_resources") if n_train is not None else None
    rungs = results.get("iter")
    rows = []
    best = math.inf
    for i, p in enumerate(params):
        v = float(value[i])
        sub = sizes is not None and int(sizes[i]) < int(n_train)  # type: ignore[arg-type]
        if math.isfinite(v) and not sub:
            best = min(best, v)
        rows.append(
            {
                "eval": i,
                **{f"param_{n}": float(p[n]) if _is_number(p.get(n)) else np.nan for n in names},
                "value": v,
                "status": "ok" if math.isfinite(v) else "failed",
                "wall_s": float(wall[i]),
                "cpu_s": float(cpu[i]),
                "kernel_evals": 0,
                "iterations": 0,
                "best_value": best if math.isfinite(best) or sizes is None else math.nan,
                **(
                    {"rung": int(rungs[i]), "n_samples": int(sizes[i])}
                    if sizes is not None and rungs is not None
                    else {}
                ),
            }
        )
    df = pd.DataFrame(rows)
    if len(df):
        df["cum_wall_s"] = df["wall_s"].cumsum()
        df["cum_cpu_s"] = df["cpu_s"].cumsum()
        df["cum_kernel_evals"] = 0
        df["cum_iterations"] = 0
    return df


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def fit_peer(
    method: PeerMethod,
    X_train: NDArray[np.float64],
    y_train: NDArray[np.float64],
    X_test: NDArray[np.float64],
    y_test: NDArray[np.float64],
    *,
    seed: int,
    fold_seed: int | None = None,
) -> PeerOutcome:
    """Fit the seeded peer on the training part (timed), measure it on the test part; given
    ``fold_seed``, a search with a number of folds cross-validates on the folds
    :func:`svmtune.datasets.stratified_kfold` draws from it (the study's shared folds)."""
    from joblib import parallel_config

    from svmtune.study.run._folds import set_shared_cv

    method.check()
    est = method.seeded(seed)
    if fold_seed is not None:
        set_shared_cv(est, y_train, fold_seed)
    with parallel_config(backend="sequential"), quiet_optuna_logging():
        w0, c0 = time.perf_counter(), time.process_time()
        est.fit(X_train, y_train)
        cpu_s, wall_s = time.process_time() - c0, time.perf_counter() - w0
    y_pred = np.asarray(est.predict(X_test))
    test_error = float(np.mean(y_pred != np.asarray(y_test)))
    results = _cv_results(est)
    best_params: dict[str, float] | None = None
    objective_value = math.nan
    n_fits = 1
    trace = pd.DataFrame()
    if results is not None:
        n_splits = _n_splits(est, results)
        refit = bool(getattr(est, "refit", False)) and hasattr(est, "best_estimator_")
        n_fits = len(results["params"]) * n_splits + int(refit)
        bp = getattr(est, "best_params_", None)
        if isinstance(bp, Mapping):
            best_params = {str(k): float(v) for k, v in bp.items() if _is_number(v)}
        scoring = getattr(est, "scoring", None)
        best_score = getattr(est, "best_score_", None)
        if scoring in (None, "accuracy") and _is_number(best_score):
            objective_value = 1.0 - float(best_score)  # type: ignore[arg-type]
        on_samples = getattr(est, "resource", None) == "n_samples"
        trace = _trace(results, n_splits, cpu_s, n_train=len(y_train) if on_samples else None)
        trace["incumbent_test_error"] = _incumbent_errors(
            est, results, trace, X_train, y_train, X_test, y_test, final=test_error
        )
    return PeerOutcome(
        test_error=test_error,
        wall_s=wall_s,
        cpu_s=cpu_s,
        best_params=best_params,
        objective_value=objective_value,
        n_fits=n_fits,
        trace=trace,
    )


def _incumbent_errors(
    est: Any,
    results: Mapping[str, Any],
    trace: pd.DataFrame,
    X_train: NDArray[np.float64],
    y_train: NDArray[np.float64],
    X_test: NDArray[np.float64],
    y_test: NDArray[np.float64],
    *,
    final: float,
) -> NDArray[np.float64]:
    """The test error of each candidate's incumbent (after the timed fit, uncharged): the
    search's base estimator refitted at the incumbent's parameters on the training part; the
    last row is the search's answer. NaN for a search without a base ``estimator``."""
    from joblib import parallel_config
    from sklearn.base import clone

    from svmtune.study.run._incumbent import incumbent_rows

    rows = incumbent_rows(trace, n_train=len(y_train))
    base = getattr(est, "estimator", None)
    params = list(results["params"])
    memo: dict[int, float] = {}
    out = np.full(len(trace), np.nan)
    for i, j in enumerate(rows):
        if j < 0 or base is None or not hasattr(base, "fit"):
            continue
        if j not in memo:
            try:
                with warnings.catch_warnings(), parallel_config(backend="sequential"):
                    warnings.simplefilter("ignore")
                    model = clone(base).set_params(**params[j]).fit(X_train, y_train)
                memo[j] = float(np.mean(np.asarray(model.predict(X_test)) != np.asarray(y_test)))
            except Exception:
                memo[j] = math.nan
        out[i] = memo[j]
    if len(out):
        out[-1] = final
    return out


def warm_up_peer(method: PeerMethod, X: NDArray[np.float64], y: NDArray[np.float64]) -> None:
    """Fit a peer once, untimed, on 20 training points (imports and caches paid outside the
    timed cell, as for svmtune's methods); failures are left to the timed run."""
    from joblib import parallel_config

    idx = np.concatenate([np.flatnonzero(y == c)[:10] for c in np.unique(y)])
    try:
        with warnings.catch_warnings(), parallel_config(backend="sequential"):
            warnings.simplefilter("ignore")
            method.seeded(0).fit(X[idx], y[idx])
    except Exception:
        pass
