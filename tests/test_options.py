"""The declared option constraints (svmtune._options): what each accepts, the refusal's words,
and the declarations of a class and its bases checked together, the bases' first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmtune._options import (
    MAX_EVALS,
    MAX_SECONDS,
    N_JOBS,
    Choice,
    Either,
    Flag,
    Integer,
    Labelled,
    Real,
    check_options,
    check_value,
    declared_constraints,
)
from svmtune.objectives import KFoldCV
from svmtune.tuners import Grid, Tuner


@pytest.mark.parametrize(
    ("constraint", "good", "bad"),
    [
        (Integer(low=1), [1, 7, np.int64(3)], [0, -1, True, 1.0, "1", None]),
        (Integer(low=1, none=True), [None, 2], [0, False]),
        (Integer(high=-1), [-1, -5], [0, 1]),
        (Real(low=0.0), [1e-300, 2, 0.5, np.float32(0.1)], [0, 0.0, -1, math.inf, math.nan, True]),
        (Real(low=0.0, closed="left"), [0, 0.0, 3.5], [-1e-9, math.inf]),
        (Real(0.0, 1.0, closed="right"), [1, 1.0, 0.5], [0.0, 1.5]),
        (Choice(("a", "b")), ["a", "b"], ["c", 1, None, b"a"]),
        (Choice((1, 2)), [1, 2], [True, 1.0]),  # of the same type: True is not 1 here
        (Flag(), [True, False, np.bool_(True)], [1, 0, "yes", None]),
        (N_JOBS, [None, 1, 4, -1, -2], [0, True, 1.5, "all"]),
        (MAX_EVALS, [None, 1, 100], [0, -3, 2.0, True]),
        (MAX_SECONDS, [None, 0.1, 5], [0, -1.0, math.inf, True]),
    ],
)
def test_each_constraint_accepts_what_it_says(constraint, good, bad):
    for value in good:
        assert constraint.accepts(value), value
    for value in bad:
        assert not constraint.accepts(value), value


@pytest.mark.parametrize(
    ("constraint", "words"),
    [
        (Integer(low=1), "a positive integer"),
        (Integer(low=0), "a non-negative integer"),
        (Integer(low=2), "an integer >= 2"),
        (Integer(low=1, none=True), "a positive integer or None"),
        (Real(low=0.0), "a positive number"),
        (Real(low=0.0, closed="left"), "a non-negative number"),
        (Real(0.0, 1.0, closed="right"), "a number in (0, 1]"),
        (Choice(("x", "y")), "one of ['x', 'y']"),
        (Flag(), "True or False"),
        (N_JOBS, "a non-zero integer or None"),
    ],
)
def test_the_refusal_names_the_option_the_rule_and_the_value(constraint, words):
    with pytest.raises(ValueError) as info:
        check_value(object(), "opt", constraint)
    assert str(info.value).startswith(f"opt must be {words}; got <object object at")


def test_a_label_and_either_say_whose_and_what_in_their_own_words():
    with pytest.raises(ValueError, match=r"^Cascade radius must be a positive number; got -1$"):
        check_value(-1, "radius", Labelled(Real(low=0.0), "Cascade "))
    either = Either((Integer(low=4), Choice(("auto",))), "an integer >= 4 or 'auto'")
    assert either.accepts(4) and either.accepts("auto") and not either.accepts(3)
    with pytest.raises(ValueError, match=r"^size must be an integer >= 4 or 'auto'; got 3$"):
        check_value(3, "size", either)


def test_a_class_and_its_bases_are_checked_together_the_bases_first():
    assert list(declared_constraints(Tuner)) == ["max_evals", "max_seconds"]
    assert list(declared_constraints(Grid)) == [
        "max_evals",
        "max_seconds",
        "n_points",
        "max_points",
    ]
    with pytest.raises(ValueError, match="max_evals must be a positive integer; got 0"):
        check_options(Grid(n_points=0, max_evals=0))  # the base's option first
    with pytest.raises(ValueError, match="n_points must be a positive integer; got 0"):
        check_options(Grid(n_points=0))
    assert list(declared_constraints(KFoldCV)) == ["k", "n_jobs", "max_seeds"]
    with pytest.raises(ValueError, match="n_jobs must be a non-zero integer or None; got 0"):
        KFoldCV(n_jobs=0)._check_options()
