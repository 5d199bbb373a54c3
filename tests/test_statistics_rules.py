"""Scoring rules worked by hand from the leaderboard master's formulas: penalty products,
statuses, means and sample standard deviations, infractions per km, resume and merge."""

from __future__ import annotations

import json
import math

import pytest

from runner.scoring.errors import ResultsFileError, ScoringError
from runner.statistics import (
    EvaluationSession,
    Failure,
    MemoryResultsFile,
    ResultsFile,
    RouteOrder,
    ScoredRoute,
    TrafficEvent,
    TrafficEventType,
    encode_results,
    merge_results,
    route_length,
    route_name,
)
from world.geometry import Location, Transform

T = TrafficEventType


class Events:
    def __init__(self, *events: TrafficEvent) -> None:
        self.events = list(events)


def completion(value: float | int) -> Events:
    return Events(TrafficEvent(T.ROUTE_COMPLETION, 0, "", {"route_completed": value}))


def event(kind: TrafficEventType, message: str = "m", **data: float) -> TrafficEvent:
    return TrafficEvent(kind, 10, message, data or None)


OUTSIDE_10 = (
    "Agent went outside its route lanes for about 8.0 meters (10.0% of the completed route)"
)


def straight(metres: float) -> list[list[float]]:
    return [[0.0, 0.0, 0.0], [metres, 0.0, 0.0]]


def evaluate(routes: list[tuple[list, list, Failure]], timed_out: bool = False) -> dict:
    """One session over `routes` = (points, criteria, failure); the final file as a dict."""
    store = MemoryResultsFile()
    session = EvaluationSession(store, [route_name(str(i)) for i in range(len(routes))], 1)
    for points, criteria, failure in routes:
        entry = session.next_route()
        if failure is not Failure.SCENARIO_LOAD:
            session.route_loaded(ScoredRoute(points, criteria, timed_out))
        session.agent_ready(["carla_gnss"])
        session.route_finished(entry, failure, 10.0, 5.0)
    session.finish()
    return json.loads(store.raw)


def record(data: dict, i: int = 0) -> dict:
    return data["_checkpoint"]["records"][i]


def test_fixed_penalties_multiply() -> None:
    criteria = [
        completion(100),
        Events(event(T.COLLISION_VEHICLE), event(T.TRAFFIC_LIGHT_INFRACTION)),
        Events(event(T.STOP_INFRACTION)),
    ]
    r = record(evaluate([(straight(100), criteria, Failure.NONE)]))
    # 0.6 x 0.7 x 0.8 = 0.336
    assert r["scores"] == {"score_route": 100, "score_penalty": 0.336, "score_composed": 33.6}
    assert r["status"] == "Completed"
    assert r["num_infractions"] == 3


@pytest.mark.parametrize(
    ("kind", "factor"),
    [
        (T.COLLISION_PEDESTRIAN, 0.5),
        (T.COLLISION_STATIC, 0.65),
        (T.SCENARIO_TIMEOUT, 0.7),
        (T.YIELD_TO_EMERGENCY_VEHICLE, 0.7),
    ],
)
def test_each_fixed_factor(kind: TrafficEventType, factor: float) -> None:
    r = record(evaluate([(straight(100), [completion(100), Events(event(kind))], Failure.NONE)]))
    assert r["scores"]["score_penalty"] == factor


def test_min_speed_and_outside_lanes_follow_their_percentages() -> None:
    criteria = [
        completion(80.0),
        Events(event(T.OUTSIDE_ROUTE_LANES_INFRACTION, OUTSIDE_10, percentage=10.0, distance=8.0)),
        Events(event(T.MIN_SPEED_INFRACTION, percentage=50.0)),
    ]
    r = record(evaluate([(straight(100), criteria, Failure.NONE)]))
    # outside lanes: 1 - 10/100 = 0.9; min speed: 1 - 0.3 x (1 - 0.5) = 0.85; 0.9 x 0.85
    assert r["scores"]["score_penalty"] == 0.765
    assert r["scores"]["score_composed"] == 61.2  # 80 x 0.765
    assert r["status"] == "Failed"


def test_route_deviation_and_blocked_set_the_failure_last_wins() -> None:
    criteria = [
        completion(40.0),
        Events(event(T.VEHICLE_BLOCKED)),
        Events(event(T.ROUTE_DEVIATION)),
    ]
    r = record(evaluate([(straight(100), criteria, Failure.NONE)]))
    assert r["status"] == "Failed - Agent deviated from the route"
    assert r["scores"]["score_penalty"] == 1.0
    assert r["infractions"]["route_dev"] == ["m"]
    assert r["infractions"]["vehicle_blocked"] == ["m"]


