"""What each bundled data set is: its KEEL file, column types, binary task, and the papers.

Everything a reader needs to know about a data set's encoding and labels is written here and in
``data/tasks.toml`` (the binary task of each data set, as data: labels, counts, papers, notes);
:mod:`svmtune.datasets._load` only carries it out (and checks the counts recorded here against
the files every time it parses one).

Encoding rules
--------------
- ``"num"`` columns are read as floats.
- ``"cat"`` columns (binary and nominal variables) are one-hot encoded: one 0/1 column per level
  that occurs in the file, binary variables included. With this rule the Fischetti et al. (2016)
  feature counts come out: heart 23 (their Table 1: 23) and australian 42 (their 43 has one more
  column for level 6 of A6, which never occurs: an all-zero column every split drops anyway).
  Ordered variables stay one numeric column (heart's slope, breast's deg-malig).
- ``"interval"`` columns (breast's age, tumor-size, inv-nodes, written ``"40-49"``) become the
  interval midpoint (44.5): this keeps both the order and the unequal gaps between the levels
  that occur (inv-nodes has no ``18-20`` or ``21-23`` rows).
- ``"dna"`` columns (splice) become four columns, one per base A, C, G, T. A definite base is a
  one-hot row; an IUPAC ambiguity code spreads weight 1 evenly over the bases it stands for
  (N: 1/4 each, R = A/G: 1/2 each, S = C/G: 1/2 each, D = A/G/T: 1/3 each). 15 of the 3190
  rows hold such codes. A separate indicator column per code would be 1 in one or two rows and,
  after standardization, throw those rows far from all others.

No bundled file has missing values; the loader refuses a file with an empty or ``?`` field
rather than imputing one.

Positive class
--------------
The minority class, unless a paper fixes the sign: Ratsch's ``image`` labels its four-class
group +1 (the majority), and the digit tasks name their +1 group first (``-eo``: even digits
+1, ``-sl``: small digits 0-4 +1), so one name means one labelling on both digit data sets.
The image grouping and the signs of image and splice were found by matching every row against
a public copy of Ratsch's benchmark files (``image.mat``, ``splice.mat``, ``thyroid.mat`` in
github.com/Devn913/AGMR_entropy_sparse): image +1 is KEEL classes 1, 2, 3, 6 (brickface, sky,
foliage, path), splice +1 is EI and IE, and Ratsch's splice is this file without the 15 rows
holding ambiguity codes. Ratsch's thyroid labels 65 rows +1 (hyper- and hypothyroid); KEEL's
new-thyroid1, the only thyroid file bundled, labels only the 35 hyperthyroid rows +1.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

__all__ = [
    "ALIASES",
    "DATASETS",
    "RATSCH_SIZES",
    "SOURCES",
    "DatasetInfo",
    "Source",
    "dataset_info",
    "resolve",
]


@dataclass(frozen=True)
class Source:
    """One bundled KEEL file (``data/<file>.dat.gz``).

    Attributes
    ----------
    file : str
        File stem.
    rows : int
        Number of rows (README table); checked on every parse.
    kinds : tuple of str
        Type of each feature column: ``"num"``, ``"cat"``, ``"interval"`` or ``"dna"``.
    names : tuple of str
        Name of each feature column (encoded columns are named ``<name>=<level>``).
    groups : tuple of (str, tuple of int)
        Named feature groups, as raw column indices (mapped to encoded columns on load).
    """

    file: str
    rows: int
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    groups: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def raw_features(self) -> int:
        return len(self.kinds)


@dataclass(frozen=True)
class DatasetInfo:
    """One loadable binary task.

    Attributes
    ----------
    name : str
        The name :func:`svmtune.datasets.load` takes.
    source : str
        KEEL file stem.
    positive, negative : tuple of str
        Raw class labels mapped to +1 and -1. Every label of the file must be in one of them:
        no row is dropped.
    features : int
        Columns of the loaded ``X`` (after encoding); checked on every load.
    positives : int
        Number of +1 labels; checked on every load.
    positive_class : str
        What +1 means, for people.
    papers : str
        Where the data set appears (and under which name).
    aliases : tuple of str
        Other names :func:`~svmtune.datasets.load` accepts for it.
    note : str
        Anything a user comparing with a paper should know.
    """

    name: str
    source: str
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    features: int
    positives: int
    positive_class: str
    papers: str
    aliases: tuple[str, ...] = ()
    note: str = ""


def _columns(spec: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``"age sex:cat size:interval"`` -> kinds and names (a bare name is numeric)."""
    kinds, names = [], []
    for item in spec.split():
        name, _, kind = item.partition(":")
        names.append(name)
        kinds.append(kind or "num")
    return tuple(kinds), tuple(names)


