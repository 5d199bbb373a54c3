"""`lockstep map generate` (write a seeded town) and `lockstep map info` (describe any map)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runner.errors import RunnerError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `map generate` and `map info`."""
    parser = subparsers.add_parser("map", help="generate towns and describe OpenDRIVE maps")
    commands = parser.add_subparsers(dest="map_command", metavar="MAP_COMMAND", required=True)

    generate = commands.add_parser("generate", help="write a seeded town as OpenDRIVE")
    generate.add_argument(
        "--preset", help="a committed town's parameters (town_small, ...); overrides the rest"
    )
    generate.add_argument("--seed", type=int, default=0, help="seed of every choice (0)")
    generate.add_argument("--blocks", default="2x2", help="blocks across x and y, WxH (2x2)")
    generate.add_argument("--block-size", type=float, default=100.0, help="block side, m (100)")
    generate.add_argument("--lanes", default="1", help="lanes each way: N or MIN-MAX (1)")
    generate.add_argument("--curves", action="store_true", help="round the outer corners")
    generate.add_argument("--hills", action="store_true", help="give crossings heights")
    generate.add_argument("--name", default=None, help="map name in the header")
    generate.add_argument("-o", "--output", required=True, help="the .xodr file to write")
    generate.set_defaults(func=_generate)

    info = commands.add_parser("info", help="roads, lanes, junctions, signals, bounds of a map")
    info.add_argument("map", help="an OpenDRIVE (.xodr) file")
    info.set_defaults(func=_info)


def _generate(args: argparse.Namespace) -> int:
    from world.map.towngen import TOWN_PRESETS, TownSpec, render_town

    if args.preset is not None:
        if args.preset not in TOWN_PRESETS:
            known = ", ".join(sorted(TOWN_PRESETS))
            raise RunnerError(
                f"map generate: --preset: expected one of {known}, found {args.preset!r}"
            )
        spec = TOWN_PRESETS[args.preset]
    else:
        blocks_x, blocks_y = _blocks(args.blocks)
        spec = TownSpec(
            seed=args.seed,
            blocks_x=blocks_x,
            blocks_y=blocks_y,
            block_size=args.block_size,
            lanes=_lanes(args.lanes),
            curves=args.curves,
            hills=args.hills,
            name=args.name if args.name is not None else Path(args.output).stem,
        )
    text = render_town(spec)
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text.encode('utf-8'))} bytes)")
    return 0


def _blocks(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise RunnerError(f"map generate: --blocks: expected WxH such as 2x2, found {text!r}")
    return int(parts[0]), int(parts[1])


def _lanes(text: str) -> int | tuple[int, int]:
    parts = text.split("-")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise RunnerError(
            f"map generate: --lanes: expected N or MIN-MAX such as 1-3, found {text!r}"
        )
    return int(parts[0]) if len(parts) == 1 else (int(parts[0]), int(parts[1]))


def _info(args: argparse.Namespace) -> int:
    from world.map.opendrive import load_opendrive
    from world.map.summary import format_summary, summarize

    document = load_opendrive(args.map)
    for repair in document.repairs:
        print(f"lockstep: warning: {args.map}: {repair}", file=sys.stderr)
    print(format_summary(summarize(document), args.map))
    return 0
