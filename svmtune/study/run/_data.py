"""Data sets and split protocols of a study, and the seeds of its cells.

A data set is a bundled name (``svmtune.datasets.load``), a callable returning ``(X, y)``, a
user's own data (``(X, y)`` arrays, a pandas DataFrame, or a CSV / KEEL / LIBSVM file path; see
:func:`svmtune.datasets.user_data`). Labels of any two values are mapped to -1/+1 once
(:func:`svmtune.datasets.binary_labels`); every data set but the bundled ones is loaded and
checked when the study is defined (:func:`resolve_datasets`), so bad data fails before any cell.
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

import os
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from svmtune._validation import check_Xy
from svmtune.datasets import UserData, binary_labels, fingerprint

if TYPE_CHECKING:  # the parent makes data prints; a worker running a cell needs no SQLAlchemy
    from svmtune.study.store._data_prints import DataPrint

__all__ = ["PROTOCOLS", "DatasetSpec", "cell_seed", "data_prints", "split_seed"]

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
    (``datasets={"Breast": "wisconsin"}``). ``fingerprint`` and ``shape`` are those of the data
    read when the study was defined (None for a bundled data set: :meth:`data_print` loads it).
    """

    name: str
    loader: Loader | None = None
    source: str | None = None
    labels: tuple[tuple[str, float], ...] = ()
    fingerprint: str | None = None
    shape: tuple[int, int] | None = None

    def data_print(self) -> DataPrint:
        """The data set's fingerprint, shape and label mapping, as the study stores them."""
        from svmtune.study.store._data_prints import DataPrint

        shown = ", ".join(f"{label} -> {int(sign):+d}" for label, sign in self.labels)
        if self.fingerprint is not None and self.shape is not None:
            return DataPrint(self.fingerprint, self.shape[0], self.shape[1], shown)
        print_, rows, features = _bundled_print(self.bundled_name)
        return DataPrint(print_, rows, features, shown)

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
            y = binary_labels(y, name=f"data set {self.name!r}")[0]
        X, y = check_Xy(X, y, min_per_class=1)
        if self.fingerprint is not None and not isinstance(self.loader, UserData):
            now = fingerprint(X, y, dict(self.labels))
            if now != self.fingerprint:  # a UserData checks itself
                raise ValueError(
                    f"data set {self.name!r}: its callable returned other data ({now.split(':')[0]}"
                    f" rows x features) than when the study was defined "
                    f"({self.fingerprint.split(':')[0]}); a data set must return the same data "
                    "on every call (seed its randomness)"
                )
        return X, y

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


@cache
def _bundled_print(name: str) -> tuple[str, int, int]:
    from svmtune.datasets import load

    X, y = load(name)
    return fingerprint(X, y), int(X.shape[0]), int(X.shape[1])


def data_prints(specs: Iterable[DatasetSpec]) -> dict[str, DataPrint]:
    """Each data set's :class:`DataPrint` (bundled ones loaded now, once per process)."""
    return {s.name: s.data_print() for s in specs}


def bundled_names() -> list[str]:
    """Names of the bundled data sets (``svmtune.datasets.list_datasets``)."""
    from svmtune.datasets import list_datasets

    table = list_datasets()
    if hasattr(table, "columns") and "name" in table.columns:
        return [str(n) for n in table["name"]]
    return [str(n) for n in table]


def resolve_datasets(datasets: Any) -> tuple[DatasetSpec, ...]:
    """Check a study's data sets and name each; ValueError naming the data set and the problem.

    Bundled names are checked against the registry; every other data set (a callable, arrays,
    a DataFrame, a file) is loaded once here and its labels mapped, so bad data fails now.
    """
    if isinstance(datasets, str) or callable(datasets) or not hasattr(datasets, "__iter__"):
        raise ValueError(f"datasets must be a list (or a dict name -> data); got {datasets!r}")
    if hasattr(datasets, "columns"):
        raise ValueError("datasets must be a list or dict; name a DataFrame: {'mine': frame}")
    if isinstance(datasets, Mapping):
        items = [(str(k), v) for k, v in datasets.items()]
    else:
        items = [(_list_name(d), d) for d in datasets]
    if not items:
        raise ValueError("a study needs at least one data set")
    known = bundled_names()
    specs = [_spec(name, d, known) for name, d in items]
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"data set names must be unique; repeated: {dup}")
    return tuple(specs)


def _list_name(d: Any) -> str:
    if isinstance(d, str) and d in bundled_names():
        return d
    if isinstance(d, UserData):
        return d.name
    if isinstance(d, str | os.PathLike):
        return Path(d).name.split(".")[0]
    if callable(d):
        return str(getattr(d, "__name__", repr(d)))
    raise ValueError(
        "a data set in a list must be a bundled name, a file path, a callable returning (X, y) "
        f"or svmtune.datasets.user_data(...); name arrays and DataFrames in a dict "
        f"(datasets={{'mine': (X, y)}}); got {type(d).__name__}"
    )


def _spec(name: str, d: Any, known: list[str]) -> DatasetSpec:
    """One data set, checked: a bundled name as it is, anything else loaded now."""
    if isinstance(d, str) and d in known:
        return DatasetSpec(name, source=None if d == name else d)
    if isinstance(d, str) and not Path(d).expanduser().is_file():
        raise ValueError(
            f"unknown data set {d!r}: neither a bundled data set nor a file; bundled data sets "
            f"are {known} (or pass a file path, arrays, a DataFrame or a callable)"
        )
    if isinstance(d, UserData):
        data = d if d.name == name else _renamed(d, name)
    elif callable(d):
        try:
            out = d()
        except Exception as exc:
            raise ValueError(f"data set {name!r}: its callable failed: {exc!r}") from exc
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ValueError(f"data set {name!r}: the callable must return (X, y); got {type(out)}")
        checked = UserData(out, name=name)
        return _user_spec(name, d, checked)
    else:
        data = UserData(d, name=name)
    return _user_spec(name, data, data)


def _user_spec(name: str, loader: Loader, data: UserData) -> DatasetSpec:
    return DatasetSpec(
        name,
        loader,
        labels=tuple(data.labels.items()),
        fingerprint=data.fingerprint,
        shape=(int(data.shape[0]), int(data.shape[1])),
    )


def _renamed(data: UserData, name: str) -> UserData:
    return UserData(
        data.source,
        target=data.target,
        positive=data.positive,
        name=name,
        fmt=data.fmt,
        header=data.header,
        categorical=data.categorical,
    )
