"""The verdict's LaTeX tables: booktabs, escaped names, the best of each row bold (ties
together); compiled where a LaTeX engine is installed, else checked for their structure."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from svmtune.study import compare
from svmtune.study.verdict._latex import (
    errors_table,
    latex_escape,
    verdict_table,
    write_latex_tables,
)
from svmtune.study.verdict._noise import paired_intervals

NAMES = ["LOO_2 + bisection", "CV 50% & more", "grid #3", "Platt_{x}"]


def _results() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for d in range(6):
        for s in range(3):
            for i, m in enumerate(NAMES):
                err = 0.1 + 0.01 * i + 0.01 * rng.random()
                if d == 0 and i in (0, 1):
                    err = 0.05  # a tie for the best on the first data set
                rows.append(
                    {
                        "dataset": f"set_{d}",
                        "split": s,
                        "method": m,
                        "status": "ok",
                        "test_error": err,
                        "cpu_s": 0.1 * (i + 1),
                    }
                )
    return pd.DataFrame(rows)


def _structure(tex: str) -> None:
    """Balanced environments and braces, as many cells in each row as the tabular declares,
    and no special character of a name left bare."""
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", tex):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, env
    assert not stack
    body = re.sub(r"\\[{}%&_#$]", "", tex)
    assert body.count("{") == body.count("}")
    for spec, block in re.findall(r"\\begin\{tabular\}\{(\w+)\}(.*?)\\end\{tabular\}", tex, re.S):
        assert "\\toprule" in block and "\\midrule" in block and "\\bottomrule" in block
        rows = [r for r in block.split("\\\\") if "&" in r.replace("\\&", "")]
        assert rows
        for r in rows:
            cells = re.split(r"(?<!\\)&", r)
            assert len(cells) == len(spec), (spec, r)
    for bare in ("LOO_2", "50%", "% &", "Platt_{x}", "set_0"):
        assert bare not in tex


def test_names_are_escaped():
    assert latex_escape("a_b 5% & #1 {x} $") == r"a\_b 5\% \& \#1 \{x\} \$"


def test_both_tables_are_booktabs_with_escaped_names_and_bold_ties(tmp_path):
    c = compare(_results(), methods=NAMES, baseline=NAMES[2])
    files = write_latex_tables(c, tmp_path, methods=NAMES)
    assert sorted(files) == ["errors_table", "verdict_table"]
    verdict = files["verdict_table"].read_text()
    errors = files["errors_table"].read_text()
    for tex in (verdict, errors):
        _structure(tex)
    assert r"LOO\_2 + bisection" in errors and r"CV 50\% \& more" in errors
    first = next(line for line in errors.splitlines() if line.startswith(r"set\_0 &"))
    # the two methods tied at 5.00 are bold, the others not
    assert first.count(r"\textbf{5.00 $\pm$ 0.00}") == 2
    assert first.count(r"\textbf") == 2
    # one row per method other than the baseline, with its W/T/L and Holm p-value
    rows = [line for line in verdict.splitlines() if line.endswith(r"\\") and "&" in line][1:]
    assert len(rows) == len(NAMES) - 1
    assert all(re.search(r"& \d+/\d+/\d+ &", r) for r in rows)


def test_the_mean_difference_carries_its_paired_t_interval():
    c = compare(_results(), methods=NAMES, baseline=NAMES[2])
    tex = verdict_table(c)
    assert "[95" in tex
    ci = paired_intervals(c.errors, NAMES[2])  # Student's t over the data sets
    row = next(line for line in tex.splitlines() if line.startswith(r"LOO\_2"))
    diff = 100 * float(c.posthoc["wilcoxon_holm"].loc[NAMES[0], "mean_diff"])
    lo, hi = 100 * ci.loc[NAMES[0], "low"], 100 * ci.loc[NAMES[0], "high"]
    assert lo <= diff <= hi
    assert f"{diff:+.2f} [{lo:+.2f}, {hi:+.2f}]" in row
    _structure(tex)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no LaTeX engine (pdflatex)")
def test_the_tables_compile(tmp_path):
    c = compare(_results(), methods=NAMES, baseline=NAMES[2])
    write_latex_tables(c, tmp_path, methods=NAMES)
    doc = tmp_path / "doc.tex"
    doc.write_text(
        "\\documentclass{article}\\usepackage{booktabs}\\begin{document}"
        "\\input{verdict_table}\\input{errors_table}\\end{document}\n"
    )
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]


def test_a_study_too_small_for_tests_gets_the_error_table_only(tmp_path):
    small = _results()
    small = small[small["dataset"].isin(["set_0", "set_1"])]  # too few data sets for tests
    c = compare(small, methods=NAMES)
    assert verdict_table(c) == ""
    assert sorted(write_latex_tables(c, tmp_path)) == ["errors_table"]
    _structure(errors_table(c))
