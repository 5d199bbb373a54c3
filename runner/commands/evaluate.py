"""`lockstep run CONFIG` (evaluate a config into a run directory), `lockstep validate CONFIG`
(every problem a run would meet, before any route starts) and `lockstep check RUN_DIR`.

`lockstep run` exits 0 when every route ran to its end (whatever its score), 1 when a
route failed for the agent or the simulation (each failure's traceback is printed once
and kept in results.json, the route record's `meta.exception`), 2 for bad input (the
config, its maps, route files or agent: nothing runs) and 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

__all__ = [
    "ProgressBar",
    "register",
    "run_config",
    "scheduler_for",
    "score_table",
    "validated_config",
]

EXIT_FAILED = 1  # a route failed for the agent or the simulation
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

BAR_WIDTH = 24


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="evaluate an agent on the routes of a YAML config")
    run.add_argument("config", help="the evaluation config (YAML)")
    run.add_argument("-o", "--output", help="the run directory (default: the config's output)")
    run.add_argument(
        "--resume", action="store_true", help="go on from the run directory's results.json"
    )
    run.add_argument("--routes-subset", help='route ids to run, e.g. "0-2,5"')
    run.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="local worker processes (default: the number of cores; 1 runs in this process)",
    )
    run.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the routes on a Ray cluster (ray.init address, e.g. auto or "
        "ray://head:10001); without ADDRESS a local Ray instance",
    )
    run.set_defaults(func=_run)

    validate = subparsers.add_parser(
        "validate",
        help="check a config, its maps, routes, scenarios and agent before running it",
    )
    validate.add_argument("config", help="the evaluation config (YAML)")
    validate.add_argument("--routes-subset", help='route ids to check, e.g. "0-2,5"')
    validate.set_defaults(func=_validate)

    check = subparsers.add_parser(
        "check", help="re-simulate a run directory and compare its logs byte for byte"
    )
    check.add_argument("run_dir", help="a run directory written by lockstep run")
    check.add_argument(
        "--agent", action="store_true", help="re-run the real agent, not the logged controls"
    )
    check.set_defaults(func=_check)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


class ProgressBar:
    """One line over all the evaluation's tasks on a terminal: done, running, failed, ETA.
    Nothing when the stream is not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self._shown = False

    def __call__(self, counts) -> None:
        if not self.live:
            return
        total = max(counts.total, 1)
        filled = int(BAR_WIDTH * counts.done / total)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        eta = counts.eta_seconds()
        eta_text = "--" if eta is None else _duration(eta)
        self.stream.write(
            f"\rtasks [{bar}] {counts.done}/{counts.total} done, {counts.running} running, "
            f"{counts.failed} failed, ETA {eta_text}   "
        )
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self.live and self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def score_table(records: list[dict], global_record: dict | None) -> str:
    """The results as a text table: one row per route repetition (its infractions by
    results.json's names, with their counts), then the means."""
    head = f"{'route':<28} {'status':<34} {'route %':>8} {'penalty':>8} {'score':>8}  infractions"
    lines = [head, "-" * len(head)]
    for r in records:
        s = r["scores"]
        lines.append(
            f"{r['route_id']:<28} {r['status']:<34} {s['score_route']:>8.2f} "
            f"{s['score_penalty']:>8.3f} {s['score_composed']:>8.2f}  {_infractions(r)}"
        )
    if global_record:
        m = global_record["scores_mean"]
        lines.append("-" * len(head))
        lines.append(
            f"{'mean':<28} {global_record['status']:<34} {m['score_route']:>8.2f} "
            f"{m['score_penalty']:>8.3f} {m['score_composed']:>8.2f}"
        )
    return "\n".join(lines)


def _infractions(record: dict) -> str:
    """`red_light 2, collisions_pedestrian 1`: each kind of infraction the route had."""
    counts = [(k, len(v)) for k, v in (record.get("infractions") or {}).items() if v]
    return ", ".join(f"{kind} {count}" for kind, count in counts) or "-"


