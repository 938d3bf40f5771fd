"""The page's first section: each paper's data sets, the versions bundled, and their sizes."""

from __future__ import annotations

import paper_tables as P

from svmtune.datasets import dataset_info, load, load_groups, mfeat_info, ratsch_split

from .common import NOT_BUNDLED, md_table

RATSCH = "Ratsch (Franc, Carrizosa, Adankon)"


def _shape(name: str) -> tuple[int, int]:
    X, _ = load(name)
    return X.shape


def versions_section() -> list[str]:
    lines = [
        "## Data set versions",
        "",
        "The bundled files are KEEL copies of the UCI data (and, for the Ratsch sets, new draws "
        "of Ratsch's training/test sizes, not his files). Features are counted after encoding "
        "(a categorical column becomes one 0/1 column per level); the paper's count is the "
        "one it states.",
        "",
    ]
    rows = _fischetti_versions() + _ratsch_versions() + _carrizosa_mkl_versions()
    headers = ["paper", "data set", "bundled", "paper: size", "ours: size", "difference"]
    return lines + md_table(headers, rows)


def _fischetti_versions() -> list[list[str]]:
    """Fischetti's Table 1 against the data his study runs (German also in Statlog's coding)."""
    rows = []
    fis = P.FISCHETTI_DATASETS
    for label, (n, d) in P.FISCHETTI_TABLE1.items():
        if label not in fis:
            rows.append(["Fischetti", label, NOT_BUNDLED, f"{n} x {d}", "", ""])
            continue
        info = dataset_info(fis[label])
        m, k = _shape(fis[label])
        rows.append(
            ["Fischetti", label, f"`{info.name}`", f"{n} x {d}", f"{m} x {k}", info.note or "same"]
        )
        if label == "German":
            g = dataset_info("german-numeric")
            m, k = _shape(g.name)
            rows.append(["Fischetti", label, f"`{g.name}`", f"{n} x {d}", f"{m} x {k}", g.note])
    return rows


def _ratsch_versions() -> list[list[str]]:
    """Ratsch's realizations (Carrizosa's Table 1) against new draws of their sizes."""
    rows = []
    for name, (tr, te, d) in P.CARRIZOSA_TABLE1.items():
        try:
            info = dataset_info(name)
        except ValueError:
            rows.append([RATSCH, name, NOT_BUNDLED, "", "", ""])
            continue
        m, k = _shape(name)
        Xtr, _, Xte, _ = ratsch_split(name, 0)
        rows.append(
            [
                RATSCH,
                name,
                f"`{info.name}`",
                f"{tr} + {te}, d = {d}",
                f"{len(Xtr)} + {len(Xte)} of {m}, d = {Xtr.shape[1]}",
                info.note or "same",
            ]
        )
    return rows


def _carrizosa_mkl_versions() -> list[list[str]]:
    """Carrizosa's Table 2 (the multiple-kernel data): mfeat is bundled with its views;
    pendigits (in its four representations) and addata are not available offline."""
    rows = []
    for name, (tr, te, dt) in P.CARRIZOSA_TABLE2.items():
        paper = f"{tr} + {te}, d = {sum(dt)} ({', '.join(map(str, dt))})"
        if not name.startswith("mfeat"):
            rows.append(
                ["Carrizosa MKL", name, "not bundled (not available offline)", paper, "", ""]
            )
            continue
        ours = [len(g) for g in load_groups(name)]
        n = mfeat_info(name).rows
        size = f"{tr} + {n - tr} of {n}, d = {sum(ours)} ({', '.join(map(str, ours))})"
        rows.append(["Carrizosa MKL", name, f"`{name}`", paper, size, "same"])
    return rows
