"""TunedSVC's scikit-learn conventions: ``scoring``/``cv``/weights and ``cv_results_``.

The k-fold objective becomes :class:`~svmtune.objectives.scored_cv.ScoredCV` when any of
``scoring``, ``cv``, ``class_weight`` or ``sample_weight`` is given; ``cv_results_`` is built as
``GridSearchCV``'s (a dict of arrays, one entry per evaluated setting).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from svmtune.kernels import RBF, KernelModel
from svmtune.objectives import KFoldCV, Objective
from svmtune.objectives.scored_cv import SCORINGS, ScoredCV
from svmtune.tuners import Grid, Tuner, TuningResult

__all__ = [
    "chosen_index",
    "cv_results",
    "default_parts",
    "fold_rows",
    "index_of",
    "listed_trace",
    "problem_objective",
    "search_attributes",
    "weighted_objective",
]


def default_parts() -> dict[str, Any]:
    """The parts a ``TunedSVC`` left at None uses: 5-fold CV on a 5 x 5 grid, an RBF kernel."""
    parts: dict[str, Objective | Tuner | KernelModel] = {
        "objective": KFoldCV(k=5),
        "tuner": Grid(n_points=5),
        "kernel": RBF(),
    }
    return parts


def weighted_objective(
    objective: Objective, *, scoring: Any, cv: Any, class_weight: Any, sample_weight: bool
) -> Objective:
    """``objective``, or the :class:`ScoredCV` that ``scoring``/``cv``/weights ask for."""
    if scoring is None and cv is None and class_weight is None and not sample_weight:
        return objective
    if scoring is not None and scoring not in SCORINGS:
        raise ValueError(f"scoring must be None or one of {list(SCORINGS)}; got {scoring!r}")
    if isinstance(class_weight, dict):
        class_weight = dict(class_weight)
    if cv is not None and not isinstance(cv, int | np.integer) and not hasattr(cv, "split"):
        try:  # an iterable of (train, test) index arrays, as scikit-learn's searches take
            cv = [(np.asarray(tr, dtype=np.intp), np.asarray(te, dtype=np.intp)) for tr, te in cv]
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"cv must be an integer >= 2, a splitter or (train, test) pairs; got {cv!r}"
            ) from exc
    if isinstance(objective, ScoredCV):
        return objective
    if not isinstance(objective, KFoldCV):
        raise ValueError(
            "scoring, cv, class_weight and sample_weight apply to the k-fold objective "
            f"(KFoldCV, the default); got objective={objective!r}"
        )
    return ScoredCV(
        cv=objective.k if cv is None else cv,
        scoring="accuracy" if scoring is None else scoring,
        class_weight=class_weight,
        tol=objective.tol,
        max_iter=objective.max_iter,
        memory_budget=objective.memory_budget,
    )


def problem_objective(
    objective: Objective,
    *,
    rows: NDArray[np.intp],
    classes: NDArray[Any],
    problem: tuple[int | None, int],
    sample_weight: NDArray[np.float64] | None,
) -> Objective:
    """The objective of one binary problem: a :class:`ScoredCV` learns where its rows were in
    the user's order (``rows``), their sample weights, and ``class_weight`` keyed by -1/+1."""
    if not isinstance(objective, ScoredCV):
        return objective
    out = copy.copy(objective)
    out.row_order = rows
    out.sample_weight = sample_weight
    cw = objective.class_weight
    if isinstance(cw, dict):
        neg, pos = problem
        pos_label = classes[pos]
        rest = [c for i, c in enumerate(classes) if i != pos and (neg is None or i == neg)]
        missing = [c for c in [pos_label, *rest] if c not in cw]
        if missing:
            raise ValueError(f"class_weight has no weight for the classes {missing}")
        if len(rest) > 1:
            raise ValueError("a class_weight dict works with two classes or one-vs-one")
        out.class_weight = {1.0: float(cw[pos_label]), -1.0: float(cw[rest[0]])}
    return out


def _key(params: dict[str, Any]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((k, float(v)) for k, v in params.items()))


def _full_fidelity_rows(trace: pd.DataFrame) -> pd.DataFrame:
    """The trace's evaluations that completed on all the data (not pruned, failed, a cascade's
    screen or a subsample of successive halving)."""
    done = trace[trace["status"] == "ok"]
    if "n_samples" in done.columns and done["n_samples"].notna().any():
        m = done["n_samples"]
        done = done[m.isna() | (m == m.max())]
    return done


