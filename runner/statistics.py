"""Leaderboard scoring: route and global statistics and results.json, byte for byte as the
CARLA leaderboard's master (aec8131) computes and writes them. docs/scoring.md explains
what is scored and how.

API (what the runner calls; the pieces live in runner/scoring/):

    session = EvaluationSession(ResultsFile(run_dir / "results.json"),
                                [route_name(r.id) for r in routes], repetitions,
                                resume=args.resume)
    while (entry := session.next_route()) is not None:   # RouteEntry: index, name,
        ...load the world and the route...               #   repetition, route_id
        route = ScoredRoute(dense_points, criteria)      # runner.criteria.RouteCriteria
        session.route_loaded(route)                      # unless loading failed
        ...set the agent up, validate its sensors...
        session.agent_ready(sensor_icons)                # e.g. ["carla_gnss", "carla_imu"]
        ...run: criteria.update(world, ego) each tick until criteria.stop_reason()...
        criteria.terminate()
        route.timed_out = criteria.timeout.timed_out
        session.route_finished(entry, Failure.NONE, wall_seconds, game_seconds)
    session.finish()                                     # global record, entry status

`criteria` is anything that iterates criteria with `.events: list[TrafficEvent]`, in the
leaderboard's order (runner.criteria.RouteCriteria: the route's, then any scenario's); it
is read only when the route is scored. `Failure` names how a route ended from outside
its criteria (agent crashed, simulation crashed, ...); Failure.SCENARIO_LOAD skips
route_loaded. A crash failure ends the evaluation:
next_route() then returns None. The file is rewritten after every route, so a killed run
resumes with `resume=True` exactly where the leaderboard would.

    merge_result_files([part1, part2], merged)           # partial evaluations -> one file
    results_from_spec(spec)                              # a golden spec.json -> file bytes
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from runner.scoring.events import TrafficEvent, TrafficEventType
from runner.scoring.golden_spec import results_from_spec
from runner.scoring.manager import ScoredRoute, StatisticsManager
from runner.scoring.merge import merge_results
from runner.scoring.results_file import (
    MemoryResultsFile,
    ResultsFile,
    decode_results,
    encode_results,
)
from runner.scoring.route_length import route_length
from runner.scoring.route_order import RouteEntry, RouteOrder, route_name
from runner.scoring.session import EvaluationSession, Failure

__all__ = [
    "EvaluationSession",
    "Failure",
    "MemoryResultsFile",
    "ResultsFile",
    "RouteEntry",
    "RouteOrder",
    "ScoredRoute",
    "StatisticsManager",
    "TrafficEvent",
    "TrafficEventType",
    "decode_results",
    "encode_results",
    "merge_result_files",
    "merge_results",
    "results_from_spec",
    "route_length",
    "route_name",
]


def merge_result_files(
    parts: Sequence[str | os.PathLike[str]], merged: str | os.PathLike[str]
) -> str:
    """Merge the results files `parts` (in this order) into the file `merged`. Returns
    the entry's Invalid reason, "" when valid, "incomplete" when a part had not finished."""
    files = [ResultsFile(path) for path in parts]
    return merge_results([f.load() for f in files], [f.name for f in files], ResultsFile(merged))
