"""Every stored cell records the code that computed it, and report.md says which code that was.

Cells are keyed by (data set, split, method), so a run at a later commit reuses the cells an
earlier one stored; an eps-KKT solver changed in between can put a point near the boundary on
the other side. The report therefore names the code of its cells and warns when it is mixed.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Storage, Study
from svmtune.study.report._verdict import _header
from svmtune.study.run._code import code_version
from svmtune.tuners import Bisection

ROOT = Path(__file__).resolve().parents[2]


def _study(url: str) -> Study:
    method = Method(LOOEstimate(model="loo2"), Bisection(max_evals=5), RBF())
    return Study(
        "code",
        datasets=["wdbc", "heart"],
        methods={"LOO_2": method},
        n_splits=2,
        storage=url,
    )


def test_every_cell_records_the_code_and_the_report_names_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'c.db'}"
    res = _study(url).run(n_jobs=1, progress=False).results()
    assert len(res) == 4 and (res["code"] == code_version()).all()
    assert code_version().startswith("0.")
    head = " ".join(_header("code", res))
    assert f"4 cells stored (4 ok): 2 data sets x 2 splits, 1 methods. Computed by svmtune " \
        f"{code_version()}." in head  # fmt: skip
    assert "versions of the code" not in head

    # one cell computed by other code: the report counts both and warns
    con = sqlite3.connect(tmp_path / "c.db")
    con.execute("UPDATE cells SET code = '0.0.9' WHERE id = (SELECT MIN(id) FROM cells)")
    con.commit()
    con.close()
    mixed = _study(url).results()
    head = " ".join(_header("code", mixed))
    assert "**Computed by 2 versions of the code**" in head
    assert f"{code_version()} (3 cells), 0.0.9 (1 cells)" in head


def test_an_older_database_without_the_column_reads_and_resumes(tmp_path):
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    study = _study(url)
    Study(study.name, datasets=["wdbc"], methods=study.methods, n_splits=2, storage=url).run(
        n_jobs=1, progress=False
    )
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE cells DROP COLUMN code")
    con.commit()
    con.close()
    ro = Storage(url, read_only=True)  # ``svmtune report``: not upgraded, the column reads NULL
    try:
        before = ro.cells("code")
        assert len(before) == 2 and before["code"].isna().all()
        assert len(ro.snapshot("code").cells) == 2
    finally:
        ro.close()
    assert "2 cells were stored before svmtune recorded the code" in " ".join(
        _header("code", before)
    )
    res = study.run(n_jobs=1, progress=False).results()  # upgraded; only heart's cells run
    assert len(res) == 4
    assert res.loc[res["dataset"] == "wdbc", "code"].isna().all()
    assert (res.loc[res["dataset"] == "heart", "code"] == code_version()).all()


def test_a_copy_outside_a_checkout_records_the_version_alone(tmp_path):
    shutil.copytree(
        ROOT / "svmtune", tmp_path / "svmtune", ignore=shutil.ignore_patterns("__pycache__")
    )
    code = "from svmtune.study.run._code import code_version; print(code_version())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)},
    )
    from svmtune import __version__

    assert out.stdout.strip() == __version__


def test_the_copy_in_use_records_its_commit_or_its_version():
    import svmtune

    from_checkout = Path(svmtune.__file__).resolve().parent == ROOT / "svmtune"
    if from_checkout and shutil.which("git") and (ROOT / ".git").exists():
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert code_version().split("+g")[1].split(".")[0] == commit
    else:  # an installed copy (as CI tests it): no commit to name
        assert code_version() == svmtune.__version__
