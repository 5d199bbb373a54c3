"""Replays a leaderboard-golden `spec.json` (format leaderboard-golden-spec/1) through the
evaluation session and the merge, in the leaderboard evaluator's order, and returns every
results file the leaderboard left: results.json, results.session-N.json after each
earlier process, partial-N.results.json for each part of a merge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.scoring.errors import SpecError
from runner.scoring.events import TrafficEvent, TrafficEventType
from runner.scoring.manager import ScoredRoute
from runner.scoring.merge import merge_results
from runner.scoring.results_file import MemoryResultsFile
from runner.scoring.route_order import route_name
from runner.scoring.session import EvaluationSession, Failure

SPEC_FORMAT = "leaderboard-golden-spec/1"
# The failures after which the agent counts as set up (its sensors are saved).
AGENT_SET_UP = {
    Failure.NONE,
    Failure.AGENT_RUNTIME,
    Failure.SIMULATION_RUNTIME,
    Failure.STOP_FAILED,
}


class SpecCriterion:
    """A criterion whose events come from the spec."""

    def __init__(self, name: str, events: list[TrafficEvent]) -> None:
        self.name = name
        self.events = events


def _criteria(run: dict[str, Any], where: str) -> list[SpecCriterion]:
    criteria = []
    for c, criterion in enumerate(run.get("criteria", [])):
        events = []
        for e, event in enumerate(criterion["events"]):
            try:
                kind = TrafficEventType[event["type"]]
            except KeyError:
                raise SpecError(
                    f"{where}.criteria[{c}].events[{e}]: unknown event type {event['type']!r}"
                ) from None
            events.append(TrafficEvent(kind, event["frame"], event["message"], event["dict"]))
        criteria.append(SpecCriterion(criterion["name"], events))
    return criteria


def _evaluate(
    spec: dict[str, Any],
    route_ids: Sequence[str],
    sessions: Sequence[dict[str, Any]],
    store: MemoryResultsFile,
    where: str,
) -> list[bytes]:
    """Run the evaluator processes of `sessions` against `store`; the file after each."""
    points = {route["id"]: route["points"] for route in spec["routes"]}
    names = [route_name(route_id) for route_id in route_ids]
    snapshots = []
    for s, session_spec in enumerate(sessions):
        here = f"{where}.sessions[{s}]"
        session = EvaluationSession(store, names, spec["repetitions"], session_spec["resume"])
        runs = session_spec["runs"]
        ran = 0
        while not (session_spec["interrupted"] and ran == len(runs)):
            entry = session.next_route()
            if entry is None:
                break
            if ran == len(runs):
                raise SpecError(f"{here}: the evaluator takes {entry.route_id} next; no run left")
            run = runs[ran]
            run_where = f"{here}.runs[{ran}]"
            if (run["index"], run["route_id"]) != (entry.index, entry.route_id):
                raise SpecError(
                    f"{run_where}: expected index {entry.index} route {entry.route_id}, "
                    f"found {run['index']} {run['route_id']}"
                )
            failure = Failure(run["failure"])
            if failure is not Failure.SCENARIO_LOAD:
                route_key = entry.name.removeprefix("RouteScenario_")
                route = ScoredRoute(points[route_key], _criteria(run, run_where))
                route.timed_out = bool(run["route_timeout"])
                session.route_loaded(route)
            if failure in AGENT_SET_UP:
                session.agent_ready(spec["sensors"])
            session.route_finished(entry, failure, run["duration_system"], run["duration_game"])
            ran += 1
        if ran != len(runs):
            raise SpecError(f"{here}: {len(runs) - ran} run(s) listed after the evaluation ended")
        if not session_spec["interrupted"]:
            session.finish()
        snapshots.append(store.raw)
    return snapshots


def results_from_spec(spec: dict[str, Any]) -> dict[str, bytes]:
    """File name -> bytes of every results file the spec's evaluation leaves."""
    if spec.get("format") != SPEC_FORMAT:
        raise SpecError(f"spec: expected format {SPEC_FORMAT!r}, found {spec.get('format')!r}")
    files: dict[str, bytes] = {}
    all_ids = [route["id"] for route in spec["routes"]]
    if spec["mode"] == "evaluate":
        snapshots = _evaluate(spec, all_ids, spec["sessions"], MemoryResultsFile(), "spec")
        for n, raw in enumerate(snapshots[:-1], start=1):
            files[f"results.session-{n}.json"] = raw
        files["results.json"] = snapshots[-1]
    elif spec["mode"] == "merge":
        parts = []
        for p, partial in enumerate(spec["partials"], start=1):
            store = MemoryResultsFile(f"partial-{p}.results.json")
            where = f"spec.partials[{p - 1}]"
            _evaluate(spec, partial["route_ids"], partial["sessions"], store, where)
            files[store.name] = store.raw
            parts.append(store)
        chosen = [parts[n - 1] for n in spec["merge_order"]]
        out = MemoryResultsFile("results.json")
        merge_results([part.load() for part in chosen], [part.name for part in chosen], out)
        files["results.json"] = out.raw
    else:
        raise SpecError(f"spec.mode: expected 'evaluate' or 'merge', found {spec['mode']!r}")
    return files
