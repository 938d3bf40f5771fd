"""The Examples sections of every module of the installed package run and print what they say
(``pytest --doctest-modules`` would import the checkout's copy instead of the installed one)."""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil
import warnings

import pytest

import svmtune

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(svmtune.__path__, prefix="svmtune.") if m.name
)


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # experimental-feature notices of optional samplers
        report = io.StringIO()
        for test in finder.find(module, name):
            runner.run(test, out=report.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} failed:\n{report.getvalue()}"


def test_every_public_module_is_covered() -> None:
    assert "svmtune.solvers.loo._exact_loo" in MODULES
    assert len(MODULES) > 40