def validated_config(path: str | Path, routes_subset: str | None = None):
    """The config at `path`, checked whole (runner.validation); its warnings printed. None
    when it has errors, each printed on its own line."""
    from runner.config import load_config
    from runner.validation import validate

    config = load_config(path, routes_subset=routes_subset)
    found = validate(config)
    for line in found.warnings:
        print(f"lockstep: warning: {line}", file=sys.stderr)
    for line in found.errors:
        print(f"lockstep: error: {line}", file=sys.stderr)
    return config if found.ok else None


def _validate(args: argparse.Namespace) -> int:
    config = validated_config(args.config, args.routes_subset)
    if config is None:
        return EXIT_BAD_INPUT
    maps = sorted({r.map_path.name for r in config.routes})
    print(
        f"{config.path}: valid: {len(config.routes)} routes x {config.repetitions} "
        f"repetitions on {', '.join(maps)}, agent {config.agent_entry}"
    )
    return 0


def _run(args: argparse.Namespace) -> int:
    import dataclasses

    config = validated_config(args.config, args.routes_subset)
    if config is None:
        return EXIT_BAD_INPUT
    out_dir = Path(args.output).resolve() if args.output else config.output
    if out_dir != config.output:  # the manifest keeps the run directory actually used
        data = {**config.data, "output": str(out_dir)}
        config = dataclasses.replace(config, output=out_dir, data=data)
    again = f"lockstep run {args.config} -o {out_dir} --resume"
    return run_config(config, out_dir, scheduler_for(args), resume=args.resume, again=again)


def run_config(config, out_dir: Path, scheduler, *, resume: bool, again: str) -> int:
    """Evaluates a validated config into `out_dir` with `scheduler`, prints the failures
    and the score table; the exit status (module docstring). `again` is the command that
    resumes it, said when interrupted."""
    from runner.execution.driver import evaluate
    from runner.statistics import Failure, ResultsFile

    progress = ProgressBar(sys.stderr)
    began = time.perf_counter()
    try:
        results = evaluate(
            config, out_dir, resume=resume, scheduler=scheduler, on_progress=progress
        )
    except KeyboardInterrupt:
        progress.close()  # the line ends before the message
        print(
            f"lockstep: interrupted; what finished is kept in {out_dir}: "
            f"`{again}` goes on from there",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        progress.close()
    wall = time.perf_counter() - began
    failed = [r for r in results if r.failure is not Failure.NONE]
    for result in results:
        if result.message:
            print(f"{result.route_id}: {result.message}", file=sys.stderr)
        if result.failure is not Failure.NONE and result.traceback:
            print(result.traceback.rstrip("\n"), file=sys.stderr)
    data = ResultsFile(config.results_path(out_dir)).load()
    checkpoint = data.get("_checkpoint", {})
    print(score_table(checkpoint.get("records", []), checkpoint.get("global_record")))
    print(f"run directory: {out_dir}")
    if results:
        print(f"{len(results)} route repetitions in {wall:.1f} s ({_where(scheduler)})")
    progress_done, total = checkpoint.get("progress") or [0, 0]
    if failed or data.get("entry_status") == "Crashed" or progress_done < total:
        return EXIT_FAILED
    return 0


def scheduler_for(args: argparse.Namespace):
    """The scheduler the flags ask for: Ray, a local pool, or this process."""
    from runner.execution.scheduling import InlineScheduler, ProcessPoolScheduler

    if args.ray is not None:
        if args.workers is not None:
            from runner.errors import UsageError

            raise UsageError("--ray and --workers: choose one (Ray places the tasks itself)")
        from runner.execution.ray_scheduler import RayScheduler

        return RayScheduler(args.ray or None)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    return InlineScheduler() if workers == 1 else ProcessPoolScheduler(workers)


def _where(scheduler) -> str:
    workers = getattr(scheduler, "workers", None)
    if workers is not None:
        return f"{workers} worker processes"
    if getattr(scheduler, "address", 0) != 0:
        return f"Ray at {scheduler.address}" if scheduler.address else "local Ray"
    return "in this process"


def _check(args: argparse.Namespace) -> int:
    from runner.check import check_run

    checks = check_run(args.run_dir, agent=args.agent)
    for check in checks:
        print(check)
    same = all(c.divergence is None for c in checks)
    print("identical" if same else "DIVERGED")
    return 0 if same else 1
