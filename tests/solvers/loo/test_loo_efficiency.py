"""The CPU efficiency test's choice and budget (svmtune.solvers.loo._efficiency.Measure) on
hand-made records: what each way cost on the retrains measured, in eps-KKT steps."""

from __future__ import annotations

import pytest

from svmtune.solvers.loo._efficiency import MARGIN, OVERHEAD, Measure, _Retrain
from svmtune.solvers.loo._passes import EARLY_POINTS, efficiency_parts


def _measure(*ways: tuple[float, float, float], rerun: bool = False) -> Measure:
    m = Measure()
    for r, (short, kkt, whole) in enumerate(ways):
        m.retrains[r] = _Retrain(short=short, kkt=kkt, whole=whole, rerun=rerun)
    return m


def test_franc_taken_only_where_cheaper_by_the_margin() -> None:
    # the eps-KKT stop costs 100 on each retrain
    assert _measure((100.0 / (1 + MARGIN) - 1, 100.0, 1e9)).choice() == "short"
    assert _measure((100.0 / (1 + MARGIN) + 1, 100.0, 1e9)).choice() == "kkt"
    assert _measure((1e9, 100.0, 100.0 / (1 + MARGIN) - 1)).choice() == "whole"
    assert _measure((1e9, 100.0, 100.0 / (1 + MARGIN) + 1)).choice() == "kkt"
    # a tie goes to the eps-KKT stop
    assert _measure((100.0, 100.0, 100.0)).choice() == "kkt"


def test_whole_retrain_needs_every_rerun_measured_to_its_end() -> None:
    # a rerun cut by the budget gives a lower bound on Franc's whole retrain only
    assert _measure((1e9, 100.0, 10.0), rerun=True).choice() == "kkt"
    assert _measure((50.0, 100.0, 10.0), rerun=True).choice() == "short"
    assert _measure((50.0, 100.0, 10.0), rerun=False).choice() == "whole"


def test_overhead_counts_franc_where_it_cost_more_and_the_measuring() -> None:
    m = _measure((150.0, 100.0, 150.0), (40.0, 100.0, 40.0))
    assert m.overhead() == pytest.approx(50.0)  # the second retrain saved: no overhead
    m.spent = 30.0
    assert m.overhead() == pytest.approx(80.0)
    # OVERHEAD of the projected CPU: 200 retrains at the mean of the cheaper way (100, 40)
    assert m.allowance(200) == pytest.approx(OVERHEAD * 200 * 70.0)
    assert Measure().allowance(200) == 0.0


@pytest.mark.parametrize(("M", "todo"), [(10, 11), (10, 45), (10, 1000), (2, 500), (1, 2)])
def test_parts_cover_the_first_M_retrains_and_start_small(M: int, todo: int) -> None:
    ends = efficiency_parts(M, todo)
    assert ends[-1] == M
    assert all(b > a for a, b in zip([0, *ends[:-1]], ends, strict=True))
    assert ends[0] <= max(1, todo // 20)
    assert all(b - a <= EARLY_POINTS for a, b in zip(ends[:-1], ends[1:], strict=True))
