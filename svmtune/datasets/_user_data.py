"""A user's own data as a checked binary task: arrays, DataFrames, CSV, KEEL and LIBSVM files.

:func:`user_data` turns what a user has into a :class:`UserData`, a picklable callable returning
``(X, y)`` with the labels mapped to -1 and +1 (a study calls it in every worker).
:func:`binary_labels` is the one label mapping: any two values (numbers, strings, booleans),
the lower one (in sorted order) to -1 and the higher one to +1, or ``positive`` to +1 and every
other class to -1 (one class against the rest).
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune._validation import check_X
from svmtune.datasets._columns import label_column, missing_refusal, typed_column
from svmtune.datasets._files import read_table
from svmtune.datasets._fingerprint import fingerprint

__all__ = ["FILE_FORMATS", "UserData", "binary_labels", "read_file", "user_data"]

#: Column names taken as a DataFrame's labels when no ``target`` is given.
TARGET_NAMES = ("target", "label", "class", "y")

#: File formats read by path, by suffix (``.gz`` allowed after any): the suffix is a hint,
#: the content decides (see :func:`read_file`).
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


def _read_libsvm(path: Path) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(path))
    except ValueError as exc:
        raise ValueError(f"LIBSVM file {str(path)!r} cannot be read: {exc}") from exc
    return np.asarray(X.toarray()), np.asarray(y)


def read_file(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    header: bool | None = None,
    target: Hashable | None = None,
    categorical: Sequence[Hashable] = (),
) -> tuple[Any, NDArray[Any]]:
    r"""``(features, labels)`` of a CSV, KEEL or LIBSVM file, read without loss.

    The format comes from the content (``fmt`` to say it): a KEEL ``@`` header, LIBSVM
    ``index:value`` pairs, else delimited text (``,``, ``;``, tab or blanks). A CSV or KEEL
    file gives a DataFrame of its feature columns (numbers as float64, text columns as text, to
    be one-hot encoded) and its label column (``target``; default a KEEL file's ``@outputs``,
    else the last column); a LIBSVM file a dense array and its labels. Missing values, text in
    a column of numbers, numbers written with commas, dates and complex numbers are refused,
    naming the file, the line and the column (see :mod:`svmtune.datasets._columns`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.csv"
    >>> _ = path.write_text("1.5,red,yes\n2.5,blue,no\n0.5,red,no\n")
    >>> features, labels = read_file(path)
    >>> features.shape, labels.tolist()
    ((3, 2), ['yes', 'no', 'no'])
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"data file {str(path)!r} does not exist")
    table = read_table(p, fmt=fmt, header=header)
    if isinstance(table, str):
        return _read_libsvm(p)
    where = f"data file {str(p)!r}"
    key = _target_key(table.names, target if target is not None else table.target, where)
    _check_categorical(table.names, categorical, key, where)
    j_key = table.names.index(key)
    labels = label_column(table.column(j_key), name=key, where=where, place=table.place)
    columns = {
        name: typed_column(
            table.column(j),
            name=name,
            where=where,
            place=table.place,
            categorical=name in table.categorical or name in categorical,
            numeric=name in table.numeric,
        )
        for j, name in enumerate(table.names)
        if j != j_key
    }
    return pd.DataFrame(columns), labels


def _target_key(columns: list[Any], target: Hashable | None, where: str) -> Any:
    if target is None:
        return columns[-1]
    if target in columns:
        return target
    if isinstance(target, int) and -len(columns) <= target < len(columns):
        return columns[target]
    raise ValueError(f"{where}: no target column {target!r}; the columns are {columns[:20]}")


def _check_categorical(columns: list[Any], categorical: Sequence[Hashable], key: Any, where: str):
    unknown = [c for c in categorical if c not in columns or c == key]
    if unknown:
        raise ValueError(
            f"{where}: categorical names {unknown}, not feature columns; the columns are "
            f"{[c for c in columns if c != key][:20]}"
        )


