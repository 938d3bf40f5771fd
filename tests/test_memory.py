"""The one memory budget's block sizes (svmtune/_memory.py): blocks never exceed the budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune._memory import (
    DEFAULT_MEMORY_BUDGET,
    block_rows,
    block_shape,
    check_memory_budget,
    split_budget,
)


@settings(max_examples=300, deadline=None)
@given(
    n_columns=st.integers(1, 10**7),
    arrays=st.integers(1, 8),
    budget=st.integers(1, 2**31),
)
def test_a_block_fits_its_budget_unless_a_single_entry_does_not(n_columns, arrays, budget):
    rows, cols = block_shape(n_columns, arrays, budget)
    assert rows >= 1 and 1 <= cols <= n_columns
    if 8 * arrays <= budget:  # one entry of every array fits: the block fits
        assert rows * cols * 8 * arrays <= budget
    if rows > 1 or cols == n_columns:  # whole rows: as many as fit
        assert (rows + 1) * n_columns * 8 * arrays > budget or cols < n_columns
    assert block_rows(n_columns, budget, arrays=arrays) == rows


@given(budget=st.integers(1, 2**40), workers=st.integers(1, 256))
def test_workers_shares_add_up_to_the_budget_at_most(budget, workers):
    share = split_budget(budget, workers)
    assert share >= 1 and (share * workers <= budget or share == 1)


def test_the_default_is_a_positive_number_of_bytes():
    assert check_memory_budget(DEFAULT_MEMORY_BUDGET) == 256 * 2**20


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "1"])
def test_a_bad_budget_is_named(bad):
    with pytest.raises(ValueError, match=f"memory_budget must be a positive integer .*{bad!r}"):
        check_memory_budget(bad)
