"""svmtune: tune kernel SVM hyperparameters and compare the ways of doing it, fast."""

from svmtune.classifier import KernelExpansion
from svmtune.space import Param, SearchSpace
from svmtune.study import Method, Study
from svmtune.svc import SVC
from svmtune.tuned_svc import TunedSVC

__version__ = "0.1.0"

__all__ = [
    "SVC",
    "KernelExpansion",
    "TunedSVC",
    "Method",
    "Param",
    "SearchSpace",
    "Study",
    "__version__",
]
