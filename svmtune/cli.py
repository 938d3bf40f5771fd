"""The ``svmtune`` command line.

Each sub-command is a function ``_cmd_<name>(args) -> int`` registered in :func:`build_parser`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def _cmd_datasets(args: argparse.Namespace) -> int:
    import pandas as pd

    from svmtune.datasets import list_datasets

    table = list_datasets()
    with pd.option_context("display.max_rows", None, "display.width", 200,
                           "display.max_colwidth", 60):
        print(table.to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svmtune",
        description="Tune kernel SVM hyperparameters and compare the ways of doing it.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("datasets", help="list the bundled real data sets")
    p.set_defaults(func=_cmd_datasets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"svmtune {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
