"""The compiled exp of the kernel loops against another commit's, and against ``numpy.exp``.

The SMO loop's RBF rows, the fused LOO sums and the fused decisions all take their ``exp`` from
``svmtune.kernels.row_forms.exp_nonpositive_into`` (compiled, for arguments <= 0). Each commit's
whole ``svmtune`` package (the other one extracted with ``git archive``, as
``benchmarks/smo_revs.py`` does) runs in a process of its own, the two alternated ``--repeats``
times, and times the exp of 16,384 arguments (the arrays stay in a core's second-level cache,
as a kernel row's do) called 2,000 times: nanoseconds per entry, the least over the
processes. Then, on 4 million arguments from 0 down to -760 (subnormal results and the
underflow to 0 included): the largest and the mean distance to ``numpy.exp`` in units in the
last place, and how many results differ between the two commits::

    python benchmarks/exp_pass.py --rev b5ef6f8
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from smo_revs import _extract, child_json

HERE = Path(__file__).resolve().parent
IN_CACHE = 16_384
CALLS = 2_000


def _arguments() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    small = -np.abs(rng.normal(0.0, 5.0, IN_CACHE))
    wide = -np.concatenate([rng.exponential(5.0, 2_000_000), np.linspace(0.0, 760.0, 2_000_000)])
    return small, wide


def _child(root: str, save: str) -> None:
    """Time and run the exp of the package under ``root`` (this checkout's when empty)."""
    sys.path.insert(0, root or str(HERE.parent))
    from svmtune.kernels.row_forms import exp_nonpositive_into as exp

    small, wide = _arguments()
    out, bits = np.empty(IN_CACHE), np.empty(IN_CACHE, dtype=np.int64)
    exp(small, out, bits)  # compile or load
    t = time.process_time()
    for _ in range(CALLS):
        exp(small, out, bits)
    ns = (time.process_time() - t) / (CALLS * IN_CACHE) * 1e9
    res = np.empty_like(wide)
    exp(wide, res, np.empty(wide.size, dtype=np.int64))
    np.save(save, res)
    ref = np.exp(wide)
    pos = ref > 0
    ulp = np.abs(res[pos] - ref[pos]) / np.spacing(ref[pos])
    zero = int(np.sum((res == 0) != (ref == 0)))
    print(json.dumps({"ns": ns, "max_ulp": float(ulp.max()), "mean_ulp": float(ulp.mean()),
                      "zero_mismatch": zero}))  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rev", help="the other commit")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--save", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        _child(args.child, args.save)
        return
    if not args.rev:
        p.error("--rev is required")
    other = str(_extract(args.rev))
    tmp = Path(tempfile.mkdtemp(prefix="exp_pass_"))
    runs: dict[str, list[dict]] = {"this": [], args.rev: []}
    for rep in range(args.repeats):
        for side in ("this", args.rev)[:: 1 if rep % 2 == 0 else -1]:
            root = "" if side == "this" else other
            save = str(tmp / f"{side}.npy")
            runs[side].append(child_json(__file__, root, "--save", save))
    a = np.load(tmp / "this.npy")
    b = np.load(tmp / f"{args.rev}.npy")
    for side, rs in runs.items():
        r = rs[0]
        print(
            f"{side:10s} {min(x['ns'] for x in rs):6.2f} ns per entry (in cache); against "
            f"numpy.exp: max {r['max_ulp']:.2f} ulp, mean {r['mean_ulp']:.3f} ulp, "
            f"{r['zero_mismatch']} underflows to 0 differ"
        )
    ratio = min(x["ns"] for x in runs["this"]) / min(x["ns"] for x in runs[args.rev])
    print(f"this / {args.rev}: {ratio:.2f}; results that differ: {int(np.sum(a != b))} of {a.size}")


if __name__ == "__main__":
    main()
