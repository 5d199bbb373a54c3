"""`lockstep replay`: play a recorder log back into a lockstep World (CARLA's
PythonAPI/examples/start_replaying.py flags), print CARLA's text and a short summary."""

from __future__ import annotations

import argparse
from pathlib import Path

from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `replay`."""
    p = subparsers.add_parser("replay", help="replay a CARLA or lockstep log into a world")
    p.add_argument("-f", "--recorder-filename", "--file", dest="file", required=True,
                   help="the log to replay")  # fmt: skip
    p.add_argument(
        "--map",
        help="the OpenDRIVE (.xodr) map to replay on (default: the one the run's manifest "
        "or the log's header names)",
    )
    p.add_argument("-s", "--start", type=float, default=0.0,
                   help="starting time, s (negative: from the end) (0)")  # fmt: skip
    p.add_argument("-d", "--duration", type=float, default=0.0,
                   help="seconds to play, 0 to the end (0)")  # fmt: skip
    p.add_argument("-x", "--time-factor", type=float, default=1.0,
                   help="replay speed, 1.0 is real time (1.0)")  # fmt: skip
    p.add_argument("-c", "--camera", type=int, default=0,
                   help="log id of the actor the spectator follows (0: none)")  # fmt: skip
    p.add_argument("-i", "--ignore-hero", action="store_true",
                   help="leave the hero vehicle to the world")  # fmt: skip
    p.add_argument("--move-spectator", action="store_true",
                   help="let the log move the spectator")  # fmt: skip
    p.add_argument("--spawn-sensors", action="store_true", help="make the log's sensors too")
    p.add_argument("--delta", type=float, default=0.05,
                   help="the world's fixed tick, s (0.05)")  # fmt: skip
    p.set_defaults(func=_replay)


def _replay(args: argparse.Namespace) -> int:
    from recorder.replay.replayer import Replayer
    from runner.log_map import map_for_log
    from world.map.map import Map
    from world.settings import WorldSettings
    from world.world import World

    log = Path(args.file)
    if not log.is_file():
        raise UsageError(f"replay: -f: no log at {log}")
    if not args.delta > 0.0:
        raise UsageError(f"replay: --delta must be > 0 s, found {args.delta}")
    world = World(Map.from_file(map_for_log(log, args.map, "replay")))
    world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=args.delta))
    replayer = Replayer()
    replayer.set_time_factor(args.time_factor)
    replayer.set_ignore_hero(args.ignore_hero)
    replayer.set_ignore_spectator(not args.move_spectator)
    text = replayer.replay_file(
        world, log, args.start, args.duration, args.camera, replay_sensors=args.spawn_sensors
    )
    print(text, end="")
    helper = replayer.helper
    ticks = 0
    while replayer.is_enabled():
        replayer.step(world)
        ticks += 1
    for logged, used in helper.unknown_blueprints().items():  # type: ignore[attr-defined]
        shown = used if used is not None else "nothing: no blueprint of its kind"
        print(f"blueprint {logged} is not in lockstep's catalogue: replayed as {shown}")
    created = len(helper.created)  # type: ignore[attr-defined]
    matched = len(helper.matched)  # type: ignore[attr-defined]
    alive = sum(1 for a in world.get_actors() if a.id in helper.replayed)  # type: ignore[attr-defined]
    print(
        f"replayed {replayer.current_time:g} s in {ticks} ticks of {args.delta:g} s: "
        f"{created} actors created ({alive} still in the world), "
        f"{matched} traffic lights and signs matched"
    )
    return 0
