"""The tuner contract: the complete tuner of docs/search-tuners.md ("Writing a tuner"), run as
the page prints it, on a bowl with a known minimum and in a study beside a grid; and the four
methods of ``Evaluate`` are the Evaluator's."""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest

from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Evaluate, Evaluator, Grid, Tuner
from tests.study._toys import blobs, halves
from tests.tuners.conftest import Bowl

PAGE = Path(__file__).resolve().parents[2] / "docs" / "search-tuners.md"


def _page_tuner() -> type[Tuner]:
    """The code block of the page's "Writing a tuner" section, executed; its Tuner class."""
    text = PAGE.read_text()
    section = text.split("## Writing a tuner", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert 20 <= len(code.strip().splitlines()) <= 45  # "about 30 lines"
    namespace: dict = {"__name__": "page_tuner"}
    exec(compile(code, str(PAGE), "exec"), namespace)
    (cls,) = [
        v
        for v in namespace.values()
        if isinstance(v, type) and issubclass(v, Tuner) and v is not Tuner
    ]
    return cls


def test_the_contract_is_four_methods_of_the_evaluator():
    names = [n for n in ("__call__", "spent", "best", "set_incumbent") if hasattr(Evaluate, n)]
    assert names == ["__call__", "spent", "best", "set_incumbent"]
    for name in names:
        mine = inspect.signature(getattr(Evaluate, name)).parameters
        theirs = inspect.signature(getattr(Evaluator, name)).parameters
        assert list(mine) == list(theirs), name


def test_the_page_tuner_finds_the_bowls_minimum_within_its_budget(toy):
    X, y = toy
    cls = _page_tuner()
    kernel = AnisotropicRBF(n_features=2)
    target = {"gamma_0": 0.03, "gamma_1": 2.0}  # inside the default box 0.001..10
    res = cls(max_evals=120).tune(Bowl(target=target), X, y, kernel=kernel, random_state=0)
    assert res.n_evaluations <= 120
    # the known minimum (0 at the target): within the final step's reach on the log scale
    for name, t in target.items():
        assert abs(math.log(res.best_params[name] / t)) < 0.05, (name, res.best_params)
    assert res.best_value == pytest.approx(min(res.trace["value"]))
    # a smaller budget stops it where the budget says
    small = cls(max_evals=7).tune(Bowl(target=target), X, y, kernel=kernel, random_state=0)
    assert small.n_evaluations == 7 and small.stopped_by == "max_evals"


def test_the_page_tuner_refuses_a_bad_option_naming_it(toy):
    X, y = toy
    cls = _page_tuner()
    with pytest.raises(ValueError, match=r"step must be a number in \(0, 0.5\]; got 2.0"):
        cls(step=2.0).tune(Bowl(target={"gamma": 0.1}), X, y, kernel=RBF())
    with pytest.raises(ValueError, match="max_evals must be a positive integer; got 0"):
        cls(max_evals=0).tune(Bowl(target={"gamma": 0.1}), X, y, kernel=RBF())


def test_a_study_compares_the_page_tuner_with_a_grid(tmp_path):
    cls = _page_tuner()
    loo2 = LOOEstimate(model="loo2")
    study = Study(
        "contract",
        datasets=[blobs],
        split=halves,
        n_splits=2,
        seed=3,
        methods={
            "compass": Method(loo2, cls(max_evals=8), RBF()),
            "grid": Method(loo2, Grid(n_points=8), RBF()),
        },
        storage=f"sqlite:///{tmp_path / 'contract.db'}",
    ).run(n_jobs=1)
    res = study.results()
    assert sorted(res["method"]) == ["compass", "compass", "grid", "grid"]
    assert res["status"].eq("ok").all()
    assert res["n_evaluations"].le(8).all()
    table = study.summary()
    assert len(table) >= 1
