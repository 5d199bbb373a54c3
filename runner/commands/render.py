"""`lockstep render`: a recorded run drawn from above into a GIF or a PNG
(recorder/picture/, docs/render.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from runner.commands.log_options import truncation_warnings
from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `render`."""
    p = subparsers.add_parser(
        "render", help="draw a log from above into a GIF or a PNG, or film it with a camera"
    )
    p.add_argument("log", help="the log to draw")
    p.add_argument(
        "--map",
        help="the OpenDRIVE (.xodr) map of the run (default: the one the run's manifest or "
        "the log's header names)",
    )
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
    p.add_argument("--camera", default=None, metavar="MOUNT",
                   help="film the replay through a camera instead: 'hero', an actor's log "
                        "id (both from behind and above), or a pose x,y,z[,pitch,yaw,roll]; "
                        "the output is .png (animated), .gif, or a folder of PNGs")  # fmt: skip
    p.add_argument("--camera-type", default="rgb",
                   choices=["rgb", "depth", "semantic_segmentation", "instance_segmentation",
                            "normals"],
                   help="the camera of --camera (rgb)")  # fmt: skip
    p.add_argument("--fov", type=float, default=90.0, help="the camera's horizontal fov (90)")
    p.set_defaults(func=_render)


def _render(args: argparse.Namespace) -> int:
    from recorder.picture import RenderOptions, render_log
    from runner.log_map import map_for_log
    from world.map.map import Map

    log = Path(args.log)
    if not log.is_file():
        raise UsageError(f"render: no log at {log}")
    if args.size < 16:
        raise UsageError(f"render: --size must be at least 16 pixels, found {args.size}")
    town = Map.from_file(map_for_log(log, args.map, "render"))
    if args.camera is not None:
        return _film(log, town, args)
    options = RenderOptions(args.start, args.duration, args.fps, args.follow, args.size, args.span)
    with truncation_warnings():
        info = render_log(log, town, args.output, options)
    first, last = info.pictures[0], info.pictures[-1]
    print(
        f"wrote {info.path}: {len(info.pictures)} picture(s) of {info.width}x{info.height} px "
        f"at {info.scale:.3g} px/m, {first.time:g} s to {last.time:g} s "
        f"(frames {first.frame} to {last.frame})"
        + (f", {info.drawings} debug drawings" if info.drawings else "")
    )
    return 0


def _film(log: Path, town, args: argparse.Namespace) -> int:
    """`render --camera`: the replay through a camera (recorder/replay/camera_video.py)."""
    from recorder.replay.camera_video import CameraOptions, render_camera
    from world import World

    width = args.size
    height = max(16, round(args.size * 9 / 16))
    if not 0.0 < args.fov < 180.0:
        raise UsageError(f"render: --fov must be in (0, 180) degrees, found {args.fov}")
    options = CameraOptions(
        mount=args.camera,
        kind=args.camera_type,
        width=width,
        height=height,
        fov=args.fov,
        fps=args.fps,
        start=args.start or 0.0,
        duration=args.duration,
    )
    video = render_camera(log, World(town), args.output, options)
    print(
        f"wrote {video.path}: {video.pictures} picture(s) of {video.width}x{video.height} px "
        f"through a {args.camera_type} camera on {args.camera}, {video.first_time:g} s to "
        f"{video.last_time:g} s"
    )
    return 0
