"""One column of a user's table, typed without loss: numbers, text (one-hot encoded later), or a
refusal naming the place and the value.

A file's columns arrive as text tokens, a DataFrame's as values of any dtype; both go through
:func:`typed_column`, so the same table read from a CSV file and as a DataFrame gives the same
numbers. The rules:

- ``?``, ``<null>``, an empty field, NaN and None are missing values: refused (file, line and
  column, or the DataFrame's row).
- A column whose values are all numbers is numeric. A column of text throughout is categorical
  (one-hot encoded), as is any column named in ``categorical``. A column of numbers and some
  text is refused, naming the first text value and where it is.
- Numbers written with a comma (``1,5`` decimal commas, ``1,000`` thousands separators), complex
  numbers and dates are refused, each with its own sentence: encoding them as categories would
  silently change what the column means.
"""

from __future__ import annotations

import datetime as _dt
import numbers
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MISSING",
    "NUMBER",
    "is_missing",
    "label_column",
    "missing_refusal",
    "parse_numbers",
    "typed_column",
]

#: Tokens that mark a missing value in every format (compared after stripping blanks); ``nan``
#: in any case too.
MISSING = ("", "?", "<null>")

NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?", re.I)
_COMMANUMBER = re.compile(r"[+-]?\d+(?:,\d+)+(?:\.\d+)?")
_COMPLEX = re.compile(r"\(?[+-]?[0-9.eE+-]*[0-9.][jJ]\)?")
_DATE = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}(?:[ T].*)?|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}:\d{2}(?::\d\d)?"
)

Place = Callable[[int], str]


def is_missing(value: Any) -> bool:
    """Whether a value is missing: None, NaN, or a token in :data:`MISSING` (or ``nan``)."""
    if value is None:
        return True
    if isinstance(value, str):
        text = value.strip()
        return text in MISSING or text.lower() == "nan"
    if isinstance(value, float | np.floating):
        return bool(value != value)
    try:
        import pandas as pd

        return bool(value is pd.NA or value is pd.NaT)
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False


def parse_numbers(values: Sequence[Any]) -> NDArray[np.float64] | None:
    """Values that are all numbers or number tokens (NaN for ``nan``), parsed by ``float``;
    None if any is not a plain decimal number (the value-by-value path then says which)."""
    if not len(values):
        return None
    try:
        joined = "".join(values)
    except TypeError:  # not all text: the value-by-value path
        return None
    if "_" in joined or "x" in joined or "X" in joined:
        return None  # digit groups, hexadecimal: not numbers here
    try:
        return np.array(values, dtype=np.float64)
    except ValueError:
        return None


def _number(value: Any) -> float | None:
    """The value as a float, or None if it is not a (real) number."""
    if isinstance(value, bool | np.bool_):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str) and NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def _refusal(value: Any, name: Any, where: str, at: str) -> str | None:
    """The sentence refusing a value that only looks like text, or None for true text."""
    col = f"column {name!r}"
    if isinstance(value, complex | np.complexfloating) or (
        isinstance(value, str) and _COMPLEX.fullmatch(value.strip()) and _complex(value)
    ):
        return (
            f"{where}: {col} holds the complex number {str(value)!r} at {at}; svmtune needs real "
            "numbers (split it into real and imaginary columns)"
        )
    if isinstance(value, _dt.date | _dt.time | _dt.timedelta | np.datetime64 | np.timedelta64) or (
        isinstance(value, str) and _DATE.fullmatch(value.strip())
    ):
        return (
            f"{where}: {col} holds the date or time {str(value)!r} at {at}; convert it to "
            "numbers first (e.g. days since a start date)"
        )
    if isinstance(value, str) and _COMMANUMBER.fullmatch(value.strip()):
        return (
            f"{where}: {col} holds {value.strip()!r} at {at}, a number written with a comma "
            "(a decimal comma or a thousands separator); svmtune reads numbers like 1.5 or "
            "1000: save the file with '.' decimals and no separators, or read it with "
            "pandas.read_csv(sep=..., decimal=',', thousands=...) and pass the DataFrame"
        )
    if not isinstance(value, str):
        return f"{where}: {col} holds {value!r} ({type(value).__name__}) at {at}; not a number"
    return None


