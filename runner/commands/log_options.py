"""The options every command reading a CARLA log spells the same way: `--order` (the C++
library whose hash orders to follow) and `--strict` (a log that ends inside a frame is an
error instead of answered up to its last complete frame), and the warning line such a
log gets."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["add_order", "add_strict", "truncation_warnings"]

LIBRARIES = ("libc++", "libstdc++")  # recorder.logfile.hash_order.LIBRARIES, checked again there


def add_order(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--order",
        choices=LIBRARIES,
        default=LIBRARIES[0],
        help="C++ library whose hash-map order to follow (CARLA's Linux build: libc++)",
    )


def add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a log that ends inside a frame is an error (default: answer up to its last "
        "complete frame, with a warning)",
    )


@contextmanager
def truncation_warnings() -> Iterator[None]:
    """Prints a log's truncation warnings raised inside as one `lockstep: warning:` line
    each (after the block, so they follow the command's text); other warnings as usual."""
    from recorder.errors import TruncatedLogWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TruncatedLogWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, TruncatedLogWarning):
            print(f"lockstep: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
