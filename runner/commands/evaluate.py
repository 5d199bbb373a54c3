"""`lockstep run CONFIG` (evaluate a config into a run directory) and `lockstep check RUN_DIR`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

__all__ = ["ProgressBar", "register", "score_table"]

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


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def score_table(records: list[dict], global_record: dict | None) -> str:
    """The results as a text table: one row per route repetition, then the means."""
    head = f"{'route':<28} {'status':<34} {'route %':>8} {'penalty':>8} {'score':>8}"
    lines = [head, "-" * len(head)]
    for r in records:
        s = r["scores"]
        lines.append(
            f"{r['route_id']:<28} {r['status']:<34} {s['score_route']:>8.2f} "
            f"{s['score_penalty']:>8.3f} {s['score_composed']:>8.2f}"
        )
    if global_record:
        m = global_record["scores_mean"]
        lines.append("-" * len(head))
        lines.append(
            f"{'mean':<28} {global_record['status']:<34} {m['score_route']:>8.2f} "
            f"{m['score_penalty']:>8.3f} {m['score_composed']:>8.2f}"
        )
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    from runner.config import load_config
    from runner.execution.driver import evaluate
    from runner.statistics import ResultsFile

    config = load_config(args.config, routes_subset=args.routes_subset)
    out_dir = Path(args.output).resolve() if args.output else config.output
    scheduler = _scheduler(args)
    progress = ProgressBar(sys.stderr)
    began = time.perf_counter()
    try:
        results = evaluate(
            config, out_dir, resume=args.resume, scheduler=scheduler, on_progress=progress
        )
    finally:
        progress.close()
    wall = time.perf_counter() - began
    for result in results:
        if result.message:
            print(f"{result.route_id}: {result.message}", file=sys.stderr)
    data = ResultsFile(out_dir / "results.json").load()
    checkpoint = data.get("_checkpoint", {})
    print(score_table(checkpoint.get("records", []), checkpoint.get("global_record")))
    print(f"run directory: {out_dir}")
    if results:
        print(f"{len(results)} route repetitions in {wall:.1f} s ({_where(scheduler)})")
    return 0


def _scheduler(args: argparse.Namespace):
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
