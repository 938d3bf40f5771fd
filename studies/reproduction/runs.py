"""How much of each paper's protocol runs (:class:`Scale`: the full page, or the smoke run of
CI), and the studies that run it, each stored in ``<results>/<study>.db``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from svmtune.study import Method, Study, load_study_module
from svmtune.tuners import Grid

#: The folder of the study files (``studies/``).
STUDIES = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Scale:
    """How much of each paper's protocol runs."""

    fischetti_sets: tuple[str, ...] | None  # None: all of the study's
    fischetti_splits: int
    german_numeric: bool
    franc_sets: tuple[str, ...] | None
    franc_select: int  # realizations for model selection (the paper: 5)
    franc_test: int  # realizations for the test error (the paper: 100)
    franc_every: int  # keep every k-th value of each grid axis (1: the study's grids)
    franc_max_C: float | None  # leave out larger C (the long linear retrains); None: keep all
    carrizosa_sets: tuple[str, ...] | None
    carrizosa_splits: int
    adankon_sets: tuple[str, ...] | None
    adankon_splits: int  # tuning splits (the paper: 5)
    adankon_test: int  # test realizations (the paper: 100)


FULL = Scale(
    fischetti_sets=None,
    fischetti_splits=10,
    german_numeric=True,
    franc_sets=None,
    franc_select=5,
    franc_test=100,
    franc_every=1,
    franc_max_C=None,
    carrizosa_sets=None,
    carrizosa_splits=5,
    adankon_sets=None,
    adankon_splits=5,
    adankon_test=100,
)
SMOKE = Scale(
    fischetti_sets=("Heart",),
    fischetti_splits=2,
    german_numeric=False,
    franc_sets=("Heart",),
    franc_select=2,
    franc_test=3,
    franc_every=2,
    franc_max_C=1.0,
    carrizosa_sets=("heart",),
    carrizosa_splits=2,
    adankon_sets=("Heart",),
    adankon_splits=2,
    adankon_test=3,
)


def study_module(name: str) -> ModuleType:
    """The study file ``studies/<name>.py``, loaded."""
    return load_study_module(STUDIES / f"{name}.py")


def thinned(
    methods: dict[str, Method], every: int, max_C: float | None = None
) -> dict[str, Method]:
    """The exact-LOO methods only, on every ``every``-th grid value and C <= ``max_C`` (the
    smoke run: Franc's linear retrains at C = 10 and 100 are the study's long ones)."""
    out = {}
    for name, m in methods.items():
        if name.startswith("ExactLOO"):
            values = {k: list(v)[::every] for k, v in m.tuner.values.items()}
            if max_C is not None:
                values["C"] = [c for c in values["C"] if c <= max_C]
            out[name] = Method(m.objective, Grid(values=values), m.kernel)
    return out


@dataclass
class Studies:
    fischetti: Study
    german_numeric: Study | None
    franc: Study
    carrizosa: Study
    adankon: Study
    modules: dict[str, ModuleType]


def build(scale: Scale, results: Path) -> Studies:
    """The studies at ``scale``, stored under ``results``."""
    mods = {n: study_module(n) for n in ("fischetti2016", "franc2008", "carrizosa2014", "adankon")}

    def url(name: str) -> str:
        return f"sqlite:///{results / name}.db"

    fis = mods["fischetti2016"].study
    fischetti = fis.subset(
        datasets=scale.fischetti_sets, n_splits=scale.fischetti_splits, storage=url(fis.name)
    )
    german_numeric = None
    if scale.german_numeric:
        # The label "German" gives the same split seeds, so both codings see the same rows.
        name = "fischetti2016-german-numeric"
        german_numeric = Study(
            name,
            datasets={"German": "german-numeric"},
            methods={k: fis.methods[k] for k in ("HINGE", "LOO_1", "LOO_2", "LOO_3")},
            split="fischetti",
            n_splits=scale.fischetti_splits,
            seed=fis.seed,
            storage=url(name),
        )
    out = {}
    for key, mod, sets, n in (
        ("franc", "franc2008", scale.franc_sets, scale.franc_select),
        ("carrizosa", "carrizosa2014", scale.carrizosa_sets, scale.carrizosa_splits),
        ("adankon", "adankon", scale.adankon_sets, scale.adankon_splits),
    ):
        s = mods[mod].study
        out[key] = s.subset(datasets=sets, n_splits=n, storage=url(s.name))
    if scale.franc_every > 1 or scale.franc_max_C is not None:
        out["franc"].methods = thinned(out["franc"].methods, scale.franc_every, scale.franc_max_C)
    return Studies(fischetti, german_numeric, out["franc"], out["carrizosa"], out["adankon"], mods)


def run_all(st: Studies, *, n_jobs: int, replace_changed: bool) -> None:
    """Run (or resume) every study, split by split: a stopped run leaves whole realizations."""
    for study in (st.fischetti, st.german_numeric, st.adankon, st.carrizosa, st.franc):
        if study is None:
            continue
        target = study.n_splits
        for n in range(1, target + 1):
            study.n_splits = n
            t0 = time.perf_counter()
            study.run(n_jobs=n_jobs, replace_changed=replace_changed)
            print(f"{study.name}: {n}/{target} splits ({time.perf_counter() - t0:.0f} s)")
        study.n_splits = target