def _frame_features(
    frame: Any, key: Any, categorical: Sequence[Hashable], where: str
) -> tuple[Any, Any]:
    """A DataFrame's feature columns typed as a file's are, and its labels (as they are)."""
    import pandas as pd

    def place(i: int) -> str:
        label = frame.index[i]
        return f"row {i} (index {label.item() if isinstance(label, np.generic) else label!r})"

    _check_categorical(list(frame.columns), categorical, key, where)
    columns = {}
    for name in frame.columns:
        if name == key:
            continue
        col = frame[name]
        kind = col.dtype.kind
        if kind in "mMc":
            typed_column([col.iloc[0]], name=name, where=where, place=place)  # says what it is
        if kind in "biuf" and name not in categorical:
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.flatnonzero(np.isnan(values))
            if bad.size:
                raise missing_refusal(bad.size, name, where, place(int(bad[0])), np.nan)
            columns[name] = values
        else:
            columns[name] = typed_column(
                col.tolist(),
                name=name,
                where=where,
                place=place,
                categorical=isinstance(col.dtype, pd.CategoricalDtype) or name in categorical,
            )
    labels = frame[key]
    if labels.dtype.kind == "O":
        labels = label_column(labels.tolist(), name=key, where=where, place=place)
    return pd.DataFrame(columns), np.asarray(labels)


def _encoded(features: Any, where: str) -> NDArray[np.float64]:
    """The typed feature columns as numbers: text columns one-hot encoded (one column per
    level, in sorted order, after the numeric columns)."""
    import pandas as pd

    if features.shape[1] == 0:
        raise ValueError(f"{where}: no feature columns besides the labels")
    text = [c for c in features.columns if features[c].dtype.kind not in "biuf"]
    if text:
        features = pd.get_dummies(features, columns=text, dtype=float)
    return np.asarray(features.to_numpy(dtype=np.float64))


