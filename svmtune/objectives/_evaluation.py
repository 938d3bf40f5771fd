"""The immutable record of one objective evaluation."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Cost", "Evaluation", "FrozenParams", "Status"]


class Status(StrEnum):
    """Outcome of an evaluation (or of a study cell)."""

    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    #: Stopped early by a pruner: the value is the partial one (e.g. the error over the folds
    #: solved), the cost that of the work actually done.
    PRUNED = "pruned"


class FrozenParams(Mapping[str, float]):
    """A read-only, hashable, picklable ``name -> value`` mapping."""

    __slots__ = ("_items",)
    _items: tuple[tuple[str, Any], ...]

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        items = tuple((str(k), v) for k, v in (values or {}).items())
        object.__setattr__(self, "_items", items)

    def __getitem__(self, key: str) -> Any:
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FrozenParams is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenParams, (dict(self._items),))

    def __repr__(self) -> str:
        return repr(dict(self._items))


@dataclass(frozen=True)
class Cost:
    """What an evaluation cost.

    ``kernel_evals`` (entries of kernel matrices computed) and ``iterations`` (solver iterations)
    are machine-independent; use them, not seconds, to compare cost in tests.
    """

    wall_s: float = 0.0
    cpu_s: float = 0.0
    kernel_evals: int = 0
    iterations: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.wall_s + other.wall_s,
            self.cpu_s + other.cpu_s,
            self.kernel_evals + other.kernel_evals,
            self.iterations + other.iterations,
        )


@dataclass(frozen=True)
class Evaluation:
    """One evaluation of an objective at one setting of the hyperparameters.

    Attributes
    ----------
    params : FrozenParams
        The hyperparameters, natural units (any mapping given is frozen).
    value : float
        The objective value (an error estimate: lower is better); NaN when the evaluation failed;
        the partial value (over the steps done) when it was pruned.
    status : Status
    cost : Cost
    info : FrozenParams
        Objective-specific by-products (e.g. the chosen threshold ``beta0``).
    error : str or None
        The error text of a failed evaluation.
    """

    params: Mapping[str, float]
    value: float
    status: Status = Status.OK
    cost: Cost = field(default_factory=Cost)
    info: Mapping[str, Any] = field(default_factory=FrozenParams)
    error: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.params, FrozenParams):
            object.__setattr__(self, "params", FrozenParams(self.params))
        if not isinstance(self.info, FrozenParams):
            object.__setattr__(self, "info", FrozenParams(self.info))
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "status", Status(self.status))

    @property
    def ok(self) -> bool:
        return self.status is Status.OK and not math.isnan(self.value)

    @property
    def score(self) -> float:
        """The value to minimise: ``value`` when ok, ``+inf`` otherwise."""
        return self.value if self.ok else math.inf
