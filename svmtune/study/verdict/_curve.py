"""An objective's estimate and the test error along one parameter (Fischetti 2016, Fig. 2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from svmtune._validation import check_Xy
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective

__all__ = ["parameter_curve"]


def parameter_curve(
    objective: Objective,
    X_train: ArrayLike,
    y_train: ArrayLike,
    X_test: ArrayLike,
    y_test: ArrayLike,
    *,
    kernel: KernelModel,
    values: Sequence[float] | ArrayLike,
    param: str = "gamma",
    fixed: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Evaluate ``objective`` at each value of ``param`` and the test error of its classifier.

    With ``objective = LOOEstimate(model=...)``, ``param="gamma"`` and an RBF kernel this is
    Fischetti's Fig. 2: the "loo estimate" (the objective's value on the training part) and the
    "true misclassification" (the error on the test part of the classifier it yields).

    Parameters
    ----------
    objective : Objective
    X_train, y_train, X_test, y_test : arrays
    kernel : KernelModel
    values : sequence of float
        Values of ``param`` (within its bounds).
    param : str, default "gamma"
    fixed : mapping, optional
        Values of the search space's other parameters (e.g. ``{"C": 1.0}``).

    Returns
    -------
    pandas.DataFrame
        Columns ``objective`` (its repr), ``param`` (name), ``value`` (of the parameter),
        ``estimate``, ``test_error``, ``status``, ``kernel_evals``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (40, 2)), rng.normal(1, 1, (40, 2))])
    >>> y = np.repeat([-1.0, 1.0], 40)
    >>> c = parameter_curve(LOOEstimate(model="loo2"), X[::2], y[::2], X[1::2], y[1::2],
    ...                     kernel=RBF(), values=[0.1, 1.0])
    >>> c[["value", "estimate", "test_error"]].shape
    (2, 3)
    """
    bound = objective.bind(X_train, y_train, kernel=kernel)
    Xte, yte = check_Xy(X_test, y_test)
    fixed = dict(fixed or {})
    if param not in bound.space:
        raise ValueError(f"{param!r} is not in the search space {list(bound.space.names)}")
    missing = [n for n in bound.space.names if n != param and n not in fixed]
    if missing:
        raise ValueError(f"give values for the other parameters with fixed={{...}}: {missing}")
    grid = np.asarray(values, dtype=np.float64).ravel()
    if grid.size == 0:
        raise ValueError("values is empty")
    rows = []
    for v in grid:
        ev = bound.evaluate({**fixed, param: float(v)})
        test = np.nan
        if ev.ok:
            test = bound.classifier(ev.params).error(Xte, yte)
        rows.append(
            {
                "objective": repr(objective),
                "param": param,
                "value": float(v),
                "estimate": ev.value,
                "test_error": float(test),
                "status": str(ev.status),
                "kernel_evals": ev.cost.kernel_evals,
            }
        )
    return pd.DataFrame(rows)
