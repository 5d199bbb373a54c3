"""`lockstep exec SCRIPT [ARGS...]`: runs a CARLA client script on an in-process world."""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `exec`."""
    parser = subparsers.add_parser(
        "exec",
        help="run a CARLA Python client script with `import carla` bound to lockstep",
        description=(
            "Runs SCRIPT as __main__ with `import carla` giving lockstep's namespace "
            "(runner.carla): carla.Client works on an in-process world. Maps are found by "
            "name in the --maps folders, then $LOCKSTEP_MAPS, then lockstep's own towns."
        ),
    )
    parser.add_argument(
        "--maps", action="append", default=[], metavar="DIR", help="a folder of <Town>.xodr"
    )
    parser.add_argument(
        "--map", default=None, help="the map a first get_world() loads (town_small)"
    )
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    parser.set_defaults(func=_exec)


def _exec(args: argparse.Namespace) -> int:
    from runner.carla.binding import bind_carla
    from runner.carla.client import configure

    script = Path(args.script)
    if not script.is_file():
        raise UsageError(f"exec: {script}: no such script")
    for folder in args.maps:
        if not Path(folder).is_dir():
            raise UsageError(f"exec: --maps {folder}: not a folder")
    configure(args.maps, args.map)
    bind_carla()
    sys.argv = [str(script), *args.args]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return int(code or 0)
        print(code, file=sys.stderr)
        return 1
    return 0
