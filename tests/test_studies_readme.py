"""studies/README.md's table of the shipped studies says how many cells each has: checked
against the studies themselves, so the page cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from svmtune.study import load_study

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `(?P<file>[a-z0-9_]+\.py)` \|.*\| (?P<cells>\d+) \| [^|]* \|$")


def _rows() -> list[tuple[str, int]]:
    text = (ROOT / "studies" / "README.md").read_text()
    return [
        (m["file"], int(m["cells"])) for m in map(ROW.match, text.splitlines()) if m is not None
    ]


def test_the_table_lists_every_study_file() -> None:
    listed = {f for f, _ in _rows()}
    shipped = {p.name for p in (ROOT / "studies").glob("*.py")}
    studies = {f for f in shipped if "study = Study(" in (ROOT / "studies" / f).read_text()}
    assert studies <= listed, f"studies/README.md does not count {sorted(studies - listed)}"


@pytest.mark.parametrize(("file", "cells"), _rows())
def test_cell_counts_are_the_studies_own(file: str, cells: int, monkeypatch) -> None:
    monkeypatch.delenv("SVMTUNE_BENCHMARK_SPLITS", raising=False)
    monkeypatch.delenv("SVMTUNE_BENCHMARK_DATASETS", raising=False)
    assert len(load_study(ROOT / "studies" / file).cell_keys()) == cells
