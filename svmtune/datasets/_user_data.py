"""A user's own data as a checked binary task: arrays, DataFrames, CSV, KEEL and LIBSVM files.

:func:`user_data` turns what a user has into a :class:`UserData`, a picklable callable returning
``(X, y)`` with the labels mapped to -1 and +1 (a study calls it in every worker).
:func:`binary_labels` is the one label mapping: any two values (numbers, strings, booleans),
the lower one (in sorted order) to -1 and the higher one to +1, or ``positive`` to +1 and every
other class to -1 (one class against the rest).
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune._validation import check_X

__all__ = ["FILE_FORMATS", "UserData", "binary_labels", "read_file", "user_data"]

#: Column names taken as a DataFrame's labels when no ``target`` is given.
TARGET_NAMES = ("target", "label", "class", "y")

#: File formats read by path, by suffix (``.gz`` allowed after the first two).
FILE_FORMATS = {".csv": "csv", ".tsv": "csv", ".dat": "keel", ".libsvm": "libsvm", ".svm": "libsvm"}


def _label_text(value: Any) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def binary_labels(
    y: Any, *, positive: Hashable | None = None, name: str = "y"
) -> tuple[NDArray[np.float64], dict[str, float]]:
    """Map labels of any two values to -1/+1; return ``(y_mapped, {label: -1.0 or +1.0})``.

    The lower label (sorted order: numbers by value, strings alphabetically, False before
    True) becomes -1 and the higher one +1; labels that already are -1 and +1 keep their sign.
    With ``positive``, that class becomes +1 and every other class -1, which is how a
    multi-class target is made binary; without it a target of three or more classes is refused.

    Examples
    --------
    >>> y, mapping = binary_labels(["spam", "ham", "spam"])
    >>> y.tolist(), mapping
    ([1.0, -1.0, 1.0], {'ham': -1.0, 'spam': 1.0})
    >>> binary_labels([0, 1, 2], positive=2)[1]
    {'0': -1.0, '1': -1.0, '2': 1.0}
    """
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name}: the labels must be 1-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: there are no labels")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: the labels hold {int((~np.isfinite(arr)).sum())} NaN/inf")
    if arr.dtype.kind == "O":
        if any(v is None or (isinstance(v, float) and v != v) for v in arr.tolist()):
            raise ValueError(f"{name}: the labels hold missing values (None or NaN)")
        try:
            classes = np.unique(arr)
        except TypeError:  # mixed types: compare as text
            arr = arr.astype(str)
            classes = np.unique(arr)
    else:
        classes = np.unique(arr)
    shown = [_label_text(c) for c in classes]
    if positive is not None:
        hits = [c for c in classes if c == positive or _label_text(c) == _label_text(positive)]
        if not hits:
            raise ValueError(f"{name}: positive={positive!r} is not one of the labels {shown}")
        signs = np.where(classes == hits[0], 1.0, -1.0)
        if classes.size < 2:
            raise ValueError(f"{name}: a single class ({shown[0]}); a classifier needs two")
    else:
        if classes.size > 2:
            raise ValueError(
                f"{name}: {classes.size} classes {shown[:10]}{' ...' if classes.size > 10 else ''}"
                "; svmtune tunes binary classifiers: choose one class against the rest with "
                "svmtune.datasets.user_data(..., positive=LABEL)"
            )
        if classes.size < 2:
            raise ValueError(f"{name}: a single class ({shown[0]}); a classifier needs two")
        signs = np.asarray([-1.0, 1.0])  # sorted order: lower -> -1, higher -> +1 (-1/+1 kept)
    index = np.searchsorted(classes, arr)
    mapped = np.ascontiguousarray(signs[index], dtype=np.float64)
    return mapped, {s: float(v) for s, v in zip(shown, signs, strict=True)}


def _sniff(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    if suffixes and suffixes[-1] in FILE_FORMATS and FILE_FORMATS[suffixes[-1]] != "keel":
        return FILE_FORMATS[suffixes[-1]]
    for line in _lines(path):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("@"):
            return "keel"  # a KEEL header; a KEEL body without it is read as CSV
        tokens = text.split()
        if len(tokens) > 1 and all(":" in t for t in tokens[1:]):
            return "libsvm"
        return "csv"
    raise ValueError(f"data file {str(path)!r} is empty")


def _lines(path: Path) -> list[str]:
    if path.suffix.lower() == ".gz":
        import gzip

        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return fh.read().splitlines()
    return path.read_text(encoding="utf-8").splitlines()


def _read_keel(path: Path) -> tuple[Any, str | None]:
    """A KEEL ``.dat`` file (``@attribute`` header, ``@data`` rows) as a DataFrame."""
    import pandas as pd

    names: list[str] = []
    output: str | None = None
    rows: list[list[str]] = []
    in_data = False
    for line in _lines(path):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        low = text.lower()
        if not in_data:
            if low.startswith("@attribute"):
                names.append(text.split()[1].split("{")[0].strip("'\""))
            elif low.startswith("@output"):
                output = text.split(None, 1)[1].strip()
            elif low.startswith("@data"):
                in_data = True
            continue
        rows.append([t.strip() for t in text.split(",")])
    if not in_data:
        raise ValueError(f"KEEL file {str(path)!r} has no @data line")
    width = len(names) or (len(rows[0]) if rows else 0)
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"KEEL file {str(path)!r}: data row {i} has {len(row)} fields; expected {width}"
            )
    frame = pd.DataFrame(rows, columns=names or None)
    frame = frame.replace({"?": np.nan, "<null>": np.nan})
    return frame.apply(_numeric_if_possible), output


def _numeric_if_possible(col: Any) -> Any:
    import pandas as pd

    converted = pd.to_numeric(col, errors="coerce")
    return converted if converted.notna().sum() == col.notna().sum() else col


def _read_csv(path: Path) -> Any:
    import pandas as pd

    sep = "\t" if ".tsv" in [s.lower() for s in path.suffixes] else None
    frame = pd.read_csv(path, sep=sep, engine="python", comment="#", skipinitialspace=True)
    try:  # a header made only of numbers is a data row: read again without a header
        [float(c) for c in frame.columns]
    except (TypeError, ValueError):
        return frame
    return pd.read_csv(path, sep=sep, engine="python", comment="#", header=None)


def read_file(path: str | os.PathLike[str], *, fmt: str | None = None) -> tuple[Any, Any]:
    """``(features, target)`` of a CSV, KEEL or LIBSVM file (``fmt`` guessed from the suffix).

    A CSV or KEEL file gives a DataFrame and ``None`` (the target column is chosen later); a
    LIBSVM file gives a dense array and its labels (scikit-learn's ``load_svmlight_file``).
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"data file {str(path)!r} does not exist")
    kind = fmt or _sniff(p)
    if kind == "libsvm":
        from sklearn.datasets import load_svmlight_file

        try:
            X, y = load_svmlight_file(str(p))
        except ValueError as exc:
            raise ValueError(f"LIBSVM file {str(path)!r} cannot be read: {exc}") from exc
        return np.asarray(X.toarray()), y
    if kind == "keel":
        frame, output = _read_keel(p)
        return frame, output
    if kind == "csv":
        return _read_csv(p), None
    raise ValueError(f"unknown data file format {fmt!r}; use 'csv', 'keel' or 'libsvm'")


