"""Objectives: how good is a setting of the hyperparameters?"""

from svmtune.objectives._base import BoundObjective, Objective, Outcome, Stopwatch
from svmtune.objectives._evaluation import Cost, Evaluation, FrozenParams, Status
from svmtune.objectives.exact_loo import ExactLOO
from svmtune.objectives.kfold import KFoldCV
from svmtune.objectives.loo_estimate import LOOEstimate

__all__ = [
    "BoundObjective",
    "Cost",
    "Evaluation",
    "ExactLOO",
    "FrozenParams",
    "KFoldCV",
    "LOOEstimate",
    "Objective",
    "Outcome",
    "Status",
    "Stopwatch",
]
from svmtune.objectives.platt import PlattError  # noqa: E402
from svmtune.objectives.repeated_kfold import RepeatedKFoldCV  # noqa: E402

__all__ += ["PlattError", "RepeatedKFoldCV"]