class UserData:
    """A user's data set: a callable returning ``(X, y)`` with labels -1/+1.

    Made by :func:`user_data`; it keeps the source (arrays, a DataFrame, or an absolute file
    path read again on each call), the label mapping (``labels``), the shape and the
    ``fingerprint`` of what was read (:func:`svmtune.datasets.fingerprint`), checked once when
    made. A call that reads different data (the file was edited since) raises ValueError.
    """

    def __init__(
        self,
        source: Any,
        *,
        target: Hashable | None = None,
        positive: Hashable | None = None,
        name: str | None = None,
        fmt: str | None = None,
        header: bool | None = None,
        categorical: Sequence[Hashable] = (),
    ) -> None:
        if isinstance(source, str | os.PathLike):
            source = Path(source).expanduser().resolve()
        self.source = source
        self.target = target
        self.positive = positive
        self.fmt = fmt
        self.header = header
        self.categorical = tuple(categorical)
        self.name = name or self._default_name()
        X, y, self.labels = self._read()
        self.shape = X.shape
        self.counts = {k: int(np.sum(y == v)) for k, v in self.labels.items()}
        self.fingerprint = fingerprint(X, y, self.labels)

    def _default_name(self) -> str:
        if isinstance(self.source, Path):
            return self.source.name.split(".")[0]
        return "data"

    def __repr__(self) -> str:
        src = str(self.source) if isinstance(self.source, Path) else type(self.source).__name__
        return f"UserData({self.name!r}, {src}, labels={self.labels})"

    def describe(self) -> str:
        """``"462 rows x 9 features, labels 0 -> -1, 1 -> +1"``: what was read."""
        shown = ", ".join(f"{label} -> {int(sign):+d}" for label, sign in self.labels.items())
        return f"{self.shape[0]} rows x {self.shape[1]} features, labels {shown}"

    def __call__(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        X, y, labels = self._read()
        now = fingerprint(X, y, labels)
        if now != getattr(self, "fingerprint", now):
            raise ValueError(
                f"data set {self.name!r}: {self._source_text()} now reads as "
                f"{now.split(':')[0]} (rows x features) with other values than when it was "
                f"checked ({self.fingerprint.split(':')[0]}): it changed; define the data set "
                "again"
            )
        return X, y

    def _source_text(self) -> str:
        return str(self.source) if isinstance(self.source, Path) else "its source"

    def _frame_target(self, frame: Any, where: str) -> Hashable:
        if self.target is not None:
            return _target_key(list(frame.columns), self.target, where)
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
            try:
                features, labels = read_file(
                    src,
                    fmt=self.fmt,
                    header=self.header,
                    target=self.target,
                    categorical=self.categorical,
                )
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            where += f" ({src})"
        elif hasattr(src, "columns") and hasattr(src, "drop"):  # a pandas DataFrame
            key = self._frame_target(src, where)
            features, labels = _frame_features(src, key, self.categorical, where)
        elif isinstance(src, tuple) and len(src) == 2:
            features, labels = src
        else:
            raise ValueError(
                f"{where}: expected (X, y) arrays, a pandas DataFrame or a file path; "
                f"got {type(src).__name__}"
            )
        if hasattr(features, "columns"):
            features = _encoded(features, where)
        X = _checked_X(features, where)
        y, mapping = binary_labels(labels, positive=self.positive, name=where)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"{where}: X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        return X, y, mapping


def _checked_X(features: Any, where: str) -> NDArray[np.float64]:
    if hasattr(features, "toarray"):
        features = features.toarray()
    arr = np.asarray(features) if not hasattr(features, "dtype") else features
    if getattr(arr, "dtype", None) is not None and arr.dtype.kind == "c":
        raise ValueError(f"{where}: X holds complex numbers; svmtune needs real numbers")
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
    header: bool | None = None,
    categorical: Sequence[Hashable] = (),
) -> UserData:
    """A data set of one's own, checked now, for a :class:`~svmtune.study.Study` or by hand.

    Parameters
    ----------
    source : (X, y) tuple, pandas DataFrame, or path of a CSV, KEEL or LIBSVM file
        The data. A DataFrame and a CSV/KEEL file hold the labels in a column (``target``).
        Feature columns of text throughout are one-hot encoded; missing values (``?``, empty,
        NaN), a column of numbers with a stray text value, numbers written with commas,
        dates and complex numbers are refused, naming the file, line (or row) and column
        (docs/your-data.md says exactly what is read).
    target : column name or index, optional
        The label column of a DataFrame (required unless it is named ``target``, ``label``,
        ``class`` or ``y``) or a CSV/KEEL file (default: a KEEL file's ``@outputs``, else the
        last column).
    positive : label, optional
        The class mapped to +1; every other class becomes -1. Without it the data must have
        exactly two classes: the lower (sorted) label becomes -1, the higher +1.
    name : str, optional
        The data set's name (default: the file name without suffixes, else ``"data"``).
    fmt : {"csv", "keel", "libsvm"}, optional
        The file format (default: from the content: a KEEL ``@`` header, LIBSVM
        ``index:value`` pairs (or a ``.libsvm``/``.svm`` suffix), else delimited text; a
        ``.dat`` file without an ``@`` header is KEEL rows).
    header : bool, optional
        Whether a CSV file's first line names the columns. Default: a KEEL file never has one
        (its ``@attribute`` lines name the columns); a CSV file has one when every field of its
        first line is text that recurs nowhere in its column below.
    categorical : sequence of column names, optional
        Feature columns to one-hot encode even though they hold numbers (codes).

    Returns
    -------
    UserData
        A picklable callable returning ``(X, y)``; ``labels`` holds the label mapping,
        ``shape`` the shape of X, ``fingerprint`` a hash of what was read.

    Raises
    ------
    ValueError
        Naming the data set and the problem (no such file or column, one class or more than
        two, a missing or non-numeric value and where it is, a file that cannot be read).

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
    >>> data.describe()
    '4 rows x 1 features, labels no -> -1, yes -> +1'
    """
    if isinstance(source, Mapping):
        raise ValueError(f"user_data takes (X, y), a DataFrame or a file path; got a {source!r}")
    if header not in (None, True, False):
        raise ValueError(f"header must be True, False or None (guess); got {header!r}")
    if isinstance(categorical, str) or not isinstance(categorical, Sequence):
        raise ValueError(f"categorical must be a list of column names; got {categorical!r}")
    return UserData(
        source,
        target=target,
        positive=positive,
        name=name,
        fmt=fmt,
        header=header,
        categorical=categorical,
    )