def _ranks(mean: NDArray[np.float64]) -> NDArray[np.int32]:
    """GridSearchCV's ranks: 1 = best, ties share the smallest rank; NaN ranks last."""
    from scipy.stats import rankdata

    if np.isnan(mean).all():
        return np.ones(mean.shape, dtype=np.int32)
    filled = np.nan_to_num(mean, nan=np.nanmin(mean) - 1)
    return np.asarray(rankdata(-filled, method="min"), dtype=np.int32)


def _as_splits(record: dict[str, Any], folds: Sequence[Any] | None) -> dict[str, Any]:
    """A :class:`KFoldCV` record (each fold's validation errors, its (fit, score) seconds)
    in the form of a :class:`ScoredCV` one, with the folds' test sizes."""
    if "errors" not in record or folds is None:
        return record
    n = len(record["errors"])
    return {
        "params": record["params"],
        "split_errors": record["errors"],
        "test_sizes": [int(np.size(folds[f][1])) for f in range(n)],
        "fit_s": [s[0] for s in record["seconds"]],
        "score_s": [s[1] for s in record["seconds"]],
    }


def listed_trace(tuner: Tuner | None, result: TuningResult) -> pd.DataFrame:
    """``result``'s trace in the order ``cv_results_`` lists it: a :class:`Grid`'s in the grid's
    order (as ``GridSearchCV`` lists its candidates), any other tuner's as evaluated."""
    if isinstance(tuner, Grid) and result.space is not None:
        return tuner.in_grid_order(result.trace, result.space)
    return result.trace


def cv_results(
    result: TuningResult,
    records: Sequence[dict[str, Any]] | None,
    folds: Sequence[Any] | None = None,
    *,
    tuner: Tuner | None = None,
) -> dict[str, Any]:
    """``GridSearchCV.cv_results_`` of one tuning run (by ``tuner``), one entry per setting
    evaluated on all the data, in the order evaluated (a :class:`Grid`'s in the grid's order,
    as ``GridSearchCV`` lists its candidates: :func:`listed_trace`).

    With per-fold records (k-fold objectives: :class:`KFoldCV`, :class:`ScoredCV`):
    ``split<i>_test_score`` per fold; ``mean_test_score`` and ``std_test_score`` their mean and
    standard deviation (for :class:`KFoldCV` weighted by the folds' sizes, so that the mean is
    ``1 -`` the pooled error the objective minimizes; unweighted for :class:`ScoredCV`, as
    ``GridSearchCV``); ``*_fit_time`` the folds' SMO solves, each with an equal share of the
    evaluation's shared work (the Gram matrix), ``*_score_time`` their validation decisions
    and scores. Other objectives (leave-one-out errors and estimates, Platt's error) have no
    folds: no split columns, ``mean_test_score`` is ``1 -`` the objective's value,
    ``mean_fit_time`` the evaluation's seconds, and ``std_test_score``, ``std_fit_time`` and
    both score times are NaN (not measured; no variance is made up)."""
    trace = listed_trace(tuner, result)
    done = _full_fidelity_rows(trace)
    names = [c[len("param_") :] for c in trace.columns if c.startswith("param_")]
    params = [{n: float(row[f"param_{n}"]) for n in names} for _, row in done.iterrows()]
    wall = done["wall_s"].to_numpy(dtype=np.float64)
    by_key = {_key(r["params"]): _as_splits(r, folds) for r in records or ()}
    found = [by_key.get(_key(p)) for p in params]
    splits = {len(r.get("fit_s", ())) for r in found if r is not None}
    out: dict[str, Any] = {}
    if params and all(r is not None for r in found) and len(splits) == 1 and 0 not in splits:
        recs = [r for r in found if r is not None]
        fit = np.array([r["fit_s"] for r in recs], dtype=np.float64)
        score_t = np.array([r["score_s"] for r in recs], dtype=np.float64)
        shared = np.maximum(wall - fit.sum(axis=1) - score_t.sum(axis=1), 0.0)
        fit = fit + (shared / fit.shape[1])[:, None]
        if "split_errors" in recs[0]:  # pooled error: folds weighted by their sizes
            errors = np.array([r["split_errors"] for r in recs], dtype=np.float64)
            sizes = np.array([r["test_sizes"] for r in recs], dtype=np.float64)
            scores = 1.0 - errors / sizes
            mean = 1.0 - errors.sum(axis=1) / sizes.sum(axis=1)
            std = np.sqrt(np.average((scores - mean[:, None]) ** 2, axis=1, weights=sizes))
        else:
            scores = np.array([r["split_scores"] for r in recs], dtype=np.float64)
            mean, std = scores.mean(axis=1), scores.std(axis=1)
        out.update(
            mean_fit_time=fit.mean(axis=1),
            std_fit_time=fit.std(axis=1),
            mean_score_time=score_t.mean(axis=1),
            std_score_time=score_t.std(axis=1),
        )
    else:
        scores = None
        mean = 1.0 - done["value"].to_numpy(dtype=np.float64)
        std = np.full(mean.shape, np.nan)
        nan = np.full(mean.shape, np.nan)
        out.update(mean_fit_time=wall, std_fit_time=nan, mean_score_time=nan, std_score_time=nan)
    for name in sorted({n for p in params for n in p}):
        out[f"param_{name}"] = np.ma.MaskedArray(
            [p.get(name, np.nan) for p in params],
            mask=[name not in p for p in params],
            dtype=object,
        )
    out["params"] = params
    if scores is not None:
        for i in range(scores.shape[1]):
            out[f"split{i}_test_score"] = scores[:, i]
    out["mean_test_score"] = mean
    out["std_test_score"] = std
    out["rank_test_score"] = _ranks(mean)
    return out


