"""`lockstep warmup`: compile every kernel ahead of the first run (runner.warmup)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `warmup`."""
    warmup = subparsers.add_parser(
        "warmup", help="compile the simulator's kernels now, once per install"
    )
    warmup.set_defaults(func=_warmup)


def _warmup(args: argparse.Namespace) -> int:
    from runner.warmup import warm_up

    print(warm_up().text())
    return 0
