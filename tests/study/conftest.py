"""Fixtures shared by the study tests."""

from __future__ import annotations

import pytest

from svmtune.study import load_study

from ._toys import stable
from .test_kill import STUDY_FILE


@pytest.fixture(scope="session")
def reference(tmp_path_factory):
    """The single uninterrupted SQLite run of test_kill's study that concurrent runs (on SQLite,
    PostgreSQL or dask) must equal."""
    path = tmp_path_factory.mktemp("ref") / "killme.py"
    path.write_text(STUDY_FILE)
    study = load_study(path).run(n_jobs=1, storage=f"sqlite:///{path.parent / 'ref.db'}")
    return stable(study.results())
