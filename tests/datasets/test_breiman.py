"""Breiman's generators against their definitions: exact Bayes rules, moments, class sizes."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from svmtune.datasets import GENERATORS, generate, generator_table, waveform_bases

N = 100_000  # large enough that each error rate below is known to about +-0.1 %


def _error(rule: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.where(rule, 1.0, -1.0) != y))


@pytest.mark.parametrize("name", sorted(GENERATORS))
@pytest.mark.parametrize("n", [3, 10, 1001])
def test_shapes_labels_and_exact_class_sizes(name, n):
    X, y = generate(name, n=n, seed=0)
    assert X.shape == (n, GENERATORS[name].features) and X.dtype == np.float64
    assert set(np.unique(y)) <= {-1.0, 1.0}
    positives = math.ceil(n / 2) if name != "waveform" else n // 3 + (n % 3 > 0)
    assert int((y == 1).sum()) == positives
    assert np.isfinite(X).all()


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_one_seed_one_data_set(name):
    X1, y1 = generate(name, n=500, seed=7)
    X2, y2 = generate(name, n=500, seed=7)
    X3, _ = generate(name, n=500, seed=8)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_rows_are_shuffled_not_sorted_by_class(name):
    _, y = generate(name, n=1000, seed=0)
    assert 0 < np.argmax(y != y[0]) < 50  # a sorted array would switch class after 333 or 500


def test_twonorm_bayes_rule_errs_phi_minus_two():
    X, y = generate("twonorm", n=N, seed=1)
    a = 2 / math.sqrt(20)
    np.testing.assert_allclose(X[y == 1].mean(axis=0), a, atol=0.02)
    np.testing.assert_allclose(X[y == -1].mean(axis=0), -a, atol=0.02)
    assert abs(_error(X.sum(axis=1) > 0, y) - norm.cdf(-2.0)) < 0.003  # 2.28 %


def test_ringnorm_class_variances_and_bayes_rule():
    X, y = generate("ringnorm", n=N, seed=2)
    a = 1 / math.sqrt(20)
    assert abs(X[y == 1].var() - 4.0) < 0.05 and abs(X[y == -1].var() - 1.0) < 0.02
    np.testing.assert_allclose(X[y == -1].mean(axis=0), a, atol=0.02)
    log_p1 = -(X**2).sum(axis=1) / 8 - 20 * math.log(2.0)  # N(0, 4I), common terms dropped
    log_p2 = -((X - a) ** 2).sum(axis=1) / 2
    assert 0.012 < _error(log_p1 > log_p2, y) < 0.018  # Breiman 1.3 %, 1.5 % measured here


def test_threenorm_bayes_rule_errs_about_ten_and_a_half_percent():
    X, y = generate("threenorm", n=N, seed=3)
    a = 2 / math.sqrt(20)
    alternating = a * np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
    np.testing.assert_allclose(X[y == -1].mean(axis=0), alternating, atol=0.02)
    # Class 1's mixture: half its points lie on each side of the hyperplane sum(x) = 0.
    assert abs(np.mean(X[y == 1].sum(axis=1) > 0) - 0.5) < 0.01
    log_p1 = np.logaddexp(-((X - a) ** 2).sum(axis=1) / 2, -((X + a) ** 2).sum(axis=1) / 2)
    log_p2 = -((X - alternating) ** 2).sum(axis=1) / 2 + math.log(2.0)
    assert 0.100 < _error(log_p1 > log_p2, y) < 0.112  # Breiman: 10.5 %


def test_waveform_bases_and_class_means():
    h = waveform_bases()
    j = np.arange(1, 22)
    assert list(h[0]) == [max(6 - abs(k - 11), 0) for k in j]
    assert list(h[1]) == [max(6 - abs(k - 15), 0) for k in j]
    assert list(h[2]) == [max(6 - abs(k - 7), 0) for k in j]
    X, y = generate("waveform", n=N, seed=4)
    # Class 1 = u h1 + (1 - u) h2 with u ~ U(0, 1): mean (h1 + h2) / 2, noise of variance 1.
    np.testing.assert_allclose(X[y == 1].mean(axis=0), (h[0] + h[1]) / 2, atol=0.04)
    # Classes 2 and 3 (half of the -1 points each): mean ((h1 + h3) / 2 + (h2 + h3) / 2) / 2.
    rest = (h[0] + h[1] + 2 * h[2]) / 4
    np.testing.assert_allclose(X[y == -1].mean(axis=0), rest, atol=0.04)
    # Coordinates 1 and 21 are zero in every base wave: pure N(0, 1) noise.
    assert abs(X[:, 0].var() - 1.0) < 0.03 and abs(X[:, 20].var() - 1.0) < 0.03


def test_bad_names_and_sizes_are_refused_by_value():
    with pytest.raises(ValueError, match="'fournorm'"):
        generate("fournorm", n=10)
    with pytest.raises(ValueError, match="n=2"):
        generate("waveform", n=2)
    with pytest.raises(ValueError, match="n=1.5"):
        generate("twonorm", n=1.5)  # type: ignore[arg-type]


def test_table_lists_every_generator():
    t = generator_table()
    assert list(t["name"]) == list(GENERATORS)
    assert t.set_index("name").loc["twonorm", "bayes_error"] == pytest.approx(
        100 * norm.cdf(-2.0), abs=0.01
    )
