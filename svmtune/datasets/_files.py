"""Reading a user's data file as text tokens with their line numbers: CSV, KEEL and LIBSVM.

The format is recognised from the content (a KEEL ``@`` header, LIBSVM ``index:value`` pairs,
else delimited text), or given. Every problem is a ValueError of one sentence naming the file:
an empty file, bytes that are not UTF-8, a ragged row, a file with only a label column.
Typing the columns (numbers, text, missing values) is :mod:`svmtune.datasets._columns`' job;
this module keeps each row's line number so its messages can point at the line.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svmtune.datasets._columns import MISSING, NUMBER, is_missing, parse_numbers

__all__ = ["Table", "read_table", "sniff"]

_LIBSVM_LINE = re.compile(
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:\s+qid:\S+)?(?:\s+\d+:\S+)*\s*(?:#.*)?"
)
_ATTRIBUTE = re.compile(r"@attribute\s+(?:'([^']*)'|\"([^\"]*)\"|([^\s{]+))\s*(.*)$", re.I)
_NUMERIC_TYPES = ("real", "integer", "numeric", "int", "float", "double")


@dataclass
class Table:
    """A file's rows as stripped text tokens, with what the file says about its columns."""

    path: Path
    names: list[Any]
    rows: list[list[str]]
    lines: list[int]  # line number (1-based) of each row
    target: str | None = None  # a KEEL file's @outputs
    categorical: set[Any] = field(default_factory=set)  # KEEL nominal attributes
    numeric: set[Any] = field(default_factory=set)  # KEEL real/integer attributes
    header: bool = False  # the first line named the columns
    _columns: list[list[str]] | None = field(default=None, repr=False)

    def place(self, i: int) -> str:
        return f"line {self.lines[i]}"

    def column(self, j: int) -> list[str]:
        if self._columns is None:
            self._columns = [list(c) for c in zip(*self.rows, strict=True)]
        return self._columns[j]


def _where(path: Path) -> str:
    return f"data file {str(path)!r}"


def read_text(path: Path) -> list[str]:
    """The file's lines (gzip-compressed if it ends in ``.gz``); ValueError naming the file and
    the line of a byte that is not UTF-8."""
    if path.suffix.lower() == ".gz":
        import gzip

        try:
            raw = gzip.decompress(path.read_bytes())
        except (OSError, EOFError) as exc:
            raise ValueError(f"{_where(path)} ends in .gz but is not gzip data ({exc})") from None
    else:
        raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"{_where(path)} is not UTF-8 text: byte 0x{raw[exc.start]:02x} on line {line} "
            "(latin-1 or another encoding?); save it as UTF-8"
        ) from None
    return text.splitlines()


def _significant(lines: list[str], comments: str) -> list[tuple[int, str]]:
    return [
        (n, line)
        for n, line in enumerate(lines, start=1)
        if line.strip() and not line.lstrip().startswith(tuple(comments))
    ]


def sniff(path: Path, lines: list[str]) -> str:
    """``"keel"``, ``"libsvm"`` or ``"csv"`` from the content (a ``.libsvm``/``.svm`` suffix
    says LIBSVM): an ``@`` header is KEEL, lines of ``label index:value ...`` are LIBSVM."""
    data = _significant(lines, "#%")
    if not data:
        raise ValueError(f"{_where(path)} is empty: no data lines")
    if data[0][1].lstrip().startswith("@"):
        return "keel"
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    if suffixes and suffixes[-1] in (".libsvm", ".svm"):
        return "libsvm"
    head = [line.strip() for _, line in data[:20]]
    if all(_LIBSVM_LINE.fullmatch(t) for t in head) and any(re.search(r"\s\d+:", t) for t in head):
        return "libsvm"
    return "csv"


def _split(line: str, delimiter: str | None) -> list[str]:
    return _split_all([line], delimiter)[0]


def _split_all(lines: list[str], delimiter: str | None) -> list[list[str]]:
    """Each line's fields (quotes removed, blanks around them dropped)."""
    if delimiter is None:
        return [line.split() for line in lines]
    rows = list(csv.reader(lines, delimiter=delimiter))
    if len(rows) != len(lines):  # an unclosed quote ran on into the next line: one at a time
        rows = [next(csv.reader([line], delimiter=delimiter), []) for line in lines]
    return [
        [t.strip() for t in row] if (" " in line or "\t" in line) else row
        for row, line in zip(rows, lines, strict=True)
    ]


def _delimiter(path: Path, sample: list[str]) -> str | None:
    """Tab for ``.tsv``; else the first of tab, ``;``, ``,`` that splits every sampled line into
    the same number (> 1) of fields; else blanks if the lines have them; else ``,``."""
    if ".tsv" in [s.lower() for s in path.suffixes]:
        return "\t"
    for d in ("\t", ";", ","):
        counts = {len(_split(line, d)) for line in sample}
        if len(counts) == 1 and counts.pop() > 1:
            return d
    for d in ("\t", ";", ","):
        if len(_split(sample[0], d)) > 1:
            return d  # a ragged file: the row check names the line
    return None if len(sample[0].split()) > 1 else ","


def _is_number(token: str) -> bool:
    return NUMBER.fullmatch(token) is not None


def _is_header(rows: list[list[str]]) -> bool:
    """Whether the first row names the columns (``header=None``): none of its fields is a
    missing-value mark, none of its text fields recurs in its column below (a data row of text
    shares its values with other rows), and either all its fields are text or one is text above
    a column of numbers (``0,1,2,label`` above rows of numbers)."""
    first, rest = rows[0], rows[1:]
    if not rest or any(t in MISSING[1:] or t.lower() == "nan" for t in first):
        return False
    all_text, text_over_numbers = True, False
    for j, tok in enumerate(first):
        if _is_number(tok):
            all_text = False
            continue
        if not tok:
            continue
        below = [r[j] for r in rest if not is_missing(r[j])]
        if tok in below:
            return False
        if below and parse_numbers(below) is not None:
            text_over_numbers = True
    return (all_text and any(first)) or text_over_numbers


