"""KFoldCV within its memory budget, counted by block shapes (never RSS).

Above the budget an evaluation holds no Gram matrix: each fold trains on kernel rows of its own
points within the budget (its share when folds run at once), and its validation decisions go
through kernel blocks within it; the value is the full Gram matrix's up to the validation
points whose decisions two tol-optimal solutions may put on either side of zero.
"""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.kernels import RBF, InnerProductForm, KernelModel
from svmtune.objectives import KFoldCV
from svmtune.solvers import KernelRows
from svmtune.solvers.smo._run import packed_rows_len
from tests.solvers._data import real_split
from tests.solvers._optimality import bias_of, undecided_validation_points


@pytest.fixture(scope="module")
def heart() -> tuple[np.ndarray, np.ndarray]:
    X, y, _, _ = real_split("heart")
    return X, y


class _Counts:
    """The bytes of every row store and every kernel block made while it is installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.stores: list[int] = []
        self.blocks: list[int] = []
        init, gram = KernelRows.__init__, KernelModel.gram
        add = InnerProductForm.add_decisions

        def counted_init(rows: KernelRows, *args, **kwargs) -> None:
            init(rows, *args, **kwargs)
            packed = 8 * packed_rows_len(rows.n, rows.rows.nbytes)
            self.stores.append(rows.rows.nbytes + packed + rows.block_budget)

        def counted_gram(kernel: KernelModel, params, X, Z=None) -> np.ndarray:
            K = gram(kernel, params, X, Z)
            self.blocks.append(K.size * 8 * kernel.block_arrays())
            return K

        def counted_add(form: InnerProductForm, **kwargs) -> None:
            # the fused decisions' block (RBF, Linear): counted as the Gram block it replaces
            rows, vectors = kwargs["X"].shape[0], kwargs["V"].shape[0]
            self.blocks.append(rows * vectors * 8 * RBF().block_arrays())
            add(form, **kwargs)

        monkeypatch.setattr(KernelRows, "__init__", counted_init)
        monkeypatch.setattr(KernelModel, "gram", counted_gram)
        monkeypatch.setattr(InnerProductForm, "add_decisions", counted_add)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_above_the_budget_no_array_exceeds_it_and_the_value_holds(heart, monkeypatch, n_jobs):
    X, y = heart
    n = y.size
    params = {"C": 1.0, "gamma": 0.02}
    tol = 1e-6  # tight, so that what the tolerance guarantees is informative
    budget = 8 * n * 40  # 40 rows of all points: a fold's cache and blocks, no Gram matrix
    full = KFoldCV(tol=tol).bind(X, y, kernel=RBF())
    a = full.evaluate(params)
    counts = _Counts(monkeypatch)
    small = KFoldCV(tol=tol, memory_budget=budget, n_jobs=n_jobs).bind(X, y, kernel=RBF())
    assert full.fits and not small.fits
    b = small.evaluate(params)
    share = budget // n_jobs  # folds solved at once share the budget
    assert len(counts.stores) == len(small.folds)  # one row store per fold, on its own points
    assert max(counts.stores) <= share
    assert counts.blocks and max(counts.blocks) <= share
    # The value: each fold's validation labels differ between the two runs only where two
    # tol-optimal solutions may differ (decisions within their guaranteed distance of zero).
    K = RBF().gram({"gamma": 0.02}, X)
    allowed = 0
    for f, (tr, va) in enumerate(small.folds):
        sol = []
        for bound in (small, full):
            alpha = bound._seeds[f][-1][1][tr]
            sol.append((alpha, bias_of(alpha, y[tr], K[np.ix_(tr, tr)], 1.0)))
        (a1, b1), (a2, b2) = sol
        allowed += undecided_validation_points(a1, b1, a2, b2, y, K, 1.0, tr, va)
    assert abs(a.info["errors"] - b.info["errors"]) <= allowed <= 0.05 * n


def test_within_the_budget_one_gram_matrix_is_shared(heart, monkeypatch):
    """16 n^2 bytes (the Gram matrix and its statistics) fit: the folds read one Gram matrix
    and build no row store."""
    X, y = heart
    n = y.size
    counts = _Counts(monkeypatch)
    bound = KFoldCV(memory_budget=16 * n * n).bind(X, y, kernel=RBF())
    assert bound.fits
    ev = bound.evaluate({"C": 1.0, "gamma": 0.02})
    assert counts.stores == [] and ev.cost.kernel_evals == n * n
