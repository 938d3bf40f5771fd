"""Tuners: which settings of the hyperparameters to try next?"""

from svmtune.tuners._base import BudgetExhausted, Evaluator, Tuner, TuningResult
from svmtune.tuners.bisection import Bisection
from svmtune.tuners.grid import DEFAULT_GRID_BOUNDS, Grid

__all__ = [
    "DEFAULT_GRID_BOUNDS",
    "Bisection",
    "BudgetExhausted",
    "Evaluator",
    "Grid",
    "Tuner",
    "TuningResult",
]
from svmtune.tuners.gradient_descent import GradientDescent  # noqa: E402
from svmtune.tuners.incremental import IncrementalGradient  # noqa: E402

__all__ += ["GradientDescent", "IncrementalGradient"]
