"""`lockstep run CONFIG` (evaluate a config into a run directory) and `lockstep check RUN_DIR`."""

from __future__ import annotations

import argparse
import sys
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
    run.set_defaults(func=_run)

    check = subparsers.add_parser(
        "check", help="re-simulate a run directory and compare its logs byte for byte"
    )
    check.add_argument("run_dir", help="a run directory written by lockstep run")
    check.add_argument(
        "--agent", action="store_true", help="re-run the real agent, not the logged controls"
    )
    check.set_defaults(func=_check)


class ProgressBar:
    """One line per route on a terminal: ticks, simulated time, route completion so far."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self._route: str | None = None

    def __call__(self, route_id: str, frame: int, seconds: float, completion: float) -> None:
        if not self.live or frame % 10:
            return
        filled = int(BAR_WIDTH * min(max(completion, 0.0), 100.0) / 100.0)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(
            f"\r{route_id} [{bar}] {completion:5.1f}%  {frame} ticks  {seconds:7.1f} s sim"
        )
        self.stream.flush()
        self._route = route_id

    def route_done(self, outcome) -> None:
        if self.live and self._route is not None:
            self.stream.write("\n")
            self._route = None


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
    from runner.evaluation import evaluate
    from runner.statistics import ResultsFile

    config = load_config(args.config, routes_subset=args.routes_subset)
    out_dir = Path(args.output).resolve() if args.output else config.output
    progress = ProgressBar(sys.stderr)
    outcomes = evaluate(
        config, out_dir, resume=args.resume, progress=progress, on_route=progress.route_done
    )
    for outcome in outcomes:
        if outcome.message:
            print(f"{outcome.route_id}: {outcome.message}", file=sys.stderr)
    data = ResultsFile(out_dir / "results.json").load()
    checkpoint = data.get("_checkpoint", {})
    print(score_table(checkpoint.get("records", []), checkpoint.get("global_record")))
    print(f"run directory: {out_dir}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from runner.check import check_run

    checks = check_run(args.run_dir, agent=args.agent)
    for check in checks:
        print(check)
    same = all(c.divergence is None for c in checks)
    print("identical" if same else "DIVERGED")
    return 0 if same else 1