def _check_rows(path: Path, rows: list[list[str]], lines: list[int], width: int) -> None:
    for row, n in zip(rows, lines, strict=True):
        if len(row) != width:
            raise ValueError(
                f"{_where(path)}: line {n} has {len(row)} fields where the file has {width} "
                "(a missing or extra delimiter, or a delimiter inside an unquoted value?)"
            )


def _drop_trailing_empty(rows: list[list[str]], names: list[Any]) -> None:
    """A delimiter at the end of every line makes an empty last column: dropped."""
    while names and all(r and r[-1] == "" for r in rows) and names[-1] in ("", len(names) - 1):
        for r in rows:
            r.pop()
        names.pop()


def _read_csv(path: Path, lines: list[str], header: bool | None, comments: str) -> Table:
    data = _significant(lines, comments)
    if not data:
        raise ValueError(f"{_where(path)} is empty: no data lines")
    delim = _delimiter(path, [line for _, line in data[:20]])
    rows = _split_all([line for _, line in data], delim)
    numbers = [n for n, _ in data]
    if len(rows) == 1:
        raise ValueError(f"{_where(path)} has one line (line {numbers[0]}) and no more: no data")
    _check_rows(path, rows, numbers, len(rows[0]))
    has_header = _is_header(rows) if header is None else bool(header)
    if has_header:
        names: list[Any] = [t or f"Unnamed: {j}" for j, t in enumerate(rows[0])]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{_where(path)}: the header names columns {dup} twice")
        rows, numbers = rows[1:], numbers[1:]
        if not rows:
            raise ValueError(f"{_where(path)} has a header line and no data rows")
    else:
        names = list(range(len(rows[0])))
    _drop_trailing_empty(rows, names)
    _check_width(path, len(names))
    return Table(path, names, rows, numbers, header=has_header)


def _check_width(path: Path, width: int) -> None:
    if width < 2:
        raise ValueError(
            f"{_where(path)} has one column (labels only, or a delimiter svmtune does not "
            "recognise: it reads ',', ';', tab or blanks); a data set needs feature columns"
        )


def _keel_attribute(path: Path, n: int, text: str, table: Table) -> None:
    m = _ATTRIBUTE.match(text)
    if m is None:
        raise ValueError(f"{_where(path)}: line {n} is not an @attribute NAME TYPE line")
    name = next(g for g in m.groups()[:3] if g is not None)
    kind = m.group(4).strip()
    if name in table.names:
        raise ValueError(f"{_where(path)}: line {n} declares the attribute {name!r} again")
    table.names.append(name)
    if kind.startswith("{"):
        table.categorical.add(name)
    elif kind.lower().split("[")[0].strip() in _NUMERIC_TYPES:
        table.numeric.add(name)


def _read_keel(path: Path, lines: list[str], header: bool | None) -> Table:
    """A KEEL file: ``@attribute`` lines name and type the columns, ``@inputs``/``@outputs``
    say which is the class, the lines after ``@data`` are rows (never a header)."""
    table = Table(path, [], [], [], header=True)
    data_at = None
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        low = text.lower()
        if low.startswith("@attribute"):
            _keel_attribute(path, n, text, table)
        elif low.startswith(("@output", "@outputs")):
            parts = text.split(None, 1)
            table.target = parts[1].strip() if len(parts) > 1 else None
        elif low.startswith("@data"):
            data_at = n
            break
        elif not low.startswith("@"):
            raise ValueError(f"{_where(path)}: line {n} comes before @data but is no @ line")
    if data_at is None:
        raise ValueError(f"{_where(path)} has a KEEL header and no @data line")
    body = [(n, line) for n, line in _significant(lines, "%") if n > data_at]
    if not body:
        raise ValueError(f"{_where(path)} has a KEEL header and no data rows after @data")
    table.rows = [[t.strip().strip("'\"") for t in next(csv.reader([ln]))] for _, ln in body]
    table.lines = [n for n, _ in body]
    width = len(table.names) or len(table.rows[0])
    if not table.names:
        table.names = list(range(width))
    _check_rows(path, table.rows, table.lines, width)
    _check_width(path, width)
    return table


def read_table(path: Path, *, fmt: str | None = None, header: bool | None = None) -> Table | str:
    """The file as a :class:`Table`, or ``"libsvm"`` for a LIBSVM file (read by scikit-learn).

    ``fmt`` ``"keel"`` reads a file without an ``@`` header as rows of data (no header line
    unless ``header=True``); ``"csv"`` takes a header line if ``header`` says so, else if the
    first line looks like one (see :func:`_is_header`).
    """
    lines = read_text(path)
    kind = fmt or sniff(path, lines)
    if fmt is None and kind == "csv" and ".dat" in [s.lower() for s in path.suffixes]:
        kind = "keel"  # KEEL rows without the @ header: never a header line
    if kind == "libsvm":
        return "libsvm"
    if kind == "keel":
        first = _significant(lines, "%")
        if first and first[0][1].lstrip().startswith("@"):
            return _read_keel(path, lines, header)
        return _read_csv(path, lines, bool(header), "%")
    if kind == "csv":
        return _read_csv(path, lines, header, "#")
    raise ValueError(f"unknown data file format {fmt!r}; use 'csv', 'keel' or 'libsvm'")
