"""svmtune: tune kernel SVM hyperparameters and compare the ways of doing it, fast."""

from svmtune.classifier import KernelExpansion
from svmtune.space import Param, SearchSpace
from svmtune.svc import SVC

__version__ = "0.1.0"

__all__ = ["SVC", "KernelExpansion", "Param", "SearchSpace", "__version__"]
