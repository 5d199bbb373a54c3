"""`lockstep render`: a recorded run drawn from above into a GIF or a PNG
(recorder/picture/, docs/render.md)."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `render`."""
    p = subparsers.add_parser("render", help="draw a log from above into a GIF or a PNG")
    p.add_argument("log", help="the log to draw")
    p.add_argument("--map", required=True, help="the OpenDRIVE (.xodr) map of the run")
    p.add_argument("-o", "--output", required=True,
                   help="the picture to write: .gif (a stretch) or .png (one frame)")  # fmt: skip
    p.add_argument("-s", "--start", type=float, default=None,
                   help="starting time, s (negative: from the end); a PNG without it "
                        "shows the last frame")  # fmt: skip
    p.add_argument("-d", "--duration", type=float, default=0.0,
                   help="seconds to draw, 0 to the end (0)")  # fmt: skip
    p.add_argument("--fps", type=float, default=10.0, help="GIF pictures per second (10)")
    p.add_argument("--follow", type=int, default=None,
                   help="log id of the actor to centre on (default: fit them all)")  # fmt: skip
    p.add_argument("--size", type=int, default=640,
                   help="pixels of the picture's longer side (640)")  # fmt: skip
    p.add_argument("--span", type=float, default=80.0,
                   help="metres the view spans with --follow (80)")  # fmt: skip
    p.set_defaults(func=_render)


def _render(args: argparse.Namespace) -> int:
    from recorder.errors import TruncatedLogWarning
    from recorder.picture import RenderOptions, render_log
    from world.map.map import Map

    log = Path(args.log)
    if not log.is_file():
        raise UsageError(f"render: no log at {log}")
    if not Path(args.map).is_file():
        raise UsageError(f"render: --map: no map at {args.map}")
    if args.size < 16:
        raise UsageError(f"render: --size must be at least 16 pixels, found {args.size}")
    options = RenderOptions(args.start, args.duration, args.fps, args.follow, args.size, args.span)
    town = Map.from_file(args.map)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TruncatedLogWarning)
        info = render_log(log, town, args.output, options)
    for warning in caught:
        if issubclass(warning.category, TruncatedLogWarning):
            print(f"lockstep: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    first, last = info.pictures[0], info.pictures[-1]
    print(
        f"wrote {info.path}: {len(info.pictures)} picture(s) of {info.width}x{info.height} px "
        f"at {info.scale:.3g} px/m, {first.time:g} s to {last.time:g} s "
        f"(frames {first.frame} to {last.frame})"
        + (f", {info.drawings} debug drawings" if info.drawings else "")
    )
    return 0