def test_route_timeout_is_an_infraction_and_a_failure() -> None:
    data = evaluate([(straight(100), [completion(60.0)], Failure.NONE)], timed_out=True)
    r = record(data)
    assert r["status"] == "Failed - Agent timed out"
    assert r["infractions"]["route_timeout"] == ["Route timeout."]
    # one timeout over 0.1 km x 60 % = 0.06 km driven
    assert data["_checkpoint"]["global_record"]["infractions"]["route_timeout"] == 16.667


def test_a_reached_target_ignores_an_agent_crash() -> None:
    r = record(evaluate([(straight(100), [completion(100)], Failure.AGENT_RUNTIME)]))
    assert r["status"] == "Perfect"


def test_global_means_sample_std_dev_and_per_km() -> None:
    routes = [
        (straight(1000), [completion(100), Events()], Failure.NONE),
        (straight(500), [completion(50.0), Events(event(T.COLLISION_PEDESTRIAN))], Failure.NONE),
    ]
    data = evaluate(routes)
    glob = data["_checkpoint"]["global_record"]
    # composed 100 and 25: mean 62.5, std sqrt((37.5^2 + 37.5^2) / (2 - 1)) = 53.033
    assert glob["scores_mean"] == {
        "score_composed": 62.5,
        "score_route": 75.0,
        "score_penalty": 0.75,
    }
    assert glob["scores_std_dev"] == {
        "score_composed": 53.033,
        "score_route": 35.355,
        "score_penalty": 0.354,
    }
    # km driven: 1.0 x 100 % + 0.5 x 50 % = 1.25; one pedestrian -> 0.8 per km
    assert glob["infractions"]["collisions_pedestrian"] == 0.8
    assert glob["meta"]["total_length"] == 1500.0
    assert glob["status"] == "Failed"
    assert glob["meta"]["exceptions"] == [["RouteScenario_1_rep0", 1, "Failed"]]
    assert data["entry_status"] == "Finished" and data["eligible"] is True
    assert data["values"][:4] == ["62.5", "75.0", "0.75", "0.8"]


def test_one_route_std_dev_is_int_zero() -> None:
    data = evaluate([(straight(100), [completion(100)], Failure.NONE)])
    assert data["_checkpoint"]["global_record"]["scores_std_dev"]["score_route"] == 0
    assert type(data["_checkpoint"]["global_record"]["scores_std_dev"]["score_route"]) is int
    assert record(data)["status"] == "Perfect"


def test_outside_lanes_global_is_km_from_the_message() -> None:
    message = (
        "Agent went outside its route lanes for about 250.5 meters (25.05% of the completed route)"
    )
    criteria = [
        completion(100),
        Events(event(T.OUTSIDE_ROUTE_LANES_INFRACTION, message, percentage=25.05)),
    ]
    data = evaluate([(straight(1000), criteria, Failure.NONE)])
    assert data["_checkpoint"]["global_record"]["infractions"]["outside_route_lanes"] == 0.251


def test_simulation_crash_stops_and_marks_the_entry() -> None:
    store = MemoryResultsFile()
    session = EvaluationSession(store, [route_name("0"), route_name("1")], 1)
    entry = session.next_route()
    session.route_finished(entry, Failure.SCENARIO_LOAD)
    assert session.next_route() is None
    assert session.finish() is None
    data = json.loads(store.raw)
    assert data["entry_status"] == "Crashed"
    assert data["_checkpoint"]["progress"] == [1, 2]
    assert record(data)["status"] == "Failed - Simulation crashed"
    assert record(data)["meta"]["route_length"] == 0


def test_no_sensors_make_the_entry_invalid() -> None:
    store = MemoryResultsFile()
    session = EvaluationSession(store, [route_name("0")], 1)
    entry = session.next_route()
    session.route_loaded(ScoredRoute(straight(10), [completion(100)]))
    session.agent_ready([])
    session.route_finished(entry)
    assert session.finish() == "Missing 'sensors' data"
    assert json.loads(store.raw)["entry_status"] == "Invalid"


