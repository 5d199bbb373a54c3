"""`lockstep log dump|build|export`: offline tools for CARLA recorder logs."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("log", help="dump, build and export CARLA recorder logs")
    tools = parser.add_subparsers(dest="log_command", metavar="TOOL", required=True)

    dump = tools.add_parser("dump", help="a log as JSON (the golden SPEC.json schema)")
    dump.add_argument("log", help="the CARLA log to read")
    dump.add_argument("-o", "--output", help="write the JSON here instead of stdout")
    dump.add_argument("--libstdcxx", action="store_true", help=_LIBSTDCXX_HELP)
    dump.add_argument("--lenient", action="store_true", help="read up to the last whole frame")
    dump.set_defaults(func=_dump)

    build = tools.add_parser("build", help="a log from JSON (the golden SPEC.json schema)")
    build.add_argument("spec", help="the JSON spec to read")
    build.add_argument("output", help="the log to write")
    build.add_argument("--libstdcxx", action="store_true", help=_LIBSTDCXX_HELP)
    build.set_defaults(func=_build)

    export = tools.add_parser("export", help="actor poses as CSV, one row per actor per frame")
    export.add_argument("log", help="the CARLA log to read")
    export.add_argument("--csv", required=True, help="the CSV file to write")
    export.add_argument("--lenient", action="store_true", help="read up to the last whole frame")
    export.set_defaults(func=_export)


_LIBSTDCXX_HELP = "order collisions as libstdc++'s unordered_set does (default: libc++)"


def _library(args: argparse.Namespace) -> str:
    return "libstdc++" if args.libstdcxx else "libc++"


def _dump(args: argparse.Namespace) -> int:
    from recorder.json_form.codec import dump_json, dump_log

    text = dump_json(dump_log(args.log, library=_library(args), lenient=args.lenient))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _build(args: argparse.Namespace) -> int:
    from recorder.json_form.codec import build_log, load_spec

    build_log(load_spec(args.spec), args.output, library=_library(args))
    return 0


def _export(args: argparse.Namespace) -> int:
    from recorder.logfile.access import open_log

    rows = open_log(args.log, lenient=args.lenient).export_csv(args.csv)
    print(f"{rows} rows written to {args.csv}")
    return 0
