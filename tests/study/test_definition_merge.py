"""The "did the study change?" policy on its own: a pure function of two definitions."""

from __future__ import annotations

import pytest

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study, StudyChangedError
from svmtune.study.store._definition import DEFINITION_FORMAT, describe_changes, merge_definitions
from svmtune.tuners import Grid


def definition(methods: dict[str, Method], datasets=("heart",), **kw) -> dict:
    """A real study's definition (what ``Study.run`` hands the storage), as stored."""
    study = Study("s", datasets=list(datasets), methods=methods, split="fischetti", **kw)
    return {**study.definition(), "format": DEFINITION_FORMAT}


def grid(n: int = 4) -> Method:
    return Method(LOOEstimate(), Grid(n_points=n), RBF())


def test_an_unchanged_definition_merges_to_itself():
    old = definition({"a": grid()})
    verdict = merge_definitions(old, definition({"a": grid()}), stored_seed=0, seed=0)
    assert verdict.unchanged and verdict.changed == {} and verdict.conflict is None
    assert verdict.merged == old


def test_added_methods_and_data_sets_only_add_cells():
    old = definition({"a": grid()})
    new = definition({"a": grid(), "b": grid(5)}, datasets=("sonar", "heart"))
    verdict = merge_definitions(old, new, stored_seed=0, seed=0)
    assert verdict.unchanged
    assert list(verdict.merged["methods"]) == ["a", "b"]
    assert verdict.merged["datasets"] == ["sonar", "heart"]


def test_a_changed_option_names_the_method_and_the_path():
    old = definition({"a": grid(4), "b": grid(4)})
    verdict = merge_definitions(
        old, definition({"a": grid(5), "b": grid(4)}), stored_seed=0, seed=0
    )
    assert verdict.changed == {"a": ("tuner.params.n_points: 4 -> 5",)}
    assert verdict.conflict is None and not verdict.unchanged
    assert describe_changes(verdict.changed) == "method 'a': tuner.params.n_points: 4 -> 5"
    # the merged definition is the new one (applied only if the caller replaces the cells)
    assert verdict.merged["methods"]["a"]["tuner"]["params"]["n_points"] == 5


def test_removed_methods_and_data_sets_stay_in_the_stored_definition():
    """A report must still name the method of every stored cell."""
    old = definition({"a": grid(), "gone": grid(3)}, datasets=("heart", "sonar"))
    verdict = merge_definitions(old, definition({"a": grid()}), stored_seed=0, seed=0)
    assert verdict.unchanged
    assert verdict.merged["methods"]["gone"] == old["methods"]["gone"]
    assert verdict.merged["datasets"] == ["heart", "sonar"]


@pytest.mark.parametrize(
    ("new_kw", "seed", "conflict"),
    [
        ({}, 7, "was run with seed 0; this definition has seed 7"),
        ({"split": "holdout"}, 0, "was run with split='fischetti'; this definition has split="),
    ],
)
def test_seed_and_split_are_conflicts_no_replacement_mends(new_kw, seed, conflict):
    old = definition({"a": grid()})
    new = {**definition({"a": grid(5)}), **new_kw}
    verdict = merge_definitions(old, new, stored_seed=0, seed=seed)
    assert verdict.conflict is not None and verdict.conflict.startswith(conflict)


def test_a_definition_stored_before_complete_records_is_not_compared():
    old = {**definition({"a": grid(4)}), "format": 1}
    verdict = merge_definitions(old, definition({"a": grid(5)}), stored_seed=0, seed=0)
    assert verdict.unchanged and verdict.merged["format"] == DEFINITION_FORMAT


def test_the_policy_names_no_command_line_flag():
    old = definition({"a": grid(4)})
    verdict = merge_definitions(old, definition({"a": grid(5)}), stored_seed=0, seed=0)
    err = StudyChangedError("x", study="study 's'", changed=verdict.changed)
    assert isinstance(err, ValueError) and err.changed == verdict.changed
    assert "--" not in repr(verdict) and "--" not in err.what_changed
