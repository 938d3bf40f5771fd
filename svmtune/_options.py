"""Options stated once: what each option of a class may be, declared beside it, and one check.

A tuner or an objective declares its options' constraints in a class attribute,
``_option_constraints`` (option name -> constraint), as scikit-learn's
``_parameter_constraints``; :func:`check_options` checks every constraint a class and its bases
declare (the bases' first) and refuses the first bad value with a ValueError that names it,
``"{name} must be {what}; got {value!r}"``. What no single constraint can say (one option
against another, an option against the search space) stays in the class's ``_check_options``
hook, after the declared checks.

The options many classes share are declared here once: :data:`MAX_EVALS`,
:data:`MAX_SECONDS` (the budgets) and :data:`N_JOBS` (``random_state`` is
:func:`svmtune._validation.as_rng`'s).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = [
    "MAX_EVALS",
    "MAX_SECONDS",
    "N_JOBS",
    "Choice",
    "Constraint",
    "Either",
    "Flag",
    "Integer",
    "Labelled",
    "Real",
    "check_options",
    "check_value",
    "declared_constraints",
]


class Constraint(Protocol):
    """What an option may be: ``accepts(value)``, and ``describe()``, the words after "must
    be" in the refusal."""

    def accepts(self, value: Any) -> bool: ...

    def describe(self) -> str: ...


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _or_none(text: str, none: bool) -> str:
    return f"{text} or None" if none else text


@dataclass(frozen=True)
class Integer:
    """An integer (not a bool) in ``[low, high]`` (either end open when None); None too when
    ``none``."""

    low: int | None = None
    high: int | None = None
    none: bool = False
    what: str = ""

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if not _is_int(value):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def describe(self) -> str:
        if self.what:
            return self.what
        if self.high is None and self.low == 1:
            text = "a positive integer"
        elif self.high is None and self.low == 0:
            text = "a non-negative integer"
        elif self.high is None and self.low is not None:
            text = f"an integer >= {self.low}"
        elif self.low is None and self.high is not None:
            text = f"an integer <= {self.high}"
        elif self.low is not None:
            text = f"an integer in [{self.low}, {self.high}]"
        else:
            text = "an integer"
        return _or_none(text, self.none)


@dataclass(frozen=True)
class Real:
    """A finite number (an int or a float, not a bool) between ``low`` and ``high``; ``closed``
    says which ends belong to it (``"neither"``, ``"left"``, ``"right"``, ``"both"``); None
    too when ``none``."""

    low: float | None = None
    high: float | None = None
    closed: str = "neither"
    none: bool = False
    what: str = ""

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if isinstance(value, bool | np.bool_) or not isinstance(
            value, int | float | np.integer | np.floating
        ):
            return False
        if not math.isfinite(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed not in ("left", "both")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed not in ("right", "both")):
                return False
        return True

    def describe(self) -> str:
        if self.what:
            return self.what
        if self.low == 0 and self.high is None:
            text = (
                "a non-negative number" if self.closed in ("left", "both") else "a positive number"
            )
        elif self.low is None and self.high is None:
            text = "a finite number"
        else:
            left = "[" if self.closed in ("left", "both") else "("
            right = "]" if self.closed in ("right", "both") else ")"
            lo = "-inf" if self.low is None else f"{self.low:g}"
            hi = "inf" if self.high is None else f"{self.high:g}"
            text = f"a number in {left}{lo}, {hi}{right}"
        return _or_none(text, self.none)


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (compared with ``==``, of the same type); None too when ``none``."""

    options: tuple[Any, ...]
    none: bool = False
    what: str = ""

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        return any(type(value) is type(o) and value == o for o in self.options)

    def describe(self) -> str:
        return self.what or _or_none(f"one of {list(self.options)}", self.none)


@dataclass(frozen=True)
class Flag:
    """True or False (a NumPy bool too)."""

    what: str = ""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool | np.bool_)

    def describe(self) -> str:
        return self.what or "True or False"


@dataclass(frozen=True)
class Labelled:
    """``constraint``, its refusal starting with ``label`` (``"Cascade "``: the class's name
    where the option's name alone would not say whose it is)."""

    constraint: Constraint
    label: str

    def accepts(self, value: Any) -> bool:
        return self.constraint.accepts(value)

    def describe(self) -> str:
        return self.constraint.describe()


@dataclass(frozen=True)
class Either:
    """A value one of ``options`` accepts; ``what`` says them all in words."""

    options: tuple[Constraint, ...]
    what: str

    def accepts(self, value: Any) -> bool:
        return any(c.accepts(value) for c in self.options)

    def describe(self) -> str:
        return self.what


#: ``max_evals`` of every tuner: the number of distinct evaluations, or None for its default.
MAX_EVALS = Integer(low=1, none=True, what="a positive integer")
#: ``max_seconds`` of every tuner and of a study: a wall-clock limit, or None for none.
MAX_SECONDS = Real(low=0.0, none=True, what="a positive number")
#: ``n_jobs`` (joblib's meaning): a number of processes, ``-1`` for all cores, None for joblib's
#: default; 0 means nothing.
N_JOBS = Either((Integer(low=1, none=True), Integer(high=-1)), "a non-zero integer or None")


def check_value(value: Any, name: str, constraint: Constraint, *, label: str = "") -> None:
    """ValueError ``"{label}{name} must be {what}; got {value!r}"`` unless ``constraint``
    accepts ``value``.

    Examples
    --------
    >>> check_value(0, "n_jobs", N_JOBS)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a non-zero integer or None; got 0
    """
    if not constraint.accepts(value):
        label = label or getattr(constraint, "label", "")
        raise ValueError(f"{label}{name} must be {constraint.describe()}; got {value!r}")


def declared_constraints(cls: type) -> dict[str, Constraint]:
    """The constraints ``cls`` and its bases declare in ``_option_constraints``, the bases'
    first (a class may redeclare a base's option: its own declaration wins, in the base's
    place)."""
    out: dict[str, Constraint] = {}
    for klass in reversed(cls.__mro__):
        own: Mapping[str, Constraint] | None = klass.__dict__.get("_option_constraints")
        if own:
            out.update(own)
    return out


def check_options(obj: Any, *, label: str = "") -> None:
    """Check every declared option of ``obj`` (:func:`declared_constraints` of its class),
    refusing the first bad one with a ValueError that names it.

    Examples
    --------
    >>> class Walk:
    ...     _option_constraints = {"steps": Integer(low=1), "max_evals": MAX_EVALS}
    ...     def __init__(self, steps=3, max_evals=None):
    ...         self.steps, self.max_evals = steps, max_evals
    >>> check_options(Walk())
    >>> check_options(Walk(steps=0))
    Traceback (most recent call last):
    ...
    ValueError: steps must be a positive integer; got 0
    """
    for name, constraint in declared_constraints(type(obj)).items():
        check_value(getattr(obj, name), name, constraint, label=label)
