"""svmtune: tune kernel SVM hyperparameters and compare the ways of doing it, fast.

The public names below are imported on first use (PEP 562), so that ``import svmtune`` and
``svmtune --help`` stay fast; ``from svmtune import SVC`` works as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svmtune._lazy import lazy_exports

__version__ = "0.1.0"

#: Public name -> module that defines it. Add new exports here (and to __all__).
_EXPORTS: dict[str, str] = {
    "SVC": "svmtune.estimators",
    "KernelExpansion": "svmtune.classifier",
    "Method": "svmtune.study",
    "Param": "svmtune.space",
    "SearchSpace": "svmtune.space",
    "Study": "svmtune.study",
    "PeerMethod": "svmtune.study",
    "TunedSVC": "svmtune.estimators",
}

__all__ = [
    "SVC",
    "KernelExpansion",
    "TunedSVC",
    "Method",
    "PeerMethod",
    "Param",
    "SearchSpace",
    "Study",
    "__version__",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from svmtune.classifier import KernelExpansion
    from svmtune.estimators import SVC, TunedSVC
    from svmtune.space import Param, SearchSpace
    from svmtune.study import Method, PeerMethod, Study


#: Sub-packages reachable as attributes (``import svmtune; svmtune.kernels.RBF``).
_SUBMODULES = (
    "classifier",
    "datasets",
    "kernels",
    "objectives",
    "plots",
    "solvers",
    "space",
    "study",
    "svc",
    "tuners",
    "verdict_plots",
)


__getattr__ = lazy_exports("svmtune", _EXPORTS, globals(), _SUBMODULES)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBMODULES))
