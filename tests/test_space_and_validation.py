import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from svmtune._validation import check_positive, check_X, check_Xy
from svmtune.objectives import Cost, Evaluation, FrozenParams, Status
from svmtune.space import Param, SearchSpace

SPACE = SearchSpace(
    (Param("C", 1e-2, 1e4), Param("gamma", 1e-4, 1e2), Param("w", -1.0, 1.0, log=False))
)


@given(st.lists(st.floats(0, 1), min_size=3, max_size=3))
def test_unit_box_round_trip(u):
    values = SPACE.from_unit(u)
    SPACE.check(values)
    np.testing.assert_allclose(SPACE.to_unit(values), u, atol=1e-9)


def test_space_checks_name_the_problem():
    with pytest.raises(ValueError, match="missing \\['w'\\], unknown \\['sigma'\\]"):
        SPACE.check({"C": 1.0, "gamma": 1.0, "sigma": 2.0})
    with pytest.raises(ValueError, match="C=0 is outside its bounds"):
        SPACE.check({"C": 0, "gamma": 1.0, "w": 0.0})
    with pytest.raises(ValueError, match="gamma must be finite"):
        SPACE.check({"C": 1.0, "gamma": math.nan, "w": 0.0})
    with pytest.raises(ValueError, match="duplicate parameter names: \\['C'\\]"):
        SPACE + SearchSpace((Param("C", 1.0, 2.0),))
    with pytest.raises(ValueError, match="needs low > 0"):
        Param("gamma", 0.0, 1.0)
    with pytest.raises(ValueError, match="low < high"):
        Param("gamma", 2.0, 1.0)
    assert SearchSpace(()).check({}) == {}


def test_validation_messages():
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match="non-finite.*row 1, column 0: inf"):
        check_X(np.array([[0.0, 1.0], [np.inf, 2.0]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        check_X(np.ones(3))
    with pytest.raises(ValueError, match="single class"):
        check_Xy(X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="only the labels -1 and \\+1; found \\[0.0, 1.0\\]"):
        check_Xy(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="mismatched lengths: X has 4 rows, y has 3"):
        check_Xy(X, [1, -1, 1])
    with pytest.raises(ValueError, match="at least 2 points of each class"):
        check_Xy(X, [1, -1, -1, -1], min_per_class=2)
    with pytest.raises(ValueError, match="positive finite number; got -1"):
        check_positive(-1, name="C")


def test_evaluation_is_immutable_and_picklable():
    ev = Evaluation({"gamma": 0.5}, 0.25, Status.OK, Cost(1.0, 0.5, 10, 2), info={"beta0": 0.1})
    with pytest.raises(AttributeError):
        ev.value = 0.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        ev.params["gamma"] = 1.0  # type: ignore[index]
    again = pickle.loads(pickle.dumps(ev))
    assert again == ev and again.params["gamma"] == 0.5 and isinstance(again.params, FrozenParams)
    assert (ev.cost + ev.cost).kernel_evals == 20
    failed = Evaluation({"gamma": 0.5}, math.nan, Status.FAILED)
    assert not failed.ok and failed.score == math.inf
