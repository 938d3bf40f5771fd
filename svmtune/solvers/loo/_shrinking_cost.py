"""The CPU of the shrinking SMO's work in exact leave-one-out, counted in eps-KKT steps of the
compiled retrain loop (:mod:`svmtune.solvers.loo._exact_loo_loop`): a count, the same on every
machine, that the CPU efficiency test (:mod:`svmtune.solvers.loo._efficiency`) and the
refinements' windows (:mod:`svmtune.solvers.loo._refine`) weigh against the compiled loop's."""

from __future__ import annotations

__all__ = ["WORK_READ", "WORK_SHRINK_STEP", "WORK_SWEPT", "WORK_TAIL", "shrinking_cpu"]

WORK_SWEPT = 0.9
"""CPU of the shrinking SMO per variable a step passes over, in eps-KKT steps of the compiled
retrain loop per point (:func:`shrinking_cpu`). The four constants are fitted to the timed
shrinking runs of the retrains of 18 settings (heart, sonar, ionosphere, wdbc, ringnorm,
banana, german, splice, image; linear and RBF kernels; 134-1300 points): the count is off the
time by 11-13 % in the median, 27-29 % at worst over two runs (``python
benchmarks/franc_stop.py --step-cost``, which refits them: 0.87, 0.27, 63 and 19,600).
With the swept variables and the reads alone (3.0 and 2.3, as before) a run's fixed cost and a
step's were charged per variable: the count was off by 31 % in the median and over-counted the
larger sets 2-5x (German, RBF, C = 1; splice), so the CPU efficiency test took Franc's stop
where it cost 25 % more."""

WORK_READ = 0.26
"""CPU of the shrinking SMO per kernel entry its gradient refreshes (and its start) read, in
the same units."""

WORK_SHRINK_STEP = 60.0
"""CPU of the shrinking SMO per step besides the variables it passes over (the selection's
and the update's fixed work), in the same units."""

WORK_TAIL = 20_000.0
"""CPU of starting a shrinking run (its arrays and ``Gbar``, the first call into the compiled
solver), in the same units: about 100 microseconds, which is 150 eps-KKT steps on 170 points
and 20 on 1000."""


def shrinking_cpu(swept: int, reads: int, n: int, *, steps: int = 0, runs: int = 0) -> float:
    """CPU of shrinking SMO work in eps-KKT steps of the compiled loop over ``n`` points:
    ``swept`` variables passed over, ``reads`` kernel entries read, ``steps`` steps made,
    ``runs`` runs started."""
    return (
        WORK_SWEPT * swept + WORK_READ * reads + WORK_SHRINK_STEP * steps + WORK_TAIL * runs
    ) / n
