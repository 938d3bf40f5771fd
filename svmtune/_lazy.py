"""Modules loaded on first attribute access.

The compiled solver loops (numba) and their dependencies cost about a second to import and
load; a run that only reads stored results, or a study file that only builds option objects,
never touches them. ``lazy_module`` returns the module object at once and executes it when an
attribute is first read (:class:`importlib.util.LazyLoader`). ``lazy_exports`` makes a
package's public names load on first use (PEP 562), so that importing the package, or one of
its submodules, does not import all of them.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Collection, Mapping
from types import ModuleType
from typing import Any

__all__ = ["lazy_exports", "lazy_module"]


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    namespace: dict[str, Any],
    submodules: Collection[str] = (),
) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` (PEP 562) for ``package``: a name of ``exports`` (public
    name -> the module defining it) is imported on first access and kept in ``namespace`` (the
    package's ``globals()``, so the next access does not come here); a name of ``submodules``
    is the submodule ``package.name``.

    Examples
    --------
    >>> ns = {}
    >>> getter = lazy_exports("pkg", {"dumps": "json"}, ns)
    >>> getter("dumps")([1]), "dumps" in ns
    ('[1]', True)
    """

    def __getattr__(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # next time without __getattr__
        return value

    return __getattr__


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