def index_of(results: dict[str, Any], params: dict[str, float]) -> int:
    """The index of ``params`` in ``results`` (a :func:`cv_results`), else of the best mean."""
    key = _key(params)
    for i, p in enumerate(results["params"]):
        if _key(p) == key:
            return i
    return int(np.nanargmax(results["mean_test_score"]))


def chosen_index(refit: Any, results: dict[str, Any]) -> int:
    """The index a callable ``refit`` picks from ``results``, checked as ``GridSearchCV``."""
    index = refit(results)
    n = len(results["params"])
    if isinstance(index, bool) or not isinstance(index, int | np.integer) or not 0 <= index < n:
        raise IndexError(f"best_index_ returned by refit is out of bounds [0, {n}); got {index!r}")
    return int(index)


def fold_rows(
    folds: Sequence[tuple[NDArray[np.intp], NDArray[np.intp]]], rows: NDArray[np.intp]
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """Folds over a problem's bound rows as (train, test) indices into the user's ``X``."""
    return [(np.sort(rows[tr]), np.sort(rows[te])) for tr, te in folds]


def search_attributes(
    fitted: Sequence[Any], classes: NDArray[Any], problems: Sequence[Any], refit: Any
) -> dict[str, Any]:
    """A fitted ``TunedSVC``'s attributes as ``GridSearchCV``'s, from its problems' results
    (:class:`svmtune.estimators._tuned_parts.Fitted`; lists per problem for multi-class)."""
    from svmtune.estimators._multiclass import problem_name

    def per_problem(values: list[Any]) -> Any:
        return values[0] if len(fitted) == 1 else values

    names = [problem_name(classes, p) for p in problems]
    traces = [f.result.trace.assign(problem=n) for f, n in zip(fitted, names, strict=True)]
    out: dict[str, Any] = {
        "trace_": pd.concat(traces, ignore_index=True),
        "refit_time_": float(sum(f.refit_s for f in fitted)),
        "best_params_": per_problem([dict(f.params) for f in fitted]),
        "best_index_": per_problem([f.best_index for f in fitted]),
        "tuning_result_": per_problem([f.result for f in fitted]),
        "cv_results_": per_problem([f.cv_results for f in fitted]),
        "cv_folds_": per_problem([f.folds for f in fitted]),
    }
    if refit:
        out["best_estimator_"] = per_problem([f.estimator for f in fitted])
    if not callable(refit):  # as GridSearchCV: no best score for a callable's pick
        errors = [float(f.result.best_value) for f in fitted]
        out["best_error_"] = errors[0] if len(fitted) == 1 else np.array(errors)
        out["best_score_"] = 1.0 - out["best_error_"]
    return out