def _numbered(n: int, prefix: str = "x") -> str:
    return " ".join(f"{prefix}{j}" for j in range(n))


def _source(file: str, rows: int, spec: str, **kw) -> Source:
    kinds, names = _columns(spec)
    return Source(file=file, rows=rows, kinds=kinds, names=names, **kw)


def _quadrants() -> tuple[tuple[str, tuple[int, ...]], ...]:
    """optdigits: the 8x8 image, pixel (r, c) in column 8 r + c, cut into four 4x4 quadrants."""
    out = []
    for label, rows, cols in (
        ("top-left", range(0, 4), range(0, 4)),
        ("top-right", range(0, 4), range(4, 8)),
        ("bottom-left", range(4, 8), range(0, 4)),
        ("bottom-right", range(4, 8), range(4, 8)),
    ):
        out.append((label, tuple(8 * r + c for r in rows for c in cols)))
    return tuple(out)


_SOURCE_LIST = (
    _source(
        "australian",
        690,
        "A1:cat A2 A3 A4:cat A5:cat A6:cat A7 A8:cat A9:cat A10 A11:cat A12:cat A13 A14",
    ),
    _source("wisconsin", 683, _numbered(9)),
    _source("bupa", 345, _numbered(6)),
    _source(
        "german",
        1000,
        "checking:cat duration history:cat purpose:cat amount savings:cat employment:cat "
        "rate status_sex:cat debtors:cat residence property:cat age plans:cat housing:cat "
        "credits job:cat liable telephone:cat foreign:cat",
    ),
    _source(
        "german-numeric",
        1000,
        "checking duration history amount_100 savings employment status_sex residence "
        "property age plans credits liable telephone foreign purpose_new_car purpose_used_car "
        "debtors_none debtors_coapplicant housing_rent housing_own job_unskilled_nonresident "
        "job_unskilled_resident job_skilled",
    ),
    _source(
        "heart",
        270,
        "age sex:cat chest_pain:cat bp chol fbs:cat ecg:cat max_hr angina:cat oldpeak "
        "slope vessels thal:cat",
    ),
    _source("ionosphere", 351, _numbered(33)),
    _source("pima", 768, _numbered(8)),
    _source("sonar", 208, _numbered(60)),
    _source("wdbc", 569, _numbered(30)),
    _source(
        "breast",
        277,
        "age:interval menopause:cat tumor_size:interval inv_nodes:interval node_caps:cat "
        "deg_malig side:cat quadrant:cat irradiat:cat",
    ),
    _source("banana", 5300, _numbered(2)),
    _source("ring", 7400, _numbered(20)),
    _source("twonorm", 7400, _numbered(20)),
    _source("titanic", 2201, _numbered(3)),
    _source("splice", 3190, " ".join(f"p{j + 1}:dna" for j in range(60))),
    _source(
        "segment",
        2310,
        "centroid_col centroid_row pixel_count line_density_5 line_density_2 vedge_mean "
        "vedge_sd hedge_mean hedge_sd intensity raw_red raw_blue raw_green ex_red ex_blue "
        "ex_green value saturation hue",
    ),
    _source("new-thyroid1", 215, _numbered(5)),
    _source(
        "penbased",
        10992,
        " ".join(f"{'xy'[j % 2]}{j // 2 + 1}" for j in range(16)),
        groups=(("x", tuple(range(0, 16, 2))), ("y", tuple(range(1, 16, 2)))),
    ),
    _source("optdigits", 5620, _numbered(64, "pixel"), groups=_quadrants()),
    _source(
        "spambase",
        4597,
        _numbered(57),
        groups=(
            ("word_freq", tuple(range(0, 48))),
            ("char_freq", tuple(range(48, 54))),
            ("capital_run", tuple(range(54, 57))),
        ),
    ),
)
SOURCES: dict[str, Source] = {s.file: s for s in _SOURCE_LIST}


