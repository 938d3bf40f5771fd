"""The reproduction page: the papers' numbers in the code, and the page built from them.

``studies/paper_tables.py`` holds every number copied from the four papers; the first tests
check the copies against what the papers themselves say about their tables. The page tests run
``studies/reproductions.py`` at its smoke size and check the page's shape and that every
"paper" cell of it, and of the committed ``docs/reproductions.md``, is the table's number.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "studies"))

import paper_tables as P  # noqa: E402
import reproductions as R  # noqa: E402

SECTIONS = [
    "Data set versions",
    "Fischetti (2016), Table 2",
    "Franc, Laskov, Muller (2008), Table 2",
    "Franc, Laskov, Muller (2008), Table 3",
    "Carrizosa, Martin-Barragan, Romero Morales (2014), Table 3",
    "Carrizosa, Martin-Barragan, Romero Morales (2014), Tables 4-5",
    "Adankon, Cheriet, Ayat, Table 1",
    "Runs and costs",
]


# -- the copies against the papers' own summaries ------------------------------------------------
def test_fischetti_rows_average_to_the_papers_average_row():
    for method, avg in P.FISCHETTI_TABLE2_AVERAGE.items():
        rows = np.array([P.FISCHETTI_TABLE2[k][method] for k in P.FISCHETTI_TABLE2])
        assert rows.shape[0] == 10
        np.testing.assert_allclose(rows.mean(axis=0), avg, atol=0.006, err_msg=method)


def test_franc_speedups_average_as_the_paper_says():
    # "on average 4 times faster" (linear), "slightly higher than 2" (RBF), "nearly 13" (Image)
    lin = [v[0][2] for v in P.FRANC_TABLE3.values()]
    rbf = [v[1][2] for v in P.FRANC_TABLE3.values()]
    assert len(lin) == len(rbf) == len(P.FRANC_TABLE2) == 13
    assert 3.5 < np.mean(lin) < 4.5
    assert 2.0 < np.mean(rbf) < 2.5
    assert max(lin) == P.FRANC_TABLE3["Image"][0][2] == 12.9
    assert P.FRANC_TABLE3["Banana"][1][2] == 5.1


def test_carrizosa_wins_ties_and_losses_are_the_papers():
    # "VNS obtains better results in 5 data sets, where the difference ranges from 0.60% to
    # 3.46%. KL is the best in 4 cases, where the difference never exceeds 0.70%. In the
    # remaining 4 data sets the error is exactly the same."
    d = np.array([v[3] - v[0] for v in P.CARRIZOSA_TABLE3.values()])
    vns, kl = -d[d < 0], d[d > 0]
    assert (len(vns), len(kl), int(np.sum(d == 0))) == (5, 4, 4)
    assert vns.min() == pytest.approx(0.60) and vns.max() == pytest.approx(3.46)
    assert kl.max() <= 0.70
    assert list(P.CARRIZOSA_TABLE3) == list(P.CARRIZOSA_TABLE1)


def test_carrizosa_mkl_tables_say_what_the_paper_says_of_them():
    # Table 4: nested VNS "beats the 12 benchmarking methods in two data sets and it behaves as
    # second-best in another"; Table 5 (model 7): "in one data set, it even beats all benchmark
    # methods ... being 0.15% the maximum difference with the best"; model (8) "beats the best
    # benchmark for model (7) in four out of five data sets".
    t4, t5 = P.CARRIZOSA_TABLE4, P.CARRIZOSA_TABLE5
    assert [r[5] for r in t4.values()].count("1/13") == 2
    assert [r[5] for r in t4.values()].count("2/13") == 1
    assert all(r[4] < r[1] for r in t4.values() if r[5] == "1/13")
    assert [r[5] for r in t5.values()].count("1/13") == 1
    assert max(r[4] - r[1] for r in t5.values()) == pytest.approx(0.15)
    assert sum(r[7] < r[1] for r in t5.values()) == 4
    for name, (tr, te, dt) in P.CARRIZOSA_TABLE2.items():
        assert tr + te in (2000, 10992, 3279), name
        p4 = t4[name][0]
        assert p4 == len(dt) + 1  # Table 4 counts the T weights and one more (as printed)
        if name in t5:
            assert (t5[name][0], t5[name][6]) == (3 * len(dt), 2 * len(dt))


def test_the_studies_read_their_paper_numbers_from_the_one_table():
    from svmtune.study import load_study_module

    franc = load_study_module(ROOT / "studies" / "franc2008.py")
    assert franc.PAPER_TABLE2["German"] == (24.91, 24.06, 23.71, 23.61)
    assert franc.PAPER_TABLE3["Titanic"] == ((1.0, 1.0, 17.6), (5.7, 2.7, 50.2))
    carrizosa = load_study_module(ROOT / "studies" / "carrizosa2014.py")
    assert carrizosa.PAPER_TABLE3 == P.CARRIZOSA_TABLE3  # every row, not a copy of its own
    adankon = load_study_module(ROOT / "studies" / "adankon.py")
    assert adankon.PAPER.loc["Heart", "paper: their approach"] == "15.96±3.13"


# -- the page ------------------------------------------------------------------------------------
def _sections(text: str) -> dict[str, list[list[dict[str, str]]]]:
    """Section title -> its markdown tables, each a list of {header: cell} rows."""
    out: dict[str, list[list[dict[str, str]]]] = {}
    title = ""
    table: list[list[str]] = []

    def close() -> None:
        if table:
            header = table[0]
            out[title].append([dict(zip(header, row, strict=True)) for row in table[2:]])
            table.clear()

    for line in text.splitlines():
        if line.startswith("## "):
            close()
            title = line[3:]
            out[title] = []
        elif line.startswith("|"):
            table.append([c.strip() for c in line.strip().strip("|").split("|")])
        else:
            close()
    close()
    return out


def _find(sections: dict, prefix: str) -> list[list[dict[str, str]]]:
    hits = [v for k, v in sections.items() if k.startswith(prefix)]
    assert len(hits) == 1, f"one section starting {prefix!r}; got {len(hits)}"
    return hits[0]


def _f(x: float, nd: int = 2) -> str:
    return f"{x:.{nd}f}"


def check_page(text: str) -> None:
    assert text.startswith("# Reproductions")
    assert f"`{R.COMMAND}`" in text.split("\n\n")[1]
    sections = _sections(text)
    for s in SECTIONS:
        _find(sections, s)

    fis = _find(sections, "Fischetti (2016), Table 2")
    mis, loo = fis[0], fis[1]
    assert [r["data set"] for r in mis[: len(P.FISCHETTI_TABLE2)]] == list(P.FISCHETTI_TABLE2)
    assert [r["data set"] for r in loo] == list(P.FISCHETTI_TABLE2)
    for r, lr in zip(mis, loo, strict=False):
        paper = P.FISCHETTI_TABLE2[r["data set"]]
        assert r["HINGE paper"] == _f(paper["HINGE"][0])
        for m in ("LOO_1", "LOO_2", "LOO_3"):
            assert r[f"{m} paper"] == _f(paper[m][2]), (r["data set"], m)
            assert lr[f"{m} paper"] == _f(paper[m][0]), (r["data set"], m)

    (t2,) = _find(sections, "Franc, Laskov, Muller (2008), Table 2")
    assert [r["data set"] for r in t2] == list(P.FRANC_TABLE2)
    for r in t2:
        for k, paper in zip(("linear", "RBF"), P.FRANC_TABLE2[r["data set"]], strict=True):
            assert r[f"{k} LOO paper"] == _f(paper[0])
            assert r[f"{k} test paper"] == f"{_f(paper[1])} ± {_f(paper[2])}"
    (t3,) = _find(sections, "Franc, Laskov, Muller (2008), Table 3")
    assert [r["data set"] for r in t3] == list(P.FRANC_TABLE3)
    for r in t3:
        for k, paper in zip(("linear", "RBF"), P.FRANC_TABLE3[r["data set"]], strict=True):
            assert r[f"{k} standard time paper [s]"] == _f(paper[0], 1)
            assert r[f"{k} time speed-up paper"] == _f(paper[2], 1)
            kereval = r[f"{k} KerEval speed-up paper / ours"]
            assert kereval == "" or kereval.split(" / ")[0] == _f(paper[3], 1)
            assert r[f"{k} Prec % paper"] == _f(paper[4], 1)

    (ct,) = _find(sections, "Carrizosa, Martin-Barragan, Romero Morales (2014), Table 3")
    assert [r["data set"] for r in ct] == list(P.CARRIZOSA_TABLE3)
    for r in ct:
        paper = P.CARRIZOSA_TABLE3[r["data set"]]
        assert (r["KL paper"], r["VNS paper"]) == (_f(paper[0]), _f(paper[3]))
        logs = r["VNS paper log C, log σ"]
        assert logs == "" or logs == f"{_f(paper[4])}, {_f(paper[5])}"

    (mt,) = _find(sections, "Carrizosa, Martin-Barragan, Romero Morales (2014), Tables 4-5")
    assert len(mt) == len(P.CARRIZOSA_TABLE4) + 2 * len(P.CARRIZOSA_TABLE5)
    for r in mt:
        name = r["data set"]
        paper = P.CARRIZOSA_TABLE4[name] if r["model"] == "(7) linear" else P.CARRIZOSA_TABLE5[name]
        best, median, worst = paper[1:4]
        assert r["InGonAlp best / median / worst"] == f"{_f(best)} / {_f(median)} / {_f(worst)}"
        err, rank = (paper[7], paper[8]) if r["model"] == "(8)" else (paper[4], paper[5])
        assert r["nested VNS paper (rank)"] == f"{_f(err)} ({rank})"
        if not name.startswith("mfeat"):
            assert r["ours mean ± sd (n)"] == "not bundled"

    (at,) = _find(sections, "Adankon, Cheriet, Ayat, Table 1")
    assert [r["data set"] for r in at] == list(P.ADANKON_TABLE1)
    for r in at:
        paper = P.ADANKON_TABLE1[r["data set"]]
        assert r["5-fold CV paper"] == f"{_f(paper[0][0])} ± {_f(paper[0][1])}"
        assert r["their approach paper"] == f"{_f(paper[3][0])} ± {_f(paper[3][1])}"

    (vt,) = _find(sections, "Data set versions")
    sizes = {(r["paper"], r["data set"]): r["paper: size"] for r in vt}
    for name, (n, d) in P.FISCHETTI_TABLE1.items():
        assert sizes[("Fischetti", name)] == f"{n} x {d}"
    for name, (tr, te, d) in P.CARRIZOSA_TABLE1.items():
        got = sizes[("Ratsch (Franc, Carrizosa, Adankon)", name)]
        assert got in ("", f"{tr} + {te}, d = {d}")


def test_the_committed_page_holds_the_tables_numbers():
    check_page((ROOT / "docs" / "reproductions.md").read_text())


def test_smoke_run_writes_a_page_of_the_same_shape(tmp_path):
    out = tmp_path / "reproductions.md"
    assert R.main(["--smoke", "--results", str(tmp_path), "--out", str(out)]) == 0
    text = out.read_text()
    check_page(text)  # every paper cell, and the Tables 4-5 rows, as on the committed page
    sections = _sections(text)
    # the smoke run computed its one data set per paper
    heart = [r for r in _find(sections, "Fischetti (2016), Table 2")[0] if r["data set"] == "Heart"]
    assert heart[0]["LOO_2 ours"] != R.NOT_RUN
    (t2,) = _find(sections, "Franc, Laskov, Muller (2008), Table 2")
    assert next(r for r in t2 if r["data set"] == "Heart")["RBF test ours"] != R.NOT_RUN
    assert next(r for r in t2 if r["data set"] == "Flare")["RBF test ours"] == R.NOT_BUNDLED
    (ct,) = _find(sections, "Carrizosa, Martin-Barragan, Romero Morales (2014), Table 3")
    assert next(r for r in ct if r["data set"] == "heart")["VNS ours, split 0"] != R.NOT_RUN
    (at,) = _find(sections, "Adankon, Cheriet, Ayat, Table 1")
    assert next(r for r in at if r["data set"] == "Heart")["ours: Platt full + GD"] != R.NOT_RUN
    # Franc's Prec counts are read from the franc cells' stored evaluations ...
    st = R.build(R.SMOKE, tmp_path.resolve())
    franc = st.modules["franc2008"]
    stored = franc._stored_prec(st.franc)
    keys = {("Heart", kernel, s) for kernel in ("linear", "RBF") for s in (0, 1)}
    assert set(stored) == keys
    assert all(0 < certified <= under for certified, under in stored.values())
    assert not (tmp_path / "franc2008.db-prec.json").exists()
    # a page that recomputes none names the realizations its Prec counts ...
    with sqlite3.connect(tmp_path / "franc2008.db") as db:
        db.execute(
            "UPDATE traces SET certified = NULL"
            " WHERE cell_id IN (SELECT id FROM cells WHERE split = 1)"
        )
    part = tmp_path / "part.md"
    args = ["--smoke", "--no-run", "--prec-stored-only", "--results", str(tmp_path)]
    R.main([*args, "--out", str(part)])
    (t3,) = _find(_sections(part.read_text()), "Franc, Laskov, Muller (2008), Table 3")
    heart = next(r for r in t3 if r["data set"] == "Heart")
    assert heart["linear Prec % ours"].endswith(" (realizations 0)")
    assert not (tmp_path / "franc2008.db-prec.json").exists()
    # ... and a recomputation over the grid (for cells stored without them) agrees
    with sqlite3.connect(tmp_path / "franc2008.db") as db:
        db.execute("UPDATE traces SET certified = NULL")
    assert franc._stored_prec(st.franc) == {}
    assert franc.prec_counts(st.franc, sorted(keys), recompute=False) == {}
    assert franc.prec_counts(st.franc, sorted(keys), n_jobs=2) == stored
    prec = json.loads((tmp_path / "franc2008.db-prec.json").read_text())
    assert len(prec) == 4  # kept per realization beside the cells; --rerun drops them
    assert franc.prec_counts(st.franc, sorted(keys), recompute=False) == stored
    # a page written again from the stored cells alone is the same page
    again = tmp_path / "again.md"
    R.main(["--smoke", "--no-run", "--results", str(tmp_path), "--out", str(again)])
    assert again.read_text() == text


def test_rerun_refuses_an_unknown_study(tmp_path, capsys):
    with pytest.raises(SystemExit):
        R.main(["--no-run", "--results", str(tmp_path), "--rerun", "franc2009"])
    assert "unknown study 'franc2009'" in capsys.readouterr().err
