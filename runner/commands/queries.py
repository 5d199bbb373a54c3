"""`lockstep info`, `lockstep collisions`, `lockstep blocked`: CARLA's log queries.

They mirror CARLA's PythonAPI scripts (show_recorder_file_info.py,
show_recorder_collisions.py, show_recorder_actors_blocked.py) and print the query's text
as it is, adding a newline only when it does not end with one. The text's bytes are
CARLA's: a string that is not valid UTF-8 in the log comes out as the same bytes. The text
is written a chunk of the log at a time, so `info -a` on a big log needs no memory for it.

A file that is not a CARLA log prints CARLA's `File is not a CARLA recorder` and exits 2;
a log that ends inside a frame is answered up to its last complete frame with a warning on
stderr (`--strict`: an error, exit 2).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO

from runner.commands.log_options import add_order, add_strict, truncation_warnings
from runner.errors import UsageError


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--file", required=True, help="the CARLA log to query")
    parser.add_argument(
        "--local-time", action="store_true", help="print the date in this machine's zone, not UTC"
    )
    add_strict(parser)


def _threshold(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, found {text!r}") from None
        if not math.isfinite(value) or value < 0:
            raise argparse.ArgumentTypeError(f"expected {what}, found {text!r}")
        return value

    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    info = subparsers.add_parser("info", help="a log's frames and events (CARLA's file info)")
    _common(info)
    info.add_argument("-a", "--show-all", action="store_true", help="every packet and frame")
    info.add_argument("-s", "--save", metavar="OUT", help="write the text to OUT, not stdout")
    info.set_defaults(func=_info)

    collisions = subparsers.add_parser("collisions", help="a log's collisions (CARLA's query)")
    _common(collisions)
    collisions.add_argument(
        "-t",
        "--types",
        default="aa",
        help="two categories: o other, v vehicle, w walker, t traffic light, h hero, a any",
    )
    collisions.set_defaults(func=_collisions)

    blocked = subparsers.add_parser("blocked", help="actors that stood still (CARLA's query)")
    _common(blocked)
    blocked.add_argument(
        "-t",
        "--time",
        type=_threshold("a finite number of seconds >= 0"),
        default=30.0,
        help="minimum seconds stopped (30)",
    )
    blocked.add_argument(
        "-d",
        "--distance",
        type=_threshold("a finite number of centimetres >= 0"),
        default=100.0,
        help="maximum distance moved, centimetres (100)",
    )
    add_order(blocked)
    blocked.set_defaults(func=_blocked)


class _Output:
    """The text's bytes to stdout or to a file opened at the first piece."""

    def __init__(self, save: str | None):
        self.save = save
        self.stream: BinaryIO | None = None
        self.last = ""

    def write(self, text: str) -> None:
        if not text:
            return
        if self.stream is None:
            if self.save:
                self.stream = open(self.save, "wb")  # noqa: SIM115 (closed in close())
            else:
                sys.stdout.flush()
                self.stream = sys.stdout.buffer
        self.stream.write(text.encode("utf-8", "surrogateescape"))
        self.last = text[-1]

    def close(self) -> None:
        if self.last and self.last != "\n":
            self.write("\n")
        if self.stream is not None:
            self.stream.flush()
            if self.save:
                self.stream.close()


def _run(pieces: Iterator[str], save: str | None = None) -> int:
    """Writes the query's text as it comes; CARLA's text and exit 2 for a non-log file; a
    warning line for a log answered up to its last complete frame."""
    from recorder.errors import NOT_A_RECORDER, NotARecorderError

    out = _Output(save)
    with truncation_warnings():
        try:
            for piece in pieces:
                out.write(piece)
        except NotARecorderError:
            out.write(NOT_A_RECORDER)
            raise
        finally:
            out.close()
    return 0


def _info(args: argparse.Namespace) -> int:
    from recorder.queries.info import info_pieces

    pieces = info_pieces(
        args.file, args.show_all, local_time=args.local_time, lenient=not args.strict
    )
    return _run(pieces, args.save)


def _collisions(args: argparse.Namespace) -> int:
    from recorder.queries.collisions import collision_pieces

    types = args.types
    if len(types) != 2 or any(t not in "ovwtha" for t in types):
        raise UsageError(f"-t takes two of the letters o v w t h a (like 'hv'), not {types!r}")
    pieces = collision_pieces(
        args.file, types[0], types[1], local_time=args.local_time, lenient=not args.strict
    )
    return _run(pieces)


def _blocked(args: argparse.Namespace) -> int:
    from recorder.queries.blocked import blocked_pieces

    pieces = blocked_pieces(
        args.file,
        args.time,
        args.distance,
        order=args.order,
        local_time=args.local_time,
        lenient=not args.strict,
    )
    return _run(pieces)
