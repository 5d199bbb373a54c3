"""`lockstep view`: a run directory or a log as a web page; `lockstep export`: a log for
Foxglove (MCAP) or Rerun (runner/view/, docs/view.md)."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from runner.commands.log_options import truncation_warnings
from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `view`."""
    p = subparsers.add_parser(
        "view", help="see a run directory or a log in a web page (two: overlaid and compared)"
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR|LOG",
                   help="a run directory or a CARLA log; a second one is overlaid")  # fmt: skip
    p.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (8000; 0: any)")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="write the page and its data into this folder instead of serving it "
                        "(it opens from disk)")  # fmt: skip
    p.add_argument("--map", default=None,
                   help="the OpenDRIVE map of a lone log (default: the header's <map name>.xodr "
                        "beside it, in $LOCKSTEP_MAPS or among lockstep's maps)")  # fmt: skip
    p.set_defaults(func=_view)

    e = subparsers.add_parser("export", help="write a log for Foxglove (MCAP) or Rerun (.rrd)")
    e.add_argument("log", help="a CARLA log (in a run directory: with its route, infractions)")
    e.add_argument("--mcap", default=None, help="the MCAP file to write (foxglove-sdk)")
    e.add_argument("--rerun", default=None, help="the Rerun .rrd file to write (rerun-sdk)")
    e.add_argument("--map", default=None,
                   help="the OpenDRIVE map of a lone log (default: as view finds it)")  # fmt: skip
    e.set_defaults(func=_export)


def _view(args: argparse.Namespace) -> int:
    from recorder.errors import TruncatedLogWarning
    from runner.view.server import serve
    from runner.view.site import Site
    from runner.view.sources import open_sources
    from runner.view.static_site import write_static

    if len(args.runs) > 2:
        raise UsageError(f"view: give one or two runs, found {len(args.runs)}")
    if not 0 <= args.port < 65536:
        raise UsageError(f"view: --port must be 0 to 65535, found {args.port}")
    site = Site(open_sources(args.runs, args.map))
    if args.output is None:
        warnings.simplefilter("ignore", TruncatedLogWarning)  # the page shows it
        for key in site.maps:  # built (or loaded from the map store) before the address
            site.map_bytes(key)  # is printed, so the page's first picture waits for none
        serve(site, args.port)
        return 0
    with truncation_warnings():
        count = write_static(site, Path(args.output))
    print(f"wrote {count} files into {args.output}: open {Path(args.output) / 'index.html'}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from runner.view.export_frames import route_for_log

    if args.mcap is None and args.rerun is None:
        raise UsageError("export: say what to write: --mcap OUT.mcap and/or --rerun OUT.rrd")
    log = Path(args.log)
    if not log.is_file():
        raise UsageError(f"export: no log at {log}")
    for option, out in (("--mcap", args.mcap), ("--rerun", args.rerun)):
        if out is not None and not Path(out).parent.is_dir():
            raise UsageError(f"export: {option}: no folder {Path(out).parent} to write {out} in")
    route = route_for_log(log, args.map)
    if args.mcap is not None:
        from runner.view.mcap_export import export_mcap

        info = export_mcap(route, Path(args.mcap))
        print(f"wrote {info.path}: {info.frames} frames, {info.actors} actors")
    if args.rerun is not None:
        from runner.view.rerun_export import export_rerun

        info = export_rerun(route, Path(args.rerun))
        print(f"wrote {info.path}: {info.frames} frames, {info.actors} actors")
    return 0
