"""Tuners: which settings of the hyperparameters to try next?"""

from svmtune.tuners._base import BudgetExhausted, Tuner, TuningResult

__all__ = ["BudgetExhausted", "Tuner", "TuningResult"]