def _complex(text: str) -> bool:
    try:
        complex(text.strip())
    except ValueError:
        return False
    return True


def missing_refusal(n: int, name: Any, where: str, at: str, value: Any) -> ValueError:
    shown = "an empty field" if isinstance(value, str) and not value.strip() else repr(value)
    return ValueError(
        f"{where}: missing value ({shown}) at {at}, column {name!r} ({n} missing in the "
        "column); svmtune does not impute: fill in or drop the rows with missing values first"
    )


def typed_column(
    values: Sequence[Any],
    *,
    name: Any,
    where: str,
    place: Place,
    categorical: bool = False,
    numeric: bool = False,
) -> NDArray[Any]:
    """The column as float64 numbers, or as an object array of text (a categorical column).

    ``place(i)`` says where value ``i`` is (``"line 7"``, ``"row 6"``); ``categorical`` makes
    the column text whatever it holds; ``numeric`` (a KEEL ``real``/``integer`` attribute)
    refuses text in it even where the whole column is text. ValueError for a missing value,
    a column of numbers with some text, or a value that only looks like text (see above).
    """
    if not categorical:
        fast = parse_numbers(values)
        if fast is not None and not np.isnan(fast).any():
            return fast
    uniq = _unique(values)  # each distinct value judged once
    if any(is_missing(u) for u in uniq):
        missing = [i for i, v in enumerate(values) if is_missing(v)]
        raise missing_refusal(len(missing), name, where, place(missing[0]), values[missing[0]])
    if categorical:
        return _texts(values, uniq)
    parsed = {_key(u): _number(u) for u in uniq}
    texts = [u for u in uniq if parsed[_key(u)] is None]
    if not texts:
        return np.asarray([parsed[_key(v)] for v in values], dtype=np.float64)
    first = {_key(u): i for i, u in reversed(list(enumerate(values)))}
    for u in texts:
        why = _refusal(u, name, where, place(first[_key(u)]))
        if why is not None:
            raise ValueError(why)
    if len(texts) < len(uniq) or numeric:
        i = min(first[_key(u)] for u in texts)
        n_text = sum(1 for v in values if parsed[_key(v)] is None)
        raise ValueError(
            f"{where}: column {name!r} holds {len(values) - n_text} numbers and the text "
            f"{values[i]!r} at {place(i)} ({n_text} text value(s) in all); fix the value, or "
            "name the column in user_data(..., categorical=[...]) to one-hot encode it"
        )
    return _texts(values, uniq)


def _key(value: Any) -> Any:
    """A dict key for a value: itself, or its id where it cannot be hashed."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value


def _unique(values: Sequence[Any]) -> list[Any]:
    seen: dict[Any, Any] = {}
    for v in values:
        seen.setdefault(_key(v), v)
    return list(seen.values())


def _texts(values: Sequence[Any], uniq: list[Any]) -> NDArray[Any]:
    shown = {_key(u): _text(u) for u in uniq}
    return np.asarray([shown[_key(v)] for v in values], dtype=object)


def _text(value: Any) -> str:
    """A categorical value as text: ``1`` and ``1.0`` and ``"1"`` are one level."""
    num = _number(value)
    if num is not None:
        return str(int(num)) if num.is_integer() else repr(num)
    return str(value).strip()


def label_column(values: Sequence[Any], *, name: Any, where: str, place: Place) -> NDArray[Any]:
    """A label column: numbers if every label is one, else text; missing labels refused."""
    missing = [i for i, v in enumerate(values) if is_missing(v)]
    if missing:
        i = missing[0]
        raise ValueError(
            f"{where}: missing label ({values[i]!r}) at {place(i)}, column {name!r} "
            f"({len(missing)} missing labels); drop those rows first"
        )
    fast = parse_numbers(values)
    if fast is not None:
        return fast
    parsed = [_number(v) for v in values]
    if all(p is not None for p in parsed):
        return np.asarray(parsed, dtype=np.float64)
    return np.asarray([_text(v) for v in values], dtype=object)
