"""The base the SVM-training objectives share: options, their checks, the solver, the memory
rule, a fixed C, and the bound-class protocol of every objective."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF, MultipleKernel
from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, Objective, PlattError
from svmtune.objectives._svm_objective import GRAM_BYTES_PER_ENTRY, SVMObjective

SVM_OBJECTIVES = [ExactLOO, KFoldCV, PlattError]


@pytest.fixture(scope="module")
def heart():
    X, y, _, _ = ratsch_split("heart", seed=1)
    return X[:60], y[:60]


@pytest.mark.parametrize("cls", SVM_OBJECTIVES)
def test_the_solver_is_built_from_the_objectives_options(cls, heart) -> None:
    X, y = heart
    obj = cls(tol=1e-4, max_iter=5000, memory_budget=2**20)
    assert isinstance(obj, SVMObjective)
    assert obj.get_params()["tol"] == 1e-4  # stored by the base, read back from __init__
    solver = obj.bind(X, y, kernel=RBF()).solver
    assert (solver.tol, solver.max_iter, solver.memory_budget) == (1e-4, 5000, 2**20)
    assert solver.selection == "second_order"


def test_kfold_passes_its_working_set_selection_on(heart) -> None:
    X, y = heart
    bound = KFoldCV(selection="max_violating_pair").bind(X, y, kernel=RBF())
    assert bound.solver.selection == "max_violating_pair"


@pytest.mark.parametrize("cls", SVM_OBJECTIVES)
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"tol": 0.0}, "tol must be a positive finite number; got 0.0"),
        ({"max_iter": 0}, "max_iter must be a positive integer or None; got 0"),
        ({"memory_budget": 0.5}, "memory_budget must be a positive number of bytes; got 0.5"),
    ],
)
def test_bad_solver_options_are_named_by_every_svm_objective(cls, options, match) -> None:
    with pytest.raises(ValueError, match=match):
        cls(**options).search_space(RBF())


@pytest.mark.parametrize("cls", [ExactLOO, KFoldCV])
def test_the_gram_matrix_is_held_while_16_n_squared_bytes_fit_the_budget(cls, heart) -> None:
    X, y = heart
    n = y.size
    fits = GRAM_BYTES_PER_ENTRY * n * n
    assert _holds_gram(cls(memory_budget=fits).bind(X, y, kernel=RBF()))
    assert not _holds_gram(cls(memory_budget=fits - 1).bind(X, y, kernel=RBF()))


def _holds_gram(bound) -> bool:
    """KFoldCV says so (``fits``; its kernel statistics are made on first use), ExactLOO by
    the statistics it prepared."""
    return bound.fits if isinstance(bound.objective, KFoldCV) else bound.prepared is not None


def test_platt_refuses_data_beyond_the_budget_naming_the_bytes(heart) -> None:
    X, y = heart
    n = y.size
    PlattError(memory_budget=16 * n * n).bind(X, y, kernel=RBF())
    with pytest.raises(ValueError, match=f"{n} points need {16 * n * n} bytes"):
        PlattError(memory_budget=16 * n * n - 1).bind(X, y, kernel=RBF())


def test_a_fixed_C_leaves_the_search_space_and_is_used(heart) -> None:
    X, y = heart
    assert PlattError(C=3.0).search_space(RBF()).names == ("gamma",)
    assert PlattError().search_space(RBF()).names == ("C", "gamma")
    bound = PlattError(C=3.0).bind(X, y, kernel=RBF())
    assert bound.C({"gamma": 0.1}) == 3.0
    assert KFoldCV().bind(X, y, kernel=RBF()).C({"C": 2.5, "gamma": 0.1}) == 2.5


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.inf, "a"])
def test_a_bad_fixed_C_is_named(bad) -> None:
    with pytest.raises(ValueError, match="C must be a positive"):
        PlattError(C=bad).search_space(RBF())


def test_a_fixed_C_on_a_kernel_with_its_own_scale_is_refused_at_definition() -> None:
    kernel = MultipleKernel([[0], [1]], form="common")
    with pytest.raises(ValueError, match=r"C=2.0 cannot be fixed: .* carries its own scale"):
        PlattError(C=2.0).search_space(kernel)


def test_an_objective_naming_neither_bind_nor_its_bound_class_says_so(heart) -> None:
    class Empty(Objective):
        pass

    with pytest.raises(NotImplementedError, match="Empty defines neither _bind nor _bound_class"):
        Empty().bind(*heart, kernel=RBF())


def test_bound_objectives_precompute_in_setup(heart) -> None:
    """Each bound objective's shared state exists right after bind (``_setup`` ran)."""
    X, y = heart
    assert len(KFoldCV(k=4).bind(X, y, kernel=RBF()).folds) == 4
    assert len(PlattError(validation=3).bind(X, y, kernel=RBF()).folds) == 3
    loo = LOOEstimate(model="loo3", alpha_grid=[0.25, 0.5]).bind(X, y, kernel=RBF())
    assert loo.alpha_grid.tolist() == [0.25, 0.5]
