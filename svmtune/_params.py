"""Options of objectives, tuners and kernel models: read back from ``__init__``, shown, stored.

Every option class of svmtune follows scikit-learn's convention: ``__init__`` stores each of its
arguments, unchanged or normalised, as an attribute of the same name. So the options of any such
object - a subclass written by a user included - can be read back from its ``__init__`` signature
(:func:`get_params`), shown (:func:`params_repr`) and stored as a complete, JSON-able record
(:func:`describe`), which a study compares to tell a changed method from an unchanged one.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["describe", "diff_records", "get_params", "params_repr"]

_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")


def _init_parameters(cls: type) -> list[inspect.Parameter]:
    init = cls.__init__  # type: ignore[misc]
    if init is object.__init__:
        return []
    params = list(inspect.signature(init).parameters.values())[1:]  # drop self
    return [p for p in params if p.kind not in (inspect.Parameter.VAR_POSITIONAL, p.VAR_KEYWORD)]


def get_params(obj: Any) -> dict[str, Any]:
    """Name -> value of every ``__init__`` argument of ``obj``, in signature order.

    Raises
    ------
    AttributeError
        If ``obj`` does not store an argument of its ``__init__`` as an attribute of the same
        name (the convention every svmtune option class follows).
    """
    out: dict[str, Any] = {}
    for p in _init_parameters(type(obj)):
        try:
            out[p.name] = getattr(obj, p.name)
        except AttributeError:
            raise AttributeError(
                f"{type(obj).__name__} does not store its __init__ argument {p.name!r} as "
                f"self.{p.name}; every option class must (scikit-learn's convention)"
            ) from None
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(_jsonable(a) == _jsonable(b))
    except Exception:  # pragma: no cover - an exotic value
        return False


def _is_pruner(value: Any) -> bool:
    return type(value).__module__.startswith("optuna.pruners") and hasattr(value, "__dict__")


def _value_repr(value: Any) -> str:
    """``repr(value)``; an Optuna pruner (whose repr is an address) as ``Name(options)``."""
    if not _is_pruner(value):
        return repr(value)
    parts = []
    state = vars(value)
    for p in _init_parameters(type(value)):
        key = p.name if p.name in state else f"_{p.name}"
        auto = state.get(key) is None and p.default == "auto"  # "auto" is stored as None
        if key in state and not auto and not _same(state[key], p.default):
            parts.append(f"{p.name}={state[key]!r}")
    return f"{type(value).__name__}({', '.join(parts)})"


def params_repr(obj: Any) -> str:
    """``Name(arg=value, ...)`` with the arguments that differ from their defaults.

    Positional-or-keyword arguments without a default are always shown, by position.
    """
    parts = []
    for p in _init_parameters(type(obj)):
        value = getattr(obj, p.name, p.default)
        if p.default is inspect.Parameter.empty:
            text = _value_repr(value)
            parts.append(text if p.kind is not p.KEYWORD_ONLY else f"{p.name}={text}")
        elif not _same(value, p.default):
            parts.append(f"{p.name}={_value_repr(value)}")
    return f"{type(obj).__name__}({', '.join(parts)})"


def _jsonable(value: Any) -> Any:
    """A JSON value that tells two option values apart when they would act differently."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else repr(f)  # "nan", "inf": valid JSON either way
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | range | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_jsonable(v) for v in items]
    if isinstance(value, np.random.Generator):
        return {"class": "Generator", "state": _jsonable(value.bit_generator.state)}
    if isinstance(value, np.random.RandomState):
        return {"class": "RandomState", "state": _jsonable(value.get_state(legacy=False))}
    if isinstance(value, np.random.SeedSequence):
        return {"class": "SeedSequence", "entropy": _jsonable(value.entropy)}
    if _is_pruner(value):
        # An Optuna pruner: its class and settings (its repr only holds an address).
        state = {k.lstrip("_"): _jsonable(v) for k, v in sorted(vars(value).items())}
        return {"class": type(value).__qualname__, "options": state}
    if hasattr(value, "get_params") and not isinstance(value, type):
        return describe(value)
    if callable(value):
        module = getattr(value, "__module__", None) or "?"
        return {"callable": f"{module}.{getattr(value, '__qualname__', repr(value))}"}
    return _ADDRESS.sub("", repr(value))


def describe(obj: Any) -> dict[str, Any]:
    """The complete, JSON-able record of an option object: its class and every option.

    Examples
    --------
    >>> from svmtune.tuners import Grid
    >>> describe(Grid(n_points=4))["params"]["n_points"]
    4
    """
    cls = type(obj)
    return {
        "class": cls.__qualname__,
        "params": {k: _jsonable(v) for k, v in get_params(obj).items()},
    }


def diff_records(old: Any, new: Any, path: str = "") -> list[str]:
    """The differences between two JSON records, as ``"path: old -> new"`` lines."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out: list[str] = []
        for k in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{k}" if path else str(k)
            if k not in new:
                out.append(f"{sub}: {old[k]!r} -> (absent)")
            elif k not in old:
                out.append(f"{sub}: (absent) -> {new[k]!r}")
            else:
                out.extend(diff_records(old[k], new[k], sub))
        return out
    if old != new:
        return [f"{path or 'value'}: {old!r} -> {new!r}"]
    return []


class ParamsMixin:
    """``get_params()`` and a repr read back from ``__init__`` (the base of option classes)."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The options given to ``__init__``, name -> value (as stored on the object).

        Parameters
        ----------
        deep : bool, default True
            Also list the options of nested option objects as ``name__option``, as
            scikit-learn does.

        Returns
        -------
        dict

        Examples
        --------
        >>> from svmtune.tuners import Grid
        >>> Grid(n_points=4).get_params()["n_points"]
        4
        """
        out = get_params(self)
        if deep:
            for name, value in list(out.items()):
                if isinstance(value, ParamsMixin):
                    for sub, v in value.get_params(deep=True).items():
                        out[f"{name}__{sub}"] = v
        return out

    def set_params(self, **params: Any) -> Any:
        """Set options, nested ones as ``name__option`` (scikit-learn's convention), and return
        the object. The object is re-initialised with its options, so whatever its
        ``__init__`` derives from them (a kernel's search space) follows.

        Raises
        ------
        ValueError
            For a name that is not an option (listing the valid ones).

        Examples
        --------
        >>> from svmtune.objectives import KFoldCV
        >>> KFoldCV(k=5).set_params(k=3)
        KFoldCV(k=3)
        """
        if not params:
            return self
        own = get_params(self)
        nested: dict[str, dict[str, Any]] = {}
        direct: dict[str, Any] = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in own:
                raise ValueError(
                    f"invalid option {name!r} for {type(self).__name__}; valid options: "
                    f"{sorted(own)}"
                )
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                direct[name] = value
        for name, subs in nested.items():
            target = direct.get(name, own[name])
            if not hasattr(target, "set_params"):
                raise ValueError(
                    f"cannot set {sorted(subs)} of {type(self).__name__}'s {name!r}: it is "
                    f"{target!r}, which has no options"
                )
            direct[name] = target.set_params(**subs)
        self.__init__(**{**own, **direct})  # type: ignore[misc]
        return self

    def __repr__(self) -> str:
        return params_repr(self)
