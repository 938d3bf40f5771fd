"""svmtune run / report: a study file in, a database, a table and readable PNGs out."""

from __future__ import annotations

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


@pytest.fixture
def study_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiny.py"
    path.write_text(STUDY_FILE)
    return path


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
    summary = pd.read_csv(outdir / "summary.csv", header=[0, 1], index_col=0)
    assert list(summary.index) == ["heart", "sonar", "Average", "Estim. err. [%]"]
    assert "8 cells stored in sqlite:///results/tiny.db (8 ok)" in out
    assert "Averages over the data sets" in out and "LOO2+grid" in out
    assert "8/8" in err  # the progress bar: cells done / total

    # running again resumes: nothing left to run, the same table
    assert main(["run", str(study_file), "--no-progress"]) == 0
    again = pd.read_csv(outdir / "results.csv")
    assert again["test_error"].tolist() == results["test_error"].tolist()


def test_report_redraws_from_the_storage(study_file, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["run", str(study_file), "--storage", url, "--no-progress", "--n-jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["report", "--storage", url, "--output", str(tmp_path / "redrawn")]) == 0
    out = capsys.readouterr().out
    assert "study 'tiny': 8 cells" in out
    assert (tmp_path / "redrawn" / "error_vs_time.png").read_bytes()[:8] == PNG
    assert (tmp_path / "redrawn" / "summary.csv").is_file()
    assert main(["report", str(study_file), "--storage", url]) == 0
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
    ],
)
def test_errors_are_one_clear_line(study_file, tmp_path, capsys, argv, message):
    (tmp_path / "empty.py").write_text("x = 1\n")
    argv = [a.format(empty=tmp_path / "empty.py", tiny=study_file) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith(f"svmtune {argv[0]}: error:")


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
    ("name", "n_cells"), [("quickstart", 90), ("fischetti2016", 540), ("carrizosa2014", 132)]
)
def test_the_shipped_studies_load_and_validate(name, n_cells):
    study = load_study(ROOT / "studies" / f"{name}.py")
    assert study.name == name
    assert len(study.cell_keys()) == n_cells
