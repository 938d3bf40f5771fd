"""Parse the bundled KEEL files, encode their columns, and hand out copies.

Each file is parsed once per process (:func:`functools.cache`); the cached arrays are
read-only and every public function returns fresh copies, so a caller cannot corrupt the cache.
"""

from __future__ import annotations

import gzip
import re
from functools import cache
from importlib import resources
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from svmtune.datasets._mfeat import MFEAT_TASKS, load_mfeat, mfeat_groups, mfeat_info
from svmtune.datasets._registry import ALIASES, DATASETS, SOURCES, Source, resolve

__all__ = ["feature_names", "list_datasets", "load", "load_groups"]

_MISSING = ("", "?", "<null>")

# IUPAC nucleotide codes: the bases each stands for.
_IUPAC = {
    "A": "A", "C": "C", "G": "G", "T": "T",
    "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
    "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT",
}  # fmt: skip
_BASES = "ACGT"
_AMBIGUOUS = [code for code in _IUPAC if code not in _BASES]


class _Encoded(NamedTuple):
    """One source file, parsed and encoded (arrays read-only)."""

    X: NDArray[np.float64]
    names: tuple[str, ...]
    blocks: tuple[NDArray[np.intp], ...]  # encoded columns of each raw column
    labels: NDArray[np.str_]  # raw class label of each row
    ambiguous: NDArray[np.bool_]  # rows holding an IUPAC ambiguity code


def _read_tokens(src: Source) -> NDArray[np.str_]:
    """The file as a (rows, raw_features + 1) array of stripped strings, checked."""
    path = resources.files("svmtune.datasets").joinpath("data", f"{src.file}.dat.gz")
    with path.open("rb") as fh:
        text = gzip.decompress(fh.read()).decode("utf-8")
    rows = [line.split(",") for line in text.splitlines() if line.strip()]
    width = src.raw_features + 1
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"{src.file}.dat row {i} has {len(row)} fields; expected {width} "
                f"({src.raw_features} features and the class)"
            )
    if len(rows) != src.rows:
        raise ValueError(f"{src.file}.dat has {len(rows)} rows; expected {src.rows}")
    tokens = np.char.strip(np.array(rows, dtype=str))
    missing = np.isin(tokens, _MISSING)
    if missing.any():
        i, j = np.argwhere(missing)[0]
        raise ValueError(
            f"{src.file}.dat has {int(missing.sum())} missing value(s), first at row {i}, "
            f"column {j} ({tokens[i, j]!r}); the bundled loader does not impute"
        )
    return tokens


def _natural_key(level: str) -> tuple[tuple[int, float | str], ...]:
    try:
        return ((0, float(level)),)
    except ValueError:
        parts = re.split(r"(\d+)", level)
        return tuple((0, float(p)) if p.isdigit() else (1, p) for p in parts if p)


def _encode_column(
    col: NDArray[np.str_], kind: str, name: str, where: str
) -> tuple[NDArray[np.float64], list[str]]:
    """Encode one raw column into ``(values (n, m), m column names)``."""
    if kind == "num":
        try:
            return col.astype(np.float64)[:, None], [name]
        except ValueError as exc:
            raise ValueError(f"{where}: non-numeric value: {exc}") from exc
    levels, inverse = np.unique(col, return_inverse=True)
    if kind == "cat":
        order = sorted(range(len(levels)), key=lambda k: _natural_key(str(levels[k])))
        rank = np.empty(len(levels), dtype=np.intp)
        rank[order] = np.arange(len(levels))
        out = np.zeros((col.size, len(levels)))
        out[np.arange(col.size), rank[inverse]] = 1.0
        return out, [f"{name}={levels[k]}" for k in order]
    if kind == "interval":
        mids = np.empty(len(levels))
        for k, level in enumerate(levels):
            m = re.fullmatch(r"(\d+)-(\d+)", str(level))
            if m is None:
                raise ValueError(f"{where}: {level!r} is not an interval like '40-49'")
            mids[k] = (int(m.group(1)) + int(m.group(2))) / 2.0
        return mids[inverse][:, None], [name]
    if kind == "dna":
        weights = np.zeros((len(levels), 4))
        for k, level in enumerate(levels):
            bases = _IUPAC.get(str(level))
            if bases is None:
                raise ValueError(f"{where}: {level!r} is not an IUPAC nucleotide code")
            for b in bases:
                weights[k, _BASES.index(b)] = 1.0 / len(bases)
        return weights[inverse], [f"{name}={b}" for b in _BASES]
    raise ValueError(f"{where}: unknown column kind {kind!r}")  # pragma: no cover


