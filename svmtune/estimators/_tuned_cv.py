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
from svmtune.tuners import Grid, Tuner

__all__ = ["cv_results", "default_parts", "problem_objective", "weighted_objective"]


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


def cv_results(trace: pd.DataFrame, records: Sequence[dict[str, Any]] | None) -> dict[str, Any]:
    """``GridSearchCV.cv_results_`` of one tuning run: the :class:`ScoredCV` records (split
    scores, fit and score seconds) when there are any, else the trace (``1 - value`` as the
    score, the evaluation's seconds as its fit time)."""
    if records:
        params = [r["params"] for r in records]
        scores = np.array([r["split_scores"] for r in records], dtype=np.float64)
        fit = np.array([r["fit_s"] for r in records], dtype=np.float64)
        score_t = np.array([r["score_s"] for r in records], dtype=np.float64)
    else:
        done = trace[trace["status"] == "ok"]
        names = [c[len("param_") :] for c in trace.columns if c.startswith("param_")]
        params = [{n: float(row[f"param_{n}"]) for n in names} for _, row in done.iterrows()]
        scores = (1.0 - done["value"].to_numpy(dtype=np.float64))[:, None]
        fit = done["wall_s"].to_numpy(dtype=np.float64)[:, None]
        score_t = np.zeros_like(fit)
    out: dict[str, Any] = {
        "mean_fit_time": fit.mean(axis=1),
        "std_fit_time": fit.std(axis=1),
        "mean_score_time": score_t.mean(axis=1),
        "std_score_time": score_t.std(axis=1),
    }
    for name in sorted({n for p in params for n in p}):
        out[f"param_{name}"] = np.ma.MaskedArray(
            [p.get(name, np.nan) for p in params],
            mask=[name not in p for p in params],
            dtype=object,
        )
    out["params"] = params
    if records:
        for i in range(scores.shape[1]):
            out[f"split{i}_test_score"] = scores[:, i]
    mean = scores.mean(axis=1)
    out["mean_test_score"] = mean
    out["std_test_score"] = scores.std(axis=1)
    # rank 1 = best; ties share the smallest rank (scikit-learn's "min" method)
    out["rank_test_score"] = np.array([1 + int(np.sum(mean > m)) for m in mean], dtype=np.int32)
    return out
