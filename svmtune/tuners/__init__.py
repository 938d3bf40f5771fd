"""Tuners: which settings of the hyperparameters to try next?

A new search tuner subclasses :class:`Tuner` and writes ``_run_search(evaluate, space, rng,
start)``, using the four methods of :class:`Evaluate` (docs/search-tuners.md, "Writing a
tuner").
"""

from svmtune.tuners._base import BudgetExhausted, Evaluator, Tuner, TuningResult
from svmtune.tuners._box import DEFAULT_BOX, box_record, default_box, search_box
from svmtune.tuners._contract import Evaluate
from svmtune.tuners._cpu_budget import cpu_budget, cpu_budget_spent
from svmtune.tuners._optuna_export import trace_to_optuna
from svmtune.tuners._warm_up import skip_warm_up, warm_up_method
from svmtune.tuners.bisection import Bisection, BracketEdgeWarning
from svmtune.tuners.cascade import Cascade
from svmtune.tuners.grid import DEFAULT_GRID_BOUNDS, Grid
from svmtune.tuners.nested_vns import NestedVNS
from svmtune.tuners.optuna_tuner import TPE, OptunaTuner, RandomSearch
from svmtune.tuners.vns import VNS

__all__ = [
    "DEFAULT_BOX",
    "DEFAULT_GRID_BOUNDS",
    "Bisection",
    "BracketEdgeWarning",
    "BudgetExhausted",
    "Cascade",
    "Evaluate",
    "Evaluator",
    "Grid",
    "Tuner",
    "TuningResult",
    "NestedVNS",
    "OptunaTuner",
    "RandomSearch",
    "TPE",
    "VNS",
    "box_record",
    "cpu_budget",
    "cpu_budget_spent",
    "default_box",
    "search_box",
    "skip_warm_up",
    "trace_to_optuna",
    "warm_up_method",
]
from svmtune.tuners.gradient_descent import GradientDescent  # noqa: E402
from svmtune.tuners.incremental import IncrementalGradient  # noqa: E402

__all__ += ["GradientDescent", "IncrementalGradient"]
from svmtune.tuners.halving import SuccessiveHalving  # noqa: E402

__all__ += ["SuccessiveHalving"]
