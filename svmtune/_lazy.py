"""Modules loaded on first attribute access.

The compiled solver loops (numba) and their dependencies cost about a second to import and
load; a run that only reads stored results, or a study file that only builds option objects,
never touches them. ``lazy_module`` returns the module object at once and executes it when an
attribute is first read (:class:`importlib.util.LazyLoader`).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

__all__ = ["lazy_module"]


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, executed when one of its attributes is first read.

    Examples
    --------
    >>> json = lazy_module("json")
    >>> json.dumps([1])
    '[1]'
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