def test_resume_repeats_a_crashed_route_only() -> None:
    def checkpoint(status: str) -> dict:
        ids = ["RouteScenario_0_rep0", "RouteScenario_1_rep0", "RouteScenario_2_rep0"]
        return {
            "entry_status": status,
            "_checkpoint": {"progress": [3, 4], "records": [{"route_id": i} for i in ids]},
        }

    names = [route_name(str(i)) for i in range(4)]
    crashed, rejected, other = RouteOrder(names, 1), RouteOrder(names, 1), RouteOrder(names, 2)
    assert crashed.validate_and_resume(checkpoint("Crashed")) and crashed.index == 2
    assert rejected.validate_and_resume(checkpoint("Rejected")) and rejected.index == 3
    assert not other.validate_and_resume(checkpoint("Started"))  # 8 routes, not 4


def test_resume_continues_an_interrupted_file() -> None:
    store = MemoryResultsFile()
    names = [route_name("0"), route_name("1")]
    first = EvaluationSession(store, names, 1)
    entry = first.next_route()
    first.route_loaded(ScoredRoute(straight(10), [completion(100)]))
    first.agent_ready(["carla_gnss"])
    first.route_finished(entry)
    # killed here; a new process resumes at the second route
    second = EvaluationSession(store, names, 1, resume=True)
    entry = second.next_route()
    assert entry.route_id == "RouteScenario_1_rep0"
    second.route_loaded(ScoredRoute(straight(10), [completion(100)]))
    second.agent_ready(["carla_gnss"])
    second.route_finished(entry)
    assert second.finish() == ""
    data = json.loads(store.raw)
    assert [r["route_id"] for r in data["_checkpoint"]["records"]] == names_rep0(names)
    assert data["entry_status"] == "Finished"


def names_rep0(names: list[str]) -> list[str]:
    return [f"{n}_rep0" for n in names]


def test_merge_refuses_a_duplicated_route() -> None:
    part = {
        "_checkpoint": {"progress": [1, 1], "records": [{"route_id": "RouteScenario_0_rep0"}]},
        "sensors": [],
    }
    with pytest.raises(ScoringError, match="RouteScenario_0_rep0"):
        merge_results([part, part], ["a.json", "b.json"], MemoryResultsFile())


def test_file_bytes_keep_ints_and_have_no_trailing_newline() -> None:
    raw = encode_results({"a": 100, "b": 100.0, "c": [], "d": {}})
    assert raw == b'{\n    "a": 100,\n    "b": 100.0,\n    "c": [],\n    "d": {}\n}'


def test_a_damaged_results_file_is_an_error_naming_it() -> None:
    with pytest.raises(ResultsFileError, match=r"run/results\.json"):
        MemoryResultsFile("run/results.json", b'{"_checkpoint": ').load()


def test_route_length_sums_segments() -> None:
    assert route_length([[0, 0, 0], [3, 4, 0], [3, 4, 12]]) == 17.0
    assert route_length([[1, 2, 3]]) == 0.0
    assert math.isclose(route_length([[0, 0, 0], [1, 1, 1]]), math.sqrt(3), rel_tol=1e-7)


def test_results_file_on_disk_is_replaced_whole(tmp_path) -> None:
    path = tmp_path / "run" / "results.json"
    disk = ResultsFile(path)
    memory = MemoryResultsFile()
    for store in (disk, memory):
        session = EvaluationSession(store, [route_name("0")], 1)
        entry = session.next_route()
        session.route_loaded(ScoredRoute(straight(10), [completion(100)]))
        session.agent_ready(["carla_gnss"])
        session.route_finished(entry, Failure.NONE, 2.5, 1.25)
        session.finish()
    assert path.read_bytes() == memory.raw
    assert sorted(p.name for p in path.parent.iterdir()) == ["results.json"]


def test_resuming_a_checkpoint_with_a_broken_progress_is_an_error_not_a_restart() -> None:
    raw = b'{"entry_status": "Started", "_checkpoint": {"progress": [2], "records": []}}'
    store = MemoryResultsFile("runs/a/results.json", raw)
    with pytest.raises(ResultsFileError, match=r"runs/a/results\.json: _checkpoint\.progress"):
        EvaluationSession(store, [route_name("0")], 1, resume=True)
    assert store.raw == raw  # nothing was cleared


def test_route_length_takes_transforms_too() -> None:
    route = [Transform(Location(0.0, 0.0, 0.0)), Transform(Location(3.0, 4.0, 0.0))]
    assert route_length(route) == 5.0
