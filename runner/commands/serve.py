"""`lockstep serve`: a CARLA 0.9.16 server that CARLA's own client connects to."""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path

from runner.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Adds `serve`."""
    parser = subparsers.add_parser(
        "serve",
        help="answer CARLA 0.9.16's client (pip install carla==0.9.16) on a lockstep world",
        description=(
            "Serves CARLA's RPC protocol on PORT and its sensor streams on PORT + 1, so "
            "scripts written for CARLA connect with carla.Client(HOST, PORT) unchanged. "
            "Asynchronous at start, as CARLA's server; --sync starts synchronous (nothing "
            "steps until a client ticks: the same script gives the same log)."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=2000, help="the RPC port (2000)")
    parser.add_argument(
        "--map", default=None, help="the first map: an OpenDRIVE file or a map name (town_small)"
    )
    parser.add_argument(
        "--maps",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of <Town>.xodr that load_world finds by name (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of lockstep's own choices (0)")
    parser.add_argument(
        "--sync", action="store_true", help="start in synchronous mode with a fixed step"
    )
    parser.add_argument(
        "--delta", type=float, default=None, help="the fixed step of --sync, seconds (0.05)"
    )
    parser.add_argument(
        "--traffic-manager",
        choices=("carla", "lockstep"),
        default="carla",
        help="whose traffic manager drives set_autopilot: CARLA's own, in the client "
        "(default), or lockstep's, served on --tm-port",
    )
    parser.add_argument(
        "--tm-port", type=int, default=8000, help="lockstep's traffic manager's port (8000)"
    )
    parser.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    try:
        ipaddress.IPv4Address(args.host)
    except ValueError as exc:
        raise UsageError(f"serve: --host: expected an IPv4 address, found {args.host!r}") from exc
    if not 1 <= args.port <= 65534:
        raise UsageError(f"serve: --port: expected 1..65534, found {args.port}")
    for folder in args.maps:
        if not Path(folder).is_dir():
            raise UsageError(f"serve: --maps {folder}: not a folder")
    if not 1 <= args.tm_port <= 65535 or args.tm_port in (args.port, args.port + 1):
        raise UsageError(f"serve: --tm-port: expected a free port, found {args.tm_port}")
    if args.delta is not None and not 0.0 < args.delta <= 1.0:
        raise UsageError(f"serve: --delta: expected seconds in (0, 1], found {args.delta}")
    from runner.serve.server import ServeOptions, serve

    return serve(
        ServeOptions(
            host=args.host,
            port=args.port,
            map=args.map,
            maps=args.maps,
            seed=args.seed,
            synchronous=args.sync,
            delta=args.delta,
            traffic_manager=args.traffic_manager,
            tm_port=args.tm_port,
        )
    )
