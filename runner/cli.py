"""The `lockstep` command line: one parser, commands registered by runner.commands modules."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from runner.commands import COMMAND_MODULES
from world.errors import LockstepError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lockstep",
        description="Deterministic driving-scenario simulator and evaluation runner.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"runner.commands.{name}").register(subparsers)
    return parser


class _Version(argparse.Action):
    """`--version`: the installed version, looked up only when asked (importlib.metadata
    scans every installed package, a cost every other command would pay)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"lockstep {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lockstep")
    except PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; a LockstepError or OSError prints one line and exits 2.

    Called for the process's own command line (`argv` None: the console script, `python -m
    runner.cli`), it freezes the garbage collector's objects once the command is done: the
    interpreter's exit then skips walking them all again, about 0.4 s of every `lockstep run`
    with the compiled kernels loaded. Callers passing `argv` (tests, scripts) are untouched."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (LockstepError, OSError) as exc:
        print(f"lockstep: error: {_said(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if argv is None:
            gc.freeze()


def _said(exc: Exception) -> str:
    """An error's line: an OSError about a file as `FILE: what went wrong` (not Python's
    `[Errno 2] ...`), any other error's own message."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


if __name__ == "__main__":
    sys.exit(main())