def _read_toml(file: str) -> dict:
    text = resources.files("svmtune.datasets").joinpath("data", file).read_text("utf-8")
    return tomllib.loads(text)


def _read_tasks(file: str = "tasks.toml") -> dict[str, DatasetInfo]:
    """The tasks of ``data/<file>`` (a description of each, as data), name -> record."""
    tasks = {}
    for rec in _read_toml(file)["dataset"]:
        info = DatasetInfo(
            **{
                **rec,
                "source": rec.get("source", rec["name"]),
                "positive": tuple(rec["positive"]),
                "negative": tuple(rec["negative"]),
                "aliases": tuple(rec.get("aliases", ())),
            }
        )
        if info.source not in SOURCES:  # pragma: no cover - a broken package
            raise RuntimeError(f"data set {info.name!r} names no bundled file {info.source!r}")
        tasks[info.name] = info
    return tasks


# The benchmark suite's extra KEEL files and tasks (data/suite.toml; the suite itself and its
# selection rule: svmtune/datasets/_suite.py).
SOURCES.update(
    (rec["file"], _source(rec["file"], rec["rows"], rec["columns"]))
    for rec in _read_toml("suite.toml")["source"]
)

DATASETS: dict[str, DatasetInfo] = {**_read_tasks(), **_read_tasks("suite.toml")}

ALIASES: dict[str, str] = {a: d.name for d in DATASETS.values() for a in d.aliases}

# Carrizosa et al. (2014), Table 1: (training size, test size) of Ratsch's realizations.
RATSCH_SIZES: dict[str, tuple[int, int]] = {
    "banana": (400, 4900),
    "diabetis": (468, 300),
    "image": (1300, 1010),
    "splice": (1000, 2175),
    "ringnorm": (400, 7000),
    "twonorm": (400, 7000),
    "german": (700, 300),
    "heart": (170, 100),
    "thyroid": (140, 75),
    "titanic": (150, 2051),
    "breast-cancer": (200, 77),
}


def resolve(name: object) -> DatasetInfo:
    """The data set called ``name`` (a name or an alias); ValueError listing the valid names.

    Names are matched exactly (lower case): ``"Breast"`` is Fischetti's name for
    ``"wisconsin"``, while ``"breast"`` is Ratsch's breast-cancer.
    """
    if isinstance(name, str):
        if name in DATASETS:
            return DATASETS[name]
        if name in ALIASES:
            return DATASETS[ALIASES[name]]
    raise ValueError(
        f"unknown data set {name!r}; valid names are {sorted(DATASETS)} "
        f"and the aliases {sorted(ALIASES)}"
    )


def dataset_info(name: str) -> DatasetInfo:
    """What the bundled data set ``name`` is: its file, binary task, size, papers and notes.

    Parameters
    ----------
    name : str
        A name :func:`~svmtune.datasets.load` takes, or one of its aliases (``"thyroid"`` for
        ``"new-thyroid1"``); matched exactly, in lower case.

    Returns
    -------
    DatasetInfo
        ``name`` (the canonical name), ``features`` (columns after encoding), ``positives``,
        ``papers``, ``aliases`` and ``note`` (what a user comparing with a paper should know).

    Raises
    ------
    ValueError
        If ``name`` is no bundled data set; the message names it and lists the valid names.

    Examples
    --------
    >>> info = dataset_info("thyroid")
    >>> info.name, info.features, info.positives
    ('new-thyroid1', 5, 35)
    """
    return resolve(name)
