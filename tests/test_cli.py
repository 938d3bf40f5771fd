"""svmtune run / report: a study file in, a database, a table and readable PNGs out."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from svmtune.cli import main
from svmtune.study import Study, load_study

PNG = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[1]

STUDY_FILE = textwrap.dedent(
    """
    from pathlib import Path

    from svmtune.kernels import RBF
    from svmtune.objectives import LOOEstimate
    from svmtune.study import Method, Study
    from svmtune.tuners import Bisection, Grid

    study = Study(
        "tiny",
        datasets=["heart", "sonar"],
        split="fischetti",
        n_splits=2,
        methods={
            "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
            "LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=4), RBF()),
        },
    )


    def figures(study, outdir):
        path = Path(outdir) / "extra.txt"
        path.write_text(study.name)
        return [path]
    """
)


# Figures as PNG only where a test reads no PDF: drawing the PDFs too nearly doubles a report's
# time (test_run_writes_the_database_the_table_and_the_plots draws the default formats).
PNG_ONLY = ["--format", "png"]


@pytest.fixture
def study_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiny.py"
    path.write_text(STUDY_FILE)
    return path


@pytest.fixture(scope="module")
def stored_tiny(tmp_path_factory):
    """The tiny study run once by ``svmtune run`` (8 cells in a SQLite file): the tests that
    read, damage or report on a stored study copy this file instead of each running the study."""
    where = tmp_path_factory.mktemp("stored-tiny")
    path = where / "tiny.py"
    path.write_text(STUDY_FILE)
    url = f"sqlite:///{where / 'x.db'}"
    argv = ["run", str(path), "--storage", url, "--no-progress", "--n-jobs", "1"]
    assert main([*argv, *PNG_ONLY, "--output", str(where / "out")]) == 0
    return where / "x.db"


@pytest.fixture
def tiny_db(stored_tiny, tmp_path):
    """A copy of the stored tiny study, ``tmp_path / 'x.db'`` (its URL)."""
    import shutil

    for src in stored_tiny.parent.glob(stored_tiny.name + "*"):  # the file and any -wal/-shm
        shutil.copy(src, tmp_path / src.name)
    return f"sqlite:///{tmp_path / 'x.db'}"


def test_run_writes_the_database_the_table_and_the_plots(study_file, tmp_path, capsys):
    assert main(["run", str(study_file), "--n-jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert (tmp_path / "results" / "tiny.db").is_file()  # the default storage
    outdir = tmp_path / "results" / "tiny"
    for name in ("error_vs_time", "error_vs_time_by_dataset", "best_so_far"):
        assert (outdir / f"{name}.png").read_bytes()[:8] == PNG
        assert f"{name}: results/tiny/{name}.png" in out
    assert (outdir / "extra.txt").read_text() == "tiny"  # the study file's figures()
    results = pd.read_csv(outdir / "results.csv")
    assert len(results) == 8 and set(results["status"]) == {"ok"}
    # tidy: one row per method x data set, named columns, counts as integers
    summary = pd.read_csv(outdir / "summary.csv")
    assert list(summary.columns[:3]) == ["method", "dataset", "n_ok"]
    assert summary[["method", "dataset"]].values.tolist() == [
        ["LOO2+bisection", "heart"],
        ["LOO2+bisection", "sonar"],
        ["LOO2+grid", "heart"],
        ["LOO2+grid", "sonar"],
    ]
    assert summary["n_ok"].dtype.kind == "i" and summary["n_ok"].tolist() == [2, 2, 2, 2]
    by_method = pd.read_csv(outdir / "summary_by_method.csv")
    assert by_method["method"].tolist() == ["LOO2+bisection", "LOO2+grid"]
    assert by_method["n_ok"].tolist() == [4, 4]
    assert by_method["test_error_pct"].tolist() == pytest.approx(
        summary.groupby("method", sort=False)["test_error_pct"].mean().tolist()
    )
    assert "8 cells stored in sqlite:///results/tiny.db (8 ok)" in out
    assert "Averages over the data sets" in out and "LOO2+grid" in out
    assert "Estim. err. [%] = 100 * (estimate - test error) / test error" in out
    assert "8/8" in err  # the progress bar: cells done / total
    assert "nothing to run" not in err
    # a rerun of the fully stored study says so
    assert main(["run", str(study_file), "--n-jobs", "1"]) == 0
    assert "tiny: nothing to run, all 8 cells are stored in sqlite:///results/tiny.db" in (
        capsys.readouterr().err
    )
    # the verdict: report.md with its figures; 2 data sets are too few for the tests
    report = (outdir / "report.md").read_text()
    assert "No Friedman test: 2 data sets (the tests across data sets need at least 5)" in report
    names = ("ecdf", "anytime_test_error_cpu", "anytime_normalized", "best_so_far")
    for name in names:  # every figure embedded, the study's plots too
        assert (outdir / f"{name}.png").read_bytes()[:8] == PNG
        assert f"]({name}.png)" in report
    assert not (outdir / "cd_diagram.png").exists()  # no rank test, no diagram
    assert "report: results/tiny/report.md" in out

    # running again resumes: nothing left to run, the same table
    assert main(["run", str(study_file), "--no-progress"]) == 0
    again = pd.read_csv(outdir / "results.csv")
    assert again["test_error_pct"].tolist() == results["test_error_pct"].tolist()


def test_report_redraws_from_the_storage(study_file, tiny_db, tmp_path, capsys):
    url = tiny_db
    capsys.readouterr()
    assert main(["report", "--storage", url, *PNG_ONLY, "--output", str(tmp_path / "redrawn")]) == 0
    out = capsys.readouterr().out
    assert "study 'tiny': 8 cells" in out
    assert (tmp_path / "redrawn" / "error_vs_time.png").read_bytes()[:8] == PNG
    assert (tmp_path / "redrawn" / "summary.csv").is_file()
    assert main(["report", str(study_file), "--storage", url, *PNG_ONLY]) == 0
    assert (tmp_path / "results" / "tiny" / "extra.txt").is_file()


def test_report_on_a_half_finished_study(study_file, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'half.db'}"
    study = load_study(study_file)
    half = Study(
        study.name,
        datasets=["heart"],
        split=study.split,
        n_splits=1,
        methods=study.methods,
        storage=url,
    )
    half.run()
    assert main(["report", "--storage", url, "--output", str(tmp_path / "half")]) == 0
    assert "study 'tiny': 2 cells" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "nope.py"], "study file 'nope.py' does not exist"),
        (["run", "{empty}"], "must define a module-level `study = Study(...)`"),
        (["run", "{tiny}", "--storage", "nosuchdb://x"], "cannot open storage 'nosuchdb://x'"),
        (["report", "--storage", "sqlite:///missing.db"], "no study database at"),
        (["report"], "give a study file or --storage URL"),
        (["run", "{tiny}", "--storage", "results/x.db"], "write sqlite:///results/x.db"),
        (["report", "--storage", "results/x.db"], "write sqlite:///results/x.db"),
        (["run", "{tiny}", "--n-jobs", "0"], "--n-jobs must be a positive number"),
    ],
)
def test_errors_are_one_clear_line(study_file, tmp_path, capsys, argv, message):
    (tmp_path / "empty.py").write_text("x = 1\n")
    argv = [a.format(empty=tmp_path / "empty.py", tiny=study_file) for a in argv]
    assert main(argv) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1  # one line (after what a slow start said it was doing)
    assert message in errors[0] and errors[0].startswith(f"svmtune {argv[0]}: error:")


def test_report_asks_which_study_when_the_database_holds_several(study_file, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'two.db'}"
    base = load_study(study_file)
    for name in ("one", "two"):
        Study(
            name,
            datasets=["heart"],
            split="fischetti",
            n_splits=1,
            methods={"g": base.methods["LOO2+grid"]},
            storage=url,
        ).run()
    assert main(["report", "--storage", url]) == 2
    assert "holds studies ['one', 'two']: choose one with --study NAME" in capsys.readouterr().err
    assert main(["report", "--storage", url, "--study", "two", "--output", "o"]) == 0
    assert main(["report", "--storage", url, "--study", "three"]) == 2


@pytest.mark.parametrize(
    ("name", "n_cells"),
    [
        ("quickstart", 165),
        ("fischetti2016", 540),
        ("adankon", 100),
        ("franc2008", 330),
        ("carrizosa2014", 220),
    ],
)
def test_the_shipped_studies_load_and_validate(name, n_cells):
    study = load_study(ROOT / "studies" / f"{name}.py")
    assert study.name == name
    assert len(study.cell_keys()) == n_cells


def test_n_jobs_0_and_a_bad_storage_are_refused_before_the_database_is_made(study_file, tmp_path):
    assert main(["run", str(study_file), "--n-jobs", "0"]) == 2
    assert main(["run", str(study_file), "--storage", "results/x.db"]) == 2
    assert not (tmp_path / "results").exists()


def test_a_closed_pipe_ends_quietly(study_file, tiny_db, tmp_path, monkeypatch, capsys):
    """`svmtune report ... | head -2`: the reader leaves; no BrokenPipeError traceback."""
    url = tiny_db
    capsys.readouterr()
    r, w = os.pipe()
    os.close(r)
    pipe = os.fdopen(w, "w")
    monkeypatch.setattr(sys, "stdout", pipe)
    try:
        assert main(["report", "--storage", url, *PNG_ONLY, "--output", str(tmp_path / "o")]) == 141
    finally:
        monkeypatch.undo()
        pipe.close()
    assert "Traceback" not in capsys.readouterr().err


def test_an_unwritable_output_is_one_sentence(study_file, tiny_db, tmp_path, capsys):
    url = tiny_db
    (tmp_path / "afile").write_text("")
    capsys.readouterr()
    assert main(["report", "--storage", url, "--output", str(tmp_path / "afile" / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmtune report: error: cannot write or read") and "afile" in err
    assert "Traceback" not in err


def test_a_damaged_database_is_one_sentence(tiny_db, tmp_path, capsys):
    db = tmp_path / "x.db"
    url = tiny_db
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[page:] = b"\xa5" * (len(data) - page)  # every page after the schema page is garbage
    db.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["report", "--storage", url, "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmtune report: error: the study database cannot be read")
    assert "may be damaged" in err and "Traceback" not in err


def test_an_empty_file_as_storage_is_said(study_file, tmp_path, capsys):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    url = f"sqlite:///{db}"
    assert main(["report", "--storage", url]) == 2
    assert "is an empty file (0 bytes), not a study database" in capsys.readouterr().err
    assert main(["run", str(study_file), "--storage", url, "--no-progress", "--n-jobs", "1"]) == 0
    assert "is an empty file (0 bytes); it becomes a new study database" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("crafted", ["../../escaped", "/tmp/abs-escaped", "a/../../b"])
def test_a_crafted_study_name_in_the_database_cannot_lead_the_report_outside(
    tmp_path, monkeypatch, capsys, crafted
):
    from svmtune.study import Storage

    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    url = f"sqlite:///{tmp_path / 'crafted.db'}"
    store = Storage(url)
    store.register_study(crafted, 0, {"methods": {}})
    store.close()
    assert main(["report", "--storage", url]) == 2
    err = capsys.readouterr().err
    assert "cannot name a folder" in err and "--output" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "crafted.db"]
    assert not (work / "results").exists()


def test_run_help_says_the_file_is_executed_and_help_is_fast():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "svmtune.cli", "run", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "executed as Python code" in " ".join(out.split())
    # --help imports none of the heavy parts (that is what made it take seconds)
    code = (
        "import sys, svmtune, svmtune.cli\n"
        "svmtune.cli.build_parser()\n"
        "heavy = {'numpy', 'pandas', 'sqlalchemy', 'numba', 'scipy', 'joblib', 'matplotlib'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_a_study_file_imports_a_module_beside_it_also_on_workers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mydata_beside.py").write_text(
        textwrap.dedent(
            """
            import numpy as np

            def blobs():
                rng = np.random.default_rng(0)
                X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
                return X, np.repeat([-1.0, 1.0], 30)
            """
        )
    )
    (tmp_path / "beside.py").write_text(
        textwrap.dedent(
            """
            from mydata_beside import blobs

            from svmtune.kernels import RBF
            from svmtune.objectives import LOOEstimate
            from svmtune.study import Method, Study
            from svmtune.tuners import Grid

            study = Study(
                "beside",
                datasets=[blobs],
                n_splits=2,
                methods={"g": Method(LOOEstimate(), Grid(n_points=3), RBF())},
            )
            """
        )
    )
    assert main(["run", "beside.py", "--n-jobs", "2", "--no-progress"]) == 0
    assert "2 cells stored" in capsys.readouterr().out
    assert str(tmp_path) not in sys.path  # only while it loads
    results = pd.read_csv(tmp_path / "results" / "beside" / "results.csv")
    assert results["status"].tolist() == ["ok", "ok"]


def test_report_says_when_other_processes_still_run_cells(study_file, tiny_db, tmp_path, capsys):
    from svmtune.study import CellKey, Storage

    url = tiny_db
    store = Storage(url)
    sid = store.study_id("tiny")
    assert store.claim(sid, CellKey("heart", 5, "LOO2+grid"), "elsewhere:1:w")
    store.close()
    capsys.readouterr()
    assert main(["report", "--storage", url, *PNG_ONLY, "--output", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "8 cells stored" in out and "partial table: 8 of 9 cells stored; 1 running" in out
    assert "heart/5/LOO2+grid [elsewhere:1:w]" in out


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
@pytest.mark.parametrize("where", ["read-only file", "read-only directory"])
def test_report_reads_a_database_it_may_not_write(stored_tiny, tmp_path, where):
    """The database file is mode 0444, or its directory 0555 too; the report runs without the
    right to override file modes (as root: with every capability dropped, by setpriv). It opens
    the database read-only and changes nothing in it."""
    import shutil
    import stat

    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("as root, needs setpriv (util-linux) to drop the right to write anything")
        prefix = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]
    dbdir = tmp_path / "db"
    dbdir.mkdir()
    db = dbdir / "ro.db"
    url = f"sqlite:///{db}"
    shutil.copy(stored_tiny, db)  # a stored study (run once for the module)
    before = db.read_bytes()
    db.chmod(0o444)
    if where == "read-only directory":
        dbdir.chmod(0o555)
    try:
        cmd = [*prefix, sys.executable, "-m", "svmtune.cli", "report", "--storage", url]
        proc = subprocess.run(
            [*cmd, *PNG_ONLY, "--output", str(tmp_path / "report")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        assert "8 cells stored" in proc.stdout and "partial" not in proc.stdout
        assert (tmp_path / "report" / "results.csv").is_file()
        assert db.read_bytes() == before
        assert stat.S_IMODE(db.stat().st_mode) == 0o444
        if where == "read-only directory":
            assert [p.name for p in dbdir.iterdir()] == ["ro.db"]
    finally:
        dbdir.chmod(0o755)


def test_a_read_only_storage_refuses_writes(tmp_path):
    from svmtune.study import Storage

    url = f"sqlite:///{tmp_path / 'q.db'}"
    Storage(url).close()
    ro = Storage(url, read_only=True)
    with pytest.raises(Exception, match="readonly|read-only|query_only"):
        ro.register_study("st", 0, {})
    assert ro.study_names() == []
    ro.close()
    with pytest.raises(ValueError, match="no study database at .*missing.db"):
        Storage(f"sqlite:///{tmp_path / 'missing.db'}", read_only=True)
    assert not (tmp_path / "missing.db").exists()


def test_a_changed_method_is_refused_naming_the_flag_that_replaces_it(
    tmp_path, monkeypatch, capsys
):
    """The storage's verdict (which method changed, and how) becomes the command line's advice:
    ``--replace-changed``, which then runs the changed method again."""
    monkeypatch.chdir(tmp_path)
    source = STUDY_FILE.replace(', "sonar"', "").replace("n_splits=2", "n_splits=1")
    path = tmp_path / "tiny.py"
    path.write_text(source)
    out = ["--n-jobs", "1", "--no-progress", *PNG_ONLY, "--output", str(tmp_path / "out")]
    assert main(["run", str(path), *out]) == 0
    path.write_text(source.replace("Grid(n_points=4)", "Grid(n_points=3)"))
    capsys.readouterr()
    assert main(["run", str(path), *out]) == 2
    err = capsys.readouterr().err
    assert "method 'LOO2+grid': tuner.params.n_points: 4 -> 3" in err
    assert "--replace-changed" in err and "replace_changed=True" not in err
    assert main(["run", str(path), "--replace-changed", *out]) == 0
    stored = load_study(path).results()
    assert stored.loc[stored["method"] == "LOO2+grid", "n_evaluations"].unique().tolist() == [3]
    # a changed seed cannot be replaced: the message does not offer the flag
    path.write_text(source.replace("n_splits=1,", "n_splits=1, seed=7,"))
    assert main(["run", str(path), *out]) == 2
    err = capsys.readouterr().err
    assert "seed 0; this definition has seed 7" in err and "--replace-changed" not in err
