"""`lockstep log dump|build|export`: offline tools for CARLA recorder logs. Their options
are spelled as the queries' (`--order`, `--strict`: runner/commands/log_options.py)."""

from __future__ import annotations

import argparse
import sys

from runner.commands.log_options import add_order, add_strict


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("log", help="dump, build and export CARLA recorder logs")
    tools = parser.add_subparsers(dest="log_command", metavar="TOOL", required=True)

    dump = tools.add_parser("dump", help="a log as JSON (the golden SPEC.json schema)")
    dump.add_argument("log", help="the CARLA log to read")
    dump.add_argument("-o", "--output", help="write the JSON here instead of stdout")
    add_order(dump)
    add_strict(dump)
    dump.set_defaults(func=_dump)

    build = tools.add_parser("build", help="a log from JSON (the golden SPEC.json schema)")
    build.add_argument("spec", help="the JSON spec to read")
    build.add_argument("output", help="the log to write")
    add_order(build)
    build.set_defaults(func=_build)

    export = tools.add_parser("export", help="actor poses as CSV, one row per actor per frame")
    export.add_argument("log", help="the CARLA log to read")
    export.add_argument("--csv", required=True, help="the CSV file to write")
    add_strict(export)
    export.set_defaults(func=_export)


def _dump(args: argparse.Namespace) -> int:
    from recorder.json_form.codec import dump_json, dump_log

    text = dump_json(dump_log(_reader(args), library=args.order))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _build(args: argparse.Namespace) -> int:
    from recorder.json_form.codec import build_log, load_spec

    build_log(load_spec(args.spec), args.output, library=args.order)
    return 0


def _export(args: argparse.Namespace) -> int:
    from recorder.logfile.access import RecordedLog

    rows = RecordedLog(_reader(args, "auto")).export_csv(args.csv)
    print(f"{rows} rows written to {args.csv}")
    return 0


def _reader(args: argparse.Namespace, variant: str = "ue4"):
    """The log read whole, or without --strict up to its last complete frame with a warning
    line when it ends inside one."""
    from recorder.logfile.reader import LogReader

    reader = LogReader(args.log, lenient=not args.strict, variant=variant)
    if reader.end < len(reader.data):
        print(
            f"lockstep: warning: {reader.name}: the log ends inside a frame (bytes "
            f"{reader.end} to {len(reader.data)}); read up to its last complete frame, "
            f"which ends at byte {reader.end} (--strict: an error)",
            file=sys.stderr,
        )
    return reader
