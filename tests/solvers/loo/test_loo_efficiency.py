"""The CPU efficiency test's choice and budget (svmtune.solvers.loo._efficiency.Measure) on
hand-made records: what each way cost on the retrains measured, in eps-KKT steps."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.solvers.loo import _exact_loo_loop as loop
from svmtune.solvers.loo._efficiency import (
    MARGIN,
    OVERHEAD,
    PART_POINTS,
    Measure,
    Probe,
    _Retrain,
    franc_extra,
)
from svmtune.solvers.loo._franc_tail import WORK_H, LowRank, factor_cpu, rank_cap
from svmtune.solvers.loo._passes import EARLY_POINTS, efficiency_parts


def _measure(*ways: tuple[float, float, float], rerun: bool = False) -> Measure:
    m = Measure()
    for r, (short, kkt, whole) in enumerate(ways):
        m.retrains[r] = _Retrain(short=short, kkt=kkt, whole=whole, rerun=rerun)
    return m


def _probe(costs: list[float], extra: list[float], handed: int = 0) -> Probe:
    p = Probe()
    for r, (c, e) in enumerate(zip(costs, extra, strict=True)):
        p.costs[r], p.extra[r] = c, e
    p.handed = handed
    return p


def test_franc_extra_is_the_step_and_bias_work_beyond_an_eps_kkt_step() -> None:
    per_step = loop.WORK_FRANC_STEP - 1.0 + loop.WORK_SELECT / loop.EXACT_BIAS_EVERY
    assert franc_extra(0) == 0.0
    assert franc_extra(200) == pytest.approx(200 * per_step)
    recorded = Probe()
    recorded.record(3, loop.CERTIFIED, 40, 50.0, np.zeros((2, 4)))
    assert recorded.costs[3] == 50.0 and recorded.extra[3] == pytest.approx(40 * per_step)


def test_first_part_fits_the_fixed_cpu_and_franc_steps_in_the_budget() -> None:
    n, todo = PART_POINTS, 1000  # a part's fixed CPU is one eps-KKT step
    p = _probe([100.0, 300.0], [200.0, 300.0])  # mean 200, Franc's extra 250 a retrain
    left = OVERHEAD * todo * 200.0 - 1.0
    assert p.first_part(todo, n) == int(left // 250.0)
    # retrains reaching the shrinking SMO: the low-rank factor as large as it may be tried
    handed = _probe([100.0, 300.0], [200.0, 300.0], handed=1)
    assert handed.first_part(todo, n) == int((left - factor_cpu(rank_cap(n))) // 250.0)
    # the fixed CPU alone over the budget: no test
    assert p.first_part(10, n) == 0
    assert _probe([1.0], [0.0]).first_part(todo, 10**9) == todo


def test_the_low_rank_factor_is_counted_once_made() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    K = X @ X.T
    low = LowRank(K, np.diag(K).copy())
    assert low.cpu == 0.0
    L, _ = low.get()
    assert L.shape[1] == 3
    assert low.cpu == factor_cpu(3) == pytest.approx(WORK_H * 6)
    m = _measure((150.0, 100.0, 150.0))
    before = m.overhead()
    m.low_rank = low
    assert m.overhead() == pytest.approx(before + low.cpu)


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
