"""`lockstep info`, `lockstep collisions`, `lockstep blocked`: CARLA's log queries.

They mirror CARLA's PythonAPI scripts (show_recorder_file_info.py,
show_recorder_collisions.py, show_recorder_actors_blocked.py) and print the query's text
as it is, adding a newline only when it does not end with one. The text's bytes are
CARLA's: a string that is not valid UTF-8 in the log comes out as the same bytes.
"""

from __future__ import annotations

import argparse
import sys

from recorder import query_blocked, query_collisions, query_info
from recorder.hash_order import LIBCXX, LIBRARIES
from runner.errors import UsageError


def _order(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--order",
        choices=LIBRARIES,
        default=LIBCXX,
        help="C++ library whose hash-map order to follow (CARLA's Linux build: libc++)",
    )


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--file", required=True, help="the CARLA log to query")
    parser.add_argument(
        "--local-time", action="store_true", help="print the date in this machine's zone, not UTC"
    )
    parser.add_argument(
        "--lenient", action="store_true", help="read a truncated log up to its last whole frame"
    )


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
    blocked.add_argument("-t", "--time", type=float, default=30, help="minimum seconds stopped")
    blocked.add_argument(
        "-d", "--distance", type=float, default=100, help="maximum distance moved, centimetres"
    )
    _order(blocked)
    blocked.set_defaults(func=_blocked)


def _emit(text: str, save: str | None = None) -> int:
    if not text.endswith("\n"):
        text += "\n"
    raw = text.encode("utf-8", "surrogateescape")
    if save:
        with open(save, "wb") as out:
            out.write(raw)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
    return 0


def _info(args: argparse.Namespace) -> int:
    text = query_info(args.file, args.show_all, local_time=args.local_time, lenient=args.lenient)
    return _emit(text, args.save)


def _collisions(args: argparse.Namespace) -> int:
    types = args.types
    if len(types) != 2 or any(t not in "ovwtha" for t in types):
        raise UsageError(f"-t takes two of the letters o v w t h a (like 'hv'), not {types!r}")
    text = query_collisions(
        args.file, types[0], types[1], local_time=args.local_time, lenient=args.lenient
    )
    return _emit(text)


def _blocked(args: argparse.Namespace) -> int:
    text = query_blocked(
        args.file,
        args.time,
        args.distance,
        order=args.order,
        local_time=args.local_time,
        lenient=args.lenient,
    )
    return _emit(text)
