import subprocess
import sys

from svmtune.cli import main


def test_datasets_command_lists_every_set_with_sizes(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert len(lines) >= 20
    # australian: 690 rows, 14 raw features (42 after one-hot encoding)
    assert lines["australian"][1:4] == ["690", "42", "14"]
    assert lines["german"][1] == "1000"
    for name in ["heart", "sonar", "wdbc", "banana", "spambase", "optdigits-eo", "penbased-sl"]:
        assert name in lines


def test_console_script_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "svmtune.cli", "datasets"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "australian" in out.stdout


def test_datasets_table_fits_100_columns(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "Ratsch/Carrizosa 2014" in out  # long paper lists wrap, nothing is cut


def test_version(capsys):
    import pytest

    import svmtune

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"svmtune {svmtune.__version__}"


def test_datasets_generators_lists_breimans_problems(capsys):
    assert main(["datasets", "--generators"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines()[1:5]]
    assert names == ["twonorm", "ringnorm", "threenorm", "waveform"]
    assert max(len(line) for line in out.splitlines()) <= 100
