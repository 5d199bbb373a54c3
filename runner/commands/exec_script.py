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
            "name in the --maps folders, then $LOCKSTEP_MAPS, then lockstep's own towns. "
            "An asynchronous world advances one step each time the script waits for it "
            "(world.wait_for_tick) and, while the script sleeps (time.sleep) or waits for a "
            "frame (pygame's Clock.tick(fps)), the steps that fit in the wait; never on a "
            "clock, so a script gives the same log every run."
        ),
    )
    parser.add_argument(
        "--maps", action="append", default=[], metavar="DIR", help="a folder of <Town>.xodr"
    )
    parser.add_argument(
        "--map",
        default=None,
        help="the map a first get_world() loads: a name (town_small) or a path to a .xodr",
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=None,
        metavar="N",
        help="interrupt the script as Ctrl+C would when a world reaches frame N (for scripts "
        "that loop until interrupted, as CARLA's examples do)",
    )
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    parser.set_defaults(func=_exec)


def _exec(args: argparse.Namespace) -> int:
    from runner.carla import script_waits
    from runner.carla.binding import bind_carla
    from runner.carla.client import configure

    script = Path(args.script)
    if not script.is_file():
        raise UsageError(f"exec: {script}: no such script")
    for folder in args.maps:
        if not Path(folder).is_dir():
            raise UsageError(f"exec: --maps {folder}: not a folder")
    if args.frames is not None and args.frames < 1:
        raise UsageError(f"exec: --frames must be >= 1, found {args.frames}")
    maps, default_map = _map_path(args.maps, args.map)
    configure(maps, default_map, args.frames)
    bind_carla()
    sys.argv = [str(script), *args.args]
    sys.path.insert(0, str(script.resolve().parent))
    undo_waits = script_waits.install()
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return int(code or 0)
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("lockstep exec: interrupted", file=sys.stderr)
        return 130
    finally:
        undo_waits()
    return 0


def _map_path(folders: list[str], name: str | None) -> tuple[list[str], str | None]:
    """--map given as a path to an OpenDRIVE file (it ends in .xodr): its folder searched
    first, its stem the name (as CARLA's client names maps); a name (town_small,
    /Game/Carla/Maps/Town01) is left as it is."""
    if name is None or not name.endswith(".xodr"):
        return folders, name
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"exec: --map {name}: no such OpenDRIVE file")
    return [str(path.parent), *folders], path.stem
