"""Data sets and split protocols of a study, and the seeds of its cells.

A data set is a bundled name (``svmtune.datasets.load``) or a callable returning ``(X, y)``.
A split protocol turns ``(data set, split index, seed)`` into standardized
``(X_train, y_train, X_test, y_test)``:

- ``"fischetti"``: :func:`svmtune.datasets.fischetti_split` (each point to the training part with
  probability 0.7, as in Fischetti 2016);
- ``"ratsch"``: :func:`svmtune.datasets.ratsch_split`, random splits with Ratsch's benchmark
  train/test sizes (the bundled data sets of that benchmark only);
- ``"holdout"``: :func:`svmtune.datasets.holdout_split`, repeated stratified holdout with
  ``test_size``;
- or any callable ``split(X, y, seed) -> (X_train, y_train, X_test, y_test)``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune._validation import check_Xy

__all__ = ["PROTOCOLS", "DatasetSpec", "cell_seed", "split_seed"]

PROTOCOLS = ("fischetti", "ratsch", "holdout")

Arrays = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
Loader = Callable[[], tuple[Any, Any]]
Splitter = Callable[[Any, Any, int], tuple[Any, Any, Any, Any]]


def _crc(text: str) -> int:
    """A hash of ``text`` that is stable across processes and Python versions (not ``hash``)."""
    return zlib.crc32(text.encode("utf-8"))


def split_seed(study_seed: int, dataset: str, split: int) -> int:
    """The seed of split ``split`` of ``dataset``: shared by every method, so all see one split.

    Examples
    --------
    >>> split_seed(0, "heart", 1) == split_seed(0, "heart", 1)
    True
    >>> split_seed(0, "heart", 1) != split_seed(0, "heart", 2)
    True
    """
    ss = np.random.SeedSequence(int(study_seed), spawn_key=(_crc(dataset), int(split)))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def cell_seed(study_seed: int, dataset: str, split: int, method: str) -> int:
    """The seed of one cell's tuner, from the study seed and the cell's key alone.

    It depends on neither ``n_jobs`` nor the order the cells run in.

    Examples
    --------
    >>> cell_seed(0, "heart", 0, "LOO2+grid") == cell_seed(0, "heart", 0, "LOO2+grid")
    True
    """
    ss = np.random.SeedSequence(
        int(study_seed), spawn_key=(_crc(dataset), int(split), _crc(method))
    )
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of a study: its name and, unless bundled, the callable that makes it.

    ``source`` is the bundled name when it differs from the study's name for the data set
    (``datasets={"Breast": "wisconsin"}``).
    """

    name: str
    loader: Loader | None = None
    source: str | None = None

    @property
    def bundled_name(self) -> str:
        return self.source or self.name

    @property
    def bundled(self) -> bool:
        return self.loader is None

    def load(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if self.loader is None:
            from svmtune.datasets import load

            X, y = load(self.bundled_name)
        else:
            out = self.loader()
            if not (isinstance(out, tuple) and len(out) == 2):
                raise ValueError(
                    f"data set {self.name!r}: the callable must return (X, y); got {type(out)}"
                )
            X, y = out
        return check_Xy(X, y, min_per_class=1)

    def split(self, protocol: str | Splitter, split: int, seed: int, *, test_size: float) -> Arrays:
        """``(X_train, y_train, X_test, y_test)`` of split number ``split``."""
        parts: tuple[Any, ...]
        if protocol == "ratsch":
            from svmtune.datasets import ratsch_split

            parts = ratsch_split(self.bundled_name, seed)
        else:
            X, y = self.load()
            if callable(protocol):
                parts = tuple(protocol(X, y, seed))
            elif protocol == "fischetti":
                from svmtune.datasets import fischetti_split

                parts = fischetti_split(X, y, seed)
            elif protocol == "holdout":
                from svmtune.datasets import holdout_split

                parts = holdout_split(X, y, seed, test_size=test_size)
            else:  # pragma: no cover - validated up front
                raise ValueError(f"unknown split protocol {protocol!r}")
        if not (isinstance(parts, tuple | list) and len(parts) == 4):
            raise ValueError(
                f"a split must return (X_train, y_train, X_test, y_test); got {type(parts)}"
            )
        Xtr, ytr = check_Xy(parts[0], parts[1])
        Xte, yte = check_Xy(parts[2], parts[3])
        return Xtr, ytr, Xte, yte


def bundled_names() -> list[str]:
    """Names of the bundled data sets (``svmtune.datasets.list_datasets``)."""
    from svmtune.datasets import list_datasets

    table = list_datasets()
    if hasattr(table, "columns") and "name" in table.columns:
        return [str(n) for n in table["name"]]
    return [str(n) for n in table]


def resolve_datasets(
    datasets: Sequence[str | Loader] | Mapping[str, str | Loader],
) -> tuple[DatasetSpec, ...]:
    """Check a study's data sets and name each: unknown names raise ValueError up front."""
    if isinstance(datasets, str) or callable(datasets):
        raise ValueError(f"datasets must be a list (or a dict name -> callable); got {datasets!r}")
    items: list[tuple[str, str | Loader]]
    if isinstance(datasets, Mapping):
        items = [(str(k), v) for k, v in datasets.items()]
    else:
        items = []
        for d in datasets:
            if isinstance(d, str):
                items.append((d, d))
            elif callable(d):
                items.append((str(getattr(d, "__name__", repr(d))), d))
            else:
                raise ValueError(
                    f"a data set must be a bundled name or a callable returning (X, y); got {d!r}"
                )
    if not items:
        raise ValueError("a study needs at least one data set")
    specs = []
    known: list[str] | None = None
    for name, d in items:
        if isinstance(d, str):
            if known is None:
                known = bundled_names()
            if d not in known:
                raise ValueError(
                    f"unknown data set {d!r}; bundled data sets are {known} "
                    "(or pass a callable returning (X, y))"
                )
            specs.append(DatasetSpec(name, source=None if d == name else d))
        elif callable(d):
            specs.append(DatasetSpec(name, d))
        else:
            raise ValueError(
                f"data set {name!r} must be a bundled name or a callable returning (X, y); "
                f"got {d!r}"
            )
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"data set names must be unique; repeated: {dup}")
    return tuple(specs)
