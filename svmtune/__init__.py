"""svmtune: tune kernel SVM hyperparameters and compare the ways of doing it, fast.

The public names below are imported on first use (PEP 562), so that ``import svmtune`` and
``svmtune --help`` stay fast; ``from svmtune import SVC`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> module that defines it. Add new exports here (and to __all__).
_EXPORTS: dict[str, str] = {
    "SVC": "svmtune.svc",
    "KernelExpansion": "svmtune.classifier",
    "Method": "svmtune.study",
    "Param": "svmtune.space",
    "SearchSpace": "svmtune.space",
    "Study": "svmtune.study",
    "PeerMethod": "svmtune.study",
    "TunedSVC": "svmtune.tuned_svc",
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
    from svmtune.space import Param, SearchSpace
    from svmtune.study import Method, PeerMethod, Study
    from svmtune.svc import SVC
    from svmtune.tuned_svc import TunedSVC


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


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"svmtune.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'svmtune' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBMODULES))