def _split_frame(frame: Any, target: Hashable | None, where: str) -> tuple[Any, Any]:
    columns = list(frame.columns)
    if target is None:
        key = columns[-1]
    elif target in columns:
        key = target
    elif isinstance(target, int) and -len(columns) <= target < len(columns):
        key = columns[target]
    else:
        raise ValueError(f"{where}: no target column {target!r}; the columns are {columns[:20]}")
    features = frame.drop(columns=[key])
    if features.shape[1] == 0:
        raise ValueError(f"{where}: no feature columns besides the target {key!r}")
    text = [c for c in features.columns if features[c].dtype.kind not in "biuf"]
    if text:
        import pandas as pd

        features = pd.get_dummies(features, columns=text, dtype=float)
    missing = features.isna().to_numpy().any(axis=1)
    if missing.any():
        raise ValueError(
            f"{where}: {int(missing.sum())} row(s) have missing feature values, first row "
            f"{int(np.argmax(missing))}; impute or drop them first"
        )
    return features.to_numpy(dtype=np.float64), frame[key].to_numpy()


class UserData:
    """A user's data set: a callable returning ``(X, y)`` with labels -1/+1.

    Made by :func:`user_data`; it keeps the source (arrays, a DataFrame, or an absolute file
    path read again on each call) and the label mapping (``labels``), checked once when made.
    """

    def __init__(
        self,
        source: Any,
        *,
        target: Hashable | None = None,
        positive: Hashable | None = None,
        name: str | None = None,
        fmt: str | None = None,
    ) -> None:
        if isinstance(source, str | os.PathLike):
            source = Path(source).expanduser().resolve()
        self.source = source
        self.target = target
        self.positive = positive
        self.fmt = fmt
        self.name = name or self._default_name()
        X, y, self.labels = self._read()
        self.shape = X.shape
        self.counts = {k: int(np.sum(y == v)) for k, v in self.labels.items()}

    def _default_name(self) -> str:
        if isinstance(self.source, Path):
            return self.source.name.split(".")[0]
        return "data"

    def __repr__(self) -> str:
        src = str(self.source) if isinstance(self.source, Path) else type(self.source).__name__
        return f"UserData({self.name!r}, {src}, labels={self.labels})"

    def __call__(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        X, y, _ = self._read()
        return X, y

    def _frame_target(self, frame: Any, where: str) -> Hashable:
        if self.target is not None:
            return self.target
        found = [c for c in frame.columns if str(c).lower() in TARGET_NAMES]
        if len(found) != 1:
            raise ValueError(
                f"{where}: which column holds the labels? Name it one of {list(TARGET_NAMES)} or "
                f"pass svmtune.datasets.user_data(frame, target=COLUMN); the columns are "
                f"{list(frame.columns)[:20]}"
            )
        return found[0]

    def _read(self) -> tuple[NDArray[np.float64], NDArray[np.float64], dict[str, float]]:
        where = f"data set {self.name!r}"
        src = self.source
        if isinstance(src, Path):
            where += f" ({src})"
            features, labels = read_file(src, fmt=self.fmt)
            if hasattr(features, "columns"):  # CSV or KEEL: labels is the KEEL @outputs name
                target = self.target if self.target is not None else labels
                features, labels = _split_frame(features, target, where)
        elif hasattr(src, "columns") and hasattr(src, "drop"):  # a pandas DataFrame
            features, labels = _split_frame(src, self._frame_target(src, where), where)
        elif isinstance(src, tuple) and len(src) == 2:
            features, labels = src
        else:
            raise ValueError(
                f"{where}: expected (X, y) arrays, a pandas DataFrame or a file path; "
                f"got {type(src).__name__}"
            )
        X = _checked_X(features, where)
        y, mapping = binary_labels(labels, positive=self.positive, name=where)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"{where}: X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        return X, y, mapping


def _checked_X(features: Any, where: str) -> NDArray[np.float64]:
    if hasattr(features, "toarray"):
        features = features.toarray()
    try:
        return check_X(features, name=f"{where}: X")
    except TypeError as exc:
        raise ValueError(str(exc)) from exc


def user_data(
    source: Any,
    *,
    target: Hashable | None = None,
    positive: Hashable | None = None,
    name: str | None = None,
    fmt: str | None = None,
) -> UserData:
    """A data set of one's own, checked now, for a :class:`~svmtune.study.Study` or by hand.

    Parameters
    ----------
    source : (X, y) tuple, pandas DataFrame, or path of a CSV, KEEL or LIBSVM file
        The data. A DataFrame and a CSV/KEEL file hold the labels in a column (``target``);
        text feature columns are one-hot encoded; missing values are refused.
    target : column name or index, optional
        The label column of a DataFrame (required) or a CSV/KEEL file (default: the last, or a
        KEEL file's ``@outputs``).
    positive : label, optional
        The class mapped to +1; every other class becomes -1. Without it the data must have
        exactly two classes: the lower (sorted) label becomes -1, the higher +1.
    name : str, optional
        The data set's name (default: the file name without suffixes, else ``"data"``).
    fmt : {"csv", "keel", "libsvm"}, optional
        The file format (default: from the suffix: ``.csv``/``.tsv``, ``.dat``,
        ``.libsvm``/``.svm``; else from the first line).

    Returns
    -------
    UserData
        A picklable callable returning ``(X, y)``; ``labels`` holds the label mapping.

    Raises
    ------
    ValueError
        Naming the data set and the problem (no such file or column, one class or more than
        two, non-numeric or missing values).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [0.1, 0.5, 0.9, 0.3], "kind": ["no", "yes", "yes", "no"]})
    >>> data = user_data(df, target="kind", name="toy")
    >>> data.labels
    {'no': -1.0, 'yes': 1.0}
    >>> X, y = data()
    >>> X.shape, y.tolist()
    ((4, 1), [-1.0, 1.0, 1.0, -1.0])
    """
    if isinstance(source, Mapping):
        raise ValueError(f"user_data takes (X, y), a DataFrame or a file path; got a {source!r}")
    return UserData(source, target=target, positive=positive, name=name, fmt=fmt)