@cache
def _encoded(file: str) -> _Encoded:
    src = SOURCES[file]
    tokens = _read_tokens(src)
    parts: list[NDArray[np.float64]] = []
    names: list[str] = []
    blocks: list[NDArray[np.intp]] = []
    for j, (kind, name) in enumerate(zip(src.kinds, src.names, strict=True)):
        values, cols = _encode_column(tokens[:, j], kind, name, f"{file}.dat column {j} ({name})")
        blocks.append(np.arange(len(names), len(names) + len(cols)))
        parts.append(values)
        names.extend(cols)
    X = np.ascontiguousarray(np.hstack(parts))
    dna = [j for j, kind in enumerate(src.kinds) if kind == "dna"]
    ambiguous = np.asarray(np.isin(tokens[:, dna], _AMBIGUOUS).any(axis=1), dtype=bool)
    labels = np.ascontiguousarray(tokens[:, -1])
    for a in (X, labels, ambiguous, *blocks):
        a.setflags(write=False)
    return _Encoded(X, tuple(names), tuple(blocks), labels, ambiguous)


@cache
def _dataset(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    info = DATASETS[name]
    enc = _encoded(info.source)
    pos = np.isin(enc.labels, info.positive)
    neg = np.isin(enc.labels, info.negative)
    unknown = ~(pos | neg)
    if unknown.any():
        raise ValueError(
            f"{info.source}.dat holds class labels {sorted(set(enc.labels[unknown]))} that the "
            f"{name!r} task maps to neither class"
        )
    y = np.where(pos, 1.0, -1.0)
    if enc.X.shape[1] != info.features or int(pos.sum()) != info.positives:
        raise RuntimeError(
            f"bundled data set {name!r} loads with {enc.X.shape[1]} features and "
            f"{int(pos.sum())} positives; the registry says {info.features} and "
            f"{info.positives}: the data file and the registry disagree"
        )
    if not np.isfinite(enc.X).all():  # pragma: no cover - float() refuses nothing finite here
        raise RuntimeError(f"bundled data set {name!r} has non-finite values")
    y.setflags(write=False)
    return enc.X, y


def load(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Load a bundled data set as a binary task.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (aliases such as ``"diabetis"`` included). Names are
        exact and lower case: Fischetti's "Breast" is ``"wisconsin"``; ``"breast"`` is Ratsch's
        breast-cancer.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Categorical columns one-hot encoded (see :mod:`svmtune.datasets._registry`); not
        standardized (the split functions do that from the training part).
    y : ndarray of shape (n_samples,), float64
        Labels in {-1, +1}; ``positive_class`` in :func:`list_datasets` says what +1 is.

    Raises
    ------
    ValueError
        For an unknown name, listing the valid ones.

    Examples
    --------
    >>> from svmtune.datasets import load
    >>> X, y = load("heart")
    >>> X.shape, int((y == 1).sum())
    ((270, 23), 120)
    """
    if isinstance(name, str) and name in MFEAT_TASKS:  # the mfeat views (svmtune.datasets._mfeat)
        return load_mfeat(name)
    info = resolve(name)
    X, y = _dataset(info.name)
    return X.copy(), y.copy()


def feature_names(name: str) -> list[str]:
    """Names of the columns of ``load(name)[0]``; encoded columns read ``<variable>=<level>``.

    Examples
    --------
    >>> from svmtune.datasets import feature_names
    >>> feature_names("heart")[:4]
    ['age', 'sex=0', 'sex=1', 'chest_pain=1']
    """
    return list(_encoded(resolve(name).source).names)


def _with_groups() -> list[str]:
    return sorted(
        [*MFEAT_TASKS, *(d.name for d in DATASETS.values() if SOURCES[d.source].groups)]
        + [s.file for s in SOURCES.values() if s.groups and s.file not in DATASETS]
    )


def load_groups(name: str) -> list[NDArray[np.intp]]:
    """Feature groups of a data set, for multiple-kernel models.

    Each group is an int array of column indices into ``load(name)[0]``; the groups are
    disjoint and together cover every column.

    - ``spambase``: 48 word frequencies, 6 character frequencies, 3 capital-run lengths.
    - ``optdigits-*``: the four 4x4 quadrants of the 8x8 image (top-left, top-right,
      bottom-left, bottom-right), 16 pixels each.
    - ``penbased-*``: the 8 x coordinates, then the 8 y coordinates of the pen trajectory.
    - ``mfeat*``: the views of the UCI multiple-features digits (Fourier, Karhunen-Loeve, pixel,
      Zernike; then profile correlations and morphological for the ``6`` tasks).

    The source names ``"optdigits"`` and ``"penbased"`` are accepted too. The split functions
    drop constant columns (optdigits has some); re-index the groups with
    :func:`~svmtune.datasets.restrict_groups`.

    Raises
    ------
    ValueError
        For an unknown name, or a data set without groups (naming those that have them).

    Examples
    --------
    >>> from svmtune.datasets import load_groups
    >>> [len(g) for g in load_groups("spambase")]
    [48, 6, 3]
    """
    if isinstance(name, str) and name in MFEAT_TASKS:
        return mfeat_groups(name)
    if isinstance(name, str) and name in SOURCES and name not in DATASETS and name not in ALIASES:
        src = SOURCES[name]
    else:
        src = SOURCES[resolve(name).source]
    if not src.groups:
        raise ValueError(
            f"data set {name!r} has no feature groups; data sets with groups: {_with_groups()}"
        )
    enc = _encoded(src.file)
    return [np.concatenate([enc.blocks[j] for j in cols]) for _, cols in src.groups]


def _ambiguous_rows(name: str) -> NDArray[np.bool_]:
    """Rows of ``load(name)`` that hold an IUPAC ambiguity code (splice only; else none)."""
    return _encoded(resolve(name).source).ambiguous.copy()


def n_rows(name: str) -> int:
    """Rows of the bundled data set ``name`` (a name or an alias), before any split; read from
    the registry, so nothing is parsed. ValueError listing the valid names for another name.

    Examples
    --------
    >>> from svmtune.datasets import n_rows
    >>> n_rows("heart"), n_rows("diabetis")
    (270, 768)
    """
    if isinstance(name, str) and name in MFEAT_TASKS:
        return mfeat_info(name).rows
    return SOURCES[resolve(name).source].rows


def list_datasets() -> pd.DataFrame:
    """The bundled data sets, one row per loadable name.

    Alias rows (``alias_of`` set) follow the data set they name. The counts come from the
    registry, and every :func:`load` checks them against the data file, so this call parses
    nothing.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``alias_of``, ``rows``, ``features`` (after encoding),
        ``raw_features`` (before encoding), ``positives``, ``positive_class``, ``source``
        (KEEL file), ``papers``.

    Examples
    --------
    >>> from svmtune.datasets import list_datasets
    >>> table = list_datasets()
    >>> row = table.set_index("name").loc["diabetis"]
    >>> row["alias_of"], int(row["rows"]), int(row["features"])
    ('pima', 768, 8)
    """
    records = []
    for info in DATASETS.values():
        src = SOURCES[info.source]
        for name, alias_of in [(info.name, ""), *[(a, info.name) for a in info.aliases]]:
            records.append(
                {
                    "name": name,
                    "alias_of": alias_of,
                    "rows": src.rows,
                    "features": info.features,
                    "raw_features": src.raw_features,
                    "positives": info.positives,
                    "positive_class": info.positive_class,
                    "source": f"{src.file}.dat",
                    "papers": info.papers,
                }
            )
    for name in MFEAT_TASKS:
        mf = mfeat_info(name)
        records.append(
            {
                "name": name,
                "alias_of": "",
                "rows": mf.rows,
                "features": mf.features,
                "raw_features": mf.features,
                "positives": mf.positives,
                "positive_class": "even digits" if "EO" in name else "digits 0-4",
                "source": ", ".join(f"mfeat-{v}.csv" for v in mf.views),
                "papers": "Carrizosa et al. 2014 (Tables 2, 4, 5)",
            }
        )
    return pd.DataFrame.from_records(records)
